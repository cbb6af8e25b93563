// RPT_ID (dw0 of every OA report), decoded per generation.
//
// Gen8..Gen11 (SKL PRM vol 14, "Description of RPT_ID"): bits 24:19 report
// reason, bit 18 start trigger event, bit 17 threshold enable. Context valid
// is bit 25 on Gen8 and bit 16 on Gen9+ (the PRM prints both tables). Gen9+
// packs the squashed slice clock frequency in bits 31:25 and 10:9 and the
// squashed unslice clock frequency in bits 8:0. Gen12 adds reason bit 25,
// MMIO trigger (FACTS.md). Gen6/7 report reasons are undocumented; for
// MI_REPORT_PERF_COUNT reports dw0 holds the report id software supplied
// (HSW PRM, MI_REPORT_PERF_COUNT dword 2 "Report ID").
#pragma once

#include <cstdint>
#include <string>

#include "hwpc/core/bytes.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::intel {

// Report reasons as a bit set, in the PRM's Report_reason[n] order.
enum class report_reason : std::uint8_t {
  none = 0,
  timer = 1u << 0,
  trigger1 = 1u << 1,        // internal report trigger 1
  trigger2 = 1u << 2,        // internal report trigger 2
  context_switch = 1u << 3,  // render context switch
  go_transition = 1u << 4,   // GO transition from 1 to 0
  clock_ratio = 1u << 5,     // Gen9+: squashed slice/unslice clock ratio change
  mmio_trigger = 1u << 6,    // Gen12+
};

constexpr report_reason operator|(report_reason a, report_reason b) noexcept {
  return static_cast<report_reason>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(report_reason set, report_reason r) noexcept {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(r)) != 0;
}

// Nominal squashed-clock unit: Mesa and the PRM's clock-ratio logic count in
// steps of 1e9/60 Hz (16.666 MHz) (FACTS.md "RPT_ID").
inline constexpr double squashed_clock_unit_hz = 1e9 / 60.0;

struct rpt_id_fields {
  std::uint32_t raw = 0;
  bool reasons_known = false;  // false on Gen6/7: the PRM documents no reason bits
  report_reason reasons = report_reason::none;
  bool context_valid = false;
  bool start_trigger_event = false;
  bool threshold_enable = false;
  bool has_clock_fields = false;    // Gen9+
  std::uint32_t slice_clock = 0;    // squashed slice clock frequency, 16.666 MHz units
  std::uint32_t unslice_clock = 0;  // squashed unslice clock frequency, 16.666 MHz units

  // The id software put in MI_REPORT_PERF_COUNT (the whole dword).
  constexpr std::uint32_t report_id() const noexcept { return raw; }
  double slice_clock_hz() const noexcept { return slice_clock * squashed_clock_unit_hz; }
  double unslice_clock_hz() const noexcept { return unslice_clock * squashed_clock_unit_hz; }
};

constexpr rpt_id_fields decode_rpt_id(generation gen, std::uint32_t v) noexcept {
  rpt_id_fields r;
  r.raw = v;
  if (is_gen7_family(gen)) return r;
  r.reasons_known = true;
  unsigned reason = bits(v, 24, 19);
  if (gen == generation::gen8) reason &= 0x1f;  // bit 24 reserved on Gen8
  // Xe2/Xe3: IGT's library decodes bit 25 as MMIO trigger on Gfx12 only; on
  // Xe2+ the reason field is the 6 bits 24:19 and bits 31:25 hold the slice
  // clock as on Gen9 (FACTS-xe.md section 4; docs/formats.md, "Xe driver").
  if (gen >= generation::gen12 && gen < generation::xe2 && bit(v, 25)) reason |= 1u << 6;
  r.reasons = static_cast<report_reason>(reason);
  r.start_trigger_event = bit(v, 18);
  r.threshold_enable = bit(v, 17);
  if (gen == generation::gen8) {
    r.context_valid = bit(v, 25);
  } else {
    r.context_valid = bit(v, 16);
  }
  // Gen12 reuses bit 25 for the MMIO-trigger reason, which collides with the
  // Gen9 slice-clock field (31:25); with no Gen12 table to settle it, the clock
  // fields are decoded on Gen9..Gen11 only (docs/formats.md).
  if ((gen >= generation::gen9 && gen < generation::gen12) || gen >= generation::xe2) {
    r.has_clock_fields = true;
    r.slice_clock = bits(v, 31, 25) | (bits(v, 10, 9) << 7);
    r.unslice_clock = bits(v, 8, 0);
  }
  return r;
}

// "timer|ctx-switch" — for CSV/JSON columns. Gen6/7 report "unknown".
inline std::string reason_names(const rpt_id_fields& r) {
  if (!r.reasons_known) return "unknown";
  static constexpr const char* names[] = {"timer",   "trigger1",    "trigger2", "ctx-switch",
                                          "go-1to0", "clock-ratio", "mmio"};
  std::string s;
  for (unsigned i = 0; i < 7; ++i) {
    if (has(r.reasons, static_cast<report_reason>(1u << i))) {
      if (!s.empty()) s += '|';
      s += names[i];
    }
  }
  return s.empty() ? "none" : s;
}

}  // namespace hwpc::intel
