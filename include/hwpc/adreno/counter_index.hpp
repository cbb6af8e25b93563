// The performance-counter registers of the 15 A5xx groups as tables indexed by
// register: `select_at(r)` and `counter_at(r)` answer what find_select() and
// find_counter() answer, without scanning the groups. The recogniser asks this
// for every register a type-4 write covers and every register a CP_REG_TO_MEM
// copies, which made the scan the largest cost of recognising counters
// (docs/performance.md, "Mali and Adreno").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "hwpc/adreno/perfcounters.hpp"

namespace hwpc::adreno {

// The span of SELECT registers (every group's counters).
inline constexpr std::uint32_t first_select_register = [] {
  std::uint32_t m = ~0u;
  for (const auto& g : detail::a5xx_groups) m = g.select_base < m ? g.select_base : m;
  return m;
}();
inline constexpr std::uint32_t last_select_register = [] {
  std::uint32_t m = 0;
  for (const auto& g : detail::a5xx_groups) {
    const std::uint32_t hi = g.select_base + g.last_register;
    m = hi > m ? hi : m;
  }
  return m;
}();

namespace detail {
// An entry is 0 for a register of no counter, else (group + 1) << 8 | counter,
// with bit 15 set for a HI register: no group has more than 255 counters and
// there are 15 groups (checked below).
inline constexpr std::size_t select_span = last_select_register - first_select_register + 1;
inline constexpr std::size_t counter_span = last_counter_register - first_counter_register + 1;

inline constexpr std::array<std::uint16_t, select_span> select_table = [] {
  std::array<std::uint16_t, select_span> t{};
  for (std::size_t gi = 0; gi < std::size(a5xx_groups); ++gi) {
    const auto& g = a5xx_groups[gi];
    for (std::uint32_t n = 0; n <= g.last_register; ++n) {
      t[g.select_base + n - first_select_register] = static_cast<std::uint16_t>((gi + 1) << 8 | n);
    }
  }
  return t;
}();

inline constexpr std::array<std::uint16_t, counter_span> counter_table = [] {
  std::array<std::uint16_t, counter_span> t{};
  for (std::size_t gi = 0; gi < std::size(a5xx_groups); ++gi) {
    const auto& g = a5xx_groups[gi];
    for (std::uint32_t n = 0; n <= 2 * g.last_register + 1; ++n) {
      t[g.counter_base + n - first_counter_register] =
          static_cast<std::uint16_t>((n & 1) << 15 | (gi + 1) << 8 | (n / 2));
    }
  }
  return t;
}();

inline constexpr bool counters_fit_a_byte = [] {
  for (const auto& g : a5xx_groups) {
    if (g.last_register > 255) return false;
  }
  return true;
}();
static_assert(counters_fit_a_byte && std::size(a5xx_groups) < 0x80);
}  // namespace detail

// The counter whose SELECT register is `r` (as find_select).
inline std::optional<counter_ref> select_at(std::uint32_t r) noexcept {
  if (r < first_select_register || r > last_select_register) return std::nullopt;
  const std::uint16_t e = detail::select_table[r - first_select_register];
  if (e == 0) return std::nullopt;
  return counter_ref{&a5xx_counter_groups[(e >> 8) - 1u], e & 0xffu, false};
}

// The counter whose LO or HI register is `r` (as find_counter).
inline std::optional<counter_ref> counter_at(std::uint32_t r) noexcept {
  if (r < first_counter_register || r > last_counter_register) return std::nullopt;
  const std::uint16_t e = detail::counter_table[r - first_counter_register];
  if (e == 0) return std::nullopt;
  return counter_ref{&a5xx_counter_groups[((e >> 8) & 0x7fu) - 1u], e & 0xffu, (e & 0x8000u) != 0};
}

}  // namespace hwpc::adreno
