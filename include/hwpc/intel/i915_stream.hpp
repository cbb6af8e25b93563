// The i915 perf read() stream: records of `drm_i915_perf_record_header
// { u32 type; u16 pad; u16 size; }` (size counts the 8-byte header) followed
// by their payload (i915 uapi, quoted in the i915 seed and FACTS.md):
//   1 SAMPLE          header + one report of the stream's format (when the
//                     stream was opened with only the OA report sample flag)
//   2 OA_REPORT_LOST  header only: the unit did not write one or more reports
//   3 OA_BUFFER_LOST  header only: all pending reports were lost
// i915_stream::make() walks every header once and rejects, with the record's
// byte offset, a size of 0, a size smaller than the header, a size larger
// than what remains, and a size that its type does not allow. Iteration
// afterwards trusts the sizes and yields capture_events that point into the
// caller's bytes. Types this reader does not know are skipped by their size
// and counted: unknown_records() and first_unknown() say how many were
// skipped and where the first one was, so no record is dropped unreported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/intel/capture_event.hpp"

namespace hwpc::intel {

namespace record_type {
inline constexpr std::uint32_t sample = 1;
inline constexpr std::uint32_t oa_report_lost = 2;
inline constexpr std::uint32_t oa_buffer_lost = 3;
// IGT i915-perf-recorder extensions (recording.hpp).
inline constexpr std::uint32_t recording_version = 65536;
inline constexpr std::uint32_t device_info = 65537;
inline constexpr std::uint32_t device_topology = 65538;
inline constexpr std::uint32_t timestamp_correlation = 65539;
}  // namespace record_type

inline constexpr std::size_t record_header_size = 8;

// The first record of a type the reader skipped.
struct unknown_record {
  std::uint32_t type = 0;
  std::size_t offset = 0;  // byte offset of its header
};

struct record_header {
  std::uint32_t type = 0;
  std::uint16_t pad = 0;
  std::uint16_t size = 0;

  static constexpr record_header load(const std::byte* p) noexcept {
    return {load_le32(p), load_le16(p + 4), load_le16(p + 6)};
  }
};

namespace detail {

inline std::string record_name(std::uint32_t type) {
  switch (type) {
    case record_type::sample:
      return "SAMPLE";
    case record_type::oa_report_lost:
      return "OA_REPORT_LOST";
    case record_type::oa_buffer_lost:
      return "OA_BUFFER_LOST";
    case record_type::recording_version:
      return "VERSION";
    case record_type::device_info:
      return "DEVICE_INFO";
    case record_type::device_topology:
      return "DEVICE_TOPOLOGY";
    case record_type::timestamp_correlation:
      return "TIMESTAMP_CORRELATION";
    default:
      return "type " + std::to_string(type);
  }
}

// Checks the header of the record at `at` against what remains; returns it.
// `base` is added to offsets in errors.
inline result<record_header> check_record_header(byte_span bytes, std::size_t at,
                                                 std::size_t base) {
  const std::size_t left = bytes.size() - at;
  if (left < record_header_size) {
    return make_error(
        errc::truncated, base + at,
        "trailing " + std::to_string(left) + " bytes do not make an 8-byte record header");
  }
  const record_header h = record_header::load(bytes.data() + at);
  if (h.size == 0) {
    return make_error(errc::inconsistent, base + at,
                      record_name(h.type) +
                          " record has size 0 (a reader that trusted it would "
                          "never advance)");
  }
  if (h.size < record_header_size) {
    return make_error(errc::inconsistent, base + at,
                      record_name(h.type) + " record size " + std::to_string(h.size) +
                          " is smaller than its 8-byte header");
  }
  if (h.size > left) {
    return make_error(errc::truncated, base + at,
                      record_name(h.type) + " record of " + std::to_string(h.size) +
                          " bytes runs past the end (" + std::to_string(left) + " bytes left)");
  }
  return h;
}

// Checks that the size of a stream record matches its type. Returns false
// for types that are not stream records.
inline result<bool> check_stream_record(const record_header& h, const report_format& f,
                                        std::size_t at) {
  std::size_t want = 0;
  switch (h.type) {
    case record_type::sample:
      want = record_header_size + f.size;
      break;
    case record_type::oa_report_lost:
    case record_type::oa_buffer_lost:
      want = record_header_size;
      break;
    default:
      return false;
  }
  if (h.size != want) {
    return make_error(
        errc::inconsistent, at,
        record_name(h.type) + " record has size " + std::to_string(h.size) + ", expected " +
            std::to_string(want) +
            (h.type == record_type::sample ? " (8-byte header + " + std::to_string(f.size) +
                                                 "-byte " + std::string(f.name) + " report)"
                                           : std::string(" (header only)")));
  }
  return true;
}

// The event a stream record stands for (only for types check_stream_record accepted).
constexpr capture_event stream_record_event(const std::byte* rec, const record_header& h,
                                            const report_format& f, std::size_t offset,
                                            std::size_t index) noexcept {
  if (h.type == record_type::sample) {
    return report_event(rec + record_header_size, f, offset, index);
  }
  return marker_event(
      h.type == record_type::oa_report_lost ? event_kind::report_lost : event_kind::buffer_lost,
      offset, index);
}

constexpr bool is_stream_record(std::uint32_t type) noexcept {
  return type == record_type::sample || type == record_type::oa_report_lost ||
         type == record_type::oa_buffer_lost;
}

// Walks records by their size field (checked once by make()). `Derived`
// supplies settle(): how far to move on until it stands on a record it yields
// (or the end). Streams and recordings share this walk.
template <class Derived>
class record_cursor : public capture_event_iterator_types {
 public:
  Derived& operator++() noexcept {
    advance();
    self().settle();
    return self();
  }
  Derived operator++(int) noexcept {
    Derived t = self();
    ++*this;
    return t;
  }
  friend bool operator==(const Derived& a, const Derived& b) noexcept { return a.at_ == b.at_; }

