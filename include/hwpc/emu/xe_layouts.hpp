// The emulator's own description of the Xe kernel driver's OA formats.
//
// Written from ../shared/docs/FACTS-xe.md sections 2 and 3, not from the
// decoder's table (hwpc/intel/formats_xe.hpp), so that a wrong decoder row
// cannot hide behind the same wrong emulator row. The formats with a 32-bit
// header are the i915 Gen8+ layouts (FACTS-xe 3.2 says so for each), so they
// reuse the PRM row transcriptions of layouts.hpp. The 64-bit-header formats
// (OAC, OAM MPEC, PEC) are built from the byte ranges FACTS-xe gives:
//
//   bytes 0..7 RPT_ID, 8..15 TIME_STAMP, 16..19 CTX_ID, 24..31 GPU_TICKS
//   (20..23 unknown: written as zero), counters from byte 32 (3.1).
//
// Rows FACTS-xe marks INFERRED or partly unknown carry verified = false: the
// emulator packs them as the hypothesis says so the decoder's reading of the
// same hypothesis can be checked, and the tools decode them only on opt-in.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "hwpc/emu/layouts.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

// Which kernel driver a run emulates: what its read() does with unlanded
// reports and losses, and which format names it offers.
enum class driver : std::uint8_t {
  i915,  // RPT_ID zeroed after copying; losses are records in the stream
  xe,    // RPT_ID and TIME_STAMP zeroed; losses are -EIO + the status ioctl
};

namespace detail {

// `count` counters of bank `k`, numbered from `first`, `bits` wide (32 or
// 64), packed back to back from byte `offset`.
struct xe_run {
  bank k;
  std::uint8_t first;
  std::uint8_t count;
  std::uint16_t offset;
  std::uint8_t bits;
};

consteval report_layout xe_header64_layout(std::uint16_t size, std::initializer_list<xe_run> runs) {
  report_layout out;
  out.size = size;
  out.ts_offset = 8;  // qw1
  out.ts_bits = 64;
  out.ctx_offset = 16;                                                              // dw4
  out.counters[out.counter_count++] = counter_slot{bank::gpu_ticks, 0, 24, 64, 0};  // qw3
  std::array<bool, 1024> used{};
  for (unsigned b = 0; b < 32; ++b) used[b] = true;
  for (const xe_run& r : runs) {
    const unsigned step = r.bits / 8u;
    for (unsigned i = 0; i < r.count; ++i) {
      const unsigned off = r.offset + i * step;
      if (off + step > size) throw "xe layout: counter past the end of the report";
      for (unsigned b = off; b < off + step; ++b) {
        if (used[b]) throw "xe layout: counters overlap";
        used[b] = true;
      }
      if (out.counter_count == out.counters.size()) throw "xe layout: too many counters";
      out.counters[out.counter_count++] = counter_slot{r.k, static_cast<std::uint8_t>(r.first + i),
                                                       static_cast<std::uint16_t>(off), r.bits, 0};
    }
  }
  return out;
}

// FACTS-xe 3.2: MPEC0..7 32-bit at dw8..15, B at dw16..23, C at dw24..31.
inline constexpr auto xe_mpec8u32 = xe_header64_layout(
    128, {{bank::mpec, 0, 8, 32, 32}, {bank::b, 0, 8, 64, 32}, {bank::c, 0, 8, 96, 32}});
// FACTS-xe 3.2: MPEC0..7 64-bit at 32..95, B at 96..127, C at 128..159.
inline constexpr auto xe_mpec8u64 = xe_header64_layout(
    192, {{bank::mpec, 0, 8, 32, 64}, {bank::b, 0, 8, 96, 32}, {bank::c, 0, 8, 128, 32}});
// FACTS-xe 3.2: IGT's test reads eight u64 A counters it calls A28..A35 at
// 160..223, B at 224..255, C at 256..287; bytes 32..159 unmapped (zero here).
inline constexpr auto xe_oac_a24u64 = xe_header64_layout(
    320, {{bank::a, 28, 8, 160, 64}, {bank::b, 0, 8, 224, 32}, {bank::c, 0, 8, 256, 32}});
// FACTS-xe 3.2: no public reader; header only.
inline constexpr auto xe_oac_a22u32 = xe_header64_layout(192, {});
// FACTS-xe 3.3: PEC i is the u64 at 32 + 8i.
inline constexpr auto xe_pec64u64 = xe_header64_layout(576, {{bank::pec, 0, 64, 32, 64}});
// INFERRED (3.3): PEC64u64, then B0..B7 and C0..C7 as u32 at 576 and 608.
inline constexpr auto xe_pec64u64_b8_c8 = xe_header64_layout(
    640, {{bank::pec, 0, 64, 32, 64}, {bank::b, 0, 8, 576, 32}, {bank::c, 0, 8, 608, 32}});
// INFERRED (3.3): 64 x u32 from byte 32.
inline constexpr auto xe_pec64u32 = xe_header64_layout(320, {{bank::pec, 0, 64, 32, 32}});
// INFERRED (3.3): group 1 is PEC0..31, group 2 PEC32..63.
inline constexpr auto xe_pec32u64_g1 = xe_header64_layout(320, {{bank::pec, 0, 32, 32, 64}});
inline constexpr auto xe_pec32u64_g2 = xe_header64_layout(320, {{bank::pec, 32, 32, 32, 64}});
inline constexpr auto xe_pec32u32_g1 = xe_header64_layout(192, {{bank::pec, 0, 32, 32, 32}});
inline constexpr auto xe_pec32u32_g2 = xe_header64_layout(192, {{bank::pec, 32, 32, 32, 32}});
// INFERRED (3.3): group-1 counters first, then group 2.
inline constexpr auto xe_pec36u64_g1_32_g2_4 =
    xe_header64_layout(320, {{bank::pec, 0, 32, 32, 64}, {bank::pec, 32, 4, 288, 64}});
inline constexpr auto xe_pec36u64_g1_4_g2_32 =
    xe_header64_layout(320, {{bank::pec, 0, 4, 32, 64}, {bank::pec, 32, 32, 64, 64}});

constexpr format_desc xe_row(std::string_view name, family fam, std::uint8_t select,
                             const report_layout& l, int igt_id, bool verified) {
  format_desc d{name, "", fam, select, -1, l};
  d.igt_id = igt_id;
  d.verified = verified;
  return d;
}

}  // namespace detail

