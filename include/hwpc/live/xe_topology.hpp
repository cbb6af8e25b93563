// The DEVICE_TOPOLOGY record of an xe-perf recording, built from what the Xe
// kernel answers (FACTS-xe section 7; docs/record.md "Xe facts"): the
// largest slice, DSS and EU counts from the HWCONFIG query's key/length/value
// items, the DSS masks (geometry OR compute) and the per-DSS EU mask of GT 0
// from the GT_TOPOLOGY query. The record has the i915 query's 8 x u16 header
// with one slice, the slice mask byte 0x01 at 0, the DSS mask at 1, and the
// EU mask repeated for every DSS position (the Xe kernel gives one EU mask
// for all DSS). Pure functions over the kernel's bytes, so a hostile or
// truncated reply is an error naming the byte offset, never a read past it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/live/xe_uapi.hpp"

namespace hwpc::live {

struct xe_topology_limits {
  unsigned max_slices = 1;
  unsigned max_dss = 6;  // dual subslices (Xe-cores) over all slices
  unsigned max_eus = 16;
};

// Without a HWCONFIG answer (kernels and parts before graphics 12.55, but
// ADL-P), IGT's recorder assumes one slice of 6 DSS with 16 EUs each.
inline constexpr xe_topology_limits xe_fallback_limits{};

// The limits a HWCONFIG blob gives; keys it lacks keep the fallback's value.
inline result<xe_topology_limits> parse_xe_hwconfig(std::span<const std::byte> blob) {
  xe_topology_limits l = xe_fallback_limits;
  std::size_t at = 0;
  while (at + 8 <= blob.size()) {
    const std::uint32_t key = load_le32(blob.data() + at);
    const std::uint32_t len = load_le32(blob.data() + at + 4);
    if (len > (blob.size() - at - 8) / 4) {
      return make_error(errc::truncated, at,
                        "HWCONFIG item " + std::to_string(key) + " claims " + std::to_string(len) +
                            " values past the end of the kernel's reply");
    }
    if (len == 1) {
      const std::uint32_t v = load_le32(blob.data() + at + 8);
      const auto take = [&](unsigned& field, unsigned most, const char* what) -> result<void> {
        if (v == 0 || v > most) {
          return make_error(errc::out_of_range, at + 8,
                            std::string("HWCONFIG ") + what + " " + std::to_string(v) +
                                " is not 1.." + std::to_string(most));
        }
        field = v;
        return {};
      };
      result<void> r;
      if (key == xe::hwconfig_key::max_slices) r = take(l.max_slices, 64, "max slices");
      if (key == xe::hwconfig_key::max_dual_subslices) r = take(l.max_dss, 512, "max DSS");
      if (key == xe::hwconfig_key::max_eus_per_dss) r = take(l.max_eus, 256, "max EUs per DSS");
      if (!r) return r.error_value();
    }
    at += 8 + std::size_t{len} * 4;
  }
  return l;
}

// The record's body (unpadded): header, slice byte, DSS mask, EU masks.
inline result<std::vector<std::byte>> xe_recording_topology(std::span<const std::byte> gt_topology,
                                                            const xe_topology_limits& l) {
  const std::size_t ss_stride = (l.max_dss + 7) / 8;
  const std::size_t eu_stride = (l.max_eus + 7) / 8;
  std::vector<std::byte> dss(ss_stride, std::byte{0});
  std::optional<std::vector<std::byte>> eu, simd16_eu;
  bool have_dss = false;
  for (std::size_t at = 0; at < gt_topology.size();) {
    if (gt_topology.size() - at < sizeof(xe::topology_mask_header)) {
      return make_error(errc::truncated, at, "GT_TOPOLOGY ends inside a mask header");
    }
    const std::uint16_t gt = load_le16(gt_topology.data() + at);
    const std::uint16_t type = load_le16(gt_topology.data() + at + 2);
    const std::uint32_t n = load_le32(gt_topology.data() + at + 4);
    const std::size_t mask_at = at + sizeof(xe::topology_mask_header);
    if (n > gt_topology.size() - mask_at) {
      return make_error(errc::truncated, at,
                        "GT_TOPOLOGY mask of " + std::to_string(n) + " bytes runs past the reply");
    }
    const auto mask = gt_topology.subspan(mask_at, n);
    // The first N bytes of a mask, zero past its end.
    const auto first = [&](std::size_t bytes) {
      std::vector<std::byte> v(bytes, std::byte{0});
      for (std::size_t i = 0; i < bytes && i < mask.size(); ++i) v[i] = mask[i];
      return v;
    };
    if (gt == 0) {  // as i915 recordings do: GT 0's topology only
      if (type == xe::topo::dss_geometry || type == xe::topo::dss_compute) {
        const auto m = first(ss_stride);
        for (std::size_t i = 0; i < ss_stride; ++i) dss[i] |= m[i];
        have_dss = true;
      } else if (type == xe::topo::eu_per_dss) {
        eu = first(eu_stride);
      } else if (type == xe::topo::simd16_eu_per_dss) {
        simd16_eu = first(eu_stride);
      }
    }
    at = mask_at + n;
  }
  if (!have_dss || (!eu && !simd16_eu)) {
    return make_error(errc::inconsistent, 0,
                      "GT_TOPOLOGY gives no DSS or EU mask for GT 0: no topology to record");
  }
  // Xe2 and later report vector engines as SIMD16 EUs, the unit the emulator
  // and the metric files count; the SIMD8 mask only where there is no other.
  const std::vector<std::byte>& eus = simd16_eu ? *simd16_eu : *eu;
  std::vector<std::byte> out;
  const std::uint16_t ss_offset = 1;
  const auto eu_offset = static_cast<std::uint16_t>(ss_offset + ss_stride);
  for (const std::size_t v :
       {std::size_t{0}, std::size_t{1}, std::size_t{l.max_dss}, std::size_t{l.max_eus},
        std::size_t{ss_offset}, ss_stride, std::size_t{eu_offset}, eu_stride}) {
    const std::size_t at = out.size();
    out.resize(at + 2);
    store_le16(out.data() + at, static_cast<std::uint16_t>(v));
  }
  out.push_back(std::byte{1});  // one slice
  out.insert(out.end(), dss.begin(), dss.end());
  for (unsigned d = 0; d < l.max_dss; ++d) out.insert(out.end(), eus.begin(), eus.end());
  return out;
}

}  // namespace hwpc::live
