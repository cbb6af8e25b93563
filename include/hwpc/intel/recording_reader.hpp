// What IGT's two recorder file families share (recording.hpp for i915-perf,
// xe_recording.hpp for xe-perf): the DEVICE_INFO and DEVICE_TOPOLOGY
// payloads, one walk over every record that checks sizes and order, and the
// iterator over stream records that carries the latest correlation point's
// GPU time. The families differ only in their header record numbers (65536..
// for i915, 4.. for Xe), their wording, and what DEVICE_INFO's oa_format
// numbers (an i915 uapi id, or IGT's 1-based Xe format index): each reader
// supplies those, recording_reader does the rest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
#include "hwpc/intel/time_correlation.hpp"

namespace hwpc::intel {

inline constexpr std::uint32_t recording_version_supported = 1;
inline constexpr std::size_t device_info_payload_size = 336;
inline constexpr std::size_t topology_header_size = 16;
inline constexpr std::size_t correlation_payload_size = 16;

struct device_info {
  std::uint64_t timestamp_frequency = 0;  // Hz
  std::uint32_t device_id = 0;            // PCI device id
  std::uint32_t device_revision = 0;
  std::uint32_t gt_min_frequency = 0;  // Hz
  std::uint32_t gt_max_frequency = 0;  // Hz
  std::uint32_t engine_class = 0;
  std::uint32_t engine_instance = 0;
  std::uint32_t oa_format = 0;       // enum drm_i915_oa_format
  std::string_view metric_set_name;  // up to the first NUL; views the recording
  std::string_view metric_set_uuid;  // up to the first NUL; views the recording
  std::size_t offset = 0;            // of the DEVICE_INFO record
};

// drm_i915_query_topology_info: bit masks of available slices, subslices and EUs.
struct device_topology {
  std::uint16_t flags = 0;
  std::uint16_t max_slices = 0;
  std::uint16_t max_subslices = 0;
  std::uint16_t max_eus_per_subslice = 0;
  std::uint16_t subslice_offset = 0;
  std::uint16_t subslice_stride = 0;
  std::uint16_t eu_offset = 0;
  std::uint16_t eu_stride = 0;
  byte_span data;  // the masks; make() checked that every mask lies inside it
  std::size_t offset = 0;

  bool slice_available(unsigned s) const noexcept { return mask_bit(s / 8, s % 8); }
  bool subslice_available(unsigned s, unsigned ss) const noexcept {
    return mask_bit(subslice_offset + s * subslice_stride + ss / 8, ss % 8);
  }
  bool eu_available(unsigned s, unsigned ss, unsigned eu) const noexcept {
    return mask_bit(eu_offset + (s * max_subslices + ss) * eu_stride + eu / 8, eu % 8);
  }
  unsigned eu_count() const noexcept {
    unsigned n = 0;
    for (unsigned s = 0; s < max_slices; ++s)
      for (unsigned ss = 0; ss < max_subslices; ++ss)
        for (unsigned eu = 0; eu < max_eus_per_subslice; ++eu) n += eu_available(s, ss, eu);
    return n;
  }

