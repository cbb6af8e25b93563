// Formula errors: a compact, constexpr-friendly form used while parsing, and
// its conversion to hwpc::error with the column and a caret snippet:
//
//   syntax error at column 33: ')' has no matching '('
//     max(min($A / $B) * 100, 100), 0)
//                                     ^
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "hwpc/core/error.hpp"

namespace hwpc::expr {

struct parse_error {
  errc code = errc::syntax;
  std::uint32_t column = 1;  // 1-based, counted in bytes from the start of the text
  std::uint32_t length = 1;  // of the offending token, for quoting it
  std::string_view message;  // static text
};

// "the formula is fine" or the first error found.
struct parse_status {
  bool ok = true;
  parse_error error{};
  constexpr explicit operator bool() const noexcept { return ok; }
};

constexpr parse_status fail(errc code, std::size_t pos, std::size_t length,
                            std::string_view message) noexcept {
  return {false,
          {code, static_cast<std::uint32_t>(pos + 1),
           static_cast<std::uint32_t>(length == 0 ? 1 : length), message}};
}

// Formula text is echoed into messages that end up on a terminal, so a byte
// that is not printable ASCII is written as \xHH (an ESC or BEL from a metric
// file cannot drive the terminal) and tabs and line breaks as a space.
inline void append_visible(std::string& out, char ch) {
  const auto u = static_cast<unsigned char>(ch);
  if (ch == '\n' || ch == '\r' || ch == '\t') {
    out += ' ';
  } else if (u < 0x20 || u >= 0x7f) {
    constexpr char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[u >> 4];
    out += hex[u & 15];
  } else {
    out += ch;
  }
}

// Quoted names are cut to this many bytes (then "..."), so a 100k-character
// name gives a message of bounded size.
inline constexpr std::size_t max_quoted_bytes = 64;

// The caller's context (a metric's set and symbol names) is cut longer.
inline constexpr std::size_t max_context_bytes = 200;

inline std::string visible_excerpt(std::string_view s, std::size_t max_bytes = max_quoted_bytes) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max_bytes; ++i) append_visible(out, s[i]);
  if (s.size() > max_bytes) out += "...";
  return out;
}

// The line of text around a 1-based column, with a caret under it. Long
// formulas are windowed so that the caret stays on screen; escaped bytes
// widen the line and the caret moves with them.
inline std::string caret_snippet(std::string_view text, std::size_t column) {
  constexpr std::size_t window = 72;
  std::size_t pos = column == 0 ? 0 : column - 1;
  if (pos > text.size()) pos = text.size();
  std::size_t begin = 0, end = text.size();
  std::string prefix, suffix;
  if (text.size() > window) {
    begin = pos > window / 2 ? pos - window / 2 : 0;
    end = begin + window < text.size() ? begin + window : text.size();
    if (begin > 0) prefix = "...";
    if (end < text.size()) suffix = "...";
  }
  std::string line = "  " + prefix;
  std::size_t caret = line.size();
  for (std::size_t i = begin; i < end; ++i) {
    if (i == pos) caret = line.size();
    append_visible(line, text[i]);
  }
  if (pos >= end) caret = line.size();
  line += suffix;
  return line + "\n" + std::string(caret, ' ') + "^";
}

// The full error: "what" (the static message, the quoted token) and the snippet.
inline error to_error(std::string_view text, const parse_error& e, std::string_view context = {}) {
  std::string msg;
  if (!context.empty()) {
    msg += visible_excerpt(context, max_context_bytes);
    msg += ": ";
  }
  // Names and numbers are quoted; syntax messages say what they expected.
  const std::size_t pos = e.column - 1;
  if (pos < text.size() && e.code != errc::syntax) {
    msg += "'";
    msg += visible_excerpt(text.substr(pos, e.length));
    msg += "': ";
  }
  msg += e.message;
  msg += "\n";
  msg += caret_snippet(text, e.column);
  return error{e.code, e.column, std::move(msg), error_anchor::column};
}

}  // namespace hwpc::expr
