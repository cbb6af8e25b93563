// hwpc record --output: the rows of the recording, printed while it is
// recorded, as `hwpc decode FILE` (Intel) or `hwpc mali FILE` (Mali) print
// them once it is written. The option is checked by check_output like every
// other door's; everything else is the library's.
//
// Intel: the columns, the writer's parts (title, vendor, model, metric set)
// and the set's metric columns on the recording's device are the Intel
// capture's (pipeline/intel_capture.hpp), opened on the recording's first
// records (DEVICE_INFO, DEVICE_TOPOLOGY) when the first row comes; the rows
// come from the live row producer (live/intel_rows.hpp) and take their
// metrics through pipeline::metric_rows, a block at a time, as decode's do.
// What can only be written once the recording has ended (a trace, which
// places each interval on the CPU clock through the last correlation point;
// every row of an xe-perf recording, which has no live reader) is the
// capture of the finished file, written as `hwpc decode FILE` writes it.
//
// Mali: the rows come from live/mali_rows.hpp as they are sampled.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "hwpc/live/intel_rows.hpp"
#include "hwpc/live/mali_rows.hpp"
#include "hwpc/mali/tracks.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
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

  // An Intel recording into `path`; `live`: its records can be read as they
  // come (i915), else its rows are written from the file when it ends (Xe).
  void start_intel(const std::string& path, bool live) {
    if (!choice_) return;
    path_ = path;
    if (!live || is_trace()) return;  // finish() writes the rows from the file
    intel_ = std::make_unique<live::intel_rows>(nullptr, [this](row& r) { intel_row(r); });
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
    // Until the capture is opened, the recording's first records are kept:
    // they give the device the metric formulas read.
    if (intel_ && !cap_) head_.insert(head_.end(), b.begin(), b.end());
    if (intel_) (*intel_)(b);
    if (mali_) (*mali_)(b);
    if (held_) held_->flush();
    out_.flush();
    return true;
  }

  // The end: the rows' end (or all of them, from the file), the accounting
  // on stderr when something did not become a row.
  int finish() {
    if (!choice_) return exit_ok;
    if (mali_) return end(mali_->finish());
    // A trace, an Xe recording, a recording without a row yet (or whose
    // head the capture could not read): the finished file, as decode writes it.
    if (!intel_ || !made_.writer) return write_file();
    auto acc = intel_->finish();
    if (held_) held_->flush();
    if (!acc) {
      error e = acc.error_value();
      e.message = path_ + ": " + e.describe();
      acc = e;
    } else if (auto e = cap_->all_unwritten(*acc)) {
      made_.writer->end(*acc);
      acc = *e;
    }
    return end(acc);
  }

 private:
  live_rows() = default;
  live_rows(const live_rows&) = delete;
  live_rows& operator=(const live_rows&) = delete;

  bool is_trace() const {
    return choice_->kind == output::writer_kind::perfetto ||
           choice_->kind == output::writer_kind::chrome_json;
  }

  // The Intel capture of `source()`, with the metric columns of
  // --metrics/--set; a metric file that cannot be bound leaves the rows
  // without metrics (finish() says why), as before any door's rows.
  result<std::unique_ptr<intel::oa_capture>> open_intel(
      const std::function<result<capture_source>()>& source) {
    intel::open_options o;
    if (metrics_file_) {
      o.metrics = metrics_file_;
      o.set = metric_set_;
    }
    auto src = source();
    if (!src) return src.error_value();
    auto cap = intel::open(std::move(*src), o, tool_spelling);
    if (!cap && o.metrics && cap.error_value().message.starts_with("--metrics: ")) {
      metrics_error_ = cap.error_value();
      o.metrics.reset();
      o.set.clear();
      src = source();
      if (!src) return src.error_value();
      cap = intel::open(std::move(*src), o, tool_spelling);
    }
    if (cap) {
      for (const auto& d : (*cap)->dropped()) {
        std::fprintf(stderr, "hwpc %s: --metrics: %s\n", cmd_.c_str(), d.c_str());
      }
    }
    return cap;
  }

  // A row of the live producer: the first opens the capture on the
  // recording's head (everything before the row) and makes the writer.
  void intel_row(row& r) {
    if (head_failed_) return;
    if (!cap_) {
      const std::size_t cut = std::min<std::size_t>(r.offset, head_.size());
      std::vector<std::byte> head(head_.begin(), head_.begin() + static_cast<std::ptrdiff_t>(cut));
      auto cap =
          open_intel([&]() -> result<capture_source> { return capture_source::own(head, path_); });
      head_.clear();
      head_.shrink_to_fit();
      if (!cap) {
        head_failed_ = true;  // finish() writes the rows from the file
        metrics_error_.reset();
        return;
      }
      cap_ = std::move(*cap);
      made_ = output::make_writer(*choice_, out_, cap_->schema(), cap_->writer_parts(*choice_));
      if (auto* m = cap_->metric_columns()) {
        held_.emplace(*m, cap_->schema().counters.size(), *made_.writer);
      }
    }
    if (held_) {
      held_->add(r);
    } else {
      made_.writer->write(r);
    }
  }

  // Every row of the finished recording, written by its capture.
  int write_file() {
    auto cap = open_intel([&]() -> result<capture_source> {
      auto s = capture_source::map(path_);
      if (!s) {
        error e = s.error_value();
        e.message = e.describe();
        return e;
      }
      return s;
    });
    if (!cap) return end(cap.error_value());
    write_options w;
    w.choice = *choice_;
    auto acc = (*cap)->write(w, out_);
    return end(acc);
  }

  // The accounting on stderr, or the error (its message the whole line).
  int end(const result<accounting>& acc) {
    out_.flush();
    if (!acc) {
      const error& e = acc.error_value();
      const std::string line = mali_ ? path_ + ": " + e.describe() : e.message;
      return fail(cmd_, "--output: " + line, exit_bad_input);
    }
    if (made_.writer) made_.writer->end(*acc);
    out_.flush();
    if (acc->anything_dropped()) {
      std::fprintf(stderr, "hwpc %s: %s: %s\n", cmd_.c_str(), path_.c_str(),
                   output::describe(*acc).c_str());
    }
    if (metrics_error_) {
      return fail(cmd_, metrics_error_->message + " (the rows have no metrics)", exit_bad_input);
    }
    return exit_ok;
  }

  static inline const pipeline::spelling tool_spelling{pipeline::door::tool};

  std::string cmd_;
  std::string path_;
  std::optional<output::output_choice> choice_;
  output::text_buffer out_{stdout};
  output::made_writer made_;
  std::optional<std::string> metrics_file_;
  std::string metric_set_;
  // Intel: the recording's head until the capture is opened on it, the
  // capture (its schema, parts and metric columns), the rows held a block
  // at a time while their metrics are evaluated (flushed after every read).
  std::vector<std::byte> head_;
  std::unique_ptr<intel::oa_capture> cap_;
  bool head_failed_ = false;
  std::optional<pipeline::metric_rows> held_;
  std::optional<error> metrics_error_;
  std::unique_ptr<live::intel_rows> intel_;
  std::unique_ptr<live::mali_rows> mali_;
};

}  // namespace hwpc::cli
