// Zero-copy views over OA reports in caller-owned memory.
//
// A report_view is a pointer and a format: reading a field is one unaligned
// little-endian load at the offset the format table gives. report_buffer
// checks a buffer of back-to-back reports once (non-empty, whole reports) so
// that iterating it afterwards can never read past the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/rpt_id.hpp"

namespace hwpc::intel {

// Reads one field of a report at `p` (which holds at least the format's size).
constexpr std::uint64_t load_field(const std::byte* p, const field& f) noexcept {
  switch (f.bits) {
    case 64:
      return load_le64(p + f.offset);
    case 40:
      return load_le32(p + f.offset) | (std::uint64_t{load_u8(p + f.high_byte_offset)} << 32);
    default:
      return load_le32(p + f.offset);
  }
}

// Whether the slot at `p` holds a report the OA unit wrote. i915 zeroes
// RPT_ID after copying and takes a zero RPT_ID as "not landed" (FACTS.md);
// the Xe driver zeroes RPT_ID and TIME_STAMP and takes a report as landed
// when either is non-zero (FACTS-xe section 4: an MMIO-triggered report can
// have a zero reason field, so RPT_ID alone could be 0). The RPT_ID field is
// the format's first field, 32 or 64 bits wide.
constexpr bool report_landed(const std::byte* p, const report_format& f) noexcept {
  if (!f.xe_landed_rule) return load_le32(p) != 0;
  for (const field& fd : f.fields) {
    if ((fd.kind == field_kind::rpt_id || fd.kind == field_kind::timestamp) &&
        load_field(p, fd) != 0) {
      return true;
    }
  }
  return false;
}

// Difference of two readings of a counter, modulo its width: a 32-bit counter
// that went from 0xfffffff0 to 0x10 advanced by 0x20.
constexpr std::uint64_t field_delta(const field& f, std::uint64_t before,
                                    std::uint64_t after) noexcept {
  return (after - before) & f.mask();
}

class report_view {
 public:
  constexpr report_view(const std::byte* data, const report_format& format) noexcept
      : data_(data), format_(&format) {}

  constexpr const report_format& format() const noexcept { return *format_; }
  constexpr const std::byte* data() const noexcept { return data_; }
  constexpr byte_span bytes() const noexcept { return {data_, format_->size}; }

  constexpr std::uint64_t value(const field& f) const noexcept { return load_field(data_, f); }
  constexpr std::uint32_t rpt_id() const noexcept { return load_le32(data_); }
  // Whether the OA unit wrote this slot (report_landed: a zero RPT_ID on
  // i915 formats, RPT_ID and TIME_STAMP both zero on the Xe driver's).
  constexpr bool is_valid() const noexcept { return report_landed(data_, *format_); }
  // Raw TIME_STAMP: 32 bits on most formats, 64 on OAM formats.
  constexpr std::uint64_t timestamp() const noexcept {
    const field* f = format_->first_of(field_kind::timestamp);
    return f != nullptr ? value(*f) : 0;
  }
  constexpr bool has_ctx_id() const noexcept {
    return format_->first_of(field_kind::ctx_id) != nullptr;
  }
  constexpr std::uint32_t ctx_id() const noexcept {
    const field* f = format_->first_of(field_kind::ctx_id);
    return f != nullptr ? static_cast<std::uint32_t>(value(*f)) : 0;
  }
  // Looks a field up by name ("A7", "GPU_TICKS", …); 0 when the format has none.
  constexpr std::uint64_t operator[](std::string_view name) const noexcept {
    const field* f = format_->find(name);
    return f != nullptr ? value(*f) : 0;
  }
  constexpr rpt_id_fields rpt(generation gen) const noexcept {
    return decode_rpt_id(gen, rpt_id());
  }

 private:
  const std::byte* data_;
  const report_format* format_;
};

// A validated buffer of back-to-back reports of one format.
class report_buffer {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = report_view;
    using difference_type = std::ptrdiff_t;
    using reference = report_view;
    using pointer = void;

    constexpr iterator() = default;
    constexpr iterator(const std::byte* p, const report_format* f) noexcept : p_(p), f_(f) {}
    constexpr report_view operator*() const noexcept { return {p_, *f_}; }
    constexpr report_view operator[](difference_type n) const noexcept { return *(*this + n); }
    constexpr iterator& operator++() noexcept {
      p_ += f_->size;
      return *this;
    }
    constexpr iterator operator++(int) noexcept {
      auto t = *this;
      ++*this;
      return t;
    }
    constexpr iterator& operator--() noexcept {
      p_ -= f_->size;
      return *this;
    }
    constexpr iterator operator--(int) noexcept {
      auto t = *this;
      --*this;
      return t;
    }
    constexpr iterator& operator+=(difference_type n) noexcept {
      p_ += n * f_->size;
      return *this;
    }
    constexpr iterator& operator-=(difference_type n) noexcept {
      p_ -= n * f_->size;
      return *this;
    }
    friend constexpr iterator operator+(iterator i, difference_type n) noexcept { return i += n; }
    friend constexpr iterator operator+(difference_type n, iterator i) noexcept { return i += n; }
    friend constexpr iterator operator-(iterator i, difference_type n) noexcept { return i -= n; }
    friend constexpr difference_type operator-(iterator a, iterator b) noexcept {
      return (a.p_ - b.p_) / static_cast<difference_type>(a.f_->size);
    }
    friend constexpr bool operator==(iterator a, iterator b) noexcept { return a.p_ == b.p_; }
    friend constexpr auto operator<=>(iterator a, iterator b) noexcept { return a.p_ <=> b.p_; }

