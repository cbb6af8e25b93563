// A compiled set (compiled_set) and a set bound to one device (bound_set):
// binding, evaluation over raw counter deltas, and the metrics worth
// evaluating on that device. compile.hpp makes a compiled_set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/arithmetic.hpp"
#include "hwpc/expr/batch.hpp"
#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/compile.hpp"
#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/eval.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/passes.hpp"
#include "hwpc/expr/symbols.hpp"
#include "hwpc/metrics/mdapi_differences.hpp"
#include "hwpc/metrics/set_definition.hpp"

namespace hwpc::metrics {

struct compile_options {
  // Names (without '$') that resolve to device variables (u64).
  std::vector<std::string> device_variables = intel_device_variables();
  // Whether GtSlice<s>[XeCore<x>|DualSubslice<x>] resolve to device variables.
  bool intel_topology_variables = true;
  // Whether raw counter names (A0, GPU_TIME, ...) resolve to counter inputs.
  bool raw_counters = true;
  // Other names that resolve to counter inputs (e.g. Arm Streamline counters
  // such as MaliGPUCyclesGPUActive).
  std::vector<std::string> counter_names;
  // Longest chain of metrics referring to metrics.
  std::size_t max_reference_depth = 64;
  // A name that resolves to nothing is an error of the metrics that use it
  // (directly or through a metric they refer to): they are left out and
  // listed in compiled_set::dropped(), and the rest of the set compiles.
  // When false, such a name fails the whole set.
  bool drop_metrics_with_unknown_names = true;
  // Which device variables have a value on the device the set will be bound
  // to (empty: all of them). A metric whose formula reads a device variable
  // without one (GpuMinFrequency of a raw file, GeometryPipeTotalCount of an
  // Xe stream) is dropped like one naming something unknown, with that column;
  // the rest of the set compiles. A max_equation reading one leaves its
  // metric without a maximum. options_for() in compile.hpp sets this.
  std::function<bool(std::string_view)> has_value;
  // How integer products and quotients used as doubles are computed
  // (expr/arithmetic.hpp): as Intel's metrics-discovery does (the default),
  // or truncated as the formulas read literally, as IGT does.
  expr::arithmetic arithmetic = expr::arithmetic::mdapi;
  // Under arithmetic::mdapi, a set of a metric file whose chipset and set
  // metrics-discovery also defines (HSW, SKL GT2, TGL GT2, LNL, BMG, PTL) is
  // compiled from MDAPI's own definitions (metrics/mdapi.hpp), where they
  // compute what the file does (`mdapi`, the default) or everywhere
  // (`newer`); `file` keeps the file's formulas.
  mdapi::definitions definitions = mdapi::definitions::mdapi;
};

// A metric left out of a compiled set, and why (an errc::unknown_name error
// with the formula's column).
struct dropped_metric {
  std::string symbol_name;
  error reason;
};

// "metric X dropped: unknown name at column 10: ..." for a person to read.
// Names and formulas come from the file, so control bytes (other than the
// snippet's line break) are shown as \xNN.
inline std::string describe(const dropped_metric& d) {
  auto shown = [](std::string_view t, bool keep_newlines) {
    constexpr char hex[] = "0123456789abcdef";
    std::string o;
    for (const char c : t) {
      const auto ch = static_cast<unsigned char>(c);
      if ((ch < 0x20 && !(keep_newlines && ch == '\n')) || ch == 0x7f) {
        o += {'\\', 'x', hex[ch >> 4], hex[ch & 15]};
      } else {
        o += c;
      }
    }
    return o;
  };
  return "metric " + shown(d.symbol_name, false) + " dropped: " + shown(d.reason.describe(), true);
}

using device_values = std::map<std::string, expr::value, std::less<>>;

class bound_set;
namespace detail {
class set_compiler;
}

// Which program output holds each formula of each metric.
struct metric_outputs {
  std::uint32_t equation = 0;
  std::optional<std::uint32_t> max_equation;
  std::optional<std::uint32_t> availability;
};

class compiled_set {
 public:
  const metric_set& definition() const noexcept { return *set_; }
  // All formulas as one program; outputs indexed by outputs_of().
  const expr::program& ir() const noexcept { return prog_; }
  const metric_outputs& outputs_of(std::size_t metric) const { return outputs_[metric]; }
  std::optional<std::uint32_t> register_config_output(std::size_t i) const {
    return register_outputs_[i];
  }
  std::size_t size() const noexcept { return set_->metrics.size(); }
  std::size_t formula_count() const noexcept { return prog_.outputs.size(); }

  // Device variables the set reads (each needs a value in bind()).
  std::vector<std::string> variables() const { return names_of(expr::input_kind::variable); }
  // Raw counters the set reads.
  std::vector<std::string> counters() const { return names_of(expr::input_kind::counter); }

  inline result<bound_set> bind(const device_values& values) const;

