// The A5xx performance-counter groups: per group, the SELECT register that
// picks what counter n counts, the LO/HI register pair that holds its 64-bit
// value, and the names of the countables (docs/adreno.md, "Performance
// counters").
//
// Sources (FACTS-adreno section 5): groups, usable counters and countable
// lists from Mesa's fd5_perfcntr.c; register offsets from the 2016 envytools
// a5xx.xml (one source each). Counter n of a group uses
//   SELECT = select_base + n,  LO = counter_base + 2n,  HI = LO + 1.
// The number written to SELECT is taken to be the countable's position in
// Mesa's list (INFERRED: the lists follow the enums densely, placeholder
// included; the enum values were not read).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "hwpc/adreno/countables.hpp"
#include "hwpc/adreno/pm4.hpp"

namespace hwpc::adreno {

// Registers `first` to `last`, both included.
struct register_range {
  std::uint32_t first = 0;
  std::uint32_t last = 0;

  constexpr bool contains(std::uint32_t r) const noexcept { return r >= first && r <= last; }
  constexpr bool overlaps(register_range o) const noexcept {
    return first <= o.last && o.first <= last;
  }
};

struct counter_group {
  std::string_view name;        // "CP", "RBBM", ...
  std::uint32_t select_base;    // SELECT register of counter 0
  std::uint32_t counter_base;   // LO register of counter 0
  std::uint32_t first_user;     // counters below are reserved for the kernel
  std::uint32_t last_user;      // last counter Mesa exposes
  std::uint32_t last_register;  // last counter the register file has
  std::span<const std::string_view> countables;

