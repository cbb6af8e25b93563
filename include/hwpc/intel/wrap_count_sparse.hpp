// Wrap counting that reads only the lanes a format's totals need.
//
// A run's total of a counter telescopes to (last - first) + wraps * 2^width
// (wrap_count.hpp). A 64-bit counter never wraps between two reports, so its
// total is last - first and no lane of it needs a compare. On the Xe driver's
// formats with 64-bit counters (PEC64u64, PEC32u64, OAC A24u64, MPEC8u64 …)
// most of the report is such counters: the dense kernel compares every dword
// of every report, twice the work per counter of a 32-bit format, and for
// 576- and 640-byte reports it holds more count vectors than there are
// registers. The sparse kernels below walk the same run (stopping at the
// first zero RPT_ID, as every wrap kernel does) but compare only the 32-byte
// vectors that hold a 32-bit counter or a 32-bit TIME_STAMP: none for
// PEC64u64, the B and C vectors for PEC64u64_B8_C8. The dword counts they
// leave at zero belong to lanes finish_run() never reads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/wrap_count.hpp"

namespace hwpc::intel::detail {

// The 32-byte vectors of a report whose dword wraps the totals read.
struct wrap_vectors {
  static constexpr std::size_t max = 4;  // more than this: the dense kernel
  std::array<std::uint16_t, max> index{};
  std::size_t count = 0;
  bool sparse = false;  // whether the sparse kernels serve this format

  // Sparse when the format skips at least one whole vector and needs at most
  // `max`: its size is a multiple of 32 bytes, it has no 40-bit counter (their
  // high bytes need the dense kernel's second count), and every 32-bit field
  // that is summed (a counter, TIME_STAMP) is dword-aligned.
  static constexpr wrap_vectors of(const report_format& f) noexcept {
    wrap_vectors w;
    if (f.size == 0 || f.size % 32 != 0 || f.size > limits.report_bytes) return w;
    std::array<bool, limits.report_bytes / 32> needed{};
    for (const field& fd : f.fields) {
      if (!fd.is_counter() && fd.kind != field_kind::timestamp) continue;
      if (fd.bits == 64) continue;
      if (fd.bits != 32 || fd.offset % 4 != 0 || fd.offset + 4u > f.size) return w;
      needed[fd.offset / 32] = true;
    }
    const std::size_t total = f.size / 32;
    for (std::size_t v = 0; v < total; ++v) {
      if (!needed[v]) continue;
      if (w.count == max) return wrap_vectors{};
      w.index[w.count++] = static_cast<std::uint16_t>(v);
    }
    w.sparse = w.count < total;
    return w;
  }
};

using sparse_wrap_kernel = std::size_t (*)(const std::byte*, std::size_t, std::size_t,
                                           const wrap_vectors&, wrap_counts&) noexcept;

// Turns per-lane counts of non-decreasing steps into wraps.
inline void add_sparse_counts(const std::uint32_t* kept, std::size_t w, std::uint32_t steps,
                              const wrap_vectors& vs, wrap_counts& out) noexcept {
  for (std::size_t l = 0; l < 8; ++l) out.dword[8 * vs.index[w] + l] += steps - kept[l];
}

#if defined(HWPC_HAVE_VECTOR_KERNEL)
// Generic vector kernel (SSE2 on x86-64, NEON on AArch64): unsigned compare
// as a signed one on sign-flipped dwords, as in wrap_count_vector.
template <std::size_t W>
std::size_t wrap_count_sparse_vector(const std::byte* p, std::size_t n, std::size_t size,
                                     const wrap_vectors& vs, wrap_counts& out) noexcept {
  const i32x8 sign = i32x8{} + std::int32_t{-0x7fffffff - 1};
  i32x8 prev[W > 0 ? W : 1], kept[W > 0 ? W : 1];
  std::size_t off[W > 0 ? W : 1];
  for (std::size_t w = 0; w < W; ++w) {
    off[w] = 32 * std::size_t{vs.index[w]};
    std::memcpy(&prev[w], p + off[w], 32);
    prev[w] ^= sign;
    kept[w] = i32x8{};
  }
  std::size_t i = 1;
  for (; i < n; ++i) {
    const std::byte* r = p + i * size;
    if (rpt_id_zero(r)) break;
    for (std::size_t w = 0; w < W; ++w) {
      i32x8 cur;
      std::memcpy(&cur, r + off[w], 32);
      cur ^= sign;
      kept[w] += prev[w] <= cur;  // -1 where the dword did not decrease
      prev[w] = cur;
    }
  }
  const std::uint32_t steps = static_cast<std::uint32_t>(i - 1);
  for (std::size_t w = 0; w < W; ++w) {
    std::uint32_t k[8];
    for (std::size_t l = 0; l < 8; ++l) k[l] = static_cast<std::uint32_t>(-kept[w][l]);
    add_sparse_counts(k, w, steps, vs, out);
  }
  return i;
}

#if defined(HWPC_HAVE_AVX2_KERNEL)
// AVX2: at most four vectors, so the previous report's vectors and the counts
// stay in registers; one unsigned max and one compare per vector and report.
template <std::size_t W>
[[gnu::target("avx2")]] std::size_t wrap_count_sparse_avx2(const std::byte* p, std::size_t n,
                                                           std::size_t size, const wrap_vectors& vs,
                                                           wrap_counts& out) noexcept {
  __m256i held[W > 0 ? W : 1], kept[W > 0 ? W : 1];
  std::size_t off[W > 0 ? W : 1];
  for (std::size_t w = 0; w < W; ++w) {
    off[w] = 32 * std::size_t{vs.index[w]};
    held[w] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + off[w]));
    kept[w] = _mm256_setzero_si256();
  }
  std::size_t i = 1;
  for (; i < n; ++i) {
    const std::byte* r = p + i * size;
    if (rpt_id_zero(r)) break;
    for (std::size_t w = 0; w < W; ++w) {
      const __m256i cur = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + off[w]));
      kept[w] = _mm256_sub_epi32(kept[w], _mm256_cmpeq_epi32(_mm256_max_epu32(cur, held[w]), cur));
      held[w] = cur;
    }
  }
  const std::uint32_t steps = static_cast<std::uint32_t>(i - 1);
  for (std::size_t w = 0; w < W; ++w) {
    std::uint32_t k[8];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(k), kept[w]);
    add_sparse_counts(k, w, steps, vs, out);
  }
  return i;
}
#endif
#endif

