// IGT xe-perf-recorder files: the Xe driver's counterpart of recording.hpp.
//
// The same 8-byte record headers `{u32 type; u16 pad; u16 size}` (size
// includes the header) and the same SAMPLE (1), OA_REPORT_LOST (2) and
// OA_BUFFER_LOST (3) records, but the header records are numbered 4..7
// (../shared/docs/FACTS-xe.md section 7):
//   4 VERSION                {u32 version (1); u32 pad}
//   5 DEVICE_INFO            the i915 recording's 336-byte packed struct,
//         with oa_format = IGT's 1-based intel_xe_oa_format_name (section 2's
//         "IGT #"), not the kernel's 0-based enum or the packed uapi value
//   6 DEVICE_TOPOLOGY        the i915 query layout with one slice, the DSS
//         mask at subslice_offset and one EU mask per DSS
//   7 TIMESTAMP_CORRELATION  {u64 cpu_timestamp; u64 gpu_timestamp}
// The first record's type tells the two families apart (4 here, 65536 for
// i915), which is how `hwpc decode` recognises either without flags.
//
// Where IGT's reader trusts sizes or asserts, make() returns an error naming
// the byte offset into the file: a first record that is not VERSION, an
// unsupported version, a size of 0, below the header, past the end or wrong
// for the type, a second VERSION or DEVICE_INFO, a stream record before
// DEVICE_INFO, no DEVICE_INFO, an unknown device without a fallback
// platform, an oa_format that is no Xe format of the platform (or whose
// layout is unverified, unless the caller opts in), malformed topology, and
// correlation points that run backwards. Other record types (i915's header
// records included) are skipped by their size and counted. Memory: the
// reader views the caller's bytes; it keeps one correlation point per
// correlation record and nothing per report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/intel/capture_event.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/pci_ids.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/time_correlation.hpp"

namespace hwpc::intel {

namespace xe_record_type {
inline constexpr std::uint32_t version = 4;
inline constexpr std::uint32_t device_info = 5;
inline constexpr std::uint32_t device_topology = 6;
inline constexpr std::uint32_t timestamp_correlation = 7;
}  // namespace xe_record_type

struct xe_recording_options {
  // The platform when the device id is not in the PCI id table.
  std::optional<platform> fallback_platform;
  // Accept a format whose layout FACTS-xe only lets us infer (xe_format::verified).
  bool unverified_layouts = false;
};

// What the recording says about its GPU, for the metric formulas' device
// variables ($GpuTimestampFrequency, $GpuMin/MaxFrequency, $SliceMask,
// $XeCoreTotalCount, $EuCoresTotalCount, ...). EU counts are the topology's,
// which on Xe2/Xe3 counts legacy EUs (two per vector engine; FACTS-xe
// section 5): the metrics code decides whether to halve it.
struct xe_device_variables {
  std::uint64_t timestamp_frequency_hz = 0;
  std::uint64_t gt_min_frequency_hz = 0;
  std::uint64_t gt_max_frequency_hz = 0;
  std::uint64_t revision = 0;
  bool has_topology = false;
  std::uint64_t slice_mask = 0;
  std::uint64_t dss_mask = 0;     // bit s * max_subslices + dss (DSS 0..63)
  unsigned dss_stride = 0;        // max_subslices: DSS slots per slice in dss_mask
  std::uint64_t eu_count = 0;     // EU-mask bits set over every present DSS
  std::uint64_t eus_per_dss = 0;  // eu_count / present DSS
};

class xe_recording {
 public:
  class iterator : public detail::record_cursor<iterator> {
   public:
    iterator() = default;
    iterator(const xe_recording* r, std::size_t at, std::size_t index) noexcept
        : record_cursor(r->bytes_, at, index),
          r_(r),
          ref_(r->first_gpu_ts_),
          has_ref_(r->has_first_gpu_ts_) {
      settle();
    }
    capture_event operator*() const noexcept {
      capture_event e = detail::stream_record_event(here(), record_header::load(here()),
                                                    r_->format_->layout, at_, index_);
      e.reference_gpu_ts = ref_;
      e.has_reference_gpu_ts = has_ref_;
      return e;
    }

   private:
    friend record_cursor;
    void settle() noexcept {
      while (!at_end()) {
        const std::uint32_t type = load_le32(here());
        if (detail::is_stream_record(type)) return;
        if (type == xe_record_type::timestamp_correlation) {
          ref_ = load_le64(here() + record_header_size + 8);
          has_ref_ = true;
        }
        advance();
      }
    }
    const xe_recording* r_ = nullptr;
    std::uint64_t ref_ = 0;
    bool has_ref_ = false;
  };

