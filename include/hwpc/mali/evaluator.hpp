// Derived counters over any Mali GPU: a metric set whose formulas read
// Streamline counter names, bound to one GPU's counter table and one
// configuration. GPU-neutral: the table, the set and the name bindings are
// arguments; the Mali-G72 counter guide (hwpc/mali/g72_metrics.hpp) is the
// first instance.
//
//   auto ev = hwpc::mali::evaluator::create(gpus::g72, g72_metric_set(),
//                                           g72_streamline_counters, layout, 128);
//   ev->evaluate(sample_sums, out);   // out[i]: metric i of the set
//
// create() checks every binding against the table: a binding whose (block,
// index) holds another counter on this GPU is an error, so a set written for
// one GPU is never evaluated with another GPU's counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/value.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/streamline_names.hpp"
#include "hwpc/mali/table.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace hwpc::mali {

// Streamline counter names resolve to counter inputs, the three Mali
// constants to device variables; no Intel names.
// Arm's database spells the constants MALI_CONFIG_* (Mali-CounterInfo-00a-Constants.xml).
inline constexpr std::string_view config_shader_core_count = "MALI_CONFIG_SHADER_CORE_COUNT";
inline constexpr std::string_view config_l2_cache_count = "MALI_CONFIG_L2_CACHE_COUNT";
inline constexpr std::string_view config_ext_bus_byte_size = "MALI_CONFIG_EXT_BUS_BYTE_SIZE";
// The sample's duration: per sample, not per configuration, so formulas that
// read it are left out of the database sets (docs/mali.md).
inline constexpr std::string_view config_time_span = "MALI_CONFIG_TIME_SPAN";

inline metrics::compile_options mali_compile_options(std::span<const streamline_counter> names) {
  metrics::compile_options opt;
  opt.device_variables = {
      std::string(constant_shader_core_count), std::string(constant_l2_slice_count),
      std::string(constant_bus_width_bits),    std::string(config_shader_core_count),
      std::string(config_l2_cache_count),      std::string(config_ext_bus_byte_size)};
  opt.raw_counters = false;
  for (const streamline_counter& c : names) opt.counter_names.emplace_back(c.name);
  return opt;
}

// The constants' values for a configuration: shader cores present in the core
// mask, L2 slices, and the external bus width, which samples do not tell.
inline metrics::device_values mali_device_values(const sample_layout& layout,
                                                 std::uint32_t bus_width_bits) {
  return {{std::string(constant_shader_core_count), expr::value::u(layout.shader_core_count())},
          {std::string(constant_l2_slice_count), expr::value::u(layout.l2_slices)},
          {std::string(constant_bus_width_bits), expr::value::u(bus_width_bits)},
          {std::string(config_shader_core_count), expr::value::u(layout.shader_core_count())},
          {std::string(config_l2_cache_count), expr::value::u(layout.l2_slices)},
          {std::string(config_ext_bus_byte_size), expr::value::u(bus_width_bits / 8)}};
}

namespace detail {
// The names a formula reads: identifiers not followed by '('.
inline std::vector<std::string_view> formula_names(std::string_view f) {
  std::vector<std::string_view> out;
  auto ident = [](char c, bool first) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
  };
  for (std::size_t i = 0; i < f.size();) {
    if (!ident(f[i], true) || (i > 0 && (ident(f[i - 1], false) || f[i - 1] == '.'))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < f.size() && ident(f[j], false)) ++j;
    std::size_t k = j;
    while (k < f.size() && f[k] == ' ') ++k;
    if (k >= f.size() || f[k] != '(') out.push_back(f.substr(i, j - i));
    i = j;
  }
  return out;
}
}  // namespace detail

// Arm's derived counters of one layout (gpu_table::derived) as a metric set
// (infix), in the table's order, leaving out those that read the sample's
// time span, directly or through another derived counter.
inline metrics::metric_set database_metric_set(const gpu_table& t) {
  std::vector<std::string_view> left_out{config_time_span};
  auto is_left_out = [&](std::string_view n) {
    for (std::string_view x : left_out) {
      if (x == n) return true;
    }
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const derived_counter& d : t.derived) {
      if (is_left_out(d.name)) continue;
      for (std::string_view n : detail::formula_names(d.equation)) {
        if (is_left_out(n)) {
          left_out.push_back(d.name);
          changed = true;
          break;
        }
      }
    }
  }
  metrics::metric_set set;
  set.symbol_name = "MaliDatabase";
  set.name = std::string(t.key) + " derived counters (Arm counter database)";
  set.chipset = std::string(t.key);
  set.syntax = expr::syntax::infix;
  for (const derived_counter& d : t.derived) {
    if (is_left_out(d.name)) continue;
    metrics::metric m;
    m.symbol_name = std::string(d.name);
    m.name = std::string(d.human_name);
    m.units = std::string(d.units);
    m.type = metrics::data_type::float64;
    m.semantic =
        d.units == "percent" ? metrics::semantic_type::ratio : metrics::semantic_type::event;
    m.equation = std::string(d.equation);
    set.metrics.push_back(std::move(m));
  }
  return set;
}

