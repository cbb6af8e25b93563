// Constant folding and algebraic identities, applied as each node is built.
//
// Folding evaluates an operator whose operands are all constants with the same
// apply<O> the evaluators use, so a folded formula gives exactly the bits an
// unfolded one would. Identities are applied only where they are exact for
// every input; none is applied to double operators, where x*1 or x+0 can
// differ in the last bit pattern (signed zeros, NaN payloads).
#pragma once

#include <cstdint>
#include <optional>

#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/semantics.hpp"

namespace hwpc::expr {

// The constant result of o over operand nodes, when all of them are constants.
constexpr std::optional<slot> fold_constant(op o, const node* const* operands) noexcept {
  const std::uint8_t n = info(o).arity;
  slot v[3] = {0, 0, 0};
  for (std::uint8_t i = 0; i < n; ++i) {
    if (operands[i]->code != op::constant) return std::nullopt;
    v[i] = operands[i]->imm;
  }
  return apply(o, v[0], v[1], v[2]);
}

// What an identity reduces a node to.
struct simplified {
  enum kind_t : std::uint8_t { none, operand_a, operand_b, operand_c, zero } kind = none;
};

// Exact identities for u64 operators (one operand constant) and for select with
// a constant condition.
constexpr simplified simplify(op o, const node& a, const node& b, const node& c) noexcept {
  (void)c;
  const bool ka = a.code == op::constant, kb = b.code == op::constant;
  const slot va = a.imm, vb = b.imm;
  switch (o) {
    case op::uadd:
      if (kb && vb == 0) return {simplified::operand_a};
      if (ka && va == 0) return {simplified::operand_b};
      break;
    case op::usub:
    case op::shl:
    case op::shr:
      if (kb && vb == 0) return {simplified::operand_a};
      break;
    case op::umul:
      if (kb && vb == 1) return {simplified::operand_a};
      if (ka && va == 1) return {simplified::operand_b};
      if ((kb && vb == 0) || (ka && va == 0)) return {simplified::zero};
      break;
    case op::udiv:
      if (kb && vb == 1) return {simplified::operand_a};
      if (kb && vb == 0) return {simplified::zero};
      break;
    case op::band:
      if ((kb && vb == 0) || (ka && va == 0)) return {simplified::zero};
      if (kb && vb == ~slot{0}) return {simplified::operand_a};
      if (ka && va == ~slot{0}) return {simplified::operand_b};
      break;
    case op::select:
      if (ka) return {va != 0 ? simplified::operand_b : simplified::operand_c};
      break;
    default:
      break;
  }
  return {};
}

}  // namespace hwpc::expr
