// IGT i915-perf-recorder files: the i915 perf record stream with metadata.
//
// A recording is a sequence of record headers (i915_stream.hpp) that starts
// with a VERSION record; besides SAMPLE, OA_REPORT_LOST and OA_BUFFER_LOST it
// holds (FACTS.md "IGT recording file"):
//   65536 VERSION                {u32 version (1); u32 pad}
//   65537 DEVICE_INFO            packed, 336 bytes: u64 timestamp_frequency;
//         u32 device_id, device_revision, gt_min_frequency, gt_max_frequency,
//         engine_class, engine_instance, oa_format (uapi id);
//         char metric_set_name[256]; char metric_set_uuid[40]; u32 pad
//   65538 DEVICE_TOPOLOGY        drm_i915_query_topology_info: 8 x u16 then
//         the slice/subslice/EU masks, padded to 8 bytes
//   65539 TIMESTAMP_CORRELATION  {u64 cpu_timestamp (CLOCK_MONOTONIC ns);
//         u64 gpu_timestamp}
// Other types are skipped by their size and counted (unknown_records()).
//
// Where the public reader trusts sizes (a size of 0 loops forever) or
// asserts, recording::make() returns an error naming the byte offset:
// a first record that is not VERSION, an unsupported version, a record whose
// size is 0, below its header, past the end or wrong for its type, a second
// DEVICE_INFO, a SAMPLE before DEVICE_INFO, no DEVICE_INFO at all, a device
// that maps to no platform, and an OA format the platform does not have.
// Correlation points must run forwards in both clocks (time_correlation.hpp
// names the offending record). Reports outside the correlated time range get
// an extrapolated CPU time, never an assertion.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording_reader.hpp"

namespace hwpc::intel {

struct recording_options {
  // The platform when the device id is not in the (partial) PCI id table.
  std::optional<platform> fallback_platform;
};

class recording : public detail::recording_reader<recording> {
 public:
  static constexpr detail::recording_family family{record_type::recording_version,
                                                   record_type::device_info,
                                                   record_type::device_topology,
                                                   record_type::timestamp_correlation,
                                                   "recording",
                                                   "i915-perf recording"};

  // A recording starts with a VERSION record.
  static bool looks_like_recording(byte_span bytes) noexcept { return looks_like(bytes); }

  // The reader views `bytes`: a temporary would leave it dangling.
  static result<recording> make(std::vector<std::byte>&&, const recording_options& = {}) = delete;
  static result<recording> make(byte_span bytes, const recording_options& opts = {}) {
    recording r(bytes);
    if (auto e = r.read_records(opts.fallback_platform); !e) return e.error_value();
    return r;
  }

  // The platform from the first records only, VERSION up to DEVICE_INFO
  // (recording_reader::read_device): what identify() asks of any capture,
  // however large.
  static result<platform> platform_of(byte_span bytes, const recording_options& opts = {}) {
    return platform_in_first_records(recording(bytes), opts.fallback_platform);
  }

  const report_format& format() const noexcept { return *format_; }

 private:
  friend recording_reader;
  explicit recording(byte_span b) noexcept : recording_reader(b) {}

  // DEVICE_INFO's oa_format is the i915 uapi id of the platform's format.
  result<void> choose_format(std::size_t at) {
    format_ = find_format_by_uapi(platform_, static_cast<int>(info_.oa_format));
    if (format_ != nullptr) return {};
    return make_error(errc::unknown_format, at + record_header_size + 32,
                      "OA format " + std::to_string(info_.oa_format) + " is not a format of " +
                          std::string(name_of(platform_)));
  }

  const report_format* format_ = nullptr;
};

}  // namespace hwpc::intel
