// The emulator's own description of every OA report layout: the PRM's
// report tables, transcribed row by row in the notation of layout_rows.hpp
// (a consteval parser turns them into byte offsets, so a typo fails the
// build). The emulator is a second opinion on the decoder, so it does not use
// the decoder's tables (hwpc/intel/formats.hpp).
//
// Sources: [PRM67] seeds/intel-snb-ivb-hsw-prm-observability.txt "Performance
// Counter Report Formats"; [PRM9] seeds/intel-skl-prm-vol14-observability.txt;
// [FACTS] shared/docs/FACTS.md "Intel OA reports" for the rows the PRMs leave
// out (101b on Gen8, the Gen12.5 and OAM formats, the C rows HSW prints as
// "Reserved"). See docs/emulator.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hwpc/core/bytes.hpp"
#include "hwpc/emu/layout_rows.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

namespace detail {

// ---- Gen6 (SNB) [PRM67]: A counters listed left to right, A0 leftmost.
// The PRM's TIME_STAMP cell and the empty cell to its right are one merged
// cell; the 32-bit TIME_STAMP is dw1 and dw2 is reserved [FACTS].
inline constexpr std::string_view snb_row0 = "A0 A1 A2 A3 A4 - TS RPT";
inline constexpr std::string_view snb_row1 = "A5 A6 A7 A8 A9 A10 A11 A12";
inline constexpr std::string_view snb_row2 = "A13 A14 A15 A16 A17 A18 A19 A20";
inline constexpr std::string_view snb_row3 = "A21 A22 A23 A24 A25 A26 A27 A28";
inline constexpr std::string_view b4_row = "R R R R B3 B2 B1 B0";
inline constexpr std::string_view reserved_row = "R R R R R R R R";

inline constexpr std::string_view snb_a13[] = {snb_row0, snb_row1};
inline constexpr std::string_view snb_a29[] = {snb_row0, snb_row1, snb_row2, snb_row3};
inline constexpr std::string_view snb_a13_b4[] = {snb_row0, snb_row1, b4_row, reserved_row};
inline constexpr std::string_view snb_a29_b4[] = {snb_row0, snb_row1, snb_row2,
                                                  snb_row3, b4_row,   reserved_row};

// ---- Gen7 (IVB/VLV) and Gen7.5 (HSW) [PRM67]: A0 rightmost after the header.
inline constexpr std::string_view g7_row0 = "A4 A3 A2 A1 A0 - TS RPT";
inline constexpr std::string_view g7_row1 = "A12 A11 A10 A9 A8 A7 A6 A5";
inline constexpr std::string_view g7_row2 = "A20 A19 A18 A17 A16 A15 A14 A13";
inline constexpr std::string_view g7_row3 = "A28 A27 A26 A25 A24 A23 A22 A21";
inline constexpr std::string_view g7_row4 = "A36 A35 A34 A33 A32 A31 A30 A29";
inline constexpr std::string_view g7_row5 = "A44 A43 A42 A41 A40 A39 A38 A37";
inline constexpr std::string_view b8_row = "B7 B6 B5 B4 B3 B2 B1 B0";
// HSW prints the last row of the B8_C8 formats "Reserved"; the uapi name
// promises C0..C7 there and IGT's reader takes them from it [FACTS].
inline constexpr std::string_view c8_row = "C7 C6 C5 C4 C3 C2 C1 C0";
inline constexpr std::string_view hsw_inst_row0 = "B3 B2 B1 B0 INST - TS RPT";

inline constexpr std::string_view g7_a13[] = {g7_row0, g7_row1};
inline constexpr std::string_view g7_a29[] = {g7_row0, g7_row1, g7_row2, g7_row3};
inline constexpr std::string_view ivb_a13_b4[] = {g7_row0, g7_row1, b4_row, reserved_row};
inline constexpr std::string_view ivb_a29_b4[] = {g7_row0, g7_row1, g7_row2,
                                                  g7_row3, b4_row,  reserved_row};
inline constexpr std::string_view ivb_a45_b4[] = {g7_row0, g7_row1, g7_row2, g7_row3,
                                                  g7_row4, g7_row5, b4_row,  reserved_row};
inline constexpr std::string_view ivb_a16[] = {"R R R R R - TS RPT", reserved_row, g7_row4,
                                               g7_row5};
inline constexpr std::string_view hsw_a13_b8_c8[] = {g7_row0, g7_row1, b8_row, c8_row};
inline constexpr std::string_view hsw_a29_b8_c8[] = {g7_row0, g7_row1, g7_row2,
                                                     g7_row3, b8_row,  c8_row};
inline constexpr std::string_view hsw_b4_c8[] = {hsw_inst_row0, c8_row};
inline constexpr std::string_view hsw_a45_b8_c8[] = {g7_row0, g7_row1, g7_row2, g7_row3,
                                                     g7_row4, g7_row5, b8_row,  c8_row};
inline constexpr std::string_view hsw_b4_c8_a16[] = {hsw_inst_row0, c8_row, g7_row4, g7_row5};
// The PRM prints "Reserved Reserved Reserved C-Cntr 0"; C1..C3 follow the uapi name.
inline constexpr std::string_view hsw_c4_b8[] = {"C3 C2 C1 C0 INST - TS RPT", b8_row};

// ---- Gen8 .. Gen12 [PRM9, FACTS]: header RPT_ID, TIME_STAMP, CTX_ID, GPU_TICKS.
inline constexpr std::string_view g8_a12_row0 = "A10 A9 A8 A7 TICKS CTX TS RPT";
inline constexpr std::string_view g8_a12_row1 = "A18 A17 A16 A15 A14 A13 A12 A11";
inline constexpr std::string_view g8_a12[] = {g8_a12_row0, g8_a12_row1};
inline constexpr std::string_view g8_a12_b8_c8[] = {g8_a12_row0, g8_a12_row1, b8_row, c8_row};
// 101b: A0..A31 are 40-bit, bits 39:32 of Ai in byte 160 + i (dw40..dw47).
inline constexpr std::string_view g8_a36_b8_c8[] = {
    "A3 A2 A1 A0 TICKS CTX TS RPT",
    "A11 A10 A9 A8 A7 A6 A5 A4",
    "A19 A18 A17 A16 A15 A14 A13 A12",
    "A27 A26 A25 A24 A23 A22 A21 A20",
    "A35 A34 A33 A32 A31 A30 A29 A28",
    "hA31:hA30:hA29:hA28 hA27:hA26:hA25:hA24 hA23:hA22:hA21:hA20 hA19:hA18:hA17:hA16 "
    "hA15:hA14:hA13:hA12 hA11:hA10:hA9:hA8 hA7:hA6:hA5:hA4 hA3:hA2:hA1:hA0",
    b8_row,
    c8_row};
inline constexpr std::string_view g8_c4_b8[] = {"C3 C2 C1 C0 TICKS CTX TS RPT", b8_row};

// ---- Gen12.5 (DG2, MTL OAG) [FACTS]: A0..A3, A24..A27, A32..A37 are 32-bit.
inline constexpr std::string_view xehpg_a24u40_a14u32_b8_c8[] = {
    "A3 A2 A1 A0 TICKS CTX TS RPT",
    "A11 A10 A9 A8 A7 A6 A5 A4",
    "A19 A18 A17 A16 A15 A14 A13 A12",
    "A27 A26 A25 A24 A23 A22 A21 A20",
    "A35 A34 A33 A32 A31 A30 A29 A28",
    "hA31:hA30:hA29:hA28 A37 hA23:hA22:hA21:hA20 hA19:hA18:hA17:hA16 "
    "hA15:hA14:hA13:hA12 hA11:hA10:hA9:hA8 hA7:hA6:hA5:hA4 A36",
    b8_row,
    c8_row};

// ---- Gen12.7 (MTL OAM) [FACTS]: 64-bit TIME_STAMP at bytes 8..15, 64-bit
// clock at 24..31. dw1, dw4 and dw5 are not described: written as zero.
inline constexpr std::string_view oam_mpec8u32_b8_c8[] = {
    "TICKS.hi TICKS.lo R R TS.hi TS.lo R RPT", "M7 M6 M5 M4 M3 M2 M1 M0", b8_row, c8_row};

}  // namespace detail

