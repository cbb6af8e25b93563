// What the simulated Xe driver answers to DRM_XE_DEVICE_QUERY, built from
// the emulator's part (emu/sku.hpp) so a recording made through it describes
// the GPU the emulator's recording describes: CONFIG (the PCI id the
// emulator writes, revision 0), HWCONFIG (max slices, DSS and EUs per DSS),
// GT_TOPOLOGY (geometry and compute DSS masks, L3 banks, and the per-DSS EU
// mask: SIMD16 on Xe2 and later, as those kernels report vector engines),
// OA_UNITS (an OAG unit with the render and compute engines, and an OAM unit
// on the media GT). Layouts: xe_uapi.hpp; sources: docs/record.md "Xe facts".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/live/xe_uapi.hpp"

namespace hwpc::live::sim::xe_queries {

namespace detail {
inline void put(std::vector<std::byte>& out, std::uint64_t v, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
}
}  // namespace detail

inline std::uint32_t device_id(intel::platform p) {
  return emu::detail::device_ids[static_cast<std::size_t>(p)];
}

inline std::vector<std::byte> config(intel::platform p) {
  std::vector<std::byte> out;
  detail::put(out, 5, 4);  // num_params
  detail::put(out, 0, 4);
  detail::put(out, device_id(p), 8);  // REV_AND_DEVICE_ID, revision 0
  detail::put(out, intel::generation_of(p) >= intel::generation::xe2 ? 0 : 1, 8);  // flags
  detail::put(out, 4096, 8);                                                       // alignment
  detail::put(out, 48, 8);                                                         // VA bits
  detail::put(out, 2, 8);  // max exec queue priority
  return out;
}

inline std::vector<std::byte> hwconfig(intel::platform p) {
  const emu::sku& s = emu::sku_of(p);
  std::vector<std::byte> out;
  const auto item = [&](std::uint32_t key, std::uint32_t v) {
    detail::put(out, key, 4);
    detail::put(out, 1, 4);
    detail::put(out, v, 4);
  };
  item(4, 2);  // NUM_PIXEL_PIPES: an item the recorder skips
  item(xe::hwconfig_key::max_slices, s.max_slices);
  item(xe::hwconfig_key::max_dual_subslices, std::uint32_t{s.max_slices} * s.max_subslices);
  item(xe::hwconfig_key::max_eus_per_dss, s.max_eus);
  return out;
}

// Masks are 8 bytes wide, wider than any part needs, as the kernel's are.
inline std::vector<std::byte> gt_topology(intel::platform p) {
  const emu::sku& s = emu::sku_of(p);
  const unsigned dss = static_cast<unsigned>(s.max_slices) * s.max_subslices;
  std::uint64_t dss_mask = 0;
  std::uint16_t eus = 0;
  for (unsigned g = 0; g < dss && g < 64; ++g) {
    const unsigned sl = g / s.max_subslices, ss = g % s.max_subslices;
    if (!s.subslice_present(sl, ss)) continue;
    dss_mask |= std::uint64_t{1} << g;
    if (eus == 0) eus = s.eu_mask(sl, ss);
  }
  std::vector<std::byte> out;
  const auto mask = [&](std::uint16_t gt, std::uint16_t type, std::uint64_t m) {
    detail::put(out, gt, 2);
    detail::put(out, type, 2);
    detail::put(out, 8, 4);
    detail::put(out, m, 8);
  };
  const bool xe2 = intel::generation_of(p) >= intel::generation::xe2;
  mask(0, xe::topo::dss_geometry, dss_mask);
  mask(0, xe::topo::dss_compute, dss_mask);
  mask(0, xe::topo::l3_bank, 0xff);
  mask(0, xe2 ? xe::topo::simd16_eu_per_dss : xe::topo::eu_per_dss, eus);
  return out;
}

inline std::vector<std::byte> oa_units(intel::platform p, std::uint64_t timestamp_hz) {
  std::vector<std::byte> out;
  detail::put(out, 0, 8);
  detail::put(out, 2, 4);  // num_oa_units
  detail::put(out, 0, 4);
  const auto unit = [&](std::uint32_t id, std::uint32_t type,
                        std::initializer_list<xe::engine_class_instance> engines) {
    detail::put(out, 0, 8);
    detail::put(out, id, 4);
    detail::put(out, type, 4);
    detail::put(out, 0xf, 8);  // BASE, SYNCS, OA_BUFFER_SIZE, WAIT_NUM_REPORTS
    detail::put(out, timestamp_hz, 8);
    for (int i = 0; i < 4; ++i) detail::put(out, 0, 8);
    detail::put(out, engines.size(), 8);
    for (const auto& e : engines) {
      detail::put(out, e.engine_class, 2);
      detail::put(out, e.engine_instance, 2);
      detail::put(out, e.gt_id, 2);
      detail::put(out, 0, 2);
    }
  };
  (void)p;
  unit(0, xe::oa_unit_type_oag, {{0, 0, 0, 0}, {4, 0, 0, 0}});
  unit(1, xe::oa_unit_type_oam, {{2, 0, 1, 0}});
  return out;
}

}  // namespace hwpc::live::sim::xe_queries
