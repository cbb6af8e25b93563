// Deltas over a capture event stream, across a loss only where exact.
//
// Any reader's events (raw_capture, oa_ring, i915_stream, recording, Xe
// streams and recordings, or a caller's own sequence) go through one
// delta_tracker. Each report after the first of a stretch yields an interval
// (the counter deltas since the previous report); each discontinuity (report
// lost, buffer lost, counter overflow, a caller-marked gap) ends the stretch
// and is reported with its offset. The first report after a loss still
// yields the interval from the last report before it when no counter can
// have wrapped more than once in between (loss_bound.hpp): the counters are
// free-running, so that delta is exact; the interval is marked
// `across_loss`. Otherwise, and always after a caller-marked gap (two
// separate captures need not share counters), the report starts a new
// stretch without a delta (counted as `unbridged` after a loss). Reports
// with a zero RPT_ID are skipped and counted, as in decode.hpp.
//
// The tracker is push-based so its state can outlive one buffer: feed it the
// events of successive OA ring reads and the last report of one read pairs
// with the first of the next. It keeps the earlier report's values, RPT_ID
// and CTX_ID, not a pointer, so the ring may be recycled in between.
//
//   hwpc::intel::delta_tracker t(format, gen);
//   for (const auto& ev : *ring) {
//     switch (t.feed(ev)) {
//       case hwpc::intel::delta_step::interval: use(t.interval()); break;
//       case hwpc::intel::delta_step::discontinuity: mark(t.discontinuity()); break;
//       default: break;
//     }
//   }
//
// TIME_STAMP is read as ticks (timestamp_reading: on DG2 the field >> 1, 31
// bits) and extended to 64 bits. Inside a stretch each step is taken
// forward modulo 2^32 (2^31 on DG2). At the start of a stretch the value is placed next to
// the event's reference (the latest correlation point of a recording), so a
// gap in a recording of any length keeps its timestamps right; without a
// reference the first stretch starts at the raw value and later stretches
// step forward from the previous report, which is right while the gap is
// shorter than one TIME_STAMP wrap (2^32 ticks, ~5.7 minutes at 12.5 MHz).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <utility>

#include "hwpc/intel/capture_event.hpp"
#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/loss_bound.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/intel/time_correlation.hpp"

namespace hwpc::intel {

struct capture_interval {
  std::size_t index = 0;        // the later report's ordinal in its source (slot or record)
  std::size_t offset = 0;       // the later report's byte offset
  std::size_t stretch = 0;      // 0-based number of the continuous stretch (the later report's)
  std::uint64_t timestamp = 0;  // the later report's TIME_STAMP, 64 bits
  std::uint64_t elapsed_ticks = 0;
  report_view later;                      // valid while the source's bytes are
  rpt_id_fields rpt;                      // the later report's RPT_ID
  rpt_id_fields earlier_rpt;              // the earlier report's RPT_ID (context attribution)
  std::uint32_t earlier_ctx_id = 0;       // the earlier report's CTX_ID (0 without one)
  std::span<const std::uint64_t> deltas;  // per counter, counter_list order; valid until next feed
  // The later report's 0-based index among every report event the tracker
  // was fed (zero-RPT_ID reports included): the same number for the same
  // report whether it came from a raw file, a stream or a recording, and the
  // `report` of the emulator's truth CSV.
  std::size_t report = 0;
  // The interval spans a loss: the earlier report is the last one before it
  // and no counter can have wrapped more than once in between.
  bool across_loss = false;
};

struct capture_discontinuity {
  event_kind kind = event_kind::gap;
  std::size_t offset = 0;
  std::size_t index = 0;
  std::size_t stretch = 0;  // the stretch it ends
  std::size_t report = 0;   // report events before it: the index the next report gets
};

struct capture_stats {
  std::size_t report_events = 0;    // every report event fed, zero-RPT_ID ones included
  std::size_t reports = 0;          // valid reports
  std::size_t intervals = 0;        // deltas produced
  std::size_t skipped_zero = 0;     // zero-RPT_ID reports skipped
  std::size_t discontinuities = 0;  // discontinuity events
  std::size_t stretches = 0;        // reports that start a stretch (no interval ends at them)
  std::size_t across_loss = 0;      // intervals (of `intervals`) that span a loss
  std::size_t unbridged = 0;        // first reports after a loss whose interval the bound drops
  // discontinuities by kind (event_kind order: report, report_lost, ...)
  std::array<std::size_t, 5> by_kind{};
};

enum class delta_step : std::uint8_t { nothing, interval, discontinuity };

class delta_tracker {
 public:
  // Keeps a pointer to the format (one of the static tables of formats.hpp).
  delta_tracker(const report_format&& f, generation gen) = delete;
  delta_tracker(const report_format& f, generation gen) noexcept
      : format_(&f), gen_(gen), counters_(f) {
    ts_field_ = f.first_of(field_kind::timestamp);
    tsr_ = timestamp_reading::of(f, gen);
    ts_bits_ = tsr_.bits;
    ts_mask_ = tsr_.mask();
  }

