// The Xe kernel driver's OA report formats as constexpr data.
//
// One row per entry of the driver's format table (xe_oa.c `oa_formats[]`,
// ../shared/docs/FACTS-xe.md section 2): its names and numbers in the kernel
// and in IGT, its DRM_XE_OA_PROPERTY_OA_FORMAT key, the platforms that enable
// it, and its layout as a report_format, so the generic decoder, the fast
// paths and the listings walk these rows exactly as they walk formats.hpp.
//
// Formats with a 64-bit report header (OAC, OAM MPEC, PEC) hold RPT_ID in
// bytes 0..7, TIME_STAMP in 8..15, CTX_ID in bytes 16..19 and GPU_TICKS in
// 24..31; their counters start at byte 32 (FACTS-xe.md 3.1). The decoder
// reads RPT_ID's low dword, where the reason and context-valid bits are.
//
// `verified` is false where FACTS-xe.md marks the layout INFERRED or unknown:
// such rows describe a hypothesis, and tools decode them only on an explicit
// opt-in (docs/formats.md, "Xe driver").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hwpc/intel/format_keys.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::intel {

struct xe_format {
  std::string_view name;  // the kernel's name (IGT's spelling for OAR/OAC/OAM rows)
  int kernel_id;          // enum xe_oa_format_name (0-based, kernel-internal)
  int igt_id;             // IGT's intel_xe_oa_format_name (1-based; xe-perf DEVICE_INFO)
  xe_format_key key;      // DRM_XE_OA_PROPERTY_OA_FORMAT fields
  bool header64;          // 64-bit RPT_ID / TIME_STAMP / GPU_TICKS header
  bool verified;          // false: INFERRED or partly unknown layout (opt-in only)
  std::string_view evidence;
  report_format layout;

  constexpr bool on(platform p) const noexcept { return layout.on(p); }
};

namespace detail {

inline constexpr field xe_rpt_id64_field{"RPT_ID", field_kind::rpt_id, 0, 0, 64, 0};
inline constexpr field xe_timestamp64_field{"TIMESTAMP", field_kind::timestamp, 0, 8, 64, 0};
inline constexpr field xe_ctx_id_field{"CTX_ID", field_kind::ctx_id, 0, 16, 32, 0};
inline constexpr field xe_gpu_ticks64_field{"GPU_TICKS", field_kind::gpu_ticks, 0, 24, 64, 0};
inline constexpr field xe_header64[] = {xe_rpt_id64_field, xe_timestamp64_field, xe_ctx_id_field,
                                        xe_gpu_ticks64_field};

// 64-bit counters advance two dwords per counter (run::step = 2).
inline constexpr auto xe_oac_a24u64_b8_c8 = layout<28>(
    xe_header64, {run{fk::a, 28, 8, 40, 2, 64}, run{fk::b, 0, 8, 56}, run{fk::c, 0, 8, 64}});
inline constexpr auto xe_header_only = layout<4>(xe_header64, {run{fk::a, 0, 0, 8}});
inline constexpr auto xe_mpec8u64_b8_c8 = layout<28>(
    xe_header64, {run{fk::mpec, 0, 8, 8, 2, 64}, run{fk::b, 0, 8, 24}, run{fk::c, 0, 8, 32}});
inline constexpr auto xe_mpec8u32_b8_c8 =
    layout<28>(xe_header64, {run{fk::mpec, 0, 8, 8}, run{fk::b, 0, 8, 16}, run{fk::c, 0, 8, 24}});
inline constexpr auto xe_pec64u64 = layout<68>(xe_header64, {run{fk::pec, 0, 64, 8, 2, 64}});
inline constexpr auto xe_pec64u64_b8_c8 = layout<84>(
    xe_header64, {run{fk::pec, 0, 64, 8, 2, 64}, run{fk::b, 0, 8, 144}, run{fk::c, 0, 8, 152}});
inline constexpr auto xe_pec64u32 = layout<68>(xe_header64, {run{fk::pec, 0, 64, 8}});
inline constexpr auto xe_pec32u64_g1 = layout<36>(xe_header64, {run{fk::pec, 0, 32, 8, 2, 64}});
inline constexpr auto xe_pec32u64_g2 = layout<36>(xe_header64, {run{fk::pec, 32, 32, 8, 2, 64}});
inline constexpr auto xe_pec32u32_g1 = layout<36>(xe_header64, {run{fk::pec, 0, 32, 8}});
inline constexpr auto xe_pec32u32_g2 = layout<36>(xe_header64, {run{fk::pec, 32, 32, 8}});
inline constexpr auto xe_pec36u64_g1_32_g2_4 =
    layout<40>(xe_header64, {run{fk::pec, 0, 32, 8, 2, 64}, run{fk::pec, 32, 4, 72, 2, 64}});
inline constexpr auto xe_pec36u64_g1_4_g2_32 =
    layout<40>(xe_header64, {run{fk::pec, 0, 4, 8, 2, 64}, run{fk::pec, 32, 32, 16, 2, 64}});

// Platforms per FACTS-xe.md section 2 ("Formats enabled per platform").
inline constexpr platform xe_gen12[] = {pl::tgl, pl::rkl, pl::adl, pl::dg1};
inline constexpr platform xe_gen12_55_up[] = {pl::dg2, pl::mtl};
inline constexpr platform xe_mpec_platforms[] = {pl::mtl, pl::lnl, pl::bmg, pl::ptl};
inline constexpr platform xe_gfx20_up[] = {pl::lnl, pl::bmg, pl::ptl};

constexpr xe_format_key xk(xe_format_type t, std::uint8_t sel, std::uint8_t size = 0,
                           std::uint8_t bc = 0) {
  return {t, sel, size, bc};
}
using xt = xe_format_type;

constexpr report_format xe_layout(std::string_view name, std::span<const platform> platforms,
                                  std::uint8_t select, std::uint16_t size,
                                  std::span<const field> fields) {
  return report_format{name, none(), platforms, select, -1, size, fields, true};
}

}  // namespace detail

