// A gzip file built by hand (RFC 1952 member, RFC 1951 stored blocks) with
// its own CRC-32, so gzip tests need no compressor and do not trust zlib to
// check itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace adreno_gz {

inline std::uint32_t crc32(const std::vector<std::byte>& d) {
  std::uint32_t c = 0xffffffffu;
  for (std::byte b : d) {
    c ^= static_cast<std::uint32_t>(b);
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

inline void put(std::vector<std::byte>& o, std::uint32_t v, int n) {
  for (int i = 0; i < n; ++i) o.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}

// One gzip member holding `d` in stored blocks of at most 65535 bytes.
inline std::vector<std::byte> gzip_stored(const std::vector<std::byte>& d) {
  std::vector<std::byte> o;
  put(o, 0x00088b1f, 4);  // 1f 8b, CM 8 (deflate), FLG 0
  put(o, 0, 4);           // MTIME
  put(o, 0xff00, 2);      // XFL 0, OS 255 (unknown)
  std::size_t at = 0;
  do {
    const std::size_t n = d.size() - at < 65535 ? d.size() - at : 65535;
    const bool last = at + n == d.size();
    o.push_back(std::byte{last ? std::uint8_t{1} : std::uint8_t{0}});  // BFINAL, BTYPE 00
    put(o, static_cast<std::uint32_t>(n), 2);
    put(o, static_cast<std::uint32_t>(~n & 0xffff), 2);
    o.insert(o.end(), d.begin() + static_cast<std::ptrdiff_t>(at),
             d.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  } while (at < d.size());
  put(o, crc32(d), 4);
  put(o, static_cast<std::uint32_t>(d.size()), 4);
  return o;
}

}  // namespace adreno_gz