  const report_format& format() const noexcept { return *format_; }
  const counter_list& counters() const noexcept { return counters_; }
  const capture_stats& stats() const noexcept { return stats_; }

  // Feeds one event; interval() or discontinuity() then hold what it produced.
  delta_step feed(const capture_event& e) noexcept {
    if (e.is_discontinuity()) {
      ++stats_.discontinuities;
      ++stats_.by_kind[static_cast<std::size_t>(e.kind) % stats_.by_kind.size()];
      gap_ = {e.kind, e.offset, e.index, stretch_, stats_.report_events};
      // Only a report before it can be bridged to; a caller's gap never is.
      if (have_ts_) loss_since_report_ = true;
      if (e.kind == event_kind::gap) gap_since_report_ = true;
      if (in_stretch_) {
        in_stretch_ = false;
        ++stretch_;
      }
      return delta_step::discontinuity;
    }
    const report_view r = e.report();
    const std::size_t ordinal = stats_.report_events++;
    if (!r.is_valid()) {
      ++stats_.skipped_zero;
      return delta_step::nothing;
    }
    ++stats_.reports;
    // In ticks: the field as the generation encodes it (timestamp_reading).
    const std::uint64_t raw = ts_field_ != nullptr ? tsr_.ticks(r.value(*ts_field_)) : 0;
    std::uint64_t ts;
    if (in_stretch_) {
      ts = last_ts_ + ((raw - last_raw_) & ts_mask_);
    } else if (e.has_reference_gpu_ts) {
      ts = nearest_timestamp(raw, ts_bits_, e.reference_gpu_ts);
    } else if (have_ts_) {
      ts = last_ts_ + ((raw - last_raw_) & ts_mask_);
    } else {
      ts = raw;
    }
    // After a loss (not a gap) the interval from the last report is kept
    // when its deltas are exact (loss_bound.hpp).
    const bool bridge = !in_stretch_ && loss_since_report_ && !gap_since_report_ &&
                        deltas_exact_over(ts - last_ts_, counters_, gen_);
    const bool pair = in_stretch_ || bridge;
    for (std::size_t c = 0; c < counters_.size(); ++c) {
      const std::uint64_t v = r.value(counters_[c]);
      delta_[c] = field_delta(counters_[c], prev_[c], v);
      prev_[c] = v;
    }
    const rpt_id_fields rpt = r.rpt(gen_);
    if (pair) {
      ++stats_.intervals;
      if (bridge) {
        ++stats_.across_loss;
        in_stretch_ = true;  // the later report carries on the stretch after the loss
      }
      iv_ = capture_interval{
          e.index,       e.offset,
          stretch_,      ts,
          ts - last_ts_, r,
          rpt,           prev_rpt_,
          prev_ctx_,     std::span<const std::uint64_t>(delta_.data(), counters_.size()),
          ordinal,       bridge};
    } else {
      ++stats_.stretches;
      if (loss_since_report_ && !gap_since_report_) ++stats_.unbridged;
      in_stretch_ = true;
    }
    loss_since_report_ = false;
    gap_since_report_ = false;
    last_ts_ = ts;
    last_raw_ = raw;
    have_ts_ = true;
    prev_rpt_ = rpt;
    prev_ctx_ = r.ctx_id();
    return pair ? delta_step::interval : delta_step::nothing;
  }

  // Marks a discontinuity at `offset` (e.g. between two separately captured buffers).
  delta_step mark_gap(std::size_t offset) noexcept {
    return feed(marker_event(event_kind::gap, offset));
  }

  const capture_interval& interval() const noexcept { return iv_; }
  const capture_discontinuity& discontinuity() const noexcept { return gap_; }

