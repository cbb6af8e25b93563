// Reading what i915 perf read() returned, or an i915-perf-recorder file.
//
//   read_stream RECORDING
//   read_stream STREAM PLATFORM FORMAT     e.g. read_stream oa.bin skl A12
//
// Prints one line per interval (the deltas of GPU_TICKS and the first
// counter) and one per loss. Recordings also give each interval a CPU
// CLOCK_MONOTONIC time from their correlation records.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"

namespace hi = hwpc::intel;

namespace {

void print(const hi::capture_interval& iv, const hi::time_correlation* time) {
  std::printf("record %zu: %llu ticks, %s +%llu", iv.index,
              static_cast<unsigned long long>(iv.elapsed_ticks),
              std::string(hi::counter_list(iv.later.format())[0].name).c_str(),
              static_cast<unsigned long long>(iv.deltas[0]));
  if (time != nullptr) {
    const hi::cpu_time t = time->to_cpu(iv.timestamp);
    if (t.quality != hi::time_quality::none) {
      std::printf(" at %lld ns%s", static_cast<long long>(t.ns),
                  t.quality == hi::time_quality::extrapolated ? " (extrapolated)" : "");
    }
  }
  std::printf("\n");
}

template <class Source>
void walk(const Source& src, hi::generation gen, const hi::time_correlation* time) {
  const auto st = hi::for_each_delta(
      src, gen, [&](const hi::capture_interval& iv) { print(iv, time); },
      [](const hi::capture_discontinuity& d) {
        std::printf("record %zu at byte %zu: %s\n", d.index, d.offset,
                    std::string(hi::to_string(d.kind)).c_str());
      });
  std::printf("%zu reports, %zu intervals, %zu losses\n", st.reports, st.intervals,
              st.discontinuities);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr,
                 "usage: hwpc_example_read_stream RECORDING | hwpc_example_read_stream STREAM "
                 "PLATFORM FORMAT\n");
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> file{std::istreambuf_iterator<char>(in), {}};
  const hwpc::byte_span bytes = hwpc::as_bytes_span(file.data(), file.size());

  if (argc == 2) {
    auto rec = hi::recording::make(bytes);
    if (!rec) {
      std::fprintf(stderr, "%s\n", rec.error_value().describe().c_str());
      return 2;
    }
    std::printf("%s, device 0x%04x, metric set %s\n",
                std::string(hi::name_of(rec->device_platform())).c_str(),
                static_cast<unsigned>(rec->device().device_id),
                std::string(rec->device().metric_set_name).c_str());
    walk(*rec, hi::generation_of(rec->device_platform()), &rec->time());
    return 0;
  }
  const auto plat = hi::platform_from_name(argv[2]);
  const hi::report_format* format = plat ? hi::find_format(*plat, argv[3]) : nullptr;
  if (format == nullptr) {
    std::fprintf(stderr, "unknown platform or format\n");
    return 1;
  }
  auto stream = hi::i915_stream::make(bytes, *format);
  if (!stream) {
    std::fprintf(stderr, "%s\n", stream.error_value().describe().c_str());
    return 2;
  }
  walk(*stream, hi::generation_of(*plat), nullptr);
  return 0;
}