// In the kernel's order; kernel_id is the row number, igt_id one more.
inline constexpr std::array xe_formats{
    xe_format{"C4_B8", 0, 1, detail::xk(detail::xt::oag, 7), false, true,
              "Gen8+ layout, as i915 on Gen12 (FACTS.md)",
              detail::xe_layout("C4_B8", detail::xe_gen12, 7, 64, detail::gen8_c4_b8)},
    xe_format{"A12", 1, 2, detail::xk(detail::xt::oag, 0), false, false,
              "INFERRED: the Gen8 A12 layout; i915 offers no A12 on Gen12",
              detail::xe_layout("A12", detail::xe_gen12, 0, 64, detail::gen8_a12)},
    xe_format{"A12_B8_C8", 2, 3, detail::xk(detail::xt::oag, 2), false, false,
              "INFERRED: the Gen8 A12_B8_C8 layout; i915 offers none on Gen12",
              detail::xe_layout("A12_B8_C8", detail::xe_gen12, 2, 128, detail::gen8_a12_b8_c8)},
    xe_format{
        "A32u40_A4u32_B8_C8", 3, 4, detail::xk(detail::xt::oag, 5), false, true,
        "i915 A36_B8_C8 (IGT library, Mesa, IGT test)",
        detail::xe_layout("A32u40_A4u32_B8_C8", detail::xe_gen12, 5, 256, detail::gen8_a36_b8_c8)},
    xe_format{"OAR_A32u40_A4u32_B8_C8", 4, 5, detail::xk(detail::xt::oar, 5), false, true,
              "i915 A36_B8_C8 (IGT library, Mesa, IGT test)",
              detail::xe_layout("OAR_A32u40_A4u32_B8_C8", detail::xe_gen12_55_up, 5, 256,
                                detail::gen8_a36_b8_c8)},
    xe_format{"A24u40_A14u32_B8_C8", 5, 6, detail::xk(detail::xt::oag, 5), false, true,
              "IGT library and Mesa",
              detail::xe_layout("A24u40_A14u32_B8_C8", detail::xe_gen12_55_up, 5, 256,
                                detail::xehpg_a24u40_a14u32_b8_c8)},
    xe_format{"OAC_A24u64_B8_C8", 6, 7, detail::xk(detail::xt::oac, 1), true, false,
              "partly known: A28..A35, B, C from IGT's test; bytes 32..159 (16 A) unmapped",
              detail::xe_layout("OAC_A24u64_B8_C8", detail::xe_gen12_55_up, 1, 320,
                                detail::xe_oac_a24u64_b8_c8)},
    xe_format{"OAC_A22u32_R2u32_B8_C8", 7, 8, detail::xk(detail::xt::oac, 2), true, false,
              "UNKNOWN counter layout: header only",
              detail::xe_layout("OAC_A22u32_R2u32_B8_C8", detail::xe_gen12_55_up, 2, 192,
                                detail::xe_header_only)},
    xe_format{"MPEC8u64_B8_C8", 8, 9, detail::xk(detail::xt::oam_mpec, 1), true, true,
              "IGT test table; bytes 160..191 unknown",
              detail::xe_layout("MPEC8u64_B8_C8", detail::xe_mpec_platforms, 1, 192,
                                detail::xe_mpec8u64_b8_c8)},
    xe_format{"MPEC8u32_B8_C8", 9, 10, detail::xk(detail::xt::oam_mpec, 2), true, true,
              "IGT library and test table",
              detail::xe_layout("MPEC8u32_B8_C8", detail::xe_mpec_platforms, 2, 128,
                                detail::xe_mpec8u32_b8_c8)},
    xe_format{"PEC64u64", 10, 11, detail::xk(detail::xt::pec, 1, 1, 0), true, true,
              "IGT library and Mesa; bytes 544..575 unknown",
              detail::xe_layout("PEC64u64", detail::xe_gfx20_up, 1, 576, detail::xe_pec64u64)},
    xe_format{"PEC64u64_B8_C8", 11, 12, detail::xk(detail::xt::pec, 1, 1, 1), true, false,
              "INFERRED: PEC64u64 then B0..B7, C0..C7 as u32 at 576..639",
              detail::xe_layout("PEC64u64_B8_C8", detail::xe_gfx20_up, 1, 640,
                                detail::xe_pec64u64_b8_c8)},
    xe_format{"PEC64u32", 12, 13, detail::xk(detail::xt::pec, 1, 0, 0), true, false,
              "INFERRED: 64 x u32 at 32..287",
              detail::xe_layout("PEC64u32", detail::xe_gfx20_up, 1, 320, detail::xe_pec64u32)},
    xe_format{
        "PEC32u64_G1", 13, 14, detail::xk(detail::xt::pec, 5, 1, 0), true, false,
        "INFERRED: PEC0..31 as u64 at 32..287",
        detail::xe_layout("PEC32u64_G1", detail::xe_gfx20_up, 5, 320, detail::xe_pec32u64_g1)},
    xe_format{
        "PEC32u32_G1", 14, 15, detail::xk(detail::xt::pec, 5, 0, 0), true, false,
        "INFERRED: PEC0..31 as u32 at 32..159",
        detail::xe_layout("PEC32u32_G1", detail::xe_gfx20_up, 5, 192, detail::xe_pec32u32_g1)},
    xe_format{
        "PEC32u64_G2", 15, 16, detail::xk(detail::xt::pec, 6, 1, 0), true, false,
        "INFERRED: PEC32..63 as u64 at 32..287",
        detail::xe_layout("PEC32u64_G2", detail::xe_gfx20_up, 6, 320, detail::xe_pec32u64_g2)},
    xe_format{
        "PEC32u32_G2", 16, 17, detail::xk(detail::xt::pec, 6, 0, 0), true, false,
        "INFERRED: PEC32..63 as u32 at 32..159",
        detail::xe_layout("PEC32u32_G2", detail::xe_gfx20_up, 6, 192, detail::xe_pec32u32_g2)},
    xe_format{"PEC36u64_G1_32_G2_4", 17, 18, detail::xk(detail::xt::pec, 3, 1, 0), true, false,
              "INFERRED: PEC0..31 then PEC32..35 as u64 at 32..319",
              detail::xe_layout("PEC36u64_G1_32_G2_4", detail::xe_gfx20_up, 3, 320,
                                detail::xe_pec36u64_g1_32_g2_4)},
    xe_format{"PEC36u64_G1_4_G2_32", 18, 19, detail::xk(detail::xt::pec, 4, 1, 0), true, false,
              "INFERRED: PEC0..3 then PEC32..63 as u64 at 32..319",
              detail::xe_layout("PEC36u64_G1_4_G2_32", detail::xe_gfx20_up, 4, 320,
                                detail::xe_pec36u64_g1_4_g2_32)},
};

