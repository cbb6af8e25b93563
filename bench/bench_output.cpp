// Writer throughput and size, each output beside the others on the same rows:
//   write/csv, write/perfetto_gpu, write/perfetto, write/chrome_json
// 20,000 intervals of an HSW A45_B8_C8-like schema (61 counters: GPU_TICKS-
// sized and event-sized increments from a fixed xorshift stream), written to
// memory. Reported: values per second (items) and bytes per value; decoding
// is not included (bench_decode measures it). write/perfetto_gpu is
// `--output perfetto` (GPU counter packets, one per row), write/perfetto the
// older track-event layout (`--perfetto-layout track-event`, one packet per
// value), beside each other on the same rows.
//   write/mali_csv, write/mali_perfetto_gpu, write/mali_perfetto
// 500 emulated kinstr_prfcnt samples of a Mali-G78 (2 L2 slices, 8 cores),
// decoded once to per-instance rows (the sums and every slice's and core's
// counters, as `hwpc mali --output perfetto` writes them), then written as
// CSV and as the trace with its GPU / block / core track layout.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/mali/tracks.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/perfetto/gpu_counter_writer.hpp"
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
void BM_write_perfetto_gpu(benchmark::State& st) {
  write(st, [](hwpc::output::text_buffer& out, const hwpc::row_schema& s) {
    hwpc::output::perfetto::gpu_capture c;
    c.gpu.name = "bench";
    return std::make_unique<hwpc::output::perfetto::gpu_counter_writer>(out, s, c);
  });
}
void BM_write_chrome_json(benchmark::State& st) {
  write(st, [](hwpc::output::text_buffer& out, const hwpc::row_schema& s) {
    return std::make_unique<hwpc::output::chrome_json_writer>(out, s, "bench");
  });
}

// Mali rows: decoded once, kept as values.
struct mali_rows {
  const hwpc::mali::gpu_product* gpu = nullptr;
  hwpc::mali::row_options opt;
  hwpc::row_schema schema;
  std::vector<std::uint64_t> values;  // samples x columns
  std::vector<std::uint64_t> ends;
};

const mali_rows& mali_capture() {
  static const mali_rows r = [] {
    mali_rows out;
    out.gpu = *hwpc::mali::find_gpu("g78");
    hwpc::mali::emulate_options o;
    o.gpu_id = hwpc::mali::gpu_id_of_product(out.gpu->product_id);
    o.csf = hwpc::mali::is_csf_product(out.gpu->product_id);
    o.values_per_block = out.gpu->table->values_per_block;
    o.kinstr = true;
    o.l2_slices = 2;
    o.core_mask = 0xff;
    o.samples = 500;
    const auto e = hwpc::mali::emulate(o);
    const auto h = hwpc::mali::capture_header::parse(e.file).value();
    out.opt = {true, true, h.layout};
    hwpc::mali::row_builder b(*out.gpu, nullptr, out.opt);
    out.schema = b.schema();
    auto rd = hwpc::mali::kinstr_reader::make(*out.gpu->table, h.layout, h.payload(e.file),
                                              hwpc::mali::capture_header_bytes)
                  .value();
    (void)hwpc::mali::for_each_row(rd, b, [&](const hwpc::row& row) {
      out.values.insert(out.values.end(), row.counters.begin(), row.counters.end());
      out.ends.push_back(row.end);
    });
    return out;
  }();
  return r;
}

template <class Make>
void write_mali(benchmark::State& st, Make make) {
  const mali_rows& r = mali_capture();
  const std::size_t cols = r.schema.counters.size(), n = r.ends.size();
  std::size_t bytes = 0;
  for (auto _ : st) {
    hwpc::output::text_buffer out;
    {
      auto w = make(out, r);
      hwpc::row row;
      for (std::size_t i = 0; i < n; ++i) {
        row.report = i;
        row.begin = i == 0 ? 0 : r.ends[i - 1];
        row.end = r.ends[i];
        row.counters = std::span<const std::uint64_t>(r.values).subspan(i * cols, cols);
        w->write(row);
      }
      w->end(hwpc::accounting{});
    }
    bytes = out.str().size();
    benchmark::DoNotOptimize(out.str().data());
  }
  const double values = static_cast<double>(n * cols);
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * n * cols));
  st.counters["bytes_per_value"] = static_cast<double>(bytes) / values;
}

void BM_write_mali_csv(benchmark::State& st) {
  write_mali(st, [](hwpc::output::text_buffer& out, const mali_rows& r) {
    return std::make_unique<hwpc::output::csv_writer>(out, r.schema);
  });
}
void BM_write_mali_perfetto(benchmark::State& st) {
  write_mali(st, [](hwpc::output::text_buffer& out, const mali_rows& r) {
    return std::make_unique<hwpc::output::perfetto::trace_writer>(
        out, r.schema, "bench", hwpc::mali::track_layout_of(*r.gpu, r.schema, r.opt));
  });
}

void BM_write_mali_perfetto_gpu(benchmark::State& st) {
  write_mali(st, [](hwpc::output::text_buffer& out, const mali_rows& r) {
    hwpc::output::perfetto::gpu_capture c;
    c.gpu.name = "bench";
    c.layout = hwpc::mali::track_layout_of(*r.gpu, r.schema, r.opt);
    return std::make_unique<hwpc::output::perfetto::gpu_counter_writer>(out, r.schema, c);
  });
}

}  // namespace

BENCHMARK(BM_write_csv)->Name("write/csv")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_perfetto_gpu)->Name("write/perfetto_gpu")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_perfetto)->Name("write/perfetto")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_chrome_json)->Name("write/chrome_json")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_mali_csv)->Name("write/mali_csv")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_mali_perfetto_gpu)
    ->Name("write/mali_perfetto_gpu")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_write_mali_perfetto)->Name("write/mali_perfetto")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
