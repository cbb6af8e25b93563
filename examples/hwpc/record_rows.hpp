// hwpc record --output: the rows of the recording, printed while it is
// recorded, as `hwpc decode FILE` (Intel) or `hwpc mali FILE` (Mali) print
// them once it is written. This door checks the option (check_output, as
// every other door) and chooses the writer; the rest is the library's.
//
// Intel on i915: live::intel_capture_rows, whose columns, writer parts and
// metric columns are those of the capture `hwpc decode` opens. What can only
// be written once the recording has ended (a trace, which places each
// interval on the CPU clock through the last correlation point; every row
// of an xe-perf recording, which has no incremental reader) is the capture
// of the finished file, written as `hwpc decode FILE` writes it.
//
// Mali: the rows come from live/mali_rows.hpp as they are sampled, into
// the writer whose parts (title, tracks) the capture `hwpc mali FILE` opens
// gives, opened on the file's header.
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
#include "hwpc/live/intel_capture_rows.hpp"
#include "hwpc/live/mali_rows.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "hwpc/pipeline/mali_capture.hpp"

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
    intel_ = std::make_unique<live::intel_capture_rows>(
        intel_options(), path, [this](const intel::oa_capture& c) -> row_writer& {
          print_dropped(c);
          made_ = output::make_writer(*choice_, out_, c.schema(), c.writer_parts(*choice_));
          return *made_.writer;
        });
  }

  void start_mali(const std::string& path) {
    if (!choice_) return;
    path_ = path;
    live::mali_rows_options o;
    o.per_instance = choice_->kind == output::writer_kind::perfetto;  // as hwpc mali does
    mali_ = std::make_unique<live::mali_rows>(
        o,
        [this, o](const row_schema& s, const mali::gpu_product&) {
          // The title and the trace's tracks are the capture's `hwpc mali
          // FILE` opens, here on the file's header (the bytes so far).
          mali::open_options mo;
          mo.per_instance = o.per_instance;
          head_.resize(std::min(head_.size(), mali::capture_header_bytes));
          auto cap =
              mali::open_capture(capture_source::own(std::move(head_), path_), mo, tool_spelling);
          output::writer_parts parts;
          if (cap) {
            mali_cap_ = std::move(*cap);
            parts = mali_cap_->writer_parts(*choice_);
          }
          made_ = output::make_writer(*choice_, out_, s, std::move(parts));
        },
        [this](const row& r) { made_.writer->write(r); });
  }

  // The next bytes the recorder writes. Bad bytes stop the rows, not the
  // recording (finish() reports them).
  bool take(std::span<const std::byte> b) {
    if (intel_) {
      (*intel_)(b);
      intel_->flush();
    }
    if (mali_) {
      if (!made_.writer) head_.insert(head_.end(), b.begin(), b.end());
      (*mali_)(b);
    }
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
    metrics_error_ = intel_->metrics_error();
    return end(intel_->finish());
  }

 private:
  live_rows() = default;
  live_rows(const live_rows&) = delete;
  live_rows& operator=(const live_rows&) = delete;

  bool is_trace() const {
    return choice_->kind == output::writer_kind::perfetto ||
           choice_->kind == output::writer_kind::chrome_json;
  }

  intel::open_options intel_options() const {
    intel::open_options o;
    if (metrics_file_) {
      o.metrics = metrics_file_;
      o.set = metric_set_;
    }
    return o;
  }

  // The metrics left out and why, before the rows (as decode says them).
  void print_dropped(const intel::oa_capture& c) const {
    for (const auto& d : c.dropped()) {
      std::fprintf(stderr, "hwpc %s: --metrics: %s\n", cmd_.c_str(), d.c_str());
    }
  }

  // Every row of the finished recording, written by its capture.
  int write_file() {
    metrics_error_.reset();
    auto cap = live::open_intel_capture(
        [&]() -> result<capture_source> {
          auto s = capture_source::map(path_);
          if (!s) {
            error e = s.error_value();
            e.message = e.describe();
            return e;
          }
          return s;
        },
        intel_options(), tool_spelling, metrics_error_);
    if (!cap) return end(cap.error_value());
    print_dropped(**cap);
    write_options w;
    w.choice = *choice_;
    return end((*cap)->write(w, out_));
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
  std::optional<error> metrics_error_;
  std::unique_ptr<live::intel_capture_rows> intel_;
  std::vector<std::byte> head_;  // Mali: the bytes before the writer is made
  std::unique_ptr<capture> mali_cap_;
  std::unique_ptr<live::mali_rows> mali_;
};

}  // namespace hwpc::cli
