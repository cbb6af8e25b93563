// Every Intel OA report format as constexpr data.
//
// A format is a list of fields (name, byte offset, width, and for 40-bit
// counters the byte that holds bits 39:32). The layouts come from the PRM
// tables (Gen6/7/7.5: SNB/IVB/HSW observability PRM; Gen8/9: SKL PRM vol 14)
// and, where the PRMs are silent, from ../shared/docs/FACTS.md. The decisions
// taken where the sources disagree are recorded in docs/formats.md.
//
// Nothing here switches on the format: the decoder, the JSON listing and the
// tests all walk these tables.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hwpc/intel/platform.hpp"

namespace hwpc::intel {

enum class field_kind : std::uint8_t {
  rpt_id,     // report id / reason bits (dw0)
  timestamp,  // TIME_STAMP, 32 or 64 bits
  ctx_id,     // context id (Gen8+)
  gpu_ticks,  // GPU_TICKS render clock (Gen8+), a counter
  a,          // aggregating counters
  b,          // boolean counters
  c,          // custom counters
  mpec,       // media performance event counters (OAM)
  inst_add,   // HSW "INST ADD" cell: reported raw, not a counter (docs/formats.md)
  pec,        // Xe2/Xe3 programmable event counters (formats_xe.hpp)
};

struct field {
  std::string_view name;
  field_kind kind;
  std::uint8_t index;              // counter number within its bank (A7 -> 7); 0 otherwise
  std::uint16_t offset;            // byte offset of the (low) dword
  std::uint8_t bits;               // 32, 40 or 64
  std::uint16_t high_byte_offset;  // 40-bit only: byte holding bits 39:32; 0 otherwise

  // Fields whose difference between two reports means something.
  constexpr bool is_counter() const noexcept {
    return kind == field_kind::a || kind == field_kind::b || kind == field_kind::c ||
           kind == field_kind::mpec || kind == field_kind::gpu_ticks || kind == field_kind::pec;
  }
  constexpr std::uint64_t mask() const noexcept {
    return bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
  }
};

struct report_format {
  std::string_view name;
  std::span<const std::string_view> aliases;
  std::span<const platform> platforms;
  std::uint8_t counter_select;  // OACONTROL counter select (3 bits)
  int uapi_id;                  // enum drm_i915_oa_format, or -1 where i915 has none
  std::uint16_t size;           // bytes
  std::span<const field> fields;
  // Which rule tells a written report from a slot the OA unit never wrote:
  // false, i915's (RPT_ID is 0); true, the Xe driver's (RPT_ID and
  // TIME_STAMP both 0; FACTS-xe section 4). Set on formats_xe.hpp's rows.
  bool xe_landed_rule = false;

