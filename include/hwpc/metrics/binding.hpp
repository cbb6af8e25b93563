// Metric values per row: formulas bound to the columns of a row schema.
//
// A metric set (metric_set.hpp) reads named inputs; a row (core/row.hpp)
// holds counter columns. A binding table per vendor says which column feeds
// which input; row_metrics compiles the set once, binds the device values,
// drops the metrics whose availability fails on this device (recompiling
// the rest, so only counters the shown metrics read must be present), maps
// the inputs onto the schema's columns and evaluates, either one row at a
// time without allocating, or a block of rows as columns through the batch
// evaluator (expr/batch.hpp). Both give the same bits.
//
//   auto m = hwpc::metrics::row_metrics::make(set, device, schema);   // Intel table
//   schema.metrics = m->columns();
//   std::vector<hwpc::cell> cells(m->size());
//   for each row r:  m->evaluate(r.counters, r.end - r.begin, cells);
//
// Intel's table (intel_input): GPU_TIME ("GPU_TIME 0 READ") is the interval's
// length in timestamp ticks, GPU_CLOCK ("GPU_CLOCK 0 READ") the GPU_TICKS
// column, and every other input (A0.., B0.., C0.., MPEC counters) the counter
// column of the same name.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/expr/batch.hpp"
#include "hwpc/expr/eval.hpp"
#include "hwpc/metrics/mdapi_differences.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace hwpc::metrics {

// Where one formula input comes from in a row.
struct input_source {
  enum class from : std::uint8_t { counter, elapsed };
  from k = from::counter;
  std::size_t column = 0;  // schema.counters index when k == counter
};

// A vendor's binding table: input name -> source, or nullopt when the schema
// has no column for it. `needs` names what was looked for (for the error).
using input_binder = std::function<std::optional<input_source>(
    std::string_view input, const row_schema& schema, std::string& needs)>;

inline std::optional<std::size_t> counter_column(const row_schema& s, std::string_view name) {
  for (std::size_t i = 0; i < s.counters.size(); ++i) {
    if (s.counters[i].name == name) return i;
  }
  return std::nullopt;
}

// Intel OA (intel/rows.hpp schemas). The OAM/media unit's reports carry no A
// counters but eight MPEC counters, and its metric files read MPEC counter n
// as `A n READ` (IGT's reader stores MPEC counters where A0..A7 go; see
// counter_for_input in intel_device.hpp and docs/expressions.md).
inline std::optional<input_source> intel_input(std::string_view input, const row_schema& s,
                                               std::string& needs) {
  if (input == "GPU_TIME") return input_source{input_source::from::elapsed, 0};
  needs = input == "GPU_CLOCK" ? "GPU_TICKS" : std::string(input);
  if (auto c = counter_column(s, needs)) return input_source{input_source::from::counter, *c};
  if (input.size() >= 2 && input.size() <= 3 && input[0] == 'A') {
    if (auto c = counter_column(s, "MPEC" + std::string(input.substr(1)))) {
      return input_source{input_source::from::counter, *c};
    }
  }
  return std::nullopt;
}

class row_metrics {
 public:
  // Errors: two metrics with the same symbol name (errc::inconsistent; their
  // columns would collide), compile and bind errors of the set, an input the
  // schema has no column for (errc::unknown_name).
  static result<row_metrics> make(const metric_set& set, const device_values& device,
                                  const row_schema& schema,
                                  const input_binder& binder = intel_input,
                                  expr::arithmetic arith = expr::arithmetic::mdapi,
                                  mdapi::definitions defs = mdapi::definitions::mdapi) {
    std::unordered_set<std::string_view> seen;
    for (const metric& m : set.metrics) {
      if (!seen.insert(m.symbol_name).second) {
        return plain(errc::inconsistent,
                     "set " + set.symbol_name + " has two metrics named '" + m.symbol_name + "'");
      }
    }
    auto bound = compile_and_bind(set, device, arith, defs);
    if (!bound) return bound.error_value();
    // Metrics naming something unknown were left out at compile time; the
    // caller may say which and why (dropped()).
    std::vector<dropped_metric> dropped = bound->dropped();
    // Metrics whose availability fails on this device (e.g. query-mode-only
    // ones reading PERFCNT registers) are dropped and the rest compiled again,
    // so only the counters the kept metrics read must be in the rows. An
    // unavailable metric that an available one refers to is kept, computed
    // and not shown, as IGT computes it (docs/expressions.md).
    const metric_set available = available_with_dependencies(*bound);
    if (available.metrics.size() != bound->size()) {
      auto again = compile_and_bind(available, device, arith, defs);
      if (!again) return again.error_value();
      bound = std::move(again);
    }
    row_metrics m(std::move(*bound));
    for (const auto& in : m.bound_.inputs()) {
      std::string needs;
      auto src = binder(in.name, schema, needs);
      if (!src) {
        return plain(errc::unknown_name,
                     "the metric set reads " + in.name + ", but " + schema.source +
                         " rows have no " + needs +
                         " counter (does the set's oa_format match the capture?)");
      }
      m.sources_.push_back(*src);
    }
    m.dropped_ = std::move(dropped);
    for (std::size_t i = 0; i < m.bound_.size(); ++i) {
      if (m.bound_.available(i)) m.shown_.push_back(i);
    }
    m.raw_.resize(m.sources_.size());
    m.slots_.resize(m.bound_.ir().nodes.size());
    return m;
  }

