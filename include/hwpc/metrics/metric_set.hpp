// Metric sets: many formulas compiled together, bound to one device, evaluated
// over raw counter deltas.
//
// The workflow, from a set definition to numbers:
//
//   // 1. A set: from the Intel XML (metrics/xml_loader.hpp) or built by hand.
//   const hwpc::metrics::metric_set& set = ...;
//
//   // 2. Compile once. Every equation, max_equation and availability formula
//   //    goes into one IR: references between metrics are resolved in
//   //    dependency order (cycles are errors naming the cycle), shared
//   //    subexpressions become one node, constants fold.
//   auto compiled = hwpc::metrics::compile(set);
//   if (!compiled) fail(compiled.error_value().describe());  // column + caret
//
//   // 3. Bind the device variables of the GPU the capture came from. Whatever
//   //    depended only on them folds to constants; availability is decided here.
//   hwpc::metrics::device_values dev{{"GpuTimestampFrequency", 12'000'000},
//                                    {"EuCoresTotalCount", 24}, {"SliceMask", 1}, ...};
//   auto bound = compiled->bind(dev);        // error names a variable with no value
//
//   // 4. Evaluate. The inputs are raw counter deltas of one interval, named as
//   //    the formulas read them:  A0..A35 ("A n READ", the A-counter delta n),
//   //    B0..B7, C0..C7, PERFCNT0.., GPU_TIME ("GPU_TIME 0 READ": the timestamp
//   //    delta, in timestamp ticks) and GPU_CLOCK ("GPU_CLOCK 0 READ": the
//   //    GPU_TICKS delta). bound->inputs() lists the ones this set reads, in the
//   //    order the evaluators take them; bound->input_index("A7") finds one.
//   //    Scalar, one interval:
//   std::vector<std::uint64_t> raw(bound->inputs().size());   // fill by input_index
//   std::vector<hwpc::expr::value> out(bound->size());
//   bound->evaluate(raw, out);              // out[i]: metric i's equation
//   //    Batch, N intervals as columns (SoA), bit-identical to scalar:
//   std::vector<const std::uint64_t*> in_cols(bound->inputs().size());  // each N long
//   std::vector<std::uint64_t*> out_cols(bound->size());                // each N long
//   auto ev = bound->batch();               // reusable; owns scratch columns
//   ev.evaluate(in_cols, N, out_cols);      // column i holds bound->type(i) slots
//
// Output columns hold 64-bit slots: u64 values as themselves, doubles as their
// bits (expr/value.hpp; expr::as_f64 converts). bound->type(i) says which.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
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
#include "hwpc/expr/batch.hpp"
#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/compile.hpp"
#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/eval.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/passes.hpp"
#include "hwpc/expr/symbols.hpp"

namespace hwpc::metrics {

// The data_type attribute: how a metric's value is meant to be presented.
enum class data_type : std::uint8_t { uint32, uint64, float32, float64, bool32, other };
// The semantic_type attribute.
enum class semantic_type : std::uint8_t { event, duration, throughput, ratio, timestamp, other };

constexpr data_type parse_data_type(std::string_view s) noexcept {
  if (s == "uint32") return data_type::uint32;
  if (s == "uint64") return data_type::uint64;
  if (s == "float") return data_type::float32;
  if (s == "double") return data_type::float64;
  if (s == "bool32") return data_type::bool32;
  return data_type::other;
}
constexpr semantic_type parse_semantic_type(std::string_view s) noexcept {
  if (s == "event") return semantic_type::event;
  if (s == "duration") return semantic_type::duration;
  if (s == "throughput") return semantic_type::throughput;
  if (s == "ratio") return semantic_type::ratio;
  if (s == "timestamp") return semantic_type::timestamp;
  return semantic_type::other;
}

struct metric {
  std::string symbol_name;  // the name other formulas use: $GpuTime
  std::string name;         // human-readable
  std::string description;
  std::string units;
  data_type type = data_type::uint64;
  semantic_type semantic = semantic_type::event;
  std::string equation;
  std::string max_equation;  // empty: none
  std::string availability;  // empty: always available
};

// Register programming that applies only when its availability formula holds.
struct register_config {
  std::string type;  // OA, NOA, FLEX
  std::string availability;
};

struct metric_set {
  std::string symbol_name;  // RenderBasic
  std::string name;
  std::string chipset;
  std::string oa_format;  // when the file names one
  std::string hw_config_guid;
  expr::syntax syntax = expr::syntax::rpn;
  std::vector<metric> metrics;
  std::vector<register_config> register_configs;  // only those with an availability
};

// The device variables the Intel metric files use.
inline const std::vector<std::string>& intel_device_variables() {
  static const std::vector<std::string> names = {
      "EuCoresTotalCount",  "EuSubslicesTotalCount", "EuDualSubslicesTotalCount",
      "EuSlicesTotalCount", "EuThreadsCount",        "SliceMask",
      "SubsliceMask",       "DualSubsliceMask",      "GpuTimestampFrequency",
      "GpuMinFrequency",    "GpuMaxFrequency",       "SkuRevisionId",
      "QueryMode",
  };
  return names;
}

struct compile_options {
  // Names (without '$') that resolve to device variables (u64).
  std::vector<std::string> device_variables = intel_device_variables();
  // Whether raw counter names (A0, GPU_TIME, ...) resolve to counter inputs.
  bool raw_counters = true;
  // Other names that resolve to counter inputs (e.g. Arm Streamline counters
  // such as MaliGPUCyclesGPUActive).
  std::vector<std::string> counter_names;
  // Longest chain of metrics referring to metrics.
  std::size_t max_reference_depth = 64;
};

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
  expr::batch_evaluator batch() const { return expr::batch_evaluator(equations_); }

