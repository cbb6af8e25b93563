// The rows of an i915 recording while it is recorded: give it every piece
// of bytes live::record_i915 writes, and it calls back with the rows `hwpc
// decode FILE` prints for the finished file (intel::recording_feed finds the
// records, intel::row_stream takes the deltas; no decoder of its own).
//
//   live::intel_rows rows(
//       [&](const row_schema& s, const intel::recording_feed&) { /* make the writer */ },
//       [&](row& r) { writer.write(r); });
//   live::record_i915(sys, opts, [&](std::span<const std::byte> b) {
//     return write_file(b) && rows(b);   // rows(b) is false after bad bytes: rows.error()
//   }, stop);
//   auto acc = rows.finish();             // the accounting, as hwpc decode's
//
// The schema is known once DEVICE_INFO has come (the first piece the
// recorder writes); on_schema is called then, before any row.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/intel/recording_feed.hpp"
#include "hwpc/intel/rows.hpp"

namespace hwpc::live {

class intel_rows {
 public:
  using schema_fn = std::function<void(const row_schema&, const intel::recording_feed&)>;
  using row_fn = std::function<void(row&)>;

  intel_rows(schema_fn on_schema, row_fn on_row, intel::row_options opt = {},
             intel::recording_options ro = {})
      : on_schema_(std::move(on_schema)),
        on_row_(std::move(on_row)),
        opt_(opt),
        feed_(std::move(ro)) {}

  // The next bytes of the recording. False after bad bytes (error() says
  // which and where); the recording itself goes on.
  bool operator()(std::span<const std::byte> piece) {
    if (error_) return false;
    auto ok = feed_.feed(piece, [&](const intel::capture_event& e) {
      start();
      rows_->feed(e, on_row_);
    });
    if (!ok) {
      error_ = ok.error_value();
      return false;
    }
    if (feed_.has_device()) start();
    return true;
  }

  // The end of the recording: the accounting of every record, or the error.
  result<accounting> finish() {
    if (error_) return *error_;
    if (auto ok = feed_.finish(); !ok) return ok.error_value();
    start();
    rows_->set_unknown_records(feed_.unknown_records());
    return rows_->totals();
  }

  // The accounting of the records so far (finish() gives the last).
  accounting totals() {
    if (!rows_) return {};
    rows_->set_unknown_records(feed_.unknown_records());
    return rows_->totals();
  }

  const std::optional<error>& error_value() const noexcept { return error_; }
  const intel::recording_feed& feed() const noexcept { return feed_; }
  const std::optional<row_schema>& schema() const noexcept { return schema_; }

 private:
  void start() {
    if (rows_) return;
    const intel::platform p = feed_.device_platform();
    schema_ = intel::schema_of(feed_.format(), p, /*has_losses=*/true, feed_.timestamp_frequency());
    rows_.emplace(feed_.format(), intel::generation_of(p), opt_);
    if (on_schema_) on_schema_(*schema_, feed_);
  }

  schema_fn on_schema_;
  row_fn on_row_;
  intel::row_options opt_;
  intel::recording_feed feed_;
  std::optional<row_schema> schema_;
  std::optional<intel::row_stream> rows_;
  std::optional<error> error_;
};

}  // namespace hwpc::live
