// Writer throughput and size, each output beside the others on the same rows:
//   write/csv, write/perfetto, write/chrome_json
// 20,000 intervals of an HSW A45_B8_C8-like schema (61 counters: GPU_TICKS-
// sized and event-sized increments from a fixed xorshift stream), written to
// memory. Reported: values per second (items) and bytes per value; decoding
// is not included (bench_decode measures it).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/perfetto/trace_writer.hpp"
#include "hwpc/output/text.hpp"

namespace {

constexpr std::size_t counters = 61;
constexpr std::size_t intervals = 20'000;

struct rows {
  hwpc::row_schema schema;
  std::vector<std::uint64_t> values;  // intervals x counters
};

const rows& capture() {
  static const rows r = [] {
    rows out;
    out.schema.source = "bench";
    out.schema.counters.push_back({"GPU_TICKS", "cycles", hwpc::column_kind::counter});
    for (std::size_t c = 1; c < counters; ++c) {
      out.schema.counters.push_back(
          {"A" + std::to_string(c - 1), "events", hwpc::column_kind::counter});
    }
    out.schema.ticks_per_second = 12'500'000;
    std::uint64_t x = 0x9e3779b97f4a7c15ull;
    out.values.resize(intervals * counters);
    for (auto& v : out.values) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      v = x & 0xfffff;  // increments up to 2^20, as over a 10 us interval
    }
    return out;
  }();
  return r;
}

template <class Make>
void write(benchmark::State& st, Make make) {
  const rows& r = capture();
  std::size_t bytes = 0;
  for (auto _ : st) {
    hwpc::output::text_buffer out;
    {
      auto w = make(out, r.schema);
      hwpc::row row;
      for (std::size_t i = 0; i < intervals; ++i) {
        row.report = i + 1;
        row.begin = i * 125;
        row.end = (i + 1) * 125;
        row.counters = std::span<const std::uint64_t>(r.values).subspan(i * counters, counters);
        w->write(row);
      }
      w->end(hwpc::accounting{});
    }
    bytes = out.str().size();
    benchmark::DoNotOptimize(out.str().data());
  }
  const double values = static_cast<double>(intervals * counters);
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * intervals * counters));
  st.counters["bytes_per_value"] = static_cast<double>(bytes) / values;
}

void BM_write_csv(benchmark::State& st) {
  write(st, [](hwpc::output::text_buffer& out, const hwpc::row_schema& s) {
    return std::make_unique<hwpc::output::csv_writer>(out, s);
  });
}
void BM_write_perfetto(benchmark::State& st) {
  write(st, [](hwpc::output::text_buffer& out, const hwpc::row_schema& s) {
    return std::make_unique<hwpc::output::perfetto::trace_writer>(out, s, "bench");
  });
}
void BM_write_chrome_json(benchmark::State& st) {
  write(st, [](hwpc::output::text_buffer& out, const hwpc::row_schema& s) {
    return std::make_unique<hwpc::output::chrome_json_writer>(out, s, "bench");
  });
}

}  // namespace

BENCHMARK(BM_write_csv)->Name("write/csv")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_perfetto)->Name("write/perfetto")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_chrome_json)->Name("write/chrome_json")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
