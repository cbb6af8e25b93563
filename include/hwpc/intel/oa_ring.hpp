// A reader over the OA unit's ring buffer, given head and tail as the
// hardware reports them.
//
// The OA unit writes periodic reports into a power-of-two ring (128 KiB ..
// 16 MiB) in graphics memory and advances a tail pointer; software consumes
// from the head and writes the head back. Register facts (cited in
// docs/captures.md):
//   Gen7 (HSW PRM, i915 seed): OASTATUS1 (0x2364) bits 31:6 tail pointer,
//     5:3 buffer size (128 KiB << n on HSW), 2 counter overflow, 1 buffer
//     overflow, 0 report lost. OASTATUS2 (0x2368) bits 31:6 head pointer.
//     OABUFFER (0x23B0) bits 31:6 the buffer's GGTT offset. Pointers are
//     GGTT addresses.
//   Gen8+ (SKL PRM vol 14 register list, i915 seed): OAHEADPTR (0x2B0C),
//     OATAILPTR (0x2B10), OASTATUS (0x2B08) bits 3 overrun status,
//     2 counter overflow, 1 buffer overflow, 0 report lost; pointers are
//     GGTT addresses, relative to the buffer's base GGTT offset.
// The tail moves in 64-byte steps, not report steps, so it is aligned down to
// whole reports; the driver also holds back a tail margin because the tail
// can run ahead of the reports that have landed (sampling.hpp). A report
// whose RPT_ID is 0 was never written: it is counted (skipped_zero()) and
// yielded like every other slot, as raw_capture yields it, so that
// delta_tracker and for_each_row count it in skipped_zero and bridge the
// interval over it: the same slots give the same accounting from either
// reader (core/row.hpp: every report ends up in one bucket). After
// copying a report the driver zeroes its RPT_ID so that the check stays
// meaningful once the ring wraps; zero_consumed() does the same.
//
// Reports of 64, 128 and 256 bytes divide the ring, so none straddles its
// end. A 192-byte report (HSW A29_B8_C8, IVB A29_B4) does not divide a
// power-of-two ring: i915 refuses that format, but the hardware wraps the
// report across the end in 64-byte lines. hwpc reads such a report by
// copying its two pieces into a buffer inside the oa_ring object: that one
// report view points into the oa_ring, not into the ring memory.
//
// The Xe driver (FACTS-xe section 5): on Xe2 and later, an OAG unit's
// reports go round in the buffer rounded down to a multiple of the report
// size (the kernel's circ_size), so 576-byte PEC reports never straddle the
// end and the bytes past circ_size are never written; head and tail wrap at
// circ_size (oa_ring_options::round_to_reports). Other units may still wrap
// a report across the end, copied out in two parts as above. Xe buffers may
// be up to 128 MiB (oa_ring_options::xe_driver).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/intel/capture_event.hpp"
#include "hwpc/intel/format_limits.hpp"
#include "hwpc/intel/report.hpp"

namespace hwpc::intel {

// Status bits, at the same positions in Gen7 OASTATUS1 and Gen8+ OASTATUS
// (GEN7_OASTATUS1_* and GEN8_OASTATUS_* in the i915 seed; OASTATUS1 in the
// HSW PRM).
namespace oastatus {
inline constexpr std::uint32_t report_lost = 1u << 0;
inline constexpr std::uint32_t buffer_overflow = 1u << 1;
inline constexpr std::uint32_t counter_overflow = 1u << 2;
inline constexpr std::uint32_t overrun_status = 1u << 3;  // Gen8+ only; informational
}  // namespace oastatus

// Head and tail pointers have 64-byte granularity (bits 31:6).
inline constexpr std::uint32_t oa_pointer_mask = 0xffffffc0u;
inline constexpr std::size_t oa_ring_min_size = std::size_t{128} << 10;
inline constexpr std::size_t oa_ring_max_size = std::size_t{16} << 20;
// DRM_XE_OA_PROPERTY_OA_BUFFER_SIZE: a power of two up to 128 MiB (FACTS-xe section 1).
inline constexpr std::size_t oa_ring_xe_max_size = std::size_t{128} << 20;
// The largest report a straddling copy holds (PEC64u64_B8_C8 is 640 bytes).
inline constexpr std::size_t oa_ring_bounce_size = 1024;
static_assert(limits.report_bytes <= oa_ring_bounce_size, "a straddling report must fit the copy");

// HSW OASTATUS1 bits 5:3: the buffer size as 128 KiB << n.
constexpr std::size_t hsw_oa_buffer_size(std::uint32_t oastatus1) noexcept {
  return oa_ring_min_size << bits(oastatus1, 5, 3);
}

// What the hardware says about the ring: GGTT addresses and status bits.
struct oa_ring_registers {
  std::uint64_t base = 0;  // the buffer's GGTT offset
  std::uint64_t head = 0;  // GGTT address of the next report to consume
  std::uint64_t tail = 0;  // GGTT address after the last 64-byte line written
  std::uint32_t status = 0;

