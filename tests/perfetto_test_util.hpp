// A protobuf reader for the Perfetto tests, written apart from the encoder
// (output/perfetto/proto_writer.hpp) so that each checks the other: it
// walks the wire format and collects the fields of the trace's packets.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace hwpc::testing::pb {

struct field {
  std::uint32_t number = 0;
  std::uint32_t wire = 0;
  std::uint64_t v = 0;     // varint and fixed64 payloads
  std::string_view bytes;  // length-delimited payloads
};

// Reads every field of one message; fails the test on malformed input.
inline std::vector<field> fields(std::string_view m) {
  std::vector<field> out;
  std::size_t i = 0;
  auto varint = [&](std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= m.size()) return false;
      const auto b = static_cast<std::uint8_t>(m[i++]);
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  while (i < m.size()) {
    std::uint64_t k = 0;
    if (!varint(k)) {
      ADD_FAILURE() << "bad key at " << i;
      return out;
    }
    field f{static_cast<std::uint32_t>(k >> 3), static_cast<std::uint32_t>(k & 7), 0, {}};
    if (f.wire == 0) {
      if (!varint(f.v)) ADD_FAILURE() << "bad varint at " << i;
    } else if (f.wire == 1) {
      if (i + 8 > m.size()) {
        ADD_FAILURE() << "short fixed64 at " << i;
        return out;
      }
      std::memcpy(&f.v, m.data() + i, 8);  // little-endian hosts only, as the tests run
      i += 8;
    } else if (f.wire == 2) {
      std::uint64_t n = 0;
      if (!varint(n) || n > m.size() - i) {
        ADD_FAILURE() << "bad length at " << i;
        return out;
      }
      f.bytes = m.substr(i, n);
      i += n;
    } else {
      ADD_FAILURE() << "unexpected wire type " << f.wire << " at " << i;
      return out;
    }
    out.push_back(f);
  }
  return out;
}

inline const field* find(const std::vector<field>& fs, std::uint32_t number) {
  for (const field& f : fs) {
    if (f.number == number) return &f;
  }
  return nullptr;
}

}  // namespace hwpc::testing::pb
