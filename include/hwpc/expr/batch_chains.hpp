// Fused chains for the batch evaluator: the shapes metric sets repeat on
// every sample, evaluated in one loop with the intermediate values in
// registers instead of one column per node.
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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <type_traits>
#include <vector>

#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/semantics.hpp"
#include "hwpc/expr/udiv_constant.hpp"
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

template <chain::term T, chain::rhs R, chain::div D, bool Mul, bool FromF64>
inline void chain_loop(slot* __restrict out, const slot* __restrict x, const slot* __restrict y,
                       const chain& c, std::size_t len) {
  const slot k = c.k, ky = c.ky, magic = c.magic;
  const unsigned sh = c.shift;
  for (std::size_t j = 0; j < len; ++j) {
    std::uint64_t v = x[j];
    if constexpr (FromF64) v = apply<op::to_u64>(v, 0, 0);
    if constexpr (D == chain::div::shift) v >>= sh;
    if constexpr (D == chain::div::multiply) v = udiv_by_constant::divide(v, magic, sh);
    if constexpr (Mul) v *= k;
    const slot f = from_f64(u64_to_f64(v));
    if constexpr (T == chain::term::store) {
      out[j] = f;
    } else {
      slot b = 0;
      if constexpr (R == chain::rhs::column) b = y[j];
      if constexpr (R == chain::rhs::constant) b = ky;
      if constexpr (R == chain::rhs::converted) b = from_f64(u64_to_f64(y[j]));
      if constexpr (T == chain::term::fdiv) {
        out[j] = apply<op::fdiv>(f, b, 0);
      } else if constexpr (T == chain::term::fadd) {
        out[j] = apply<op::fadd>(f, b, 0);
      } else {
        out[j] = apply<op::fadd>(b, f, 0);
      }
    }
  }
}

// The exact shape: x a u64 column converted, or (FromDouble) a double
// column, times the constant, then the end.
enum class scale : std::uint8_t { none, left, right };
template <chain::term T, chain::rhs R, bool FromDouble, scale S>
inline void exact_chain_loop(slot* __restrict out, const slot* __restrict x,
                             const slot* __restrict y, const chain& c, std::size_t len) {
  const slot fk = c.fk, ky = c.ky;
  for (std::size_t j = 0; j < len; ++j) {
    slot f = FromDouble ? x[j] : from_f64(u64_to_f64(x[j]));
    if constexpr (S == scale::left) f = apply<op::fmul>(fk, f, 0);
    if constexpr (S == scale::right) f = apply<op::fmul>(f, fk, 0);
    if constexpr (T == chain::term::store) {
      out[j] = f;
    } else {
      slot b = 0;
      if constexpr (R == chain::rhs::column) b = y[j];
      if constexpr (R == chain::rhs::constant) b = ky;
      if constexpr (R == chain::rhs::converted) b = from_f64(u64_to_f64(y[j]));
      if constexpr (T == chain::term::fdiv) {
        out[j] = apply<op::fdiv>(f, b, 0);
      } else if constexpr (T == chain::term::fadd) {
        out[j] = apply<op::fadd>(f, b, 0);
      } else {
        out[j] = apply<op::fadd>(b, f, 0);
      }
    }
  }
}

inline void run_exact_chain(slot* out, const slot* x, const slot* y, const chain& c,
                            std::size_t len) {
  using T = chain::term;
  using R = chain::rhs;
  auto with_scale = [&](auto t, auto r, auto d) {
    constexpr auto TT = decltype(t)::value;
    constexpr auto RR = decltype(r)::value;
    constexpr bool DD = decltype(d)::value;
    if (!c.fmul) return exact_chain_loop<TT, RR, DD, scale::none>(out, x, y, c, len);
    if (c.fmul_left) return exact_chain_loop<TT, RR, DD, scale::left>(out, x, y, c, len);
    return exact_chain_loop<TT, RR, DD, scale::right>(out, x, y, c, len);
  };
  auto with_double = [&](auto t, auto r) {
    if (c.from_f64) return with_scale(t, r, std::true_type{});
    return with_scale(t, r, std::false_type{});
  };
  auto with_rhs = [&](auto t) {
    switch (c.r) {
      case R::none:
      case R::column:
        return with_double(t, std::integral_constant<R, R::column>{});
      case R::constant:
        return with_double(t, std::integral_constant<R, R::constant>{});
      case R::converted:
        return with_double(t, std::integral_constant<R, R::converted>{});
    }
  };
  switch (c.t) {
    case T::store:
      return with_double(std::integral_constant<T, T::store>{},
                         std::integral_constant<R, R::none>{});
    case T::fdiv:
      return with_rhs(std::integral_constant<T, T::fdiv>{});
    case T::fadd:
      return with_rhs(std::integral_constant<T, T::fadd>{});
    case T::fadd_right:
      return with_rhs(std::integral_constant<T, T::fadd_right>{});
  }
}

