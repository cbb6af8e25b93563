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
#include "hwpc/intel/recording_reader.hpp"
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

class xe_recording : public detail::recording_reader<xe_recording> {
 public:
  static constexpr detail::recording_family family{xe_record_type::version,
                                                   xe_record_type::device_info,
                                                   xe_record_type::device_topology,
                                                   xe_record_type::timestamp_correlation,
                                                   "xe-perf recording",
                                                   "xe-perf recording"};

  // An xe-perf recording starts with a VERSION record of type 4.
  static bool looks_like_xe_recording(byte_span bytes) noexcept { return looks_like(bytes); }

  // The reader views `bytes`: a temporary would leave it dangling.
  static result<xe_recording> make(std::vector<std::byte>&&,
                                   const xe_recording_options& = {}) = delete;
  static result<xe_recording> make(byte_span bytes, const xe_recording_options& opts = {}) {
    xe_recording r(bytes, opts.unverified_layouts);
    if (auto e = r.read_records(opts.fallback_platform); !e) return e.error_value();
    return r;
  }

  // The platform from the first records only (recording::platform_of).
  static result<platform> platform_of(byte_span bytes, const xe_recording_options& opts = {}) {
    return platform_in_first_records(xe_recording(bytes, opts.unverified_layouts),
                                     opts.fallback_platform);
  }

  const xe_format& xe() const noexcept { return *format_; }
  const report_format& format() const noexcept { return format_->layout; }
  std::string_view metric_set_name() const noexcept { return info_.metric_set_name; }
  std::string_view metric_set_uuid() const noexcept { return info_.metric_set_uuid; }

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

 private:
  friend recording_reader;
  xe_recording(byte_span b, bool unverified_layouts) noexcept
      : recording_reader(b), unverified_layouts_(unverified_layouts) {}

  // DEVICE_INFO's oa_format is IGT's 1-based Xe format number; a format
  // whose layout is only inferred needs the caller's opt-in.
  result<void> choose_format(std::size_t at) {
    const std::size_t fmt_at = at + record_header_size + 32;
    const xe_format* x = find_xe_format_by_igt_id(static_cast<int>(info_.oa_format));
    if (x == nullptr || !x->on(platform_)) {
      return make_error(errc::unknown_format, fmt_at,
                        "oa_format " + std::to_string(info_.oa_format) +
                            " (IGT's 1-based Xe format number) is not an Xe format of " +
                            std::string(name_of(platform_)));
    }
    if (!x->verified && !unverified_layouts_) {
      return make_error(errc::unknown_format, fmt_at,
                        "oa_format " + std::to_string(info_.oa_format) + " is " +
                            std::string(x->name) + ", whose layout is not verified (" +
                            std::string(x->evidence) + "); decoding it needs an explicit opt-in");
    }
    format_ = x;
    return {};
  }

  bool unverified_layouts_ = false;
  const xe_format* format_ = nullptr;
};

}  // namespace hwpc::intel
