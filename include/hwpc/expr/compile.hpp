// Compiling one stand-alone formula.
//
//   hwpc::expr::symbol_table syms;
//   syms.add("EuCoresTotalCount");            // input 0, a device variable
//   syms.allow_raw_counters();                 // A0, GPU_TIME, ... become inputs on use
//   auto f = hwpc::expr::compile("A 7 READ $EuCoresTotalCount UDIV", syntax::rpn, syms);
//   if (!f) { puts(f.error_value().describe().c_str()); }
//   hwpc::expr::value v = f->evaluate({24, 4800});  // inputs in f->inputs() order
//
// Metric sets, where formulas refer to each other and share nodes, are
// compiled by hwpc::metrics (metrics/metric_set.hpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/arithmetic.hpp"
#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/eval.hpp"
#include "hwpc/expr/infix.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/passes.hpp"
#include "hwpc/expr/rpn.hpp"
#include "hwpc/expr/symbols.hpp"

namespace hwpc::expr {

enum class syntax : std::uint8_t { infix, rpn };

constexpr std::string_view to_string(syntax s) noexcept {
  return s == syntax::rpn ? "rpn" : "infix";
}

template <class Resolve>
constexpr parse_result parse(std::string_view text, syntax s, builder& b, Resolve&& resolve) {
  return s == syntax::rpn ? parse_rpn(text, b, resolve) : parse_infix(text, b, resolve);
}

// A compiled formula: one output, inputs as declared in the symbol table
// (plus raw counters added on use, in order of first use).
class formula {
 public:
  explicit formula(program p) : p_(std::move(p)) {}

  const program& ir() const noexcept { return p_; }
  const std::vector<input_desc>& inputs() const noexcept { return p_.inputs; }
  vtype type() const { return p_.output_type(0); }
  bool is_constant() const { return p_.output_is_constant(0); }

  // inputs: one slot per input (value.hpp); missing trailing inputs read 0.
  value evaluate(std::span<const slot> inputs) const {
    std::vector<slot> slots(p_.nodes.size());
    run(p_.nodes, inputs, slots);
    return {type(), slots[p_.outputs[0]]};
  }
  value evaluate(std::initializer_list<slot> inputs) const {
    return evaluate(std::span<const slot>(inputs.begin(), inputs.size()));
  }

 private:
  program p_;
};

// `arith`: how integer products and quotients used as doubles are computed
// (arithmetic.hpp).
inline result<formula> compile(std::string_view text, syntax s, const symbol_table& symbols,
                               arithmetic arith = arithmetic::mdapi) {
  builder b;
  program p;
  p.inputs = symbols.inputs();
  auto resolve = [&](std::string_view name) -> resolved {
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      if (p.inputs[i].name == name) {
        return resolved::at(b.input(static_cast<std::uint32_t>(i), p.inputs[i].type));
      }
    }
    if (symbols.raw_counters_allowed() && is_raw_counter_name(name)) {
      p.inputs.push_back({std::string(name), vtype::u64, input_kind::counter});
      return resolved::at(b.input(static_cast<std::uint32_t>(p.inputs.size() - 1), vtype::u64));
    }
    return {};
  };
  const parse_result r = parse(text, s, b, resolve);
  if (!r.status) return to_error(text, r.status.error);
  p.outputs.push_back(r.root);
  p.nodes = std::move(b).take();
  return formula(compact(with_arithmetic(p, arith), /*keep_inputs=*/true));
}

}  // namespace hwpc::expr
