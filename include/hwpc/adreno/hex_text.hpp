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

// Reads the dwords of hex text one at a time, in constant memory (for
// inputs too large to hold their dwords: `hwpc adreno` on a listing of a
// gigabyte). The state is a few positions, so a copy is a bookmark to resume
// from (hex_offset_index keeps them).
class hex_reader {
 public:
  explicit hex_reader(std::string_view text) noexcept : text_(text) {}

  // The next dword and the text offset of its token: true, false at the end
  // of the text, or a syntax error at the offending token.
  result<bool> next(std::uint32_t& value, std::size_t& at) {
    while (true) {
      if (!in_line_) {
        if (pos_ >= text_.size()) return false;
        eol_ = text_.find('\n', pos_);
        if (eol_ == std::string_view::npos) eol_ = text_.size();
        in_line_ = true;
        first_ = true;
        labelled_ = data_ = false;
      }
      while (pos_ < eol_ && detail::is_space(text_[pos_])) ++pos_;
      if (pos_ >= eol_) {
        end_line();
        continue;
      }
      const std::size_t start = pos_;
      while (pos_ < eol_ && !detail::is_space(text_[pos_])) ++pos_;
      const std::string_view tok = text_.substr(start, pos_ - start);
      if (first_ && !labelled_ && detail::is_label(tok)) {
        labelled_ = true;
        continue;
      }
      if (detail::parse_hex_dword(tok, value)) {
        data_ = true;
        first_ = false;
        at = start;
        return true;
      }
      if (first_ && !labelled_) {
        ++prose_lines_;  // annotation text: skip the line
        end_line();
        continue;
      }
      std::string shown(tok.substr(0, 24));
      for (char& c : shown) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
          c = '?';
        }
      }
      return make_error(errc::syntax, start,
                        "'" + shown + (tok.size() > 24 ? "...'" : "'") +
                            " is not a hex dword (1-8 hex digits, optional 0x)" +
                            (data_ || labelled_ ? " on a line of dwords" : ""));
    }
  }

  std::size_t prose_lines() const noexcept { return prose_lines_; }

 private:
  void end_line() noexcept {
    pos_ = eol_ + 1;
    in_line_ = false;
  }

  std::string_view text_;
  std::size_t pos_ = 0, eol_ = 0;
  bool in_line_ = false, first_ = true, labelled_ = false, data_ = false;
  std::size_t prose_lines_ = 0;
};

inline result<hex_dwords> parse_hex_text(std::string_view text) {
  hex_dwords out;
  hex_reader r(text);
  std::uint32_t v = 0;
  std::size_t at = 0;
  while (true) {
    auto more = r.next(v, at);
    if (!more) return more.error_value();
    if (!*more) break;
    const std::size_t b = out.bytes.size();
    out.bytes.resize(b + 4);
    store_le32(out.bytes.data() + b, v);
    out.offsets.push_back(at);
  }
  out.prose_lines = r.prose_lines();
  if (out.bytes.empty()) {
    return make_error(errc::empty_input, 0, "no hex dwords in the text");
  }
  return out;
}

// The text offset of every dword of hex text without a table per dword: a
// bookmark (a hex_reader copy) every `stride` dwords, and a few cursors that
// move forwards, so lookups in increasing order (packets, events, issues,
// each in stream order) re-read each line about once per cursor. Memory is
// one bookmark per stride dwords: under 100 KiB for a gigabyte of text.
class hex_offset_index {
 public:
  static constexpr std::size_t stride = std::size_t{1} << 16;

  // Reads the whole text once: the syntax check (errors as parse_hex_text)
  // and the bookmarks. Returns the number of dwords.
  result<std::size_t> build(std::string_view text) {
    text_ = text;
    marks_.clear();
    hex_reader r(text);
    std::uint32_t v = 0;
    std::size_t at = 0;
    for (count_ = 0;; ++count_) {
      if (count_ % stride == 0) marks_.push_back(r);
      auto more = r.next(v, at);
      if (!more) return more.error_value();
      if (!*more) break;
    }
    prose_lines_ = r.prose_lines();
    if (count_ == 0) return make_error(errc::empty_input, 0, "no hex dwords in the text");
    return count_;
  }
  std::size_t dwords() const noexcept { return count_; }
  std::size_t prose_lines() const noexcept { return prose_lines_; }

  // The text offset for byte offset `b` of the dwords (the end of the text
  // past the last dword), like hex_dwords::text_offset.
  std::size_t text_offset(std::size_t b) {
    const std::size_t i = b / 4;
    if (i >= count_) return text_.size();
    // The cursor nearest below i, else a fresh one from the bookmark (replacing
    // the cursor used longest ago).
    cursor* best = nullptr;
    for (cursor& c : cursors_) {
      if (c.valid && c.index <= i + 1 && (!best || c.index > best->index)) best = &c;
    }
    const std::size_t mark = i / stride * stride;
    if (!best || best->index < mark) {
      best = &cursors_[0];
      for (cursor& c : cursors_) {
        if (!c.valid || c.used < best->used) best = &c;
      }
      *best = cursor{marks_[i / stride], mark, 0, 0, true};
    }
    best->used = ++clock_;
    std::uint32_t v = 0;
    while (best->index <= i) {
      (void)best->reader.next(v, best->at);  // checked by build()
      ++best->index;
    }
    return best->at;
  }

 private:
  struct cursor {
    hex_reader reader{std::string_view{}};
    std::size_t index = 0;  // dwords read
    std::size_t at = 0;     // offset of dword index - 1
    std::uint64_t used = 0;
    bool valid = false;
  };
  std::string_view text_;
  std::vector<hex_reader> marks_;
  std::size_t count_ = 0, prose_lines_ = 0;
  cursor cursors_[4];
  std::uint64_t clock_ = 0;
};

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