  // Metrics of the set as given that are not in definition(), with the
  // reason (compile_options::drop_metrics_with_unknown_names).
  const std::vector<dropped_metric>& dropped() const noexcept { return dropped_; }

 private:
  friend result<compiled_set> compile(const metric_set&, const compile_options&);
  friend class detail::set_compiler;
  std::vector<std::string> names_of(expr::input_kind k) const {
    std::vector<std::string> out;
    for (const auto& in : prog_.inputs) {
      if (in.kind == k) out.push_back(in.name);
    }
    return out;
  }

  std::shared_ptr<const metric_set> set_;
  expr::program prog_;
  std::vector<metric_outputs> outputs_;
  std::vector<std::optional<std::uint32_t>> register_outputs_;
  std::vector<dropped_metric> dropped_;
};

class bound_set {
 public:
  const metric_set& definition() const noexcept { return *set_; }
  std::size_t size() const noexcept { return equations_.outputs.size(); }
  const metric& operator[](std::size_t i) const { return set_->metrics[i]; }

  // Raw counter inputs, in evaluation order.
  const std::vector<expr::input_desc>& inputs() const noexcept { return equations_.inputs; }
  std::optional<std::size_t> input_index(std::string_view name) const {
    for (std::size_t i = 0; i < equations_.inputs.size(); ++i) {
      if (equations_.inputs[i].name == name) return i;
    }
    return std::nullopt;
  }
  std::optional<std::size_t> find(std::string_view symbol_name) const {
    for (std::size_t i = 0; i < set_->metrics.size(); ++i) {
      if (set_->metrics[i].symbol_name == symbol_name) return i;
    }
    return std::nullopt;
  }

  // Type of metric i's equation result.
  expr::vtype type(std::size_t i) const { return equations_.output_type(i); }
  // Availability, decided at bind time from the device variables. A condition
  // that still depends on counters after binding cannot be decided before
  // sampling; such a metric counts as available.
  bool available(std::size_t i) const { return available_[i]; }
  // The max_equation's value when it is a constant after binding.
  std::optional<expr::value> max_value(std::size_t i) const { return max_[i]; }
  bool has_max(std::size_t i) const { return max_output_[i].has_value(); }

  // max_equation of every metric that has one, for one interval (some read
  // counters, e.g. "$GpuCoreClocks 64 UMUL"); out[i] stays empty for the rest.
  result<void> evaluate_max(std::span<const std::uint64_t> raw,
                            std::span<std::optional<expr::value>> out) const {
    if (out.size() < size()) {
      return error{errc::inconsistent, 0, "too few outputs for this metric set",
                   error_anchor::none};
    }
    std::vector<expr::slot> in(maxima_.inputs.size(), 0);
    for (std::size_t k = 0; k < maxima_.inputs.size(); ++k) {
      const auto idx = input_index(maxima_.inputs[k].name);
      if (!idx || *idx >= raw.size()) {
        return error{errc::inconsistent, 0, "raw input '" + maxima_.inputs[k].name + "' missing",
                     error_anchor::none};
      }
      in[k] = raw[*idx];
    }
    std::vector<expr::slot> slots(maxima_.nodes.size());
    expr::run(maxima_.nodes, in, slots);
    for (std::size_t i = 0; i < size(); ++i) {
      out[i].reset();
      if (const auto o = max_output_[i]) {
        out[i] = expr::value{maxima_.output_type(*o), slots[maxima_.outputs[*o]]};
      }
    }
    return {};
  }
  // Register configurations whose availability holds (or cannot be decided).
  bool register_config_applies(std::size_t i) const { return register_applies_[i]; }

  // Equations of every metric for one interval: raw[k] is input k's delta.
  result<void> evaluate(std::span<const std::uint64_t> raw, std::span<expr::value> out) const {
    if (raw.size() < inputs().size() || out.size() < size()) {
      return error{errc::inconsistent, 0, "too few raw inputs or outputs for this metric set",
                   error_anchor::none};
    }
    std::vector<expr::slot> slots(equations_.nodes.size());
    expr::run(equations_.nodes, raw, slots);
    for (std::size_t i = 0; i < size(); ++i) {
      out[i] = {equations_.output_type(i), slots[equations_.outputs[i]]};
    }
    return {};
  }

  // A batch evaluator over columns of raw deltas (see the top of this file).
  expr::batch_evaluator batch() const& { return expr::batch_evaluator(equations_); }
  // The evaluator points into this set: not from a temporary.
  expr::batch_evaluator batch() const&& = delete;

  // The program behind evaluate(), outputs in metric order.
  const expr::program& ir() const noexcept { return equations_; }

  // Metrics left out at compile time, with the reason (compiled_set::dropped).
  const std::vector<dropped_metric>& dropped() const noexcept { return dropped_; }