class evaluator {
 public:
  // Arm's derived counters of `table` (database_metric_set) over its own
  // Streamline names.
  static result<evaluator> database(const gpu_table& table, const sample_layout& layout,
                                    std::uint32_t bus_width_bits) {
    return create(table, database_metric_set(table), table.streamline, layout, bus_width_bits);
  }

  static result<evaluator> create(const gpu_table& table, const metrics::metric_set& set,
                                  std::span<const streamline_counter> names,
                                  const sample_layout& layout, std::uint32_t bus_width_bits) {
    if (auto ok = layout.validate(); !ok) return ok.error_value();
    if (bus_width_bits == 0 || bus_width_bits % 8 != 0) {
      return error{errc::out_of_range, 0,
                   "external bus width of " + std::to_string(bus_width_bits) +
                       " bits is not a positive multiple of 8",
                   error_anchor::none};
    }
    for (const streamline_counter& c : names) {
      const std::string_view here = table.name_of(c.id.block, c.id.index);
      if (here != c.hw_name) {
        return error{errc::inconsistent, 0,
                     "'" + std::string(c.name) + "' reads " + std::string(c.hw_name) + " at " +
                         std::string(to_string(c.id.block)) + " " + std::to_string(c.id.index) +
                         ", which on " + std::string(table.key) + " is " +
                         (here.empty() ? std::string("unused") : std::string(here)),
                     error_anchor::none};
      }
    }
    auto compiled = metrics::compile(set, mali_compile_options(names));
    if (!compiled) return compiled.error_value();
    auto bound = compiled->bind(mali_device_values(layout, bus_width_bits));
    if (!bound) return bound.error_value();
    std::vector<counter_id> ids;
    for (const expr::input_desc& in : bound->inputs()) {
      const streamline_counter* found = nullptr;
      for (const streamline_counter& c : names) {
        if (c.name == in.name) found = &c;
      }
      if (!found) {
        return error{errc::unknown_name, 0, "input '" + in.name + "' is not a Streamline counter",
                     error_anchor::none};
      }
      ids.push_back(found->id);
    }
    return evaluator(table, layout, std::move(*bound), std::move(ids));
  }

  // The evaluator keeps a pointer to the table: a temporary would dangle.
  static result<evaluator> database(gpu_table&&, const sample_layout&, std::uint32_t) = delete;
  static result<evaluator> create(gpu_table&&, const metrics::metric_set&,
                                  std::span<const streamline_counter>, const sample_layout&,
                                  std::uint32_t) = delete;

  const gpu_table& table() const noexcept { return *table_; }
  const sample_layout& layout() const noexcept { return layout_; }
  const metrics::bound_set& metrics() const noexcept { return set_; }
  std::size_t size() const noexcept { return set_.size(); }
  // The hardware counter behind raw input k of metrics().
  counter_id input_counter(std::size_t k) const { return inputs_[k]; }

  // Inputs, in metrics().inputs() order, from summed counters as the readers
  // give them (sample::sums, kinstr_sample::sums): each scaled by its
  // counter's shift (scale_counter), as Arm's sampler reports it.
  void inputs(const block_sums& sums, std::span<std::uint64_t> raw) const {
    for (std::size_t k = 0; k < inputs_.size() && k < raw.size(); ++k) {
      raw[k] = scale_counter(sums[inputs_[k]], table_->shift_of(inputs_[k]));
    }
  }
  // The same from sums already scaled (scaled_sums, or totals of scaled
  // counter columns): no shift applied again.
  void scaled_inputs(const block_sums& scaled, std::span<std::uint64_t> raw) const {
    for (std::size_t k = 0; k < inputs_.size() && k < raw.size(); ++k) raw[k] = scaled[inputs_[k]];
  }

  // out[i]: metric i over summed counters (from either reader; scaled here).
  result<void> evaluate(const block_sums& sums, std::span<expr::value> out) const {
    std::vector<std::uint64_t> raw(inputs_.size());
    inputs(sums, raw);
    return set_.evaluate(raw, out);
  }
  // The same over one vinstr sample, which must have this evaluator's layout
  // (the constants were bound from it).
  result<void> evaluate(const sample& s, std::span<expr::value> out) const {
    if (s.layout().l2_slices != layout_.l2_slices || s.layout().core_mask != layout_.core_mask) {
      return error{errc::inconsistent, 0,
                   "sample layout differs from the layout the evaluator was bound to",
                   error_anchor::none};
    }
    return evaluate(s.sums(), out);
  }

 protected:
  evaluator(const gpu_table& t, const sample_layout& layout, metrics::bound_set set,
            std::vector<counter_id> ids)
      : table_(&t), layout_(layout), set_(std::move(set)), inputs_(std::move(ids)) {}

 private:
  const gpu_table* table_;
  sample_layout layout_;
  metrics::bound_set set_;
  std::vector<counter_id> inputs_;
};

}  // namespace hwpc::mali
