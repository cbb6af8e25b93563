// Whole-program passes over the IR.
//
//   compact:        drops nodes no output needs (and, optionally, unused
//                   inputs), keeping topological order.
//   bind_variables: replaces inputs by constants (device variables, once per
//                   device) and rebuilds through the builder, so everything
//                   that depended only on them folds away.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/ir.hpp"

namespace hwpc::expr {

constexpr program compact(const program& p, bool keep_inputs = false) {
  const std::size_t n = p.nodes.size();
  std::vector<char> live(n, 0);
  for (std::uint32_t o : p.outputs) live[o] = 1;
  for (std::size_t i = n; i-- > 0;) {
    if (!live[i]) continue;
    const node& x = p.nodes[i];
    const std::uint8_t arity = info(x.code).arity;
    if (arity >= 1) live[x.a] = 1;
    if (arity >= 2) live[x.b] = 1;
    if (arity >= 3) live[x.c] = 1;
  }
  std::vector<std::uint32_t> input_map(p.inputs.size(), 0);
  program out;
  if (keep_inputs) {
    out.inputs = p.inputs;
    for (std::size_t i = 0; i < input_map.size(); ++i) input_map[i] = static_cast<std::uint32_t>(i);
  } else {
    std::vector<char> used(p.inputs.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (live[i] && p.nodes[i].code == op::input) used[p.nodes[i].imm] = 1;
    }
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      if (!used[i]) continue;
      input_map[i] = static_cast<std::uint32_t>(out.inputs.size());
      out.inputs.push_back(p.inputs[i]);
    }
  }
  std::vector<std::uint32_t> remap(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    node x = p.nodes[i];
    const std::uint8_t arity = info(x.code).arity;
    x.a = arity >= 1 ? remap[x.a] : 0;
    x.b = arity >= 2 ? remap[x.b] : 0;
    x.c = arity >= 3 ? remap[x.c] : 0;
    if (x.code == op::input) x.imm = input_map[x.imm];
    remap[i] = static_cast<std::uint32_t>(out.nodes.size());
    out.nodes.push_back(x);
  }
  for (std::uint32_t o : p.outputs) out.outputs.push_back(remap[o]);
  return out;
}

// values[i] set: input i becomes that constant (converted to the input's
// declared type). Bound inputs disappear from the result's input list.
constexpr program bind_variables(const program& p, std::span<const std::optional<value>> values) {
  builder b;
  std::vector<std::uint32_t> remap(p.nodes.size(), 0);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const node& x = p.nodes[i];
    std::uint32_t r = 0;
    if (x.code == op::constant) {
      r = b.constant({x.type, x.imm});
    } else if (x.code == op::input) {
      if (x.imm < values.size() && values[x.imm]) {
        const value v = *values[x.imm];
        r = b.constant(x.type == vtype::u64 ? value::u(v.as_u64()) : value::f(v.as_double()));
      } else {
        r = b.input(static_cast<std::uint32_t>(x.imm), x.type);
      }
    } else {
      r = b.make(x.code, remap[x.a], remap[x.b], remap[x.c]);
    }
    remap[i] = r;
  }
  program out;
  out.inputs = p.inputs;
  for (std::uint32_t o : p.outputs) out.outputs.push_back(remap[o]);
  out.nodes = std::move(b).take();
  return compact(out, false);
}

}  // namespace hwpc::expr
