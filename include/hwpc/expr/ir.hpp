// The intermediate representation both formula syntaxes lower to.
//
// A program is a flat array of nodes in topological order: every operand index
// is smaller than the index of the node that uses it. That shape needs no
// pointers (so it lives happily in constexpr evaluation), is evaluated by one
// forward loop, and gives the batch evaluator one column per node.
//
// Each operator has fixed operand and result types (see value.hpp); the
// compiler inserts explicit to_f64 / to_u64 conversion nodes where a value of
// the other type meets an operator, so evaluators never look at types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

// Operand type of an operator: fixed, or "any" for the few that only move bits.
enum class otype : std::uint8_t { none, u64, f64, any };

// X(name, arity, operand type, result type, RPN spelling, infix spelling)
// The infix spelling is an operator symbol or, for letters, a function name.
// Result "any" means the node's own type (constants, inputs, select).
#define HWPC_EXPR_OP_LIST(X)           \
  X(constant, 0, none, any, "", "")    \
  X(input, 0, none, any, "", "")       \
  X(to_f64, 1, u64, f64, "", "f64")    \
  X(to_u64, 1, f64, u64, "", "u64")    \
  X(uadd, 2, u64, u64, "UADD", "uadd") \
  X(usub, 2, u64, u64, "USUB", "usub") \
  X(umul, 2, u64, u64, "UMUL", "umul") \
  X(udiv, 2, u64, u64, "UDIV", "udiv") \
  X(umin, 2, u64, u64, "UMIN", "umin") \
  X(band, 2, u64, u64, "AND", "&")     \
  X(shl, 2, u64, u64, "<<", "<<")      \
  X(shr, 2, u64, u64, ">>", ">>")      \
  X(ugt, 2, u64, u64, "UGT", "ugt")    \
  X(ugte, 2, u64, u64, "UGTE", "ugte") \
  X(ult, 2, u64, u64, "ULT", "ult")    \
  X(ulte, 2, u64, u64, "ULTE", "ulte") \
  X(land, 2, u64, u64, "&&", "&&")     \
  X(lor, 2, u64, u64, "", "||")        \
  X(lnot, 1, u64, u64, "", "!")        \
  X(fadd, 2, f64, f64, "FADD", "+")    \
  X(fsub, 2, f64, f64, "FSUB", "-")    \
  X(fmul, 2, f64, f64, "FMUL", "*")    \
  X(fdiv, 2, f64, f64, "FDIV", "/")    \
  X(fmax, 2, f64, f64, "FMAX", "fmax") \
  X(fmin, 2, f64, f64, "", "fmin")     \
  X(fneg, 1, f64, f64, "", "-")        \
  X(flt, 2, f64, u64, "", "<")         \
  X(fle, 2, f64, u64, "", "<=")        \
  X(fgt, 2, f64, u64, "", ">")         \
  X(fge, 2, f64, u64, "", ">=")        \
  X(feq, 2, f64, u64, "", "==")        \
  X(fne, 2, f64, u64, "", "!=")        \
  X(select, 3, any, any, "", "?:")

enum class op : std::uint8_t {
#define HWPC_EXPR_X(name, arity, in, out, rpn, infix) name,
  HWPC_EXPR_OP_LIST(HWPC_EXPR_X)
#undef HWPC_EXPR_X
};

struct op_info {
  std::string_view name;
  std::uint8_t arity;
  otype operand;
  otype result;
  std::string_view rpn;
  std::string_view infix;
};

inline constexpr op_info op_table[] = {
#define HWPC_EXPR_X(name, arity, in, out, rpn, infix) \
  {#name, arity, otype::in, otype::out, rpn, infix},
    HWPC_EXPR_OP_LIST(HWPC_EXPR_X)
#undef HWPC_EXPR_X
};

inline constexpr std::size_t op_count = sizeof(op_table) / sizeof(op_table[0]);

constexpr const op_info& info(op o) noexcept { return op_table[static_cast<std::size_t>(o)]; }

// Operators whose operands may be swapped without changing a single bit of the
// result; the compiler orders their operands so that a+b and b+a share a node.
constexpr bool is_commutative(op o) noexcept {
  switch (o) {
    case op::uadd:
    case op::umul:
    case op::umin:
    case op::band:
    case op::land:
    case op::lor:
    case op::fadd:
    case op::fmul:
    case op::feq:
    case op::fne:
      return true;
    default:
      return false;
  }
}

// Where an input's value comes from.
//   counter:  a raw counter delta that changes with every sample (A0, GPU_TIME, ...)
//   variable: a device variable, one value per evaluation ($EuCoresTotalCount, ...)
enum class input_kind : std::uint8_t { counter, variable };

struct input_desc {
  std::string name;  // without a leading '$'
  vtype type = vtype::u64;
  input_kind kind = input_kind::counter;
};

struct node {
  op code = op::constant;
  vtype type = vtype::u64;            // type of the node's result
  std::uint32_t a = 0, b = 0, c = 0;  // operand node indices (as many as the arity)
  slot imm = 0;                       // constant bits, or the input index of an input node

  friend constexpr bool operator==(const node&, const node&) = default;
};

// A compiled formula or metric set: nodes in topological order, the inputs
// they read, and one node index per output.
struct program {
  std::vector<node> nodes;
  std::vector<input_desc> inputs;
  std::vector<std::uint32_t> outputs;

  constexpr vtype output_type(std::size_t i) const { return nodes[outputs[i]].type; }
  constexpr bool output_is_constant(std::size_t i) const {
    return nodes[outputs[i]].code == op::constant;
  }
};

}  // namespace hwpc::expr