  constexpr std::uint32_t select_reg(std::uint32_t n) const noexcept { return select_base + n; }
  constexpr std::uint32_t lo_reg(std::uint32_t n) const noexcept { return counter_base + 2 * n; }
  constexpr std::uint32_t hi_reg(std::uint32_t n) const noexcept { return lo_reg(n) + 1; }
  // The SELECT registers, and the LO/HI pairs, of every counter the register
  // file has.
  constexpr register_range select_registers() const noexcept {
    return {select_reg(0), select_reg(last_register)};
  }
  constexpr register_range counter_registers() const noexcept {
    return {lo_reg(0), hi_reg(last_register)};
  }
  constexpr std::string_view countable(std::uint32_t v) const noexcept {
    return v < countables.size() ? countables[v] : std::string_view{};
  }
};

namespace detail {
inline constexpr counter_group a5xx_groups[] = {
    {"CP", 0x0bb0, 0x03a0, 1, 6, 7, countables::cp},
    {"RBBM", 0x046b, 0x03b0, 1, 2, 2, countables::rbbm},
    {"PC", 0x0d10, 0x03b8, 0, 6, 6, countables::pc},
    {"VFD", 0x0e50, 0x03c8, 0, 6, 6, countables::vfd},
    {"HLSQ", 0x0e10, 0x03d8, 0, 6, 6, countables::hlsq},
    {"VPC", 0x0e64, 0x03e8, 0, 2, 2, countables::vpc},
    {"CCU", 0x0cd8, 0x03f0, 0, 2, 2, countables::ccu},
    {"TSE", 0x0c90, 0x03f8, 0, 2, 2, countables::tse},
    {"RAS", 0x0c94, 0x0400, 0, 2, 2, countables::ras},
    {"UCHE", 0x0ea0, 0x0408, 0, 6, 6, countables::uche},
    {"TP", 0x0f10, 0x0418, 0, 6, 6, countables::tp},
    {"SP", 0x0ed0, 0x0428, 1, 10, 11, countables::sp},
    {"RB", 0x0cd0, 0x0440, 0, 6, 6, countables::rb},
    {"VSC", 0x0c60, 0x0450, 0, 0, 0, countables::vsc},
    {"LRZ", 0x0c98, 0x0454, 0, 2, 2, countables::lrz},
};

constexpr bool registers_disjoint() {
  // No two counters (of any groups) share a SELECT or a LO/HI register.
  for (const auto& a : a5xx_groups) {
    for (const auto& b : a5xx_groups) {
      if (&a == &b) continue;
      if (a.select_registers().overlaps(b.select_registers()) ||
          a.counter_registers().overlaps(b.counter_registers())) {
        return false;
      }
    }
  }
  return true;
}
static_assert(std::size(a5xx_groups) == 15);
static_assert(registers_disjoint());

// One kind of a group's registers: &counter_group::select_registers or
// &counter_group::counter_registers.
using registers_of = register_range (counter_group::*)() const noexcept;

// The range from the lowest to the highest register of one kind over every
// group.
constexpr register_range all_groups(registers_of of) noexcept {
  register_range all{~0u, 0};
  for (const auto& g : a5xx_groups) {
    const register_range r = (g.*of)();
    all.first = r.first < all.first ? r.first : all.first;
    all.last = r.last > all.last ? r.last : all.last;
  }
  return all;
}
}  // namespace detail

inline constexpr std::span<const counter_group> a5xx_counter_groups{detail::a5xx_groups};

// Other registers of the counter block [E-a5].
namespace reg {
inline constexpr std::uint32_t rbbm_perfctr_cntl = 0x0464;
inline constexpr std::uint32_t rbbm_perfctr_load_cmd0 = 0x0465;  // .. cmd3 = 0x0468
inline constexpr std::uint32_t rbbm_perfctr_load_value_lo = 0x0469;
inline constexpr std::uint32_t rbbm_alwayson_counter_lo = 0x04d2;
inline constexpr std::uint32_t rbbm_alwayson_counter_hi = 0x04d3;
}  // namespace reg

// One counter of one group.
struct counter_ref {
  const counter_group* group = nullptr;
  std::uint32_t counter = 0;
  bool high = false;  // the HI half (for counter-register lookups)
  bool reserved() const noexcept { return counter < group->first_user; }
};

// The span of SELECT registers (every group's counters), and that of the
// registers holding counter values (every group's LO/HI pairs).
inline constexpr register_range all_select_registers =
    detail::all_groups(&counter_group::select_registers);
inline constexpr register_range all_counter_registers =
    detail::all_groups(&counter_group::counter_registers);
inline constexpr std::uint32_t first_select_register = all_select_registers.first;
inline constexpr std::uint32_t last_select_register = all_select_registers.last;
inline constexpr std::uint32_t first_counter_register = all_counter_registers.first;
inline constexpr std::uint32_t last_counter_register = all_counter_registers.last;
static_assert(first_select_register == 0x046b && last_select_register == 0x0f16);
static_assert(first_counter_register == 0x03a0 && last_counter_register == 0x0459);

// The counter whose SELECT register is `r`.
constexpr std::optional<counter_ref> find_select(std::uint32_t r) noexcept {
  for (const auto& g : a5xx_counter_groups) {
    if (g.select_registers().contains(r)) {
      return counter_ref{&g, r - g.select_base, false};
    }
  }
  return std::nullopt;
}

// The counter whose LO or HI register is `r`.
constexpr std::optional<counter_ref> find_counter(std::uint32_t r) noexcept {
  for (const auto& g : a5xx_counter_groups) {
    if (g.counter_registers().contains(r)) {
      return counter_ref{&g, (r - g.counter_base) / 2, ((r - g.counter_base) & 1) != 0};
    }
  }
  return std::nullopt;
}

static_assert(find_select(0x0bb1)->counter == 1 && find_select(0x0bb1)->group->name == "CP");
static_assert(find_counter(0x043d)->counter == 10 && find_counter(0x043d)->high);
static_assert(find_counter(0x0451)->group->name == "VSC" && !find_counter(0x0452));

// A countable's full name: PERF_<GROUP>_<NAME> unless the name carries its
// own PERF_ prefix (PC's tessellator and VFD's VFDP countables).
inline std::string countable_name(const counter_group& g, std::uint32_t value) {
  const std::string_view n = g.countable(value);
  if (n.empty()) return "countable " + std::to_string(value);
  if (n.starts_with("PERF_")) return std::string(n);
  return "PERF_" + std::string(g.name) + "_" + std::string(n);
}

// Labels of the counter block's registers (hwpc's own: FACTS give their
// offsets, not their names): <G>_PERFCTR_SEL_<n>, RBBM_PERFCTR_<G>_<n>_LO/HI.
inline std::string perf_register_name(std::uint32_t r) {
  if (auto s = find_select(r)) {
    return std::string(s->group->name) + "_PERFCTR_SEL_" + std::to_string(s->counter);
  }
  if (auto c = find_counter(r)) {
    return "RBBM_PERFCTR_" + std::string(c->group->name) + "_" + std::to_string(c->counter) +
           (c->high ? "_HI" : "_LO");
  }
  switch (r) {
    case reg::rbbm_perfctr_cntl:
      return "RBBM_PERFCTR_CNTL";
    case reg::rbbm_perfctr_load_value_lo:
      return "RBBM_PERFCTR_LOAD_VALUE_LO";
    case reg::rbbm_alwayson_counter_lo:
      return "RBBM_ALWAYSON_COUNTER_LO";
    case reg::rbbm_alwayson_counter_hi:
      return "RBBM_ALWAYSON_COUNTER_HI";
    default:
      break;
  }
  if (r >= reg::rbbm_perfctr_load_cmd0 && r <= reg::rbbm_perfctr_load_cmd0 + 3) {
    return "RBBM_PERFCTR_LOAD_CMD" + std::to_string(r - reg::rbbm_perfctr_load_cmd0);
  }
  return {};
}

// Any register hwpc has a name for (query and counter registers), or empty.
inline std::string register_label(std::uint32_t r) {
  if (const auto n = register_name(r); !n.empty()) return std::string(n);
  return perf_register_name(r);
}

}  // namespace hwpc::adreno
