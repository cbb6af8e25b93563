// The types every Mali GPU's counter table is made of. A gpu_table names the
// counters of one hardware layout of Arm's counter database (several products
// may share one: G57 uses G77's, G310/G510/G610 use G710's); the tables
// themselves are generated into hwpc/mali/gpus/ (scripts/gen/mali_tables.py),
// and hwpc/mali/gpu.hpp finds them by name or GPU id.
//
//   const hwpc::mali::gpu_table& t = hwpc::mali::gpus::g78;
//   t.name_of(block_type::shader_core, 12);   // a hardware counter name, or ""
//   t.find("GPU_ACTIVE")->id;                 // {front_end, 6}
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hwpc/mali/block.hpp"

namespace hwpc::mali {

// The largest block any layout has (the 5th-generation GPUs and the G715).
inline constexpr std::size_t max_values_per_block = 128;

struct hw_counter {
  counter_id id;
  std::string_view name;  // hardware name, e.g. "FRAG_QUADS_EZS_TEST"
  // The layout's <Counter shift="n">: the hardware counts in units of 2^n
  // (FRAG_SHADER_THREADS counts quads of threads on G715 and later), and
  // Arm's sampler reports value << n (FACTS-mali section 6).
  std::uint8_t shift = 0;
};

// value << shift, saturating at 2^64 - 1 where the shifted value would not fit
// (Arm's sampler wraps; a saturated counter is visibly out of range, and the
// plausibility checks of hwpc/mali/plausibility.hpp name it). docs/mali.md.
constexpr std::uint64_t scale_counter(std::uint64_t value, unsigned shift) noexcept {
  if (shift == 0) return value;
  if (shift >= 64 || value > (~std::uint64_t{0} >> shift)) return ~std::uint64_t{0};
  return value << shift;
}

// A Streamline counter name and the hardware counter it reads (a formula
// input). The Mali-G72 guide's names (hwpc/mali/streamline_names.hpp) and the
// database's MachineNames (gpu_table::streamline) both take this form.
struct streamline_counter {
  std::string_view name;     // without '$', e.g. "MaliGPUActiveCy"
  std::string_view hw_name;  // hardware counter name
  counter_id id;
  std::string_view group;        // the description's GroupName
  std::string_view group_human;  // the counter's GroupHumanName
};

// A derived counter of Arm's database: a formula (Streamline infix) over
// Streamline counter names, other derived counters and MALI_CONFIG_*
// constants.
struct derived_counter {
  std::string_view name;  // MachineName
  std::string_view human_name;
  std::string_view units;
  std::string_view equation;
};

// One hardware layout: values per block (64 or 128, the same for every block
// type; 0..3 are header words) and its counters, sorted by block type then
// index. Indices not listed are unused.
struct gpu_table {
  std::string_view key;           // database key, "Mali-G72" or "Mali G1"
  std::string_view architecture;  // "Bifrost", "Valhall", "5th Generation"
  std::uint16_t values_per_block = 64;
  std::span<const hw_counter> counters;
  // Arm's counter descriptions for this layout: every hardware counter's
  // Streamline name, and the derived counters (empty when not generated).
  std::span<const streamline_counter> streamline = {};
  std::span<const derived_counter> derived = {};

  // The hardware name at (block, index); empty for header words and unused indices.
  constexpr std::string_view name_of(block_type block, std::size_t index) const noexcept {
    for (const hw_counter& c : counters) {
      if (c.id.block == block && c.id.index == index) return c.name;
    }
    return {};
  }
  // The shift of the counter at (block, index); 0 where none is given.
  constexpr unsigned shift_of(counter_id id) const noexcept {
    for (const hw_counter& c : counters) {
      if (c.id == id) return c.shift;
    }
    return 0;
  }
  // The Streamline name (the database's MachineName) of the counter at `id`;
  // empty when the table has none.
  constexpr std::string_view streamline_name_of(counter_id id) const noexcept {
    for (const streamline_counter& s : streamline) {
      if (s.id == id) return s.name;
    }
    return {};
  }
  // The counter with this hardware name, if the layout has one.
  constexpr std::optional<hw_counter> find(std::string_view name) const noexcept {
    for (const hw_counter& c : counters) {
      if (c.name == name) return c;
    }
    return std::nullopt;
  }
};

// Counters summed over every instance of each block type, for blocks of up to
// max_values_per_block values; header words stay 0.
struct block_sums {
  std::array<std::array<std::uint64_t, max_values_per_block>, block_type_count> values{};

  constexpr std::uint64_t at(block_type t, std::size_t index) const noexcept {
    return index < max_values_per_block ? values[static_cast<std::size_t>(t)][index] : 0;
  }
  constexpr std::uint64_t operator[](counter_id id) const noexcept {
    return at(id.block, id.index);
  }
};

// Raw sums as Arm reports them: every counter of `t` with a shift scaled by
// scale_counter (summing first, then shifting, equals Arm's sum of shifted
// values wherever neither wraps).
constexpr block_sums scaled_sums(const gpu_table& t, block_sums sums) noexcept {
  for (const hw_counter& c : t.counters) {
    if (c.shift == 0 || c.id.index >= max_values_per_block) continue;
    auto& v = sums.values[static_cast<std::size_t>(c.id.block)][c.id.index];
    v = scale_counter(v, c.shift);
  }
  return sums;
}

// A product id (ProductInfo's <Id>: (arch_major << 12) | product_major) and
// the table its hardware layout uses.
struct gpu_product {
  std::uint32_t product_id = 0;
  std::string_view name;  // the first <Name>
  std::string_view architecture;
  const gpu_table* table = nullptr;
};

// A name a product is known by (any <Name>, or a database key).
struct gpu_alias {
  std::string_view name;
  std::uint32_t product_id = 0;
};

// Header indices never named, indices inside the block, sorted by block then
// strictly ascending index (so no position is named twice).
constexpr bool is_well_formed(const gpu_table& t) {
  if (t.values_per_block != 64 && t.values_per_block != 128) return false;
  for (std::size_t i = 0; i < t.counters.size(); ++i) {
    const hw_counter& c = t.counters[i];
    if (c.id.index < header_counters || c.id.index >= t.values_per_block) return false;
    if (c.name.empty() || c.shift >= 32) return false;
    if (i > 0) {
      const hw_counter& p = t.counters[i - 1];
      if (p.id.block > c.id.block) return false;
      if (p.id.block == c.id.block && p.id.index >= c.id.index) return false;
    }
  }
  // Every Streamline name reads a counter of this layout, by its name (binary
  // search: the order was just checked, and a linear scan per name costs
  // seconds of compile time over thirteen tables).
  for (const streamline_counter& s : t.streamline) {
    std::size_t lo = 0, hi = t.counters.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      const counter_id m = t.counters[mid].id;
      if (m.block < s.id.block || (m.block == s.id.block && m.index < s.id.index)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == t.counters.size() || !(t.counters[lo].id == s.id)) return false;
    if (t.counters[lo].name != s.hw_name) return false;
  }
  return true;
}

}  // namespace hwpc::mali
