// Metric columns for `hwpc decode --metrics FILE.xml --set SYMBOL`.
//
// Loads one set from an Intel metric XML file, compiles it once, binds the
// device variables, and maps the decoder's counters onto the formulas'
// inputs (A n READ -> An, GPU_TIME -> the TIME_STAMP delta, GPU_CLOCK -> the
// GPU_TICKS delta). Each row is then one scalar evaluation of the whole set.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/intel/counters.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/xml_loader.hpp"
#include "output.hpp"

namespace hwpc::cli {

class metric_columns {
 public:
  // `overrides` (from --device-var) win over what the capture tells.
  static result<metric_columns> load([[maybe_unused]] const std::string& path,
                                     [[maybe_unused]] const std::string& set_symbol,
                                     [[maybe_unused]] const intel::report_format& format,
                                     [[maybe_unused]] metrics::device_values device) {
#ifndef HWPC_HAVE_PUGIXML
    return plain(errc::io, "the metric XML loader needs pugixml: rebuild with libpugixml-dev");
#else
    auto sets = metrics::load_xml_file(path);
    if (!sets) {
      error e = sets.error_value();
      if (e.anchor != error_anchor::none) e.message = path + ": " + e.message;
      return e;
    }
    metric_columns m;
    const metrics::metric_set* set = nullptr;
    for (const auto& s : *sets) {
      if (s.symbol_name == set_symbol) set = &s;
    }
    if (set == nullptr) {
      std::string names;
      for (const auto& s : *sets) names += (names.empty() ? "" : ", ") + s.symbol_name;
      return plain(errc::unknown_name,
                   path + " has no set '" + set_symbol + "' (sets: " + names + ")");
    }
    auto bound = compile_and_bind(*set, device);
    if (!bound) return bound.error_value();
    // Metrics whose availability fails on this device (e.g. query-mode-only
    // ones reading PERFCNT registers, which OA reports do not carry) are
    // dropped, and the rest compiled again, so that only the counters the
    // shown metrics read must be in the capture.
    metrics::metric_set available = *set;
    available.metrics.clear();
    for (std::size_t i = 0; i < bound->size(); ++i) {
      if (bound->available(i)) available.metrics.push_back(set->metrics[i]);
    }
    if (available.metrics.size() != set->metrics.size()) {
      auto again = compile_and_bind(available, device);
      if (!again) return again.error_value();
      bound = std::move(again);
    }
    m.bound_.emplace(std::move(*bound));
    // Inputs: counter deltas by name, the timestamp delta, the GPU_TICKS delta.
    const intel::counter_list counters(format);
    const std::size_t gpu_ticks = counters.index_of("GPU_TICKS");
    for (const auto& in : m.bound_->inputs()) {
      if (in.name == "GPU_TIME") {
        m.sources_.push_back(elapsed);
      } else if (in.name == "GPU_CLOCK") {
        if (gpu_ticks == counters.size()) return missing(in.name, format, "GPU_TICKS");
        m.sources_.push_back(gpu_ticks);
      } else {
        const std::size_t c = counters.index_of(in.name);
        if (c == counters.size()) return missing(in.name, format, in.name);
        m.sources_.push_back(c);
      }
    }
    for (std::size_t i = 0; i < m.bound_->size(); ++i) m.shown_.push_back(i);
    m.raw_.resize(m.sources_.size());
    m.values_.resize(m.bound_->size());
    return m;
#endif
  }

  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (std::size_t i : shown_) n.push_back((*bound_)[i].symbol_name);
    return n;
  }
  std::size_t size() const noexcept { return shown_.size(); }

  // Evaluates the set over one interval (or over totals).
  void evaluate(std::span<const std::uint64_t> deltas, std::uint64_t elapsed_ticks) {
    for (std::size_t k = 0; k < sources_.size(); ++k) {
      raw_[k] = sources_[k] == elapsed ? elapsed_ticks : deltas[sources_[k]];
    }
    ok_ = static_cast<bool>(bound_->evaluate(raw_, values_));
  }
  // Writes shown metric j of the last evaluation: integers as integers,
  // doubles in the shortest form that reads back exactly.
  // In JSON (`json`), a failed evaluation or a non-finite double is null.
  void write(out_buffer& out, std::size_t j, bool json = false) const {
    if (!ok_) {
      if (json) out << "null";
      return;
    }
    const expr::value v = values_[shown_[j]];
    if (v.is_u64()) {
      out << v.bits;
      return;
    }
    if (json && !std::isfinite(v.as_double())) {
      out << "null";
      return;
    }
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v.as_double());
    out << std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
  }
  double as_double(std::size_t j) const { return ok_ ? values_[shown_[j]].as_double() : 0.0; }

 private:
  static constexpr std::size_t elapsed = ~std::size_t{0};
  // An error about the set or the device, not about a place in the input.
  static error plain(errc code, std::string message) {
    return error{code, 0, std::move(message), error_anchor::none};
  }
  static result<metrics::bound_set> compile_and_bind(const metrics::metric_set& set,
                                                     const metrics::device_values& device) {
    auto compiled = metrics::compile(set);  // the compiled set keeps its own copy
    if (!compiled) return compiled.error_value();
    auto bound = compiled->bind(device);
    if (!bound) {
      error e = bound.error_value();
      e.message += " (give it with --device-var NAME=VALUE)";
      return e;
    }
    return bound;
  }
  static error missing(const std::string& input, const intel::report_format& f,
                       const std::string& needs) {
    return plain(errc::unknown_name, "the metric set reads " + input + ", but " +
                                         std::string(f.name) + " reports have no " + needs +
                                         " counter (does the set's oa_format match the capture?)");
  }
  std::optional<metrics::bound_set> bound_;
  std::vector<std::size_t> sources_;  // per input: counter index, or `elapsed`
  std::vector<std::size_t> shown_;    // available metrics, in set order
  std::vector<std::uint64_t> raw_;
  std::vector<expr::value> values_;
  bool ok_ = false;
};

// "NAME=VALUE" with VALUE a decimal or 0x-hex integer, or a decimal number.
inline std::optional<std::pair<std::string, expr::value>> parse_device_var(const std::string& s) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return std::nullopt;
  std::string name = s.substr(0, eq);
  if (name[0] == '$') name.erase(0, 1);
  const std::string v = s.substr(eq + 1);
  std::uint64_t u = 0;
  const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  auto r = std::from_chars(v.data() + (hex ? 2 : 0), v.data() + v.size(), u, hex ? 16 : 10);
  if (r.ec == std::errc{} && r.ptr == v.data() + v.size())
    return std::pair{name, expr::value::u(u)};
  double d = 0;
  auto rd = std::from_chars(v.data(), v.data() + v.size(), d);
  if (rd.ec == std::errc{} && rd.ptr == v.data() + v.size())
    return std::pair{name, expr::value::f(d)};
  return std::nullopt;
}

}  // namespace hwpc::cli
