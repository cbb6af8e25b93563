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
  // Hardware threads per EU. Not in the topology query; 7 on Gen8 .. Gen12
  // but 6 on Broxton and Gemini Lake, 8 on Xe-HPG (DG2), Meteor Lake and
  // Xe2, 10 on Xe3 (Panther Lake) (docs/expressions.md).
  std::uint64_t threads_per_eu = 7;
  // XeCores per slice where the slices are groups of the flat XeCore mask
  // (Xe2: 4, Xe3: 6; metrics-discovery's slice mask on the Xe driver, which
  // reports no slices): SliceTotalCount and the per-slice variables follow
  // these groups. 0: the slices are the topology's own.
  unsigned xecores_per_slice = 0;
  std::uint64_t revision = 0;
  // Units of Xe2 and later that neither DEVICE_INFO nor DEVICE_TOPOLOGY
  // describes (the Xe driver's L3-bank topology and engine list do). A count
  // left 0 is derived by to_device_values() where its inputs are known
  // (unit_counts()); one still unknown drops the metrics that read it unless
  // the caller gives a value (docs/expressions.md, "Device variables").
  // The L3-bank mask: DRM_XE_TOPO_L3_BANK of the Xe topology query; for a
  // platform alone, its full part's (device_of()).
  std::uint64_t l3_bank_mask = 0;
  unsigned l3_banks_per_node = 0;          // 4 on Xe2 and Xe3 (metrics-discovery)
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
  // Threads per EU (XVE) as metrics-discovery's per-platform table has them
  // (docs/expressions.md): 6 on Broxton and Gemini Lake, 8 from Xe-HPG on,
  // 10 on Xe3. IGT sets 8 for DG2 and PVC and leaves its default 7 elsewhere.
  if (p == intel::platform::bxt || p == intel::platform::glk) d.threads_per_eu = 6;
  if (intel::info(p).gen >= intel::generation::gen12_5) d.threads_per_eu = 8;
  if (intel::info(p).gen == intel::generation::xe3) d.threads_per_eu = 10;
  if (intel::info(p).gen == intel::generation::xe2) d.xecores_per_slice = 4;
  if (intel::info(p).gen == intel::generation::xe3) d.xecores_per_slice = 6;
  // The L3 banks of the full part (metrics-discovery's maximum L3 nodes of
  // 4 banks each): Lunar Lake 2 nodes, Battlemage G21 (B580, B570) 6, Panther
  // Lake H 2. A part with fewer banks enabled, BMG G31 (8 nodes) or PTL-U (1
  // node, 2 SQIDIs) needs the capture's mask or --device-var
  // (docs/expressions.md). One compute engine: the Xe driver's default CCS
  // mode gives one engine all compute resources, and its engine list, which
  // metrics-discovery counts, then names one.
  switch (p) {
    case intel::platform::lnl:
    case intel::platform::ptl:
      d.l3_bank_mask = 0xff;
      break;
    case intel::platform::bmg:
      d.l3_bank_mask = 0xffffff;
      break;
    default:
      break;
  }
  if (d.l3_bank_mask != 0) {
    d.l3_banks_per_node = 4;
    d.compute_engine_count = 1;
  }
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

// The slices of a topology and the XeCore slots of each: the topology's own,
// or on Xe2/Xe3 groups of xecores_per_slice XeCores of the flat XeCore mask,
// a slice present when any XeCore of its group is (metrics-discovery's slice
// mask on the Xe driver, which reports no slices).
struct slices_of {
  std::uint64_t mask = 0;
  unsigned stride = 0;
};
inline slices_of slice_layout(const intel_device& d) {
  if (d.xecores_per_slice == 0 || d.xecores_per_slice >= 64) {
    return {d.slice_mask, d.subslice_stride};
  }
  const unsigned per = d.xecores_per_slice;
  const std::uint64_t group = (1ull << per) - 1;
  slices_of out{0, per};
  for (unsigned s = 0; s * per < 64; ++s) {
    if ((d.subslice_mask >> (s * per)) & group) out.mask |= 1ull << s;
  }
  return out;
}

