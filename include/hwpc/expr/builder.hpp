// Builds IR nodes with type promotion, constant folding and common-
// subexpression sharing (hash-consing).
//
// Both front ends, the metric-set compiler and the variable binder emit nodes
// through this one class, so every program is folded and shared the same way:
// asking twice for the same operator over the same operands returns the same
// node index, across every formula built with one builder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/expr/fold.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

class builder {
 public:
  constexpr std::size_t size() const noexcept { return nodes_.size(); }
  constexpr const node& operator[](std::uint32_t i) const { return nodes_[i]; }
  constexpr vtype type_of(std::uint32_t i) const { return nodes_[i].type; }
  constexpr bool is_constant(std::uint32_t i) const { return nodes_[i].code == op::constant; }
  constexpr const std::vector<node>& nodes() const noexcept { return nodes_; }
  constexpr std::vector<node> take() && { return std::move(nodes_); }

  constexpr std::uint32_t constant(value v) {
    return intern({op::constant, v.type, 0, 0, 0, v.bits});
  }
  constexpr std::uint32_t constant_u64(std::uint64_t v) { return constant(value::u(v)); }
  constexpr std::uint32_t constant_f64(double d) { return constant(value::f(d)); }
  constexpr std::uint32_t input(std::uint32_t index, vtype t) {
    return intern({op::input, t, 0, 0, 0, index});
  }

  // n converted to type t (itself when it already has that type).
  constexpr std::uint32_t convert(std::uint32_t n, vtype t) {
    if (nodes_[n].type == t) return n;
    return make_raw(t == vtype::f64 ? op::to_f64 : op::to_u64, t, n, 0, 0);
  }

  // Operator o over operands, converting each to the type o expects.
  constexpr std::uint32_t make(op o, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0) {
    const op_info& oi = info(o);
    if (o == op::select) {
      a = convert(a, vtype::u64);
      if (nodes_[b].type != nodes_[c].type) {
        b = convert(b, vtype::f64);
        c = convert(c, vtype::f64);
      }
      return make_raw(o, nodes_[b].type, a, b, c);
    }
    if (oi.arity == 2 && (nodes_[a].type == vtype::f64 || nodes_[b].type == vtype::f64)) {
      if (const op twin = double_twin(o); twin != o) {
        const std::uint32_t n = make(twin, a, b);
        return info(twin).result == otype::f64 ? convert(n, vtype::u64) : n;
      }
    }
    const vtype in = oi.operand == otype::f64 ? vtype::f64 : vtype::u64;
    if (oi.arity >= 1) a = convert(a, in);
    if (oi.arity >= 2) b = convert(b, in);
    const vtype out = oi.result == otype::f64 ? vtype::f64 : vtype::u64;
    return make_raw(o, out, a, oi.arity >= 2 ? b : 0, 0);
  }

 private:
  // Intel's metric code generator writes each unsigned operator as one C
  // statement, `uint64_t t = l OP r;`. When l or r is a double, C's usual
  // arithmetic conversions compute OP in double and only the assignment
  // truncates; comparisons compare the doubles. These operators therefore
  // take a double operand as it is (the twin below, then to_u64 for
  // arithmetic) instead of truncating it first. UDIV converts its operands to
  // uint64_t before dividing in that C, and AND and shifts do not accept a
  // double there, so those keep truncating their operands.
  static constexpr op double_twin(op o) noexcept {
    switch (o) {
      case op::uadd:
        return op::fadd;
      case op::usub:
        return op::fsub;
      case op::umul:
        return op::fmul;
      case op::umin:
        return op::fmin;
      case op::ugt:
        return op::fgt;
      case op::ugte:
        return op::fge;
      case op::ult:
        return op::flt;
      case op::ulte:
        return op::fle;
      default:
        return o;
    }
  }

  constexpr std::uint32_t make_raw(op o, vtype t, std::uint32_t a, std::uint32_t b,
                                   std::uint32_t c) {
    const node* operands[3] = {&nodes_[a], &nodes_[b], &nodes_[c]};
    if (auto k = fold_constant(o, operands)) return intern({op::constant, t, 0, 0, 0, *k});
    switch (simplify(o, nodes_[a], nodes_[b], nodes_[c]).kind) {
      case simplified::operand_a:
        return a;
      case simplified::operand_b:
        return b;
      case simplified::operand_c:
        return c;
      case simplified::zero:
        return constant(value{t, 0});
      case simplified::none:
        break;
    }
    if (is_commutative(o) && b < a) {
      const std::uint32_t t2 = a;
      a = b;
      b = t2;
    }
    return intern({o, t, a, b, c, 0});
  }

  static constexpr std::uint64_t hash(const node& n) noexcept {
    std::uint64_t h = 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(n.code) + 1);
    h ^= static_cast<std::uint64_t>(n.type) + (h << 6) + (h >> 2);
    for (std::uint64_t v : {std::uint64_t{n.a}, std::uint64_t{n.b}, std::uint64_t{n.c}, n.imm}) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 29);
  }

  // Returns the index of an equal node, adding n when there is none.
  constexpr std::uint32_t intern(const node& n) {
    if ((nodes_.size() + 1) * 2 > table_.size()) rehash(table_.empty() ? 64 : table_.size() * 2);
    const std::size_t mask = table_.size() - 1;
    for (std::size_t i = hash(n) & mask;; i = (i + 1) & mask) {
      const std::uint32_t e = table_[i];
      if (e == 0) {
        nodes_.push_back(n);
        table_[i] = static_cast<std::uint32_t>(nodes_.size());
        return static_cast<std::uint32_t>(nodes_.size() - 1);
      }
      if (nodes_[e - 1] == n) return e - 1;
    }
  }

  constexpr void rehash(std::size_t buckets) {
    table_.assign(buckets, 0);
    const std::size_t mask = buckets - 1;
    for (std::size_t k = 0; k < nodes_.size(); ++k) {
      std::size_t i = hash(nodes_[k]) & mask;
      while (table_[i] != 0) i = (i + 1) & mask;
      table_[i] = static_cast<std::uint32_t>(k + 1);
    }
  }

  std::vector<node> nodes_;
  std::vector<std::uint32_t> table_;  // node index + 1; 0 marks an empty bucket
};

}  // namespace hwpc::expr
