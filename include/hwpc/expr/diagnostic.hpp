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

// The line of text around a 1-based column, with a caret under it. Long
// formulas are windowed so that the caret stays on screen.
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
  for (std::size_t i = begin; i < end; ++i) {
    const char ch = text[i];
    line += (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
  }
  line += suffix;
  return line + "\n  " + std::string(prefix.size() + (pos - begin), ' ') + "^";
}

// The full error: "what" (the static message, the quoted token) and the snippet.
inline error to_error(std::string_view text, const parse_error& e, std::string_view context = {}) {
  std::string msg;
  if (!context.empty()) {
    msg += context;
    msg += ": ";
  }
  // Names and numbers are quoted; syntax messages say what they expected.
  const std::size_t pos = e.column - 1;
  if (pos < text.size() && e.code != errc::syntax) {
    msg += "'";
    msg += text.substr(pos, e.length);
    msg += "': ";
  }
  msg += e.message;
  msg += "\n";
  msg += caret_snippet(text, e.column);
  return error{e.code, e.column, std::move(msg), error_anchor::column};
}

}  // namespace hwpc::expr
