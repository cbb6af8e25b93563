// The HTML report of a capture (`hwpc report`, `--output html`): one
// self-contained page, written once for every vendor as a row_writer.
//
// The page holds, in order: the capture's facts (what the caller knows:
// vendor, platform or GPU, format, device, input; and what the rows tell:
// clock, duration, reports, intervals, losses), small-multiple charts (inline
// SVG, svg_chart.hpp) of every metric of the set and of the busiest raw
// counters (largest totals), with losses marked, and the table of totals,
// the numbers of the summary writer (summary.hpp: the same add_row and
// finish_totals). It needs nothing from outside: no script, stylesheet,
// font or image is referenced, and a Content-Security-Policy of
// `default-src 'none'` tells the browser to fetch nothing. Every string
// from the input (names, units, reasons, facts) goes through
// text_buffer::html.
//
// Rows are downsampled as they arrive (bands.hpp): memory is O(columns x
// plot width) and the page's size does not grow with the number of rows.
// The x axis is the rows' clock when the schema has one (ticks_per_second
// != 0; a row is placed at its end, as the CSV's timestamp) and the caller
// does not ask for the report index (report_options::x_by_report).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/accounting.hpp"
#include "hwpc/output/html/bands.hpp"
#include "hwpc/output/html/svg_chart.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output::html {

struct fact {
  std::string name;
  std::string value;
};

struct report_options {
  std::string title;         // the page's heading, e.g. "hwpc report: capture.rec"
  std::vector<fact> facts;   // what the caller knows about the capture, in order
  std::string metric_group;  // the metric set's name (heading of its charts)
  std::size_t busiest_counters = 8;
  std::size_t max_metric_charts = 128;  // every metric is still in the totals
  // The x axis is the report index even when rows carry time: for sources
  // whose rows are sparse events rather than periodic samples (Adreno
  // queries, whose untimed results sit at the last timestamp read).
  bool x_by_report = false;
  // How each total of the table is made, said beside it: one text for every counter and, per
  // metric column, one text (an empty or missing one: `metric_total`). What a total is
  // depends on the source: Intel and Mali counters are summed over the intervals, while
  // Adreno's counter reads are running values whose total is the last minus the first.
  std::string counter_total = "sum over the intervals";
  std::string metric_total = "computed from the counter totals";
  std::vector<std::string> metric_totals;
};

// "12.35 ms": ticks of a `hz` clock with four significant digits.
inline void write_duration(text_buffer& out, std::uint64_t ticks, std::uint64_t hz) {
  const double s = static_cast<double>(ticks) / static_cast<double>(hz != 0 ? hz : 1);
  struct unit {
    double scale;
    const char* name;
  };
  static constexpr unit units[] = {{1, " s"}, {1e-3, " ms"}, {1e-6, " \u00b5s"}, {1e-9, " ns"}};
  for (const unit& u : units) {
    if (s >= u.scale || u.scale == 1e-9) {
      write_short(out, s / u.scale);
      out << u.name;
      return;
    }
  }
}

class report_writer final : public row_writer {
 public:
  // `metrics_of` computes the metrics of the totals, as for the summary.
  report_writer(text_buffer& out, const row_schema& s, report_options o,
                totals_metric_fn metrics_of = {})
      : out_(out),
        s_(s),
        o_(std::move(o)),
        metrics_of_(std::move(metrics_of)),
        charted_metrics_(std::min(s.metrics.size(), o_.max_metric_charts)),
        grid_(s.counters.size() + charted_metrics_, plot_width) {
    t_.counters.assign(s.counters.size(), 0);
  }

