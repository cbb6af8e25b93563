// The Mali-G72 counter names of the first Mali code, forwarding to the
// generated table (hwpc/mali/gpus/g72.hpp); new code uses a gpu_table:
// gpus::g72.find(name), gpus::g72.name_of(block, index).
//
//   using namespace hwpc::mali;
//   g72_counter_name(block_type::shader_core, 12);   // "FRAG_QUADS_EZS_TEST"
//   find_g72_counter("GPU_ACTIVE")->id;             // {front_end, 6}
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "hwpc/mali/block.hpp"
#include "hwpc/mali/gpus/g72.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali {

// All Mali-G72 hardware counters.
inline constexpr std::span<const hw_counter> g72_counters = gpus::g72.counters;

// The counter with this hardware name, if the G72 has one.
constexpr std::optional<hw_counter> find_g72_counter(std::string_view name) noexcept {
  return gpus::g72.find(name);
}

// The hardware name of a counter; empty for header words and unused indices.
constexpr std::string_view g72_counter_name(block_type block, std::size_t index) noexcept {
  return gpus::g72.name_of(block, index);
}

}  // namespace hwpc::mali
