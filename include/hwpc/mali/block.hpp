// Block types of a Mali (Bifrost) hardware-counter sample and their fixed
// geometry: every block is 64 u32 counters (256 bytes), the first four of
// which are a header rather than events (docs/mali.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hwpc::mali {

// The four kinds of counter block. front_end is the job manager.
enum class block_type : std::uint8_t { front_end, tiler, memory, shader_core };

inline constexpr std::size_t block_type_count = 4;
inline constexpr std::size_t counters_per_block = 64;
inline constexpr std::size_t block_bytes = counters_per_block * 4;
// Counters 0..3 of every block: header words, never events.
inline constexpr std::size_t header_counters = 4;

constexpr std::string_view to_string(block_type t) noexcept {
  switch (t) {
    case block_type::front_end:
      return "front-end";
    case block_type::tiler:
      return "tiler";
    case block_type::memory:
      return "memory";
    case block_type::shader_core:
      return "shader core";
  }
  return "?";
}

// A hardware counter: block type and index within the block.
struct counter_id {
  block_type block{};
  std::uint8_t index = 0;
  friend constexpr bool operator==(counter_id, counter_id) = default;
};

}  // namespace hwpc::mali
