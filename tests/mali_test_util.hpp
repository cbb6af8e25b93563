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
