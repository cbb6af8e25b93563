// Wrap counting: the kernel behind fast accumulation.
//
// The sum of the deltas of a counter over a run of reports telescopes:
//   sum_i (v_i - v_{i-1}) mod 2^w  =  (v_last - v_first) + 2^w * wraps
// where `wraps` counts the steps with v_i < v_{i-1}. So a run needs one
// compare and one subtract per dword per report — no widening — and the
// 64-bit totals are formed once at the end. The kernel treats a report as
// an array of dword lanes, whatever the format; 40-bit counters (low dword
// at dw(4+j), bits 39:32 at byte 160+j on every format that has them) get a
// second set of 40-bit wrap counts. Lane and slot counts, and the pairing,
// come from the format tables (format_limits.hpp); the vector kernels
// static_assert the layout they were written for.
//
// A kernel walks a run of reports and stops at the first report whose RPT_ID
// is zero (one the OA unit never wrote), so accumulation streams the buffer
// once instead of scanning RPT_IDs ahead and reading everything again.
//
// Three kernels: AVX2 intrinsics (runtime-dispatched on x86), GCC/Clang
// vector extensions for the baseline target (SSE2 on x86-64, NEON on
// AArch64), and a plain scalar loop for other compilers and for
// cross-checking.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "hwpc/intel/format_limits.hpp"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>  // AVX2 intrinsics, used inside [[gnu::target("avx2")]] functions
#endif

