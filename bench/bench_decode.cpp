// Decode throughput, every figure beside its baselines from the same run:
//   memory_read/<size>           sum of every 64-bit word (the memory-read limit)
//   memcpy/<size>                copy of the buffer
//   naive_accumulate/<fmt>/<sz>  per-report, per-counter scalar loop (the "before")
//   accumulate/<fmt>/<sz>        hwpc's totals (wrap-count SIMD kernel)
//   naive_deltas/<fmt>           per-interval deltas into columns, the plain way
//   deltas/<fmt>                 hwpc's deltas_to_columns
//   accumulate_mt/<fmt>/<sz>/threads:N  the multi-threaded path
//   memory_read_mt/<sz>/threads:N       memory_read on N threads (its limit)
// Sizes: 64 KiB (in cache) and 256 MiB (from memory). The same bytes serve
// every format: every 64-byte block starts with a non-zero RPT_ID, so each
// report of any size is valid.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hwpc/intel.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"

namespace {

using namespace hwpc::intel;

constexpr std::size_t in_cache = std::size_t{64} << 10;
constexpr std::size_t from_memory = std::size_t{256} << 20;

const std::vector<std::byte>& capture_bytes() {
  static const std::vector<std::byte> bytes = [] {
    std::vector<std::byte> b(from_memory);
    std::uint64_t x = 0x9e3779b97f4a7c15ull;
    for (std::size_t i = 0; i < b.size(); i += 8) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      std::memcpy(b.data() + i, &x, 8);
    }
    for (std::size_t i = 0; i < b.size(); i += 64) {
      std::uint32_t id = 0x80000u | static_cast<std::uint32_t>(i >> 6);
      std::memcpy(b.data() + i, &id, 4);
    }
    return b;
  }();
  return bytes;
}

hwpc::byte_span slice(std::size_t size, std::size_t report_size) {
  return hwpc::byte_span(capture_bytes()).first(size / report_size * report_size);
}

void set_rates(benchmark::State& st, std::size_t bytes, std::size_t reports) {
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * bytes));
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * reports));
}

void memory_read(benchmark::State& st, std::size_t size) {
  const auto b = slice(size, 64);
  for (auto _ : st) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < b.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, b.data() + i, 8);
      sum += w;
    }
    benchmark::DoNotOptimize(sum);
  }
  set_rates(st, b.size(), b.size() / 64);
}

// The same sum on N threads over contiguous slices: the memory-read limit
// that the multi-threaded accumulation is measured against.
void memory_read_mt(benchmark::State& st, std::size_t size) {
  const auto b = slice(size, 64);
  const std::size_t t = static_cast<std::size_t>(st.range(0));
  for (auto _ : st) {
    std::vector<std::uint64_t> sums(t);
    auto part = [&](std::size_t k) {
      const std::size_t words = b.size() / 8, begin = words * k / t, end = words * (k + 1) / t;
      std::uint64_t sum = 0;
      for (std::size_t i = begin; i < end; ++i) {
        std::uint64_t w;
        std::memcpy(&w, b.data() + 8 * i, 8);
        sum += w;
      }
      sums[k] = sum;
    };
    std::vector<std::thread> pool;
    for (std::size_t k = 1; k < t; ++k) pool.emplace_back(part, k);
    part(0);
    for (auto& th : pool) th.join();
    benchmark::DoNotOptimize(sums.data());
  }
  set_rates(st, b.size(), b.size() / 64);
}

void memory_copy(benchmark::State& st, std::size_t size) {
  const auto b = slice(size, 64);
  std::vector<std::byte> dst(b.size());
  for (auto _ : st) {
    std::memcpy(dst.data(), b.data(), b.size());
    benchmark::ClobberMemory();
  }
  set_rates(st, b.size(), b.size() / 64);
}

void naive_accumulate(benchmark::State& st, const report_format* f, std::size_t size) {
  auto buf = report_buffer::make(slice(size, f->size), *f);
  for (auto _ : st) benchmark::DoNotOptimize(accumulate_naive(*buf).totals.data());
  set_rates(st, buf->bytes().size(), buf->size());
}