 private:
  bool mask_bit(std::size_t byte, unsigned b) const noexcept {
    return byte < data.size() && ((load_u8(data.data() + byte) >> b) & 1u) != 0;
  }
};

namespace detail {

// The DEVICE_INFO and DEVICE_TOPOLOGY payloads, laid out the same way in
// both families.
inline std::string_view c_string(const std::byte* p, std::size_t max) noexcept {
  const char* s = reinterpret_cast<const char*>(p);
  std::size_t n = 0;
  while (n < max && s[n] != '\0') ++n;
  return {s, n};
}
inline device_info parse_device_info(const std::byte* p, std::size_t at) noexcept {
  device_info d;
  d.timestamp_frequency = load_le64(p);
  d.device_id = load_le32(p + 8);
  d.device_revision = load_le32(p + 12);
  d.gt_min_frequency = load_le32(p + 16);
  d.gt_max_frequency = load_le32(p + 20);
  d.engine_class = load_le32(p + 24);
  d.engine_instance = load_le32(p + 28);
  d.oa_format = load_le32(p + 32);
  d.metric_set_name = c_string(p + 36, 256);
  d.metric_set_uuid = c_string(p + 292, 40);
  d.offset = at;
  return d;
}
inline result<device_topology> parse_topology(const std::byte* p, std::size_t n, std::size_t at) {
  if (n < topology_header_size) {
    return make_error(errc::inconsistent, at,
                      "DEVICE_TOPOLOGY record has " + std::to_string(n) +
                          " payload bytes, fewer than its 16-byte header");
  }
  device_topology t;
  t.flags = load_le16(p);
  t.max_slices = load_le16(p + 2);
  t.max_subslices = load_le16(p + 4);
  t.max_eus_per_subslice = load_le16(p + 6);
  t.subslice_offset = load_le16(p + 8);
  t.subslice_stride = load_le16(p + 10);
  t.eu_offset = load_le16(p + 12);
  t.eu_stride = load_le16(p + 14);
  t.data = byte_span(p + topology_header_size, n - topology_header_size);
  t.offset = at;
  // Every mask must lie inside the record.
  const std::size_t slice_end = (t.max_slices + 7u) / 8u;
  const std::size_t ss_end =
      t.max_slices == 0 ? 0 : t.subslice_offset + std::size_t{t.max_slices} * t.subslice_stride;
  const std::size_t eu_end =
      t.max_slices == 0 || t.max_subslices == 0
          ? 0
          : t.eu_offset + std::size_t{t.max_slices} * t.max_subslices * t.eu_stride;
  const std::size_t need = std::max(slice_end, std::max(ss_end, eu_end));
  // A stride narrower than its mask would make one subslice's bits run into the next.
  const bool strides_hold_masks = t.subslice_stride >= (t.max_subslices + 7u) / 8u &&
                                  t.eu_stride >= (t.max_eus_per_subslice + 7u) / 8u;
  if (t.max_slices != 0 && (need > t.data.size() || !strides_hold_masks)) {
    return make_error(errc::inconsistent, at,
                      "DEVICE_TOPOLOGY masks need " + std::to_string(need) +
                          " bytes with subslice/EU strides " + std::to_string(t.subslice_stride) +
                          "/" + std::to_string(t.eu_stride) + "; the record holds " +
                          std::to_string(t.data.size()));
  }
  return t;
}

// The record numbers and words of one recorder family.
struct recording_family {
  std::uint32_t version;
  std::uint32_t device_info;
  std::uint32_t device_topology;
  std::uint32_t timestamp_correlation;
  std::string_view name;  // "recording", "xe-perf recording"
  std::string_view kind;  // "i915-perf recording", "xe-perf recording"

  std::string record_name(std::uint32_t type) const {
    if (type == version) return "VERSION";
    if (type == device_info) return "DEVICE_INFO";
    if (type == device_topology) return "DEVICE_TOPOLOGY";
    if (type == timestamp_correlation) return "TIMESTAMP_CORRELATION";
    return detail::record_name(type);
  }
};

// The reader both families derive from (CRTP). Derived provides
//   static constexpr recording_family family;
//   const report_format& format() const;         // the stream records' layout
//   result<void> choose_format(std::size_t at);  // from info_.oa_format, once
//                                                //   the platform is known
// and calls read_records() from its make().
template <class Derived>
class recording_reader {
 public:
  class iterator : public record_cursor<iterator> {
    using base = record_cursor<iterator>;

   public:
    iterator() = default;
    iterator(const Derived* r, std::size_t at, std::size_t index) noexcept
        : base(r->bytes_, at, index),
          r_(r),
          ref_(r->first_gpu_ts_),
          has_ref_(r->has_first_gpu_ts_) {
      settle();
    }
    capture_event operator*() const noexcept {
      capture_event e = stream_record_event(this->here(), record_header::load(this->here()),
                                            r_->format(), this->at_, this->index_);
      e.reference_gpu_ts = ref_;
      e.has_reference_gpu_ts = has_ref_;
      return e;
    }

