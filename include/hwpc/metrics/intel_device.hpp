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
#include <utility>

#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/xe_recording.hpp"
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
  // 8 on Xe-HPG (DG2), Meteor Lake and Xe2/Xe3 (docs/expressions.md).
  std::uint64_t threads_per_eu = 7;
  std::uint64_t revision = 0;
  // Units of Xe2 and later that neither DEVICE_INFO nor DEVICE_TOPOLOGY
  // describes (the Xe driver's L3-bank topology and engine list do): 0 means
  // unknown, and the metrics that read them are dropped unless the caller
  // gives a value (docs/expressions.md, "Device variables").
  std::uint64_t l3_bank_count = 0;         // L3BankTotalCount
  std::uint64_t l3_node_count = 0;         // L3NodeTotalCount
  std::uint64_t sqidi_count = 0;           // SqidiTotalCount
  std::uint64_t compute_engine_count = 0;  // ComputeEngineTotalCount
  std::uint64_t copy_engine_count = 0;     // CopyEngineTotalCount
  std::uint64_t geometry_pipe_count = 0;   // GeometryPipeTotalCount
  std::uint64_t depth_pipe_count = 0;      // DepthPipeTotalCount
  std::uint64_t color_pipe_count = 0;      // ColorPipeTotalCount

  bool has_topology() const noexcept { return eu_count != 0; }
};

// The timestamp frequency is all a platform alone tells.
inline intel_device device_of(intel::platform p) {
  intel_device d;
  d.timestamp_frequency_hz = intel::info(p).timestamp_frequency_hz;
  // Eight threads per EU (XVE) from Xe-HPG on: IGT sets 8 for DG2 (and PVC)
  // and leaves its default 7 on Xe2; Mesa's device tables and Intel's
  // metrics-discovery say 8 for Xe2/Xe3 (docs/expressions.md).
  if (intel::info(p).gen >= intel::generation::gen12_5) d.threads_per_eu = 8;
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
        if (!t->subslice_available(s, ss)) continue;
        const unsigned bit = s * t->max_subslices + ss;
        if (bit < 64) d.subslice_mask |= 1ull << bit;
        // EUs of present subslices only: the Xe recorder repeats one EU mask
        // for every subslice slot, fused-off ones included (FACTS-xe §7), and
        // IGT counts the EUs of present subslices.
        for (unsigned eu = 0; eu < t->max_eus_per_subslice; ++eu) {
          d.eu_count += t->eu_available(s, ss, eu) ? 1 : 0;
        }
      }
    }
  }
  return d;
}

// An xe-perf recording: DEVICE_INFO and the one-slice DSS topology IGT's Xe
// recorder writes. Its EU count is the EU-mask bits of the present XeCores,
// taken as they are: on Xe2/Xe3 a kernel with the SIMD16 topology query
// reports one bit per vector engine, which is what the formulas divide by
// (docs/expressions.md, "Xe2/Xe3: decisions").
inline intel_device device_of(const intel::xe_recording& rec) {
  intel_device d = device_of(rec.device_platform());
  const intel::xe_device_variables v = rec.device_variables();
  d.timestamp_frequency_hz = v.timestamp_frequency_hz;
  d.gt_min_frequency_hz = v.gt_min_frequency_hz;
  d.gt_max_frequency_hz = v.gt_max_frequency_hz;
  d.revision = v.revision;
  if (v.has_topology) {
    d.slice_mask = v.slice_mask;
    d.subslice_mask = v.dss_mask;
    d.subslice_stride = v.dss_stride;
    d.eu_count = v.eu_count;
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
  for (const auto& [name, count] :
       {std::pair{"L3BankTotalCount", d.l3_bank_count},
        std::pair{"L3NodeTotalCount", d.l3_node_count}, std::pair{"SqidiTotalCount", d.sqidi_count},
        std::pair{"ComputeEngineTotalCount", d.compute_engine_count},
        std::pair{"CopyEngineTotalCount", d.copy_engine_count},
        std::pair{"GeometryPipeTotalCount", d.geometry_pipe_count},
        std::pair{"DepthPipeTotalCount", d.depth_pipe_count},
        std::pair{"ColorPipeTotalCount", d.color_pipe_count}}) {
    if (count != 0) v[name] = u(count);
  }
  // Threads per EU are the platform's, topology or not.
  for (const char* n : {"EuThreadsCount", "VectorEngineThreadsCount"}) v[n] = u(d.threads_per_eu);
  if (!d.has_topology()) return v;
  const auto slices = static_cast<std::uint64_t>(std::popcount(d.slice_mask));
  const auto subslices = static_cast<std::uint64_t>(std::popcount(d.subslice_mask));
  for (const char* n : {"EuCoresTotalCount", "VectorEngineTotalCount"}) v[n] = u(d.eu_count);
  for (const char* n : {"EuSlicesTotalCount", "SliceTotalCount"}) v[n] = u(slices);
  for (const char* n : {"EuSubslicesTotalCount", "EuDualSubslicesTotalCount", "XeCoreTotalCount"}) {
    v[n] = u(subslices);
  }
  for (const char* n : {"SliceMask", "GtSliceMask"}) v[n] = u(d.slice_mask);
  for (const char* n : {"SubsliceMask", "DualSubsliceMask", "GtSubsliceMask", "GtDualSubsliceMask",
                        "XeCoreMask", "GtXeCoreMask"}) {
    v[n] = u(d.subslice_mask);
  }
  // EUs of one XeCore (IGT maps this name to the XeCore count; see the docs).
  v["VectorEnginePerXeCoreCount"] = u(subslices == 0 ? 0 : d.eu_count / subslices);
  // GtXeCore<x> (the Xe2 files' availability conditions): XeCore x of the
  // whole GPU, bit x of the subslice mask. The Xe driver reports one slice,
  // so this is IGT's "DSS x of slice 0" there and metrics-discovery's flat
  // XeCore mask everywhere.
  for (unsigned x = 0; x < max_named_xecores; ++x) {
    v["GtXeCore" + std::to_string(x)] = u((d.subslice_mask >> x) & 1);
  }
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
