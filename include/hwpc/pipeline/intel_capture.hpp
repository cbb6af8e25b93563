// An Intel OA capture opened for rows: the one pipeline `hwpc decode` and
// hwpc.intel.decode share (capture.hpp's interface).
//
// open() checks the options (intel_open_options.hpp), finds the input kind (a
// recording by its first record), reads a recording's DEVICE_INFO (platform,
// format, metric set, time correlation) or takes platform and format from the
// options, binds the metric set (pipeline/metric_columns.hpp) with the
// device's values, and makes the reader. Rows go out a block of 256 at a time
// with their metrics (pipeline/metric_rows.hpp); write() totals raw reports
// without a context filter the fast way (pipeline/intel_totals.hpp), refuses
// a trace whose recording cannot give a report a CPU time, and says when every
// report had RPT_ID 0.
//
// Every error carries in `message` the whole line a door shows (for bad
// input: the input's name, then the error's description), so the door prints
// it as it is; code, offset and anchor stay the fault's (errc::usage for the
// user's options).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/input_kind.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/intel_open_options.hpp"
#include "hwpc/pipeline/intel_report_facts.hpp"
#include "hwpc/pipeline/intel_totals.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
#include "hwpc/pipeline/metric_rows.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::intel {

class oa_capture;
result<std::unique_ptr<oa_capture>> open(capture_source src, open_options o,
                                         const pipeline::spelling& sp);

class oa_capture final : public capture {
 public:
  hwpc::vendor vendor() const noexcept override { return hwpc::vendor::intel; }
  const row_schema& schema() const noexcept override { return schema_; }

  platform plat() const noexcept { return plat_; }
  const report_format& format() const noexcept { return *format_; }
  input_kind kind() const noexcept { return kind_; }
  // The metric set computed (the option's, else the recording's); empty without metrics.
  const std::string& metric_set() const noexcept { return set_; }
  // The metrics left out and why, one line each (warnings() says the same for the tool).
  const std::vector<std::string>& dropped() const noexcept { return dropped_; }
  // The accounting of the last write, also when it ended in an error.
  const std::optional<accounting>& written() const noexcept { return written_; }
  // The records the last write dropped, as `hwpc decode` says it after the rows.
  std::vector<std::string> notes_after_rows() const override {
    if (!written_ || !written_->anything_dropped()) return {};
    return {src_.name() + ": " + output::describe(*written_)};
  }
  // The metric columns bound to this capture's device (null without
  // metrics): a door that feeds rows of its own through
  // pipeline::metric_rows (the recorder's live rows) fills the same cells.
  metrics::row_metrics* metric_columns() noexcept { return metrics_.get(); }

  result<accounting> write_rows(row_writer& w) override { return drive(w, true); }
  // The rows without their metric cells: for sinks that total the counters
  // and compute the metrics of the totals (totals_metrics()).
  result<accounting> write_rows_for_totals(row_writer& w) { return drive(w, false); }

  // Raw reports without a context filter are totalled whole (intel_totals.hpp).
  bool totals_whole() const noexcept { return buffer_.has_value() && !rows_.filter; }
  // The caller writes them, then asks all_unwritten(totals.acc).
  raw_totals total_whole() {
    raw_totals r = total_raw(*buffer_, generation_of(plat_), metric_ptr(), threads_);
    written_ = r.acc;
    return r;
  }

  // Reports were there but every one has RPT_ID 0, which the OA unit never
  // writes (a zeroed file, a wrong offset): bad input, not an empty table.
  std::optional<error> all_unwritten(const accounting& acc) const {
    if (acc.reports == 0 || acc.skipped_zero != acc.reports) return std::nullopt;
    const char* what =
        format_->xe_landed_rule ? " reports have RPT_ID and TIMESTAMP 0" : " reports have RPT_ID 0";
    return error{errc::empty_input, 0,
                 src_.name() + ": all " + std::to_string(acc.reports) + what +
                     " (slots the OA unit never wrote); nothing to decode",
                 error_anchor::none};
  }

  // Raw reports totalled whole; other inputs' rows summed without their
  // metric cells, the metrics then computed from the totals.
  result<capture_totals> totals() override {
    if (totals_whole()) {
      raw_totals r = total_whole();
      if (auto bad = all_unwritten(r.acc)) return *bad;
      return capture_totals{std::move(r.totals), r.acc};
    }
    output::totals_writer sum(schema_, totals_metrics());
    auto acc = drive(sum, false);
    if (!acc) return acc.error_value();
    return capture_totals{std::move(sum.result()), *acc};
  }

