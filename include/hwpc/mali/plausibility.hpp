// Physics checks on decoded Mali samples: bounds every capture of the GPU it
// was read as must keep, so that a capture read as the wrong GPU is found out.
// Samples do not say which GPU took them, and two GPUs with blocks of the same
// size decode each other's bytes without a structural error (a G710
// kinstr_prfcnt buffer read as a G72's puts GPU_ITER_ACTIVE where the G72 has
// GPU_ACTIVE); under the wrong GPU's names the values break bounds that hold
// on real hardware.
//
//   hwpc::mali::plausibility_checker pc(*gpu.table, layout, {});
//   for_each_row(reader, builder, [&](const row& r) { pc.check(r); ... });
//   for (const auto& f : pc.findings()) std::fprintf(stderr, "%s\n", f.describe().c_str());
//
// The checks (docs/mali.md, "Plausibility checks"), on the row's counters as
// row_builder writes them (the table's counters first, in table order,
// scaled by their shifts; per-instance columns after them are not read):
//   active-vs-gpu   a front-end or tiler counter named *_ACTIVE <= GPU_ACTIVE
//                   (not checked when GPU_ACTIVE is 0: its block may be off)
//   cores-vs-gpu    a shader-core *_ACTIVE summed over cores <= cores x GPU_ACTIVE
//   slices-vs-gpu   a memory *_ACTIVE summed over L2 slices <= slices x GPU_ACTIVE
//   clock           GPU_ACTIVE <= the sample's duration x the highest clock (when given)
//   percent         a derived counter in percent within [0, 100] (+ slack)
//   non-negative    a derived counter in cycles, beats or transactions >= 0
// The derived checks evaluate Arm's database formulas for the table
// (evaluator::database) over the row's counters themselves, whatever
// derived counters the row carries; none of the checked ones reads the
// external bus width, so a nominal one is bound.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali {

// One bound a sample broke.
struct plausibility_finding {
  std::uint64_t report = 0;  // the sample's index (row.report)
  std::uint64_t offset = 0;  // the sample's byte offset in the file (row.offset)
  std::string counter;       // the counter's hardware name, or the derived counter's name
  double value = 0;
  double bound = 0;
  std::string rule;  // the bound in words, e.g. "<= GPU_ACTIVE (1000)"

  std::string describe() const {
    auto number = [](double v) {
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
        return std::to_string(static_cast<long long>(v));
      }
      std::string s = std::to_string(v);
      return s;
    };
    return "sample " + std::to_string(report) + " (byte offset " + std::to_string(offset) +
           "): " + counter + " = " + number(value) + ", expected " + rule;
  }
};

struct plausibility_options {
  // The GPU's highest clock in Hz; 0 when unknown (the clock check is off).
  // Values of 2^32 Hz and more make the bound unlimited.
  std::uint64_t max_clock_hz = 0;
  // Percentages may overshoot 100 by this much before a finding (counters of
  // one sample are latched a few cycles apart).
  double percent_slack = 1.0;
  // Findings kept (total_findings() counts them all).
  std::size_t max_findings = 1000;
};

class plausibility_checker {
 public:
  // `table` must outlive the checker. `rows` (may be null): the evaluator
  // whose derived counters the checked rows carry; when it is Arm's database
  // set of this table (evaluator::database, any bus width), the rows' values
  // are checked instead of evaluating the formulas a second time.
  plausibility_checker(const gpu_table& table, const sample_layout& layout,
                       plausibility_options o = {}, const evaluator* rows = nullptr)
      : table_(&table), options_(o), cores_(layout.shader_core_count()), slices_(layout.l2_slices) {
    for (std::size_t i = 0; i < table.counters.size(); ++i) {
      const hw_counter& c = table.counters[i];
      if (c.name == "GPU_ACTIVE") {
        gpu_active_ = i;
        has_gpu_active_ = true;
      } else if (c.name.ends_with("_ACTIVE")) {
        active_.push_back(i);
      }
    }
    const evaluator* ev = nullptr;
    if (rows != nullptr && &rows->table() == &table && is_database_set(*rows, table)) {
      ev = rows;
      use_row_metrics_ = true;
    } else if (auto made = evaluator::database(table, layout, nominal_bus_width_bits)) {
      // Every table's set compiles and binds (test_mali_derived); were one
      // not to, only the derived checks would be lost.
      ev_.emplace(std::move(*made));
      raw_.resize(ev_->metrics().inputs().size());
      values_.resize(ev_->size());
      ev = &*ev_;
    }
    if (ev != nullptr) {
      for (std::size_t i = 0; i < ev->size(); ++i) {
        const std::string& u = ev->metrics()[i].units;
        metric_kind k = metric_kind::unchecked;
        if (u == "percent") {
          k = metric_kind::percent;
        } else if (u == "cycles" || u == "beats" || u == "transactions") {
          k = metric_kind::non_negative;
        }
        metrics_.push_back({ev->metrics()[i].symbol_name, k});
      }
    }
  }
  plausibility_checker(gpu_table&&, const sample_layout&, plausibility_options = {},
                       const evaluator* = nullptr) = delete;

