// The device variables Intel metric formulas read ($EuCoresTotalCount,
// $GpuTimestampFrequency, $SliceMask, ...), from what a capture says about
// its GPU.
//
// A recording carries the timestamp frequency, the GT frequency range and
// the slice/subslice/EU topology (drm_i915_query_topology_info); a raw file or
// an i915 stream carries none of it, so the caller supplies what the formulas
// need (the tool: --device-var NAME=VALUE). Names follow the metric files.
#pragma once

#include <bit>
#include <cstdint>

#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace hwpc::metrics {

struct intel_device {
  std::uint64_t timestamp_frequency_hz = 0;
  std::uint64_t gt_min_frequency_hz = 0;  // 0: unknown
  std::uint64_t gt_max_frequency_hz = 0;
  std::uint64_t slice_mask = 0;     // bit s: slice s present
  std::uint64_t subslice_mask = 0;  // bit (s * max_subslices + ss): subslice ss of slice s
  std::uint64_t eu_count = 0;       // EUs present, all slices
  // Hardware threads per EU. Not in the topology query; 7 on every
  // generation the metric files cover up to Gen12 (hwpc's default).
  std::uint64_t threads_per_eu = 7;
  std::uint64_t revision = 0;

  bool has_topology() const noexcept { return eu_count != 0; }
};

// The timestamp frequency is all a platform alone tells.
inline intel_device device_of(intel::platform p) {
  intel_device d;
  d.timestamp_frequency_hz = intel::info(p).timestamp_frequency_hz;
  return d;
}

// A uniform topology: `slices` slices of `subslices` subslices of `eus` EUs.
inline intel_device with_topology(intel_device d, unsigned slices, unsigned subslices,
                                  unsigned eus) {
  d.slice_mask = slices >= 64 ? ~0ull : (1ull << slices) - 1;
  const unsigned ss_total = slices * subslices;
  d.subslice_mask = ss_total >= 64 ? ~0ull : (1ull << ss_total) - 1;
  d.eu_count = std::uint64_t{ss_total} * eus;
  return d;
}

inline intel_device device_of(const intel::recording& rec) {
  intel_device d = device_of(rec.device_platform());
  d.timestamp_frequency_hz = rec.timestamp_frequency();
  d.gt_min_frequency_hz = rec.device().gt_min_frequency;
  d.gt_max_frequency_hz = rec.device().gt_max_frequency;
  d.revision = rec.device().device_revision;
  if (const auto& t = rec.topology()) {
    for (unsigned s = 0; s < t->max_slices && s < 64; ++s) {
      if (!t->slice_available(s)) continue;
      d.slice_mask |= 1ull << s;
      for (unsigned ss = 0; ss < t->max_subslices; ++ss) {
        const unsigned bit = s * t->max_subslices + ss;
        if (bit < 64 && t->subslice_available(s, ss)) d.subslice_mask |= 1ull << bit;
      }
    }
    d.eu_count = t->eu_count();
  }
  return d;
}

// The values for compiled_set::bind(). Variables the device does not know
// are left out, so binding names the first one a formula needs.
inline device_values to_device_values(const intel_device& d) {
  device_values v;
  auto u = [](std::uint64_t x) { return expr::value::u(x); };
  v["GpuTimestampFrequency"] = u(d.timestamp_frequency_hz);
  v["SkuRevisionId"] = u(d.revision);
  v["QueryMode"] = u(0);  // a periodic OA stream, not a query
  if (d.gt_min_frequency_hz != 0) v["GpuMinFrequency"] = u(d.gt_min_frequency_hz);
  if (d.gt_max_frequency_hz != 0) v["GpuMaxFrequency"] = u(d.gt_max_frequency_hz);
  if (d.has_topology()) {
    const auto slices = static_cast<std::uint64_t>(std::popcount(d.slice_mask));
    const auto subslices = static_cast<std::uint64_t>(std::popcount(d.subslice_mask));
    v["EuCoresTotalCount"] = u(d.eu_count);
    v["EuSlicesTotalCount"] = u(slices);
    v["EuSubslicesTotalCount"] = u(subslices);
    v["EuDualSubslicesTotalCount"] = u(subslices);
    v["SliceMask"] = u(d.slice_mask);
    v["SubsliceMask"] = u(d.subslice_mask);
    v["DualSubsliceMask"] = u(d.subslice_mask);
    v["EuThreadsCount"] = u(d.threads_per_eu);
  }
  return v;
}

}  // namespace hwpc::metrics
