// PCI device id -> platform, for recordings whose DEVICE_INFO names only the
// device id.
//
// The table is deliberately partial: common desktop and laptop parts of each
// platform, not every SKU. An id that is not here is not an error: the caller
// supplies the platform instead (recording_options::fallback_platform,
// `hwpc decode --platform`).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "hwpc/intel/platform.hpp"

namespace hwpc::intel {

struct pci_id_entry {
  std::uint16_t device_id;
  platform id;
};

inline constexpr std::array known_pci_ids{
    // Haswell (GT1/GT2/GT3, desktop, mobile, ULT, Iris Pro)
    pci_id_entry{0x0402, platform::hsw},
    pci_id_entry{0x0406, platform::hsw},
    pci_id_entry{0x040a, platform::hsw},
    pci_id_entry{0x0412, platform::hsw},
    pci_id_entry{0x0416, platform::hsw},
    pci_id_entry{0x041a, platform::hsw},
    pci_id_entry{0x041e, platform::hsw},
    pci_id_entry{0x0422, platform::hsw},
    pci_id_entry{0x0426, platform::hsw},
    pci_id_entry{0x042a, platform::hsw},
    pci_id_entry{0x0a06, platform::hsw},
    pci_id_entry{0x0a16, platform::hsw},
    pci_id_entry{0x0a1e, platform::hsw},
    pci_id_entry{0x0a26, platform::hsw},
    pci_id_entry{0x0a2e, platform::hsw},
    pci_id_entry{0x0d22, platform::hsw},
    pci_id_entry{0x0d26, platform::hsw},
    // Broadwell
    pci_id_entry{0x1602, platform::bdw},
    pci_id_entry{0x1606, platform::bdw},
    pci_id_entry{0x160e, platform::bdw},
    pci_id_entry{0x1612, platform::bdw},
    pci_id_entry{0x1616, platform::bdw},
    pci_id_entry{0x161e, platform::bdw},
    pci_id_entry{0x1622, platform::bdw},
    pci_id_entry{0x1626, platform::bdw},
    pci_id_entry{0x162b, platform::bdw},
    // Cherryview
    pci_id_entry{0x22b0, platform::chv},
    pci_id_entry{0x22b1, platform::chv},
    pci_id_entry{0x22b2, platform::chv},
    pci_id_entry{0x22b3, platform::chv},
    // Skylake
    pci_id_entry{0x1902, platform::skl},
    pci_id_entry{0x1906, platform::skl},
    pci_id_entry{0x1912, platform::skl},
    pci_id_entry{0x1916, platform::skl},
    pci_id_entry{0x191b, platform::skl},
    pci_id_entry{0x191d, platform::skl},
    pci_id_entry{0x191e, platform::skl},
    pci_id_entry{0x1926, platform::skl},
    pci_id_entry{0x1927, platform::skl},
    pci_id_entry{0x193b, platform::skl},
    // Broxton / Apollo Lake
    pci_id_entry{0x5a84, platform::bxt},
    pci_id_entry{0x5a85, platform::bxt},
    // Kaby Lake
    pci_id_entry{0x5902, platform::kbl},
    pci_id_entry{0x5906, platform::kbl},
    pci_id_entry{0x5912, platform::kbl},
    pci_id_entry{0x5916, platform::kbl},
    pci_id_entry{0x5917, platform::kbl},
    pci_id_entry{0x591b, platform::kbl},
    pci_id_entry{0x591e, platform::kbl},
    pci_id_entry{0x5926, platform::kbl},
    pci_id_entry{0x5927, platform::kbl},
    // Gemini Lake
    pci_id_entry{0x3184, platform::glk},
    pci_id_entry{0x3185, platform::glk},
    // Coffee Lake / Whiskey Lake / Comet Lake (i915 treats them as CFL)
    pci_id_entry{0x3e91, platform::cfl},
    pci_id_entry{0x3e92, platform::cfl},
    pci_id_entry{0x3e98, platform::cfl},
    pci_id_entry{0x3e9b, platform::cfl},
    pci_id_entry{0x3ea0, platform::cfl},
    pci_id_entry{0x3ea5, platform::cfl},
    pci_id_entry{0x9b41, platform::cfl},
    pci_id_entry{0x9bc5, platform::cfl},
    // Ice Lake
    pci_id_entry{0x8a51, platform::icl},
    pci_id_entry{0x8a52, platform::icl},
    pci_id_entry{0x8a56, platform::icl},
    pci_id_entry{0x8a5a, platform::icl},
    pci_id_entry{0x8a5c, platform::icl},
    // Elkhart Lake / Jasper Lake
    pci_id_entry{0x4e55, platform::ehl},
    pci_id_entry{0x4e61, platform::ehl},
    pci_id_entry{0x4e71, platform::ehl},
    // Tiger Lake
    pci_id_entry{0x9a40, platform::tgl},
    pci_id_entry{0x9a49, platform::tgl},
    pci_id_entry{0x9a60, platform::tgl},
    pci_id_entry{0x9a68, platform::tgl},
    pci_id_entry{0x9a78, platform::tgl},
    // Rocket Lake
    pci_id_entry{0x4c8a, platform::rkl},
    pci_id_entry{0x4c8b, platform::rkl},
    pci_id_entry{0x4c90, platform::rkl},
    pci_id_entry{0x4c9a, platform::rkl},
    // Alder Lake (S and P)
    pci_id_entry{0x4680, platform::adl},
    pci_id_entry{0x4690, platform::adl},
    pci_id_entry{0x4692, platform::adl},
    pci_id_entry{0x46a6, platform::adl},
    pci_id_entry{0x46a8, platform::adl},
    pci_id_entry{0x46aa, platform::adl},
    // DG1
    pci_id_entry{0x4905, platform::dg1},
    // DG2 / Alchemist
    pci_id_entry{0x5690, platform::dg2},
    pci_id_entry{0x5691, platform::dg2},
    pci_id_entry{0x5692, platform::dg2},
    pci_id_entry{0x56a0, platform::dg2},
    pci_id_entry{0x56a1, platform::dg2},
    pci_id_entry{0x56a5, platform::dg2},
    pci_id_entry{0x56a6, platform::dg2},
    // Meteor Lake
    pci_id_entry{0x7d40, platform::mtl},
    pci_id_entry{0x7d45, platform::mtl},
    pci_id_entry{0x7d55, platform::mtl},
    pci_id_entry{0x7dd5, platform::mtl},
};

namespace detail {
consteval bool pci_ids_unique() {
  for (std::size_t i = 0; i < known_pci_ids.size(); ++i) {
    for (std::size_t j = i + 1; j < known_pci_ids.size(); ++j) {
      if (known_pci_ids[i].device_id == known_pci_ids[j].device_id) return false;
    }
  }
  return true;
}
}  // namespace detail
static_assert(detail::pci_ids_unique(), "a PCI device id is listed twice");

constexpr std::optional<platform> platform_from_pci_id(std::uint32_t device_id) noexcept {
  for (const auto& e : known_pci_ids) {
    if (e.device_id == device_id) return e.id;
  }
  return std::nullopt;
}

}  // namespace hwpc::intel