namespace hwpc::intel {

enum class simd_path : std::uint8_t { automatic, scalar, vector, avx2 };

// Wrap counts of one run, per dword lane and per 40-bit counter slot.
struct wrap_counts {
  std::array<std::uint64_t, limits.report_dwords()>
      dword{};  // lane d: steps where dword d decreased
  std::array<std::uint64_t, limits.u40_slots>
      u40{};  // slot j: steps where 40-bit value j decreased
};

namespace detail {

inline constexpr std::size_t u40_low_dword = limits.u40_low_dword;  // dw of slot 0's low half
inline constexpr std::size_t u40_high_byte = limits.u40_high_byte;  // byte of slot 0's bits 39:32
inline constexpr std::size_t u40_slots = limits.u40_slots;

// Runs longer than this are split so that 32-bit lane counts cannot overflow.
inline constexpr std::size_t max_run_chunk = std::size_t{1} << 31;

// Whether the report at `r` was never written by the OA unit: its RPT_ID
// (dword 0) is zero. Every kernel's run ends before the first such report.
inline bool rpt_id_zero(const std::byte* r) noexcept {
  std::uint32_t id;
  std::memcpy(&id, r, 4);
  return id == 0;
}

// Walks the run of `n` reports of `size` bytes at `p` in chunks of at most
// max_run_chunk reports, handing each to `kernel(first, len)`, which returns
// the length of the run it found there. Chunks overlap by one report, so each
// step (i-1, i) is counted once; a chunk's shorter run ends the whole run.
// Returns the run's length.
template <class Kernel>
std::size_t in_chunks(const std::byte* p, std::size_t n, std::size_t size,
                      Kernel&& kernel) noexcept {
  for (std::size_t done = 0;;) {
    const std::size_t len = (n - done) < max_run_chunk ? (n - done) : max_run_chunk;
    const std::size_t got = kernel(p + done * size, len);
    if (got < len || done + len == n) return done + got;
    done += len - 1;
  }
}

// Every kernel: counts the wraps of the steps between the reports
// p[0], p[1], ... up to (not including) the first report i >= 1 whose RPT_ID
// is zero, or up to n, and returns that i (the length of the run). p[0] is
// taken as valid.
inline std::size_t wrap_count_scalar(const std::byte* p, std::size_t n, std::size_t size,
                                     bool has40, wrap_counts& out) noexcept {
  // Callers pass sizes of formats that fit the limits (fits_limits(); accumulate()
  // checks); the clamp keeps a stray size from copying past the arrays.
  if (size > limits.report_bytes) size = limits.report_bytes;
  const std::size_t lanes = size / 4;
  std::array<std::uint32_t, limits.report_dwords()> prev{};
  std::memcpy(prev.data(), p, size);
  std::array<std::uint64_t, u40_slots> prev40{};
  auto load40 = [](const std::byte* r, std::size_t j) {
    std::uint32_t lo;
    std::memcpy(&lo, r + 4 * (u40_low_dword + j), 4);
    return lo | (std::uint64_t{std::to_integer<std::uint8_t>(r[u40_high_byte + j])} << 32);
  };
  if (has40) {
    for (std::size_t j = 0; j < u40_slots; ++j) prev40[j] = load40(p, j);
  }
  std::size_t i = 1;
  for (; i < n; ++i) {
    const std::byte* r = p + i * size;
    std::array<std::uint32_t, limits.report_dwords()> cur;
    std::memcpy(cur.data(), r, size);
    if (cur[0] == 0) break;
    for (std::size_t d = 0; d < lanes; ++d) {
      out.dword[d] += cur[d] < prev[d];
      prev[d] = cur[d];
    }
    if (has40) {
      for (std::size_t j = 0; j < u40_slots; ++j) {
        const std::uint64_t v = load40(r, j);
        out.u40[j] += v < prev40[j];
        prev40[j] = v;
      }
    }
  }
  return i;
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define HWPC_HAVE_VECTOR_KERNEL 1
// The vector kernels hold 40-bit slots in lanes u40_low_dword + j of the five
// 8-lane groups of a 256-byte report, reading high bytes at 156 + lane.
static_assert(u40_low_dword == 4 && u40_high_byte == 160 && u40_low_dword + u40_slots <= 40,
              "the vector wrap kernels assume the dw(4+j)/byte(160+j) pairing of 40-bit slots");
static_assert(limits.report_dwords() >= 64 || limits.u40_slots == 0,
              "40-bit counters live in 256-byte reports");
using i32x8 = std::int32_t __attribute__((vector_size(32)));
using u8x16 = std::uint8_t __attribute__((vector_size(16)));

// Generic vector kernel. The compare works on dwords with the sign bit
// flipped, where a signed compare orders values as unsigned ones (SSE2 has no
// unsigned compare); each vector is flipped once, when loaded, and kept as
// the next `prev`.
//
// 40-bit slot j pairs dword lane 4+j with byte 160+j, so lane L's high byte
// is at 156+L and the eight lanes of dword vector g (g = 0..4, lanes 0..39)
// find theirs in the eight bytes at 156+8g. A 40-bit value went down exactly
// when hi - hi_prev - borrow < 0, the borrow being the wrap of its low dword
// that the dword compare has just found. Lanes 0..3 and 36..39 get
// meaningless counts that are never read.
template <std::size_t V>
std::size_t wrap_count_vector(const std::byte* p, std::size_t n, bool has40,
                              wrap_counts& out) noexcept {
  constexpr std::size_t size = V * 32;
  constexpr std::size_t G = V == 8 ? 5 : 0;
  const i32x8 sign = i32x8{} + std::int32_t{-0x7fffffff - 1};
  i32x8 prev[V], count[V];
  i32x8 hi_prev[G > 0 ? G : 1]{}, count40[G > 0 ? G : 1]{};
  u8x16 hb;  // 16 bytes read (156 + 8*4 + 16 <= 256), the first 8 used
  for (std::size_t v = 0; v < V; ++v) {
    std::memcpy(&prev[v], p + 32 * v, 32);
    prev[v] ^= sign;
    count[v] = i32x8{};
  }
  const bool do40 = has40 && G > 0;
  if (do40) {
    for (std::size_t g = 0; g < G; ++g) {
      std::memcpy(&hb, p + 156 + 8 * g, 16);
      hi_prev[g] =
          __builtin_convertvector(__builtin_shufflevector(hb, hb, 0, 1, 2, 3, 4, 5, 6, 7), i32x8);
    }
  }
  std::size_t i = 1;
  for (; i < n; ++i) {
    const std::byte* r = p + i * size;
    if (rpt_id_zero(r)) break;
    for (std::size_t v = 0; v < V; ++v) {
      i32x8 cur;
      std::memcpy(&cur, r + 32 * v, 32);
      cur ^= sign;
      const i32x8 borrow = prev[v] > cur;  // all ones where the dword decreased
      count[v] -= borrow;
      prev[v] = cur;
      if (v < G && do40) {
        std::memcpy(&hb, r + 156 + 8 * v, 16);
        const i32x8 hi =
            __builtin_convertvector(__builtin_shufflevector(hb, hb, 0, 1, 2, 3, 4, 5, 6, 7), i32x8);
        count40[v] -= (hi - hi_prev[v] + borrow) < 0;
        hi_prev[v] = hi;
      }
    }
  }
  if (do40) {
    for (std::size_t j = 0; j < u40_slots; ++j) {
      const std::size_t lane = u40_low_dword + j;
      out.u40[j] += static_cast<std::uint32_t>(count40[lane / 8][lane % 8]);
    }
  }
  for (std::size_t v = 0; v < V; ++v) {
    for (std::size_t k = 0; k < 8; ++k) {
      out.dword[8 * v + k] += static_cast<std::uint32_t>(count[v][k]);
    }
  }
  return i;
}

#if defined(__x86_64__) || defined(__i386__)
#define HWPC_HAVE_AVX2_KERNEL 1

// The AVX2 kernel keeps counts in registers (V of them, plus five for 40-bit
// slots); for 256-byte reports it reads the previous report again from L1
// rather than holding it, which would spill. It counts the steps where a dword did not decrease
// (max(cur, prev) == cur: one unsigned max, one compare) and turns them into
// wraps at the end. For 40-bit slots (same lane groups as above), with
// x = hi - hi_prev and `kept` the all-ones mask of a low dword that did not
// wrap, the 40-bit value decreased exactly when kept > x - 1 (signed): for
// kept = -1 that is x < 0, for kept = 0 (a borrow) x <= 0.
template <std::size_t V>
[[gnu::target("avx2")]] std::size_t wrap_count_avx2(const std::byte* p, std::size_t n, bool has40,
                                                    wrap_counts& out) noexcept {
  constexpr std::size_t size = V * 32;
  constexpr std::size_t G = V == 8 ? 5 : 0;
  __m256i kept[V];
  __m256i wrap40[G > 0 ? G : 1];
  for (std::size_t v = 0; v < V; ++v) kept[v] = _mm256_setzero_si256();
  for (auto& w : wrap40) w = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const bool do40 = has40 && G > 0;
  // Up to six vectors, the previous report also stays in registers.
  constexpr bool hold = V <= 6;
  __m256i held[hold ? V : 1];
  if constexpr (hold) {
    for (std::size_t v = 0; v < V; ++v) {
      held[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * v));
    }
  }
  std::size_t i = 1;
  for (; i < n; ++i) {
    const std::byte* r = p + i * size;
    const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
    if (_mm256_cvtsi256_si32(first) == 0) break;
    for (std::size_t v = 0; v < V; ++v) {
      const __m256i cur =
          v == 0 ? first : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 32 * v));
      __m256i prev;
      if constexpr (hold) {
        prev = held[v];
        held[v] = cur;
      } else {
        prev = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r - size + 32 * v));
      }
      const __m256i k = _mm256_cmpeq_epi32(_mm256_max_epu32(cur, prev), cur);
      kept[v] = _mm256_sub_epi32(kept[v], k);
      if (v < G && do40) {
        const std::size_t hb = 156 + 8 * v;
        const __m256i hi =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + hb)));
        const __m256i hp =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r - size + hb)));
        const __m256i x1 = _mm256_sub_epi32(hi, _mm256_add_epi32(hp, one));
        wrap40[v] = _mm256_sub_epi32(wrap40[v], _mm256_cmpgt_epi32(k, x1));
      }
    }
  }
  if (do40) {
    std::uint32_t w40[8 * (G > 0 ? G : 1)];
    for (std::size_t g = 0; g < G; ++g) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w40 + 8 * g), wrap40[g]);
    }
    for (std::size_t j = 0; j < u40_slots; ++j) out.u40[j] += w40[u40_low_dword + j];
  }
  const std::uint32_t steps = static_cast<std::uint32_t>(i - 1);
  std::uint32_t k[V * 8];
  for (std::size_t v = 0; v < V; ++v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(k + 8 * v), kept[v]);
  }
  for (std::size_t d = 0; d < V * 8 && d < out.dword.size(); ++d) out.dword[d] += steps - k[d];
  return i;
}