  // An xe-perf recording starts with a VERSION record of type 4.
  static bool looks_like_xe_recording(byte_span bytes) noexcept {
    return bytes.size() >= record_header_size && load_le32(bytes.data()) == xe_record_type::version;
  }

  // The reader views `bytes`: a temporary would leave it dangling.
  static result<xe_recording> make(std::vector<std::byte>&&,
                                   const xe_recording_options& = {}) = delete;
  static result<xe_recording> make(byte_span bytes, const xe_recording_options& opts = {}) {
    if (bytes.empty()) return make_error(errc::empty_input, 0, "empty xe-perf recording");
    if (!looks_like_xe_recording(bytes)) {
      return make_error(errc::unknown_format, 0,
                        "not an xe-perf recording: the first record is not VERSION (type 4)");
    }
    xe_recording r(bytes);
    bool have_info = false;
    std::vector<correlation_point> points;
    for (std::size_t at = 0; at < bytes.size();) {
      auto hr = detail::check_record_header(bytes, at, 0);
      if (!hr) return hr.error_value();
      const record_header h = *hr;
      const std::byte* payload = bytes.data() + at + record_header_size;
      const std::size_t payload_size = h.size - record_header_size;
      ++r.records_;
      switch (h.type) {
        case xe_record_type::version:
          if (at != 0) return wrong(at, "a second VERSION record");
          if (auto e = want_size(h, at, 8); !e) return e.error_value();
          r.version_ = load_le32(payload);
          if (r.version_ != recording_version_supported) {
            return make_error(errc::unknown_format, at + record_header_size,
                              "xe-perf recording version " + std::to_string(r.version_) +
                                  " is not supported (hwpc reads version 1)");
          }
          break;
        case xe_record_type::device_info:
          if (have_info) return wrong(at, "a second DEVICE_INFO record");
          if (auto e = want_size(h, at, device_info_payload_size); !e) return e.error_value();
          r.info_ = recording::parse_device_info(payload, at);
          if (auto e = r.resolve(opts, at); !e) return e.error_value();
          have_info = true;
          break;
        case xe_record_type::device_topology: {
          auto t = recording::parse_topology(payload, payload_size, at);
          if (!t) return t.error_value();
          r.topology_ = *t;
          break;
        }
        case xe_record_type::timestamp_correlation:
          if (auto e = want_size(h, at, correlation_payload_size); !e) return e.error_value();
          points.push_back({load_le64(payload), load_le64(payload + 8), at});
          if (!r.has_first_gpu_ts_) {
            r.first_gpu_ts_ = points.back().gpu_ts;
            r.has_first_gpu_ts_ = true;
          }
          break;
        default:
          if (detail::is_stream_record(h.type)) {
            if (!have_info) {
              return wrong(at, detail::record_name(h.type) +
                                   " record before the DEVICE_INFO record that gives its format");
            }
            auto known = detail::check_stream_record(h, r.format_->layout, at);
            if (!known) return known.error_value();
            if (h.type == record_type::sample) ++r.samples_;
          } else if (r.unknown_++ == 0) {
            r.first_unknown_ = {h.type, at};
          }
      }
      at += h.size;
    }
    if (!have_info) {
      return make_error(
          errc::inconsistent, bytes.size(),
          "the xe-perf recording has no DEVICE_INFO record (no format, no frequency)");
    }
    auto time = time_correlation::make(std::move(points), r.timestamp_frequency());
    if (!time) return time.error_value();
    r.time_ = std::move(*time);
    return r;
  }

  std::uint32_t version() const noexcept { return version_; }
  const device_info& device() const noexcept { return info_; }
  platform device_platform() const noexcept { return platform_; }
  bool platform_from_device_id() const noexcept { return platform_from_id_; }
  const xe_format& xe() const noexcept { return *format_; }
  const report_format& format() const noexcept { return format_->layout; }
  std::string_view metric_set_name() const noexcept { return info_.metric_set_name; }
  std::string_view metric_set_uuid() const noexcept { return info_.metric_set_uuid; }
  const std::optional<device_topology>& topology() const noexcept { return topology_; }
  std::uint64_t timestamp_frequency() const noexcept {
    return info_.timestamp_frequency != 0 ? info_.timestamp_frequency
                                          : info(platform_).timestamp_frequency_hz;
  }
  const time_correlation& time() const noexcept { return time_; }
  std::size_t records() const noexcept { return records_; }
  std::size_t samples() const noexcept { return samples_; }
  std::size_t unknown_records() const noexcept { return unknown_; }
  const unknown_record& first_unknown() const noexcept { return first_unknown_; }

