// Wrap counting: the kernel behind fast accumulation.
//
// The sum of the deltas of a counter over a run of reports telescopes:
//   sum_i (v_i - v_{i-1}) mod 2^w  =  (v_last - v_first) + 2^w * wraps
// where `wraps` counts the steps with v_i < v_{i-1}. So a run needs one
// compare and one subtract per dword per report — no widening — and the
// 64-bit totals are formed once at the end. The kernel treats a report as
// an array of dword lanes, whatever the format; 40-bit counters (low dword
// at dw(4+j), bits 39:32 at byte 160+j on every format that has them) get a
// second set of 40-bit wrap counts.
//
// One kernel body is compiled three ways: with GCC/Clang vector extensions
// for AVX2 (runtime-dispatched) and for the baseline target (SSE2 on x86-64),
// and as a plain scalar loop for other compilers and for cross-checking.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>  // AVX2 intrinsics, used inside [[gnu::target("avx2")]] functions
#endif

namespace hwpc::intel {

enum class simd_path : std::uint8_t { automatic, scalar, vector, avx2 };

// Wrap counts of one run, per dword lane and per 40-bit counter slot.
struct wrap_counts {
  std::array<std::uint64_t, 64> dword{};  // lane d: steps where dword d decreased
  std::array<std::uint64_t, 32> u40{};    // slot j: steps where the 40-bit value j decreased
};

namespace detail {

inline constexpr std::size_t u40_low_dword = 4;    // dw of the low half of slot 0
inline constexpr std::size_t u40_high_byte = 160;  // byte of bits 39:32 of slot 0

// Runs longer than this are split so that 32-bit lane counts cannot overflow.
inline constexpr std::size_t max_run_chunk = std::size_t{1} << 31;

inline void wrap_count_scalar(const std::byte* p, std::size_t n, std::size_t size, bool has40,
                              wrap_counts& out) noexcept {
  const std::size_t lanes = size / 4;
  std::array<std::uint32_t, 64> prev{};
  std::memcpy(prev.data(), p, size);
  std::array<std::uint64_t, 32> prev40{};
  auto load40 = [](const std::byte* r, std::size_t j) {
    std::uint32_t lo;
    std::memcpy(&lo, r + 4 * (u40_low_dword + j), 4);
    return lo | (std::uint64_t{std::to_integer<std::uint8_t>(r[u40_high_byte + j])} << 32);
  };
  if (has40) {
    for (std::size_t j = 0; j < 32; ++j) prev40[j] = load40(p, j);
  }
  for (std::size_t i = 1; i < n; ++i) {
    const std::byte* r = p + i * size;
    std::array<std::uint32_t, 64> cur;
    std::memcpy(cur.data(), r, size);
    for (std::size_t d = 0; d < lanes; ++d) {
      out.dword[d] += cur[d] < prev[d];
      prev[d] = cur[d];
    }
    if (has40) {
      for (std::size_t j = 0; j < 32; ++j) {
        const std::uint64_t v = load40(r, j);
        out.u40[j] += v < prev40[j];
        prev40[j] = v;
      }
    }
  }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define HWPC_HAVE_VECTOR_KERNEL 1
using u32x8 = std::uint32_t __attribute__((vector_size(32)));
using u8x8 = std::uint8_t __attribute__((vector_size(8)));

template <std::size_t V>
[[gnu::always_inline]] inline void wrap_count_vector_body(const std::byte* p, std::size_t n,
                                                          bool has40, wrap_counts& out) noexcept {
  constexpr std::size_t size = V * 32;
  u32x8 prev[V];
  u32x8 count[V];
  for (std::size_t v = 0; v < V; ++v) {
    std::memcpy(&prev[v], p + 32 * v, 32);
    count[v] = u32x8{};
  }
  if (!has40 || size < 192) {
    for (std::size_t i = 1; i < n; ++i) {
      const std::byte* r = p + i * size;
      for (std::size_t v = 0; v < V; ++v) {
        u32x8 cur;
        std::memcpy(&cur, r + 32 * v, 32);
        count[v] -= reinterpret_cast<u32x8>(cur < prev[v]);  // a true lane is all ones: -(-1)
        prev[v] = cur;
      }
    }
  } else {
    // 40-bit slots j = 0..31 in four groups of eight: low dwords at byte
    // 16 + 32g (an unaligned slice across two dword vectors), high bytes at 160 + 8g.
    u32x8 lo_prev[4], hi_prev[4], count40[4];
    for (std::size_t g = 0; g < 4; ++g) {
      std::memcpy(&lo_prev[g], p + 16 + 32 * g, 32);
      u8x8 hb;
      std::memcpy(&hb, p + u40_high_byte + 8 * g, 8);
      hi_prev[g] = __builtin_convertvector(hb, u32x8);
      count40[g] = u32x8{};
    }
    for (std::size_t i = 1; i < n; ++i) {
      const std::byte* r = p + i * size;
      for (std::size_t v = 0; v < V; ++v) {
        u32x8 cur;
        std::memcpy(&cur, r + 32 * v, 32);
        count[v] -= reinterpret_cast<u32x8>(cur < prev[v]);
        prev[v] = cur;
      }
      for (std::size_t g = 0; g < 4; ++g) {
        u32x8 lo;
        std::memcpy(&lo, r + 16 + 32 * g, 32);
        u8x8 hb;
        std::memcpy(&hb, r + u40_high_byte + 8 * g, 8);
        const u32x8 hi = __builtin_convertvector(hb, u32x8);
        // v < prev  <=>  hi < hi_prev, or equal high bytes and lo < lo_prev.
        const auto wrapped = (hi < hi_prev[g]) | ((hi == hi_prev[g]) & (lo < lo_prev[g]));
        count40[g] -= reinterpret_cast<u32x8>(wrapped);
        lo_prev[g] = lo;
        hi_prev[g] = hi;
      }
    }
    for (std::size_t g = 0; g < 4; ++g) {
      for (std::size_t k = 0; k < 8; ++k) out.u40[8 * g + k] += count40[g][k];
    }
  }
  for (std::size_t v = 0; v < V; ++v) {
    for (std::size_t k = 0; k < 8; ++k) out.dword[8 * v + k] += count[v][k];
  }
}

template <std::size_t V>
void wrap_count_vector(const std::byte* p, std::size_t n, bool has40, wrap_counts& out) noexcept {
  wrap_count_vector_body<V>(p, n, has40, out);
}

#if defined(__x86_64__) || defined(__i386__)
#define HWPC_HAVE_AVX2_KERNEL 1
template <std::size_t V>
[[gnu::target("avx2")]] void wrap_count_avx2(const std::byte* p, std::size_t n, bool has40,
                                             wrap_counts& out) noexcept {
  wrap_count_vector_body<V>(p, n, has40, out);
}

inline bool cpu_has_avx2() noexcept {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif
#endif

// Counts wraps over `n` back-to-back reports of `size` bytes at `p`.
inline void wrap_count(const std::byte* p, std::size_t n, std::size_t size, bool has40,
                       simd_path path, wrap_counts& out) noexcept {
  if (n < 2) return;
  for (std::size_t done = 0; done + 1 < n;) {
    // Chunks overlap by one report: each step (i-1, i) is counted once.
    const std::size_t len = (n - done) < max_run_chunk ? (n - done) : max_run_chunk;
    const std::byte* q = p + done * size;
#if defined(HWPC_HAVE_VECTOR_KERNEL)
    if (path != simd_path::scalar && size % 32 == 0 && size <= 256) {
      using fn = void (*)(const std::byte*, std::size_t, bool, wrap_counts&) noexcept;
      static constexpr fn vector_fns[] = {nullptr,
                                          wrap_count_vector<1>,
                                          wrap_count_vector<2>,
                                          wrap_count_vector<3>,
                                          wrap_count_vector<4>,
                                          wrap_count_vector<5>,
                                          wrap_count_vector<6>,
                                          wrap_count_vector<7>,
                                          wrap_count_vector<8>};
      fn kernel = vector_fns[size / 32];
#if defined(HWPC_HAVE_AVX2_KERNEL)
      static constexpr fn avx2_fns[] = {nullptr,
                                        wrap_count_avx2<1>,
                                        wrap_count_avx2<2>,
                                        wrap_count_avx2<3>,
                                        wrap_count_avx2<4>,
                                        wrap_count_avx2<5>,
                                        wrap_count_avx2<6>,
                                        wrap_count_avx2<7>,
                                        wrap_count_avx2<8>};
      if ((path == simd_path::automatic || path == simd_path::avx2) && cpu_has_avx2()) {
        kernel = avx2_fns[size / 32];
      }
#endif
      kernel(q, len, has40, out);
    } else {
      wrap_count_scalar(q, len, size, has40, out);
    }
#else
    (void)path;
    wrap_count_scalar(q, len, size, has40, out);
#endif
    done += len - 1;
  }
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