  // The most cycles `ns` nanoseconds hold at `hz` (rounded up; exact in
  // integers for hz below 2^32, saturating).
  static constexpr std::uint64_t cycles_in(std::uint64_t ns, std::uint64_t hz) noexcept {
    constexpr std::uint64_t giga = 1'000'000'000;
    const std::uint64_t whole = ns / giga, rest = ns % giga, max = ~std::uint64_t{0};
    if (hz > 0xffffffffu || (whole != 0 && whole > max / hz)) return max;
    const std::uint64_t part = (rest * hz + giga - 1) / giga;  // rest * hz < 2^62
    return whole * hz > max - part ? max : whole * hz + part;
  }

  // Checks one row of row_builder (lost rows have nothing to check).
  void check(const row& r) {
    if (r.lost || !has_gpu_active_ || r.counters.size() < table_->counters.size()) return;
    const double active = static_cast<double>(r.counters[gpu_active_]);
    // A GPU_ACTIVE of 0 bounds nothing: a front-end block that is off or
    // protected (kinstr_prfcnt block state) adds 0 to the sums.
    for (std::size_t i : active_) {
      if (r.counters[gpu_active_] == 0) break;
      const hw_counter& c = table_->counters[i];
      const double v = static_cast<double>(r.counters[i]);
      const bool cores = c.id.block == block_type::shader_core;
      const bool slices = c.id.block == block_type::memory;
      const double n = cores ? cores_ : slices ? slices_ : 1;
      if (v <= n * active) continue;
      // Words only for a finding: no string work on rows that pass.
      const std::string gpu = "GPU_ACTIVE (" + std::to_string(r.counters[gpu_active_]) + ")";
      add(r, c.name, v, n * active,
          cores    ? "<= " + std::to_string(cores_) + " shader cores x " + gpu
          : slices ? "<= " + std::to_string(slices_) + " L2 slices x " + gpu
                   : "<= " + gpu);
    }
    if (options_.max_clock_hz != 0 && r.end > r.begin) {
      const std::uint64_t cycles = cycles_in(r.end - r.begin, options_.max_clock_hz);
      if (r.counters[gpu_active_] > cycles) {
        add(r, "GPU_ACTIVE", active, static_cast<double>(cycles),
            "<= " + std::to_string(r.end - r.begin) + " ns x " +
                std::to_string(options_.max_clock_hz) + " Hz (" + std::to_string(cycles) +
                " cycles)");
      }
    }
    if (use_row_metrics_) {
      if (r.metrics.size() < metrics_.size()) return;
    } else {
      if (!ev_) return;
      for (std::size_t i = 0; i < table_->counters.size(); ++i) {
        const counter_id id = table_->counters[i].id;
        sums_.values[static_cast<std::size_t>(id.block)][id.index] = r.counters[i];
      }
      ev_->scaled_inputs(sums_, raw_);
      if (!ev_->metrics().evaluate(raw_, values_)) return;
    }
    for (std::size_t i = 0; i < metrics_.size(); ++i) {
      const double v = use_row_metrics_ ? r.metrics[i].as_double() : values_[i].as_double();
      switch (metrics_[i].kind) {
        case metric_kind::percent:
          if (!(v >= 0 && v <= 100 + options_.percent_slack)) {
            add(r, metrics_[i].name, v, v < 0 ? 0 : 100, "within [0, 100] %");
          }
          break;
        case metric_kind::non_negative:
          if (!(v >= 0)) add(r, metrics_[i].name, v, 0, ">= 0");
          break;
        case metric_kind::unchecked:
          break;
      }
    }
  }

  const std::vector<plausibility_finding>& findings() const noexcept { return findings_; }
  std::uint64_t total_findings() const noexcept { return total_; }

 private:
  enum class metric_kind { unchecked, percent, non_negative };
  struct metric_check {
    std::string name;
    metric_kind kind;
  };

  void add(const row& r, std::string_view counter, double value, double bound, std::string rule) {
    ++total_;
    if (findings_.size() >= options_.max_findings) return;
    findings_.push_back({r.report, r.offset, std::string(counter), value, bound, std::move(rule)});
  }

  // The same derived counters, in the same order, as database_metric_set(t).
  static bool is_database_set(const evaluator& ev, const gpu_table& t) {
    const metrics::metric_set want = database_metric_set(t);
    if (ev.size() != want.metrics.size()) return false;
    for (std::size_t i = 0; i < ev.size(); ++i) {
      if (ev.metrics()[i].symbol_name != want.metrics[i].symbol_name ||
          ev.metrics()[i].units != want.metrics[i].units) {
        return false;
      }
    }
    return true;
  }

  // Any width: no checked derived counter reads it.
  static constexpr std::uint32_t nominal_bus_width_bits = 128;

  const gpu_table* table_;
  plausibility_options options_;
  std::optional<evaluator> ev_;  // own evaluator, unless the rows carry the set
  bool use_row_metrics_ = false;
  block_sums sums_;
  std::vector<std::uint64_t> raw_;
  std::vector<expr::value> values_;
  std::uint32_t cores_ = 0, slices_ = 0;
  std::size_t gpu_active_ = 0;
  bool has_gpu_active_ = false;
  std::vector<std::size_t> active_;  // table positions of the other *_ACTIVE counters
  std::vector<metric_check> metrics_;
  std::vector<plausibility_finding> findings_;
  std::uint64_t total_ = 0;
};

}  // namespace hwpc::mali
