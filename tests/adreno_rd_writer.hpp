// Test-side encoders for Adreno input, written independently of the decoder:
// PM4 headers with their own parity computation, and freedreno .rd sections
// (u32 type, u32 size, payload) as msm_rd.c lays them out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace adreno_rd {

// 1 when `x` has an even number of set bits (counted bit by bit).
inline std::uint32_t parity_bit(std::uint32_t x) {
  unsigned n = 0;
  for (; x != 0; x >>= 1) n += x & 1;
  return n % 2 == 0 ? 1 : 0;
}
inline std::uint32_t pkt7(std::uint32_t opcode, std::uint32_t count) {
  return (7u << 28) | (parity_bit(opcode) << 23) | (opcode << 16) | (parity_bit(count) << 15) |
         count;
}
inline std::uint32_t pkt4(std::uint32_t reg, std::uint32_t count) {
  return (4u << 28) | (parity_bit(reg) << 27) | (reg << 8) | (parity_bit(count) << 7) | count;
}

using dwords = std::vector<std::uint32_t>;

inline void put32(std::vector<std::byte>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}

// An .rd file under construction.
struct writer {
  std::vector<std::byte> bytes;
  // Android libwrap's dialect (FACTS-live section 6.1): two 0xffffffff dwords
  // before each section, the size rounded up to 4 and the payload zero-filled.
  bool libwrap = false;

  // Returns the offset of the section header (after the markers).
  std::size_t section(std::uint32_t type, const std::vector<std::byte>& payload) {
    std::size_t size = payload.size();
    if (libwrap) {
      put32(bytes, 0xffffffffu);
      put32(bytes, 0xffffffffu);
      size = (size + 3) & ~std::size_t{3};
    }
    const std::size_t at = bytes.size();
    put32(bytes, type);
    put32(bytes, static_cast<std::uint32_t>(size));
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    bytes.resize(at + 8 + size, std::byte{0});
    return at;
  }
  std::size_t text(std::uint32_t type, std::string_view t) {
    std::vector<std::byte> p;
    for (const char c : t) p.push_back(static_cast<std::byte>(c));
    return section(type, p);
  }
  std::size_t words(std::uint32_t type, const dwords& d) {
    std::vector<std::byte> p;
    for (auto v : d) put32(p, v);
    return section(type, p);
  }
  std::size_t gpu_id(std::uint32_t id) { return words(13, {id}); }
  // RD_CHIP_ID: a u64, low dword first.
  std::size_t chip_id(std::uint64_t id) {
    return words(14, {static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(id >> 32)});
  }
  // 12-byte form {lo, size, hi}, or the old 8-byte {lo, size} when `old`.
  std::size_t gpuaddr(std::uint64_t iova, std::uint32_t size_bytes, bool old = false) {
    if (old) return words(3, {static_cast<std::uint32_t>(iova), size_bytes});
    return words(
        3, {static_cast<std::uint32_t>(iova), size_bytes, static_cast<std::uint32_t>(iova >> 32)});
  }
  std::size_t contents(const dwords& d) { return words(12, d); }
  // GPUADDR + BUFFER_CONTENTS; returns the file offset of the contents.
  std::size_t buffer(std::uint64_t iova, const dwords& d) {
    gpuaddr(iova, static_cast<std::uint32_t>(4 * d.size()));
    return contents(d) + 8;
  }
  std::size_t cmdstream(std::uint64_t iova, std::uint32_t size_dwords) {
    return words(
        6, {static_cast<std::uint32_t>(iova), size_dwords, static_cast<std::uint32_t>(iova >> 32)});
  }
};

// CP_INDIRECT_BUFFER (0x3f) to `iova`, `n` dwords.
inline dwords ib(std::uint64_t iova, std::uint32_t n, std::uint32_t opcode = 0x3f) {
  return {pkt7(opcode, 3), static_cast<std::uint32_t>(iova), static_cast<std::uint32_t>(iova >> 32),
          n};
}

inline dwords cat(std::initializer_list<dwords> parts) {
  dwords out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace adreno_rd
