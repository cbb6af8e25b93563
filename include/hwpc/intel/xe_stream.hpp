// An Xe OA stream as read() returns it, seen as a capture.
//
// The Xe driver copies whole reports back to back, each exactly the
// format's size, with no record headers (unlike i915). Losses never appear
// in the data: read() fails with -EIO and the caller learns what happened
// from DRM_XE_OBSERVATION_IOCTL_STATUS, whose oa_status bits are 0
// REPORT_LOST, 1 BUFFER_OVERFLOW, 2 COUNTER_OVERFLOW, 3 MMIO_TRG_Q_FULL
// (../shared/docs/FACTS-xe.md section 6). So the caller hands the reader the
// bytes of its successful reads, concatenated, plus a list of losses: each
// the byte offset in those bytes where the failed read() would have put its
// data, and the status bits. The reader yields capture_event items (reports
// and discontinuities), so delta_tracker, for_each_row and the context
// filter work on it unchanged.
//
// Each set status bit becomes one discontinuity, in bit order: report-lost,
// buffer-lost, counter-overflow, and report-lost again for the MMIO trigger
// queue overflow (reports the MMIO trigger asked for were not written: a
// loss of reports, bridged by the same rule, not a caller's gap).
//
// Unlanded reports: the kernel zeroes RPT_ID and TIME_STAMP of every report
// it copies and takes a report as written when either is non-zero
// (xe_report_landed); read() therefore never returns an unlanded report.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/intel/capture_event.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/report.hpp"

namespace hwpc::intel {

// drm_xe_oa_stream_status.oa_status bits (the uapi's, not OASTATUS's).
namespace xe_oa_status {
inline constexpr std::uint64_t report_lost = 1u << 0;
inline constexpr std::uint64_t buffer_overflow = 1u << 1;
inline constexpr std::uint64_t counter_overflow = 1u << 2;
inline constexpr std::uint64_t mmio_trigger_queue_full = 1u << 3;
inline constexpr std::uint64_t all = 0xf;
}  // namespace xe_oa_status

// A report the OA unit wrote, by the Xe driver's rule: RPT_ID or TIME_STAMP
// is non-zero (i915 looked at RPT_ID alone).
constexpr bool xe_report_landed(const report_view& r) noexcept {
  const field* id = r.format().first_of(field_kind::rpt_id);
  const field* ts = r.format().first_of(field_kind::timestamp);
  return (id != nullptr && r.value(*id) != 0) || (ts != nullptr && r.value(*ts) != 0);
}

// One failed read(): where in the concatenated data it happened, and the
// status ioctl's bits.
struct xe_stream_loss {
  std::size_t offset = 0;
  std::uint64_t oa_status = 0;
};

class xe_stream {
 public:
  class iterator : public capture_event_iterator_types {
   public:
    iterator() = default;
    iterator(const xe_stream* s, std::size_t report, std::size_t loss, unsigned bit,
             std::size_t ordinal) noexcept
        : s_(s), report_(report), loss_(loss), bit_(bit), ordinal_(ordinal) {
      settle();
    }
    capture_event operator*() const noexcept {
      if (on_loss()) {
        return marker_event(kind_of(bit_), s_->base_ + s_->losses_[loss_].offset, ordinal_);
      }
      const std::size_t at = report_ * s_->format_->size;
      return report_event(s_->bytes_.data() + at, *s_->format_, s_->base_ + at, ordinal_);
    }
    iterator& operator++() noexcept {
      if (on_loss()) {
        ++bit_;
      } else {
        ++report_;
      }
      ++ordinal_;
      settle();
      return *this;
    }
    iterator operator++(int) noexcept {
      auto t = *this;
      ++*this;
      return t;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.ordinal_ == b.ordinal_;
    }