// Which platforms a format exists on.
enum class family : std::uint8_t {
  snb,      // Gen6
  ivb,      // Gen7: IVB, VLV
  hsw,      // Gen7.5
  gen8_11,  // BDW .. EHL (A12, A12_B8_C8)
  gen8_12,  // BDW .. DG1 (A36_B8_C8, C4_B8)
  xehpg,    // DG2, MTL OAG
  mtl_oam,  // MTL OAM
  // The Xe driver's enablement (FACTS-xe section 2), for emu_xe_formats.
  xe_gen12,     // TGL, RKL, ADL, DG1
  xe_gen12_55,  // DG2, MTL
  xe_mpec,      // MTL, LNL, BMG, PTL
  xe2,          // LNL, BMG, PTL (graphics 20+)
};

struct format_desc {
  std::string_view name;
  std::string_view alias;  // empty when none
  family fam;
  std::uint8_t counter_select;  // OACONTROL counter select
  int uapi_id;                  // drm_i915_oa_format, -1 when i915 has none
  report_layout layout;
  // The Xe driver's rows only: IGT's 1-based intel_xe_oa_format_name
  // (xe-perf DEVICE_INFO.oa_format; FACTS-xe section 2), 0 elsewhere.
  int igt_id = 0;
  bool verified = true;  // false where FACTS-xe marks the layout INFERRED or unknown

