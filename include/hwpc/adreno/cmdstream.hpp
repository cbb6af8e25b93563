// Walks a buffer of little-endian dwords as a stream of PM4 packets.
//
// Zero-copy: each packet's payload is a view into the caller's buffer. Every
// step consumes at least the 4-byte header, so a walk always terminates; a
// bad header or a payload running past the end stops it with an error that
// names the header's byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "hwpc/adreno/pm4.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

struct packet {
  header hdr{};
  std::size_t offset = 0;  // byte offset of the header in the stream
  byte_span payload{};     // hdr.count dwords, little-endian

  bool is_op(std::uint32_t opcode) const noexcept {
    return hdr.type == packet_type::type7 && hdr.id == opcode;
  }
  bool is_reg_write(std::uint32_t r) const noexcept {
    return hdr.type == packet_type::type4 && hdr.id == r;
  }
  std::size_t size_bytes() const noexcept { return 4 + payload.size(); }
  // Payload dword i (0-based, after the header). Precondition: i < hdr.count.
  std::uint32_t dword(std::size_t i) const noexcept { return load_le32(payload.data() + 4 * i); }
  // Two payload dwords i (low) and i + 1 (high) as one 64-bit value.
  std::uint64_t qword(std::size_t i) const noexcept {
    return std::uint64_t{dword(i)} | std::uint64_t{dword(i + 1)} << 32;
  }
};

class packet_cursor {
 public:
  explicit packet_cursor(byte_span data) noexcept : data_(data) {}
  // The cursor views the caller's bytes: a temporary vector would dangle.
  explicit packet_cursor(std::vector<std::byte>&&) = delete;

  // True once every byte was consumed or an error was returned.
  bool done() const noexcept { return failed_ || pos_ >= data_.size(); }
  std::size_t offset() const noexcept { return pos_; }

  // The next packet, or an error naming the byte offset of the offending header.
  // After an error the cursor is done.
  result<packet> next() {
    const std::size_t remain = data_.size() - pos_;
    if (remain < 4) {
      failed_ = true;
      return make_error(errc::truncated, pos_,
                        "PM4 header needs 4 bytes, " + std::to_string(remain) + " remain");
    }
    auto h = parse_header(load_le32(data_.data() + pos_), pos_);
    if (!h) {
      failed_ = true;
      return h.error_value();
    }
    const std::size_t need = std::size_t{h->count} * 4;
    if (need > remain - 4) {
      failed_ = true;
      return make_error(errc::truncated, pos_,
                        "packet needs " + std::to_string(h->count) + " payload dwords, " +
                            std::to_string((remain - 4) / 4) + " remain");
    }
    packet p{*h, pos_, data_.subspan(pos_ + 4, need)};
    pos_ += 4 + need;
    return p;
  }

 private:
  byte_span data_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

// Every packet of a stream, or the first error.
inline result<std::vector<packet>> read_packets(byte_span data) {
  std::vector<packet> out;
  packet_cursor c(data);
  while (!c.done()) {
    auto p = c.next();
    if (!p) return p.error_value();
    out.push_back(*p);
  }
  return out;
}
// The packets' payloads view the bytes: not from a temporary vector.
result<std::vector<packet>> read_packets(std::vector<std::byte>&&) = delete;

// Appends little-endian dwords to a byte buffer (for building streams).
inline void append_dwords(std::vector<std::byte>& out, std::initializer_list<std::uint32_t> dws) {
  for (std::uint32_t d : dws) {
    const std::size_t at = out.size();
    out.resize(at + 4);
    store_le32(out.data() + at, d);
  }
}

}  // namespace hwpc::adreno