inline bool cpu_has_avx2() noexcept {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

// Whether `path` takes the AVX2 kernels on this CPU.
inline bool avx2_chosen(simd_path path) noexcept {
  return (path == simd_path::automatic || path == simd_path::avx2) && cpu_has_avx2();
}
#endif
#endif

using wrap_kernel = std::size_t (*)(const std::byte*, std::size_t, bool, wrap_counts&) noexcept;

#if defined(HWPC_HAVE_VECTOR_KERNEL)
// The kernel for reports of V * 32 bytes (none for V = 0).
template <std::size_t V, bool avx2>
constexpr wrap_kernel kernel_for() noexcept {
  if constexpr (V == 0) {
    return nullptr;
  } else if constexpr (avx2) {
#if defined(HWPC_HAVE_AVX2_KERNEL)
    return wrap_count_avx2<V>;
#else
    return nullptr;
#endif
  } else {
    return wrap_count_vector<V>;
  }
}
#endif

// Counts the wraps over the run of valid reports that starts at `p` (taken as
// valid) and ends before the first zero RPT_ID or after `n` reports of
// `size` bytes; returns the run's length. 40-bit slots are counted only for
// 256-byte formats (the only ones with 40-bit counters).
inline std::size_t wrap_count(const std::byte* p, std::size_t n, std::size_t size, bool has40,
                              simd_path path, wrap_counts& out) noexcept {
  if (n < 2) return n;
  using fn = wrap_kernel;
  fn kernel = nullptr;
#if defined(HWPC_HAVE_VECTOR_KERNEL)
  // Every multiple of 32 bytes up to the largest format, Xe's 320-, 576- and
  // 640-byte reports included (without the vector kernel they took the
  // scalar loop, no faster than the naive sum).
  if (path != simd_path::scalar && size % 32 == 0 && size <= limits.report_bytes &&
      (!has40 || size == 256)) {
    static constexpr auto vector_fns = []<std::size_t... V>(std::index_sequence<V...>) {
      return std::array<fn, sizeof...(V)>{kernel_for<V, false>()...};
    }
    (std::make_index_sequence<limits.report_bytes / 32 + 1>{});
    kernel = vector_fns[size / 32];
#if defined(HWPC_HAVE_AVX2_KERNEL)
    static constexpr auto avx2_fns = []<std::size_t... V>(std::index_sequence<V...>) {
      return std::array<fn, sizeof...(V)>{kernel_for<V, true>()...};
    }
    (std::make_index_sequence<limits.report_bytes / 32 + 1>{});
    if (avx2_chosen(path)) kernel = avx2_fns[size / 32];
#endif
  }
#else
  (void)path;
#endif
  return in_chunks(p, n, size, [&](const std::byte* q, std::size_t len) {
    return kernel != nullptr ? kernel(q, len, has40, out)
                             : wrap_count_scalar(q, len, size, has40, out);
  });
}

// Whether the vector kernels can run here (for tests and benchmarks).
inline bool avx2_available() noexcept {
#if defined(HWPC_HAVE_AVX2_KERNEL)
  return cpu_has_avx2();
#else
  return false;
#endif
}

}  // namespace detail
}  // namespace hwpc::intel
