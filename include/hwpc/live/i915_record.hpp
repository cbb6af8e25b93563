// Records an i915 OA stream into the file IGT's i915-perf-recorder writes
// (FACTS.md "IGT recording file", FACTS-live section 1.10): VERSION,
// DEVICE_INFO, DEVICE_TOPOLOGY (as the kernel's QUERY gave it), a
// TIMESTAMP_CORRELATION point, the stream's records as read() returned them,
// a correlation point every `correlation_period_ns` and one at the end. The
// records are packed by emu/recording_records.hpp, the writer the emulator's
// recordings use, so `hwpc decode` and IGT's readers open both alike.
//
//   live::record_i915(live::real_kernel(), opts,
//                     [&](std::span<const std::byte> b) { return fwrite(...) == b.size(); },
//                     [&] { return stop_requested; });
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/emu/recording_records.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/live/i915_device.hpp"
#include "hwpc/live/i915_stream.hpp"
#include "hwpc/live/record_common.hpp"

namespace hwpc::live {

// A set's registers to upload when the kernel does not have it: {address,
// value} pairs, flattened, per list (live/set_registers.hpp reads them).
struct set_upload {
  std::vector<std::uint32_t> mux, boolean, flex;
};

struct i915_record_options {
  std::string device = default_render_node;
  std::string set_name;                 // DEVICE_INFO's metric_set_name (symbol name)
  std::string set_uuid;                 // hw_config_guid: finds the kernel's id in sysfs
  std::optional<std::uint64_t> set_id;  // the kernel's id, when known
  std::optional<set_upload> upload;     // added when the kernel lacks the set, removed at the end
  std::string format;                   // report format name; empty: the platform's default
  std::optional<unsigned> exponent;     // OA_EXPONENT; or
  std::optional<std::uint64_t> period_ns;  // the nearest exponent to this period
  std::optional<std::uint32_t> ctx;
  std::uint64_t correlation_period_ns = 1'000'000'000;
  int poll_ms = 100;
};

struct correlation_point {
  std::uint64_t cpu_ns = 0;  // CLOCK_MONOTONIC
  std::uint64_t gpu_ts = 0;
};

// Three REG_READs of the GPU timestamp, each bracketed by the CPU clock; the
// shortest bracket wins and its midpoint is the CPU time (IGT's method).
inline result<correlation_point> correlate(const i915_device& dev) {
  std::optional<correlation_point> best;
  std::uint64_t best_span = ~0ull;
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t a = monotonic_ns();
    auto gpu = dev.gpu_timestamp();
    const std::uint64_t b = monotonic_ns();
    if (!gpu) return gpu.error_value();
    if (b - a < best_span) {
      best_span = b - a;
      best = correlation_point{a + (b - a) / 2, *gpu};
    }
  }
  return *best;
}

// The format a recorder asks for when none is named: the largest A/B/C
// layout of the generation (what IGT's metric sets use).
inline const intel::report_format* default_record_format(intel::platform p) {
  for (const char* name : {"A45_B8_C8", "A24u40_A14u32_B8_C8", "A32u40_A4u32_B8_C8"}) {
    if (const auto* f = intel::find_format(p, name); f != nullptr && f->uapi_id > 0) return f;
  }
  return nullptr;
}

template <class Write, class Stop>
result<i915_stream_counts> record_i915(syscalls& sys, const i915_record_options& o, Write&& write,
                                       Stop&& stop) {
  auto dev = i915_device::open(sys, o.device);
  if (!dev) return dev.error_value();
  const auto& info = dev->info();
  if (!info.platform) return unknown_platform_error(info.chipset_id);
  const intel::report_format* format = o.format.empty()
                                           ? default_record_format(*info.platform)
                                           : intel::find_format(*info.platform, o.format);
  if (format == nullptr || format->uapi_id <= 0) {
    return no_format_error(o.format, "i915 uapi", *info.platform);
  }
  i915_stream_options so;
  so.oa_format = static_cast<std::uint32_t>(format->uapi_id);
  so.ctx = o.ctx;
  so.exponent = record_exponent(o, info.oa_timestamp_hz);
  added_config<i915_device> added(*dev);
  auto set = record_set_id(*dev, o, added, [&](const set_upload& up) {
    return dev->add_config(o.set_uuid, up.mux, up.boolean, up.flex);
  });
  if (!set) return set.error_value();
  so.metrics_set = *set;
  auto stream = i915_stream::open(*dev, so);
  if (!stream) return stream.error_value();

  std::vector<std::byte> out;
  emu::records::put_version(out, intel::record_type::recording_version);
  emu::records::device_fields d;
  d.timestamp_hz = info.oa_timestamp_hz;
  d.device_id = info.chipset_id;
  d.revision = info.revision;
  d.gt_min_hz = info.gt_min_hz;
  d.gt_max_hz = info.gt_max_hz;
  d.oa_format = so.oa_format;
  d.metric_set_name = o.set_name;
  d.metric_set_uuid = o.set_uuid;
  if (auto e = emu::records::put_device_info(out, intel::record_type::device_info, d); !e) {
    return e.error_value();
  }
  emu::records::put_topology(out, intel::record_type::device_topology, info.topology);
  const auto put_point = [&]() -> result<void> {
    auto p = correlate(*dev);
    if (!p) return p.error_value();
    emu::records::put_correlation(out, intel::record_type::timestamp_correlation, p->cpu_ns,
                                  p->gpu_ts);
    return {};
  };
  const auto drain = [&]() -> result<void> {
    if (auto r = stream->read_ready(out); !r) return r.error_value();
    return {};
  };
  if (auto e = record_loop(
          o, *stream, drain, put_point, [&] { return flush_records(out, write); }, stop);
      !e) {
    return e.error_value();
  }
  return stream->counts();
}

}  // namespace hwpc::live