  // Gen7: OABUFFER, OASTATUS1 (tail, size, status), OASTATUS2 (head).
  static constexpr oa_ring_registers gen7(std::uint32_t oabuffer, std::uint32_t oastatus1,
                                          std::uint32_t oastatus2) noexcept {
    return {oabuffer & oa_pointer_mask, oastatus2 & oa_pointer_mask, oastatus1 & oa_pointer_mask,
            oastatus1 & 0x7u};
  }
  // Gen8+: the buffer's GGTT offset, OAHEADPTR, OATAILPTR, OASTATUS.
  static constexpr oa_ring_registers gen8(std::uint64_t base_ggtt, std::uint32_t oaheadptr,
                                          std::uint32_t oatailptr,
                                          std::uint32_t oastatus) noexcept {
    return {base_ggtt, oaheadptr & oa_pointer_mask, oatailptr & oa_pointer_mask, oastatus & 0xfu};
  }
  // Offsets inside the buffer (base 0), for rings described without GGTT addresses.
  static constexpr oa_ring_registers offsets(std::size_t head, std::size_t tail,
                                             std::uint32_t status = 0) noexcept {
    return {0, head, tail, status};
  }
};

struct oa_ring_options {
  // Bytes held back from the tail (tail_margin_bytes() gives the driver's
  // value); rounded up to whole reports.
  std::size_t tail_margin = 0;
  // On a buffer overflow, drop the reports between head and tail (the driver
  // restarts the unit instead of forwarding them). By default they are
  // yielded after the buffer_lost event: each report is still a consistent
  // snapshot, and the delta layer starts a new stretch at the event.
  bool discard_on_buffer_overflow = false;
  // The Xe driver: buffers from 128 KiB up to 128 MiB.
  bool xe_driver = false;
  // Reports go round in the buffer rounded down to whole reports (the Xe
  // driver's OAG unit on Xe2 and later). Off: the whole buffer, reports may
  // straddle its end.
  bool round_to_reports = false;

  // What the Xe driver does on generation `g` for an OAG unit (`oag`) or
  // another unit (OAM).
  static constexpr oa_ring_options xe(generation g, bool oag = true) noexcept {
    oa_ring_options o;
    o.xe_driver = true;
    o.round_to_reports = oag && g >= generation::xe2;
    return o;
  }
};

// The part of a `size`-byte buffer that `rs`-byte reports go round in.
constexpr std::size_t oa_ring_circ_size(std::size_t size, std::size_t rs,
                                        bool round_to_reports) noexcept {
  return round_to_reports && rs != 0 ? size / rs * rs : size;
}

class oa_ring {
 public:
  class iterator : public capture_event_iterator_types {
   public:
    iterator() = default;
    iterator(const oa_ring* r, std::size_t step) noexcept : r_(r), step_(step) {}
    capture_event operator*() const noexcept { return r_->event_at(step_); }
    iterator& operator++() noexcept {
      ++step_;
      return *this;
    }
    iterator operator++(int) noexcept {
      auto t = *this;
      ++*this;
      return t;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.step_ == b.step_;
    }

   private:
    const oa_ring* r_ = nullptr;
    std::size_t step_ = 0;
  };

