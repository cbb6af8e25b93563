// What every operator computes: the single definition shared by constant
// folding and by the compile-time, scalar and batch evaluators, which is why
// they agree bit for bit.
//
// Operands and results are 64-bit slots (value.hpp); an operator reads them as
// the types ir.hpp declares for it. Every case is defined for every input:
//   - unsigned arithmetic wraps modulo 2^64;
//   - UDIV and FDIV by zero give 0 (for FDIV: a divisor of +0.0 or -0.0);
//   - shifts by 64 or more give 0;
//   - comparisons and logical operators give 1 or 0 (u64);
//   - FMAX/FMIN return the other operand when one is NaN and the left operand
//     when they compare equal;
//   - conversions follow value.hpp (saturating truncation to u64).
#pragma once

#include <cstdint>
#include <type_traits>

#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

template <op O>
constexpr slot apply(slot a, slot b, slot c) noexcept {
  using u = std::uint64_t;
  [[maybe_unused]] const double x = as_f64(a);
  [[maybe_unused]] const double y = as_f64(b);
  if constexpr (O == op::to_f64)
    return from_f64(u64_to_f64(a));
  else if constexpr (O == op::to_u64)
    return f64_to_u64(x);
  else if constexpr (O == op::uadd)
    return a + b;
  else if constexpr (O == op::usub)
    return a - b;
  else if constexpr (O == op::umul)
    return a * b;
  // The divisor is made non-zero before dividing so that the loop body has no
  // branch (and no trap) and still vectorises where the target can.
  else if constexpr (O == op::udiv)
    return b == 0 ? u{0} : a / (b | u{b == 0});
  else if constexpr (O == op::umin)
    return a < b ? a : b;
  else if constexpr (O == op::band)
    return a & b;
  else if constexpr (O == op::shl)
    return b >= 64 ? u{0} : a << (b & 63);
  else if constexpr (O == op::shr)
    return b >= 64 ? u{0} : a >> (b & 63);
  else if constexpr (O == op::ugt)
    return u{a > b};
  else if constexpr (O == op::ugte)
    return u{a >= b};
  else if constexpr (O == op::ult)
    return u{a < b};
  else if constexpr (O == op::ulte)
    return u{a <= b};
  else if constexpr (O == op::land)
    return static_cast<u>((a != 0) & (b != 0));
  else if constexpr (O == op::lor)
    return static_cast<u>((a != 0) | (b != 0));
  else if constexpr (O == op::lnot)
    return u{a == 0};
  else if constexpr (O == op::fadd)
    return from_f64(x + y);
  else if constexpr (O == op::fsub)
    return from_f64(x - y);
  else if constexpr (O == op::fmul)
    return from_f64(x * y);
  else if constexpr (O == op::fdiv)
    return from_f64(y == 0.0 ? 0.0 : x / (y == 0.0 ? 1.0 : y));
  else if constexpr (O == op::fmax)
    return x != x ? b : (y != y ? a : (x < y ? b : a));
  else if constexpr (O == op::fmin)
    return x != x ? b : (y != y ? a : (y < x ? b : a));
  else if constexpr (O == op::fneg)
    return from_f64(-x);
  else if constexpr (O == op::flt)
    return u{x < y};
  else if constexpr (O == op::fle)
    return u{x <= y};
  else if constexpr (O == op::fgt)
    return u{x > y};
  else if constexpr (O == op::fge)
    return u{x >= y};
  else if constexpr (O == op::feq)
    return u{x == y};
  else if constexpr (O == op::fne)
    return u{x != y};
  else if constexpr (O == op::select)
    return a != 0 ? b : c;
  else
    return a;  // constant and input are handled by the evaluators
}

// Calls f(std::integral_constant<op, O>{}) for the runtime operator o, so that
// a caller can hoist the dispatch out of a loop and run apply<O> inside it.
template <class F>
constexpr decltype(auto) visit_op(op o, F&& f) {
  switch (o) {
#define HWPC_EXPR_X(name, arity, in, out, rpn, infix) \
  case op::name:                                      \
    return f(std::integral_constant<op, op::name>{});
    HWPC_EXPR_OP_LIST(HWPC_EXPR_X)
#undef HWPC_EXPR_X
  }
  return f(std::integral_constant<op, op::constant>{});
}

// The runtime-dispatched form, for folding and one-off evaluation.
constexpr slot apply(op o, slot a, slot b, slot c) noexcept {
  return visit_op(o, [&](auto k) { return apply<decltype(k)::value>(a, b, c); });
}

}  // namespace hwpc::expr