  constexpr std::uint16_t size() const noexcept { return layout.size; }
  constexpr bool on(intel::platform p) const noexcept {
    using intel::platform;
    const auto g = intel::generation_of(p);
    switch (fam) {
      case family::snb:
        return p == platform::snb;
      case family::ivb:
        return p == platform::ivb || p == platform::vlv;
      case family::hsw:
        return p == platform::hsw;
      case family::gen8_11:
        return g >= intel::generation::gen8 && g <= intel::generation::gen11;
      case family::gen8_12:
        return g >= intel::generation::gen8 && g <= intel::generation::gen12;
      case family::xehpg:
        return p == platform::dg2 || p == platform::mtl;
      case family::mtl_oam:
        return p == platform::mtl;
      case family::xe_gen12:
        return g == intel::generation::gen12;
      case family::xe_gen12_55:
        return p == platform::dg2 || p == platform::mtl;
      case family::xe_mpec:
        return p == platform::mtl || g >= intel::generation::xe2;
      case family::xe2:
        return g >= intel::generation::xe2;
    }
    return false;
  }
  constexpr bool named(std::string_view n) const noexcept {
    return n == name || (!alias.empty() && n == alias);
  }
};

inline constexpr std::array emu_formats{
    format_desc{"A13", "", family::snb, 0, -1, detail::parse_rows(detail::snb_a13)},
    format_desc{"A29", "", family::snb, 1, -1, detail::parse_rows(detail::snb_a29)},
    format_desc{"A13_B4", "", family::snb, 2, -1, detail::parse_rows(detail::snb_a13_b4)},
    format_desc{"A29_B4", "", family::snb, 3, -1, detail::parse_rows(detail::snb_a29_b4)},
    format_desc{"A13", "", family::ivb, 0, -1, detail::parse_rows(detail::g7_a13)},
    format_desc{"A29", "", family::ivb, 1, -1, detail::parse_rows(detail::g7_a29)},
    format_desc{"A13_B4", "", family::ivb, 2, -1, detail::parse_rows(detail::ivb_a13_b4)},
    format_desc{"A29_B4", "", family::ivb, 3, -1, detail::parse_rows(detail::ivb_a29_b4)},
    format_desc{"A45_B4", "", family::ivb, 5, -1, detail::parse_rows(detail::ivb_a45_b4)},
    format_desc{"A16", "", family::ivb, 6, -1, detail::parse_rows(detail::ivb_a16)},
    format_desc{"A13", "", family::hsw, 0, 1, detail::parse_rows(detail::g7_a13)},
    format_desc{"A29", "", family::hsw, 1, 2, detail::parse_rows(detail::g7_a29)},
    format_desc{"A13_B8_C8", "", family::hsw, 2, 3, detail::parse_rows(detail::hsw_a13_b8_c8)},
    format_desc{"A29_B8_C8", "", family::hsw, 3, -1, detail::parse_rows(detail::hsw_a29_b8_c8)},
    format_desc{"B4_C8", "", family::hsw, 4, 4, detail::parse_rows(detail::hsw_b4_c8)},
    format_desc{"A45_B8_C8", "", family::hsw, 5, 5, detail::parse_rows(detail::hsw_a45_b8_c8)},
    format_desc{"B4_C8_A16", "", family::hsw, 6, 6, detail::parse_rows(detail::hsw_b4_c8_a16)},
    format_desc{"C4_B8", "", family::hsw, 7, 7, detail::parse_rows(detail::hsw_c4_b8)},
    format_desc{"A12", "", family::gen8_11, 0, 8, detail::parse_rows(detail::g8_a12)},
    format_desc{"A12_B8_C8", "", family::gen8_11, 2, 9, detail::parse_rows(detail::g8_a12_b8_c8)},
    format_desc{"A36_B8_C8", "A32u40_A4u32_B8_C8", family::gen8_12, 5, 10,
                detail::parse_rows(detail::g8_a36_b8_c8)},
    format_desc{"C4_B8", "", family::gen8_12, 7, 7, detail::parse_rows(detail::g8_c4_b8)},
    format_desc{"A24u40_A14u32_B8_C8", "", family::xehpg, 5, 12,
                detail::parse_rows(detail::xehpg_a24u40_a14u32_b8_c8)},
    format_desc{"MPEC8u32_B8_C8", "", family::mtl_oam, 2, 14,
                detail::parse_rows(detail::oam_mpec8u32_b8_c8)},
};

