// hwpc record --output: the rows of the recording, printed while it is
// recorded, as `hwpc decode FILE` (Intel) or `hwpc mali FILE` (Mali) print
// them once it is written. The rows come from the library's live row
// producers (live/intel_rows.hpp, live/mali_rows.hpp) fed with the bytes the
// recorder writes; the writers are make_writer's, the option is checked by
// check_output like every other door's.
//
// With --metrics/--set (Intel), the rows carry the set's metric columns, as
// `hwpc decode FILE --metrics` gives them: the columns are made at the first
// row, once DEVICE_INFO and DEVICE_TOPOLOGY have come (the device the
// formulas read), and the rows pass through pipeline::metric_rows.
//
// Intel traces (perfetto, chrome-json) place each interval on the CPU clock
// through the recording's correlation points, the last of which is taken
// when the recording ends: those two are written then, from the file, by the
// same row producer. Everything else streams, flushed after every read.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/time_correlation.hpp"
#include "hwpc/live/intel_rows.hpp"
#include "hwpc/live/mali_rows.hpp"
#include "hwpc/mali/tracks.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/pipeline/mapped_file.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
#include "hwpc/pipeline/metric_rows.hpp"

namespace hwpc::cli {

class live_rows {
 public:
  // Reads --output (none: no rows, every call below does nothing).
  static std::unique_ptr<live_rows> check(const parsed_args& a, std::string_view cmd, int& status) {
    std::unique_ptr<live_rows> r(new live_rows);
    r->cmd_ = std::string(cmd);
    if (auto o = a.get("output")) {
      auto choice = output::check_output(*o, false, cmd == "record mali" ? "sample" : "interval",
                                         ::isatty(STDOUT_FILENO) != 0);
      if (!choice) {
        status = fail(cmd, choice.error_value().message, exit_usage);
        return nullptr;
      }
      if (choice->kind == output::writer_kind::html) {
        status = fail(cmd,
                      "--output html is a report of a finished capture: record with --out, then "
                      "run `hwpc report FILE`",
                      exit_usage);
        return nullptr;
      }
      r->choice_ = *choice;
      r->metrics_file_ = a.get("metrics");
      r->metric_set_ = a.get("set").value_or("");
    }
    return r;
  }

  // Whether --output asked for rows.
  bool wanted() const noexcept { return choice_.has_value(); }

  void start_intel(const std::string& path) {
    if (!choice_) return;
    path_ = path;
    const bool trace = is_trace();
    // A trace waits for the last correlation point: it is written in finish().
    intel_ = make_intel(trace ? nullptr : &*choice_, nullptr);
  }

  void start_mali(const std::string& path) {
    if (!choice_) return;
    path_ = path;
    live::mali_rows_options o;
    o.per_instance = choice_->kind == output::writer_kind::perfetto;  // as hwpc mali does
    mali_ = std::make_unique<live::mali_rows>(
        o,
        [this](const row_schema& s, const mali::gpu_product& gpu) {
          output::writer_parts parts;
          parts.title = "hwpc mali " + s.source + ": " + path_;
          if (choice_->kind == output::writer_kind::perfetto) {
            parts.tracks = mali::track_layout_of(gpu, s, mali_->row_options());
            parts.vendor = "Arm";
            parts.model = std::string(gpu.name);
          }
          made_ = output::make_writer(*choice_, out_, s, std::move(parts));
        },
        [this](const row& r) { made_.writer->write(r); });
  }

  // The next bytes the recorder writes. Bad bytes stop the rows, not the
  // recording (finish() reports them).
  bool take(std::span<const std::byte> b) {
    // Until the metric columns are made, the recording's first records are
    // kept: they give the device the formulas read.
    if (intel_ && metrics_file_ && !is_trace() && !made_.writer) {
      head_.insert(head_.end(), b.begin(), b.end());
    }
    if (intel_) (*intel_)(b);
    if (mali_) (*mali_)(b);
    if (held_) held_->flush();
    out_.flush();
    return true;
  }

  // The end: the rows' end (a trace's rows for Intel), the accounting on
  // stderr when something did not become a row.
  int finish() {
    if (!choice_) return exit_ok;
    result<accounting> acc = accounting{};
    if (mali_) {
      acc = mali_->finish();
    } else if (intel_) {
      acc = intel_->finish();
      if (acc && is_trace()) acc = write_intel_trace();
      if (acc && want_ && !made_.writer) start_metric_writer(intel_->feed().consumed());
      if (held_) held_->flush();
    }
    if (!acc) {
      out_.flush();
      return fail(cmd_, "--output: " + path_ + ": " + acc.error_value().describe(), exit_bad_input);
    }
    if (made_.writer) made_.writer->end(*acc);
    out_.flush();
    if (acc->anything_dropped()) {
      std::fprintf(stderr, "hwpc %s: %s: %s\n", cmd_.c_str(), path_.c_str(),
                   output::describe(*acc).c_str());
    }
    if (metrics_error_) {
      return fail(cmd_, "--metrics: " + metrics_error_->describe() + " (the rows have no metrics)",
                  exit_bad_input);
    }
    return exit_ok;
  }

