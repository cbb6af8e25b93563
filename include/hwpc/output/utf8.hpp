// UTF-8 for every string an output takes from input.
//
// Names from metric files, units, reasons and titles are bytes: pugixml and
// the binary readers do not check their encoding. Every format the writers
// produce is text in UTF-8 (JSON: RFC 8259 section 8.1; HTML: the page says
// charset=utf-8; Perfetto: protobuf `string` fields), so an invalid sequence
// is replaced by U+FFFD (EF BF BD) on its way out, never copied raw.
//
// The rule is the Unicode Standard's "substitution of maximal subparts"
// (chapter 3, U+FFFD Substitution of Maximal Subparts; the same as the WHATWG
// Encoding Standard's UTF-8 decoder): one U+FFFD for each maximal prefix of a
// well-formed sequence (Table 3-7) that stops short, and one for each byte
// that cannot start one. Overlong forms, surrogates (ED A0..BF) and code
// points above U+10FFFF are not well-formed. Valid text passes unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hwpc::output {

// The sequence at s[i]: `length` bytes, well-formed or not. When not,
// `length` is the maximal subpart (at least 1) that one U+FFFD replaces.
struct utf8_step {
  std::size_t length;
  bool valid;
};

inline constexpr std::string_view utf8_replacement = "\xEF\xBF\xBD";

// Bytes out for one byte in, at worst: an invalid byte becomes U+FFFD.
inline constexpr std::size_t utf8_max_growth = utf8_replacement.size();

constexpr utf8_step utf8_next(std::string_view s, std::size_t i) noexcept {
  const auto u = static_cast<unsigned char>(s[i]);
  if (u < 0x80) return {1, true};
  // Table 3-7: the trail bytes after a lead, the first with its own range.
  std::size_t trail = 0;
  unsigned lo = 0x80;
  unsigned hi = 0xbf;
  if (u >= 0xc2 && u <= 0xdf) {
    trail = 1;
  } else if (u == 0xe0) {
    trail = 2;
    lo = 0xa0;
  } else if (u == 0xed) {
    trail = 2;
    hi = 0x9f;
  } else if (u >= 0xe1 && u <= 0xef) {
    trail = 2;
  } else if (u == 0xf0) {
    trail = 3;
    lo = 0x90;
  } else if (u == 0xf4) {
    trail = 3;
    hi = 0x8f;
  } else if (u >= 0xf1 && u <= 0xf3) {
    trail = 3;
  } else {
    return {1, false};  // 80..C1, F5..FF: never a lead byte
  }
  for (std::size_t k = 1; k <= trail; ++k) {
    if (i + k >= s.size()) return {k, false};
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < lo || b > hi) return {k, false};
    lo = 0x80;
    hi = 0xbf;
  }
  return {trail + 1, true};
}

constexpr bool is_valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const utf8_step st = utf8_next(s, i);
    if (!st.valid) return false;
    i += st.length;
  }
  return true;
}

// `s` with every invalid sequence replaced by U+FFFD.
inline std::string to_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const utf8_step st = utf8_next(s, i);
    if (st.valid) {
      out.append(s.substr(i, st.length));
    } else {
      out.append(utf8_replacement);
    }
    i += st.length;
  }
  return out;
}

}  // namespace hwpc::output