  capture_facts facts() const override {
    capture_facts f;
    f.platform = std::string(name_of(plat_));
    f.format = std::string(format_->name);
    f.metric_set = set_;
    f.dropped_metrics = dropped_;
    return f;
  }

  // One row per report slot at most (loss records make fewer still).
  std::size_t rows_at_most() const noexcept override {
    return src_.bytes().size() / format_->size + 1;
  }

  output::totals_metric_fn totals_metrics() const {
    if (!metrics_) return {};
    metrics::row_metrics* m = metrics_.get();
    return [m](std::span<const std::uint64_t> t, std::uint64_t elapsed, std::vector<cell>& cells) {
      cells.resize(m->size());
      m->evaluate(t, elapsed, cells);
    };
  }

  output::writer_parts writer_parts(const output::output_choice& c) const override {
    output::writer_parts parts;
    parts.totals_metrics = totals_metrics();
    if (c.kind == output::writer_kind::html && !c.summary) {
      report_subject s;
      s.name = src_.name();
      s.plat = plat_;
      s.format = format_;
      s.kind = kind_;
      s.rec = rec_ ? &*rec_ : nullptr;
      s.emulated = emulated_ ? &*emulated_ : nullptr;
      s.metrics_file = metrics_file_;
      s.metric_set = set_;
      s.context = context_;
      parts.report = report_facts(s);
    }
    // Traces: CPU CLOCK_MONOTONIC time when a recording correlates it, else GPU time.
    if (time_ != nullptr && !time_->empty()) {
      const time_correlation* t = time_;
      parts.to_ns = [t](std::uint64_t ticks) { return t->to_cpu(ticks).ns; };
      parts.correlation = output::perfetto::clock_pairs(time_->points(), frequency_);
    }
    parts.title = "hwpc " + std::string(name_of(plat_)) + " " + std::string(format_->name) + ": " +
                  src_.name();
    parts.metric_group = set_;
    parts.vendor = "Intel";
    parts.model = std::string(name_of(plat_));
    return parts;
  }

  result<accounting> write(const write_options& o, output::text_buffer& out) override {
    // CPU times go only into the traces; a recording whose points cannot give
    // one of its reports a CPU time is refused before any output.
    const bool trace = o.choice.kind == output::writer_kind::perfetto ||
                       o.choice.kind == output::writer_kind::chrome_json;
    if (trace && !o.choice.summary && time_ != nullptr && !time_->empty()) {
      if (auto bad = first_time_outside()) return *bad;
    }
    if (o.choice.summary && totals_whole()) {
      const raw_totals r = total_whole();
      output::write_totals(out, schema_, o.choice.kind == output::writer_kind::json, r.totals,
                           r.acc.anything_dropped() ? &r.acc : nullptr);
      if (auto bad = all_unwritten(r.acc)) return *bad;
      return r.acc;
    }
    output::writer_parts p = writer_parts(o.choice);
    p.layout = o.layout;
    p.fleet = o.fleet;
    output::made_writer m = output::make_writer(o.choice, out, schema_, std::move(p));
    return drive(*m.writer, !o.choice.summary);
  }

 private:
  friend result<std::unique_ptr<oa_capture>> open(capture_source, open_options,
                                                  const pipeline::spelling&);
  oa_capture() = default;

  metrics::row_metrics* metric_ptr() noexcept { return metrics_.get(); }

  // Bad input, worded as the door shows it.
  error bad(error e) const {
    e.message = src_.name() + ": " + e.describe();
    return e;
  }

  template <class Fn>
  accounting each_row(Fn&& fn) const {
    const generation gen = generation_of(plat_);
    std::size_t events = 0;
    auto on_event = [&](std::size_t offset) {
      // Every 4096 events: a call per event would cost more than the bar shows.
      if ((++events & 4095u) == 0 && progress_) progress_(offset);
    };
    if (buffer_) return for_each_row(raw_capture(*buffer_), gen, rows_, fn, on_event);
    if (xe_stream_) return for_each_row(*xe_stream_, gen, rows_, fn, on_event);
    if (i915_stream_) return for_each_row(*i915_stream_, gen, rows_, fn, on_event);
    if (xrec_) return for_each_row(*xrec_, gen, rows_, fn, on_event);
    return for_each_row(*rec_, gen, rows_, fn, on_event);
  }

  // Every row into `w`, metrics filled in a block of rows at a time
  // (metric_rows.hpp) unless the writer only totals them.
  result<accounting> drive(row_writer& w, bool per_row_metrics) {
    std::optional<pipeline::metric_rows> held;
    if (metrics_ && per_row_metrics) held.emplace(*metrics_, schema_.counters.size(), w);
    const accounting acc = each_row([&](row& r) {
      if (held) {
        held->add(r);
      } else {
        w.write(r);
      }
    });
    if (held) held->flush();
    w.end(acc);
    written_ = acc;
    if (auto e = all_unwritten(acc)) return *e;
    return acc;
  }