 private:
  friend class compiled_set;
  std::shared_ptr<const metric_set> set_;  // shared with the compiled_set
  expr::program equations_;
  expr::program maxima_;  // outputs: the max_equations, in metric order
  std::vector<std::optional<std::uint32_t>> max_output_;
  std::vector<bool> available_;
  std::vector<std::optional<expr::value>> max_;
  std::vector<bool> register_applies_;
  std::vector<dropped_metric> dropped_;
};

namespace detail {

inline bool truthy(expr::value v) { return v.is_u64() ? v.bits != 0 : v.as_double() != 0.0; }

}  // namespace detail

inline result<bound_set> compiled_set::bind(const device_values& values) const {
  std::vector<std::optional<expr::value>> per_input(prog_.inputs.size());
  for (std::size_t i = 0; i < prog_.inputs.size(); ++i) {
    const expr::input_desc& in = prog_.inputs[i];
    if (in.kind != expr::input_kind::variable) continue;
    if (auto it = values.find(in.name); it != values.end()) per_input[i] = it->second;
  }
  const expr::program all = expr::bind_variables(prog_, per_input);
  // Every metric formula needs all its variables. A register_config
  // condition that still reads one cannot be decided and counts as applying,
  // like one that reads counters.
  {
    expr::program metric_formulas = all;
    metric_formulas.outputs.clear();
    for (const auto& o : outputs_) {
      for (const auto f :
           {std::optional<std::uint32_t>(o.equation), o.max_equation, o.availability}) {
        if (f) metric_formulas.outputs.push_back(all.outputs[*f]);
      }
    }
    for (const auto& in : expr::compact(metric_formulas, false).inputs) {
      if (in.kind != expr::input_kind::variable) continue;
      return error{
          errc::unknown_name, 0,
          "device variable '" + in.name + "' (read by set " + set_->symbol_name + ") has no value",
          error_anchor::none};
    }
  }
  bound_set b;
  b.set_ = set_;
  b.dropped_ = dropped_;
  expr::program eq = all;
  eq.outputs.clear();
  for (const auto& o : outputs_) eq.outputs.push_back(all.outputs[o.equation]);
  b.equations_ = expr::compact(eq, false);
  expr::program mx = all;
  mx.outputs.clear();
  for (const auto& o : outputs_) {
    if (o.max_equation) {
      b.max_output_.emplace_back(static_cast<std::uint32_t>(mx.outputs.size()));
      mx.outputs.push_back(all.outputs[*o.max_equation]);
    } else {
      b.max_output_.emplace_back();
    }
  }
  b.maxima_ = expr::compact(mx, false);
  auto constant_of = [&](std::uint32_t output) -> std::optional<expr::value> {
    const expr::node& n = all.nodes[all.outputs[output]];
    if (n.code != expr::op::constant) return std::nullopt;
    return expr::value{n.type, n.imm};
  };
  for (const auto& o : outputs_) {
    const auto avail = o.availability ? constant_of(*o.availability) : std::nullopt;
    b.available_.push_back(!avail || detail::truthy(*avail));
    b.max_.push_back(o.max_equation ? constant_of(*o.max_equation) : std::nullopt);
  }
  for (const auto& r : register_outputs_) {
    const auto avail = r ? constant_of(*r) : std::nullopt;
    b.register_applies_.push_back(!avail || detail::truthy(*avail));
  }
  return b;
}

// The metrics of a bound set worth evaluating on this device: the available
// ones, and every unavailable one an available metric refers to (directly or
// through others), in set order. Intel's generated code computes a referenced
// metric whatever its availability (the availability only decides whether the
// metric is offered), so e.g. Cannon Lake RenderBasic SamplersBusy, available
// with slice 0's samplers, still reads Sampler10Busy when subslice 3 is fused
// off; hwpc does the same, and shows only the available ones.
inline metric_set available_with_dependencies(const bound_set& b) {
  const metric_set& set = b.definition();
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < set.metrics.size(); ++i) index.emplace(set.metrics[i].symbol_name, i);
  std::vector<bool> keep(set.metrics.size(), false);
  std::vector<std::size_t> work;
  for (std::size_t i = 0; i < set.metrics.size(); ++i) {
    if (b.available(i)) {
      keep[i] = true;
      work.push_back(i);
    }
  }
  auto is_name = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  while (!work.empty()) {
    const metric& m = set.metrics[work.back()];
    work.pop_back();
    for (const std::string* text : {&m.equation, &m.max_equation}) {
      std::string_view t = *text;
      for (std::size_t k = 0; k < t.size();) {
        if (!is_name(t[k])) {
          ++k;
          continue;
        }
        std::size_t e = k;
        while (e < t.size() && is_name(t[e])) ++e;
        if (auto it = index.find(t.substr(k, e - k)); it != index.end() && !keep[it->second]) {
          keep[it->second] = true;
          work.push_back(it->second);
        }
        k = e;
      }
    }
  }
  metric_set out = set;
  out.metrics.clear();
  for (std::size_t i = 0; i < set.metrics.size(); ++i) {
    if (keep[i]) out.metrics.push_back(set.metrics[i]);
  }
  return out;
}

}  // namespace hwpc::metrics
