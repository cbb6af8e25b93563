// An i915-perf recording (recording.hpp) read while it is being written:
// bytes arrive in pieces of any size, whole records are taken as soon as
// they are complete, and each stream record becomes the capture_event the
// whole-file reader would give it (same offset, same record index, same
// reference GPU time), so row_stream (rows.hpp) turns them into the rows
// `hwpc decode FILE` prints once the file is complete.
//
//   intel::recording_feed feed;
//   std::optional<intel::row_stream> rows;
//   feed.feed(piece, [&](const intel::capture_event& e) {
//     if (!rows) rows.emplace(feed.format(), intel::generation_of(feed.device_platform()), opt);
//     rows->feed(e, on_row);
//   });
//   feed.finish();  // a piece of a record left over: the error names its offset
//
// The checks are the whole-file reader's, made as records arrive: the first
// record is VERSION 1, one DEVICE_INFO before any stream record, sizes
// within their header and right for their type, a topology whose masks lie
// inside it, correlation points running forwards. One difference: an event
// before the recording's first correlation point has no reference GPU time
// here (the whole-file reader gives it the first point's, from later in the
// file). hwpc's recorder writes a point before the first report.
//
// Memory: what is kept between calls is the unfinished record (at most
// 64 KiB, a record's largest size), the DEVICE_INFO strings and the
// correlation points; whole records are read where the piece lies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/intel/capture_event.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/pci_ids.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/recording_reader.hpp"
#include "hwpc/intel/time_correlation.hpp"

namespace hwpc::intel {

class recording_feed {
 public:
  explicit recording_feed(recording_options o = {}) : opts_(std::move(o)) {}

  // Takes `piece` (the next bytes of the recording) and calls
  // on_event(const capture_event&) for every stream record it completes. An
  // event's report bytes are valid during the call only. After an error,
  // every later call returns it.
  template <class OnEvent>
  result<void> feed(byte_span piece, OnEvent&& on_event) {
    if (failed_) return *failed_;
    // First the record held from the last piece, completed from this one.
    while (!pending_.empty() && !piece.empty()) {
      std::size_t want = record_header_size;
      if (pending_.size() >= record_header_size) {
        want = std::max<std::size_t>(record_header_size, load_le16(pending_.data() + 6));
      }
      const std::size_t n = std::min(want - pending_.size(), piece.size());
      pending_.insert(pending_.end(), piece.begin(),
                      piece.begin() + static_cast<std::ptrdiff_t>(n));
      piece = piece.subspan(n);
      if (pending_.size() < want) continue;
      if (want == record_header_size && load_le16(pending_.data() + 6) > record_header_size) {
        continue;  // the header is whole; now the payload
      }
      auto used = walk(byte_span(pending_.data(), pending_.size()), on_event);
      if (!used) return used.error_value();
      pending_.clear();
    }
    if (!pending_.empty()) return {};
    // Then whole records straight from the piece; a torn one is held.
    auto used = walk(piece, on_event);
    if (!used) return used.error_value();
    pending_.assign(piece.begin() + static_cast<std::ptrdiff_t>(*used), piece.end());
    return {};
  }

  // The end of the recording: nothing may be left over, DEVICE_INFO must
  // have come.
  result<void> finish() const {
    if (failed_) return *failed_;
    if (!pending_.empty()) {
      auto h =
          detail::check_record_header(byte_span(pending_.data(), pending_.size()), 0, consumed_);
      if (!h) return h.error_value();
    }
    if (!have_info_) {
      return make_error(errc::inconsistent, consumed_,
                        "the recording has no DEVICE_INFO record (no format, no frequency)");
    }
    return {};
  }

  // What DEVICE_INFO said (meaningful once has_device()).
  bool has_device() const noexcept { return have_info_; }
  const report_format& format() const noexcept { return *format_; }
  platform device_platform() const noexcept { return platform_; }
  std::uint32_t device_id() const noexcept { return device_id_; }
  const std::string& metric_set_name() const noexcept { return set_name_; }
  std::uint64_t timestamp_frequency() const noexcept {
    return frequency_ != 0 ? frequency_ : info(platform_).timestamp_frequency_hz;
  }
  const std::vector<correlation_point>& points() const noexcept { return points_; }
  // The CPU/GPU correlation of the points so far.
  result<time_correlation> time() const {
    return time_correlation::make(points_, timestamp_frequency());
  }
  std::size_t records() const noexcept { return records_; }
  std::size_t samples() const noexcept { return samples_; }
  std::size_t unknown_records() const noexcept { return unknown_; }
  // Bytes taken as whole records.
  std::size_t consumed() const noexcept { return consumed_; }

 private:
  error fail(error e) {
    failed_ = e;
    return e;
  }

