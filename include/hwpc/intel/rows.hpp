// Intel OA captures as rows of the row contract (core/row.hpp).
//
// Any capture source (raw_capture, oa_ring, i915_stream, recording) goes
// through one delta_tracker; each interval and each loss becomes a row:
//
//   auto schema = hwpc::intel::schema_of(format, platform, /*has_losses=*/true, hz);
//   hwpc::intel::row_options opt;                 // optional context filter
//   opt.unknown_records = stream.unknown_records();
//   hwpc::accounting acc = hwpc::intel::for_each_row(stream, gen, opt,
//       [&](hwpc::row& r) { writer.write(r); });
//
// The row's `report` is the later report's index among every report event
// of the source (zero-RPT_ID slots of a raw file included, as the emulator's
// truth CSV counts them), so the same report has the same number in a raw
// file, a stream and a recording; `offset` is its record's byte offset in
// the input (a stream's or recording's record header, a raw file's report).
// `context` is the earlier report's CTX_ID, the context the interval ran
// in, present only when that report's context-valid bit is set. A loss row
// carries the number of reports before it and the loss record's offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "hwpc/core/row.hpp"
#include "hwpc/intel/accumulate.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/rpt_id.hpp"

namespace hwpc::intel {

// The schema of a format's rows: one counter column per counter_list entry.
inline row_schema schema_of(const report_format& f, platform p, bool has_losses,
                            std::uint64_t timestamp_hz) {
  row_schema s;
  s.source = std::string(name_of(p)) + " " + std::string(f.name);
  for (const field* fd : counter_list(f)) {
    s.counters.push_back({std::string(fd->name),
                          fd->kind == field_kind::gpu_ticks ? "cycles" : "events",
                          column_kind::counter});
  }
  s.clock = clock_kind::gpu_timestamp;
  s.ticks_per_second = timestamp_hz;
  s.has_context = f.first_of(field_kind::ctx_id) != nullptr;
  s.has_losses = has_losses;
  return s;
}

struct row_options {
  // Keep only the intervals that ran in `context` (Gen8+).
  std::optional<context_filter> filter;
  std::uint32_t context = 0;
  // Records the source skipped because it does not know their type.
  std::size_t unknown_records = 0;
};

// Turns one interval into a row; `reason` keeps the reason text alive.
inline row interval_row(const capture_interval& iv, bool has_ctx_field, std::string& reason) {
  row r;
  r.report = iv.report;
  r.offset = iv.offset;
  r.begin = iv.timestamp - iv.elapsed_ticks;
  r.end = iv.timestamp;
  r.counters = iv.deltas;
  // An interval across a loss says so: its counts cover the lost reports'
  // periods too (capture.hpp, loss_bound.hpp).
  reason = iv.across_loss ? std::string("across-loss") : reason_names(iv.rpt);
  r.reason = reason;
  r.has_context = has_ctx_field && iv.earlier_rpt.context_valid;
  r.context = r.has_context ? iv.earlier_ctx_id : 0;
  return r;
}

inline row loss_row(const capture_discontinuity& d) {
  row r;
  r.report = d.report;
  r.offset = d.offset;
  r.reason = to_string(d.kind);
  r.lost = true;
  return r;
}

// Where every event the tracker saw went. `across_kept`: the rows kept that
// span a loss (of rows_kept).
inline accounting accounting_of(const capture_stats& st, std::size_t rows_kept, std::size_t unknown,
                                std::size_t across_kept = 0) {
  accounting a;
  a.reports = st.report_events;
  a.intervals = rows_kept;
  a.across_loss = across_kept;
  a.filtered = st.intervals - rows_kept;
  a.stretch_starts = st.stretches - st.unbridged;
  a.unbridged = st.unbridged;
  a.skipped_zero = st.skipped_zero;
  a.report_lost = st.by_kind[static_cast<std::size_t>(event_kind::report_lost)];
  a.buffer_lost = st.by_kind[static_cast<std::size_t>(event_kind::buffer_lost)];
  a.overflow = st.by_kind[static_cast<std::size_t>(event_kind::counter_overflow)];
  a.gaps = st.by_kind[static_cast<std::size_t>(event_kind::gap)];
  a.unknown = unknown;
  a.records = a.reports + a.lost() + a.unknown;
  return a;
}

// The accounting of accumulate() over a raw buffer: every slot is a report,
// raw buffers have no loss records, and zero-RPT_ID slots do not break the
// one stretch (the interval bridges them, as in for_each_row).
inline accounting accounting_of(const accumulation& acc) {
  accounting a;
  a.reports = acc.reports + acc.skipped_zero;
  a.records = a.reports;
  a.intervals = acc.intervals;
  a.stretch_starts = acc.reports != 0 ? 1 : 0;
  a.skipped_zero = acc.skipped_zero;
  return a;
}

// The rows of a capture fed one event at a time, for sources that arrive
// in pieces (a live stream, a file still being written): the delta state
// lives here between calls, and totals() is the accounting so far.
// for_each_row below is this over a whole source, so both give the same rows.
class row_stream {
 public:
  // Keeps a pointer to the format (one of the static tables of formats.hpp).
  row_stream(const report_format&& f, generation gen, const row_options& opt) = delete;
  row_stream(const report_format& f, generation gen, const row_options& opt) noexcept
      : t_(f, gen), opt_(opt), has_ctx_(f.first_of(field_kind::ctx_id) != nullptr) {}

  // Calls on_row(row&) for the interval or loss `e` completes, if any. The
  // row (and the spans in it) is valid during the call.
  template <class OnRow>
  void feed(const capture_event& e, OnRow&& on_row) {
    switch (t_.feed(e)) {
      case delta_step::interval:
        if (!opt_.filter || opt_.filter->matches(t_.interval(), opt_.context)) {
          row r = interval_row(t_.interval(), has_ctx_, reason_);
          ++kept_;
          if (t_.interval().across_loss) ++across_;
          on_row(r);
        }
        break;
      case delta_step::discontinuity: {
        row r = loss_row(t_.discontinuity());
        on_row(r);
        break;
      }
      case delta_step::nothing:
        break;
    }
  }
  // Records the source skipped as unknown (added to the accounting).
  void set_unknown_records(std::size_t n) noexcept { opt_.unknown_records = n; }
  accounting totals() const {
    return accounting_of(t_.stats(), kept_, opt_.unknown_records, across_);
  }

 private:
  delta_tracker t_;
  row_options opt_;
  bool has_ctx_;
  std::string reason_;
  std::size_t kept_ = 0, across_ = 0;
};

// Calls on_row(row&) for every interval kept and every loss, in input order.
// The row (and the spans in it) is valid during the call; on_row may set
// r.metrics before passing it on. `on_event(offset)` sees every event
// (progress reporting).
template <class Source, class OnRow, class OnEvent>
accounting for_each_row(const Source& src, generation gen, const row_options& opt, OnRow&& on_row,
                        OnEvent&& on_event) {
  row_stream s(src.format(), gen, opt);
  for (const capture_event& e : src) {
    on_event(e.offset);
    s.feed(e, on_row);
  }
  return s.totals();
}

template <class Source, class OnRow>
accounting for_each_row(const Source& src, generation gen, const row_options& opt, OnRow&& on_row) {
  return for_each_row(src, gen, opt, std::forward<OnRow>(on_row), [](std::size_t) {});
}

}  // namespace hwpc::intel
