// Which arithmetic the integer operators of a formula follow where their
// result is used as a double.
//
// Intel's metric files spell "a percentage of the EU-clocks" as
//   X $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV
// Read literally (IGT's generated C, hwpc's `arithmetic::igt`), X / EUs is an
// integer division: the quotient is truncated before x100, and on Xe2, where
// X counts XeCore-cycles and the divisor is the XVE count, a busy GPU can read
// 0. Intel's metrics-discovery, from which the files were converted, computes
// these metrics as 100 * X / (GpuCoreClocks * EUs) without truncation (its
// EuAggrDuration normalization; docs/expressions.md has the sources).
//
// `arithmetic::mdapi` (the default) computes that: a chain of UMUL and UDIV
// nodes holding at least one UDIV, whose result is used as a double, is
// evaluated as the fraction N / D of its factors in double precision:
//   umul(a, b) -> N = Na * Nb, D = Da * Db
//   udiv(a, b) -> N = Na * Db, D = Da * Nb
//   to_u64(x)  -> N = x (the double before the truncation), D = 1
//   any other  -> N = to_f64(node), D = 1
// The non-constant factors are multiplied in the order the formula names
// them, then the product of the constant factors (folded first). Used as
// the dividend of an FDIV by y, the chain gives N / (D * y), the form of
// metrics-discovery's EuAggrDuration; used any other way, N / D. A zero
// denominator gives 0, as UDIV and FDIV by zero do. A chain stops at the
// value of a metric another formula refers to (`$GpuTime`, whole
// nanoseconds), as metrics-discovery reads it; so does a uint64 metric's
// truncation. Chains without a UDIV
// (plain products) and chains whose result stays an integer (GpuTime's
// "... 1000000000 UMUL $GpuTimestampFrequency UDIV") are left as they are:
// metrics-discovery divides those in integers too.
//
// For the sets metrics-discovery itself defines (HSW, SKL GT2, TGL GT2, LNL,
// BMG, PTL), metrics/mdapi.hpp goes further: each metric is compiled from
// MDAPI's own definition, which says exactly where MDAPI truncates; those
// formulas are passed here as `literal` and left as written.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

enum class arithmetic : std::uint8_t { mdapi, igt };

constexpr std::string_view to_string(arithmetic a) noexcept {
  return a == arithmetic::mdapi ? "mdapi" : "igt";
}

constexpr std::optional<arithmetic> parse_arithmetic(std::string_view s) noexcept {
  if (s == "mdapi") return arithmetic::mdapi;
  if (s == "igt") return arithmetic::igt;
  return std::nullopt;
}

namespace detail {

// One side of a fraction: the product of its non-constant factors (a node of
// the new program, or none) and of its constant factors.
struct factor_product {
  std::optional<std::uint32_t> node;
  double k = 1.0;
};

struct fraction {
  factor_product num, den;
  bool has_udiv = false;
};

constexpr factor_product times(builder& b, const factor_product& x, const factor_product& y) {
  factor_product r;
  r.k = x.k * y.k;
  if (x.node && y.node) {
    r.node = b.make(op::fmul, *x.node, *y.node);
  } else {
    r.node = x.node ? x.node : y.node;
  }
  return r;
}

// The product as one double node (non-constant factors, then the constants).
constexpr std::uint32_t product_node(builder& b, const factor_product& p) {
  if (!p.node) return b.constant_f64(p.k);
  if (p.k == 1.0) return *p.node;
  return b.make(op::fmul, *p.node, b.constant_f64(p.k));
}

}  // namespace detail