// ---- Compile-time proofs ----------------------------------------------------
namespace detail {
consteval bool xe_format_is_sane(const xe_format& x) {
  const report_format& f = x.layout;
  if (f.size == 0 || f.size % 64 != 0 || f.platforms.empty() || f.name != x.name) return false;
  if (x.igt_id != x.kernel_id + 1) return false;
  std::array<std::uint8_t, 1024> used{};
  if (f.size > used.size()) return false;
  for (const auto& fd : f.fields) {
    if (fd.bits != 32 && fd.bits != 40 && fd.bits != 64) return false;
    if (fd.offset % (fd.bits == 64 ? 8 : 4) != 0) return false;
    const std::size_t len = fd.bits == 64 ? 8 : 4;
    if (fd.offset + len > f.size) return false;
    for (std::size_t i = fd.offset; i < fd.offset + len; ++i) {
      if (used[i]++ != 0) return false;
    }
    if (fd.bits == 40) {
      if (fd.high_byte_offset >= f.size || used[fd.high_byte_offset]++ != 0) return false;
    }
  }
  // The header the kernel's format says: 64-bit RPT_ID and TIME_STAMP, or 32-bit.
  // (By index, not first_of's pointer: GCC's sanitizer builds refuse pointer
  // comparisons in constant expressions.)
  std::size_t ts = f.fields.size();
  for (std::size_t i = 0; i < f.fields.size() && ts == f.fields.size(); ++i) {
    if (f.fields[i].kind == field_kind::timestamp) ts = i;
  }
  if (f.fields.empty() || f.fields[0].kind != field_kind::rpt_id || ts == f.fields.size())
    return false;
  const field& t = f.fields[ts];
  return x.header64 ? (f.fields[0].bits == 64 && t.offset == 8 && t.bits == 64)
                    : (f.fields[0].bits == 32 && t.offset == 4 && t.bits == 32);
}
consteval bool xe_formats_sane() {
  for (std::size_t i = 0; i < xe_formats.size(); ++i) {
    if (!xe_format_is_sane(xe_formats[i]) || xe_formats[i].kernel_id != static_cast<int>(i))
      return false;
    // On one platform a key names one row.
    for (std::size_t j = i + 1; j < xe_formats.size(); ++j) {
      for (platform p : xe_formats[i].layout.platforms) {
        if (xe_formats[j].on(p) && xe_formats[j].key == xe_formats[i].key) return false;
      }
    }
  }
  return true;
}
}  // namespace detail
static_assert(detail::xe_formats_sane(), "an Xe format row overlaps, overflows or repeats a key");
static_assert(detail::xe_pec64u64.back().offset == 536, "PEC63 is the u64 at bytes 536..543");
static_assert(detail::xe_pec64u64_b8_c8.back().offset == 636, "C7 is the last dword of 640 B");

