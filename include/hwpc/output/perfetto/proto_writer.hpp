// A small protocol-buffers encoder: enough of the wire format to write a
// Perfetto trace without a protobuf library.
//
// Wire format (protobuf encoding guide): a field is a key, the varint
// (field_number << 3 | wire_type), followed by its payload. Wire types used
// here: 0 varint (base-128, least significant group first, high bit set on
// every byte but the last), 1 fixed64 (8 bytes little-endian: fixed64 and
// double), 2 length-delimited (a varint byte count, then the bytes: strings
// and nested messages). Negative int64 values are varints of their two's
// complement (ten bytes); sint64 uses zigzag ((n << 1) ^ (n >> 63)).
//
// A nested message's length is not known until it is written, so begin()
// reserves `length_bytes` (4) bytes and end() backfills them with a
// redundant varint (0x80-continued groups padded out to four bytes), which
// every conforming parser accepts. That bounds one nested message to
// 2^28 - 1 bytes; end() reports an overflow rather than write a wrong length.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "hwpc/output/utf8.hpp"

namespace hwpc::output::proto {

using output::is_valid_utf8;
using output::to_valid_utf8;

enum class wire_type : std::uint8_t { varint = 0, fixed64 = 1, length_delimited = 2 };

inline constexpr std::size_t length_bytes = 4;
inline constexpr std::uint64_t max_nested_length = (std::uint64_t{1} << (7 * length_bytes)) - 1;

constexpr std::uint64_t zigzag(std::int64_t n) noexcept {
  return (static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63);
}

// Appends protobuf fields to a byte string.
class writer {
 public:
  // Where a nested message's reserved length sits.
  struct nested {
    std::size_t at;
  };

  void raw_varint(std::uint64_t v) {
    // One append per varint: byte-wise push_back is most of the writer's time.
    char tmp[10];
    std::size_t n = 0;
    while (v >= 0x80) {
      tmp[n++] = static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    tmp[n++] = static_cast<char>(v);
    buf_.append(tmp, n);
  }
  void key(std::uint32_t field, wire_type t) {
    raw_varint((std::uint64_t{field} << 3) | static_cast<std::uint64_t>(t));
  }
  // uint32/uint64/bool/enum fields, and int64 through its two's complement.
  void varint(std::uint32_t field, std::uint64_t v) {
    key(field, wire_type::varint);
    raw_varint(v);
  }
  void int64(std::uint32_t field, std::int64_t v) { varint(field, static_cast<std::uint64_t>(v)); }
  void sint64(std::uint32_t field, std::int64_t v) { varint(field, zigzag(v)); }
  void fixed64(std::uint32_t field, std::uint64_t v) {
    key(field, wire_type::fixed64);
    char tmp[8];
    for (int i = 0; i < 8; ++i) tmp[i] = static_cast<char>(v >> (8 * i));
    buf_.append(tmp, 8);
  }
  void double_(std::uint32_t field, double v) { fixed64(field, std::bit_cast<std::uint64_t>(v)); }
  void bytes(std::uint32_t field, std::string_view s) {
    key(field, wire_type::length_delimited);
    raw_varint(s.size());
    buf_.append(s);
  }
  // A `string` field holds UTF-8 (protobuf language guide, scalar types): an
  // invalid sequence from input becomes U+FFFD (output/utf8.hpp).
  void string(std::uint32_t field, std::string_view s) {
    if (is_valid_utf8(s)) {
      bytes(field, s);
    } else {
      bytes(field, to_valid_utf8(s));
    }
  }

  // Opens a nested message; every field until end() belongs to it.
  nested begin(std::uint32_t field) {
    key(field, wire_type::length_delimited);
    const nested n{buf_.size()};
    buf_.append(length_bytes, '\0');
    return n;
  }
  void end(nested n) {
    const std::uint64_t len = buf_.size() - n.at - length_bytes;
    if (len > max_nested_length) {
      throw std::length_error("protobuf nested message longer than 2^28 - 1 bytes");
    }
    for (std::size_t i = 0; i < length_bytes; ++i) {
      const auto group = static_cast<std::uint8_t>((len >> (7 * i)) & 0x7f);
      buf_[n.at + i] = static_cast<char>(i + 1 < length_bytes ? group | 0x80 : group);
    }
  }

  const std::string& data() const noexcept { return buf_; }
  std::size_t size() const noexcept { return buf_.size(); }
  void clear() noexcept { buf_.clear(); }

 private:
  std::string buf_;
};

}  // namespace hwpc::output::proto