 private:
  const report_format* format_;
  generation gen_;
  counter_list counters_;
  const field* ts_field_ = nullptr;
  timestamp_reading tsr_{};
  unsigned ts_bits_ = 32;
  std::uint64_t ts_mask_ = 0;
  std::array<std::uint64_t, max_counters> prev_{};
  std::array<std::uint64_t, max_counters> delta_{};
  std::uint64_t last_ts_ = 0;
  std::uint64_t last_raw_ = 0;
  bool have_ts_ = false;
  bool in_stretch_ = false;
  bool loss_since_report_ = false;  // a discontinuity since the last valid report
  bool gap_since_report_ = false;   // ... and one of them a caller-marked gap
  std::size_t stretch_ = 0;
  rpt_id_fields prev_rpt_{};
  std::uint32_t prev_ctx_ = 0;
  capture_interval iv_{0, 0, 0, 0, 0, report_view(nullptr, *format_), {}, {}, 0, {}, 0, false};
  capture_discontinuity gap_{};
  capture_stats stats_{};
};

// One item of a delta range: an interval or a discontinuity.
struct delta_item {
  delta_step kind = delta_step::nothing;
  const capture_interval* interval = nullptr;            // when kind == interval
  const capture_discontinuity* discontinuity = nullptr;  // when kind == discontinuity
};

// A single-pass range of delta_items over a capture source (anything whose
// begin()/end() yield capture_events):
//   for (const hwpc::intel::delta_item& d : hwpc::intel::deltas(*stream, gen)) ...
// The pointers in an item are valid until the iterator advances.
template <class Source>
class delta_range {
 public:
  using source_iterator = decltype(std::declval<const Source&>().begin());

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = delta_item;
    using difference_type = std::ptrdiff_t;
    using reference = const delta_item&;
    using pointer = const delta_item*;

    iterator() = default;
    iterator(delta_range* r, source_iterator it, source_iterator end) : r_(r), it_(it), end_(end) {
      settle();
    }
    const delta_item& operator*() const noexcept { return item_; }
    const delta_item* operator->() const noexcept { return &item_; }
    iterator& operator++() {
      ++it_;
      settle();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.it_ == b.it_; }

   private:
    // Advances to the next event that produces an item.
    void settle() {
      for (; it_ != end_; ++it_) {
        const delta_step s = r_->tracker_.feed(*it_);
        if (s == delta_step::interval) {
          item_ = {s, &r_->tracker_.interval(), nullptr};
          return;
        }
        if (s == delta_step::discontinuity) {
          item_ = {s, nullptr, &r_->tracker_.discontinuity()};
          return;
        }
      }
    }
    delta_range* r_ = nullptr;
    source_iterator it_{};
    source_iterator end_{};
    delta_item item_{};
  };

  delta_range(const Source& src, generation gen) : src_(&src), tracker_(src.format(), gen) {}
  // The range keeps a pointer to the source: a temporary would dangle.
  delta_range(const Source&& src, generation gen) = delete;
  iterator begin() { return iterator(this, src_->begin(), src_->end()); }
  iterator end() { return iterator(this, src_->end(), src_->end()); }
  const capture_stats& stats() const noexcept { return tracker_.stats(); }
  const delta_tracker& tracker() const noexcept { return tracker_; }

 private:
  const Source* src_;
  delta_tracker tracker_;
};

template <class Source>
delta_range<Source> deltas(const Source& src, generation gen) {
  return delta_range<Source>(src, gen);
}
// deltas(raw_capture(buf), gen) would keep a pointer to the temporary
// raw_capture past the statement: name the source first.
template <class Source>
delta_range<Source> deltas(const Source&& src, generation gen) = delete;

// Calls on_interval(const capture_interval&) and
// on_discontinuity(const capture_discontinuity&) in stream order.
template <class Source, class OnInterval, class OnDiscontinuity>
capture_stats for_each_delta(const Source& src, generation gen, OnInterval&& on_interval,
                             OnDiscontinuity&& on_discontinuity) {
  delta_tracker t(src.format(), gen);
  for (const capture_event& e : src) {
    switch (t.feed(e)) {
      case delta_step::interval:
        on_interval(t.interval());
        break;
      case delta_step::discontinuity:
        on_discontinuity(t.discontinuity());
        break;
      case delta_step::nothing:
        break;
    }
  }
  return t.stats();
}

}  // namespace hwpc::intel