   private:
    friend base;
    // Moves to the next stream record, noting correlation points on the way.
    void settle() noexcept {
      while (!this->at_end()) {
        const std::uint32_t type = load_le32(this->here());
        if (is_stream_record(type)) return;
        if (type == Derived::family.timestamp_correlation) {
          ref_ = load_le64(this->here() + record_header_size + 8);
          has_ref_ = true;
        }
        this->advance();
      }
    }
    const Derived* r_ = nullptr;
    std::uint64_t ref_ = 0;
    bool has_ref_ = false;
  };

  std::uint32_t version() const noexcept { return version_; }
  const device_info& device() const noexcept { return info_; }
  platform device_platform() const noexcept { return platform_; }
  // True when the platform came from the PCI id table, false when from the caller.
  bool platform_from_device_id() const noexcept { return platform_from_id_; }
  const std::optional<device_topology>& topology() const noexcept { return topology_; }
  // The device's TIME_STAMP frequency, or the platform default when the
  // recording says 0.
  std::uint64_t timestamp_frequency() const noexcept {
    return info_.timestamp_frequency != 0 ? info_.timestamp_frequency
                                          : info(platform_).timestamp_frequency_hz;
  }
  const time_correlation& time() const noexcept { return time_; }
  std::size_t records() const noexcept { return records_; }
  std::size_t samples() const noexcept { return samples_; }
  // Records of a type hwpc does not know, skipped by their size, and the first.
  std::size_t unknown_records() const noexcept { return unknown_; }
  const unknown_record& first_unknown() const noexcept { return first_unknown_; }

  iterator begin() const noexcept { return {&self(), 0, 0}; }
  iterator end() const noexcept { return {&self(), bytes_.size(), records_}; }

  // Where platform_of() (read_device()) gives up looking for DEVICE_INFO: the recorders
  // write it second, after VERSION, so a record that starts past this many
  // bytes means a file written some other way, and its device goes unnamed
  // rather than cost a pass over the whole file.
  static constexpr std::size_t device_prefix_bytes = 64 * 1024;

  static bool looks_like(byte_span bytes) noexcept {
    return bytes.size() >= record_header_size && load_le32(bytes.data()) == Derived::family.version;
  }

 protected:
  explicit recording_reader(byte_span b) noexcept : bytes_(b) {}

  // Walks every record once: sizes, order, the header records' payloads,
  // the correlation points; stream records are checked against format().
  result<void> read_records(const std::optional<platform>& fallback) {
    return walk<false>(fallback);
  }
  // The same walk over the first records only, up to and including
  // DEVICE_INFO (which gives the platform and format), so naming a large
  // recording's device costs its first records, not all of them. What lies
  // after DEVICE_INFO is not read: the object is fit for device(),
  // device_platform() and version() only.
  result<void> read_device(const std::optional<platform>& fallback) { return walk<true>(fallback); }
  // The platform a recording names, from read_device() (Derived's
  // platform_of()).
  static result<platform> platform_in_first_records(Derived r,
                                                    const std::optional<platform>& fallback) {
    if (auto e = r.read_device(fallback); !e) return e.error_value();
    return r.platform_;
  }

