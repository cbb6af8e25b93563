// Decode throughput, every figure beside its baselines from the same run:
//   memory_read/<size>           sum of every 64-bit word (a compiler-vectorised loop)
//   memory_read_avx2/<size>      the fastest read-only loop found: AVX2 loads of every
//                                byte into 8 independent accumulators (the memory-read limit)
//   memory_read_avx2_prefetch/<size>  the same with a software prefetch 2 KiB ahead
//   memcpy/<size>                copy of the buffer
//   naive_accumulate/<fmt>/<sz>  per-report, per-counter scalar loop (the "before")
//   accumulate/<fmt>/<sz>        hwpc's totals (wrap-count SIMD kernel)
//   naive_deltas/<fmt>           per-interval deltas into columns, the plain way
//   deltas/<fmt>                 hwpc's deltas_to_columns
//   accumulate_mt/<fmt>/<sz>/threads:N  the multi-threaded path
//   memory_read_mt/<sz>/threads:N       memory_read on N threads (its limit)
//   identify/<rec>               hwpc::identify() on a 32 MiB emulated recording (i915 TGL
//                                or Xe LNL): the first records read, up to DEVICE_INFO
//   recording_make/<rec>         the full reader on the same bytes (recording::make(),
//                                xe_recording::make()): what identify() did before
// Formats: every i915 format, and the Xe driver's formats with 64-bit
// headers (xe_*: 64-bit PEC counters, 576- and 640-byte reports).
// Sizes: 64 KiB (in cache) and 256 MiB (from memory). The same bytes serve
// every format: every 64-byte block starts with a non-zero RPT_ID, so each
// report of any size is valid.
#include <benchmark/benchmark.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hwpc/emu/oa_unit.hpp"
#include "hwpc/emu/outputs.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/pipeline/identify.hpp"

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

// Every byte through a 256-bit load, 8 loads per 256 bytes into 8
// independent accumulators (no loop-carried dependency longer than one add),
// optionally with a non-temporal software prefetch ahead of the loads. Runs
// only where the CPU has AVX2 (else it reports an error and no figure).
#if defined(__x86_64__)
template <bool prefetch>
__attribute__((target("avx2"))) std::uint64_t sum_avx2(const std::byte* p, std::size_t n) {
  __m256i acc[8];
  for (auto& a : acc) a = _mm256_setzero_si256();
  std::size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    if constexpr (prefetch) {
      _mm_prefetch(reinterpret_cast<const char*>(p + i + 2048), _MM_HINT_NTA);
      _mm_prefetch(reinterpret_cast<const char*>(p + i + 2048 + 64), _MM_HINT_NTA);
      _mm_prefetch(reinterpret_cast<const char*>(p + i + 2048 + 128), _MM_HINT_NTA);
      _mm_prefetch(reinterpret_cast<const char*>(p + i + 2048 + 192), _MM_HINT_NTA);
    }
    for (int k = 0; k < 8; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32 * k));
      acc[k] = _mm256_add_epi64(acc[k], v);
    }
  }
  for (int k = 1; k < 8; ++k) acc[0] = _mm256_add_epi64(acc[0], acc[k]);
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[0]);
  std::uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    sum += w;
  }
  return sum;
}

template <bool prefetch>
void memory_read_avx2(benchmark::State& st, std::size_t size) {
  if (!__builtin_cpu_supports("avx2")) {
    st.SkipWithError("no AVX2 on this CPU");
    return;
  }
  const auto b = slice(size, 64);
  for (auto _ : st) benchmark::DoNotOptimize(sum_avx2<prefetch>(b.data(), b.size()));
  set_rates(st, b.size(), b.size() / 64);
}
#else
template <bool prefetch>
void memory_read_avx2(benchmark::State& st, std::size_t) {
  st.SkipWithError("AVX2 is x86-64 only");
}
#endif

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

// The Xe formats the benchmarks add: those with the 64-bit header.
std::vector<const report_format*> xe_bench_formats() {
  std::vector<const report_format*> v;
  for (const auto& x : xe_formats) {
    if (x.header64) v.push_back(&x.layout);
  }
  return v;
}

