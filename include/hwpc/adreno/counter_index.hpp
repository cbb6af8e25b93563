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

namespace detail {
// An entry is 0 for a register of no counter, else (group + 1) << 8 | counter,
// with bit 15 set for a HI register: no group has more than 255 counters and
// there are 15 groups (checked below).
inline constexpr std::size_t select_span = last_select_register - first_select_register + 1;
inline constexpr std::size_t counter_span = last_counter_register - first_counter_register + 1;

// A table over the registers of one kind (`of`) from `first`: the entry of
// the register n places into group gi's range is encode(gi, n).
template <std::size_t span, class Encode>
constexpr std::array<std::uint16_t, span> register_table(registers_of of, std::uint32_t first,
                                                         Encode encode) {
  std::array<std::uint16_t, span> t{};
  for (std::size_t gi = 0; gi < std::size(a5xx_groups); ++gi) {
    const register_range regs = (a5xx_groups[gi].*of)();
    for (std::uint32_t r = regs.first; r <= regs.last; ++r) {
      t[r - first] = static_cast<std::uint16_t>(encode(gi, r - regs.first));
    }
  }
  return t;
}

inline constexpr std::array<std::uint16_t, select_span> select_table =
    register_table<select_span>(&counter_group::select_registers, first_select_register,
                                [](std::size_t gi, std::uint32_t n) { return (gi + 1) << 8 | n; });

// LO and HI alternate: register n of a group's range is counter n / 2.
inline constexpr std::array<std::uint16_t, counter_span> counter_table =
    register_table<counter_span>(
        &counter_group::counter_registers, first_counter_register,
        [](std::size_t gi, std::uint32_t n) { return (n & 1) << 15 | (gi + 1) << 8 | (n / 2); });

// The SELECT register of a LO register's counter, as an index from
// first_select_register (0 for HI registers and registers of no counter): the
// sample of a counter looks up what was selected for it with one load more,
// not through its group's record.
inline constexpr std::array<std::uint16_t, counter_span> counter_select_table = [] {
  std::array<std::uint16_t, counter_span> t{};
  for (const counter_group& g : a5xx_groups) {
    for (std::uint32_t c = 0; c <= g.last_register; ++c) {
      t[g.lo_reg(c) - first_counter_register] =
          static_cast<std::uint16_t>(g.select_reg(c) - first_select_register);
    }
  }
  return t;
}();
static_assert(select_span <= 0x10000);

inline constexpr bool counters_fit_a_byte = [] {
  for (const auto& g : a5xx_groups) {
    if (g.last_register > 255) return false;
  }
  return true;
}();
static_assert(counters_fit_a_byte && std::size(a5xx_groups) < 0x80);

// The group and counter of a non-zero entry of either table.
inline const counter_group& entry_group(std::uint16_t e) noexcept {
  return a5xx_counter_groups[((e >> 8) & 0x7fu) - 1u];
}
constexpr std::uint32_t entry_counter(std::uint16_t e) noexcept { return e & 0xffu; }
constexpr bool entry_high(std::uint16_t e) noexcept { return (e & 0x8000u) != 0; }
}  // namespace detail

// The counter whose SELECT register is `r` (as find_select).
inline std::optional<counter_ref> select_at(std::uint32_t r) noexcept {
  if (!all_select_registers.contains(r)) return std::nullopt;
  const std::uint16_t e = detail::select_table[r - first_select_register];
  if (e == 0) return std::nullopt;
  return counter_ref{&detail::entry_group(e), detail::entry_counter(e), false};
}

// The counter whose LO or HI register is `r` (as find_counter).
inline std::optional<counter_ref> counter_at(std::uint32_t r) noexcept {
  if (!all_counter_registers.contains(r)) return std::nullopt;
  const std::uint16_t e = detail::counter_table[r - first_counter_register];
  if (e == 0) return std::nullopt;
  return counter_ref{&detail::entry_group(e), detail::entry_counter(e), detail::entry_high(e)};
}

}  // namespace hwpc::adreno
