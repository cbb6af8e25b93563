// Fused chains for the batch evaluator (batch_chains.hpp): finding them in a
// program. Which nodes fold into which chain (batch_chains_shape.hpp says the
// shapes); batch_chains_run.hpp evaluates what is found here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "hwpc/expr/batch_chains_shape.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/udiv_constant.hpp"

namespace hwpc::expr {
namespace detail {

// Finds the chains of a program. uses[i]: how many operand slots and outputs
// read node i. Returns one optional chain per node (set on the chain's last
// node) and marks the nodes folded into a chain in `folded`.
inline std::vector<std::optional<chain>> find_chains(const program& p,
                                                     const std::vector<std::uint32_t>& uses,
                                                     const std::vector<char>& is_output,
                                                     std::vector<char>& folded) {
  const std::size_t n = p.nodes.size();
  std::vector<std::optional<chain>> out(n);
  folded.assign(n, 0);
  auto computed = [&](std::uint32_t j) {
    return p.nodes[j].code != op::input && p.nodes[j].code != op::constant;
  };
  auto foldable = [&](std::uint32_t j) {
    return computed(j) && uses[j] == 1 && !is_output[j] && !folded[j];
  };
  auto is_constant = [&](std::uint32_t j) { return p.nodes[j].code == op::constant; };
  // Sums below a to_u64 node, found first so that the FADD chains below do
  // not split them; their nodes are reserved until a chain takes the to_u64.
  std::vector<char> reserved(n, 0);
  struct sum_source {
    std::uint32_t at;  // the to_u64 node
    chain c;           // only the sum fields set
    std::vector<std::uint32_t> nodes;
    bool taken = false;
  };
  std::vector<sum_source> sums;
  // A term: a conversion the sum folds, or the conversion of a counter used
  // elsewhere too (the sum converts the input column again: same bits).
  auto is_leaf = [&](std::uint32_t j) {
    if (p.nodes[j].code != op::to_f64 || reserved[j]) return false;
    const std::uint32_t a = p.nodes[j].a;
    return !is_constant(a) && (foldable(j) || p.nodes[a].code == op::input);
  };
  auto find_sum = [&](std::uint32_t at, std::uint32_t s) {
    sum_source f{at, {}, {}, false};
    if (p.nodes[s].code == op::fdiv && foldable(s) && is_constant(p.nodes[s].b) &&
        !is_constant(p.nodes[s].a)) {
      f.c.sum_div = true;
      f.c.sum_d = p.nodes[p.nodes[s].b].imm;
      f.nodes.push_back(s);
      s = p.nodes[s].a;
    }
    if (const node& m = p.nodes[s];
        m.code == op::fmul && foldable(s) && is_constant(m.a) != is_constant(m.b)) {
      f.c.sum_mul = true;
      f.c.sum_k_left = is_constant(m.a);
      f.c.sum_k = p.nodes[f.c.sum_k_left ? m.a : m.b].imm;
      f.nodes.push_back(s);
      s = f.c.sum_k_left ? m.b : m.a;
    }
    // Down the tree: each addition adds one converted term to the sum below
    // it, the lowest adds two.
    std::uint32_t down[chain::max_terms] = {};
    std::size_t k = 0;
    for (;;) {
      const node& a = p.nodes[s];
      if (a.code != op::fadd || !foldable(s) || a.a == a.b || k + 2 > chain::max_terms) {
        return std::optional<sum_source>{};
      }
      f.nodes.push_back(s);
      const bool la = is_leaf(a.a), lb = is_leaf(a.b);
      if (la && lb) {
        down[k++] = a.b;
        down[k++] = a.a;
        break;
      }
      if (!la && !lb) return std::optional<sum_source>{};
      down[k++] = la ? a.a : a.b;
      s = la ? a.b : a.a;
    }
    f.c.sum_terms = static_cast<std::uint8_t>(k);
    for (std::size_t t = 0; t < k; ++t) {
      const std::uint32_t leaf = down[k - 1 - t];
      if (foldable(leaf)) f.nodes.push_back(leaf);
      f.c.leaves[t] = p.nodes[leaf].a;
    }
    return std::optional<sum_source>{std::move(f)};
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    if (p.nodes[i].code != op::to_u64 || !foldable(i)) continue;
    if (auto f = find_sum(i, p.nodes[i].a)) {
      for (const std::uint32_t j : f->nodes) reserved[j] = 1;
      sums.push_back(std::move(*f));
    }
  }
  // The exact shape's sums, below an FMUL by a constant; outermost first, so
  // that an inner FMUL of the same sum (8 * sum / threads * 100) is part of it.
  auto scaled = [&](std::uint32_t i) {
    const node& m = p.nodes[i];
    return m.code == op::fmul && foldable(i) && m.a != m.b && is_constant(m.a) != is_constant(m.b);
  };
  auto scaled_operand = [&](std::uint32_t i) {
    const node& m = p.nodes[i];
    return is_constant(m.a) ? m.b : m.a;
  };
  for (std::uint32_t i = static_cast<std::uint32_t>(n); i-- > 0;) {
    if (!scaled(i) || reserved[i]) continue;
    const std::uint32_t s = scaled_operand(i);
    const op o = p.nodes[s].code;
    if (o != op::fadd && o != op::fmul && o != op::fdiv) continue;
    if (auto f = find_sum(i, s)) {
      for (const std::uint32_t j : f->nodes) reserved[j] = 1;
      sums.push_back(std::move(*f));
    }
  }
  // The source below the to_f64 node t; marks what it folds.
  auto take_sum = [&](std::uint32_t at, chain& c) {
    for (auto& f : sums) {
      if (f.at != at) continue;
      f.taken = true;
      c.sum_terms = f.c.sum_terms;
      c.sum_mul = f.c.sum_mul;
      c.sum_k_left = f.c.sum_k_left;
      c.sum_div = f.c.sum_div;
      c.sum_k = f.c.sum_k;
      c.sum_d = f.c.sum_d;
      std::copy(std::begin(f.c.leaves), std::end(f.c.leaves), std::begin(c.leaves));
      for (const std::uint32_t j : f.nodes) folded[j] = 1;
      return true;
    }
    return false;
  };
  // The exact shape's source below FMUL node t: a converted column or a sum.
  auto exact_source = [&](std::uint32_t t) {
    if (!scaled(t)) return false;
    const std::uint32_t s = scaled_operand(t);
    if (p.nodes[s].code == op::to_f64 && !is_constant(p.nodes[s].a) && !reserved[s]) return true;
    for (const auto& f : sums) {
      if (f.at == t && !f.taken) return true;
    }
    return false;
  };
  auto source = [&](std::uint32_t t, chain& c) {
    if (p.nodes[t].code == op::fmul) {
      const node& m = p.nodes[t];
      c.exact = true;
      c.fmul = true;
      c.fmul_left = is_constant(m.a);
      c.fk = p.nodes[c.fmul_left ? m.a : m.b].imm;
      const std::uint32_t s = scaled_operand(t);
      if (p.nodes[s].code == op::to_f64) {
        // A conversion used elsewhere too is computed by its own loop; the
        // chain converts the column again (same bits).
        if (foldable(s)) folded[s] = 1;
        c.x = p.nodes[s].a;
      } else {
        take_sum(t, c);
        c.from_f64 = true;
      }
      return true;
    }
    std::uint32_t s = p.nodes[t].a;
    const node& m = p.nodes[s];
    if (m.code == op::umul && foldable(s) && is_constant(m.a) != is_constant(m.b)) {
      c.mul = true;
      c.k = is_constant(m.a) ? p.nodes[m.a].imm : p.nodes[m.b].imm;
      folded[s] = 1;
      s = is_constant(m.a) ? m.b : m.a;
    }
    const node& q = p.nodes[s];
    if (q.code == op::udiv && foldable(s) && is_constant(q.b) && p.nodes[q.b].imm > 1 &&
        !is_constant(q.a)) {
      const udiv_by_constant d(p.nodes[q.b].imm);
      c.d = d.how() == udiv_by_constant::kind::shift ? chain::div::shift : chain::div::multiply;
      c.magic = d.magic();
      c.shift = d.shift();
      folded[s] = 1;
      s = q.a;
    }
    if (p.nodes[s].code == op::to_u64 && foldable(s)) {
      c.from_f64 = true;
      folded[s] = 1;
      take_sum(s, c);
      s = p.nodes[s].a;
    }
    c.x = s;
    return !is_constant(s);
  };
  // Terminals first (a to_f64 operand of FDIV or FADD), then lone to_f64 nodes.
  auto is_source = [&](std::uint32_t j) {
    return (p.nodes[j].code == op::to_f64 && foldable(j) && !is_constant(p.nodes[j].a)) ||
           exact_source(j);
  };
  auto terminal = [&](std::uint32_t i) {
    const node& x = p.nodes[i];
    if ((x.code != op::fdiv && x.code != op::fadd) || x.a == x.b || reserved[i] || folded[i] ||
        out[i]) {
      return;
    }
    // The source on the left; for FADD also on the right (other operand left).
    std::uint32_t src = x.a, other = x.b;
    chain c;
    if (is_source(x.a)) {
      c.t = x.code == op::fdiv ? chain::term::fdiv : chain::term::fadd;
    } else if (x.code == op::fadd && is_source(x.b)) {
      c.t = chain::term::fadd_right;
      src = x.b;
      other = x.a;
    } else {
      return;
    }
    folded[src] = 1;
    source(src, c);
    if (is_constant(other)) {
      c.r = chain::rhs::constant;
      c.ky = p.nodes[other].imm;
    } else if (c.t != chain::term::fadd_right && p.nodes[other].code == op::to_f64 &&
               is_source(other) && p.nodes[p.nodes[other].a].type == vtype::u64) {
      c.r = chain::rhs::converted;
      c.y = p.nodes[other].a;
      folded[other] = 1;
    } else {
      c.r = chain::rhs::column;
      c.y = other;
    }
    out[i] = c;
  };
  for (std::uint32_t i = 0; i < n; ++i) terminal(i);
  auto lone = [&](std::uint32_t i) {
    const node& x = p.nodes[i];
    if (x.code != op::to_f64 || folded[i] || is_constant(x.a) || reserved[i] || out[i]) return;
    chain c;
    source(i, c);
    if (c.mul || c.d != chain::div::none || c.from_f64) out[i] = c;  // else the plain loop
  };
  for (std::uint32_t i = 0; i < n; ++i) lone(i);
  // A sum no chain took (its to_u64 feeds something else) is evaluated as
  // before: its additions become FADD chains of two terms.
  bool released = false;
  for (const auto& f : sums) {
    if (f.taken) continue;
    for (const std::uint32_t j : f.nodes) reserved[j] = 0;
    released = true;
  }
  if (released) {
    for (std::uint32_t i = 0; i < n; ++i) terminal(i);
    for (std::uint32_t i = 0; i < n; ++i) lone(i);
  }
  return out;
}

}  // namespace detail
}  // namespace hwpc::expr