std::string size_name(std::size_t s) { return s == in_cache ? "64KiB" : "256MiB"; }

// A 32 MiB recording from the emulator (i915 on TGL, or Xe on LNL), made on
// first use so that runs filtered to other rows do not pay for it.
const std::vector<std::byte>& emulated_recording(bool xe) {
  static const auto make = [](bool x) {
    hwpc::emu::config c;
    c.platform = x ? platform::lnl : platform::tgl;
    c.format = x ? "PEC64u64" : "A32u40_A4u32_B8_C8";
    c.reports = (std::size_t{32} << 20) / (x ? 584 : 264);
    c.exponent = 9;
    c.seed = 1;
    auto cap = hwpc::emu::emulate(c);
    if (!cap) return std::vector<std::byte>{};
    auto b = hwpc::emu::output_bytes(
        *cap, x ? hwpc::emu::output_kind::xe_recording : hwpc::emu::output_kind::recording);
    return b ? std::move(*b) : std::vector<std::byte>{};
  };
  static const std::vector<std::byte> i915 = make(false), xe_rec = make(true);
  return xe ? xe_rec : i915;
}

void identify_recording(benchmark::State& st, bool xe) {
  const auto& b = emulated_recording(xe);
  for (auto _ : st) {
    const hwpc::identity id = hwpc::identify(b);
    if (id.device.empty()) st.SkipWithError("identify() named no device");
    benchmark::DoNotOptimize(id.device.data());
  }
}

void recording_make(benchmark::State& st, bool xe) {
  const auto& b = emulated_recording(xe);
  for (auto _ : st) {
    bool ok = false;
    if (xe) {
      hwpc::intel::xe_recording_options o;
      o.unverified_layouts = true;
      ok = hwpc::intel::xe_recording::make(b, o).has_value();
    } else {
      ok = hwpc::intel::recording::make(b).has_value();
    }
    if (!ok) st.SkipWithError("the reader refused the emulated recording");
    benchmark::DoNotOptimize(ok);
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * b.size()));
}

}  // namespace

int main(int argc, char** argv) {
  for (std::size_t size : {in_cache, from_memory}) {
    benchmark::RegisterBenchmark(("memory_read/" + size_name(size)).c_str(), memory_read, size);
    benchmark::RegisterBenchmark(("memory_read_avx2/" + size_name(size)).c_str(),
                                 memory_read_avx2<false>, size);
    benchmark::RegisterBenchmark(("memory_read_avx2_prefetch/" + size_name(size)).c_str(),
                                 memory_read_avx2<true>, size);
    benchmark::RegisterBenchmark(("memcpy/" + size_name(size)).c_str(), memory_copy, size);
  }
  std::vector<std::pair<std::string, const report_format*>> formats;
  for (const auto& f : all_formats) formats.emplace_back(fmt_name(f), &f);
  for (const report_format* f : xe_bench_formats()) {
    formats.emplace_back("xe_" + std::string(f->name), f);
  }
  for (const auto& [name, fp] : formats) {
    const report_format& f = *fp;
    for (std::size_t size : {in_cache, from_memory}) {
      const std::string suffix = name + "/" + size_name(size);
      benchmark::RegisterBenchmark(("naive_accumulate/" + suffix).c_str(), naive_accumulate, &f,
                                   size);
      benchmark::RegisterBenchmark(("accumulate/" + suffix).c_str(), fast_accumulate, &f, size);
    }
    benchmark::RegisterBenchmark(("naive_deltas/" + name).c_str(), naive_deltas, &f);
    benchmark::RegisterBenchmark(("deltas/" + name).c_str(), fast_deltas, &f);
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
  for (const bool xe : {false, true}) {
    const std::string rec = xe ? "xe_lnl_32MiB" : "i915_tgl_32MiB";
    benchmark::RegisterBenchmark(("identify/" + rec).c_str(), identify_recording, xe);
    benchmark::RegisterBenchmark(("recording_make/" + rec).c_str(), recording_make, xe);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