  // Takes the whole records at the front of `bytes` (which start at file
  // offset consumed_); returns how many bytes they fill.
  template <class OnEvent>
  result<std::size_t> walk(byte_span bytes, OnEvent& on_event) {
    std::size_t at = 0;
    while (bytes.size() - at >= record_header_size) {
      const record_header h = record_header::load(bytes.data() + at);
      // A size the header refuses fails now; a record not yet complete waits.
      if (h.size >= record_header_size && h.size > bytes.size() - at) break;
      auto checked = detail::check_record_header(bytes, at, consumed_);
      if (!checked) return fail(checked.error_value());
      if (auto e = take(bytes.data() + at, h, consumed_ + at, on_event); !e) {
        return fail(e.error_value());
      }
      at += h.size;
    }
    consumed_ += at;
    return at;
  }
  static error wrong(std::size_t at, std::string what) {
    return make_error(errc::inconsistent, at, std::move(what));
  }
  static result<void> want_size(const record_header& h, std::size_t at, std::size_t payload) {
    if (h.size == record_header_size + payload) return {};
    return wrong(at, recording::family.record_name(h.type) + " record has size " +
                         std::to_string(h.size) + ", expected " +
                         std::to_string(record_header_size + payload));
  }

  template <class OnEvent>
  result<void> take(const std::byte* rec, const record_header& h, std::size_t at,
                    OnEvent& on_event) {
    const std::byte* payload = rec + record_header_size;
    const std::size_t payload_size = h.size - record_header_size;
    if (records_ == 0 && h.type != record_type::recording_version) {
      return make_error(errc::unknown_format, at,
                        "not an i915-perf recording: the first record is not VERSION (type " +
                            std::to_string(record_type::recording_version) + ")");
    }
    const std::size_t index = records_++;
    switch (h.type) {
      case record_type::recording_version: {
        if (at != 0) return wrong(at, "a second VERSION record");
        if (auto e = want_size(h, at, 8); !e) return e;
        if (const std::uint32_t v = load_le32(payload); v != recording_version_supported) {
          return make_error(errc::unknown_format, at + record_header_size,
                            "recording version " + std::to_string(v) +
                                " is not supported (hwpc reads version 1)");
        }
        return {};
      }
      case record_type::device_info: {
        if (have_info_) return wrong(at, "a second DEVICE_INFO record");
        if (auto e = want_size(h, at, device_info_payload_size); !e) return e;
        const device_info d = detail::parse_device_info(payload, at);
        if (auto p = platform_from_pci_id(d.device_id)) {
          platform_ = *p;
        } else if (opts_.fallback_platform) {
          platform_ = *opts_.fallback_platform;
        } else {
          return make_error(errc::unknown_format, at + record_header_size + 8,
                            "device id " + to_hex(d.device_id, 4) +
                                " is not in hwpc's PCI id table; give the platform");
        }
        format_ = find_format_by_uapi(platform_, static_cast<int>(d.oa_format));
        if (format_ == nullptr) {
          return make_error(errc::unknown_format, at + record_header_size + 32,
                            "OA format " + std::to_string(d.oa_format) + " is not a format of " +
                                std::string(name_of(platform_)));
        }
        frequency_ = d.timestamp_frequency;
        device_id_ = d.device_id;
        set_name_ = std::string(d.metric_set_name);
        have_info_ = true;
        return {};
      }
      case record_type::device_topology: {
        auto t = detail::parse_topology(payload, payload_size, at);
        if (!t) return t.error_value();
        return {};
      }
      case record_type::timestamp_correlation: {
        if (auto e = want_size(h, at, correlation_payload_size); !e) return e;
        points_.push_back({load_le64(payload), load_le64(payload + 8), at});
        // The whole-file reader's check: both clocks run forwards.
        if (auto t = time(); !t) return t.error_value();
        ref_gpu_ts_ = points_.back().gpu_ts;
        return {};
      }
      default:
        break;
    }
    if (!detail::is_stream_record(h.type)) {
      ++unknown_;
      return {};
    }
    if (!have_info_) {
      return wrong(at, detail::record_name(h.type) +
                           " record before the DEVICE_INFO record that gives its format");
    }
    auto known = detail::check_stream_record(h, *format_, at);
    if (!known) return known.error_value();
    if (h.type == record_type::sample) ++samples_;
    capture_event e = detail::stream_record_event(rec, h, *format_, at, index);
    e.reference_gpu_ts = ref_gpu_ts_;
    e.has_reference_gpu_ts = !points_.empty();
    on_event(e);
    return {};
  }

  recording_options opts_;
  std::vector<std::byte> pending_;  // the unfinished record
  std::size_t consumed_ = 0;
  std::optional<error> failed_;
  bool have_info_ = false;
  const report_format* format_ = nullptr;
  platform platform_{};
  std::uint64_t frequency_ = 0;
  std::uint32_t device_id_ = 0;
  std::string set_name_;
  std::vector<correlation_point> points_;
  std::uint64_t ref_gpu_ts_ = 0;
  std::size_t records_ = 0, samples_ = 0, unknown_ = 0;
};

}  // namespace hwpc::intel