static_assert(emu_formats[15].layout.size == 256 && emu_formats[15].layout.counter_count == 61,
              "HSW A45_B8_C8: 256 bytes, A0..A44 + B0..B7 + C0..C7");
static_assert(emu_formats[20].layout.counters[1].high_byte == 160,
              "A36_B8_C8: bits 39:32 of A0 at byte 160");

constexpr const format_desc* find_emu_format(intel::platform p, std::string_view name) noexcept {
  for (const auto& f : emu_formats) {
    if (f.on(p) && f.named(name)) return &f;
  }
  return nullptr;
}
constexpr const format_desc* find_emu_format(intel::platform p, std::uint8_t select) noexcept {
  for (const auto& f : emu_formats) {
    if (f.on(p) && f.counter_select == select) {
      // MTL has both an OAG and an OAM format at different selects; a
      // select picks the OAG one (the OAM unit is programmed separately).
      if (f.fam == family::mtl_oam) continue;
      return &f;
    }
  }
  return nullptr;
}

// The name of a counter as every output spells it ("A7", "GPU_TICKS", "MPEC3").
inline std::string counter_name(const counter_slot& s) {
  switch (s.k) {
    case bank::gpu_ticks:
      return "GPU_TICKS";
    case bank::mpec:
      return "MPEC" + std::to_string(s.index);
    case bank::pec:
      return "PEC" + std::to_string(s.index);
    case bank::a:
      return "A" + std::to_string(s.index);
    case bank::b:
      return "B" + std::to_string(s.index);
    case bank::c:
      return "C" + std::to_string(s.index);
  }
  return {};
}