  // The program behind evaluate(), outputs in metric order.
  const expr::program& ir() const noexcept { return equations_; }

 private:
  friend class compiled_set;
  std::shared_ptr<const metric_set> set_;  // shared with the compiled_set
  expr::program equations_;
  expr::program maxima_;  // outputs: the max_equations, in metric order
  std::vector<std::optional<std::uint32_t>> max_output_;
  std::vector<bool> available_;
  std::vector<std::optional<expr::value>> max_;
  std::vector<bool> register_applies_;
};

namespace detail {

inline bool truthy(expr::value v) { return v.is_u64() ? v.bits != 0 : v.as_double() != 0.0; }

// Compiles a set's formulas into one builder; see compile().
class set_compiler {
 public:
  set_compiler(const metric_set& set, const compile_options& opt) : set_(set), opt_(opt) {
    for (std::size_t i = 0; i < set.metrics.size(); ++i) {
      by_symbol_.emplace(set.metrics[i].symbol_name, i);
    }
    state_.assign(set.metrics.size(), pending);
    root_.assign(set.metrics.size(), 0);
  }

  result<compiled_set> run(compiled_set out) {
    expr::program& p = prog_;
    for (std::size_t i = 0; i < set_.metrics.size(); ++i) {
      if (state_[i] == pending && !compile_metric(i)) return *error_;
    }
    std::vector<metric_outputs> outs(set_.metrics.size());
    for (std::size_t i = 0; i < set_.metrics.size(); ++i) {
      outs[i].equation = add_output(root_[i]);
    }
    for (std::size_t i = 0; i < set_.metrics.size(); ++i) {
      const metric& m = set_.metrics[i];
      if (!m.max_equation.empty()) {
        auto r = formula(m.max_equation, context(m, "max_equation"));
        if (!r) return *error_;
        outs[i].max_equation = add_output(*r);
      }
      if (!m.availability.empty()) {
        auto r = formula(m.availability, context(m, "availability"));
        if (!r) return *error_;
        outs[i].availability = add_output(*r);
      }
    }
    std::vector<std::optional<std::uint32_t>> regs;
    for (std::size_t i = 0; i < set_.register_configs.size(); ++i) {
      const std::string& text = set_.register_configs[i].availability;
      if (text.empty()) {
        regs.emplace_back();
        continue;
      }
      auto r = formula(text, "set " + set_.symbol_name + ", register_config " + std::to_string(i) +
                                 " availability");
      if (!r) return *error_;
      regs.emplace_back(add_output(*r));
    }
    p.nodes = std::move(b_).take();
    out.prog_ = expr::compact(p, false);
    out.outputs_ = std::move(outs);
    out.register_outputs_ = std::move(regs);
    return out;
  }

 private:
  enum state_t : std::uint8_t { pending, compiling, done };

  std::uint32_t add_output(std::uint32_t node) {
    prog_.outputs.push_back(node);
    return static_cast<std::uint32_t>(prog_.outputs.size() - 1);
  }

  std::string context(const metric& m, std::string_view what) const {
    return "set " + set_.symbol_name + ", metric " + m.symbol_name + ", " + std::string(what);
  }