  // Checks the ring and its pointers and works out which reports to read.
  // A misaligned head or tail inside the ring is errc::misaligned at its byte
  // offset in the ring. A bad ring size, or a head or tail pointer outside
  // the buffer, is errc::inconsistent with no byte offset (error_anchor::none):
  // those values come from registers and name no place in the ring's bytes;
  // the message gives the pointer and the buffer's range.
  // The reader keeps a pointer to the format: not a temporary.
  static result<oa_ring> make(byte_span ring, const report_format&& format,
                              const oa_ring_registers& regs,
                              const oa_ring_options& opts = {}) = delete;
  static result<oa_ring> make(byte_span ring, const report_format& format,
                              const oa_ring_registers& regs, const oa_ring_options& opts = {}) {
    const std::size_t size = ring.size();
    const std::size_t max = opts.xe_driver ? oa_ring_xe_max_size : oa_ring_max_size;
    if (size < oa_ring_min_size || size > max || (size & (size - 1)) != 0) {
      return register_error("OA buffer size " + std::to_string(size) +
                            " is not a power of two from 128 KiB to " +
                            (opts.xe_driver ? "128" : "16") + " MiB");
    }
    const std::size_t rs = format.size;
    if (rs == 0 || rs > oa_ring_bounce_size) {
      return register_error("report size " + std::to_string(rs) + " is not 1.." +
                            std::to_string(oa_ring_bounce_size) + " bytes");
    }
    const std::size_t circ = oa_ring_circ_size(size, rs, opts.round_to_reports);
    if (regs.head < regs.base || regs.head - regs.base > size) {
      return register_error("head pointer " + to_hex(regs.head) + " is outside the OA buffer [" +
                            to_hex(regs.base) + ", " + to_hex(regs.base + size) + "]");
    }
    if (regs.tail < regs.base || regs.tail - regs.base > size) {
      return register_error("tail pointer " + to_hex(regs.tail) + " is outside the OA buffer [" +
                            to_hex(regs.base) + ", " + to_hex(regs.base + size) + "]");
    }
    // With the ring rounded down to whole reports, the bytes past it are
    // never written: a pointer there is as wrong as one outside the buffer.
    if (regs.head - regs.base > circ || regs.tail - regs.base > circ) {
      const bool h = regs.head - regs.base > circ;
      return register_error(
          std::string(h ? "head" : "tail") + " pointer " + to_hex(h ? regs.head : regs.tail) +
          " is past the end of the ring rounded down to whole " + std::to_string(rs) +
          "-byte reports [" + to_hex(regs.base) + ", " + to_hex(regs.base + circ) + "]");
    }
    // The driver accepts a pointer equal to the end of the ring (it checks
    // `> size`); it is the same place as offset 0.
    const std::size_t head = static_cast<std::size_t>(regs.head - regs.base) % circ;
    const std::size_t tail = static_cast<std::size_t>(regs.tail - regs.base) % circ;
    const bool divides = circ % rs == 0;
    // Where reports tile the ring, a head between reports means the pointers
    // are corrupt. Otherwise (192-byte reports) only the register's 64-byte
    // granularity can be checked.
    if (head % (divides ? rs : 64) != 0) {
      return make_error(errc::misaligned, head,
                        "head offset " + std::to_string(head) + " is not a multiple of the " +
                            std::to_string(divides ? rs : 64) + "-byte " +
                            (divides ? "report size" : "pointer granularity"));
    }
    if (tail % 64 != 0) {
      return make_error(errc::misaligned, tail,
                        "tail offset " + std::to_string(tail) + " is not a multiple of 64");
    }

    oa_ring r(ring, format, regs, head, circ);
    const std::size_t taken = (tail + circ - head) % circ;
    const std::size_t margin = (opts.tail_margin + rs - 1) / rs * rs;
    std::size_t readable = taken / rs * rs;  // the tail aligned down to whole reports
    readable = readable < rs + margin ? 0 : readable - margin;
    if ((regs.status & oastatus::buffer_overflow) != 0 && opts.discard_on_buffer_overflow) {
      r.consumed_ = taken / rs * rs;  // everything up to the (aligned) tail is dropped
      readable = 0;
    } else {
      r.consumed_ = readable;
    }
    r.n_reports_ = readable / rs;
    if ((regs.status & oastatus::buffer_overflow) != 0) r.add_status(event_kind::buffer_lost);
    if ((regs.status & oastatus::report_lost) != 0) r.add_status(event_kind::report_lost);
    if ((regs.status & oastatus::counter_overflow) != 0) r.add_status(event_kind::counter_overflow);

    for (std::size_t k = 0; k < r.n_reports_; ++k) {
      const std::size_t at = (head + k * rs) % circ;
      if (at + rs > circ) {  // straddles the end: assemble it
        const std::size_t first = circ - at;
        std::memcpy(r.bounce_.data(), ring.data() + at, first);
        std::memcpy(r.bounce_.data() + first, ring.data(), rs - first);
        r.straddle_ = k;
        r.has_straddle_ = true;
      }
      if (!report_landed(r.report_ptr(k), format)) ++r.skipped_zero_;
    }
    return r;
  }