void fast_accumulate(benchmark::State& st, const report_format* f, std::size_t size) {
  auto buf = report_buffer::make(slice(size, f->size), *f);
  for (auto _ : st) benchmark::DoNotOptimize(accumulate(*buf).totals.data());
  set_rates(st, buf->bytes().size(), buf->size());
}

void parallel_accumulate(benchmark::State& st, const report_format* f, std::size_t size) {
  auto buf = report_buffer::make(slice(size, f->size), *f);
  const unsigned threads = static_cast<unsigned>(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(accumulate_parallel(*buf, threads).totals.data());
  set_rates(st, buf->bytes().size(), buf->size());
}

struct columns {
  std::vector<std::vector<std::uint64_t>> data;
  std::vector<std::uint64_t*> ptrs;
  columns(std::size_t counters, std::size_t rows)
      : data(counters, std::vector<std::uint64_t>(rows)) {
    for (auto& c : data) ptrs.push_back(c.data());
  }
};

// The plain way to fill columns: every counter of every report through the
// field descriptor, one report pair at a time.
void naive_deltas(benchmark::State& st, const report_format* f) {
  auto buf = report_buffer::make(slice(in_cache, f->size), *f);
  const counter_list counters(*f);
  columns cols(counters.size(), buf->size());
  for (auto _ : st) {
    std::size_t k = 0;
    for (std::size_t i = 1; i < buf->size(); ++i, ++k) {
      const report_view a = (*buf)[i - 1], b = (*buf)[i];
      for (std::size_t c = 0; c < counters.size(); ++c) {
        cols.ptrs[c][k] = field_delta(counters[c], a.value(counters[c]), b.value(counters[c]));
      }
    }
    benchmark::DoNotOptimize(cols.ptrs[0]);
    benchmark::ClobberMemory();
  }
  set_rates(st, buf->bytes().size(), buf->size());
}

void fast_deltas(benchmark::State& st, const report_format* f) {
  auto buf = report_buffer::make(slice(in_cache, f->size), *f);
  columns cols(counter_list(*f).size(), buf->size());
  for (auto _ : st) {
    benchmark::DoNotOptimize(deltas_to_columns(*buf, cols.ptrs));
    benchmark::ClobberMemory();
  }
  set_rates(st, buf->bytes().size(), buf->size());
}

std::string fmt_name(const report_format& f) {
  return std::string(name_of(f.platforms[0])) + "_" + std::string(f.name);
}

std::string size_name(std::size_t s) { return s == in_cache ? "64KiB" : "256MiB"; }

}  // namespace

int main(int argc, char** argv) {
  for (std::size_t size : {in_cache, from_memory}) {
    benchmark::RegisterBenchmark(("memory_read/" + size_name(size)).c_str(), memory_read, size);
    benchmark::RegisterBenchmark(("memcpy/" + size_name(size)).c_str(), memory_copy, size);
  }
  for (const auto& f : all_formats) {
    for (std::size_t size : {in_cache, from_memory}) {
      const std::string suffix = fmt_name(f) + "/" + size_name(size);
      benchmark::RegisterBenchmark(("naive_accumulate/" + suffix).c_str(), naive_accumulate, &f,
                                   size);
      benchmark::RegisterBenchmark(("accumulate/" + suffix).c_str(), fast_accumulate, &f, size);
    }
    benchmark::RegisterBenchmark(("naive_deltas/" + fmt_name(f)).c_str(), naive_deltas, &f);
    benchmark::RegisterBenchmark(("deltas/" + fmt_name(f)).c_str(), fast_deltas, &f);
  }
  benchmark::RegisterBenchmark("memory_read_mt/256MiB", memory_read_mt, from_memory)
      ->Arg(1)
      ->Arg(2)
      ->ArgName("threads")
      ->UseRealTime();
  for (const auto& f : all_formats) {
    if (f.size != 256) continue;
    benchmark::RegisterBenchmark(("accumulate_mt/" + fmt_name(f) + "/256MiB").c_str(),
                                 parallel_accumulate, &f, from_memory)
        ->Arg(1)
        ->Arg(2)
        ->ArgName("threads")
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
