// PCI device ids of the GPUs only the Xe kernel driver runs (Xe2, Xe3).
//
// Source: ../shared/docs/FACTS-xe.md section 9 (the kernel's
// include/drm/intel/pciids.h and IGT's lib/pciids.h agree on every id).
// Wildcat Lake (0xFD80, 0xFD81) is a separate list in the kernel; IGT folds
// it into Panther Lake and so do we, since no graphics IP version or OA
// difference of its own is documented (docs/formats.md, "Xe driver").
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "hwpc/intel/platform.hpp"

namespace hwpc::intel {

struct xe_pci_id_entry {
  std::uint16_t device_id;
  platform id;
};

// std::to_array, not class template argument deduction: deducing the size of a
// long list takes a fold expression deeper than clang allows by default.
inline constexpr auto xe_pci_ids = std::to_array<xe_pci_id_entry>({
    // Lunar Lake (graphics IP 20.04)
    xe_pci_id_entry{0x6420, platform::lnl},
    xe_pci_id_entry{0x64a0, platform::lnl},
    xe_pci_id_entry{0x64b0, platform::lnl},
    // Battlemage (graphics IP 20.01): G21, then the others
    xe_pci_id_entry{0xe202, platform::bmg},
    xe_pci_id_entry{0xe209, platform::bmg},
    xe_pci_id_entry{0xe20b, platform::bmg},
    xe_pci_id_entry{0xe20c, platform::bmg},
    xe_pci_id_entry{0xe20d, platform::bmg},
    xe_pci_id_entry{0xe210, platform::bmg},
    xe_pci_id_entry{0xe211, platform::bmg},
    xe_pci_id_entry{0xe212, platform::bmg},
    xe_pci_id_entry{0xe216, platform::bmg},
    xe_pci_id_entry{0xe220, platform::bmg},
    xe_pci_id_entry{0xe221, platform::bmg},
    xe_pci_id_entry{0xe222, platform::bmg},
    xe_pci_id_entry{0xe223, platform::bmg},
    // Panther Lake (graphics IP 30.00)
    xe_pci_id_entry{0xb080, platform::ptl},
    xe_pci_id_entry{0xb081, platform::ptl},
    xe_pci_id_entry{0xb082, platform::ptl},
    xe_pci_id_entry{0xb083, platform::ptl},
    xe_pci_id_entry{0xb084, platform::ptl},
    xe_pci_id_entry{0xb085, platform::ptl},
    xe_pci_id_entry{0xb086, platform::ptl},
    xe_pci_id_entry{0xb087, platform::ptl},
    xe_pci_id_entry{0xb08f, platform::ptl},
    xe_pci_id_entry{0xb090, platform::ptl},
    xe_pci_id_entry{0xb0a0, platform::ptl},
    xe_pci_id_entry{0xb0b0, platform::ptl},
    // Wildcat Lake, folded into Panther Lake as IGT does
    xe_pci_id_entry{0xfd80, platform::ptl},
    xe_pci_id_entry{0xfd81, platform::ptl},
});

namespace detail {
consteval bool xe_pci_ids_unique() {
  for (std::size_t i = 0; i < xe_pci_ids.size(); ++i) {
    for (std::size_t j = i + 1; j < xe_pci_ids.size(); ++j) {
      if (xe_pci_ids[i].device_id == xe_pci_ids[j].device_id) return false;
    }
  }
  return true;
}
}  // namespace detail
static_assert(detail::xe_pci_ids_unique(), "an Xe PCI device id is listed twice");

constexpr std::optional<platform> platform_from_xe_pci_id(std::uint32_t device_id) noexcept {
  for (const auto& e : xe_pci_ids) {
    if (e.device_id == device_id) return e.id;
  }
  return std::nullopt;
}

}  // namespace hwpc::intel