 protected:
  record_cursor() = default;
  record_cursor(byte_span bytes, std::size_t at, std::size_t index) noexcept
      : bytes_(bytes), at_(at), index_(index) {}
  bool at_end() const noexcept { return at_ >= bytes_.size(); }
  const std::byte* here() const noexcept { return bytes_.data() + at_; }
  void advance() noexcept {
    at_ += load_le16(here() + 6);
    ++index_;
  }

  byte_span bytes_;
  std::size_t at_ = 0;
  std::size_t index_ = 0;

 private:
  Derived& self() noexcept { return static_cast<Derived&>(*this); }
};

}  // namespace detail

class i915_stream {
 public:
  class iterator : public detail::record_cursor<iterator> {
   public:
    iterator() = default;
    iterator(const i915_stream* s, std::size_t at, std::size_t index) noexcept
        : record_cursor(s->bytes_, at, index), s_(s) {
      settle();
    }
    capture_event operator*() const noexcept {
      return detail::stream_record_event(here(), record_header::load(here()), *s_->format_,
                                         s_->base_ + at_, index_);
    }

   private:
    friend record_cursor;
    // Unknown record types are skipped by their size.
    void settle() noexcept {
      while (!at_end() && !detail::is_stream_record(load_le32(here()))) advance();
    }
    const i915_stream* s_ = nullptr;
  };

  // Validates every record header of `bytes` (what read() returned, or a
  // concatenation of reads). `base_offset` is added to offsets.
  // The reader keeps a pointer to the format: not a temporary.
  static result<i915_stream> make(byte_span bytes, const report_format&& format,
                                  std::size_t base_offset = 0) = delete;
  static result<i915_stream> make(byte_span bytes, const report_format& format,
                                  std::size_t base_offset = 0) {
    if (bytes.empty()) return make_error(errc::empty_input, base_offset, "no records");
    i915_stream s(bytes, format, base_offset);
    for (std::size_t at = 0; at < bytes.size();) {
      auto h = detail::check_record_header(bytes, at, base_offset);
      if (!h) return h.error_value();
      auto known = detail::check_stream_record(*h, format, base_offset + at);
      if (!known) return known.error_value();
      ++s.records_;
      if (!*known && s.unknown_++ == 0) s.first_unknown_ = {h->type, base_offset + at};
      if (h->type == record_type::sample) ++s.samples_;
      at += h->size;
    }
    return s;
  }

  const report_format& format() const noexcept { return *format_; }
  std::size_t records() const noexcept { return records_; }
  std::size_t samples() const noexcept { return samples_; }
  // Records of a type this reader does not know, skipped by their size.
  std::size_t unknown_records() const noexcept { return unknown_; }
  // The first of them (meaningful when unknown_records() != 0).
  const unknown_record& first_unknown() const noexcept { return first_unknown_; }
  iterator begin() const noexcept { return {this, 0, 0}; }
  iterator end() const noexcept { return {this, bytes_.size(), records_}; }

 private:
  i915_stream(byte_span b, const report_format& f, std::size_t base) noexcept
      : bytes_(b), format_(&f), base_(base) {}
  byte_span bytes_;
  const report_format* format_;
  std::size_t base_;
  std::size_t records_ = 0;
  std::size_t samples_ = 0;
  std::size_t unknown_ = 0;
  unknown_record first_unknown_{};
};

}  // namespace hwpc::intel
