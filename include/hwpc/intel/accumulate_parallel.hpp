// Multi-threaded accumulation of one large capture.
//
// The buffer is cut into contiguous chunks of whole reports; each thread
// accumulates one chunk with the single-threaded fast path, and the steps
// that straddle two chunks (last valid report of one, first valid report of
// the next) are added afterwards. The result equals accumulate() exactly.
// Kept apart from accumulate.hpp because it needs std::thread (and so, on
// some toolchains, -pthread); the core headers stay dependency-free.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include "hwpc/intel/accumulate.hpp"

namespace hwpc::intel {

inline accumulation accumulate_parallel(const report_buffer& buf, generation gen, unsigned threads,
                                        simd_path path = simd_path::automatic) {
  const report_format& f = buf.format();
  const timestamp_reading tsr = timestamp_reading::of(f, gen);
  const std::size_t n = buf.size();
  // Below ~4 MiB per thread, thread start-up costs more than it saves.
  const std::size_t min_chunk = std::max<std::size_t>(1, (std::size_t{4} << 20) / f.size);
  const std::size_t max_threads = std::max<std::size_t>(1, n / min_chunk);
  const std::size_t t = std::min<std::size_t>(std::max(1u, threads), max_threads);
  if (t <= 1) return accumulate(buf, gen, path);

  const std::size_t chunk = (n + t - 1) / t;
  std::vector<accumulation> parts(t);
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  auto slice = [&](std::size_t k) {
    const std::size_t begin = k * chunk, end = std::min(n, begin + chunk);
    // Each slice is whole reports of a validated buffer, so make() cannot fail.
    auto sub = report_buffer::make(buf.bytes().subspan(begin * f.size, (end - begin) * f.size), f);
    parts[k] = accumulate(*sub, gen, path);
  };
  for (std::size_t k = 1; k < t; ++k) pool.emplace_back(slice, k);
  slice(0);
  for (auto& th : pool) th.join();

  accumulation acc = std::move(parts[0]);
  const counter_list counters(f);
  for (std::size_t k = 1; k < t; ++k) {
    // Bridge: the last valid report before chunk k and the first valid one in it.
    const std::size_t begin = k * chunk;
    std::size_t before = begin, after = begin;
    while (before > 0 && !buf[before - 1].is_valid()) --before;
    while (after < n && !buf[after].is_valid()) ++after;
    // Only when chunk k has a valid report of its own; otherwise the next
    // chunk's bridge spans this one.
    if (before > 0 && after < std::min(n, begin + chunk)) {
      detail::add_step(buf[before - 1], buf[after], counters, tsr, acc);
    }
    acc.merge(parts[k]);
  }
  return acc;
}

// The same with TIME_STAMP read as it is (every generation but 12.55).
inline accumulation accumulate_parallel(const report_buffer& buf, unsigned threads,
                                        simd_path path = simd_path::automatic) {
  return accumulate_parallel(buf, generation::gen12, threads, path);
}

}  // namespace hwpc::intel