// The unit counts metrics-discovery derives on the Xe driver, filled in where
// `d` leaves them 0 and has their inputs: L3 banks are the bits of the
// L3-bank mask; an L3 node is a group of l3_banks_per_node banks, present
// when any of its banks is; SQIDIs are the L3 nodes; copy engines are pairs
// of L3 nodes (a pair counts when either node is present); geometry pipes
// are one per slice, depth and color pipes two per slice (one when a slice
// has at most two XeCores), the slices those of `slices`.
inline intel_device unit_counts(intel_device d, std::uint64_t slices) {
  if (d.l3_bank_mask != 0 && d.l3_banks_per_node != 0 && d.l3_banks_per_node < 64) {
    const unsigned per = d.l3_banks_per_node;
    const std::uint64_t group = (1ull << per) - 1;
    std::uint64_t nodes = 0;
    for (unsigned i = 0; i * per < 64; ++i) {
      if ((d.l3_bank_mask >> (i * per)) & group) nodes |= 1ull << i;
    }
    std::uint64_t pairs = 0;
    for (unsigned i = 0; i < 32; ++i) {
      if ((nodes >> (2 * i)) & 3) pairs |= 1ull << i;
    }
    auto fill = [](std::uint64_t& v, std::uint64_t x) {
      if (v == 0) v = x;
    };
    fill(d.l3_bank_count, static_cast<std::uint64_t>(std::popcount(d.l3_bank_mask)));
    fill(d.l3_node_count, static_cast<std::uint64_t>(std::popcount(nodes)));
    fill(d.sqidi_count, static_cast<std::uint64_t>(std::popcount(nodes)));
    fill(d.copy_engine_count, static_cast<std::uint64_t>(std::popcount(pairs)));
  }
  if (slices != 0 && d.xecores_per_slice != 0) {
    const std::uint64_t zpixel = d.xecores_per_slice <= 2 ? 1 : 2;
    if (d.geometry_pipe_count == 0) d.geometry_pipe_count = slices;
    if (d.depth_pipe_count == 0) d.depth_pipe_count = slices * zpixel;
    if (d.color_pipe_count == 0) d.color_pipe_count = slices * zpixel;
  }
  return d;
}

// The values for compiled_set::bind(): every device variable Intel's metric
// code generator maps (docs/expressions.md, "Device variables"). Variables
// the device does not know are left out, so binding names the first one a
// formula needs.
inline device_values to_device_values(const intel_device& device) {
  const intel_device d =
      unit_counts(device, device.has_topology()
                              ? static_cast<std::uint64_t>(std::popcount(slice_layout(device).mask))
                              : 0);
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
  const auto [slice_mask, stride] = slice_layout(d);
  const auto slices = static_cast<std::uint64_t>(std::popcount(slice_mask));
  const auto subslices = static_cast<std::uint64_t>(std::popcount(d.subslice_mask));
  for (const char* n : {"EuCoresTotalCount", "VectorEngineTotalCount"}) v[n] = u(d.eu_count);
  for (const char* n : {"EuSlicesTotalCount", "SliceTotalCount"}) v[n] = u(slices);
  for (const char* n : {"EuSubslicesTotalCount", "EuDualSubslicesTotalCount", "XeCoreTotalCount"}) {
    v[n] = u(subslices);
  }
  for (const char* n : {"SliceMask", "GtSliceMask"}) v[n] = u(slice_mask);
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
  if (stride == 0) return v;
  // Per slice and per subslice/XeCore: 1 when present. Indices past the
  // topology read 0, as IGT's slice/subslice availability helpers do.
  std::uint64_t first_four = 0;
  for (unsigned s = 0; s < max_named_slices; ++s) {
    const bool slice = s < 64 && ((slice_mask >> s) & 1) != 0;
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