   private:
    const std::byte* p_ = nullptr;
    const report_format* f_ = nullptr;
  };

  // Checks that `bytes` holds one or more whole reports. `base_offset` is
  // added to offsets in errors, for buffers cut from a larger file.
  static result<report_buffer> make(byte_span bytes, const report_format& format,
                                    std::size_t base_offset = 0) {
    if (bytes.empty()) {
      return make_error(errc::empty_input, base_offset,
                        "no reports: the buffer is empty (" + std::string(format.name) +
                            " reports are " + std::to_string(format.size) + " bytes)");
    }
    if (const std::size_t tail = bytes.size() % format.size; tail != 0) {
      const std::size_t at = bytes.size() - tail;
      return make_error(errc::truncated, base_offset + at,
                        "trailing " + std::to_string(tail) + " bytes do not make a whole " +
                            std::to_string(format.size) + "-byte " + std::string(format.name) +
                            " report (buffer is " + std::to_string(bytes.size()) + " bytes)");
    }
    return report_buffer(bytes, format);
  }

  constexpr const report_format& format() const noexcept { return *format_; }
  constexpr std::size_t size() const noexcept { return bytes_.size() / format_->size; }
  constexpr byte_span bytes() const noexcept { return bytes_; }
  constexpr iterator begin() const noexcept { return {bytes_.data(), format_}; }
  constexpr iterator end() const noexcept { return {bytes_.data() + bytes_.size(), format_}; }
  constexpr report_view operator[](std::size_t i) const noexcept {
    return {bytes_.data() + i * format_->size, *format_};
  }

 private:
  constexpr report_buffer(byte_span b, const report_format& f) noexcept : bytes_(b), format_(&f) {}
  byte_span bytes_;
  const report_format* format_;
};

// How a format's TIME_STAMP field reads as timestamp ticks on a generation:
// the 32-bit field follows oa_timestamp_encoding_of (platform.hpp; on DG2 and
// MTL the ticks are the field >> 1 with 31 valid bits); a 64-bit field is the
// ticks, except on MTL, whose OAM reports (MPEC8u32_B8_C8) carry them shifted
// the same way (IGT's i915 reader shifts them; 63 valid bits).
// Every reader takes the field through ticks() and then extends `bits` wide,
// so deltas, elapsed ticks and timestamps are all in the ticks the reported
// frequency describes.
struct timestamp_reading {
  unsigned shift = 0;
  unsigned bits = 32;

  static constexpr timestamp_reading of(const report_format& f, generation g) noexcept {
    const field* ts = f.first_of(field_kind::timestamp);
    if (ts == nullptr) return {};
    const oa_timestamp_encoding e = oa_timestamp_encoding_of(g);
    if (ts->bits != 32) return {e.shift, ts->bits - e.shift};
    return {e.shift, e.bits};
  }
  constexpr std::uint64_t mask() const noexcept {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  }
  constexpr std::uint64_t ticks(std::uint64_t field_value) const noexcept {
    return (field_value >> shift) & mask();
  }
  // Ticks from one report to the next, modulo 2^bits.
  constexpr std::uint64_t step(std::uint64_t earlier_field,
                               std::uint64_t later_field) const noexcept {
    return (ticks(later_field) - ticks(earlier_field)) & mask();
  }
};

// Extends a free-running 32-bit TIME_STAMP to 64 bits across wraps. The OA
// unit samples far more often than every 2^32 ticks (~5.7 minutes at
// 12.5 MHz), so each step forward is taken modulo 2^32.
class timestamp_extender {
 public:
  explicit constexpr timestamp_extender(unsigned bits = 32) noexcept
      : mask_(bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1) {}
  constexpr std::uint64_t operator()(std::uint64_t raw) noexcept {
    if (!started_) {
      started_ = true;
      last_raw_ = raw;
      extended_ = raw;
    } else {
      extended_ += (raw - last_raw_) & mask_;
      last_raw_ = raw;
    }
    return extended_;
  }

 private:
  std::uint64_t mask_;
  std::uint64_t last_raw_ = 0;
  std::uint64_t extended_ = 0;
  bool started_ = false;
};

}  // namespace hwpc::intel
