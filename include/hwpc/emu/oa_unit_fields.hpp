// What the OA unit writes into a report's fixed fields and where a run
// starts its values: the default buffer size field, RPT_ID composed per
// generation, and start values placed so a counter or TIME_STAMP wraps
// inside a chosen interval.
#pragma once

#include <cstdint>
#include <optional>

#include "hwpc/emu/capture.hpp"
#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/random.hpp"
#include "hwpc/emu/registers.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

namespace detail {

// The smallest OA buffer size field whose size the report size divides.
inline std::optional<unsigned> default_size_field(intel::generation g, std::uint32_t rsize) {
  for (unsigned f = 0; f < 8; ++f) {
    if (oa_buffer_bytes(g, f) % rsize == 0) return f;
  }
  return std::nullopt;
}

// Gen7 RPT_ID bits are undocumented ([FACTS] "RPT_ID"); the emulator marks
// timer reports with bit 19 (the Gen8 timer position) so dw0 is never zero.
inline std::uint32_t compose_rpt_id(intel::generation g, trigger why, bool ctx_valid,
                                    bool timer_enabled, std::uint32_t freq_mhz,
                                    std::uint32_t mi_rpc_id) {
  if (why == trigger::mi_rpc) return mi_rpc_id;  // [PRM67] MI_REPORT_PERF_COUNT "Report ID"
  std::uint32_t reason = 0;
  switch (why) {
    case trigger::timer:
      reason = 1u << 0;
      break;
    case trigger::ctx_switch:
      reason = 1u << 3;
      break;
    case trigger::go_transition:
      reason = 1u << 4;
      break;
    case trigger::clock_ratio:
      reason = 1u << 5;
      break;
    case trigger::mi_rpc:
      break;
  }
  if (intel::is_gen7_family(g)) return reason << 19;
  std::uint32_t v = reason << 19;  // [PRM9] RPT_ID 24:19 report reason
  if (g == intel::generation::gen8) {
    if (ctx_valid) v |= 1u << 25;      // [PRM9] Gen8 table: 25 render context valid
    if (timer_enabled) v |= 1u << 16;  // [PRM9] Gen8 table: 16 timer enabled
  } else {
    if (ctx_valid) v |= 1u << 16;  // [PRM9] Gen9 table: 16 render context valid
  }
  if (g >= intel::generation::gen9 && g < intel::generation::gen12) {
    // Squashed clocks in units of 1e9/60 Hz: slice 31:25 + 10:9, unslice 8:0.
    const std::uint32_t sq = (freq_mhz * 60 + 500) / 1000;
    v |= (sq & 0x7f) << 25;
    v |= ((sq >> 7) & 0x3) << 9;
    v |= sq & 0x1ff;
  }
  return v;
}

// Places a wrap of a `bits`-wide value between totals t0 < t1: returns a start
// s with s + t0 < 2^bits <= s + t1 (mod 2^64 arithmetic for 64-bit values),
// and s == residue (mod step) when step > 0 and the interval allows it.
inline std::uint64_t wrap_start(unsigned bits, std::uint64_t t0, std::uint64_t t1, rng& r,
                                std::uint64_t step = 0, std::uint64_t residue = 0) {
  const std::uint64_t mask = width_mask(bits);
  const std::uint64_t delta = t1 - t0;
  std::uint64_t x = delta > 0 ? r.between(0, delta - 1) : 0;
  if (step > 0) {
    x = ((mask - t0 - residue) & mask) % step;  // makes (mask - t0 - x) == residue (mod step)
    if (delta > 0 && x >= delta) x = delta - 1;
  }
  return (mask - t0 - x) & mask;
}

}  // namespace detail

}  // namespace hwpc::emu