  void write(const row& r) override {
    if (r.lost) {
      ++pending_losses_;
      return;
    }
    const bool timed = timed_axis();
    if (!grid_.started()) grid_.start(timed ? r.begin : r.report);
    // A loss is marked where reports resume: this interval's start.
    for (; pending_losses_ != 0; --pending_losses_) grid_.add_loss(timed ? r.begin : r.report);
    band_grid::bucket_range b{};
    if (timed) {
      b = grid_.place(r.begin, r.end);
    } else {
      b.first = b.last = grid_.place(r.report);
    }
    const std::size_t nc = s_.counters.size();
    for (std::size_t c = 0; c < nc && c < r.counters.size(); ++c) {
      grid_.add(c, b, static_cast<double>(r.counters[c]));
    }
    for (std::size_t m = 0; m < charted_metrics_ && m < r.metrics.size(); ++m) {
      if (r.metrics[m].is_finite_number()) grid_.add(nc + m, b, r.metrics[m].as_double());
    }
    if (t_.intervals == 0) first_begin_ = r.begin;
    // Event rows (x_by_report) without a time of their own carry 0.
    if (o_.x_by_report && r.begin != 0 && (first_timed_ == 0 || r.begin < first_timed_)) {
      first_timed_ = r.begin;
    }
    last_end_ = std::max(last_end_, r.end);
    last_key_ = timed ? r.end : r.report;
    add_row(t_, r);
  }

  void end(const accounting& acc) override {
    if (grid_.started()) {
      for (; pending_losses_ != 0; --pending_losses_) grid_.add_loss(last_key_);
    }
    finish_totals(t_, s_, acc, metrics_of_);
    head();
    facts(acc);
    charts();
    totals_table();
    out_ << "</body></html>\n";
  }

  const totals& result() const noexcept { return t_; }
  // A fact known only once the rows are read (before end()).
  void add_fact(std::string name, std::string value) {
    o_.facts.push_back({std::move(name), std::move(value)});
  }

 private:
  bool timed_axis() const noexcept { return s_.ticks_per_second != 0 && !o_.x_by_report; }

  void head() {
    out_ << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\">\n<title>";
    out_.html(o_.title) << "</title>\n<style>\n"
                           "body{font:13px/1.4 sans-serif;margin:16px;color:#222;background:#fff}\n"
                           "h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:18px 0 6px}\n"
                           "table{border-collapse:collapse}td,th{padding:1px 8px;text-align:left;"
                           "border-bottom:1px solid #e4e4e4;vertical-align:top}\n"
                           "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
                           ".note{max-width:60em;color:#444}\n"
                           ".grid{display:grid;grid-template-columns:repeat(auto-fill,372px);"
                           "gap:10px}\n"
                           "figure{margin:0}figcaption{font-size:12px;white-space:nowrap;"
                           "overflow:hidden;text-overflow:ellipsis}\n"
                           ".u,.r{color:#666}svg.plot{display:block}\n"
                           ".bg{fill:#f4f6f9}.band{fill:none;stroke:#9dbbe0}\n"
                           ".mean{fill:none;stroke:#1f4e85;stroke-width:1;stroke-linejoin:round}\n"
                           ".loss{fill:none;stroke:#d62728;stroke-width:1;opacity:.8}\n"
                           ".ax{font-size:10px;fill:#666}\n"
                           "</style></head><body>\n<h1>";
    out_.html(o_.title) << "</h1>\n";
  }

  void fact_row(std::string_view name) {
    out_ << "<tr><th>";
    out_.html(name) << "</th><td>";
  }

