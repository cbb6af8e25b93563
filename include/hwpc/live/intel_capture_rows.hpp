// The rows of an i915 recording while it is recorded, as the capture `hwpc
// decode FILE` opens gives them for the finished file: the same columns,
// writer parts and metric columns, because they are that capture's.
//
// live::intel_rows (the live row producer) makes the rows from the bytes
// the recorder writes; when the first row comes, the Intel capture
// (pipeline/intel_capture.hpp) is opened on everything before it (VERSION,
// DEVICE_INFO, DEVICE_TOPOLOGY, the first correlation point), which binds
// the metric set of `open_options` to the recording's device. `on_start`
// is then asked for the writer (from the capture's schema() and
// writer_parts()), and every row goes to it, with its metric cells filled
// a block at a time (pipeline::metric_rows) as decode fills them.
//
//   live::intel_capture_rows rows(opts, path, [&](const intel::oa_capture& c) -> row_writer& {
//     made = output::make_writer(choice, out, c.schema(), c.writer_parts(choice));
//     return *made.writer;
//   });
//   live::record_i915(sys, o, [&](auto b) { write_file(b); rows(b); rows.flush(); return true; },
//                     stop);
//   auto acc = rows.finish();   // then writer.end(*acc), as the door's writer is its own
//
// A metric file that cannot be bound leaves the rows without metrics
// (metrics_error() says why), as decode would refuse it only after the
// recording. If the head cannot be opened at all, no row is written and
// failed_start() says so: the door writes the rows from the finished file.
// Errors carry in `message` the whole line a door shows ("NAME: ..."), as
// intel_capture.hpp's do.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/live/intel_rows.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "hwpc/pipeline/metric_rows.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::live {

// The capture of `source()` with the metric columns `o` names; when the
// metric file cannot be bound (a set the file lacks, a malformed file), the
// capture without metrics and the reason in `metrics_error`.
inline result<std::unique_ptr<intel::oa_capture>> open_intel_capture(
    const std::function<result<capture_source>()>& source, intel::open_options o,
    const pipeline::spelling& sp, std::optional<error>& metrics_error) {
  auto src = source();
  if (!src) return src.error_value();
  const bool metrics = o.metrics.has_value();
  auto cap = intel::open(std::move(*src), o, sp);
  // open() words a metric file's failure "--metrics: ..." (intel_capture.hpp).
  if (!cap && metrics && cap.error_value().message.starts_with(sp.option("metrics") + ": ")) {
    metrics_error = cap.error_value();
    o.metrics.reset();
    o.set.clear();
    src = source();
    if (!src) return src.error_value();
    cap = intel::open(std::move(*src), std::move(o), sp);
  }
  return cap;
}

class intel_capture_rows {
 public:
  using start_fn = std::function<row_writer&(const intel::oa_capture&)>;

  // `name`: what the rows' title and messages call the recording (its path).
  intel_capture_rows(intel::open_options o, std::string name, start_fn on_start,
                     pipeline::spelling sp = {})
      : options_(std::move(o)),
        name_(std::move(name)),
        on_start_(std::move(on_start)),
        sp_(sp),
        rows_(nullptr, [this](row& r) { take_row(r); }) {}
  intel_capture_rows(const intel_capture_rows&) = delete;
  intel_capture_rows& operator=(const intel_capture_rows&) = delete;

  // The next bytes of the recording. False after bad bytes (finish() says
  // which and where); the recording itself goes on.
  bool operator()(std::span<const std::byte> piece) {
    // Until the capture is opened, the recording's head is kept.
    if (!cap_ && !failed_start_) head_.insert(head_.end(), piece.begin(), piece.end());
    return rows_(piece);
  }

  // The rows held for their metrics, out now (after every read).
  void flush() {
    if (held_) held_->flush();
  }

  // The end: the last rows, then the accounting (the writer is not ended:
  // it is the caller's). Bad bytes, or reports the OA unit never wrote, are
  // the error.
  result<accounting> finish() {
    auto acc = rows_.finish();
    flush();
    if (!acc) {
      error e = acc.error_value();
      e.message = name_ + ": " + e.describe();
      return e;
    }
    if (cap_) {
      if (auto e = cap_->all_unwritten(*acc)) return *e;
    }
    return acc;
  }

  // The accounting of the records so far.
  accounting totals() { return rows_.totals(); }

  // The capture of the recording's head (null before the first row).
  const intel::oa_capture* capture() const noexcept { return cap_.get(); }
  // Why the rows have no metric columns although the options named a set.
  const std::optional<error>& metrics_error() const noexcept { return metrics_error_; }
  // The head could not be opened: no row was written.
  bool failed_start() const noexcept { return failed_start_; }

 private:
  void take_row(row& r) {
    if (failed_start_) return;
    if (!cap_ && !start(r.offset)) return;
    if (held_) {
      held_->add(r);
    } else {
      writer_->write(r);
    }
  }

  // Opens the capture on the recording's first `cut` bytes (everything
  // before the first row) and asks for the writer.
  bool start(std::size_t cut) {
    cut = std::min(cut, head_.size());
    std::vector<std::byte> head(head_.begin(), head_.begin() + static_cast<std::ptrdiff_t>(cut));
    auto cap = open_intel_capture(
        [&]() -> result<capture_source> { return capture_source::own(head, name_); }, options_, sp_,
        metrics_error_);
    head_.clear();
    head_.shrink_to_fit();
    if (!cap) {
      failed_start_ = true;
      metrics_error_.reset();
      return false;
    }
    cap_ = std::move(*cap);
    writer_ = &on_start_(*cap_);
    if (auto* m = cap_->metric_columns())
      held_.emplace(*m, cap_->schema().counters.size(), *writer_);
    return true;
  }

  intel::open_options options_;
  std::string name_;
  start_fn on_start_;
  pipeline::spelling sp_;
  std::vector<std::byte> head_;
  std::unique_ptr<intel::oa_capture> cap_;
  row_writer* writer_ = nullptr;
  std::optional<pipeline::metric_rows> held_;
  std::optional<error> metrics_error_;
  bool failed_start_ = false;
  intel_rows rows_;  // last: its row callback reaches the members above
};

}  // namespace hwpc::live
