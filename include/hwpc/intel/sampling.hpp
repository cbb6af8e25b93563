// Periodic sampling: the OA timer exponent, its period, and the tail margin.
//
// The timer strobes when a chosen bit of TIME_STAMP toggles, so the period is
// a power of two of timestamp ticks: 2^(exponent+1) ticks on IVB, VLV, HSW and
// Gen8+ (OACONTROL "Timer Period" 11:6, HSW PRM; OACTXCONTROL 7:2 on Gen8,
// GEN8_OA_TIMER_PERIOD_MASK in the i915 seed), 2^(exponent+4) on SNB (the SNB
// row of the same PRM table). The field is 6 bits wide; i915 accepts
// exponents up to 31 only (OA_EXPONENT_MAX in the seed) so that two periodic
// reports are always less than one 32-bit TIME_STAMP wrap apart.
#pragma once

#include <cstdint>
#include <optional>

#include "hwpc/intel/platform.hpp"

namespace hwpc::intel {

inline constexpr unsigned oa_exponent_max = 63;       // 6-bit register field
inline constexpr unsigned i915_oa_exponent_max = 31;  // what i915 accepts

// log2 of the period in ticks for an exponent.
constexpr unsigned period_shift(unsigned exponent, generation gen = generation::gen8) noexcept {
  return exponent + (gen == generation::gen6 ? 4u : 1u);
}

// The sampling period in timestamp ticks. Exponents whose period does not
// fit 64 bits (63 on Gen7.5+, 60..63 on SNB) saturate to UINT64_MAX.
constexpr std::uint64_t period_ticks(unsigned exponent,
                                     generation gen = generation::gen8) noexcept {
  const unsigned s = period_shift(exponent, gen);
  return s >= 64 ? ~std::uint64_t{0} : std::uint64_t{1} << s;
}

// The sampling period in nanoseconds (0 when the frequency is 0).
constexpr double period_ns(unsigned exponent, std::uint64_t timestamp_frequency_hz,
                           generation gen = generation::gen8) noexcept {
  if (timestamp_frequency_hz == 0) return 0.0;
  double ticks = 1.0;
  for (unsigned i = 0; i < period_shift(exponent, gen); ++i) ticks *= 2.0;
  return ticks * 1e9 / static_cast<double>(timestamp_frequency_hz);
}

// The smallest exponent whose period is at least `period_ns` nanoseconds, or
// nullopt when none is (frequency 0 or above 4.29 GHz, or a period beyond
// 2^64 ticks). Exact integer arithmetic: the tick count needed is
// ceil(period_ns * f / 1e9), computed without overflow.
constexpr std::optional<unsigned> exponent_for_period(std::uint64_t period_ns,
                                                      std::uint64_t timestamp_frequency_hz,
                                                      generation gen = generation::gen8) noexcept {
  constexpr std::uint64_t ns_per_s = 1'000'000'000;
  if (timestamp_frequency_hz == 0 || timestamp_frequency_hz > 0xffffffffu) return std::nullopt;
  const std::uint64_t whole = period_ns / ns_per_s;
  const std::uint64_t rest = period_ns % ns_per_s;  // rest * f < 1e9 * 2^32: fits
  if (whole != 0 && whole > ~std::uint64_t{0} / timestamp_frequency_hz) return std::nullopt;
  std::uint64_t need = whole * timestamp_frequency_hz;
  const std::uint64_t frac = (rest * timestamp_frequency_hz + ns_per_s - 1) / ns_per_s;
  if (need > ~std::uint64_t{0} - frac) return std::nullopt;
  need += frac;
  for (unsigned e = 0; e <= oa_exponent_max; ++e) {
    const unsigned s = period_shift(e, gen);
    if (s >= 64) return std::nullopt;
    if ((std::uint64_t{1} << s) >= need) return e;
  }
  return std::nullopt;
}

// The driver's tail margin in bytes: the reports that 100 µs of sampling
// produces, plus one, because the tail pointer can run ahead of the reports
// that have landed in memory (OA_TAIL_MARGIN_NSEC and its use in the i915
// seed: ((margin_ns / period_ns) + 1) * report size).
constexpr std::size_t tail_margin_bytes(unsigned exponent, std::uint64_t timestamp_frequency_hz,
                                        std::size_t report_size, std::uint64_t margin_ns = 100'000,
                                        generation gen = generation::gen8) noexcept {
  const double p = period_ns(exponent, timestamp_frequency_hz, gen);
  if (p <= 0.0) return report_size;
  const double n = static_cast<double>(margin_ns) / p;
  return (static_cast<std::size_t>(n) + 1) * report_size;
}

}  // namespace hwpc::intel
