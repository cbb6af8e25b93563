// Hand-built Mali hardware-counter samples for the tests: bytes written one by
// one, little-endian, at the positions docs/mali.md describes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/mali/sample.hpp"

namespace mali_test {

struct sample_bytes {
  hwpc::mali::sample_layout layout;
  std::vector<std::byte> bytes;

  explicit sample_bytes(hwpc::mali::sample_layout l) : layout(l), bytes(l.size_bytes()) {}

  // Counter `index` of the block at `position` (0 front-end, 1 tiler, ...).
  void put(std::size_t position, std::size_t index, std::uint32_t v) {
    const std::size_t at = position * 256 + index * 4;
    bytes.at(at + 0) = std::byte(v & 0xff);
    bytes.at(at + 1) = std::byte((v >> 8) & 0xff);
    bytes.at(at + 2) = std::byte((v >> 16) & 0xff);
    bytes.at(at + 3) = std::byte((v >> 24) & 0xff);
  }
  void front_end(std::size_t index, std::uint32_t v) { put(0, index, v); }
  void tiler(std::size_t index, std::uint32_t v) { put(1, index, v); }
  void memory(std::size_t slice, std::size_t index, std::uint32_t v) { put(2 + slice, index, v); }
  void core(std::size_t bit, std::size_t index, std::uint32_t v) {
    put(2 + layout.l2_slices + bit, index, v);
  }
  // Every counter of a block, headers included.
  void fill(std::size_t position, std::uint32_t v) {
    for (std::size_t i = 0; i < 64; ++i) put(position, i, v);
  }
};

}  // namespace mali_test

namespace mali_test {

// Little-endian writers into a growing buffer; the tests' own packing code
// (FACTS-mali.md section 5), never the decoder's.
inline void put_le(std::vector<std::byte>& b, std::size_t at, std::uint64_t v, std::size_t n) {
  if (b.size() < at + n) b.resize(at + n);
  for (std::size_t i = 0; i < n; ++i) b[at + i] = std::byte(i < 8 ? (v >> (8 * i)) & 0xff : 0);
}

// A kinstr_prfcnt buffer written sample by sample: each sample's metadata list
// (48-byte items: u16 type, u16 version, 4 bytes pad, the union), then its
// blocks' u64 values, `values_per_block` per block, in item order.
struct kinstr_block_spec {
  std::uint8_t type = 0, index = 0, set = 0;
  std::uint32_t state = 0x15;         // on | available | normal
  std::vector<std::uint64_t> values;  // index -> value; shorter than the block: zeros
};
struct kinstr_sample_spec {
  std::uint64_t ts_start = 0, ts_end = 0, seq = 0, user_data = 0;
  std::uint32_t flags = 0;
  std::vector<std::uint64_t> cycles;  // empty: no CLOCK item
  std::vector<kinstr_block_spec> blocks;
};

struct kinstr_buffer {
  std::size_t values_per_block;
  std::vector<std::byte> bytes;
  std::vector<std::size_t> sample_offsets, block_item_offsets, values_offsets;

  explicit kinstr_buffer(std::size_t vpb) : values_per_block(vpb) {}

  void item_header(std::size_t at, std::uint16_t type) {
    put_le(bytes, at, type, 2);
    put_le(bytes, at + 2, 0, 2);  // item_version
    put_le(bytes, at + 4, 0, 4);  // padding
    put_le(bytes, at + 8, 0, 40);
  }
  void add(const kinstr_sample_spec& s) {
    std::size_t at = bytes.size();
    sample_offsets.push_back(at);
    item_header(at, 0x2000);
    put_le(bytes, at + 8, s.ts_start, 8);
    put_le(bytes, at + 16, s.ts_end, 8);
    put_le(bytes, at + 24, s.seq, 8);
    put_le(bytes, at + 32, s.user_data, 8);
    put_le(bytes, at + 40, s.flags, 4);
    at += 48;
    if (!s.cycles.empty()) {
      item_header(at, 0x2001);
      put_le(bytes, at + 8, s.cycles.size(), 4);
      for (std::size_t d = 0; d < s.cycles.size(); ++d)
        put_le(bytes, at + 16 + 8 * d, s.cycles[d], 8);
      at += 48;
    }
    const std::size_t values_start = at + 48 * (s.blocks.size() + 1);
    for (std::size_t i = 0; i < s.blocks.size(); ++i) {
      const auto& b = s.blocks[i];
      const std::size_t vo = values_start + i * values_per_block * 8;
      item_header(at, 0x2002);
      bytes[at + 8] = std::byte(b.type);
      bytes[at + 9] = std::byte(b.index);
      bytes[at + 10] = std::byte(b.set);
      put_le(bytes, at + 12, b.state, 4);
      put_le(bytes, at + 16, vo, 4);
      block_item_offsets.push_back(at);
      values_offsets.push_back(vo);
      at += 48;
    }
    item_header(at, 0x0000);  // NONE ends the list
    for (std::size_t i = 0; i < s.blocks.size(); ++i) {
      const std::size_t vo = values_start + i * values_per_block * 8;
      put_le(bytes, vo, 0, values_per_block * 8);
      for (std::size_t k = 0; k < s.blocks[i].values.size(); ++k) {
        put_le(bytes, vo + 8 * k, s.blocks[i].values[k], 8);
      }
    }
  }
};

}  // namespace mali_test