  // The number of metric columns: the available metrics.
  std::size_t size() const noexcept { return shown_.size(); }
  const bound_set& bound() const noexcept { return bound_; }
  // Metrics left out because a formula names something unknown, with why.
  const std::vector<dropped_metric>& dropped() const noexcept { return dropped_; }
  // One metric column per available metric, in set order.
  std::vector<column> columns() const {
    std::vector<column> c;
    for (std::size_t i : shown_) {
      c.push_back({bound_[i].symbol_name, bound_[i].units, column_kind::metric});
    }
    return c;
  }

  // One row: `counters` in schema order, `elapsed` its length in clock ticks.
  // out.size() must be size(). Allocates nothing.
  void evaluate(std::span<const std::uint64_t> counters, std::uint64_t elapsed,
                std::span<cell> out) noexcept {
    for (std::size_t k = 0; k < sources_.size(); ++k) {
      raw_[k] =
          sources_[k].k == input_source::from::elapsed ? elapsed : counters[sources_[k].column];
    }
    const expr::program& p = bound_.ir();
    expr::run(p.nodes, raw_, slots_);
    for (std::size_t j = 0; j < size() && j < out.size(); ++j) {
      const std::size_t i = shown_[j];
      out[j] = to_cell(p.output_type(i), slots_[p.outputs[i]]);
    }
  }

  // A block of rows as columns: counter_cols[c][r] is counter c of row r,
  // elapsed[r] row r's length; out[i][r] receives metric i of row r. Any
  // number of rows (taken in pieces of the batch evaluator's block). The
  // evaluator and its output columns are made on the first call and kept.
  result<void> evaluate_block(std::span<const std::uint64_t* const> counter_cols,
                              const std::uint64_t* elapsed, std::size_t rows,
                              std::span<cell* const> out) {
    batch_state& b = batch_;
    if (!b.ev) {
      b.ev.emplace(bound_.batch());
      b.piece_in.resize(sources_.size());
    }
    // Pieces of the evaluator's block, or fewer rows when the caller gives
    // fewer: the output columns grow only to what a call needs.
    const std::size_t bs = std::min(rows, b.ev->block());
    if (bs > b.piece_rows) {
      // The batch evaluator writes every metric, shown or not.
      b.piece.assign(bound_.size() * bs, 0);
      b.piece_cols.resize(bound_.size());
      for (std::size_t i = 0; i < bound_.size(); ++i) b.piece_cols[i] = b.piece.data() + i * bs;
      b.piece_rows = bs;
    }
    const expr::program& p = bound_.ir();
    for (std::size_t at = 0; at < rows; at += bs) {
      const std::size_t n = rows - at < bs ? rows - at : bs;
      for (std::size_t k = 0; k < sources_.size(); ++k) {
        b.piece_in[k] = sources_[k].k == input_source::from::elapsed
                            ? elapsed + at
                            : counter_cols[sources_[k].column] + at;
      }
      auto r = b.ev->evaluate(b.piece_in, n, b.piece_cols);
      if (!r) return r.error_value();
      for (std::size_t c = 0; c < size() && c < out.size(); ++c) {
        const std::size_t i = shown_[c];
        const expr::slot* col = b.piece_cols[i];
        for (std::size_t j = 0; j < n; ++j) out[c][at + j] = to_cell(p.output_type(i), col[j]);
      }
    }
    return {};
  }

 private:
  explicit row_metrics(bound_set b) : bound_(std::move(b)) {}
  static cell to_cell(expr::vtype t, expr::slot s) noexcept {
    return t == expr::vtype::u64 ? cell::u(s) : cell::f(expr::as_f64(s));
  }
  // An error about the set or the device, not about a place in the input.
  static error plain(errc code, std::string message) {
    return error{code, 0, std::move(message), error_anchor::none};
  }
  static result<bound_set> compile_and_bind(const metric_set& set, const device_values& device,
                                            expr::arithmetic arith, mdapi::definitions defs) {
    // Every name given a value (--device-var too) is a device variable, and a
    // metric reading a device variable with no value is dropped (dropped()).
    compile_options opt;
    opt.arithmetic = arith;
    opt.definitions = defs;
    auto compiled = compile(set, options_for(device, opt));  // the compiled set keeps its own copy
    if (!compiled) return compiled.error_value();
    return compiled->bind(device);
  }
  bound_set bound_;
  std::vector<std::size_t> shown_;  // available metrics, in set order
  std::vector<dropped_metric> dropped_;
  std::vector<input_source> sources_;  // per formula input
  std::vector<expr::slot> raw_;
  std::vector<expr::slot> slots_;
  // evaluate_block's evaluator (it points at bound_'s program) and buffers,
  // made on first use. A copied or moved row_metrics starts without them:
  // they would point into the object it came from.
  struct batch_state {
    std::optional<expr::batch_evaluator> ev;
    std::vector<expr::slot> piece;  // output columns of piece_rows rows each
    std::size_t piece_rows = 0;
    std::vector<expr::slot*> piece_cols;
    std::vector<const expr::slot*> piece_in;
    batch_state() = default;
    batch_state(const batch_state&) noexcept {}
    batch_state& operator=(const batch_state&) noexcept {
      ev.reset();
      piece_rows = 0;
      return *this;
    }
    ~batch_state() = default;
  };
  batch_state batch_;
};

}  // namespace hwpc::metrics
