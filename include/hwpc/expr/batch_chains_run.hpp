// Fused chains for the batch evaluator (batch_chains.hpp): evaluating one over
// a block of rows. Each step is the operator's apply<> (or, for UDIV, the exact
// udiv_by_constant), so a chain gives the same bits as node-by-node evaluation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwpc/expr/batch_chains_shape.hpp"
#include "hwpc/expr/semantics.hpp"
#include "hwpc/expr/udiv_constant.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {
namespace detail {

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