// The program with every such chain rewritten (see above); other nodes are
// rebuilt unchanged. Nodes only the old chains used are left for compact().
// `values`: nodes that are the value of a metric another formula refers to.
// `literal`: indices into p.outputs of formulas to leave as written (a metric
// whose formula is already metrics-discovery's own, metrics/mdapi.hpp). They
// are rebuilt unchanged beside the rewritten program (hash-consing shares
// every node the rewrite does not touch), so a node two formulas share is
// rewritten for the one and kept for the other; a metric value a literal
// formula refers to is read as its own metric's rule computes it, and a
// literal metric another formula refers to is read as written. (Values are
// nodes: where a literal formula holds, as a part, the very formula of a
// metric another one refers to, that part is read as the referred metric's
// rule computes it; where two metrics share their whole formula and one is
// literal, a reference to either reads the literal value.)
constexpr program exact_quotients(const program& p, std::span<const std::uint32_t> values = {},
                                  std::span<const std::uint32_t> literal = {}) {
  const std::size_t n = p.nodes.size();
  // Which UMUL/UDIV nodes are part of a chain used as a double: the operand
  // of a to_f64, and (backwards) the UMUL/UDIV operands of such nodes.
  // A metric another one refers to is read as its value, which is what
  // metrics-discovery reads too: chains stop there.
  std::vector<char> is_output(n, 0);
  for (const std::uint32_t o : values) {
    if (o < n) is_output[o] = 1;
  }
  std::vector<char> is_literal_root(n, 0), as_written(n, 0), literal_output(p.outputs.size(), 0);
  for (const std::uint32_t k : literal) {
    if (k >= p.outputs.size() || p.outputs[k] >= n) continue;
    literal_output[k] = 1;
    is_literal_root[p.outputs[k]] = as_written[p.outputs[k]] = 1;
  }
  for (std::size_t i = n; i-- > 0;) {
    if (!as_written[i] || p.nodes[i].code == op::input || p.nodes[i].code == op::constant) {
      continue;
    }
    const std::uint8_t arity = info(p.nodes[i].code).arity;
    const std::uint32_t operands[3] = {p.nodes[i].a, p.nodes[i].b, p.nodes[i].c};
    for (std::uint8_t k = 0; k < arity; ++k) {
      const std::uint32_t j = operands[k];
      // A metric value the formula refers to follows its own metric's rule.
      if (!is_output[j] || is_literal_root[j]) as_written[j] = 1;
    }
  }
  std::vector<char> in_chain(n, 0);
  auto chainable = [&](std::uint32_t j) {
    return !is_output[j] && (p.nodes[j].code == op::umul || p.nodes[j].code == op::udiv);
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (p.nodes[i].code == op::to_f64 && chainable(p.nodes[i].a)) {
      in_chain[p.nodes[i].a] = 1;
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    if (!in_chain[i]) continue;
    if (chainable(p.nodes[i].a)) in_chain[p.nodes[i].a] = 1;
    if (chainable(p.nodes[i].b)) in_chain[p.nodes[i].b] = 1;
  }
  builder b;
  std::vector<std::uint32_t> remap(n, 0), plain(n, 0);
  std::vector<detail::fraction> frac(n);
  // A factor of a chain node's fraction: its operand j as a fraction.
  auto operand = [&](std::uint32_t j) {
    if (in_chain[j]) return frac[j];
    detail::fraction f;
    const node& x = p.nodes[j];
    if (x.code == op::constant) {
      f.num.k = x.type == vtype::f64 ? as_f64(x.imm) : u64_to_f64(x.imm);
    } else if (x.code == op::to_u64 && !is_output[j]) {
      f.num.node = remap[x.a];
    } else {
      f.num.node = b.convert(remap[j], vtype::f64);
    }
    return f;
  };
  // The chain below to_f64 node t, divided by `divisor` (a double node) when set.
  auto value_of = [&](std::uint32_t t, std::optional<std::uint32_t> divisor) {
    const detail::fraction& f = frac[p.nodes[t].a];
    const std::uint32_t num = detail::product_node(b, f.num);
    if (!f.den.node && f.den.k == 1.0 && !divisor) return num;
    std::uint32_t den = detail::product_node(b, f.den);
    if (divisor) den = f.den.node || f.den.k != 1.0 ? b.make(op::fmul, den, *divisor) : *divisor;
    return b.make(op::fdiv, num, den);
  };
  auto rewritten = [&](std::uint32_t j) {
    return p.nodes[j].code == op::to_f64 && in_chain[p.nodes[j].a] && frac[p.nodes[j].a].has_udiv;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const node& x = p.nodes[i];
    std::uint32_t r = 0;
    if (x.code == op::constant) {
      r = b.constant({x.type, x.imm});
    } else if (x.code == op::input) {
      r = b.input(static_cast<std::uint32_t>(x.imm), x.type);
    } else if (rewritten(static_cast<std::uint32_t>(i))) {
      r = value_of(static_cast<std::uint32_t>(i), std::nullopt);
    } else if (x.code == op::fdiv && rewritten(x.a)) {
      r = value_of(x.a, remap[x.b]);
    } else {
      r = b.make(x.code, remap[x.a], remap[x.b], remap[x.c]);
    }
    remap[i] = r;
    if (as_written[i]) {
      // As written: operands as written, but a metric value it refers to as
      // that metric computes it.
      auto pick = [&](std::uint32_t j) { return as_written[j] ? plain[j] : remap[j]; };
      plain[i] = x.code == op::constant || x.code == op::input
                     ? r
                     : b.make(x.code, pick(x.a), pick(x.b), pick(x.c));
      if (is_literal_root[i] && is_output[i]) remap[i] = plain[i];
    }
    if (in_chain[i]) {
      const detail::fraction fa = operand(x.a), fb = operand(x.b);
      detail::fraction& f = frac[i];
      f.has_udiv = fa.has_udiv || fb.has_udiv || x.code == op::udiv;
      if (x.code == op::umul) {
        f.num = detail::times(b, fa.num, fb.num);
        f.den = detail::times(b, fa.den, fb.den);
      } else {
        f.num = detail::times(b, fa.num, fb.den);
        f.den = detail::times(b, fa.den, fb.num);
      }
    }
  }
  program out;
  out.inputs = p.inputs;
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    const std::uint32_t o = p.outputs[k];
    out.outputs.push_back(literal_output[k] ? plain[o] : remap[o]);
  }
  out.nodes = std::move(b).take();
  return out;
}

// The program as `a` computes it.
constexpr program with_arithmetic(const program& p, arithmetic a,
                                  std::span<const std::uint32_t> values = {},
                                  std::span<const std::uint32_t> literal = {}) {
  return a == arithmetic::mdapi ? exact_quotients(p, values, literal) : p;
}

}  // namespace hwpc::expr
