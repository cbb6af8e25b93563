// The batch evaluator's column loops: one operator over a run of rows.
//
// Each loop is `out[j] = f(a[j], ...)` with the operator fixed at compile time
// (apply<O>, the same function the scalar evaluator calls, so results agree
// bit for bit). The output column never overlaps an operand column (the
// evaluator gives each live node its own), which __restrict tells the
// vectoriser so that it needs no run-time overlap checks.
//
// for_tiles() cuts a block into tiles of `tile` rows and passes full tiles'
// length as a compile-time constant: once inlined the trip count is known,
// and GCC's -O2 cost model vectorises only such loops. A block may be many
// tiles long; the tiles of one node run back to back, so each of its column
// streams is still walked in one sequential sweep.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "hwpc/expr/semantics.hpp"
#include "hwpc/expr/udiv_constant.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr::detail {

inline constexpr std::size_t tile = 2048;

// body(offset, n) for each tile of [0, len); n is std::integral_constant for a
// full tile, else the remaining row count.
template <class Body>
inline __attribute__((always_inline)) void for_tiles(std::size_t len, Body&& body) {
  std::size_t at = 0;
  for (; len - at >= tile; at += tile) body(at, std::integral_constant<std::size_t, tile>{});
  if (at < len) body(at, len - at);
}

template <op O>
inline __attribute__((always_inline)) void column_loop(slot* __restrict out,
                                                       const slot* __restrict a,
                                                       const slot* __restrict b,
                                                       const slot* __restrict c, std::size_t len) {
  for (std::size_t j = 0; j < len; ++j) out[j] = apply<O>(a[j], b[j], c[j]);
}

// A binary operator with one operand a constant held in a register, not read
// from a column of copies; left says which side the constant is on.
template <op O, bool left>
inline __attribute__((always_inline)) void constant_loop(slot* __restrict out,
                                                         const slot* __restrict a, slot k,
                                                         std::size_t len) {
  if constexpr (left) {
    for (std::size_t j = 0; j < len; ++j) out[j] = apply<O>(k, a[j], 0);
  } else {
    for (std::size_t j = 0; j < len; ++j) out[j] = apply<O>(a[j], k, 0);
  }
}

// UMUL by 2^sh. Without __restrict GCC kept this loop scalar (a 64-bit `shl`
// per row: a fifth of TGL RenderBasic's batch time); with it, one SSE2
// `psllq` shifts two rows, where SSE2 has no 64-bit multiply.
inline __attribute__((always_inline)) void shift_loop(slot* __restrict out,
                                                      const slot* __restrict a, unsigned sh,
                                                      std::size_t len) {
  for (std::size_t j = 0; j < len; ++j) out[j] = a[j] << sh;
}

// UDIV by a non-zero constant, as a multiply by its reciprocal (exact for
// every dividend, udiv_constant.hpp): a 64-bit hardware division costs tens
// of cycles and metric sets divide by $EuCoresTotalCount and the timestamp
// frequency on every sample.
inline void divide_loop(slot* __restrict out, const slot* __restrict a, udiv_by_constant d,
                        std::size_t len) {
  switch (d.how()) {
    case udiv_by_constant::kind::copy:
      std::copy_n(a, len, out);
      return;
    case udiv_by_constant::kind::shift: {
      const unsigned s = d.shift();
      for (std::size_t j = 0; j < len; ++j) out[j] = a[j] >> s;
      return;
    }
    case udiv_by_constant::kind::multiply:
      break;
  }
  const std::uint64_t m = d.magic();
  const unsigned s = d.shift();
  for (std::size_t j = 0; j < len; ++j) out[j] = udiv_by_constant::divide(a[j], m, s);
}

}  // namespace hwpc::expr::detail