// Every counter bank a report can carry, addressed as the layouts name them.
struct counter_banks {
  std::uint64_t gpu_ticks = 0;
  std::array<std::uint64_t, max_a> a{};
  std::array<std::uint64_t, max_bc> b{};
  std::array<std::uint64_t, max_bc> c{};
  std::array<std::uint64_t, max_bc> mpec{};
  std::array<std::uint64_t, max_pec> pec{};

  constexpr std::uint64_t& counter(bank k, std::size_t i) noexcept {
    switch (k) {
      case bank::gpu_ticks:
        return gpu_ticks;
      case bank::mpec:
        return mpec[i];
      case bank::pec:
        return pec[i];
      case bank::a:
        return a[i];
      case bank::b:
        return b[i];
      case bank::c:
        break;
    }
    return c[i];
  }
  constexpr std::uint64_t counter(bank k, std::size_t i) const noexcept {
    return const_cast<counter_banks&>(*this).counter(k, i);
  }
};

// Raw values of everything a report can carry; counters already hold the
// value the hardware register shows (the packer keeps the low `bits`).
struct report_values : counter_banks {
  std::uint32_t rpt_id = 0;
  std::uint64_t timestamp = 0;
  std::uint32_t ctx_id = 0;
  std::uint32_t inst_add = 0;
};

// How the OA unit of a platform writes its TIME_STAMP ticks into a report
// (docs/formats.md, "TIME_STAMP on DG2 and MTL"). DG2's and MTL's fields hold
// the ticks doubled, so bit 0 is always zero and one bit of ticks less fits:
// a 32-bit field's ticks wrap at 2^31 where the field wraps at 2^32, and
// MTL's 64-bit OAM field keeps 63 bits. Every other platform writes the
// ticks as they are; a 64-bit field holds them whole.
struct ts_packing {
  unsigned shift = 0;  // field = ticks << shift
  unsigned bits = 32;  // bits of ticks the field keeps
};

constexpr ts_packing ts_packing_of(intel::platform p, const report_layout& l) noexcept {
  const bool doubled = p == intel::platform::dg2 || p == intel::platform::mtl;
  if (l.ts_bits == 64) return doubled ? ts_packing{1, 63} : ts_packing{0, 64};
  return doubled ? ts_packing{1, 31} : ts_packing{0, 32};
}

// Writes one report of layout `l` into `out` (at least l.size bytes), its
// TIME_STAMP field as `tp` says. Cells the layout does not describe are
// written as zero.
constexpr void pack_report(const report_layout& l, const report_values& v, std::span<std::byte> out,
                           ts_packing tp = {}) noexcept {
  for (std::size_t i = 0; i < l.size; ++i) out[i] = std::byte{0};
  std::byte* p = out.data();
  store_le32(p, v.rpt_id);
  if (l.ts_bits == 64) {
    // A packing of 32 bits or fewer (the default) does not describe a 64-bit
    // field: it then holds the ticks whole.
    const std::uint64_t kept = tp.bits >= 64 || tp.bits <= 32
                                   ? v.timestamp
                                   : v.timestamp & ((std::uint64_t{1} << tp.bits) - 1);
    store_le64(p + l.ts_offset, tp.bits <= 32 ? kept : kept << tp.shift);
  } else {
    const std::uint64_t kept = v.timestamp & ((std::uint64_t{1} << tp.bits) - 1);
    store_le32(p + l.ts_offset, static_cast<std::uint32_t>(kept << tp.shift));
  }
  if (l.ctx_offset >= 0) store_le32(p + l.ctx_offset, v.ctx_id);
  if (l.inst_offset >= 0) store_le32(p + l.inst_offset, v.inst_add);
  for (const counter_slot& s : l.slots()) {
    const std::uint64_t x = v.counter(s.k, s.index);
    if (s.bits == 64) {
      store_le64(p + s.offset, x);
      continue;
    }
    store_le32(p + s.offset, static_cast<std::uint32_t>(x));
    if (s.bits == 40) p[s.high_byte] = static_cast<std::byte>((x >> 32) & 0xff);
  }
}

constexpr std::uint64_t width_mask(unsigned bits) noexcept {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace hwpc::emu