// The kernel's oa_formats[] in its order (FACTS-xe section 2): IGT number =
// row + 1. Counter select is the kernel table's; the 32-bit-header rows are
// the PRM transcriptions of layouts.hpp.
inline constexpr std::array emu_xe_formats{
    detail::xe_row("C4_B8", family::xe_gen12, 7, detail::parse_rows(detail::g8_c4_b8), 1, true),
    detail::xe_row("A12", family::xe_gen12, 0, detail::parse_rows(detail::g8_a12), 2, false),
    detail::xe_row("A12_B8_C8", family::xe_gen12, 2, detail::parse_rows(detail::g8_a12_b8_c8), 3,
                   false),
    detail::xe_row("A32u40_A4u32_B8_C8", family::xe_gen12, 5,
                   detail::parse_rows(detail::g8_a36_b8_c8), 4, true),
    detail::xe_row("OAR_A32u40_A4u32_B8_C8", family::xe_gen12_55, 5,
                   detail::parse_rows(detail::g8_a36_b8_c8), 5, true),
    detail::xe_row("A24u40_A14u32_B8_C8", family::xe_gen12_55, 5,
                   detail::parse_rows(detail::xehpg_a24u40_a14u32_b8_c8), 6, true),
    detail::xe_row("OAC_A24u64_B8_C8", family::xe_gen12_55, 1, detail::xe_oac_a24u64, 7, false),
    detail::xe_row("OAC_A22u32_R2u32_B8_C8", family::xe_gen12_55, 2, detail::xe_oac_a22u32, 8,
                   false),
    detail::xe_row("MPEC8u64_B8_C8", family::xe_mpec, 1, detail::xe_mpec8u64, 9, true),
    detail::xe_row("MPEC8u32_B8_C8", family::xe_mpec, 2, detail::xe_mpec8u32, 10, true),
    detail::xe_row("PEC64u64", family::xe2, 1, detail::xe_pec64u64, 11, true),
    detail::xe_row("PEC64u64_B8_C8", family::xe2, 1, detail::xe_pec64u64_b8_c8, 12, false),
    detail::xe_row("PEC64u32", family::xe2, 1, detail::xe_pec64u32, 13, false),
    detail::xe_row("PEC32u64_G1", family::xe2, 5, detail::xe_pec32u64_g1, 14, false),
    detail::xe_row("PEC32u32_G1", family::xe2, 5, detail::xe_pec32u32_g1, 15, false),
    detail::xe_row("PEC32u64_G2", family::xe2, 6, detail::xe_pec32u64_g2, 16, false),
    detail::xe_row("PEC32u32_G2", family::xe2, 6, detail::xe_pec32u32_g2, 17, false),
    detail::xe_row("PEC36u64_G1_32_G2_4", family::xe2, 3, detail::xe_pec36u64_g1_32_g2_4, 18,
                   false),
    detail::xe_row("PEC36u64_G1_4_G2_32", family::xe2, 4, detail::xe_pec36u64_g1_4_g2_32, 19,
                   false),
};

static_assert(emu_xe_formats[10].layout.counters[64].offset == 536,
              "PEC64u64: PEC63 is the u64 at bytes 536..543");
static_assert(emu_xe_formats[11].layout.counter_count == 81, "PEC64u64_B8_C8: ticks + 64 + 16");

// The driver a platform's captures come from when nothing says otherwise:
// Xe2 and later have no i915 OA support.
constexpr driver default_driver(intel::platform p) noexcept {
  return intel::generation_of(p) >= intel::generation::xe2 ? driver::xe : driver::i915;
}

// A format by name as `d` names it on platform `p`. The i915 names come
// from emu_formats, the Xe driver's from emu_xe_formats.
constexpr const format_desc* find_emu_format(intel::platform p, std::string_view name,
                                             driver d) noexcept {
  if (d == driver::i915) {
    if (intel::generation_of(p) >= intel::generation::xe2) return nullptr;
    return find_emu_format(p, name);
  }
  for (const auto& f : emu_xe_formats) {
    if (f.on(p) && f.named(name)) return &f;
  }
  return nullptr;
}

}  // namespace hwpc::emu