  void facts(const accounting& acc) {
    out_ << "<table id=\"facts\">\n";
    for (const fact& f : o_.facts) {
      fact_row(f.name);
      out_.html(f.value) << "</td></tr>\n";
    }
    fact_row("source");
    out_.html(s_.source) << "</td></tr>\n";
    fact_row("clock");
    if (s_.ticks_per_second == 0) {
      out_ << "none: rows carry no time; the charts' x axis is the report index";
    } else if (o_.x_by_report) {
      out_ << (s_.clock == clock_kind::cpu_ns ? "CPU CLOCK_MONOTONIC" : "GPU timestamp") << ", "
           << s_.ticks_per_second << " Hz (the charts' x axis is the report index)";
    } else {
      out_ << (s_.clock == clock_kind::cpu_ns ? "CPU CLOCK_MONOTONIC" : "GPU timestamp") << ", "
           << s_.ticks_per_second << " Hz";
    }
    out_ << "</td></tr>\n";
    fact_row("duration");
    if (t_.intervals == 0 || s_.ticks_per_second == 0) {
      out_ << "unknown";
    } else {
      const std::uint64_t from = o_.x_by_report ? first_timed_ : first_begin_;
      write_duration(out_, last_end_ > from ? last_end_ - from : 0, s_.ticks_per_second);
      out_ << (o_.x_by_report ? " (the earliest to the latest time the rows carry)"
                              : " (first interval's start to last interval's end)");
    }
    out_ << "</td></tr>\n";
    fact_row("reports");
    out_ << t_.reports;
    if (acc.skipped_zero != 0) out_ << " (and " << acc.skipped_zero << " never written, skipped)";
    out_ << "</td></tr>\n";
    fact_row("intervals");
    out_ << acc.intervals;
    if (acc.filtered != 0) out_ << " (" << acc.filtered << " more filtered out by context)";
    out_ << "</td></tr>\n";
    fact_row("losses");
    if (!s_.has_losses && acc.lost() == 0) {
      out_ << "0 (this input cannot record a loss)";
    } else {
      out_ << acc.lost() << " (" << acc.report_lost << " report-lost, " << acc.buffer_lost
           << " buffer-lost, " << acc.overflow << " counter-overflow, " << acc.gaps << " gap)";
    }
    out_ << "</td></tr>\n";
    if (acc.anything_dropped()) {
      fact_row("accounting");
      out_.html(describe(acc)) << "</td></tr>\n";
    }
    if (grid_.clamped() != 0) {
      fact_row("out of order");
      out_ << grid_.clamped() << " rows end before the first one starts (drawn at the start)";
      out_ << "</td></tr>\n";
    }
    out_ << "</table>\n";
  }

  void charts() {
    if (!grid_.started()) {
      out_ << "<p class=\"note\" id=\"no-charts\">No interval: nothing to chart.</p>\n";
      return;
    }
    const bool timed = timed_axis();
    const std::uint64_t span = grid_.width() * grid_.used();
    text_buffer left, right;
    if (timed) {
      left << "0";
      right << "+";
      write_duration(right, span, s_.ticks_per_second);
    } else {
      left << "report " << grid_.origin();
      right << "report " << grid_.origin() + span;
    }
    const x_labels labels{left.str(), right.str()};
    std::uint64_t most = 0;
    for (std::size_t b = 0; b < grid_.used(); ++b) most = std::max(most, grid_.rows(b));

    out_ << "<section id=\"timeline\"><h2>Timeline</h2>\n<p class=\"note\">Every series is "
            "downsampled to the chart's pixel width: "
         << std::uint64_t{grid_.used()} << " buckets of " << grid_.width()
         << (timed ? " clock ticks (" : " reports");
    if (timed) {
      write_duration(out_, grid_.width(), s_.ticks_per_second);
      out_ << ")";
    }
    out_ << ", ";
    write_px(out_, static_cast<double>(plot_width) / static_cast<double>(grid_.used()));
    out_ << " px each, at most " << most
         << " intervals ending in one. A bucket's bar spans the smallest and largest value of "
            "the intervals that end in it, or of the one interval that covers it when none "
            "ends there: a min/max band, not a sample of the values, so a spike is never "
            "dropped. Gaps are time no interval covers; red lines mark losses, where reports "
            "resume.</p>\n";
    const std::size_t nc = s_.counters.size();
    if (!s_.metrics.empty()) {
      out_ << "<h2 id=\"metrics\">Metrics";
      if (!o_.metric_group.empty()) {
        out_ << ": ";
        out_.html(o_.metric_group);
      }
      out_ << " (" << std::uint64_t{charted_metrics_} << " of " << std::uint64_t{s_.metrics.size()}
           << ")</h2>\n<div class=\"grid\">\n";
      for (std::size_t m = 0; m < charted_metrics_; ++m) {
        write_chart(out_, grid_, nc + m, s_.metrics[m].name, s_.metrics[m].units, "metric", labels);
      }
      out_ << "</div>\n";
    }
    if (nc == 0) {  // e.g. Adreno: every column is a metric
      out_ << "</section>\n";
      return;
    }
    const std::vector<std::size_t> busiest = busiest_counters();
    out_ << "<h2 id=\"counters\">Busiest raw counters (" << std::uint64_t{busiest.size()} << " of "
         << std::uint64_t{nc} << ", by total)</h2>\n<div class=\"grid\">\n";
    for (std::size_t c : busiest) {
      write_chart(out_, grid_, c, s_.counters[c].name, s_.counters[c].units, "counter", labels);
    }
    out_ << "</div></section>\n";
  }

