// Size limits of the report formats, derived from the tables.
//
// Fixed-size state (the counter list, the delta tracker's arrays, the wrap
// kernel's lanes) is sized from what the format tables actually hold, not
// from constants written next to the code, and every assumption a kernel
// makes about the layouts is a static_assert here. A format added to
// all_formats that is larger, has more counters, or places its 40-bit
// counters differently either grows the limits with it or fails to compile;
// a report_format built at run time that exceeds them is refused by
// fits_limits() (accumulate() then takes its reference path).
#pragma once

#include <cstddef>

#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"

namespace hwpc::intel {

struct format_limits {
  std::size_t report_bytes = 0;   // the largest report
  std::size_t counters = 0;       // the most counters in one format
  std::size_t u40_low_dword = 0;  // dword of the low half of 40-bit slot 0
  std::size_t u40_high_byte = 0;  // byte of bits 39:32 of 40-bit slot 0
  std::size_t u40_slots = 0;      // 40-bit slots (slot j: low dword u40_low_dword + j)
  bool u40_pairing_holds = true;  // every 40-bit counter follows the pairing above

  constexpr std::size_t report_dwords() const noexcept { return report_bytes / 4; }
};

namespace detail {
consteval format_limits derive_limits() {
  format_limits l;
  bool have40 = false;
  // Both tables: i915's (formats.hpp) and the Xe driver's (formats_xe.hpp).
  auto visit = [&](const report_format& f) {
    if (f.size > l.report_bytes) l.report_bytes = f.size;
    if (f.counter_count() > l.counters) l.counters = f.counter_count();
    for (const auto& fd : f.fields) {
      if (fd.bits != 40) continue;
      // Slot j pairs dword (low + j) with byte (high + j); the first 40-bit
      // field met fixes low and high (its counter number is its slot).
      const std::size_t dw = fd.offset / 4;
      if (!have40) {
        if (dw < fd.index || fd.high_byte_offset < fd.index) return false;
        l.u40_low_dword = dw - fd.index;
        l.u40_high_byte = fd.high_byte_offset - fd.index;
        have40 = true;
      }
      const std::size_t j = dw - l.u40_low_dword;
      if (dw < l.u40_low_dword || fd.high_byte_offset != l.u40_high_byte + j) {
        l.u40_pairing_holds = false;
      }
      if (j + 1 > l.u40_slots) l.u40_slots = j + 1;
    }
    return true;
  };
  for (const auto& f : all_formats) {
    if (!visit(f)) return format_limits{};
  }
  for (const auto& x : xe_formats) {
    if (!visit(x.layout)) return format_limits{};
  }
  return l;
}
}  // namespace detail

inline constexpr format_limits limits = detail::derive_limits();

static_assert(limits.report_bytes > 0 && limits.report_bytes % 4 == 0,
              "report sizes are whole dwords");
static_assert(limits.u40_pairing_holds,
              "a 40-bit counter does not follow the dw(low+j)/byte(high+j) pairing");
static_assert(limits.u40_slots == 0 ||
                  limits.u40_high_byte + limits.u40_slots <= limits.report_bytes,
              "40-bit high bytes lie inside the report");

// Whether a format (e.g. one built at run time) fits the limits the fixed-size
// code was compiled for.
constexpr bool fits_limits(const report_format& f) noexcept {
  if (f.size == 0 || f.size % 4 != 0 || f.size > limits.report_bytes) return false;
  if (f.counter_count() > limits.counters) return false;
  for (const auto& fd : f.fields) {
    if (std::size_t{fd.offset} + (fd.bits == 64 ? 8 : 4) > f.size) return false;
    if (fd.bits != 40) continue;
    const std::size_t dw = fd.offset / 4;
    if (dw < limits.u40_low_dword) return false;
    const std::size_t j = dw - limits.u40_low_dword;
    if (j >= limits.u40_slots || fd.high_byte_offset != limits.u40_high_byte + j) return false;
  }
  return true;
}

namespace detail {
consteval bool all_formats_fit() {
  for (const auto& f : all_formats) {
    if (!fits_limits(f)) return false;
  }
  for (const auto& x : xe_formats) {
    if (!fits_limits(x.layout)) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::all_formats_fit(), "a format table exceeds the limits derived from it");

}  // namespace hwpc::intel
