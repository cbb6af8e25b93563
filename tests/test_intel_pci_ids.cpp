// The PCI id table: every id the emulator writes is known, and ids of each
// platform group (kernel include/drm/intel/pciids.h, IGT lib/i915_pciids.h)
// map to the platform whose metric files IGT uses for them.
#include <gtest/gtest.h>

#include <cstddef>

#include "hwpc/emu/outputs.hpp"
#include "hwpc/intel/pci_ids.hpp"

namespace {

using hwpc::intel::platform;
using hwpc::intel::platform_from_pci_id;

TEST(IntelPciIds, EveryEmulatedDeviceIdIsKnown) {
  // The emulator has one id per platform, in platform-table order (the Xe
  // driver's LNL, BMG and PTL included).
  const auto& ids = hwpc::emu::detail::device_ids;
  static_assert(ids.size() == hwpc::intel::platform_table.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto p = hwpc::intel::platform_table[i].id;
    EXPECT_EQ(platform_from_pci_id(ids[i]), p) << hwpc::intel::platform_table[i].name;
  }
}

TEST(IntelPciIds, OneIdOfEachGroup) {
  EXPECT_EQ(platform_from_pci_id(0x0102), platform::snb);
  EXPECT_EQ(platform_from_pci_id(0x0152), platform::ivb);
  EXPECT_EQ(platform_from_pci_id(0x0155), platform::vlv);
  EXPECT_EQ(platform_from_pci_id(0x0c02), platform::hsw);  // SDV GT1
  EXPECT_EQ(platform_from_pci_id(0x1632), platform::bdw);  // reserved ids too
  EXPECT_EQ(platform_from_pci_id(0x193a), platform::skl);  // GT4e
  EXPECT_EQ(platform_from_pci_id(0x5a85), platform::bxt);
  EXPECT_EQ(platform_from_pci_id(0x87c0), platform::kbl);  // Amber Lake (KBL)
  EXPECT_EQ(platform_from_pci_id(0x3185), platform::glk);
  EXPECT_EQ(platform_from_pci_id(0x3ea0), platform::cfl);  // Whiskey Lake
  EXPECT_EQ(platform_from_pci_id(0x9b41), platform::cfl);  // Comet Lake
  EXPECT_EQ(platform_from_pci_id(0x87ca), platform::cfl);  // Amber Lake (CFL)
  EXPECT_EQ(platform_from_pci_id(0x5a52), platform::cnl);
  EXPECT_EQ(platform_from_pci_id(0x5a5c), platform::cnl);  // port F
  EXPECT_EQ(platform_from_pci_id(0x8a51), platform::icl);
  EXPECT_EQ(platform_from_pci_id(0x4e55), platform::ehl);  // Jasper Lake
  EXPECT_EQ(platform_from_pci_id(0x9a40), platform::tgl);
  EXPECT_EQ(platform_from_pci_id(0x4c8a), platform::rkl);
  EXPECT_EQ(platform_from_pci_id(0xa7a0), platform::adl);  // Raptor Lake P
  EXPECT_EQ(platform_from_pci_id(0x4908), platform::dg1);
  EXPECT_EQ(platform_from_pci_id(0x5690), platform::dg2);
  EXPECT_EQ(platform_from_pci_id(0x56c0), platform::dg2);  // ATS-M150
  EXPECT_EQ(platform_from_pci_id(0x7d40), platform::mtl);
  EXPECT_EQ(platform_from_pci_id(0x0000), std::nullopt);
  EXPECT_EQ(platform_from_pci_id(0x10000 | 0x5a52), std::nullopt) << "16-bit ids only";
}

TEST(IntelPciIds, TableSize) {
  // 342 ids from the kernel's list for these platforms, plus 0x0155 and
  // 0x0157 (Valleyview) from IGT's older copy.
  EXPECT_EQ(hwpc::intel::known_pci_ids.size(), 344u);
}

}  // namespace