// Turns the chain's runtime shape into chain_loop's template arguments.
inline void run_chain(slot* out, const slot* x, const slot* y, const chain& c, std::size_t len) {
  if (c.exact) return run_exact_chain(out, x, y, c, len);
  auto with_from = [&](auto t, auto r, auto d, auto m) {
    constexpr auto T = decltype(t)::value;
    constexpr auto R = decltype(r)::value;
    constexpr auto D = decltype(d)::value;
    constexpr bool M = decltype(m)::value;
    if (c.from_f64) {
      chain_loop<T, R, D, M, true>(out, x, y, c, len);
    } else {
      chain_loop<T, R, D, M, false>(out, x, y, c, len);
    }
  };
  auto with_mul = [&](auto t, auto r, auto d) {
    if (c.mul) {
      with_from(t, r, d, std::true_type{});
    } else {
      with_from(t, r, d, std::false_type{});
    }
  };
  auto with_div = [&](auto t, auto r) {
    using D = chain::div;
    switch (c.d) {
      case D::none:
        return with_mul(t, r, std::integral_constant<D, D::none>{});
      case D::shift:
        return with_mul(t, r, std::integral_constant<D, D::shift>{});
      case D::multiply:
        return with_mul(t, r, std::integral_constant<D, D::multiply>{});
    }
  };
  using T = chain::term;
  using R = chain::rhs;
  if (c.t == T::store)
    return with_div(std::integral_constant<T, T::store>{}, std::integral_constant<R, R::none>{});
  auto with_rhs = [&](auto t) {
    switch (c.r) {
      case R::none:
      case R::column:
        return with_div(t, std::integral_constant<R, R::column>{});
      case R::constant:
        return with_div(t, std::integral_constant<R, R::constant>{});
      case R::converted:
        return with_div(t, std::integral_constant<R, R::converted>{});
    }
  };
  if (c.t == T::fdiv) return with_rhs(std::integral_constant<T, T::fdiv>{});
  if (c.t == T::fadd) return with_rhs(std::integral_constant<T, T::fadd>{});
  return with_rhs(std::integral_constant<T, T::fadd_right>{});
}

// A chain whose source is a sum: per tile of rows, the sum (and its FMUL and
// FDIV by constants) in an array that stays in L1, the first four terms in
// one pass and one pass per further term, then the chain's own loop over the
// tile as its double source x.
inline void run_sum_chain(slot* out, const slot* const* terms, const slot* y, const chain& c,
                          std::size_t len) {
  constexpr std::size_t tile = 256;
  alignas(64) slot t[tile];
  const bool with_y = c.r == chain::rhs::column || c.r == chain::rhs::converted;
  for (std::size_t s = 0; s < len; s += tile) {
    const std::size_t m = len - s < tile ? len - s : tile;
    const slot* __restrict l0 = terms[0] + s;
    const slot* __restrict l1 = terms[1] + s;
    auto term = [](const slot* __restrict l, std::size_t j) { return from_f64(u64_to_f64(l[j])); };
    std::uint8_t next = 2;
    if (c.sum_terms >= 4) {
      // Up to four terms in one pass (Gen12's four-counter sums), in the
      // order of the additions.
      const slot* __restrict l2 = terms[2] + s;
      const slot* __restrict l3 = terms[3] + s;
      for (std::size_t j = 0; j < m; ++j) {
        const slot a = apply<op::fadd>(term(l0, j), term(l1, j), 0);
        t[j] = apply<op::fadd>(apply<op::fadd>(a, term(l2, j), 0), term(l3, j), 0);
      }
      next = 4;
    } else if (c.sum_terms == 3) {
      const slot* __restrict l2 = terms[2] + s;
      for (std::size_t j = 0; j < m; ++j) {
        t[j] = apply<op::fadd>(apply<op::fadd>(term(l0, j), term(l1, j), 0), term(l2, j), 0);
      }
      next = 3;
    } else {
      for (std::size_t j = 0; j < m; ++j) t[j] = apply<op::fadd>(term(l0, j), term(l1, j), 0);
    }
    for (; next < c.sum_terms; ++next) {
      const slot* __restrict l = terms[next] + s;
      for (std::size_t j = 0; j < m; ++j) {
        t[j] = apply<op::fadd>(t[j], from_f64(u64_to_f64(l[j])), 0);
      }
    }
    if (c.sum_mul) {
      const slot k = c.sum_k;
      if (c.sum_k_left) {
        for (std::size_t j = 0; j < m; ++j) t[j] = apply<op::fmul>(k, t[j], 0);
      } else {
        for (std::size_t j = 0; j < m; ++j) t[j] = apply<op::fmul>(t[j], k, 0);
      }
    }
    if (c.sum_div) {
      const slot d = c.sum_d;
      for (std::size_t j = 0; j < m; ++j) t[j] = apply<op::fdiv>(t[j], d, 0);
    }
    run_chain(out + s, t, with_y ? y + s : y, c, m);
  }
}

}  // namespace detail
}  // namespace hwpc::expr