  template <bool DeviceOnly>
  result<void> walk(const std::optional<platform>& fallback) {
    constexpr const recording_family& f = Derived::family;
    const byte_span bytes = bytes_;
    if (bytes.empty()) return make_error(errc::empty_input, 0, "empty " + std::string(f.name));
    if (!looks_like(bytes)) {
      return make_error(errc::unknown_format, 0,
                        "not an " + std::string(f.kind) +
                            ": the first record is not VERSION (type " + std::to_string(f.version) +
                            ")");
    }
    bool have_info = false;
    std::vector<correlation_point> points;
    std::size_t at = 0;
    for (; at < bytes.size();) {
      if (DeviceOnly && at >= device_prefix_bytes) break;
      auto hr = check_record_header(bytes, at, 0);
      if (!hr) return hr.error_value();
      const record_header h = *hr;
      const std::byte* payload = bytes.data() + at + record_header_size;
      const std::size_t payload_size = h.size - record_header_size;
      ++records_;
      if (h.type == f.version) {
        if (at != 0) return wrong(at, "a second VERSION record");
        if (auto e = want_size(h, at, 8); !e) return e.error_value();
        version_ = load_le32(payload);
        if (version_ != recording_version_supported) {
          return make_error(errc::unknown_format, at + record_header_size,
                            std::string(f.name) + " version " + std::to_string(version_) +
                                " is not supported (hwpc reads version 1)");
        }
      } else if (h.type == f.device_info) {
        if (have_info) return wrong(at, "a second DEVICE_INFO record");
        if (auto e = want_size(h, at, device_info_payload_size); !e) return e.error_value();
        info_ = parse_device_info(payload, at);
        if (auto e = resolve_platform(fallback, at); !e) return e.error_value();
        if (auto e = static_cast<Derived&>(*this).choose_format(at); !e) return e.error_value();
        have_info = true;
        if constexpr (DeviceOnly) return {};
      } else if (h.type == f.device_topology) {
        auto t = parse_topology(payload, payload_size, at);
        if (!t) return t.error_value();
        topology_ = *t;
      } else if (h.type == f.timestamp_correlation) {
        if (auto e = want_size(h, at, correlation_payload_size); !e) return e.error_value();
        points.push_back({load_le64(payload), load_le64(payload + 8), at});
        if (!has_first_gpu_ts_) {
          first_gpu_ts_ = points.back().gpu_ts;
          has_first_gpu_ts_ = true;
        }
      } else if (is_stream_record(h.type)) {
        if (!have_info) {
          return wrong(at, record_name(h.type) +
                               " record before the DEVICE_INFO record that gives its format");
        }
        auto known = check_stream_record(h, self().format(), at);
        if (!known) return known.error_value();
        if (h.type == record_type::sample) ++samples_;
      } else if (unknown_++ == 0) {
        first_unknown_ = {h.type, at};
      }
      at += h.size;
    }
    if (!have_info && at < bytes.size()) {
      return make_error(errc::inconsistent, at,
                        "no DEVICE_INFO record in the " + std::string(f.name) + "'s first " +
                            std::to_string(device_prefix_bytes) + " bytes");
    }
    if (!have_info) {
      return make_error(
          errc::inconsistent, bytes.size(),
          "the " + std::string(f.name) + " has no DEVICE_INFO record (no format, no frequency)");
    }
    auto time = time_correlation::make(std::move(points), timestamp_frequency());
    if (!time) return time.error_value();
    time_ = std::move(*time);
    return {};
  }

  byte_span bytes_;
  std::uint32_t version_ = 0;
  device_info info_{};
  platform platform_{};
  bool platform_from_id_ = false;
  std::optional<device_topology> topology_;
  time_correlation time_;
  std::uint64_t first_gpu_ts_ = 0;
  bool has_first_gpu_ts_ = false;
  std::size_t records_ = 0;
  std::size_t samples_ = 0;
  std::size_t unknown_ = 0;
  unknown_record first_unknown_{};

 private:
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }

  static error wrong(std::size_t at, std::string what) {
    return make_error(errc::inconsistent, at, std::move(what));
  }
  static result<void> want_size(const record_header& h, std::size_t at, std::size_t payload) {
    if (h.size == record_header_size + payload) return {};
    return make_error(errc::inconsistent, at,
                      Derived::family.record_name(h.type) + " record has size " +
                          std::to_string(h.size) + ", expected " +
                          std::to_string(record_header_size + payload));
  }
  // The platform from DEVICE_INFO's device id, or the caller's fallback.
  result<void> resolve_platform(const std::optional<platform>& fallback, std::size_t at) {
    if (auto p = platform_from_pci_id(info_.device_id)) {
      platform_ = *p;
      platform_from_id_ = true;
      return {};
    }
    if (fallback) {
      platform_ = *fallback;
      return {};
    }
    return make_error(errc::unknown_format, at + record_header_size + 8,
                      "device id " + to_hex(info_.device_id, 4) +
                          " is not in hwpc's PCI id table; give the platform");
  }
};

}  // namespace detail
}  // namespace hwpc::intel
