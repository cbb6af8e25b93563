// The scalar evaluator: one sample, every node once, in order.
//
// run() is constexpr and is also the compile-time evaluator (consteval.hpp);
// the batch evaluator runs the same apply<O> over columns (batch.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/semantics.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

// Computes every node into slots (slots.size() >= nodes.size()). inputs[i] is
// input i's value as a slot (value.hpp); an input index past the end reads 0.
constexpr void run(std::span<const node> nodes, std::span<const slot> inputs,
                   std::span<slot> slots) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const node& n = nodes[i];
    if (n.code == op::constant) {
      slots[i] = n.imm;
    } else if (n.code == op::input) {
      slots[i] = n.imm < inputs.size() ? inputs[n.imm] : 0;
    } else {
      const slot a = slots[n.a], b = slots[n.b], c = slots[n.c];
      slots[i] = visit_op(n.code, [&](auto k) { return apply<decltype(k)::value>(a, b, c); });
    }
  }
}

// Converts typed values to the slots of a program's inputs.
inline std::vector<slot> input_slots(const program& p, std::span<const value> values) {
  std::vector<slot> s(p.inputs.size(), 0);
  for (std::size_t i = 0; i < s.size() && i < values.size(); ++i) {
    s[i] = p.inputs[i].type == vtype::u64 ? values[i].as_u64() : from_f64(values[i].as_double());
  }
  return s;
}

// Evaluates a program one sample at a time, reusing its scratch space.
class scalar_evaluator {
 public:
  explicit scalar_evaluator(const program& p) : p_(&p), slots_(p.nodes.size()) {}
  explicit scalar_evaluator(const program&& p) = delete;  // keeps a pointer to the program

  // Every output for one sample. inputs: one slot per program input.
  result<void> evaluate(std::span<const slot> inputs, std::span<value> outputs) {
    if (inputs.size() < p_->inputs.size() || outputs.size() < p_->outputs.size()) {
      return error{errc::inconsistent, 0, "too few inputs or outputs for this program",
                   error_anchor::none};
    }
    run(p_->nodes, inputs, slots_);
    for (std::size_t o = 0; o < p_->outputs.size(); ++o) {
      outputs[o] = {p_->nodes[p_->outputs[o]].type, slots_[p_->outputs[o]]};
    }
    return {};
  }

  // Output o only (still computes every node; use for one-output programs).
  value evaluate_one(std::span<const slot> inputs, std::size_t o = 0) {
    run(p_->nodes, inputs, slots_);
    return {p_->nodes[p_->outputs[o]].type, slots_[p_->outputs[o]]};
  }

 private:
  const program* p_;
  std::vector<slot> slots_;
};

}  // namespace hwpc::expr
