// A live recording, whole: the one object both doors (`hwpc record
// intel|mali`, hwpc.intel.record / hwpc.mali.record) drive, so that neither
// assembles the steps itself. make() checks the options
// (recording_options.hpp); run() asks the node which driver it is (i915,
// Xe, kbase), opens the stream or session (choosing, or uploading and at
// the end removing, the metric set), writes the recording file, hands its
// rows to the door's recording_rows, and returns what the kernel handed out;
// stop() (async-signal-safe) ends it as Ctrl-C does: the reports still in
// the kernel's buffer are read and the file is complete.
//
// The file is created with the first bytes, after the device and the kernel
// accepted the stream: a refusal leaves no file behind.
//
// Rows: on i915 and kbase as the bytes come (live/intel_capture_rows.hpp,
// live/mali_rows.hpp); from the finished file where no incremental reader
// exists (an Xe recording) or the door asks for it (a trace, which places
// each interval through the last correlation point).
//
//   auto rec = live::recording::make(opts, pipeline::spelling{pipeline::door::tool});
//   auto summary = (*rec)->run(&rows);   // (*rec)->stop() from a signal handler
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/live/intel_capture_rows.hpp"
#include "hwpc/live/recording_options.hpp"
#include "hwpc/live/recording_summary.hpp"
#include "hwpc/live/xe_record.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/mali_capture.hpp"

namespace hwpc::live {

// Where a recording's rows go: the door's (the tool's writer, Python's
// columns). Called on the thread that runs the recording.
class recording_rows {
 public:
  virtual ~recording_rows() = default;
  // The writer of the rows, asked once when their columns are known. `head`:
  // the capture of the recording so far (the metric set bound to its
  // device, the writer parts), null if it could not be opened.
  virtual row_writer& start(const row_schema& columns, const capture* head) = 0;
  // Whether the rows wait for the finished file (a trace).
  virtual bool from_file() const { return false; }
  // The finished recording's rows, the writer ended; by default those
  // write_rows gives, into start()'s writer.
  virtual result<accounting> write_file(capture& c) { return c.write_rows(start(c.schema(), &c)); }
  // After every piece of the recording: the rows' accounting so far and
  // the bytes written.
  virtual void progress(const accounting& /*so_far*/, std::size_t /*bytes*/) {}
};

class recording {
 public:
  static result<std::unique_ptr<recording>> make(const recording_options& o,
                                                 pipeline::spelling sp = {},
                                                 syscalls& sys = real_kernel()) {
    auto plan = check(o, sp);
    if (!plan) return plan.error_value();
    return std::unique_ptr<recording>(new recording(std::move(*plan), sp, sys));
  }
  recording(const recording&) = delete;
  recording& operator=(const recording&) = delete;
  ~recording() { close_file(); }

  // Records until stop() or the duration; `rows` may be null (no rows).
  // Errors: the device's or the kernel's refusal (what to change), the file,
  // the rows (bad bytes; a metric set that could not be bound).
  result<recording_summary> run(recording_rows* rows) {
    if (plan_.duration_ns) deadline_ = monotonic_ns() + *plan_.duration_ns;
    recording_summary s;
    result<void> done = plan_.vendor == record_vendor::mali          ? run_mali(rows, s)
                        : xe_device::is_xe(sys_, plan_.intel.device) ? run_xe(rows, s)
                                                                     : run_i915(rows, s);
    s.bytes = bytes_;
    if (!close_file() && done) done = live_error("cannot write " + *plan_.out);
    if (!done) return done.error_value();
    return s;
  }

  // Asks the recording to end; safe in a signal handler and from any thread.
  void stop() noexcept { stop_.store(true, std::memory_order_relaxed); }

  const std::optional<std::string>& out() const noexcept { return plan_.out; }

 private:
  static_assert(std::atomic<bool>::is_always_lock_free, "stop() must be async-signal-safe");

  recording(recording_plan p, pipeline::spelling sp, syscalls& sys)
      : plan_(std::move(p)), sp_(sp), sys_(sys) {}

  bool stopping() const {
    return stop_.load(std::memory_order_relaxed) || (deadline_ && monotonic_ns() >= *deadline_);
  }
  std::string name() const { return plan_.out.value_or("(live recording)"); }

  // The recording's bytes into the file, created with the first of them.
  bool to_file(std::span<const std::byte> b) {
    bytes_ += b.size();
    if (!plan_.out) return true;
    if (file_ == nullptr && !file_failed_) {
      file_ = std::fopen(plan_.out->c_str(), "wb");
      file_failed_ = file_ == nullptr;
    }
    if (file_failed_ || std::fwrite(b.data(), 1, b.size(), file_) != b.size() ||
        std::fflush(file_) != 0) {
      file_failed_ = true;
      return false;
    }
    return true;
  }
  bool close_file() {
    if (file_ == nullptr) return !file_failed_;
    file_failed_ = std::fclose(file_) != 0 || file_failed_;
    file_ = nullptr;
    return !file_failed_;
  }
  // The recorder's "cannot write" says which file.
  template <class Counts>
  result<Counts> named(result<Counts> r) const {
    if (!r && file_failed_) return live_error("cannot write " + *plan_.out);
    return r;
  }