  // The first row whose begin or end the correlation points cannot turn into
  // a CPU time (before 0 or past INT64_MAX ns), as the error naming its record.
  std::optional<error> first_time_outside() const {
    std::optional<error> found;
    each_row([&](row& r) {
      if (found || r.lost) return;
      for (const std::uint64_t ticks : {r.begin, r.end}) {
        auto at = time_->checked_cpu(ticks, r.offset);
        if (!at) {
          found = bad(at.error_value());
          return;
        }
      }
    });
    return found;
  }

  capture_source src_;
  row_schema schema_;
  platform plat_{};
  const report_format* format_ = nullptr;
  input_kind kind_ = input_kind::raw;
  std::uint64_t frequency_ = 0;             // TIME_STAMP Hz
  const time_correlation* time_ = nullptr;  // recordings only
  row_options rows_;                        // the context filter, unknown records
  std::optional<std::uint32_t> context_;
  std::optional<std::string> metrics_file_;
  std::string set_;
  std::optional<metrics::intel_device> emulated_;
  // A pointer: the writers' totals_metrics evaluate through it from const parts.
  std::unique_ptr<metrics::row_metrics> metrics_;
  std::vector<std::string> dropped_;
  unsigned threads_ = 0;
  std::function<void(std::size_t)> progress_;
  std::optional<accounting> written_;
  // One reader, by input kind.
  std::optional<report_buffer> buffer_;
  std::optional<xe_stream> xe_stream_;
  std::optional<i915_stream> i915_stream_;
  std::optional<recording> rec_;
  std::optional<xe_recording> xrec_;
};

