// Hex dword text as people paste it: the seed's listing ("0000: 70bc8006
// 00000014 ..."), cffdump's dumps, or plain whitespace-separated dwords with or
// without 0x (docs/adreno.md, "Hex text").
//
// Line by line: leading whitespace and one address label (hex digits and a
// colon) are skipped; if the next token is a hex dword the line is data and
// every token on it must be a hex dword (1-8 digits, optional 0x, optional
// trailing comma); otherwise the line is prose (a cffdump or seed annotation)
// and is skipped and counted. Each dword remembers the byte offset of its
// token, so errors and packets can name offsets into the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

struct hex_dwords {
  std::vector<std::byte> bytes;      // the dwords, little-endian
  std::vector<std::size_t> offsets;  // text offset of dword i's token
  std::size_t prose_lines = 0;       // lines skipped as text

  // The text offset for byte offset `b` of `bytes` (the end of the text past the last dword).
  std::size_t text_offset(std::size_t b, std::size_t text_size) const noexcept {
    return b / 4 < offsets.size() ? offsets[b / 4] : text_size;
  }
};

namespace detail {
constexpr int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
// Parses a whole token as a hex dword; false if it is not one.
constexpr bool parse_hex_dword(std::string_view t, std::uint32_t& v) noexcept {
  if (!t.empty() && t.back() == ',') t.remove_suffix(1);
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty() || t.size() > 8) return false;
  v = 0;
  for (char c : t) {
    const int d = hex_digit(c);
    if (d < 0) return false;
    v = v << 4 | static_cast<std::uint32_t>(d);
  }
  return true;
}
constexpr bool is_label(std::string_view t) noexcept {
  if (t.size() < 2 || t.size() > 17 || t.back() != ':') return false;
  for (char c : t.substr(0, t.size() - 1)) {
    if (hex_digit(c) < 0) return false;
  }
  return true;
}
static_assert(is_label("0000:") && !is_label("dst:") && !is_label(":"));
}  // namespace detail

inline result<hex_dwords> parse_hex_text(std::string_view text) {
  hex_dwords out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    // Tokens of this line.
    std::size_t i = pos;
    bool first = true, labelled = false, data = false;
    while (true) {
      while (i < eol && detail::is_space(text[i])) ++i;
      if (i >= eol) break;
      const std::size_t start = i;
      while (i < eol && !detail::is_space(text[i])) ++i;
      const std::string_view tok = text.substr(start, i - start);
      if (first && !labelled && detail::is_label(tok)) {
        labelled = true;
        continue;
      }
      std::uint32_t v = 0;
      if (detail::parse_hex_dword(tok, v)) {
        data = true;
        const std::size_t at = out.bytes.size();
        out.bytes.resize(at + 4);
        store_le32(out.bytes.data() + at, v);
        out.offsets.push_back(start);
      } else if (first && !labelled) {
        ++out.prose_lines;  // annotation text: skip the line
        break;
      } else {
        std::string shown(tok.substr(0, 24));
        for (char& c : shown) {
          if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
            c = '?';
          }
        }
        return make_error(errc::syntax, start,
                          "'" + shown + (tok.size() > 24 ? "...'" : "'") +
                              " is not a hex dword (1-8 hex digits, optional 0x)" +
                              (data || labelled ? " on a line of dwords" : ""));
      }
      first = false;
    }
    pos = eol + 1;
  }
  if (out.bytes.empty()) {
    return make_error(errc::empty_input, 0, "no hex dwords in the text");
  }
  return out;
}

// True when the first 4 KiB hold no control bytes but tabs and line ends
// (UTF-8 prose is text): a binary PM4 stream has small count fields, so
// bytes below 0x20, early on.
inline bool looks_like_text(byte_span data) noexcept {
  const std::size_t n = data.size() < 4096 ? data.size() : 4096;
  if (n == 0) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(data[i]);
    if (c == '\n' || c == '\t' || c == '\r') continue;
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace hwpc::adreno
