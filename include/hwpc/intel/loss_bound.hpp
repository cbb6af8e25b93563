// Whether an interval that spans a loss still has exact counter deltas.
//
// OA counters are free-running accumulators: a lost report (REPORT_LOST,
// BUFFER_LOST, a ring overflow, an Xe status loss) removes a sample, not the
// counts, so the delta from the report before the loss to the one after it
// is the increment over both periods, exactly as far as no counter can have
// wrapped more than once in between: the field holds the increment modulo
// 2^bits, which is the increment itself while it is below 2^bits. A counter
// of `bits` that counts at most R events per timestamp tick stays below
// 2^bits over E ticks when E x R < 2^bits. An interval is kept across a loss
// (reason `across-loss`) when that holds for every counter of the format,
// and dropped otherwise (docs/captures.md, "Intervals across a loss").
//
// R is a bound for every part of a generation, not a measurement:
//   - GT clocks per timestamp tick: at most 256 (no Intel GT runs past
//     3.07 GHz, and no OA timestamp is slower than 12 MHz: HSW 12.5 MHz, SKL
//     12 MHz, Gen11+ 19.2 MHz or faster);
//   - GPU_TICKS, B, C and MPEC counters count at most one event per clock
//     (they count clocks while a signal holds);
//   - A and PEC counters aggregate over the EUs: at most 10 per EU per clock
//     for an A counter (thread occupancy counts up to the threads per EU,
//     10 on Xe3) and 64 per EU per clock for a PEC (byte counts of 64-byte
//     lines), with the largest EU count any part of the generation has.
// The elapsed ticks come from the reports' TIME_STAMPs; where no correlation
// point places the report after the loss (streams, raw buffers) they are the
// forward step modulo the TIME_STAMP wrap, as the timestamps themselves are
// (right while a loss lasts less than one wrap, 2^31 or 2^32 ticks).
#pragma once

#include <cstdint>

#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::intel {

inline constexpr std::uint64_t max_gt_clocks_per_tick = 256;

// The most EUs (XVEs on Xe2+) of any part of a generation.
constexpr std::uint64_t max_eus_of(generation g) noexcept {
  switch (g) {
    case generation::gen6:
      return 12;  // SNB GT2
    case generation::gen7:
      return 16;  // IVB GT2
    case generation::gen7_5:
      return 40;  // HSW GT3
    case generation::gen8:
      return 48;  // BDW GT3
    case generation::gen9:
      return 72;  // SKL GT4
    case generation::gen10:
      return 40;
    case generation::gen11:
      return 64;  // ICL GT2
    case generation::gen12:
      return 96;  // TGL GT2, DG1
    case generation::gen12_5:
      return 512;  // DG2 G10
    case generation::gen12_7:
      return 128;  // MTL/ARL, 8 Xe-cores
    case generation::xe2:
      return 160;  // BMG, 20 Xe2-cores
    case generation::xe3:
      return 192;  // PTL, 12 Xe3-cores (and room)
  }
  return 512;
}

// The most a counter of `kind` can count per timestamp tick on a generation.
constexpr std::uint64_t highest_rate_per_tick(field_kind kind, generation g) noexcept {
  switch (kind) {
    case field_kind::a:
      return max_gt_clocks_per_tick * 10 * max_eus_of(g);
    case field_kind::pec:
      return max_gt_clocks_per_tick * 64 * max_eus_of(g);
    default:
      return max_gt_clocks_per_tick;  // GPU_TICKS, B, C, MPEC: one per clock
  }
}

// Whether a `bits`-wide counter counting at most `rate` per tick cannot
// wrap more than once in `elapsed_ticks` (elapsed x rate < 2^bits).
constexpr bool count_exact_over(std::uint64_t elapsed_ticks, unsigned bits,
                                std::uint64_t rate) noexcept {
  if (bits >= 64) return elapsed_ticks <= ~std::uint64_t{0} / rate;  // elapsed x rate < 2^64
  const std::uint64_t limit = std::uint64_t{1} << bits;
  return elapsed_ticks < (limit + rate - 1) / rate;
}

// Whether every counter's delta over `elapsed_ticks` is exact.
constexpr bool deltas_exact_over(std::uint64_t elapsed_ticks, const counter_list& counters,
                                 generation g) noexcept {
  for (std::size_t c = 0; c < counters.size(); ++c) {
    const field& f = counters[c];
    if (!count_exact_over(elapsed_ticks, f.bits, highest_rate_per_tick(f.kind, g))) return false;
  }
  return true;
}

}  // namespace hwpc::intel
