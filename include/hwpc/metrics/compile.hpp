// Compiling a metric set: every formula of every metric into one program,
// metrics that name something unknown dropped with a reason (compile()).
#pragma once

#include <algorithm>
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
#include "hwpc/expr/arithmetic.hpp"
#include "hwpc/expr/batch.hpp"
#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/compile.hpp"
#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/eval.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/passes.hpp"
#include "hwpc/expr/symbols.hpp"
#include "hwpc/metrics/bound_set.hpp"
#include "hwpc/metrics/mdapi.hpp"
#include "hwpc/metrics/set_definition.hpp"

namespace hwpc::metrics {

namespace detail {

// Compiles a set's formulas into one builder; see compile().
class set_compiler {
 public:
  set_compiler(const metric_set& set, const compile_options& opt,
               const std::vector<dropped_metric>& dropped)
      : set_(set), opt_(opt), dropped_(dropped) {
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
        unvalued_ = false;
        auto r = formula(m.max_equation, context(m, "max_equation"), i);
        if (!r && unvalued_) {
          // A maximum this device cannot give ($GpuMaxFrequency of a raw
          // file) leaves the metric without one; the metric itself stays.
          error_.reset();
          failed_.reset();
        } else if (!r) {
          return *error_;
        } else {
          outs[i].max_equation = add_output(*r);
        }
      }
      if (!m.availability.empty()) {
        auto r = formula(m.availability, context(m, "availability"), i);
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
    std::vector<std::uint32_t> literal;  // outputs of metrics MDAPI's definitions replaced
    for (std::size_t i = 0; i < set_.metrics.size(); ++i) {
      if (set_.metrics[i].literal_arithmetic) literal.push_back(outs[i].equation);
    }
    out.prog_ =
        expr::compact(expr::with_arithmetic(p, opt_.arithmetic, referenced_, literal), false);
    out.outputs_ = std::move(outs);
    out.register_outputs_ = std::move(regs);
    return out;
  }

  // The metric whose formula the error was found in (none: a register_config).
  std::optional<std::size_t> failed_metric() const noexcept { return failed_; }

 private:
  enum state_t : std::uint8_t { pending, compiling, done };

  std::uint32_t add_output(std::uint32_t node) {
    prog_.outputs.push_back(node);
    return static_cast<std::uint32_t>(prog_.outputs.size() - 1);
  }

  std::string context(const metric& m, std::string_view what) const {
    return "set " + set_.symbol_name + ", metric " + m.symbol_name + ", " + std::string(what);
  }

  std::optional<std::uint32_t> formula(const std::string& text, const std::string& where,
                                       std::optional<std::size_t> metric = std::nullopt) {
    auto resolve = [this](std::string_view name) { return this->resolve(name); };
    // Referenced metrics compile inside this call: restore the outer state.
    const bool outer = in_metric_;
    in_metric_ = metric.has_value();
    const expr::parse_result r = expr::parse(text, set_.syntax, b_, resolve);
    in_metric_ = outer;
    if (!r.status) {
      // An error inside a referenced metric was recorded where it happened.
      if (!error_) {
        error_ = expr::to_error(text, r.status.error, where);
        failed_ = metric;
      }
      return std::nullopt;
    }
    return r.root;
  }