  const report_format& format() const noexcept { return *format_; }
  std::size_t size() const noexcept { return ring_.size(); }
  // The bytes reports go round in: size(), or less when rounded to whole reports.
  std::size_t circ_size() const noexcept { return circ_; }
  // Report slots between head and the usable tail, zero-RPT_ID ones included.
  std::size_t report_slots() const noexcept { return n_reports_; }
  // Slots whose RPT_ID is 0 (never written; yielded, report_view::is_valid() false).
  std::size_t skipped_zero() const noexcept { return skipped_zero_; }
  std::uint32_t status() const noexcept { return regs_.status; }
  std::size_t head_offset() const noexcept { return head_; }
  // The head offset after consuming what this reader yields.
  std::size_t new_head_offset() const noexcept { return (head_ + consumed_) % circ_; }
  // The value to write back to the head register (a GGTT address).
  std::uint64_t new_head() const noexcept { return regs_.base + new_head_offset(); }

  iterator begin() const noexcept { return {this, 0}; }
  iterator end() const noexcept { return {this, steps()}; }

  // Zeroes the RPT_ID of every report slot this reader consumed, as the
  // driver does after copying (and TIME_STAMP on the Xe driver's formats,
  // which it zeroes too), so that a slot the OA unit has not rewritten by
  // the next pass reads as invalid. `ring` must be the mutable view of the
  // memory this reader was made over. Call it after the report views are no
  // longer needed: they point into that memory.
  result<void> zero_consumed(std::span<std::byte> ring) const {
    if (ring.data() != ring_.data() || ring.size() != ring_.size()) {
      return make_error(errc::inconsistent, 0, "zero_consumed: not the ring this reader reads");
    }
    const std::size_t rs = format_->size;
    const field* ts = format_->xe_landed_rule ? format_->first_of(field_kind::timestamp) : nullptr;
    for (std::size_t k = 0; k < consumed_ / rs; ++k) {
      // The header lies in the first 64-byte line of the report, before any wrap.
      std::byte* p = ring.data() + (head_ + k * rs) % circ_;
      store_le32(p, 0);
      if (format_->xe_landed_rule && format_->fields[0].bits == 64) store_le32(p + 4, 0);
      if (ts != nullptr) {
        for (std::size_t b = 0; b < ts->bits / 8u; ++b) p[ts->offset + b] = std::byte{0};
      }
    }
    return {};
  }

 private:
  oa_ring(byte_span ring, const report_format& f, const oa_ring_registers& regs, std::size_t head,
          std::size_t circ) noexcept
      : ring_(ring), format_(&f), regs_(regs), head_(head), circ_(circ) {}

  static error register_error(std::string message) {
    return error{errc::inconsistent, 0, std::move(message), error_anchor::none};
  }

  void add_status(event_kind k) noexcept { status_events_[n_status_++] = k; }
  std::size_t steps() const noexcept { return n_status_ + n_reports_; }
  const std::byte* report_ptr(std::size_t k) const noexcept {
    if (has_straddle_ && k == straddle_) return bounce_.data();
    return ring_.data() + (head_ + k * format_->size) % circ_;
  }
  capture_event event_at(std::size_t step) const noexcept {
    if (step < n_status_) return marker_event(status_events_[step], head_, step);
    const std::size_t k = step - n_status_;
    return report_event(report_ptr(k), *format_, (head_ + k * format_->size) % circ_, k);
  }

  byte_span ring_;
  const report_format* format_;
  oa_ring_registers regs_;
  std::size_t head_ = 0;
  std::size_t circ_ = 0;
  std::size_t consumed_ = 0;
  std::size_t n_reports_ = 0;
  std::size_t skipped_zero_ = 0;
  std::array<event_kind, 3> status_events_{};
  std::size_t n_status_ = 0;
  std::array<std::byte, oa_ring_bounce_size> bounce_{};
  std::size_t straddle_ = 0;
  bool has_straddle_ = false;
};

}  // namespace hwpc::intel
