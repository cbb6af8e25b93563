// Totals over a capture as one row (`hwpc decode --summary`), CSV or JSON.
//
// Columns: intervals, elapsed_ticks (the sum of the intervals' lengths on
// the schema's clock), one total per counter, reports (valid reports),
// skipped_zero, discontinuities (sources that can lose reports), then the
// metrics computed from the totals. summary_writer sums rows as they come;
// a caller with a faster path to the same totals (intel::accumulate) fills a
// `totals` itself and calls write_totals.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/accounting.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output {

struct totals {
  std::uint64_t intervals = 0;
  std::uint64_t elapsed = 0;
  std::vector<std::uint64_t> counters;  // schema.counters order
  std::uint64_t reports = 0;
  std::uint64_t skipped_zero = 0;
  std::optional<std::uint64_t> discontinuities;
  std::vector<cell> metrics;  // schema.metrics order
};

// `trailer`: in JSON, an "accounting" key after the totals.
inline void write_totals(text_buffer& out, const row_schema& s, bool json, const totals& t,
                         const accounting* trailer = nullptr) {
  if (json) {
    out << "{\"intervals\": " << t.intervals << ", \"elapsed_ticks\": " << t.elapsed;
    for (std::size_t i = 0; i < s.counters.size(); ++i) {
      out << ", ";
      out.json_string(s.counters[i].name) << ": " << t.counters[i];
    }
    out << ", \"reports\": " << t.reports << ", \"skipped_zero\": " << t.skipped_zero;
    if (t.discontinuities) out << ", \"discontinuities\": " << *t.discontinuities;
    for (std::size_t j = 0; j < s.metrics.size(); ++j) {
      out << ", ";
      out.json_string(s.metrics[j].name) << ": ";
      out.json_cell(j < t.metrics.size() ? t.metrics[j] : cell::none());
    }
    if (trailer != nullptr) {
      out << ", \"accounting\": ";
      write_accounting_json(out, *trailer);
    }
    out << "}\n";
    return;
  }
  out << "intervals,elapsed_ticks";
  for (const column& c : s.counters) out.csv_field_after_comma(c.name);
  out << ",reports,skipped_zero" << (t.discontinuities ? ",discontinuities" : "");
  for (const column& c : s.metrics) out.csv_field_after_comma(c.name);
  out << '\n' << t.intervals << ',' << t.elapsed;
  for (std::uint64_t v : t.counters) out << ',' << v;
  out << ',' << t.reports << ',' << t.skipped_zero;
  if (t.discontinuities) out << ',' << *t.discontinuities;
  for (std::size_t j = 0; j < s.metrics.size(); ++j) {
    out << ',';
    out.csv_cell(j < t.metrics.size() ? t.metrics[j] : cell::none());
  }
  out << '\n';
}

// Computes the metrics of counter totals (the same formulas as per row).
using totals_metric_fn = std::function<void(std::span<const std::uint64_t> counters,
                                            std::uint64_t elapsed, std::vector<cell>& out)>;

// Adds one row to running totals (loss rows add nothing). The summary and the
// HTML report (html/report_writer.hpp) total rows through this one path.
inline void add_row(totals& t, const row& r) {
  if (r.lost) return;
  ++t.intervals;
  t.elapsed += r.end - r.begin;
  for (std::size_t i = 0; i < t.counters.size(); ++i) t.counters[i] += r.counters[i];
}

// Completes totals from the accounting after the last row; `metrics_of` may be empty.
inline void finish_totals(totals& t, const row_schema& s, const accounting& acc,
                          const totals_metric_fn& metrics_of) {
  t.reports = acc.reports - acc.skipped_zero;
  t.skipped_zero = acc.skipped_zero;
  // A source that said it cannot lose reports and did still says so.
  if (s.has_losses || acc.lost() != 0) t.discontinuities = acc.lost();
  if (metrics_of) metrics_of(t.counters, t.elapsed, t.metrics);
}

// Sums the rows it is given; at end() completes the totals (their metrics
// through `metrics_of`, when the schema has metrics). What a capture's
// totals() and the summary writer add up.
class totals_writer final : public row_writer {
 public:
  explicit totals_writer(const row_schema& s, totals_metric_fn metrics_of = {})
      : s_(s), metrics_of_(std::move(metrics_of)) {
    t_.counters.assign(s.counters.size(), 0);
  }
  void write(const row& r) override { add_row(t_, r); }
  void end(const accounting& acc) override {
    acc_ = acc;
    finish_totals(t_, s_, acc, metrics_of_);
  }
  const totals& result() const noexcept { return t_; }
  totals& result() noexcept { return t_; }
  const accounting& acc() const noexcept { return acc_; }

 private:
  const row_schema& s_;
  totals_metric_fn metrics_of_;
  totals t_;
  accounting acc_;
};

// The totals as one row of CSV or JSON, written at end().
class summary_writer final : public row_writer {
 public:
  using metric_fn = totals_metric_fn;
  summary_writer(text_buffer& out, const row_schema& s, bool json, metric_fn metrics_of = {})
      : out_(out), s_(s), json_(json), sum_(s, std::move(metrics_of)) {}
  void write(const row& r) override { sum_.write(r); }
  void end(const accounting& acc) override {
    sum_.end(acc);
    write_totals(out_, s_, json_, sum_.result(), acc.anything_dropped() ? &acc : nullptr);
  }
  const totals& result() const noexcept { return sum_.result(); }

 private:
  text_buffer& out_;
  const row_schema& s_;
  bool json_;
  totals_writer sum_;
};

}  // namespace hwpc::output
