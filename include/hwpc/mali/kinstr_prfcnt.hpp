// Samples from kbase's current reader, kinstr_prfcnt, as its mmapped buffer
// holds them: per sample a metadata list of 48-byte items (SAMPLE, optional
// CLOCK, one BLOCK per block, NONE) and, for each BLOCK, u64 values at
// `values_offset` bytes from the start of the buffer, as many as the GPU's
// blocks have (64 or 128, from the table). docs/mali.md has the byte layout.
//
//   auto r = hwpc::mali::kinstr_reader::make(gpus::g720, {.l2_slices = 2, .core_mask = 0xff},
//                                            buffer);
//   while (true) {
//     auto s = r->next();                      // result<std::optional<kinstr_sample>>
//     if (!s) fail(s.error_value().describe()); // names the byte offset
//     if (!*s) break;                          // end of the buffer
//     (*s)->meta.timestamp_end; (*s)->sums();
//   }
//
// One sample is decoded at a time (memory bounded by one sample's block list).
// Structure is checked against the chosen GPU: block types, instance indices
// within the configuration, values inside the buffer, 8-byte aligned and not
// overlapping each other or the metadata. A sample from a GPU with 64-value
// blocks read as one with 128 fails this check (its blocks overlap).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali {

namespace kinstr {
// Metadata item types: (list type << 12) | subtype; list type 2 = sample metadata.
inline constexpr std::uint16_t item_none = 0x0000;
inline constexpr std::uint16_t item_sample = 0x2000;
inline constexpr std::uint16_t item_clock = 0x2001;
inline constexpr std::uint16_t item_block = 0x2002;
inline constexpr std::size_t item_bytes = 48;  // u16 type, u16 version, 4 pad, 40-byte union
inline constexpr std::size_t max_clock_domains = 4;
// SAMPLE flags.
inline constexpr std::uint32_t flag_overflow = 1u << 0;
inline constexpr std::uint32_t flag_error = 1u << 30;
// block_state bits; no bit set = unknown.
inline constexpr std::uint32_t state_on = 1u << 0;
inline constexpr std::uint32_t state_off = 1u << 1;
inline constexpr std::uint32_t state_available = 1u << 2;
inline constexpr std::uint32_t state_unavailable = 1u << 3;
inline constexpr std::uint32_t state_normal = 1u << 4;
inline constexpr std::uint32_t state_protected = 1u << 5;
// More blocks than any configuration has (2 + 64 L2 slices + 64 cores, with room).
inline constexpr std::size_t max_blocks_per_sample = 256;

// A block that was off, unavailable or protected during the sample holds no data.
constexpr bool state_has_values(std::uint32_t state) noexcept {
  return (state & (state_off | state_unavailable | state_protected)) == 0;
}

// "on|available|normal", "unknown" for no bits.
inline std::string describe_state(std::uint32_t state) {
  static constexpr const char* names[] = {"on",          "off",    "available",
                                          "unavailable", "normal", "protected"};
  std::string s;
  for (std::size_t i = 0; i < 6; ++i) {
    if ((state >> i) & 1u) s += (s.empty() ? "" : "|") + std::string(names[i]);
  }
  if (state >> 6) s += (s.empty() ? "" : "|") + to_hex(state >> 6 << 6);
  return s.empty() ? "unknown" : s;
}
}  // namespace kinstr

struct kinstr_sample_meta {
  std::uint64_t timestamp_start = 0;  // ns
  std::uint64_t timestamp_end = 0;
  std::uint64_t seq = 0;
  std::uint64_t user_data = 0;
  std::uint32_t flags = 0;  // kinstr::flag_overflow, kinstr::flag_error
};

struct kinstr_block {
  block_type type{};
  std::uint8_t index = 0;  // dense instance index (0.. cores present - 1 for shader cores)
  std::uint32_t state = 0;
  std::size_t values_offset = 0;  // into the buffer, as given
  std::size_t item_offset = 0;    // of its BLOCK item
  bool has_values() const noexcept { return kinstr::state_has_values(state); }
};

class kinstr_sample {
 public:
  std::size_t offset = 0;  // of the SAMPLE item
  kinstr_sample_meta meta;
  std::uint32_t clock_domains = 0;
  std::array<std::uint64_t, kinstr::max_clock_domains> cycles{};
  std::vector<kinstr_block> blocks;  // in metadata order

