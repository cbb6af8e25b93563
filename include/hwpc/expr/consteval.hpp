// Formulas compiled while the program is compiled.
//
//   using hwpc::expr::syntax;
//   constexpr auto busy = hwpc::expr::compile_static<
//       "$GpuCoreClocks * 100 / $Ticks", syntax::infix, "GpuCoreClocks", "Ticks">();
//   static_assert(busy(50, 200).as_double() == 25.0);
//
// The names after the syntax are the formula's inputs, in the order the call
// operator takes their (u64) values. compile_static runs the same front ends,
// builder and evaluator as run-time compilation, in a consteval context, so a
// syntax error or a misspelt name stops the build: the compiler reports that
// the constant evaluation called `formula_does_not_compile` (g++ and clang name
// the function, not the values of its arguments). A failing build cannot be a
// unit test, so the test suite checks instead that check() -- the same parse,
// usable in constant expressions -- returns the error and its column.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "hwpc/expr/arithmetic.hpp"
#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/compile.hpp"
#include "hwpc/expr/eval.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/passes.hpp"

namespace hwpc::expr {

// A string literal as a template argument.
template <std::size_t N>
struct fixed_string {
  char data[N]{};
  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: implicit by design
    for (std::size_t i = 0; i < N; ++i) data[i] = s[i];
  }
  constexpr std::string_view view() const noexcept { return {data, N - 1}; }
};

namespace detail {

struct static_compiled {
  parse_status status;
  program prog;
};

constexpr static_compiled compile_with_names(std::string_view text, syntax s,
                                             std::span<const std::string_view> names,
                                             arithmetic arith = arithmetic::mdapi) {
  builder b;
  auto resolve = [&](std::string_view name) -> resolved {
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::string_view n = names[i];
      if (!n.empty() && n.front() == '$') n.remove_prefix(1);
      if (n == name) return resolved::at(b.input(static_cast<std::uint32_t>(i), vtype::u64));
    }
    return {};
  };
  const parse_result r = parse(text, s, b, resolve);
  static_compiled out;
  out.status = r.status;
  if (!r.status) return out;
  // No compaction and no input names here: std::string is not usable in
  // constant expressions by every compiler this library supports (clang 14 with
  // libstdc++ 12). Nodes that folding left unused are constants; evaluating
  // them costs nothing at compile time.
  program p;
  p.outputs.push_back(r.root);
  p.nodes = std::move(b).take();
  if (arith == arithmetic::mdapi) {
    out.prog = exact_quotients(p);
  } else {
    out.prog = std::move(p);
  }
  return out;
}

// Deliberately not constexpr: reaching it during constant evaluation turns a
// formula error into a compile error whose notes show the arguments.
inline void formula_does_not_compile(errc, std::uint32_t /*column*/, std::string_view /*why*/) {}

}  // namespace detail

// The compile-time parse: the error (code, 1-based column, message) or ok.
constexpr parse_status check(std::string_view text, syntax s,
                             std::initializer_list<std::string_view> names = {}) {
  return detail::compile_with_names(text, s, std::span(names.begin(), names.size())).status;
}

template <std::size_t N, std::size_t K>
struct static_program {
  std::array<node, N> nodes{};
  std::uint32_t output = 0;

  static constexpr std::size_t input_count = K;
  constexpr vtype type() const { return nodes[output].type; }
  constexpr bool is_constant() const { return nodes[output].code == op::constant; }

  constexpr value evaluate(std::span<const slot> inputs) const {
    std::array<slot, N> s{};
    run(nodes, inputs, s);
    return {type(), s[output]};
  }
  template <class... T>
  requires(sizeof...(T) == K) constexpr value operator()(T... inputs) const {
    const std::array<slot, K> in{static_cast<slot>(inputs)...};
    return evaluate(in);
  }
};

// compile_static with the arithmetic named (arithmetic.hpp):
//   compile_static_as<arithmetic::igt, "A 7 READ $Eus UDIV", syntax::rpn, "A7", "Eus">()
template <arithmetic Arith, fixed_string Text, syntax Syn = syntax::infix, fixed_string... Names>
consteval auto compile_static_as() {
  constexpr std::array<std::string_view, sizeof...(Names)> names{Names.view()...};
  constexpr std::size_t n = [&] {
    const auto r = detail::compile_with_names(Text.view(), Syn, names, Arith);
    if (!r.status) {
      detail::formula_does_not_compile(r.status.error.code, r.status.error.column,
                                       r.status.error.message);
    }
    return r.prog.nodes.size();
  }();
  const auto r = detail::compile_with_names(Text.view(), Syn, names, Arith);
  static_program<n, sizeof...(Names)> out;
  for (std::size_t i = 0; i < n; ++i) out.nodes[i] = r.prog.nodes[i];
  out.output = r.prog.outputs[0];
  return out;
}

// Metrics-discovery's arithmetic, the default.
template <fixed_string Text, syntax Syn = syntax::infix, fixed_string... Names>
consteval auto compile_static() {
  return compile_static_as<arithmetic::mdapi, Text, Syn, Names...>();
}

}  // namespace hwpc::expr