 private:
  live_rows() = default;
  live_rows(const live_rows&) = delete;
  live_rows& operator=(const live_rows&) = delete;

  bool is_trace() const {
    return choice_->kind == output::writer_kind::perfetto ||
           choice_->kind == output::writer_kind::chrome_json;
  }

  // Rows into a writer of `choice` (none: the rows are only checked), on
  // `time` for a trace.
  std::unique_ptr<live::intel_rows> make_intel(const output::output_choice* choice,
                                               const intel::time_correlation* time) {
    live::intel_rows::schema_fn on_schema;
    if (choice != nullptr) {
      on_schema = [this, choice, time](const row_schema& s, const intel::recording_feed& f) {
        if (metrics_file_) {
          // The metric columns need the topology, which follows DEVICE_INFO:
          // the writer is made at the first row (or the end).
          want_ = writer_wish{choice, time, &f, s};
          return;
        }
        make_intel_writer(*choice, time, f, s);
      };
    }
    return std::make_unique<live::intel_rows>(std::move(on_schema), [this](row& r) {
      if (want_ && !made_.writer) start_metric_writer(r.offset);
      if (held_) {
        held_->add(r);
      } else if (made_.writer) {
        made_.writer->write(r);
      }
    });
  }

  void make_intel_writer(const output::output_choice& choice, const intel::time_correlation* time,
                         const intel::recording_feed& f, const row_schema& s) {
    output::writer_parts parts;
    if (time != nullptr && !time->empty()) {
      parts.to_ns = [time](std::uint64_t ticks) { return time->to_cpu(ticks).ns; };
      parts.correlation = output::perfetto::clock_pairs(time->points(), f.timestamp_frequency());
    }
    parts.title = "hwpc " + std::string(intel::name_of(f.device_platform())) + " " +
                  std::string(f.format().name) + ": " + path_;
    parts.vendor = "Intel";
    parts.model = std::string(intel::name_of(f.device_platform()));
    parts.metric_group = metric_set_;
    made_ = output::make_writer(choice, out_, s, std::move(parts));
  }

  // The writer with the metric columns of --metrics/--set, computed as
  // `hwpc decode FILE --metrics` computes them: on the device the
  // recording's first `cut` bytes describe (DEVICE_INFO, DEVICE_TOPOLOGY).
  void start_metric_writer(std::size_t cut) {
    const writer_wish& w = *want_;
    const byte_span head = head_view_.empty() ? byte_span(head_.data(), head_.size()) : head_view_;
    auto rec = intel::recording::make(head.first(std::min(cut, head.size())));
    metrics::intel_device dev =
        rec ? metrics::device_of(*rec) : metrics::device_of(w.feed->device_platform());
    if (dev.timestamp_frequency_hz == 0) dev.timestamp_frequency_hz = w.feed->timestamp_frequency();
    schema_ = w.schema;
    auto m = pipeline::load_metric_columns(*metrics_file_, metric_set_, schema_,
                                           metrics::to_device_values(dev));
    if (m) {
      for (const auto& d : m->dropped()) {
        std::fprintf(stderr, "hwpc %s: --metrics: %s\n", cmd_.c_str(),
                     metrics::describe(d).c_str());
      }
      columns_.emplace(std::move(*m));
      schema_.metrics = columns_->columns();
    } else {
      metrics_error_ = m.error_value();
    }
    make_intel_writer(*w.choice, w.time, *w.feed, schema_);
    if (columns_) held_.emplace(*columns_, schema_.counters.size(), *made_.writer);
    head_.clear();
    head_.shrink_to_fit();
  }

  // The trace of the finished recording, through the same row producer, on
  // the clock of all its correlation points.
  result<accounting> write_intel_trace() {
    auto time = intel_->feed().time();
    if (!time) return time.error_value();
    time_ = std::move(*time);
    auto file = pipeline::mapped_file::open(path_);
    if (!file) return file.error_value();
    reread_.emplace(std::move(*file));
    head_view_ = reread_->bytes();
    auto again = make_intel(&*choice_, &time_);
    (*again)(reread_->bytes());
    auto acc = again->finish();
    intel_ = std::move(again);
    return acc;
  }

  std::string cmd_;
  std::string path_;
  std::optional<output::output_choice> choice_;
  output::text_buffer out_{stdout};
  output::made_writer made_;
  intel::time_correlation time_;
  // --metrics/--set (Intel): the columns, and the rows held a block at a
  // time while their metrics are evaluated (flushed after every read).
  struct writer_wish {
    const output::output_choice* choice;
    const intel::time_correlation* time;
    const intel::recording_feed* feed;
    row_schema schema;
  };
  std::optional<std::string> metrics_file_;
  std::string metric_set_;
  std::optional<writer_wish> want_;
  std::vector<std::byte> head_;
  std::optional<pipeline::mapped_file> reread_;  // the file, when the trace rereads it
  byte_span head_view_;
  row_schema schema_;
  std::optional<metrics::row_metrics> columns_;
  std::optional<pipeline::metric_rows> held_;
  std::optional<error> metrics_error_;
  std::unique_ptr<live::intel_rows> intel_;
  std::unique_ptr<live::mali_rows> mali_;
};

}  // namespace hwpc::cli
