// Fused chains for the batch evaluator (batch_chains.hpp): what one chain is.
// The shapes metric sets repeat on every sample, evaluated in one loop with
// the intermediate values in registers instead of one column per node.
//
// A chain is
//   source(x) = to_f64(umul(K, udiv(x', D)))      (the UDIV and UMUL optional)
//               with x' = x, or to_u64(x) for a double x, or
//               to_u64(fdiv(fmul(K2, sum), D2)) (FMUL and FDIV optional)
//               where sum = ((to_f64(l0) + to_f64(l1)) + to_f64(l2)) + ...
//   out       = source(x)                         (store)
//             | fdiv(source(x), y) | fadd(source(x), y) | fadd(y, source(x))
// where y is a column, a constant, or to_f64 of a column; or, the shape
// metrics-discovery's arithmetic gives those percentages (arithmetic.hpp),
//   source(x) = fmul(to_f64(x), K) | fmul(sum, K)  (K a double constant, on
//               either side; the sum as below, not truncated)
// with the same ends. Intel's metric files
// spell a percentage of the clock this way ("A7 $EuCoresTotalCount UDIV 100
// UMUL $GpuCoreClocks FDIV" is to_f64(umul(100, udiv(A7, 24))) / clocks),
// sum counters as fadd(to_f64(a), to_f64(b)), and from Gen12 on take the
// percentage of a sum of counters ("A 7 READ A 8 READ FADD A 9 READ FADD A 10
// READ FADD $EuCoresTotalCount UDIV ..."), the whole n-ary FADD tree one
// chain. Such a sum is computed in tiles of a few hundred rows held in L1,
// one pass per counter, then the rest of the chain runs over the tile. Its
// additions may be taken in any operand order: every term is a u64 converted
// to a double, never NaN, and IEEE addition of non-NaN values is commutative
// bit for bit; the order of the additions (the tree's shape) is kept. Only
// nodes with a single use that are no output are folded into a chain, so
// nothing else needs their values (a sum may also convert a counter whose
// conversion is used elsewhere: it converts the input column again). Each
// step is the operator's apply<> (or, for UDIV, the exact udiv_by_constant),
// so a chain gives the same bits as node-by-node evaluation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

struct chain {
  // fadd_right: fadd(y, source), the order kept so that NaN operands give
  // the same bits as the node-by-node loop.
  enum class term : std::uint8_t { store, fdiv, fadd, fadd_right };
  enum class rhs : std::uint8_t { none, column, constant, converted };
  enum class div : std::uint8_t { none, shift, multiply };

  term t = term::store;
  rhs r = rhs::none;
  div d = div::none;
  bool mul = false;
  bool from_f64 = false;  // x is a double, truncated to u64 first (to_u64)
  // The exact shape: x converted (or the sum) as a double, times fk when
  // fmul (fk on the left when fmul_left); no integer steps.
  bool exact = false;
  bool fmul = false, fmul_left = false;
  slot fk = 0;
  std::uint32_t x = 0;  // source column node
  std::uint32_t y = 0;  // rhs column node (column, converted)
  slot k = 1;           // UMUL constant
  slot ky = 0;          // rhs constant
  std::uint64_t magic = 0;
  unsigned shift = 0;

  // A sum source (from_f64 set, x unused): leaves[0..sum_terms) are the u64
  // nodes whose conversions are added, in the order of the additions; then
  // optionally times sum_k (sum_k_left: the constant is FMUL's left operand)
  // and divided by sum_d.
  static constexpr std::size_t max_terms = 8;
  std::uint8_t sum_terms = 0;
  bool sum_mul = false, sum_k_left = false, sum_div = false;
  slot sum_k = 0, sum_d = 0;
  std::uint32_t leaves[max_terms] = {};

  // Node indices the chain reads from columns, in `ops` (room for
  // max_terms + 1); returns how many.
  std::uint32_t operands(std::uint32_t* ops) const noexcept {
    std::uint32_t k = 0;
    if (sum_terms == 0) {
      ops[k++] = x;
    } else {
      for (std::uint8_t t = 0; t < sum_terms; ++t) ops[k++] = leaves[t];
    }
    if (r == rhs::column || r == rhs::converted) ops[k++] = y;
    return k;
  }
};

}  // namespace hwpc::expr