  // Value i of a block (header words included); 0 for a block without values.
  std::uint64_t value(const kinstr_block& b, std::size_t i) const noexcept {
    if (!b.has_values() || i >= values_per_block_) return 0;
    return load_le64(buffer_.data() + (b.values_offset - base_) + i * 8);
  }
  std::size_t values_per_block() const noexcept { return values_per_block_; }

  // Counters summed over the instances of each block type that have values.
  block_sums sums() const noexcept {
    block_sums out;
    for (const kinstr_block& b : blocks) {
      if (!b.has_values()) continue;
      auto& row = out.values[static_cast<std::size_t>(b.type)];
      for (std::size_t i = header_counters; i < values_per_block_; ++i) row[i] += value(b, i);
    }
    return out;
  }
  // Blocks that yielded no values (off, unavailable or protected).
  std::size_t blocks_without_values() const noexcept {
    return static_cast<std::size_t>(
        std::count_if(blocks.begin(), blocks.end(), [](const auto& b) { return !b.has_values(); }));
  }

 private:
  friend class kinstr_reader;
  std::span<const std::byte> buffer_;
  std::size_t base_ = 0;
  std::size_t values_per_block_ = 0;
};

// How a shader-core BLOCK item numbers its core: dense (0, 1, 2, ... over the
// cores present: the uapi's meaning) or sparse (the core's bit in the core
// mask, as older kbase versions wrote it; libGPUCounters remaps those through
// the mask). Sparse indices are remapped to dense ones on reading.
enum class core_index : std::uint8_t { dense, sparse };

class kinstr_reader {
 public:
  // `buffer` is the mapping (or a copy of it) that values offsets count from;
  // `base` is its offset in the caller's file, added to every error offset
  // and subtracted from nothing else (values offsets stay buffer-relative).
  static result<kinstr_reader> make(const gpu_table& table, const sample_layout& layout,
                                    std::span<const std::byte> buffer, std::size_t base = 0,
                                    core_index cores = core_index::dense) {
    if (auto ok = layout.validate(); !ok) return ok.error_value();
    if (buffer.empty()) return make_error(errc::empty_input, base, "empty kinstr_prfcnt buffer");
    kinstr_reader r(table, layout, buffer, base, cores);
    if (r.all_zero(0)) {
      return make_error(errc::empty_input, base,
                        "the kinstr_prfcnt buffer holds only zero bytes: no sample");
    }
    return r;
  }

  // The reader keeps pointers to the table and the bytes: temporaries would
  // dangle, so they do not compile.
  static result<kinstr_reader> make(gpu_table&&, const sample_layout&, std::span<const std::byte>,
                                    std::size_t = 0, core_index = core_index::dense) = delete;
  static result<kinstr_reader> make(const gpu_table&, const sample_layout&,
                                    std::vector<std::byte>&&, std::size_t = 0,
                                    core_index = core_index::dense) = delete;

  const gpu_table& table() const noexcept { return *table_; }
  const sample_layout& layout() const noexcept { return layout_; }

  // The next sample, nothing at the end of the buffer (or where only zero
  // bytes remain: unused buffer space), or an error naming the offset. After
  // an error, next() keeps returning it.
  result<std::optional<kinstr_sample>> next() {
    if (failed_) return *failed_;
    if (pos_ >= buf_.size() || all_zero(pos_)) return std::optional<kinstr_sample>{};
    auto s = parse_at(pos_);
    if (!s) {
      failed_ = s.error_value();
      return *failed_;
    }
    pos_ = end_;
    prev_end_ = s->meta.timestamp_end;
    return std::optional<kinstr_sample>(std::move(*s));
  }

 private:
  kinstr_reader(const gpu_table& t, const sample_layout& l, std::span<const std::byte> b,
                std::size_t base, core_index cores)
      : table_(&t), layout_(l), buf_(b), base_(base), cores_(cores) {}