  bool compile_metric(std::size_t i) {
    const metric& m = set_.metrics[i];
    state_[i] = compiling;
    chain_.push_back(i);
    const auto r = formula(m.equation, context(m, "equation"), i);
    chain_.pop_back();
    if (!r) return false;
    // Intel's generated C returns a uint64 metric as uint64_t: a double
    // equation result is truncated there, and every metric that refers to
    // this one sees the truncated value. (An Intel rule: infix sets keep it.)
    const bool truncate = set_.syntax == expr::syntax::rpn && m.type == data_type::uint64;
    root_[i] = truncate ? b_.convert(*r, expr::vtype::u64) : *r;
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

  // A device variable; in a metric's formula it must have a value on the
  // device (compile_options::has_value), or the metric is dropped. Register
  // configurations are exempt: their conditions stay undecided instead.
  expr::resolved variable(std::string_view name) {
    if (in_metric_ && opt_.has_value && !opt_.has_value(name)) {
      unvalued_ = true;
      return {expr::resolved::failed, 0, errc::unknown_name,
              "a device variable with no value for this device (none in the capture)"};
    }
    return expr::resolved::at(input(name, expr::input_kind::variable));
  }

  expr::resolved resolve(std::string_view name) {
    if (auto it = by_symbol_.find(std::string(name)); it != by_symbol_.end()) {
      const std::size_t j = it->second;
      if (state_[j] == done) {
        referenced_.push_back(root_[j]);
        return expr::resolved::at(root_[j]);
      }
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
      referenced_.push_back(root_[j]);
      return expr::resolved::at(root_[j]);
    }
    for (const auto& d : dropped_) {
      if (d.symbol_name == name) {
        messages_.push_back("refers to metric " + d.symbol_name + ", which is dropped (" +
                            d.reason.message.substr(0, d.reason.message.find('\n')) + ")");
        return {expr::resolved::failed, 0, errc::unknown_name, messages_.back()};
      }
    }
    for (const auto& v : opt_.device_variables) {
      if (v == name) return variable(name);
    }
    if (opt_.intel_topology_variables && is_intel_topology_variable(name)) return variable(name);
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
  std::vector<std::uint32_t> referenced_;  // roots of metrics a formula refers to
  std::deque<std::string> messages_;       // owns cycle descriptions the parser quotes
  std::optional<error> error_;
  std::optional<std::size_t> failed_;
  bool in_metric_ = false;  // compiling a metric's formula (not a register_config's)
  bool unvalued_ = false;   // a device variable without a value was read
  const std::vector<dropped_metric>& dropped_;
};

}  // namespace detail

// Options for compiling a set that will be bound to `device`: every name it
// gives a value is a device variable (a --device-var may name anything), and
// a metric reading a device variable it gives no value is dropped, with the
// column of that name, instead of failing the whole set at bind().
inline compile_options options_for(const device_values& device, compile_options opt = {}) {
  for (const auto& [name, v] : device) {
    if (std::find(opt.device_variables.begin(), opt.device_variables.end(), name) ==
        opt.device_variables.end()) {
      opt.device_variables.push_back(name);
    }
  }
  // The names are copied: the options may outlive `device`.
  auto names = std::make_shared<std::vector<std::string>>();
  for (const auto& [name, v] : device) names->push_back(name);
  opt.has_value = [names](std::string_view n) {
    return std::binary_search(names->begin(), names->end(), n);
  };
  return opt;
}

// Compiles a set. A metric whose formula names something unknown is left out
// and the set compiled again without it (each round drops one metric, so at
// most as many rounds as metrics); metrics referring to it are then dropped
// in turn, each with its own column.
inline result<compiled_set> compile(const metric_set& set, const compile_options& opt = {}) {
  auto current = std::make_shared<metric_set>(opt.arithmetic == expr::arithmetic::mdapi
                                                  ? mdapi::with_definitions(set, opt.definitions)
                                                  : set);
  std::vector<dropped_metric> dropped;
  while (true) {
    compiled_set out;
    out.set_ = current;
    detail::set_compiler c(*current, opt, dropped);
    auto r = c.run(std::move(out));
    if (r) {
      r->dropped_ = std::move(dropped);
      return r;
    }
    const auto failed = c.failed_metric();
    if (!opt.drop_metrics_with_unknown_names || r.error_value().code != errc::unknown_name ||
        !failed) {
      return r;
    }
    auto next = std::make_shared<metric_set>(*current);
    dropped.push_back({next->metrics[*failed].symbol_name, r.error_value()});
    next->metrics.erase(next->metrics.begin() + static_cast<std::ptrdiff_t>(*failed));
    current = std::move(next);
  }
}

}  // namespace hwpc::metrics
