// Hexadecimal text for error messages (register values, addresses, headers).
#pragma once

#include <cstdint>
#include <string>

namespace hwpc {

// "0x1f": lowercase digits, without leading zeros, or zero-padded to `width`
// digits when `width` is given.
inline std::string to_hex(std::uint64_t v, unsigned width = 0) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  if (s.size() < width) s.insert(s.begin(), width - s.size(), '0');
  return "0x" + s;
}

}  // namespace hwpc