  // The counters with the largest totals, largest first (ties in schema order).
  std::vector<std::size_t> busiest_counters() const {
    std::vector<std::size_t> idx(s_.counters.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return t_.counters[a] > t_.counters[b]; });
    idx.resize(std::min(idx.size(), o_.busiest_counters));
    return idx;
  }

  void totals_table() {
    out_ << "<section id=\"totals\"><h2>Totals</h2>\n<p class=\"note\">The numbers of "
            "<code>--summary</code>; the last column says how each is made.</p>\n"
            "<table id=\"totals-table\"><tr><th>name</th><th>kind</th><th>total</th>"
            "<th>units</th><th>total of</th></tr>\n";
    auto line = [&](std::string_view name, std::string_view kind, auto&& value,
                    std::string_view units, std::string_view how) {
      out_ << "<tr><td>";
      out_.html(name) << "</td><td>";
      out_.html(kind) << "</td><td class=\"n\">";
      value();
      out_ << "</td><td>";
      out_.html(units) << "</td><td>";
      out_.html(how) << "</td></tr>\n";
    };
    line(
        "intervals", "summary", [&] { out_ << t_.intervals; }, "", "count of the intervals");
    line(
        "elapsed_ticks", "summary", [&] { out_ << t_.elapsed; }, "ticks",
        "sum of the intervals' lengths");
    line(
        "reports", "summary", [&] { out_ << t_.reports; }, "", "count of the reports read");
    line(
        "skipped_zero", "summary", [&] { out_ << t_.skipped_zero; }, "",
        "count of the reports skipped as all zero");
    if (t_.discontinuities) {
      line(
          "discontinuities", "summary", [&] { out_ << *t_.discontinuities; }, "",
          "count of the breaks between stretches");
    }
    for (std::size_t c = 0; c < s_.counters.size(); ++c) {
      line(
          s_.counters[c].name, "counter", [&] { out_ << t_.counters[c]; }, s_.counters[c].units,
          o_.counter_total);
    }
    for (std::size_t m = 0; m < s_.metrics.size(); ++m) {
      const cell v = m < t_.metrics.size() ? t_.metrics[m] : cell::none();
      const std::string& how = m < o_.metric_totals.size() && !o_.metric_totals[m].empty()
                                   ? o_.metric_totals[m]
                                   : o_.metric_total;
      line(
          s_.metrics[m].name, "metric", [&] { out_.csv_cell(v); }, s_.metrics[m].units, how);
    }
    out_ << "</table></section>\n";
  }

  text_buffer& out_;
  const row_schema& s_;
  report_options o_;
  totals_metric_fn metrics_of_;
  std::size_t charted_metrics_;
  band_grid grid_;
  totals t_;
  std::uint64_t pending_losses_ = 0;
  std::uint64_t first_begin_ = 0;
  std::uint64_t first_timed_ = 0;
  std::uint64_t last_end_ = 0;
  std::uint64_t last_key_ = 0;
};

}  // namespace hwpc::output::html
