// Files made from a capture: the raw report file, the i915 perf stream and
// the IGT recording. Layouts are those of ../shared/docs/FACTS.md ("i915 perf
// read() stream", "IGT recording file"); all little-endian.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/emu/oa_unit.hpp"
#include "hwpc/emu/recording_records.hpp"
#include "hwpc/emu/sku.hpp"
#include "hwpc/emu/truth.hpp"

namespace hwpc::emu {

// Record types: i915 uapi (1..3) and the IGT recorder (65536..65539).
namespace record_type {
inline constexpr std::uint32_t sample = 1;
inline constexpr std::uint32_t oa_report_lost = 2;
inline constexpr std::uint32_t oa_buffer_lost = 3;
inline constexpr std::uint32_t version = 65536;
inline constexpr std::uint32_t device_info = 65537;
inline constexpr std::uint32_t device_topology = 65538;
inline constexpr std::uint32_t timestamp_correlation = 65539;
}  // namespace record_type

inline constexpr std::size_t record_header_size = 8;
inline constexpr std::size_t device_info_size = 336;
inline constexpr std::uint32_t recording_version = 1;

namespace detail {

// The record packing shared with `hwpc record` (recording_records.hpp).
using records::put_header;
using records::put_text;
using records::put_u16;
using records::put_u32;
using records::put_u64;

// A zero-RPT_ID slot as the reader found it: the stale bytes of the report
// that was there before (RPT_ID cleared, and TIME_STAMP on the Xe driver),
// or zeros for never-written memory.
inline void put_unlanded(std::vector<std::byte>& out, const capture& cap, std::size_t stale) {
  const std::size_t at = out.size();
  out.resize(at + cap.report_size(), std::byte{0});
  if (stale == read_item::npos) return;
  const auto b = cap.report_bytes(stale);
  std::copy(b.begin(), b.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
  clear_landed_marks(cap, out.data() + at);
}

// Public PCI device ids, one representative per platform.
inline constexpr std::array<std::uint32_t, 23> device_ids{
    0x0126, 0x0166, 0x0f31, 0x0416, 0x1616, 0x22b0, 0x1916, 0x5a84, 0x5916, 0x3184, 0x3e92, 0x5a52,
    0x8a52, 0x4e71, 0x9a49, 0x4c8a, 0x4680, 0x4905, 0x56a0, 0x7d55, 0x64a0, 0xe20b, 0xb080};

}  // namespace detail

// Reports back to back, no header: what `hwpc decode --input-kind raw` reads.
// Slots the consumer found unlanded are kept (RPT_ID 0), as a dump would.
inline std::vector<std::byte> raw_file(const capture& cap) {
  std::vector<std::byte> out;
  if (cap.mi_rpc_mode) {
    for (std::size_t i : cap.mi_rpc) {
      const auto b = cap.report_bytes(i);
      out.insert(out.end(), b.begin(), b.end());
    }
    return out;
  }
  for (const auto& it : cap.read) {
    if (it.k == read_item::kind::sample) {
      const auto b = cap.report_bytes(it.report);
      out.insert(out.end(), b.begin(), b.end());
    } else if (it.k == read_item::kind::unlanded) {
      detail::put_unlanded(out, cap, it.stale);
    }
  }
  return out;
}

// The MI_REPORT_PERF_COUNT buffer, back to back.
inline std::vector<std::byte> mi_rpc_file(const capture& cap) {
  std::vector<std::byte> out;
  for (std::size_t i : cap.mi_rpc) {
    const auto b = cap.report_bytes(i);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// i915 perf read() records: SAMPLE (header + report), OA_REPORT_LOST and
// OA_BUFFER_LOST (header only). Zero-RPT_ID reports are skipped, as i915 does.
inline result<std::vector<std::byte>> i915_stream(const capture& cap) {
  if (cap.mi_rpc_mode) {
    return make_error(errc::inconsistent, 0,
                      std::string(cap.format->name) +
                          " reports do not divide any OA buffer size: no i915 stream");
  }
  if (cap.kernel_driver != driver::i915) {
    return make_error(errc::inconsistent, 0,
                      "an Xe driver capture has no i915 stream (xe-stream or xe-recording)");
  }
  std::vector<std::byte> out;
  for (const auto& it : cap.read) {
    switch (it.k) {
      case read_item::kind::sample: {
        detail::put_header(out, record_type::sample, record_header_size + cap.report_size());
        const auto b = cap.report_bytes(it.report);
        out.insert(out.end(), b.begin(), b.end());
        break;
      }
      case read_item::kind::report_lost:
        detail::put_header(out, record_type::oa_report_lost, record_header_size);
        break;
      case read_item::kind::buffer_lost:
        detail::put_header(out, record_type::oa_buffer_lost, record_header_size);
        break;
      case read_item::kind::unlanded:
        break;
    }
  }
  return out;
}

// CLOCK_MONOTONIC nanoseconds the recording pretends the GPU's TIME_STAMP 0
// (total, not raw) corresponds to.
inline constexpr std::uint64_t recording_cpu_epoch_ns = 5'000'000'000ull;

// The metric set a recording says it was made with. IGT's reader looks the
// set up by this name among its metric files (symbol_name) and reports the
// uuid (hw_config_guid); empty fields give "Emulated<format>" and a uuid made
// from the seed, platform and counter select.
struct recording_identity {
  std::string metric_set_name;
  std::string metric_set_uuid;
};

// The records both IGT recorder families write alike (the i915-perf and the
// xe-perf recorder; only their record numbers differ).
namespace detail {

using records::put_version;

// A uuid-shaped string made from the seed, the platform and `format_tag`.
inline std::string emulated_uuid(const capture& cap, std::uint32_t format_tag) {
  char u[36] = {};
  const auto hex = [](std::uint64_t v, int digits, char* at) {
    for (int i = digits - 1; i >= 0; --i, v >>= 4) at[i] = "0123456789abcdef"[v & 0xf];
  };
  hex(cap.cfg.seed >> 32, 8, u);
  u[8] = '-';
  hex(static_cast<std::uint64_t>(cap.cfg.platform), 4, u + 9);
  u[13] = '-';
  hex(0x4000u | format_tag, 4, u + 14);
  u[18] = '-';
  hex(0x8000u, 4, u + 19);
  u[23] = '-';
  hex(cap.cfg.seed & 0xffffffffffffull, 12, u + 24);
  return std::string(u, 36);
}

// DEVICE_INFO (packed, 336 bytes; frequencies in Hz). `oa_format` is the
// family's number for the format (an i915 uapi id, IGT's Xe format number).
// The metric set is the one `id` names, else "Emulated<format>" with the
// uuid emulated_uuid(cap, uuid_tag).
inline result<void> put_device_info(std::vector<std::byte>& out, const capture& cap,
                                    std::uint32_t type, std::uint32_t oa_format,
                                    std::uint32_t uuid_tag, const recording_identity& id) {
  const sku& dev = device_of(cap.cfg);
  records::device_fields d;
  d.timestamp_hz = cap.timestamp_hz;  // the OA unit's timestamp frequency
  d.device_id = device_ids[static_cast<std::size_t>(cap.cfg.platform)];
  d.revision = 0;  // the recorders never fill it
  d.gt_min_hz = dev.min_mhz * 1'000'000u;
  d.gt_max_hz = dev.max_mhz * 1'000'000u;
  d.engine_class = 0;  // render
  d.engine_instance = 0;
  d.oa_format = oa_format;
  d.metric_set_name =
      id.metric_set_name.empty() ? "Emulated" + std::string(cap.format->name) : id.metric_set_name;
  d.metric_set_uuid =
      id.metric_set_uuid.empty() ? emulated_uuid(cap, uuid_tag) : id.metric_set_uuid;
  if (id.metric_set_name.size() >= 256 || id.metric_set_uuid.size() >= 40) {
    return make_error(errc::out_of_range, 0,
                      "metric set name (255 bytes) or uuid (39 bytes) too long for DEVICE_INFO");
  }
  return records::put_device_info(out, type, d);
}

// TIMESTAMP_CORRELATION {u64 cpu ns; u64 gpu timestamp}, `total_ticks` after
// the capture's start.
inline void put_correlation(std::vector<std::byte>& out, const capture& cap, std::uint32_t type,
                            std::uint64_t total_ticks) {
  const std::uint64_t hz = cap.timestamp_hz;
  const std::uint64_t ns =
      total_ticks / hz * 1'000'000'000u + total_ticks % hz * 1'000'000'000u / hz;
  records::put_correlation(out, type, recording_cpu_epoch_ns + ns,
                           cap.start.timestamp + total_ticks);
}

// The two correlation points that bracket every report: one timer period
// before the first report (or the capture's start) and one after the last.
// IGT's reader extrapolates before the first point but asserts when a report
// is not strictly before the last one, and IGT's recorder takes its closing
// point after the capture.
struct correlation_points {
  std::uint64_t before = 0;
  std::uint64_t after = 0;
};
inline correlation_points bracketing_correlations(const capture& cap) {
  std::uint64_t first = 0, last = 0;
  if (!cap.reports.empty()) {
    first = cap.reports.front().at.timestamp;
    last = cap.reports.back().at.timestamp;
  }
  const std::uint64_t period = cap.period_ticks == 0 ? 1 : cap.period_ticks;
  return {first >= period ? first - period : 0, last + period};
}

}  // namespace detail

// An IGT recording: VERSION, DEVICE_INFO, DEVICE_TOPOLOGY, a
// TIMESTAMP_CORRELATION, the stream's records, and a closing correlation
// (detail::bracketing_correlations).
inline result<std::vector<std::byte>> recording(const capture& cap,
                                                const recording_identity& id = {}) {
  if (cap.format->uapi_id < 0) {
    return make_error(errc::unknown_format, 0,
                      std::string(cap.format->name) +
                          " has no i915 uapi format id, so a recording cannot name it");
  }
  auto stream = i915_stream(cap);
  if (!stream) return stream.error_value();
  std::vector<std::byte> out;
  detail::put_version(out, record_type::version);
  // The made-up uuid names the format by its counter select.
  if (auto info = detail::put_device_info(out, cap, record_type::device_info,
                                          static_cast<std::uint32_t>(cap.format->uapi_id),
                                          cap.format->counter_select, id);
      !info) {
    return info.error_value();
  }
  // DEVICE_TOPOLOGY: drm_i915_query_topology_info of the platform's SKU
  // (sku.hpp, fused-off units cleared), padded to 8 bytes.
  records::put_topology(out, record_type::device_topology,
                        records::topology_info(device_of(cap.cfg)));
  // TIMESTAMP_CORRELATION records around the stream.
  const detail::correlation_points points = detail::bracketing_correlations(cap);
  detail::put_correlation(out, cap, record_type::timestamp_correlation, points.before);
  out.insert(out.end(), stream->begin(), stream->end());
  detail::put_correlation(out, cap, record_type::timestamp_correlation, points.after);
  return out;
}

// The Xe driver's outputs (xe_outputs.hpp, included at the end).
inline result<std::vector<std::byte>> xe_stream_bytes(const capture& cap);
inline result<std::vector<std::byte>> xe_recording(const capture& cap,
                                                   const recording_identity& id);

// The bytes of an output kind (raw, i915-stream, recording, xe-stream,
// xe-recording, mi-rpc; the ring is cap.ring.bytes). An Xe stream's losses
// are out of band: xe_stream_of() gives them.
inline result<std::vector<std::byte>> output_bytes(const capture& cap, output_kind k,
                                                   const recording_identity& id = {}) {
  switch (k) {
    case output_kind::xe_stream:
      return xe_stream_bytes(cap);
    case output_kind::xe_recording:
      return xe_recording(cap, id);
    case output_kind::raw:
      return raw_file(cap);
    case output_kind::i915_stream:
      return i915_stream(cap);
    case output_kind::recording:
      return recording(cap, id);
    case output_kind::ring:
      return cap.ring.bytes;
    case output_kind::mi_rpc:
      return mi_rpc_file(cap);
  }
  return raw_file(cap);
}

}  // namespace hwpc::emu

// The Xe stream and xe-perf recording writers.
#include "hwpc/emu/xe_outputs.hpp"