inline result<std::unique_ptr<oa_capture>> open(capture_source src, open_options o,
                                                const pipeline::spelling& sp) {
  auto checked = check(o, sp);
  if (!checked) return checked.error_value();
  const checked_options& c = *checked;
  std::unique_ptr<oa_capture> cap(new oa_capture());
  oa_capture& k = *cap;
  k.src_ = std::move(src);
  const byte_span bytes = k.src_.bytes();
  k.kind_ = c.kind ? *c.kind : detect_input_kind(bytes);
  const xe_format* xe = c.format.xe;
  std::string set = o.set;
  if (k.kind_ == input_kind::recording && xe_recording::looks_like_xe_recording(bytes)) {
    xe_recording_options ro;
    ro.fallback_platform = c.plat;
    // An unverified layout is the user's choice (a usage error, as for raw
    // input), not bad input: read it, then ask for the opt-in.
    ro.unverified_layouts = true;
    auto r = xe_recording::make(bytes, ro);
    if (!r) return k.bad(r.error_value());
    k.xrec_.emplace(std::move(*r));
    xe = &k.xrec_->xe();
    if (!xe->verified && !o.unverified_layouts) {
      return usage_error(k.src_.name() + ": the recording's Xe layout " + std::string(xe->name) +
                         " is not verified (" + std::string(xe->evidence) + "); " +
                         spell::on(sp, "unverified_layouts") + " decodes it anyway");
    }
    k.plat_ = k.xrec_->device_platform();
    k.format_ = &k.xrec_->format();
    if (o.format && *o.format != xe->name) {
      return usage_error(sp.option("format") + " " + *o.format +
                         " does not match the recording's " + std::string(xe->name) +
                         " (its DEVICE_INFO gives the format)");
    }
    k.frequency_ = k.xrec_->timestamp_frequency();
    k.time_ = &k.xrec_->time();
    if (o.metrics && set.empty()) set = std::string(k.xrec_->metric_set_name());
  } else if (k.kind_ == input_kind::recording) {
    recording_options ro;
    ro.fallback_platform = c.plat;
    auto r = recording::make(bytes, ro);
    if (!r) return k.bad(r.error_value());
    k.rec_.emplace(std::move(*r));
    k.plat_ = k.rec_->device_platform();
    k.format_ = &k.rec_->format();
    if (o.format && !k.format_->named(*o.format)) {
      return usage_error(sp.option("format") + " " + *o.format +
                         " does not match the recording's " + std::string(k.format_->name) +
                         " (its DEVICE_INFO gives the format)");
    }
    k.frequency_ = k.rec_->timestamp_frequency();
    k.time_ = &k.rec_->time();
    if (o.metrics && set.empty()) set = std::string(k.rec_->device().metric_set_name);
  } else {
    resolved_format f = c.format;
    if (f.format == nullptr) {
      auto r = resolve_format(o, c, sp);
      if (!r) return r.error_value();
      f = *r;
    }
    k.plat_ = *c.plat;
    k.format_ = f.format;
    xe = f.xe;
    k.frequency_ = info(k.plat_).timestamp_frequency_hz;
  }
  if (o.context) {
    if (is_gen7_family(generation_of(k.plat_))) {
      return usage_error(sp.option("context") + ": " + std::string(name_of(k.plat_)) +
                         " reports carry no context id (Gen7 filters in hardware, with "
                         "OACONTROL's specific-context mode)");
    }
    k.rows_.filter = context_filter::from_reports();
    k.rows_.context = *o.context;
  }
  k.context_ = o.context;

  k.schema_ = schema_of(*k.format_, k.plat_, k.kind_ != input_kind::raw, k.frequency_);
  if (o.metrics && set.empty()) {
    return usage_error(sp.option("metrics") + " needs " + spell::arg(sp, "set", "SYMBOL") +
                       ": the input names no metric set");
  }
  if (o.metrics) {
    metrics::intel_device dev = o.emulated_device ? *o.emulated_device
                                : k.rec_          ? metrics::device_of(*k.rec_)
                                : k.xrec_         ? metrics::device_of(*k.xrec_)
                                                  : metrics::device_of(k.plat_);
    if (dev.timestamp_frequency_hz == 0) dev.timestamp_frequency_hz = k.frequency_;
    metrics::device_values values = metrics::to_device_values(dev);
    for (const auto& [name, v] : o.device_vars) values[name] = v;
    auto m = pipeline::load_metric_columns(*o.metrics, set, k.schema_, values, c.arithmetic,
                                           c.definitions);
    if (!m) {
      // A name that the capture or the options do not supply (a set, a
      // variable, a counter) is the user's error; anything wrong in the file
      // itself (unreadable, malformed, a cycle) is bad input.
      error e = m.error_value();
      e.message = "--metrics: " + e.describe();
      if (m.error_value().code == errc::unknown_name) e.code = errc::usage;
      return e;
    }
    bool unvalued = false;
    for (const auto& d : m->dropped()) {
      k.dropped_.push_back(metrics::describe(d));
      k.warnings_.push_back("--metrics: " + k.dropped_.back());
      unvalued = unvalued || d.reason.message.find("with no value") != std::string::npos;
    }
    if (unvalued) {
      k.warnings_.push_back(
          std::string("--metrics: ") +
          (sp.d == pipeline::door::tool ? "--device-var NAME=VALUE" : "device_vars={NAME: VALUE}") +
          " gives a device variable a value");
    }
    k.metrics_ = std::make_unique<metrics::row_metrics>(std::move(*m));
    k.schema_.metrics = k.metrics_->columns();
  }
  k.metrics_file_ = o.metrics;
  k.set_ = o.metrics ? set : std::string();
  k.emulated_ = o.emulated_device;
  k.threads_ = o.threads;
  k.progress_ = std::move(o.progress);

  if (o.threads != 0 && k.kind_ != input_kind::raw) {
    return usage_error(sp.option("threads") +
                       " splits the totals of raw reports; this input is read in order: drop " +
                       sp.option("threads"));
  }
  if (k.kind_ == input_kind::raw) {
    auto buf = report_buffer::make(bytes, *k.format_);
    if (!buf) return k.bad(buf.error_value());
    k.buffer_.emplace(std::move(*buf));
  } else if (k.kind_ == input_kind::xe_stream) {
    auto st = xe_stream::make(bytes, *xe, o.xe_losses);
    if (!st) return k.bad(st.error_value());
    k.xe_stream_.emplace(std::move(*st));
  } else if (k.kind_ == input_kind::i915_stream) {
    auto st = i915_stream::make(bytes, *k.format_);
    if (!st) return k.bad(st.error_value());
    k.rows_.unknown_records = st->unknown_records();
    k.i915_stream_.emplace(std::move(*st));
  } else if (k.xrec_) {
    k.rows_.unknown_records = k.xrec_->unknown_records();
  } else {
    k.rows_.unknown_records = k.rec_->unknown_records();
  }
  return cap;
}

// capture.hpp's entry point: the same capture, behind the vendor-neutral interface.
inline result<std::unique_ptr<capture>> open_capture(capture_source src, const open_options& o,
                                                     const pipeline::spelling& sp) {
  auto c = open(std::move(src), o, sp);
  if (!c) return c.error_value();
  return std::unique_ptr<capture>(std::move(*c));
}

}  // namespace hwpc::intel
