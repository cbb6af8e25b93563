// Golden checks of the emulator's own report packing, with offsets worked
// out by hand from the PRM tables (not from any table in the library).
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "hwpc/emu/layouts.hpp"

namespace {

using hwpc::emu::bank;
using hwpc::emu::find_emu_format;
using hwpc::emu::report_values;
using hwpc::intel::platform;

std::uint32_t dw(const std::array<std::byte, 256>& r, std::size_t n) {
  return hwpc::load_le32(r.data() + 4 * n);
}

std::array<std::byte, 256> pack(platform p, std::string_view name, const report_values& v) {
  const auto* f = find_emu_format(p, name);
  EXPECT_NE(f, nullptr) << name;
  std::array<std::byte, 256> out{};
  for (auto& b : out) b = std::byte{0xee};  // beyond the report: must stay untouched
  if (f != nullptr) hwpc::emu::pack_report(f->layout, v, out);
  return out;
}

TEST(EmuLayouts, HswA45A5AtDword8) {
  report_values v;
  v.rpt_id = 0x00080000;
  v.timestamp = 0xdeadbeef;
  v.a[5] = 0x11223344;
  const auto r = pack(platform::hsw, "A45_B8_C8", v);
  // Row 1 of select 101 is "A12 .. A5": A5 is its rightmost cell, dw8, byte 32.
  EXPECT_EQ(std::to_integer<int>(r[32]), 0x44);
  EXPECT_EQ(std::to_integer<int>(r[33]), 0x33);
  EXPECT_EQ(std::to_integer<int>(r[34]), 0x22);
  EXPECT_EQ(std::to_integer<int>(r[35]), 0x11);
  EXPECT_EQ(dw(r, 0), 0x00080000u);
  EXPECT_EQ(dw(r, 1), 0xdeadbeefu);
  EXPECT_EQ(dw(r, 2), 0u);  // reserved
}

TEST(EmuLayouts, HswA45EveryDword) {
  report_values v;
  v.rpt_id = 1;
  v.timestamp = 2;
  for (std::size_t i = 0; i < 45; ++i) v.a[i] = 0xa000 + i;
  for (std::size_t i = 0; i < 8; ++i) v.b[i] = 0xb000 + i;
  for (std::size_t i = 0; i < 8; ++i) v.c[i] = 0xc000 + i;
  const auto r = pack(platform::hsw, "A45_B8_C8", v);
  for (std::size_t i = 0; i < 45; ++i) EXPECT_EQ(dw(r, 3 + i), 0xa000 + i) << "A" << i;
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(dw(r, 48 + i), 0xb000 + i) << "B" << i;
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(dw(r, 56 + i), 0xc000 + i) << "C" << i;
}

TEST(EmuLayouts, SnbRowsAreReversed) {
  report_values v;
  v.rpt_id = 7;
  for (std::size_t i = 0; i < 29; ++i) v.a[i] = 0x100 + i;
  for (std::size_t i = 0; i < 4; ++i) v.b[i] = 0xb0 + i;
  const auto r = pack(platform::snb, "A29_B4", v);
  // Row 0: "A0 A1 A2 A3 A4 | TIME_STAMP | RPT_ID": A0 at dw7 down to A4 at dw3.
  EXPECT_EQ(dw(r, 7), 0x100u);
  EXPECT_EQ(dw(r, 3), 0x104u);
  // Row 1: A5 leftmost (dw15) .. A12 rightmost (dw8).
  EXPECT_EQ(dw(r, 15), 0x105u);
  EXPECT_EQ(dw(r, 8), 0x10cu);
  EXPECT_EQ(dw(r, 23), 0x10du);  // A13
  EXPECT_EQ(dw(r, 24), 0x11cu);  // A28
  // B0..B3 rightmost in row 4: dw32..dw35; row 5 reserved.
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(dw(r, 32 + i), 0xb0 + i);
  for (std::size_t d = 36; d < 48; ++d) EXPECT_EQ(dw(r, d), 0u);
  EXPECT_EQ(std::to_integer<int>(r[192]), 0xee);  // 192-byte report: nothing beyond
}

TEST(EmuLayouts, IvbA16HoldsA29ToA44) {
  report_values v;
  v.rpt_id = 1;
  for (std::size_t i = 0; i < 45; ++i) v.a[i] = 0x500 + i;
  const auto r = pack(platform::ivb, "A16", v);
  for (std::size_t i = 29; i < 45; ++i) EXPECT_EQ(dw(r, 16 + (i - 29)), 0x500 + i);
  for (std::size_t d = 3; d < 16; ++d) EXPECT_EQ(dw(r, d), 0u);
}

TEST(EmuLayouts, HswInstAddFormats) {
  report_values v;
  v.rpt_id = 1;
  v.inst_add = 0x1234;
  for (std::size_t i = 0; i < 8; ++i) v.b[i] = 0xb0 + i;
  for (std::size_t i = 0; i < 8; ++i) v.c[i] = 0xc0 + i;
  for (std::size_t i = 0; i < 45; ++i) v.a[i] = 0xa00 + i;
  auto r = pack(platform::hsw, "B4_C8", v);
  EXPECT_EQ(dw(r, 3), 0x1234u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(dw(r, 4 + i), 0xb0 + i);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(dw(r, 8 + i), 0xc0 + i);
  r = pack(platform::hsw, "C4_B8", v);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(dw(r, 4 + i), 0xc0 + i);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(dw(r, 8 + i), 0xb0 + i);
  r = pack(platform::hsw, "B4_C8_A16", v);
  EXPECT_EQ(dw(r, 16), 0xa00u + 29);
  EXPECT_EQ(dw(r, 31), 0xa00u + 44);
}

TEST(EmuLayouts, Gen8A36FortyBitHighBytes) {
  report_values v;
  v.rpt_id = 1;
  v.ctx_id = 0xc0ffee;
  v.gpu_ticks = 0x12345678;
  v.a[0] = 0xab'1122'3344ull;
  v.a[31] = 0xcd'5566'7788ull;
  v.a[32] = 0x9999'aaaaull;
  const auto r = pack(platform::skl, "A32u40_A4u32_B8_C8", v);
  EXPECT_EQ(dw(r, 2), 0xc0ffeeu);
  EXPECT_EQ(dw(r, 3), 0x12345678u);
  EXPECT_EQ(dw(r, 4), 0x11223344u);  // A0 low
  EXPECT_EQ(std::to_integer<int>(r[160]), 0xab);
  EXPECT_EQ(dw(r, 35), 0x55667788u);  // A31 low
  EXPECT_EQ(std::to_integer<int>(r[191]), 0xcd);
  EXPECT_EQ(dw(r, 36), 0x9999aaaau);  // A32 is 32-bit
  // Only A0 and A31 have high bytes set.
  for (std::size_t b = 161; b < 191; ++b) EXPECT_EQ(std::to_integer<int>(r[b]), 0) << b;
}

TEST(EmuLayouts, Gen8A12StartsAtA7) {
  report_values v;
  v.rpt_id = 1;
  for (std::size_t i = 0; i < 20; ++i) v.a[i] = 0x70 + i;
  for (std::size_t i = 0; i < 8; ++i) v.b[i] = 0xb0 + i;
  const auto r = pack(platform::bdw, "A12_B8_C8", v);
  for (std::size_t i = 7; i <= 18; ++i) EXPECT_EQ(dw(r, 4 + (i - 7)), 0x70 + i) << "A" << i;
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(dw(r, 16 + i), 0xb0 + i);
}

TEST(EmuLayouts, XeHpgMixedWidths) {
  const auto* f = find_emu_format(platform::dg2, "A24u40_A14u32_B8_C8");
  ASSERT_NE(f, nullptr);
  std::set<unsigned> forty;
  for (const auto& s : f->layout.slots()) {
    if (s.k != bank::a) continue;
    if (s.bits == 40) {
      forty.insert(s.index);
      EXPECT_EQ(s.high_byte, 160u + s.index);
      EXPECT_EQ(s.offset, 16u + 4u * s.index);
    }
  }
  EXPECT_EQ(forty.size(), 24u);
  EXPECT_FALSE(forty.count(0) || forty.count(24) || forty.count(32));
  report_values v;
  v.rpt_id = 1;
  v.a[36] = 0x36363636;
  v.a[37] = 0x37373737;
  const auto r = pack(platform::dg2, "A24u40_A14u32_B8_C8", v);
  EXPECT_EQ(dw(r, 40), 0x36363636u);
  EXPECT_EQ(dw(r, 46), 0x37373737u);
}

TEST(EmuLayouts, MpecSixtyFourBitHeader) {
  report_values v;
  v.rpt_id = 1;
  v.timestamp = 0x0102030405060708ull;
  v.gpu_ticks = 0x1112131415161718ull;
  v.mpec[3] = 0x33;
  const auto r = pack(platform::mtl, "MPEC8u32_B8_C8", v);
  EXPECT_EQ(hwpc::load_le64(r.data() + 8), 0x0102030405060708ull);
  // As MTL's OA unit writes it: the ticks doubled, 63 bits of them kept
  // (docs/formats.md, "TIME_STAMP on DG2 and MTL").
  const auto* f = hwpc::emu::find_emu_format(platform::mtl, "MPEC8u32_B8_C8");
  ASSERT_NE(f, nullptr);
  const auto tp = hwpc::emu::ts_packing_of(platform::mtl, f->layout);
  EXPECT_EQ(tp.shift, 1u);
  EXPECT_EQ(tp.bits, 63u);
  std::vector<std::byte> shifted(f->layout.size);
  v.timestamp = 0x8102030405060708ull;  // bit 63 is not kept
  hwpc::emu::pack_report(f->layout, v, shifted, tp);
  EXPECT_EQ(hwpc::load_le64(shifted.data() + 8), 0x0102030405060708ull << 1);
  EXPECT_EQ(hwpc::load_le64(r.data() + 24), 0x1112131415161718ull);
  EXPECT_EQ(dw(r, 11), 0x33u);
  EXPECT_EQ(dw(r, 1), 0u);
}

TEST(EmuLayouts, EveryFormatIsCanonicalAndInside) {
  for (const auto& f : hwpc::emu::emu_formats) {
    const auto slots = f.layout.slots();
    for (std::size_t i = 1; i < slots.size(); ++i) {
      const bool ordered = slots[i - 1].k < slots[i].k ||
                           (slots[i - 1].k == slots[i].k && slots[i - 1].index < slots[i].index);
      EXPECT_TRUE(ordered) << f.name;
    }
    std::vector<int> used(f.layout.size, 0);
    auto claim = [&](std::size_t at, std::size_t n) {
      for (std::size_t k = at; k < at + n; ++k) {
        ASSERT_LT(k, used.size()) << f.name;
        EXPECT_EQ(used[k]++, 0) << f.name << " byte " << k;
      }
    };
    claim(0, 4);
    claim(static_cast<std::size_t>(f.layout.ts_offset), f.layout.ts_bits / 8);
    if (f.layout.ctx_offset >= 0) claim(static_cast<std::size_t>(f.layout.ctx_offset), 4);
    for (const auto& s : slots) {
      claim(s.offset, s.bits == 64 ? 8 : 4);
      if (s.bits == 40) claim(s.high_byte, 1);
    }
  }
}

TEST(EmuLayouts, NamesAndAliases) {
  EXPECT_EQ(find_emu_format(platform::tgl, "A32u40_A4u32_B8_C8"),
            find_emu_format(platform::tgl, "A36_B8_C8"));
  EXPECT_EQ(find_emu_format(platform::tgl, "A12"), nullptr);  // Gen12 offers no A12
  EXPECT_EQ(find_emu_format(platform::hsw, std::uint8_t{5})->name, "A45_B8_C8");
  EXPECT_EQ(find_emu_format(platform::mtl, std::uint8_t{5})->name, "A24u40_A14u32_B8_C8");
  EXPECT_NE(find_emu_format(platform::mtl, "MPEC8u32_B8_C8"), nullptr);
  EXPECT_EQ(find_emu_format(platform::dg2, "MPEC8u32_B8_C8"), nullptr);
}

}  // namespace