  // The device variables' inputs (see xe_device_variables).
  xe_device_variables device_variables() const noexcept {
    xe_device_variables d;
    d.timestamp_frequency_hz = timestamp_frequency();
    d.gt_min_frequency_hz = info_.gt_min_frequency;
    d.gt_max_frequency_hz = info_.gt_max_frequency;
    d.revision = info_.device_revision;
    if (!topology_) return d;
    const device_topology& t = *topology_;
    d.has_topology = true;
    d.dss_stride = t.max_subslices;
    unsigned present = 0;
    for (unsigned s = 0; s < t.max_slices && s < 64; ++s) {
      if (!t.slice_available(s)) continue;
      d.slice_mask |= 1ull << s;
      for (unsigned ss = 0; ss < t.max_subslices; ++ss) {
        const unsigned bit = s * t.max_subslices + ss;
        if (!t.subslice_available(s, ss)) continue;
        ++present;
        if (bit < 64) d.dss_mask |= 1ull << bit;
        for (unsigned e = 0; e < t.max_eus_per_subslice; ++e)
          d.eu_count += t.eu_available(s, ss, e);
      }
    }
    d.eus_per_dss = present == 0 ? 0 : d.eu_count / present;
    return d;
  }

  iterator begin() const noexcept { return {this, 0, 0}; }
  iterator end() const noexcept { return {this, bytes_.size(), records_}; }

 private:
  explicit xe_recording(byte_span b) noexcept : bytes_(b) {}

  static std::string name_of_type(std::uint32_t type) {
    switch (type) {
      case xe_record_type::version:
        return "VERSION";
      case xe_record_type::device_info:
        return "DEVICE_INFO";
      case xe_record_type::device_topology:
        return "DEVICE_TOPOLOGY";
      case xe_record_type::timestamp_correlation:
        return "TIMESTAMP_CORRELATION";
      default:
        return detail::record_name(type);
    }
  }
  static error wrong(std::size_t at, std::string what) {
    return make_error(errc::inconsistent, at, std::move(what));
  }
  static result<void> want_size(const record_header& h, std::size_t at, std::size_t payload) {
    if (h.size == record_header_size + payload) return {};
    return make_error(errc::inconsistent, at,
                      name_of_type(h.type) + " record has size " + std::to_string(h.size) +
                          ", expected " + std::to_string(record_header_size + payload));
  }
  result<void> resolve(const xe_recording_options& opts, std::size_t at) {
    if (auto p = platform_from_pci_id(info_.device_id)) {
      platform_ = *p;
      platform_from_id_ = true;
    } else if (opts.fallback_platform) {
      platform_ = *opts.fallback_platform;
    } else {
      return make_error(errc::unknown_format, at + record_header_size + 8,
                        "device id " + to_hex(info_.device_id) +
                            " is not in hwpc's PCI id table; give the platform");
    }
    const std::size_t fmt_at = at + record_header_size + 32;
    const xe_format* x = find_xe_format_by_igt_id(static_cast<int>(info_.oa_format));
    if (x == nullptr || !x->on(platform_)) {
      return make_error(errc::unknown_format, fmt_at,
                        "oa_format " + std::to_string(info_.oa_format) +
                            " (IGT's 1-based Xe format number) is not an Xe format of " +
                            std::string(name_of(platform_)));
    }
    if (!x->verified && !opts.unverified_layouts) {
      return make_error(errc::unknown_format, fmt_at,
                        "oa_format " + std::to_string(info_.oa_format) + " is " +
                            std::string(x->name) + ", whose layout is not verified (" +
                            std::string(x->evidence) + "); decoding it needs an explicit opt-in");
    }
    format_ = x;
    return {};
  }

  byte_span bytes_;
  std::uint32_t version_ = 0;
  device_info info_{};
  platform platform_{};
  bool platform_from_id_ = false;
  const xe_format* format_ = nullptr;
  std::optional<device_topology> topology_;
  time_correlation time_;
  std::uint64_t first_gpu_ts_ = 0;
  bool has_first_gpu_ts_ = false;
  std::size_t records_ = 0;
  std::size_t samples_ = 0;
  std::size_t unknown_ = 0;
  unknown_record first_unknown_{};
};

}  // namespace hwpc::intel