  bool all_zero(std::size_t from) const noexcept {
    return std::all_of(buf_.begin() + static_cast<std::ptrdiff_t>(from), buf_.end(),
                       [](std::byte x) { return x == std::byte{0}; });
  }
  error fail(errc code, std::size_t at, std::string msg) const {
    return make_error(code, base_ + at, std::move(msg));
  }
  std::size_t instances(block_type t) const noexcept {
    switch (t) {
      case block_type::front_end:
      case block_type::tiler:
        return 1;
      case block_type::memory:
        return layout_.l2_slices;
      case block_type::shader_core:
        return layout_.shader_core_count();
    }
    return 0;
  }

  result<kinstr_sample> parse_at(std::size_t start) {
    kinstr_sample s;
    s.offset = base_ + start;
    s.buffer_ = buf_;
    s.base_ = 0;
    s.values_per_block_ = table_->values_per_block;
    const std::size_t block_span = std::size_t{table_->values_per_block} * 8;
    const std::string gpu(table_->key);
    bool have_clock = false;
    std::size_t at = start;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;  // values offset, item offset
    for (std::size_t n = 0;; ++n, at += kinstr::item_bytes) {
      if (at % 8 != 0) return fail(errc::misaligned, at, "metadata item not 8-byte aligned");
      if (buf_.size() - at < kinstr::item_bytes) {
        return fail(errc::truncated, at,
                    "metadata item " + std::to_string(n) + " of the sample at offset " +
                        std::to_string(base_ + start) + " needs 48 bytes, " +
                        std::to_string(buf_.size() - at) + " remain");
      }
      const std::byte* p = buf_.data() + at;
      const std::uint16_t type = load_le16(p);
      const std::byte* u = p + 8;
      if (n == 0 && type != kinstr::item_sample) {
        return fail(errc::unknown_format, at,
                    "a sample starts with a SAMPLE item (0x2000), not " + to_hex(type));
      }
      if (type == kinstr::item_none) break;
      if (n + 1 > kinstr::max_blocks_per_sample + 2) {
        return fail(
            errc::oversized, at,
            "more than " + std::to_string(kinstr::max_blocks_per_sample) + " blocks in one sample");
      }
      if (type == kinstr::item_sample) {
        if (n != 0) return fail(errc::inconsistent, at, "second SAMPLE item in one sample");
        s.meta.timestamp_start = load_le64(u);
        s.meta.timestamp_end = load_le64(u + 8);
        s.meta.seq = load_le64(u + 16);
        s.meta.user_data = load_le64(u + 24);
        s.meta.flags = load_le32(u + 32);
        if (s.meta.timestamp_end < s.meta.timestamp_start) {
          return fail(errc::inconsistent, at,
                      "sample ends (" + std::to_string(s.meta.timestamp_end) +
                          " ns) before it starts (" + std::to_string(s.meta.timestamp_start) +
                          " ns)");
        }
        // Time runs forwards across samples too (each starts where the dump
        // before it left off, or later), as vinstr dumps must (vinstr.hpp).
        if (prev_end_ && s.meta.timestamp_start < *prev_end_) {
          return fail(errc::inconsistent, at,
                      "sample starts (" + std::to_string(s.meta.timestamp_start) +
                          " ns) before the previous sample ends (" + std::to_string(*prev_end_) +
                          " ns)");
        }
      } else if (type == kinstr::item_clock) {
        if (have_clock) return fail(errc::inconsistent, at, "second CLOCK item in one sample");
        have_clock = true;
        s.clock_domains = load_le32(u);
        if (s.clock_domains > kinstr::max_clock_domains) {
          return fail(errc::out_of_range, at,
                      std::to_string(s.clock_domains) + " clock domains (at most 4)");
        }
        for (std::size_t d = 0; d < s.clock_domains; ++d) s.cycles[d] = load_le64(u + 8 + 8 * d);
      } else if (type == kinstr::item_block) {
        auto b = parse_block(at, u, gpu, block_span);
        if (!b) return b.error_value();
        for (const kinstr_block& other : s.blocks) {
          if (other.type == b->type && other.index == b->index) {
            return fail(errc::inconsistent, at,
                        "second " + std::string(to_string(b->type)) + " block " +
                            std::to_string(b->index) + " (first at offset " +
                            std::to_string(base_ + other.item_offset) + ")");
          }
        }
        ranges.emplace_back(b->values_offset, at);
        s.blocks.push_back(*b);
      } else {
        return fail(errc::unknown_format, at,
                    "unknown metadata item type " + to_hex(type) + " in a sample");
      }
    }
    const std::size_t meta_end = at + kinstr::item_bytes;
    // Values follow the sample's metadata list (samples are read in sequence,
    // docs/mali.md) and do not overlap each other.
    std::sort(ranges.begin(), ranges.end());
    std::size_t end = meta_end;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const auto [v, item] = ranges[i];
      if (v < start) {
        return fail(errc::inconsistent, item,
                    "block values at offset " + std::to_string(v) +
                        " lie before their sample (which starts at " + std::to_string(start) + ")");
      }
      if (v < meta_end) {
        return fail(errc::inconsistent, item,
                    "block values at offset " + std::to_string(v) +
                        " overlap the sample's metadata (offsets " + std::to_string(start) + ".." +
                        std::to_string(meta_end - 1) + ")");
      }
      if (i > 0 && ranges[i - 1].first + block_span > v) {
        return fail(errc::inconsistent, item,
                    "block values at offset " + std::to_string(v) + " overlap the block at " +
                        std::to_string(ranges[i - 1].first) + ": " + gpu + " blocks hold " +
                        std::to_string(table_->values_per_block) +
                        " u64 values; is the capture from another GPU?");
      }
      end = std::max(end, v + block_span);
    }
    end_ = end;
    return s;
  }

  result<kinstr_block> parse_block(std::size_t at, const std::byte* u, const std::string& gpu,
                                   std::size_t block_span) const {
    const auto raw_type = static_cast<std::uint8_t>(u[0]);
    const auto index = static_cast<std::uint8_t>(u[1]);
    const auto set = static_cast<std::uint8_t>(u[2]);
    if (raw_type >= block_type_count) {
      return fail(errc::unknown_format, at,
                  "block type " + std::to_string(raw_type) +
                      (raw_type == 4 || raw_type == 5 ? " (CSF firmware block)" : "") +
                      ": the counter tables name front-end, tiler, memory and shader-core "
                      "blocks only");
    }
    if (set != 0) {
      return fail(errc::unknown_format, at,
                  "counter set " + std::to_string(set) +
                      ": the counter tables name the primary set (0) only");
    }
    kinstr_block b;
    b.type = static_cast<block_type>(raw_type);
    b.index = index;
    b.state = load_le32(u + 4);
    b.values_offset = load_le32(u + 8);
    b.item_offset = at;
    if (b.type == block_type::shader_core && cores_ == core_index::sparse) {
      if (!layout_.has_core(index)) {
        return fail(errc::inconsistent, at,
                    "shader core block at core-mask bit " + std::to_string(index) +
                        ", which is clear in core mask " + to_hex(layout_.core_mask));
      }
      const std::uint64_t below = index == 0 ? 0 : layout_.core_mask & (~0ull >> (64 - index));
      b.index = static_cast<std::uint8_t>(std::popcount(below));  // then checked as dense
    }
    if (b.index >= instances(b.type)) {
      return fail(errc::inconsistent, at,
                  std::string(to_string(b.type)) + " block " + std::to_string(index) + ", but " +
                      gpu + " configured with " + std::to_string(layout_.l2_slices) +
                      " L2 slice(s) and core mask " + to_hex(layout_.core_mask) + " has " +
                      std::to_string(instances(b.type)));
    }
    if (b.values_offset % 8 != 0) {
      return fail(errc::misaligned, at,
                  "values offset " + std::to_string(b.values_offset) + " is not 8-byte aligned");
    }
    if (b.values_offset > buf_.size() || buf_.size() - b.values_offset < block_span) {
      return fail(errc::truncated, at,
                  std::string(to_string(b.type)) + " block " + std::to_string(index) + ": its " +
                      std::to_string(table_->values_per_block) + " u64 values at offset " +
                      std::to_string(b.values_offset) + " run past the end of the buffer (" +
                      std::to_string(buf_.size()) + " bytes)");
    }
    return b;
  }

  const gpu_table* table_;
  sample_layout layout_;
  std::span<const std::byte> buf_;
  std::size_t base_;
  core_index cores_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::optional<error> failed_;
  std::optional<std::uint64_t> prev_end_;  // the last sample's timestamp_end
};

}  // namespace hwpc::mali