  constexpr bool on(platform p) const noexcept {
    for (platform q : platforms) {
      if (q == p) return true;
    }
    return false;
  }
  constexpr bool named(std::string_view n) const noexcept {
    if (n == name) return true;
    for (auto a : aliases) {
      if (a == n) return true;
    }
    return false;
  }
  constexpr const field* find(std::string_view field_name) const noexcept {
    for (const auto& f : fields) {
      if (f.name == field_name) return &f;
    }
    return nullptr;
  }
  constexpr const field* first_of(field_kind k) const noexcept {
    for (const auto& f : fields) {
      if (f.kind == k) return &f;
    }
    return nullptr;
  }
  constexpr std::size_t counter_count() const noexcept {
    std::size_t n = 0;
    for (const auto& f : fields) n += f.is_counter() ? 1 : 0;
    return n;
  }
};

namespace detail {

inline constexpr std::string_view a_names[] = {
    "A0",  "A1",  "A2",  "A3",  "A4",  "A5",  "A6",  "A7",  "A8",  "A9",  "A10", "A11",
    "A12", "A13", "A14", "A15", "A16", "A17", "A18", "A19", "A20", "A21", "A22", "A23",
    "A24", "A25", "A26", "A27", "A28", "A29", "A30", "A31", "A32", "A33", "A34", "A35",
    "A36", "A37", "A38", "A39", "A40", "A41", "A42", "A43", "A44"};
inline constexpr std::string_view b_names[] = {"B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7"};
inline constexpr std::string_view c_names[] = {"C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7"};
inline constexpr std::string_view mpec_names[] = {"MPEC0", "MPEC1", "MPEC2", "MPEC3",
                                                  "MPEC4", "MPEC5", "MPEC6", "MPEC7"};

inline constexpr std::string_view pec_names[] = {
    "PEC0",  "PEC1",  "PEC2",  "PEC3",  "PEC4",  "PEC5",  "PEC6",  "PEC7",  "PEC8",  "PEC9",
    "PEC10", "PEC11", "PEC12", "PEC13", "PEC14", "PEC15", "PEC16", "PEC17", "PEC18", "PEC19",
    "PEC20", "PEC21", "PEC22", "PEC23", "PEC24", "PEC25", "PEC26", "PEC27", "PEC28", "PEC29",
    "PEC30", "PEC31", "PEC32", "PEC33", "PEC34", "PEC35", "PEC36", "PEC37", "PEC38", "PEC39",
    "PEC40", "PEC41", "PEC42", "PEC43", "PEC44", "PEC45", "PEC46", "PEC47", "PEC48", "PEC49",
    "PEC50", "PEC51", "PEC52", "PEC53", "PEC54", "PEC55", "PEC56", "PEC57", "PEC58", "PEC59",
    "PEC60", "PEC61", "PEC62", "PEC63"};

constexpr std::string_view counter_name(field_kind k, unsigned i) {
  switch (k) {
    case field_kind::a:
      return a_names[i];
    case field_kind::b:
      return b_names[i];
    case field_kind::c:
      return c_names[i];
    case field_kind::mpec:
      return mpec_names[i];
    case field_kind::pec:
      return pec_names[i];
    default:
      return {};
  }
}

// A run of consecutive counters of one bank: counter `first + k` has its
// (low) dword at `dword + k * step`. step is -1 for the SNB tables, whose
// rows list A counters right-to-left. A 40-bit run keeps bits 39:32 of
// counter i in the byte at `high_byte_base + i` (i is the counter number).
struct run {
  field_kind kind;
  std::uint8_t first;
  std::uint8_t count;
  std::uint16_t dword;
  int step = 1;
  std::uint8_t bits = 32;
  std::uint16_t high_byte_base = 0;
};

inline constexpr field rpt_id_field{"RPT_ID", field_kind::rpt_id, 0, 0, 32, 0};
inline constexpr field timestamp32_field{"TIMESTAMP", field_kind::timestamp, 0, 4, 32, 0};
inline constexpr field ctx_id_field{"CTX_ID", field_kind::ctx_id, 0, 8, 32, 0};
inline constexpr field gpu_ticks32_field{"GPU_TICKS", field_kind::gpu_ticks, 0, 12, 32, 0};
inline constexpr field inst_add_field{"INST_ADD", field_kind::inst_add, 0, 12, 32, 0};

// Builds a field table from a fixed header and runs of counters. N must be
// exactly the number of fields; a mismatch fails at compile time.
template <std::size_t N, std::size_t H, std::size_t R>
consteval std::array<field, N> layout(const field (&header)[H], const run (&runs)[R]) {
  std::array<field, N> out{};
  std::size_t n = 0;
  for (const auto& h : header) out.at(n++) = h;
  for (const auto& r : runs) {
    for (unsigned k = 0; k < r.count; ++k) {
      const unsigned idx = r.first + k;
      const int dw = static_cast<int>(r.dword) + static_cast<int>(k) * r.step;
      out.at(n++) = field{counter_name(r.kind, idx),
                          r.kind,
                          static_cast<std::uint8_t>(idx),
                          static_cast<std::uint16_t>(dw * 4),
                          r.bits,
                          static_cast<std::uint16_t>(r.bits == 40 ? r.high_byte_base + idx : 0)};
    }
  }
  if (n != N) throw "layout: field count does not match N";  // compile error in consteval
  return out;
}

inline constexpr field gen7_header[] = {rpt_id_field, timestamp32_field};
inline constexpr field gen7_header_inst_add[] = {rpt_id_field, timestamp32_field, inst_add_field};
inline constexpr field gen8_header[] = {rpt_id_field, timestamp32_field, ctx_id_field,
                                        gpu_ticks32_field};
// OAM reports carry a 64-bit header: TIME_STAMP at bytes 8..15, clock at 24..31.
inline constexpr field mpec_header[] = {rpt_id_field,
                                        field{"TIMESTAMP", field_kind::timestamp, 0, 8, 64, 0},
                                        field{"GPU_TICKS", field_kind::gpu_ticks, 0, 24, 64, 0}};

using fk = field_kind;

// ---- Gen6 (SNB): A counters listed right-to-left within each row. --------
inline constexpr auto snb_a13 =
    layout<15>(gen7_header, {run{fk::a, 0, 5, 7, -1}, run{fk::a, 5, 8, 15, -1}});
inline constexpr auto snb_a29 =
    layout<31>(gen7_header, {run{fk::a, 0, 5, 7, -1}, run{fk::a, 5, 8, 15, -1},
                             run{fk::a, 13, 8, 23, -1}, run{fk::a, 21, 8, 31, -1}});
inline constexpr auto snb_a13_b4 = layout<19>(
    gen7_header, {run{fk::a, 0, 5, 7, -1}, run{fk::a, 5, 8, 15, -1}, run{fk::b, 0, 4, 16}});
inline constexpr auto snb_a29_b4 = layout<35>(
    gen7_header, {run{fk::a, 0, 5, 7, -1}, run{fk::a, 5, 8, 15, -1}, run{fk::a, 13, 8, 23, -1},
                  run{fk::a, 21, 8, 31, -1}, run{fk::b, 0, 4, 32}});

// ---- Gen7 (IVB/VLV) and Gen7.5 (HSW): A0 at dw3, ascending. --------------
inline constexpr auto gen7_a13 = layout<15>(gen7_header, {run{fk::a, 0, 13, 3}});
inline constexpr auto gen7_a29 = layout<31>(gen7_header, {run{fk::a, 0, 29, 3}});
inline constexpr auto ivb_a13_b4 =
    layout<19>(gen7_header, {run{fk::a, 0, 13, 3}, run{fk::b, 0, 4, 16}});
inline constexpr auto ivb_a29_b4 =
    layout<35>(gen7_header, {run{fk::a, 0, 29, 3}, run{fk::b, 0, 4, 32}});
inline constexpr auto ivb_a45_b4 =
    layout<51>(gen7_header, {run{fk::a, 0, 45, 3}, run{fk::b, 0, 4, 48}});
inline constexpr auto ivb_a16 = layout<18>(gen7_header, {run{fk::a, 29, 16, 16}});
inline constexpr auto hsw_a13_b8_c8 =
    layout<31>(gen7_header, {run{fk::a, 0, 13, 3}, run{fk::b, 0, 8, 16}, run{fk::c, 0, 8, 24}});
inline constexpr auto hsw_a29_b8_c8 =
    layout<47>(gen7_header, {run{fk::a, 0, 29, 3}, run{fk::b, 0, 8, 32}, run{fk::c, 0, 8, 40}});
inline constexpr auto hsw_b4_c8 =
    layout<15>(gen7_header_inst_add, {run{fk::b, 0, 4, 4}, run{fk::c, 0, 8, 8}});
inline constexpr auto hsw_a45_b8_c8 =
    layout<63>(gen7_header, {run{fk::a, 0, 45, 3}, run{fk::b, 0, 8, 48}, run{fk::c, 0, 8, 56}});
inline constexpr auto hsw_b4_c8_a16 = layout<31>(
    gen7_header_inst_add, {run{fk::a, 29, 16, 16}, run{fk::b, 0, 4, 4}, run{fk::c, 0, 8, 8}});
inline constexpr auto hsw_c4_b8 =
    layout<15>(gen7_header_inst_add, {run{fk::b, 0, 8, 8}, run{fk::c, 0, 4, 4}});

// ---- Gen8 .. Gen12 ------------------------------------------------------
inline constexpr auto gen8_a12 = layout<16>(gen8_header, {run{fk::a, 7, 12, 4}});
inline constexpr auto gen8_a12_b8_c8 =
    layout<32>(gen8_header, {run{fk::a, 7, 12, 4}, run{fk::b, 0, 8, 16}, run{fk::c, 0, 8, 24}});
inline constexpr auto gen8_a36_b8_c8 =
    layout<56>(gen8_header, {run{fk::a, 0, 32, 4, 1, 40, 160}, run{fk::a, 32, 4, 36},
                             run{fk::b, 0, 8, 48}, run{fk::c, 0, 8, 56}});
inline constexpr auto gen8_c4_b8 =
    layout<16>(gen8_header, {run{fk::b, 0, 8, 8}, run{fk::c, 0, 4, 4}});
inline constexpr auto xehpg_a24u40_a14u32_b8_c8 = layout<58>(
    gen8_header, {run{fk::a, 0, 4, 4}, run{fk::a, 4, 20, 8, 1, 40, 160}, run{fk::a, 24, 4, 28},
                  run{fk::a, 28, 4, 32, 1, 40, 160}, run{fk::a, 32, 5, 36}, run{fk::a, 37, 1, 46},
                  run{fk::b, 0, 8, 48}, run{fk::c, 0, 8, 56}});
inline constexpr auto mtl_mpec8u32_b8_c8 =
    layout<27>(mpec_header, {run{fk::mpec, 0, 8, 8}, run{fk::b, 0, 8, 16}, run{fk::c, 0, 8, 24}});

// ---- Platform lists -----------------------------------------------------
using pl = platform;
inline constexpr platform snb_only[] = {pl::snb};
inline constexpr platform ivb_vlv[] = {pl::ivb, pl::vlv};
inline constexpr platform snb_ivb_vlv[] = {pl::snb, pl::ivb, pl::vlv};
inline constexpr platform ivb_vlv_hsw[] = {pl::ivb, pl::vlv, pl::hsw};
inline constexpr platform hsw_only[] = {pl::hsw};
inline constexpr platform gen8_to_gen11[] = {pl::bdw, pl::chv, pl::skl, pl::bxt, pl::kbl,
                                             pl::glk, pl::cfl, pl::cnl, pl::icl, pl::ehl};
inline constexpr platform gen8_to_gen12[] = {pl::bdw, pl::chv, pl::skl, pl::bxt, pl::kbl,
                                             pl::glk, pl::cfl, pl::cnl, pl::icl, pl::ehl,
                                             pl::tgl, pl::rkl, pl::adl, pl::dg1};
inline constexpr platform xehpg[] = {pl::dg2, pl::mtl};
inline constexpr platform mtl_only[] = {pl::mtl};

inline constexpr std::string_view no_aliases[1] = {""};
inline constexpr std::string_view a36_aliases[] = {"A32u40_A4u32_B8_C8"};

constexpr std::span<const std::string_view> none() { return {no_aliases, 0}; }

}  // namespace detail

// Every format hwpc decodes. Several share a name across generations (A13 on
// SNB and on HSW differ in layout): look formats up with a platform.
inline constexpr std::array all_formats{
    // Gen6: counter select 000..011 (SNB PRM table, right-to-left rows).
    report_format{"A13", detail::none(), detail::snb_only, 0, -1, 64, detail::snb_a13},
    report_format{"A29", detail::none(), detail::snb_only, 1, -1, 128, detail::snb_a29},
    report_format{"A13_B4", detail::none(), detail::snb_only, 2, -1, 128, detail::snb_a13_b4},
    report_format{"A29_B4", detail::none(), detail::snb_only, 3, -1, 192, detail::snb_a29_b4},
    // Gen7: counter select 000, 001, 010, 011, 101, 110 (IVB/VLV table).
    report_format{"A13", detail::none(), detail::ivb_vlv, 0, -1, 64, detail::gen7_a13},
    report_format{"A29", detail::none(), detail::ivb_vlv, 1, -1, 128, detail::gen7_a29},
    report_format{"A13_B4", detail::none(), detail::ivb_vlv, 2, -1, 128, detail::ivb_a13_b4},
    report_format{"A29_B4", detail::none(), detail::ivb_vlv, 3, -1, 192, detail::ivb_a29_b4},
    report_format{"A45_B4", detail::none(), detail::ivb_vlv, 5, -1, 256, detail::ivb_a45_b4},
    report_format{"A16", detail::none(), detail::ivb_vlv, 6, -1, 128, detail::ivb_a16},
    // Gen7.5: counter select 000..111 (HSW table; i915 uapi ids 1..7).
    report_format{"A13", detail::none(), detail::hsw_only, 0, 1, 64, detail::gen7_a13},
    report_format{"A29", detail::none(), detail::hsw_only, 1, 2, 128, detail::gen7_a29},
    report_format{"A13_B8_C8", detail::none(), detail::hsw_only, 2, 3, 128, detail::hsw_a13_b8_c8},
    report_format{"A29_B8_C8", detail::none(), detail::hsw_only, 3, -1, 192, detail::hsw_a29_b8_c8},
    report_format{"B4_C8", detail::none(), detail::hsw_only, 4, 4, 64, detail::hsw_b4_c8},
    report_format{"A45_B8_C8", detail::none(), detail::hsw_only, 5, 5, 256, detail::hsw_a45_b8_c8},
    report_format{"B4_C8_A16", detail::none(), detail::hsw_only, 6, 6, 128, detail::hsw_b4_c8_a16},
    report_format{"C4_B8", detail::none(), detail::hsw_only, 7, 7, 64, detail::hsw_c4_b8},
    // Gen8 .. Gen12 (SKL PRM vol 14; uapi ids 7..10).
    report_format{"A12", detail::none(), detail::gen8_to_gen11, 0, 8, 64, detail::gen8_a12},
    report_format{"A12_B8_C8", detail::none(), detail::gen8_to_gen11, 2, 9, 128,
                  detail::gen8_a12_b8_c8},
    report_format{"A36_B8_C8", detail::a36_aliases, detail::gen8_to_gen12, 5, 10, 256,
                  detail::gen8_a36_b8_c8},
    report_format{"C4_B8", detail::none(), detail::gen8_to_gen12, 7, 7, 64, detail::gen8_c4_b8},
    // Gen12.5+ (FACTS.md, from IGT's reader; uapi ids 12 and 14).
    report_format{"A24u40_A14u32_B8_C8", detail::none(), detail::xehpg, 5, 12, 256,
                  detail::xehpg_a24u40_a14u32_b8_c8},
    report_format{"MPEC8u32_B8_C8", detail::none(), detail::mtl_only, 2, 14, 128,
                  detail::mtl_mpec8u32_b8_c8},
};

// ---- Compile-time proofs that every table is sane. ------------------------
namespace detail {
consteval bool format_is_sane(const report_format& f) {
  if (f.size == 0 || f.size % 64 != 0 || f.counter_select > 7 || f.platforms.empty()) return false;
  std::array<std::uint8_t, 512> used{};  // byte occupancy
  auto claim = [&](std::size_t off, std::size_t len) {
    if (off + len > f.size) return false;
    for (std::size_t i = off; i < off + len; ++i) {
      if (used[i]++ != 0) return false;
    }
    return true;
  };
  for (const auto& fd : f.fields) {
    if (fd.bits != 32 && fd.bits != 40 && fd.bits != 64) return false;
    if (fd.offset % 4 != 0) return false;
    if (!claim(fd.offset, fd.bits == 64 ? 8 : 4)) return false;
    if (fd.bits == 40 && !claim(fd.high_byte_offset, 1)) return false;
    if (fd.bits != 40 && fd.high_byte_offset != 0) return false;
    if (fd.name.empty()) return false;
  }
  // RPT_ID is always the lowest addressed dword (both PRMs).
  return !f.fields.empty() && f.fields[0].kind == field_kind::rpt_id && f.fields[0].offset == 0;
}
consteval bool formats_are_unique() {
  // (platform, counter select) and (platform, uapi id) identify one format.
  for (std::size_t i = 0; i < all_formats.size(); ++i) {
    for (std::size_t j = i + 1; j < all_formats.size(); ++j) {
      for (platform p : all_formats[i].platforms) {
        if (!all_formats[j].on(p)) continue;
        if (all_formats[i].counter_select == all_formats[j].counter_select) return false;
        if (all_formats[i].uapi_id >= 0 && all_formats[i].uapi_id == all_formats[j].uapi_id)
          return false;
        if (all_formats[i].name == all_formats[j].name) return false;
      }
    }
  }
  return true;
}
consteval bool all_sane() {
  for (const auto& f : all_formats) {
    if (!format_is_sane(f)) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::all_sane(), "a report format table overlaps, overflows or has a bad width");
static_assert(detail::formats_are_unique(),
              "two formats share a platform and a select/uapi id/name");
static_assert(detail::hsw_a45_b8_c8.back().offset == 252, "HSW A45_B8_C8 ends with C7 at dw63");
static_assert(detail::gen8_a36_b8_c8[4].high_byte_offset == 160, "A0 bits 39:32 at byte 160");

// ---- Lookups --------------------------------------------------------------
constexpr const report_format* find_format(platform p, std::uint8_t counter_select) noexcept {
  for (const auto& f : all_formats) {
    if (f.on(p) && f.counter_select == counter_select) return &f;
  }
  return nullptr;
}
constexpr const report_format* find_format_by_uapi(platform p, int uapi_id) noexcept {
  for (const auto& f : all_formats) {
    if (f.on(p) && f.uapi_id == uapi_id) return &f;
  }
  return nullptr;
}
constexpr const report_format* find_format(platform p, std::string_view name) noexcept {
  for (const auto& f : all_formats) {
    if (f.on(p) && f.named(name)) return &f;
  }
  return nullptr;
}
// The first platform-independent match; ambiguous names (A13, A29, C4_B8, …)
// return the earliest generation's format, so prefer the platform overloads.
constexpr const report_format* find_format(std::string_view name) noexcept {
  for (const auto& f : all_formats) {
    if (f.named(name)) return &f;
  }
  return nullptr;
}

}  // namespace hwpc::intel
