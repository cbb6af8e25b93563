// IGT recordings: recording::make and platform_of (identify()'s read of the
// first records) with or without a fallback platform, every event through
// the delta tracker, and the CPU time of every interval. Invariants: error
// offsets inside the input; event offsets inside; platform_of names make()'s
// platform; samples counted = yielded; CPU time is monotonic in GPU time
// (the points run forwards in both clocks) and never wraps.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/recording.hpp"

using namespace hwpc::intel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const std::uint8_t sel = in.u8();
  recording_options opts;
  if (sel & 0x80) opts.fallback_platform = static_cast<platform>((sel & 0x7f) % 20);
  const hwpc::byte_span bytes = in.rest();
  // identify()'s read of the first records: its errors lie inside the input,
  // and it names the full reader's platform whenever the full read succeeds.
  const auto first = recording::platform_of(bytes, opts);
  if (!first) fuzz::check_error(first.error_value(), bytes.size());
  auto r = recording::make(bytes, opts);
  if (!r) {
    fuzz::check_error(r.error_value(), bytes.size());
    return 0;
  }
  if (r->device().offset < recording::device_prefix_bytes) {
    FUZZ_CHECK(first && *first == r->device_platform(), "the first records name the platform");
  }
  const time_correlation& time = r->time();
  const auto pts = time.points();
  for (std::size_t i = 1; i < pts.size(); ++i) {
    FUZZ_CHECK(pts[i].cpu_ns >= pts[i - 1].cpu_ns, "correlation CPU times run forwards");
  }
  std::size_t samples = 0;
  std::vector<std::uint64_t> stamps;
  const capture_stats st = for_each_delta(
      *r, generation_of(r->device_platform()),
      [&](const capture_interval& iv) {
        FUZZ_CHECK(iv.offset < bytes.size(), "interval offset inside");
        stamps.push_back(iv.timestamp);
      },
      [&](const capture_discontinuity& d) { FUZZ_CHECK(d.offset < bytes.size(), "loss offset"); });
  for (const capture_event& e : *r) {
    FUZZ_CHECK(e.offset < bytes.size(), "event offset inside");
    samples += e.kind == event_kind::report;
  }
  FUZZ_CHECK(samples == r->samples(), "every SAMPLE is yielded");
  FUZZ_CHECK(st.reports + st.skipped_zero == samples, "tracker: reports + skipped = samples");
  if (!time.empty()) {
    // Monotonic on the modular GPU clock: sort the stamps by their distance
    // from the first point's nearest side and compare neighbours.
    const std::uint64_t first = pts.front().gpu_ts;
    const std::uint64_t span = pts.back().gpu_ts - first;
    __extension__ using i128 = __int128;
    auto key = [&](std::uint64_t g) -> i128 {
      const std::uint64_t rel = g - first;
      if (rel <= span) return rel;
      const std::uint64_t after = rel - span, before = 0 - rel;
      return after <= before ? static_cast<i128>(span) + after : -static_cast<i128>(before);
    };
    for (std::size_t i = 0; i < pts.size(); ++i) {
      FUZZ_CHECK(time.to_cpu(pts[i].gpu_ts).ns == static_cast<std::int64_t>(pts[i].cpu_ns),
                 "a point maps to its own CPU time");
      stamps.push_back(pts[i].gpu_ts);
      stamps.push_back(pts[i].gpu_ts + 1);
      stamps.push_back(pts[i].gpu_ts - 1);
    }
    stamps.push_back(first + (std::uint64_t{1} << 63));
    std::sort(stamps.begin(), stamps.end(),
              [&](std::uint64_t a, std::uint64_t b) { return key(a) < key(b); });
    // A time the points cannot support (before 0 ns or past INT64_MAX ns) has
    // none; every other one is monotonic in GPU time.
    std::int64_t last = 0;
    for (const std::uint64_t g : stamps) {
      const cpu_time t = time.to_cpu(g);
      if (t.quality == time_quality::none) {
        FUZZ_CHECK(t.ns == 0, "a time without a CPU time reads 0");
        continue;
      }
      FUZZ_CHECK(t.ns >= 0, "CPU time is never negative");
      FUZZ_CHECK(last <= t.ns, "CPU time is monotonic in GPU time");
      last = t.ns;
    }
  }
  return 0;
}
