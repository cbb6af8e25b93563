// Every name table chosen per generation: opcodes, events, registers and
// performance-counter groups of A5XX, A6XX and A7XX. An unknown generation
// has no names: numbers only (docs/adreno.md, "Generations").
//
// Register sources: A5XX as perfcounters.hpp; A6XX/A7XX FACTS-adreno6
// sections 4.1 and 5.1 (Mesa's a6xx.xml, the A6XX values also in envytools).
// The counter-register labels are hwpc's own pattern, as on A5XX:
// <G>_PERFCTR_SEL_<n> and RBBM_PERFCTR_<G>_<n>_LO/HI.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "hwpc/adreno/generated/a6xx_counters.hpp"
#include "hwpc/adreno/generated/a7xx_counters.hpp"
#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/names.hpp"
#include "hwpc/adreno/names_a6xx.hpp"
#include "hwpc/adreno/names_a7xx.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/pm4.hpp"

namespace hwpc::adreno {

// The type-7 opcode's name on `g`, or empty (none, or an unknown generation).
constexpr std::string_view opcode_name(generation g, std::uint32_t opcode) noexcept {
  switch (g) {
    case generation::a5xx:
      return a5xx_opcode_name(opcode);
    case generation::a6xx:
      return detail::find_name(detail::a6xx_opcodes, opcode);
    case generation::a7xx:
      return detail::find_name(detail::a7xx_opcodes, opcode);
    default:
      return {};
  }
}

// The event's name (dword 0 bits 7..0 of CP_EVENT_WRITE / CP_EVENT_WRITE7) on `g`, or empty.
constexpr std::string_view event_name(generation g, std::uint32_t event) noexcept {
  switch (g) {
    case generation::a5xx:
      return event_name(event);
    case generation::a6xx:
      return detail::find_name(detail::a6xx_events, event);
    case generation::a7xx:
      return detail::find_name(detail::a7xx_events, event);
    default:
      return {};
  }
}

// The performance-counter groups of `g` (A7XX: render groups, then the BV_ ones).
constexpr std::span<const counter_group> counter_groups(generation g) noexcept {
  switch (g) {
    case generation::a5xx:
      return a5xx_counter_groups;
    case generation::a6xx:
      return a6xx::groups;
    case generation::a7xx:
      return a7xx::groups;
    default:
      return {};
  }
}

// Which A7XX pipe the packets that follow a CP_THREAD_CONTROL run on
// (FACTS-adreno6 section 2.3: bits 1:0, 1 BR, 2 BV, 3 both).
enum class cp_thread : std::uint8_t { br = 1, bv = 2, both = 3 };

constexpr bool is_bv_group(const counter_group& g) noexcept { return g.name.starts_with("BV_"); }

// The counter whose SELECT register is `r` on `g`. On A7XX the TSE, RAS, LRZ
// and HLSQ SELECT registers are shared by the render and visibility groups:
// the thread decides, the render group when it is BR or both.
constexpr std::optional<counter_ref> find_select(generation g, std::uint32_t r,
                                                 cp_thread t = cp_thread::br) noexcept {
  std::optional<counter_ref> found;
  for (const counter_group& c : counter_groups(g)) {
    if (!c.select_registers().contains(r)) continue;
    const counter_ref ref{&c, r - c.select_base, false};
    if (!found || (t == cp_thread::bv && is_bv_group(c))) found = ref;
  }
  return found;
}

// The counter whose LO or HI register is `r` on `g`.
constexpr std::optional<counter_ref> find_counter(generation g, std::uint32_t r) noexcept {
  for (const counter_group& c : counter_groups(g)) {
    if (c.counter_registers().contains(r)) {
      return counter_ref{&c, (r - c.counter_base) / 2, ((r - c.counter_base) & 1) != 0};
    }
  }
  return std::nullopt;
}

// Registers of A6XX and A7XX (same numbers on both) hwpc names.
namespace reg6 {
inline constexpr std::uint32_t rbbm_perfctr_cntl = 0x0500;
inline constexpr std::uint32_t rbbm_perfctr_load_cmd0 = 0x0501;      // .. cmd3 = 0x0504, A6XX only
inline constexpr std::uint32_t rbbm_perfctr_load_value_lo = 0x0505;  // A6XX only
inline constexpr std::uint32_t rbbm_pipestat_first = 0x0540;         // 11 64-bit pairs
inline constexpr std::uint32_t cp_always_on_counter_lo = 0x0980;
inline constexpr std::uint32_t rb_sample_counter_cntl = 0x8891;
inline constexpr std::uint32_t rb_sample_counter_base_lo = 0x8927;
inline constexpr std::uint32_t vpc_so_query_base_lo = 0x9218;
inline constexpr std::string_view pipestat_names[] = {
    "IAVERTICES",    "IAPRIMITIVES",  "VSINVOCATIONS", "HSINVOCATIONS",
    "DSINVOCATIONS", "GSINVOCATIONS", "GSPRIMITIVES",  "CINVOCATIONS",
    "CPRIMITIVES",   "PSINVOCATIONS", "CSINVOCATIONS"};
}  // namespace reg6

namespace detail {
inline std::string a6xx_a7xx_register_name(generation g, std::uint32_t r) {
  const auto pair = [r](std::uint32_t lo, std::string_view name) -> std::string {
    if (r == lo) return std::string(name) + "_LO";
    if (r == lo + 1) return std::string(name) + "_HI";
    return {};
  };
  if (r == reg6::rbbm_perfctr_cntl) return "RBBM_PERFCTR_CNTL";
  if (r == reg6::rb_sample_counter_cntl) return "RB_SAMPLE_COUNTER_CNTL";
  for (auto [lo, name] : {std::pair<std::uint32_t, std::string_view>{reg6::cp_always_on_counter_lo,
                                                                     "CP_ALWAYS_ON_COUNTER"},
                          {reg6::rb_sample_counter_base_lo, "RB_SAMPLE_COUNTER_BASE"},
                          {reg6::vpc_so_query_base_lo, "VPC_SO_QUERY_BASE"}}) {
    if (auto n = pair(lo, name); !n.empty()) return n;
  }
  if (r >= reg6::rbbm_pipestat_first && r < reg6::rbbm_pipestat_first + 22) {
    const std::uint32_t i = (r - reg6::rbbm_pipestat_first) / 2;
    return "RBBM_PIPESTAT_" + std::string(reg6::pipestat_names[i]) + ((r & 1) ? "_HI" : "_LO");
  }
  if (g == generation::a6xx) {
    if (r >= reg6::rbbm_perfctr_load_cmd0 && r <= reg6::rbbm_perfctr_load_cmd0 + 3) {
      return "RBBM_PERFCTR_LOAD_CMD" + std::to_string(r - reg6::rbbm_perfctr_load_cmd0);
    }
    if (auto n = pair(reg6::rbbm_perfctr_load_value_lo, "RBBM_PERFCTR_LOAD_VALUE"); !n.empty()) {
      return n;
    }
  }
  return {};
}
}  // namespace detail

// The name of register `r` on `g`, or empty (hwpc names the query and
// counter registers; an unknown generation has none).
inline std::string register_label(generation g, std::uint32_t r) {
  if (g == generation::a5xx) return register_label(r);
  if (g == generation::unknown) return {};
  if (auto n = detail::a6xx_a7xx_register_name(g, r); !n.empty()) return n;
  if (auto s = find_select(g, r)) {
    // A7XX's shared SELECT registers program a render or a visibility
    // counter by thread; the label names the register, by its render group.
    return std::string(s->group->name) + "_PERFCTR_SEL_" + std::to_string(s->counter);
  }
  if (auto c = find_counter(g, r)) {
    return "RBBM_PERFCTR_" + std::string(c->group->name) + "_" + std::to_string(c->counter) +
           (c->high ? "_HI" : "_LO");
  }
  return {};
}

static_assert(opcode_name(generation::a5xx, 0x50) == "CP_PERFCOUNTER_ACTION");
static_assert(opcode_name(generation::a6xx, 0x50) == "CP_START_BIN");
static_assert(opcode_name(generation::a7xx, 0x46) == "CP_EVENT_WRITE7");
static_assert(opcode_name(generation::unknown, 0x46).empty());
static_assert(event_name(generation::a6xx, 0x31) == "CACHE_INVALIDATE");
static_assert(event_name(generation::a7xx, 0x31) == "CACHE_CLEAN");

}  // namespace hwpc::adreno