   private:
    static constexpr event_kind kind_of(unsigned bit) noexcept {
      switch (bit) {
        case 0:
          return event_kind::report_lost;
        case 1:
          return event_kind::buffer_lost;
        case 2:
          return event_kind::counter_overflow;
        default:
          // MMIO trigger queue full: reports the MMIO trigger asked for were
          // never written. Reports lost like bit 0's, so the interval across
          // is kept where the counters bound it (loss_bound.hpp).
          return event_kind::report_lost;
      }
    }
    bool on_loss() const noexcept {
      return loss_ < s_->losses_.size() && bit_ < 4 &&
             s_->losses_[loss_].offset == report_ * s_->format_->size;
    }
    // Moves to the next set status bit of the loss at this position, or past it.
    void settle() noexcept {
      while (loss_ < s_->losses_.size() &&
             s_->losses_[loss_].offset == report_ * s_->format_->size) {
        while (bit_ < 4 && (s_->losses_[loss_].oa_status & (std::uint64_t{1} << bit_)) == 0) {
          ++bit_;
        }
        if (bit_ < 4) return;
        ++loss_;
        bit_ = 0;
      }
    }

    const xe_stream* s_ = nullptr;
    std::size_t report_ = 0;  // next report
    std::size_t loss_ = 0;    // next loss
    unsigned bit_ = 0;        // next status bit of that loss
    std::size_t ordinal_ = 0;
  };

  // Checks the data (whole reports) and the losses (in order, at report
  // boundaries inside the data, with known, non-empty status bits). Offsets
  // in errors and events are `base_offset` + the offset in `bytes`.
  static result<xe_stream> make(byte_span bytes, const xe_format& format,
                                std::vector<xe_stream_loss> losses = {},
                                std::size_t base_offset = 0) {
    const report_format& f = format.layout;
    if (const std::size_t tail = bytes.size() % f.size; tail != 0) {
      return make_error(errc::truncated, base_offset + bytes.size() - tail,
                        "trailing " + std::to_string(tail) + " bytes do not make a whole " +
                            std::to_string(f.size) + "-byte " + std::string(f.name) +
                            " report: an Xe OA read() returns whole reports only");
    }
    std::size_t prev = 0;
    for (std::size_t i = 0; i < losses.size(); ++i) {
      const xe_stream_loss& l = losses[i];
      const std::string which = "loss " + std::to_string(i);
      if (l.offset > bytes.size() || l.offset % f.size != 0) {
        return make_error(errc::misaligned, base_offset + std::min(l.offset, bytes.size()),
                          which + " at byte " + std::to_string(l.offset) +
                              " is not a report boundary of the " + std::to_string(bytes.size()) +
                              "-byte stream");
      }
      if (l.offset < prev) {
        return make_error(errc::inconsistent, base_offset + l.offset,
                          which + " comes before the loss listed ahead of it");
      }
      if (l.oa_status == 0 || (l.oa_status & ~xe_oa_status::all) != 0) {
        return make_error(errc::inconsistent, base_offset + l.offset,
                          which + ": oa_status " + hwpc::to_hex(l.oa_status) +
                              " is not a non-empty set of bits 0..3");
      }
      prev = l.offset;
    }
    return xe_stream(bytes, format, std::move(losses), base_offset);
  }
  // The stream keeps pointers to the format and the bytes: temporaries would
  // dangle, so they do not compile.
  static result<xe_stream> make(byte_span, const xe_format&&, std::vector<xe_stream_loss> = {},
                                std::size_t = 0) = delete;
  static result<xe_stream> make(std::vector<std::byte>&&, const xe_format&,
                                std::vector<xe_stream_loss> = {}, std::size_t = 0) = delete;

  const report_format& format() const noexcept { return *format_; }
  const xe_format& xe() const noexcept { return *xe_; }
  std::size_t reports() const noexcept { return bytes_.size() / format_->size; }
  std::size_t events() const noexcept {
    std::size_t n = reports();
    for (const auto& l : losses_) n += static_cast<std::size_t>(__builtin_popcountll(l.oa_status));
    return n;
  }
  iterator begin() const noexcept { return iterator(this, 0, 0, 0, 0); }
  iterator end() const noexcept {
    iterator e(this, reports(), losses_.size(), 0, events());
    return e;
  }

 private:
  xe_stream(byte_span b, const xe_format& x, std::vector<xe_stream_loss> l, std::size_t base)
      : bytes_(b), xe_(&x), format_(&x.layout), losses_(std::move(l)), base_(base) {}

  byte_span bytes_;
  const xe_format* xe_;
  const report_format* format_;
  std::vector<xe_stream_loss> losses_;
  std::size_t base_;
};

}  // namespace hwpc::intel
