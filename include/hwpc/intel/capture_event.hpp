// The item every capture reader yields: a report, or a discontinuity.
//
// OA data reaches a profiler three ways (a raw OA ring buffer, an i915 perf
// read() stream, an IGT recording file), and each can say that reports went
// missing: OASTATUS bits on the ring, OA_REPORT_LOST / OA_BUFFER_LOST records
// in a stream. All three readers turn their input into the same sequence of
// capture_event, so the delta and context logic (capture.hpp, context.hpp)
// is written once and never computes a delta across a loss.
//
// A capture_event is a view: a report event points into the caller's bytes
// (zero copy), so it is valid as long as those bytes are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "hwpc/intel/report.hpp"

namespace hwpc::intel {

enum class event_kind : std::uint8_t {
  report,            // one report of the capture's format
  report_lost,       // the OA unit dropped one or more reports (OASTATUS bit 0, OA_REPORT_LOST)
  buffer_lost,       // the OA buffer overflowed: reports were overwritten (OASTATUS bit 1,
                     // OA_BUFFER_LOST)
  counter_overflow,  // a counter overflowed (OASTATUS bit 2)
  gap,               // a discontinuity the caller marks (capture paused, data dropped, ...)
};

constexpr std::string_view to_string(event_kind k) noexcept {
  switch (k) {
    case event_kind::report:
      return "report";
    case event_kind::report_lost:
      return "report-lost";
    case event_kind::buffer_lost:
      return "buffer-lost";
    case event_kind::counter_overflow:
      return "counter-overflow";
    case event_kind::gap:
      return "gap";
  }
  return "unknown";
}

struct capture_event {
  event_kind kind = event_kind::report;
  // Byte offset of the item in its input: the report itself in a raw buffer,
  // the report's offset inside the ring for an OA ring, the record header for
  // a stream or a recording.
  std::size_t offset = 0;
  // Ordinal of the item in its source: report slot (raw), report number from
  // the head (ring), record number (stream, recording).
  std::size_t index = 0;
  const std::byte* data = nullptr;  // the report's bytes when kind == report
  const report_format* format = nullptr;
  // Recordings only: the GPU timestamp of the latest TIMESTAMP_CORRELATION
  // record before this item. It lets the 32-bit report TIME_STAMP be placed
  // on the 64-bit correlation clock (capture.hpp).
  std::uint64_t reference_gpu_ts = 0;
  bool has_reference_gpu_ts = false;

  constexpr bool is_report() const noexcept { return kind == event_kind::report; }
  constexpr bool is_discontinuity() const noexcept { return kind != event_kind::report; }
  // Only for report events.
  constexpr report_view report() const noexcept { return {data, *format}; }
};

// The member types of every reader's iterator: a forward iterator that yields
// capture_events by value (each is a view, made on dereference).
struct capture_event_iterator_types {
  using iterator_category = std::forward_iterator_tag;
  using value_type = capture_event;
  using difference_type = std::ptrdiff_t;
  using reference = capture_event;
  using pointer = void;
};

constexpr capture_event report_event(const std::byte* data, const report_format& f,
                                     std::size_t offset, std::size_t index) noexcept {
  capture_event e;
  e.kind = event_kind::report;
  e.offset = offset;
  e.index = index;
  e.data = data;
  e.format = &f;
  return e;
}

constexpr capture_event marker_event(event_kind k, std::size_t offset,
                                     std::size_t index = 0) noexcept {
  capture_event e;
  e.kind = k;
  e.offset = offset;
  e.index = index;
  return e;
}

// Back-to-back reports (a file of raw reports, a copied OA buffer without
// pointers) seen as a capture: every slot is a report event, zero-RPT_ID
// slots included (the delta layer skips and counts them).
class raw_capture {
 public:
  class iterator : public capture_event_iterator_types {
   public:
    constexpr iterator() = default;
    constexpr iterator(const std::byte* data, const report_format* f, std::size_t base,
                       std::size_t i) noexcept
        : data_(data), f_(f), base_(base), i_(i) {}
    constexpr capture_event operator*() const noexcept {
      const std::size_t at = i_ * f_->size;
      return report_event(data_ + at, *f_, base_ + at, i_);
    }
    constexpr iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    constexpr iterator operator++(int) noexcept {
      auto t = *this;
      ++i_;
      return t;
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.i_ == b.i_;
    }

   private:
    const std::byte* data_ = nullptr;
    const report_format* f_ = nullptr;
    std::size_t base_ = 0;
    std::size_t i_ = 0;
  };

  // `base_offset` is added to event offsets (a buffer cut from a larger file).
  explicit constexpr raw_capture(const report_buffer& buf, std::size_t base_offset = 0) noexcept
      : buf_(buf), base_(base_offset) {}

  constexpr const report_format& format() const noexcept { return buf_.format(); }
  constexpr iterator begin() const noexcept { return at(0); }
  constexpr iterator end() const noexcept { return at(buf_.size()); }

 private:
  constexpr iterator at(std::size_t i) const noexcept {
    return iterator(buf_.bytes().data(), &buf_.format(), base_, i);
  }
  report_buffer buf_;
  std::size_t base_;
};

}  // namespace hwpc::intel