  result<void> run_i915(recording_rows* rows, recording_summary& s) {
    const bool live = rows != nullptr && !rows->from_file();
    row_writer* writer = nullptr;
    std::optional<intel_capture_rows> feed;
    if (live) {
      feed.emplace(
          plan_.intel_rows, name(),
          [&](const intel::oa_capture& c) -> row_writer& {
            writer = &rows->start(c.schema(), &c);
            return *writer;
          },
          sp_);
    }
    auto counts = named(record_i915(
        sys_, plan_.intel,
        [&](std::span<const std::byte> b) {
          if (!to_file(b)) return false;
          if (feed) {
            (*feed)(b);
            feed->flush();
          }
          if (rows) rows->progress(feed ? feed->totals() : accounting{}, bytes_);
          return true;
        },
        [&] { return stopping(); }));
    if (!counts) return counts.error_value();
    s.samples = counts->samples;
    s.report_lost = counts->report_lost;
    s.buffer_lost = counts->buffer_lost;
    if (rows == nullptr) return {};
    // A trace, or a recording whose head gave no capture (or no row): its
    // rows from the finished file, as decode writes them.
    if (!feed || feed->capture() == nullptr) return rows_from_file(*rows, s);
    auto acc = feed->finish();
    if (!acc) return rows_error(acc.error_value());
    writer->end(*acc);
    s.rows = *acc;
    return metrics_bound(feed->metrics_error());
  }

  result<void> run_xe(recording_rows* rows, recording_summary& s) {
    if (rows != nullptr && !plan_.out) {
      return usage_error("the rows of an Xe recording are read from its file: " +
                         intel::spell::arg(sp_, "out", "FILE"));
    }
    s.xe = true;
    auto counts = named(record_xe(
        sys_, plan_.intel,
        [&](std::span<const std::byte> b) {
          if (!to_file(b)) return false;
          if (rows) rows->progress(accounting{}, bytes_);
          return true;
        },
        [&] { return stopping(); }));
    if (!counts) return counts.error_value();
    s.samples = counts->samples;
    s.report_lost = counts->report_lost;
    s.buffer_lost = counts->buffer_lost;
    s.failed_reads = counts->failed_reads;
    s.status_bits = counts->status_bits;
    if (rows == nullptr) return {};
    return rows_from_file(*rows, s);
  }

  result<void> rows_from_file(recording_rows& rows, recording_summary& s) {
    if (!close_file() || !plan_.out) return {};  // no file: no rows (the run's error says why)
    std::optional<error> metrics_error;
    auto cap = open_intel_capture(
        [&]() -> result<capture_source> {
          auto src = capture_source::map(*plan_.out);
          if (!src) {
            error e = src.error_value();
            e.message = e.describe();
            return e;
          }
          return src;
        },
        plan_.intel_rows, sp_, metrics_error);
    if (!cap) return rows_error(cap.error_value());
    auto acc = rows.write_file(**cap);
    if (!acc) return rows_error(acc.error_value());
    s.rows = *acc;
    return metrics_bound(metrics_error);
  }

  result<void> run_mali(recording_rows* rows, recording_summary& s) {
    s.mali = true;
    row_writer* writer = nullptr;
    std::vector<std::byte> head;  // the bytes before the writer is made
    std::unique_ptr<capture> head_capture;
    std::optional<mali_rows> feed;
    if (rows != nullptr) {
      feed.emplace(
          plan_.mali_rows,
          [&](const row_schema& columns, const mali::gpu_product&) {
            // The capture `hwpc mali FILE` opens, on the file's header.
            mali::open_options mo;
            mo.per_instance = plan_.mali_rows.per_instance;
            if (plan_.mali_rows.names == mali::counter_naming::streamline) mo.names = "streamline";
            head.resize(std::min(head.size(), mali::capture_header_bytes));
            auto cap = mali::open_capture(capture_source::own(std::move(head), name()), mo, sp_);
            if (cap) head_capture = std::move(*cap);
            writer = &rows->start(columns, head_capture.get());
          },
          [&](const row& r) { writer->write(r); });
    }
    auto counts = named(record_mali(
        sys_, plan_.mali,
        [&](std::span<const std::byte> b) {
          if (!to_file(b)) return false;
          if (feed) {
            if (writer == nullptr) head.insert(head.end(), b.begin(), b.end());
            (*feed)(b);
          }
          if (rows) rows->progress(feed ? feed->totals() : accounting{}, bytes_);
          return true;
        },
        [&] { return stopping(); }));
    if (!counts) return counts.error_value();
    s.samples = counts->samples;
    s.overflow = counts->overflow;
    if (!feed) return {};
    auto acc = feed->finish();
    if (!acc) {
      error e = acc.error_value();
      e.message = name() + ": " + e.describe();
      return rows_error(e);
    }
    if (writer != nullptr) writer->end(*acc);
    s.rows = *acc;
    return {};
  }

  // The recording is complete; its rows are not. The message is the whole line.
  static error rows_error(error e) {
    e.message = "the recording's rows: " + e.message;
    return e;
  }
  static result<void> metrics_bound(const std::optional<error>& metrics_error) {
    if (!metrics_error) return {};
    error e = *metrics_error;
    e.message += " (the rows have no metrics)";
    return e;
  }

  recording_plan plan_;
  pipeline::spelling sp_;
  syscalls& sys_;
  std::atomic<bool> stop_{false};
  std::optional<std::uint64_t> deadline_;
  std::FILE* file_ = nullptr;
  bool file_failed_ = false;
  std::size_t bytes_ = 0;
};

}  // namespace hwpc::live