// ---- Lookups ----------------------------------------------------------------
// By the packed DRM_XE_OA_PROPERTY_OA_FORMAT value and the platform (the key
// alone is ambiguous: OAG select 5 is A32u40 on Gen12, A24u40 on DG2/MTL).
// Like the kernel, a key the platform does not enable finds nothing.
constexpr const xe_format* find_xe_format(platform p, xe_format_key k) noexcept {
  for (const auto& x : xe_formats) {
    if (x.on(p) && x.key == k) return &x;
  }
  return nullptr;
}
constexpr const xe_format* find_xe_format(platform p, std::uint64_t packed) noexcept {
  const auto k = xe_format_key::unpack(packed);
  return k ? find_xe_format(p, *k) : nullptr;
}
// By IGT's 1-based number (xe-perf recordings' DEVICE_INFO.oa_format).
constexpr const xe_format* find_xe_format_by_igt_id(int igt_id) noexcept {
  for (const auto& x : xe_formats) {
    if (x.igt_id == igt_id) return &x;
  }
  return nullptr;
}
// By name on a platform. "OAR_…"/"OAC_…" spell the unit as the kernel's
// comments do; the bare A32u40 name is the OAG row.
constexpr const xe_format* find_xe_format(platform p, std::string_view name) noexcept {
  for (const auto& x : xe_formats) {
    if (x.on(p) && x.name == name) return &x;
  }
  return nullptr;
}
// The row whose layout is `f` (e.g. a decoder holding only the report_format).
constexpr const xe_format* xe_format_of(const report_format& f) noexcept {
  for (const auto& x : xe_formats) {
    if (&x.layout == &f) return &x;
  }
  return nullptr;
}

}  // namespace hwpc::intel