  std::optional<std::uint32_t> formula(const std::string& text, const std::string& where) {
    auto resolve = [this](std::string_view name) { return this->resolve(name); };
    const expr::parse_result r = expr::parse(text, set_.syntax, b_, resolve);
    if (!r.status) {
      // An error inside a referenced metric was recorded where it happened.
      if (!error_) error_ = expr::to_error(text, r.status.error, where);
      return std::nullopt;
    }
    return r.root;
  }

  bool compile_metric(std::size_t i) {
    const metric& m = set_.metrics[i];
    state_[i] = compiling;
    chain_.push_back(i);
    const auto r = formula(m.equation, context(m, "equation"));
    chain_.pop_back();
    if (!r) return false;
    root_[i] = *r;
    state_[i] = done;
    return true;
  }

  std::uint32_t input(std::string_view name, expr::input_kind kind) {
    auto it = input_index_.find(std::string(name));
    if (it != input_index_.end()) return b_.input(it->second, expr::vtype::u64);
    prog_.inputs.push_back({std::string(name), expr::vtype::u64, kind});
    const auto idx = static_cast<std::uint32_t>(prog_.inputs.size() - 1);
    input_index_.emplace(std::string(name), idx);
    return b_.input(idx, expr::vtype::u64);
  }

  expr::resolved resolve(std::string_view name) {
    if (auto it = by_symbol_.find(std::string(name)); it != by_symbol_.end()) {
      const std::size_t j = it->second;
      if (state_[j] == done) return expr::resolved::at(root_[j]);
      if (state_[j] == compiling) {
        // chain_ holds the metrics being compiled, outermost first.
        std::string cycle = "dependency cycle: ";
        std::size_t from = 0;
        while (chain_[from] != j) ++from;
        for (std::size_t k = from; k < chain_.size(); ++k) {
          cycle += set_.metrics[chain_[k]].symbol_name + " -> ";
        }
        cycle += set_.metrics[j].symbol_name;
        messages_.push_back(std::move(cycle));
        return {expr::resolved::failed, 0, errc::inconsistent, messages_.back()};
      }
      if (chain_.size() >= opt_.max_reference_depth) {
        return {expr::resolved::failed, 0, errc::oversized,
                "metrics refer to each other too deeply"};
      }
      if (!compile_metric(j)) {
        return {expr::resolved::failed, 0, errc::inconsistent,
                "referenced metric does not compile"};
      }
      return expr::resolved::at(root_[j]);
    }
    for (const auto& v : opt_.device_variables) {
      if (v == name) return expr::resolved::at(input(name, expr::input_kind::variable));
    }
    if (opt_.raw_counters && expr::is_raw_counter_name(name)) {
      return expr::resolved::at(input(name, expr::input_kind::counter));
    }
    for (const auto& c : opt_.counter_names) {
      if (c == name) return expr::resolved::at(input(name, expr::input_kind::counter));
    }
    return {};
  }

  const metric_set& set_;
  const compile_options& opt_;
  expr::builder b_;
  expr::program prog_;
  std::unordered_map<std::string, std::size_t> by_symbol_;
  std::unordered_map<std::string, std::uint32_t> input_index_;
  std::vector<state_t> state_;
  std::vector<std::uint32_t> root_;
  std::vector<std::size_t> chain_;
  std::deque<std::string> messages_;  // owns cycle descriptions the parser quotes
  std::optional<error> error_;
};

}  // namespace detail

inline result<compiled_set> compile(const metric_set& set, const compile_options& opt = {}) {
  compiled_set out;
  out.set_ = std::make_shared<const metric_set>(set);
  detail::set_compiler c(*out.set_, opt);
  return c.run(std::move(out));
}

inline result<bound_set> compiled_set::bind(const device_values& values) const {
  std::vector<std::optional<expr::value>> per_input(prog_.inputs.size());
  for (std::size_t i = 0; i < prog_.inputs.size(); ++i) {
    const expr::input_desc& in = prog_.inputs[i];
    if (in.kind != expr::input_kind::variable) continue;
    auto it = values.find(in.name);
    if (it == values.end()) {
      return error{
          errc::unknown_name, 0,
          "device variable '" + in.name + "' (read by set " + set_->symbol_name + ") has no value",
          error_anchor::none};
    }
    per_input[i] = it->second;
  }
  const expr::program all = expr::bind_variables(prog_, per_input);
  bound_set b;
  b.set_ = set_;
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

}  // namespace hwpc::metrics
