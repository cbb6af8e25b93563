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
#include <string>
#include <string_view>

#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace hwpc::metrics {

struct intel_device {
  std::uint64_t timestamp_frequency_hz = 0;
  std::uint64_t gt_min_frequency_hz = 0;  // 0: unknown
  std::uint64_t gt_max_frequency_hz = 0;
  std::uint64_t slice_mask = 0;     // bit s: slice s present
  std::uint64_t subslice_mask = 0;  // bit (s * subslice_stride + ss): subslice ss of slice s
  std::uint64_t eu_count = 0;       // EUs present, all slices
  // Subslice (XeCore) slots per slice in subslice_mask: the topology's
  // max_subslices. 0 when unknown (no per-XeCore variables then).
  unsigned subslice_stride = 0;
  // Hardware threads per EU. Not in the topology query; 7 on Gen8 .. Gen12,
  // 8 on Xe-HPG (DG2) and Meteor Lake (the device info tables of Mesa/IGT).
  std::uint64_t threads_per_eu = 7;
  std::uint64_t revision = 0;

  bool has_topology() const noexcept { return eu_count != 0; }
};

// The timestamp frequency is all a platform alone tells.
inline intel_device device_of(intel::platform p) {
  intel_device d;
  d.timestamp_frequency_hz = intel::info(p).timestamp_frequency_hz;
  const intel::generation g = intel::info(p).gen;
  if (g == intel::generation::gen12_5 || g == intel::generation::gen12_7) d.threads_per_eu = 8;
  return d;
}

// A uniform topology: `slices` slices of `subslices` subslices of `eus` EUs.
inline intel_device with_topology(intel_device d, unsigned slices, unsigned subslices,
                                  unsigned eus) {
  d.slice_mask = slices >= 64 ? ~0ull : (1ull << slices) - 1;
  const unsigned ss_total = slices * subslices;
  d.subslice_mask = ss_total >= 64 ? ~0ull : (1ull << ss_total) - 1;
  d.eu_count = std::uint64_t{ss_total} * eus;
  d.subslice_stride = subslices;
  return d;
}

inline intel_device device_of(const intel::recording& rec) {
  intel_device d = device_of(rec.device_platform());
  d.timestamp_frequency_hz = rec.timestamp_frequency();
  d.gt_min_frequency_hz = rec.device().gt_min_frequency;
  d.gt_max_frequency_hz = rec.device().gt_max_frequency;
  d.revision = rec.device().device_revision;
  if (const auto& t = rec.topology()) {
    d.subslice_stride = t->max_subslices;
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

// The values for compiled_set::bind(): every device variable Intel's metric
// code generator maps (docs/expressions.md, "Device variables"). Variables
// the device does not know are left out, so binding names the first one a
// formula needs.
inline device_values to_device_values(const intel_device& d) {
  device_values v;
  auto u = [](std::uint64_t x) { return expr::value::u(x); };
  v["GpuTimestampFrequency"] = u(d.timestamp_frequency_hz);
  v["SkuRevisionId"] = u(d.revision);
  v["QueryMode"] = u(0);  // a periodic OA stream, not a query
  if (d.gt_min_frequency_hz != 0) v["GpuMinFrequency"] = u(d.gt_min_frequency_hz);
  if (d.gt_max_frequency_hz != 0) v["GpuMaxFrequency"] = u(d.gt_max_frequency_hz);
  if (!d.has_topology()) return v;
  const auto slices = static_cast<std::uint64_t>(std::popcount(d.slice_mask));
  const auto subslices = static_cast<std::uint64_t>(std::popcount(d.subslice_mask));
  for (const char* n : {"EuCoresTotalCount", "VectorEngineTotalCount"}) v[n] = u(d.eu_count);
  for (const char* n : {"EuSlicesTotalCount", "SliceTotalCount"}) v[n] = u(slices);
  for (const char* n : {"EuSubslicesTotalCount", "EuDualSubslicesTotalCount", "XeCoreTotalCount"}) {
    v[n] = u(subslices);
  }
  for (const char* n : {"EuThreadsCount", "VectorEngineThreadsCount"}) v[n] = u(d.threads_per_eu);
  for (const char* n : {"SliceMask", "GtSliceMask"}) v[n] = u(d.slice_mask);
  for (const char* n : {"SubsliceMask", "DualSubsliceMask", "GtSubsliceMask", "GtDualSubsliceMask",
                        "XeCoreMask", "GtXeCoreMask"}) {
    v[n] = u(d.subslice_mask);
  }
  // EUs of one XeCore (IGT maps this name to the XeCore count; see the docs).
  v["VectorEnginePerXeCoreCount"] = u(subslices == 0 ? 0 : d.eu_count / subslices);
  if (d.subslice_stride == 0) return v;
  // Per slice and per subslice/XeCore: 1 when present. Indices past the
  // topology read 0, as IGT's slice/subslice availability helpers do.
  const unsigned stride = d.subslice_stride;
  std::uint64_t first_four = 0;
  for (unsigned s = 0; s < max_named_slices; ++s) {
    const bool slice = s < 64 && ((d.slice_mask >> s) & 1) != 0;
    v["GtSlice" + std::to_string(s)] = u(slice ? 1 : 0);
    for (unsigned ss = 0; ss < max_named_subslices; ++ss) {
      const unsigned bit = s * stride + ss;
      const bool present = ss < stride && bit < 64 && ((d.subslice_mask >> bit) & 1) != 0;
      const std::string base = "GtSlice" + std::to_string(s);
      v[base + "XeCore" + std::to_string(ss)] = u(present ? 1 : 0);
      v[base + "DualSubslice" + std::to_string(ss)] = u(present ? 1 : 0);
      if (present && s < 4) ++first_four;
    }
  }
  v["EuDualSubslicesSlice0123Count"] = u(first_four);
  return v;
}

// The counter of a report format that a formula input names. Formulas read
// `A n READ` as input "An"; OAM (media) reports (MPEC8u32_B8_C8) have no A
// counters but eight MPEC counters, and IGT's OA reader stores those where A0
// .. A7 go ("treat MPEC counters as A counters"), so the metric files of that
// unit read MPEC counter n as `A n READ`. Everything else is its own name.
inline std::string counter_for_input(std::string_view input, const intel::report_format& f) {
  const intel::counter_list counters(f);
  if (counters.index_of(input) != counters.size()) return std::string(input);
  if (input.size() >= 2 && input.size() <= 3 && input[0] == 'A') {
    const std::string mpec = "MPEC" + std::string(input.substr(1));
    if (counters.index_of(mpec) != counters.size()) return mpec;
  }
  return std::string(input);
}

}  // namespace hwpc::metrics