// Counts the wraps of the vectors `vs` names over the run of valid reports
// that starts at `p` (taken as valid); returns the run's length, like
// wrap_count(). `vs.sparse` must hold. The scalar path (and a compiler
// without vector extensions) takes the dense scalar kernel.
inline std::size_t wrap_count_sparse(const std::byte* p, std::size_t n, std::size_t size,
                                     const wrap_vectors& vs, simd_path path,
                                     wrap_counts& out) noexcept {
  if (n < 2) return n;
  sparse_wrap_kernel kernel = nullptr;
#if defined(HWPC_HAVE_VECTOR_KERNEL)
  if (path != simd_path::scalar && vs.count <= wrap_vectors::max) {
    static constexpr auto vector_fns = []<std::size_t... W>(std::index_sequence<W...>) {
      return std::array<sparse_wrap_kernel, sizeof...(W)>{wrap_count_sparse_vector<W>...};
    }
    (std::make_index_sequence<wrap_vectors::max + 1>{});
    kernel = vector_fns[vs.count];
#if defined(HWPC_HAVE_AVX2_KERNEL)
    static constexpr auto avx2_fns = []<std::size_t... W>(std::index_sequence<W...>) {
      return std::array<sparse_wrap_kernel, sizeof...(W)>{wrap_count_sparse_avx2<W>...};
    }
    (std::make_index_sequence<wrap_vectors::max + 1>{});
    if (avx2_chosen(path)) kernel = avx2_fns[vs.count];
#endif
  }
#else
  (void)vs;
#endif
  if (kernel == nullptr) return wrap_count(p, n, size, false, path, out);
  return in_chunks(p, n, size, [&](const std::byte* q, std::size_t len) {
    return kernel(q, len, size, vs, out);
  });
}

}  // namespace hwpc::intel::detail
