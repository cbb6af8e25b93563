// One Mali (Bifrost) hardware-counter sample as the kernel driver's vinstr
// interface dumps it (the non-v4 layout): a list of 256-byte blocks of 64
// little-endian u32 counters,
//
//   block 0                 front-end (job manager)
//   block 1                 tiler
//   blocks 2 .. 2+S-1       memory (L2), one per L2 slice (S slices)
//   blocks 2+S .. 2+S+B-1   shader cores: core n at block 2+S+n for every bit n
//                           of the core mask; B is the position of the highest
//                           set bit plus one, so absent cores leave gaps
//
// The sample does not describe itself: the number of L2 slices and the core
// mask come from the GPU the sample was taken on.
//
//   hwpc::mali::sample_layout layout{.l2_slices = 1, .core_mask = 0b1011};
//   auto s = hwpc::mali::sample::parse(layout, bytes);   // zero-copy views
//   if (!s) fail(s.error_value().describe());             // names the byte offset
//   s->shader_core(3)->counter(12);                       // one core's counter
//   hwpc::mali::block_sums t = s->sums();                 // summed per block type
//   t[{hwpc::mali::block_type::shader_core, 12}];
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/block.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali {

// Most L2 slices a layout may declare (keeps sizes far from overflow).
inline constexpr std::uint32_t max_l2_slices = 64;

struct sample_layout {
  std::uint32_t l2_slices = 1;
  std::uint64_t core_mask = 1;

  // Shader-core block positions, gaps included.
  constexpr std::size_t core_blocks() const noexcept {
    return static_cast<std::size_t>(std::bit_width(core_mask));
  }
  constexpr std::size_t shader_core_count() const noexcept {
    return static_cast<std::size_t>(std::popcount(core_mask));
  }
  constexpr std::size_t block_count() const noexcept { return 2 + l2_slices + core_blocks(); }
  constexpr std::size_t size_bytes() const noexcept { return block_count() * block_bytes; }

  constexpr std::size_t tiler_offset() const noexcept { return block_bytes; }
  constexpr std::size_t memory_offset(std::size_t slice) const noexcept {
    return (2 + slice) * block_bytes;
  }
  constexpr std::size_t core_offset(std::size_t bit) const noexcept {
    return (2 + l2_slices + bit) * block_bytes;
  }
  constexpr bool has_core(std::size_t bit) const noexcept {
    return bit < 64 && ((core_mask >> bit) & 1u) != 0;
  }

  // "front-end", "tiler", "memory 1", "shader core 3", "gap (core 2 absent)".
  std::string describe_block(std::size_t position) const {
    if (position == 0) return "front-end";
    if (position == 1) return "tiler";
    if (position < 2 + std::size_t{l2_slices}) return "memory " + std::to_string(position - 2);
    const std::size_t bit = position - 2 - l2_slices;
    if (has_core(bit)) return "shader core " + std::to_string(bit);
    return "gap (core " + std::to_string(bit) + " absent)";
  }

  // A layout needs at least one L2 slice and one shader core.
  result<void> validate() const {
    if (l2_slices == 0) {
      return error{errc::inconsistent, 0, "layout has no L2 slice", error_anchor::none};
    }
    if (l2_slices > max_l2_slices) {
      return error{
          errc::out_of_range, 0,
          std::to_string(l2_slices) + " L2 slices (at most " + std::to_string(max_l2_slices) + ")",
          error_anchor::none};
    }
    if (core_mask == 0) {
      return error{errc::inconsistent, 0, "core mask has no shader core", error_anchor::none};
    }
    return {};
  }
};

// One block of a sample, pointing into the sample's bytes.
class block_view {
 public:
  constexpr block_view(block_type type, std::uint32_t instance, std::size_t offset,
                       std::span<const std::byte, block_bytes> bytes) noexcept
      : bytes_(bytes), offset_(offset), instance_(instance), type_(type) {}

  constexpr block_type type() const noexcept { return type_; }
  // L2 slice number for memory blocks, core-mask bit for shader cores, else 0.
  constexpr std::uint32_t instance() const noexcept { return instance_; }
  // Byte offset of the block within the sample.
  constexpr std::size_t offset() const noexcept { return offset_; }
  constexpr std::span<const std::byte, block_bytes> bytes() const noexcept { return bytes_; }

  // Counter i (0..63); 0..3 are header words.
  constexpr std::uint32_t counter(std::size_t i) const noexcept {
    return load_le32(bytes_.data() + i * 4);
  }
  constexpr std::uint32_t operator[](std::size_t i) const noexcept { return counter(i); }

 private:
  std::span<const std::byte, block_bytes> bytes_;
  std::size_t offset_;
  std::uint32_t instance_;
  block_type type_;
};

class sample {
 public:
  // Checks the layout and the size, in this order: the layout itself
  // (anchor none), empty input, a size that is not a whole number of blocks
  // (misaligned, at the start of the partial block), fewer blocks than the
  // layout needs (truncated, at the first missing block), more blocks
  // (oversized, at the first byte past the layout). The bytes must outlive the
  // sample.
  static result<sample> parse(const sample_layout& layout, std::span<const std::byte> data) {
    if (auto ok = layout.validate(); !ok) return ok.error_value();
    const std::size_t need = layout.size_bytes();
    const std::string shape = "layout with " + std::to_string(layout.l2_slices) +
                              " L2 slice(s) and core mask " + to_hex(layout.core_mask) + " needs " +
                              std::to_string(need) + " bytes";
    if (data.empty()) return make_error(errc::empty_input, 0, "empty sample; " + shape);
    if (const std::size_t partial = data.size() % block_bytes; partial != 0) {
      const std::size_t at = data.size() - partial;
      return make_error(errc::misaligned, at,
                        "sample of " + std::to_string(data.size()) +
                            " bytes is not a whole number of 256-byte blocks: the block at "
                            "offset " +
                            std::to_string(at) + " has " + std::to_string(partial) + " bytes");
    }
    if (data.size() < need) {
      const std::size_t at = data.size();
      return make_error(errc::truncated, at,
                        "the " + layout.describe_block(at / block_bytes) + " block is missing (" +
                            std::to_string(data.size()) + " bytes; " + shape + ")");
    }
    if (data.size() > need) {
      return make_error(
          errc::oversized, need,
          std::to_string(data.size() - need) + " bytes past the last block (" + shape + ")");
    }
    return sample(layout, data);
  }

  // A sample views the caller's bytes: a temporary vector would dangle.
  static result<sample> parse(const sample_layout&, std::vector<std::byte>&&) = delete;

  const sample_layout& layout() const noexcept { return layout_; }
  std::span<const std::byte> bytes() const noexcept { return data_; }

  block_view front_end() const noexcept { return view(block_type::front_end, 0, 0); }
  block_view tiler() const noexcept { return view(block_type::tiler, 0, layout_.tiler_offset()); }
  // L2 slice `slice` (< layout().l2_slices), or nothing.
  std::optional<block_view> memory(std::size_t slice) const noexcept {
    if (slice >= layout_.l2_slices) return std::nullopt;
    return view(block_type::memory, static_cast<std::uint32_t>(slice),
                layout_.memory_offset(slice));
  }
  // The shader core of core-mask bit `bit`, or nothing when the bit is clear.
  std::optional<block_view> shader_core(std::size_t bit) const noexcept {
    if (!layout_.has_core(bit)) return std::nullopt;
    return view(block_type::shader_core, static_cast<std::uint32_t>(bit), layout_.core_offset(bit));
  }

  // Calls f(block_view) for every present block in sample order (gaps skipped).
  template <class F>
  void for_each_block(F&& f) const {
    f(front_end());
    f(tiler());
    for (std::size_t i = 0; i < layout_.l2_slices; ++i) f(*memory(i));
    for (std::size_t bit = 0; bit < layout_.core_blocks(); ++bit) {
      if (auto c = shader_core(bit)) f(*c);
    }
  }

  // One counter summed over every instance of its block type (0 for headers).
  std::uint64_t sum(counter_id id) const noexcept {
    if (id.index < header_counters || id.index >= counters_per_block) return 0;
    std::uint64_t total = 0;
    for_each_block([&](const block_view& b) {
      if (b.type() == id.block) total += b.counter(id.index);
    });
    return total;
  }

  // Every counter summed per block type.
  block_sums sums() const noexcept {
    block_sums out;
    for_each_block([&](const block_view& b) {
      auto& row = out.values[static_cast<std::size_t>(b.type())];
      for (std::size_t i = header_counters; i < counters_per_block; ++i) row[i] += b.counter(i);
    });
    return out;
  }

 private:
  sample(const sample_layout& layout, std::span<const std::byte> data)
      : layout_(layout), data_(data) {}

  block_view view(block_type t, std::uint32_t instance, std::size_t offset) const noexcept {
    return block_view(t, instance, offset, data_.subspan(offset).first<block_bytes>());
  }

  sample_layout layout_;
  std::span<const std::byte> data_;
};

}  // namespace hwpc::mali
