// Buffered text output for the writers, and the escaping every text format
// needs for strings it did not make itself.
//
// Numbers go through std::to_chars (doubles in the shortest form that reads
// back exactly); the buffer is handed to a std::FILE in 64 KiB pieces, or
// kept in a std::string for callers (and tests) that want the text.
//
// Escaping: every string comes out as valid UTF-8, an invalid sequence
// replaced by U+FFFD (utf8.hpp), whatever the format. A JSON string (RFC 8259
// section 7) escapes '"', '\' and every control character below 0x20; other
// characters pass through. A CSV field (RFC 4180 section 2) is enclosed in double quotes when
// it holds a comma, a double quote, CR or LF, and a double quote inside is
// written twice. HTML text and attribute values (WHATWG HTML, "Escaping a
// string"; the page always quotes attributes with '"') take & < > " ' as
// character references, so one function serves both contexts; C0 controls
// other than tab, LF and CR, and DEL, are parse errors in HTML and become
// U+FFFD. Names from metric files and reason strings take these paths, so a
// hostile name cannot add keys, columns or elements.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/output/utf8.hpp"

namespace hwpc::output {

class text_buffer {
 public:
  // Writes to `f` (flushed every 64 KiB and on destruction).
  explicit text_buffer(std::FILE* f) : f_(f) { buf_.resize(flush_at + 1024); }
  // Keeps the text; str() returns it.
  text_buffer() = default;
  ~text_buffer() { flush(); }
  text_buffer(const text_buffer&) = delete;
  text_buffer& operator=(const text_buffer&) = delete;

  text_buffer& operator<<(std::string_view s) {
    char* p = reserve(s.size());
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return commit(p + s.size());
  }
  text_buffer& operator<<(const char* s) { return *this << std::string_view(s); }
  text_buffer& operator<<(char c) {
    char* p = reserve(1);
    *p = c;
    return commit(p + 1);
  }
  text_buffer& operator<<(std::uint64_t v) {
    char* p = reserve(max_u64_chars);
    return commit(put_u64(p, v));
  }
  // The shortest decimal form that reads back as the same double.
  text_buffer& number(double v) {
    char* p = reserve(max_f64_chars);
    return commit(put_f64(p, v));
  }
  // A JSON string literal (RFC 8259 section 7).
  text_buffer& json_string(std::string_view s) {
    char* p = reserve(6 * s.size() + 2);  // "\u00XX" is the longest escape
    *p++ = '"';
    p = put_utf8(p, s, [](char* q, char c) {
      switch (c) {
        case '"':
          return put(q, "\\\"");
        case '\\':
          return put(q, "\\\\");
        case '\n':
          return put(q, "\\n");
        case '\r':
          return put(q, "\\r");
        case '\t':
          return put(q, "\\t");
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            static constexpr char hex[] = "0123456789abcdef";
            const auto u = static_cast<unsigned char>(c);
            q = put(q, "\\u00");
            *q++ = hex[u >> 4];
            *q++ = hex[u & 15];
          } else {
            *q++ = c;
          }
          return q;
      }
    });
    *p++ = '"';
    return commit(p);
  }
  // One CSV field (RFC 4180 section 2): quoted only when it must be.
  text_buffer& csv_field(std::string_view s) {
    char* p = reserve(csv_field_room(s.size()));
    return commit(put_csv_field(p, s));
  }
  // Text for an HTML element or a double-quoted attribute value.
  text_buffer& html(std::string_view s) {
    char* p = reserve(8 * s.size());  // "&#xFFFD;" is the longest replacement
    p = put_utf8(p, s, [](char* q, char c) {
      switch (c) {
        case '&':
          return put(q, "&amp;");
        case '<':
          return put(q, "&lt;");
        case '>':
          return put(q, "&gt;");
        case '"':
          return put(q, "&quot;");
        case '\'':
          return put(q, "&#39;");
        default:
          if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
            return put(q, "&#xFFFD;");
          }
          *q++ = c;
          return q;
      }
    });
    return commit(p);
  }
  text_buffer& csv_field_after_comma(std::string_view s) {
    char* p = reserve(csv_field_room(s.size()) + 1);
    *p++ = ',';
    return commit(put_csv_field(p, s));
  }
  // A derived value as CSV writes it: empty when none, integers as integers,
  // doubles in shortest round-trip form ("inf", "nan" as std::to_chars spells them).
  text_buffer& csv_cell(cell v) {
    char* p = reserve(max_cell_chars);
    return commit(put_csv_cell(p, v));
  }
  // A derived value as JSON writes it: null when none or not finite.
  text_buffer& json_cell(cell v) {
    if (!v.is_finite_number()) return *this << "null";
    return csv_cell(v);
  }

  // Room for `n` more characters, written from the returned pointer on and
  // made part of the text by commit(end). The writers that print many
  // numbers per row ask once for a row's worst case, so each number is one
  // std::to_chars into the buffer with no bounds check or copy of its own.
  char* reserve(std::size_t n) {
    if (buf_.size() - used_ < n) grow(n);
    return buf_.data() + used_;
  }
  text_buffer& commit(char* end) {
    used_ = static_cast<std::size_t>(end - buf_.data());
    if (f_ != nullptr && used_ >= flush_at) write_out();
    return *this;
  }
  // The longest text of one number: a u64 has 20 digits, the shortest
  // round-trip double at most 24 characters ("-2.2250738585072014e-308").
  static constexpr std::size_t max_u64_chars = 20;
  static constexpr std::size_t max_f64_chars = 32;
  static constexpr std::size_t max_cell_chars = 32;
  static char* put_u64(char* p, std::uint64_t v) noexcept {
    return std::to_chars(p, p + max_u64_chars, v).ptr;
  }
  static char* put_f64(char* p, double v) noexcept {
    return std::to_chars(p, p + max_f64_chars, v).ptr;
  }
  static char* put_csv_cell(char* p, cell v) noexcept {
    if (v.is_u64()) return put_u64(p, v.bits);
    if (v.is_f64()) return put_f64(p, v.as_double());
    return p;
  }
  // The room put_csv_field needs for `n` bytes: each doubled quote or
  // U+FFFD for an invalid byte, and the enclosing quotes.
  static constexpr std::size_t csv_field_room(std::size_t n) noexcept {
    return utf8_max_growth * n + 2;
  }
  static char* put_csv_field(char* p, std::string_view s) noexcept {
    const bool quote = s.find_first_of(",\"\r\n") != std::string_view::npos;
    if (!quote && is_valid_utf8(s)) {
      if (!s.empty()) std::memcpy(p, s.data(), s.size());
      return p + s.size();
    }
    if (quote) *p++ = '"';
    p = put_utf8(p, s, [](char* q, char c) {
      if (c == '"') *q++ = '"';
      *q++ = c;
      return q;
    });
    if (quote) *p++ = '"';
    return p;
  }

  void flush() {
    if (f_ != nullptr) {
      write_out();
      std::fflush(f_);
    }
  }
  // The text so far (a buffer without a FILE).
  const std::string& str() const {
    buf_.resize(used_);  // the room past the text goes; reserve() grows it again
    return buf_;
  }

 private:
  static constexpr std::size_t flush_at = 1 << 16;
  template <std::size_t N>
  static char* put(char* p, const char (&lit)[N]) noexcept {
    std::memcpy(p, lit, N - 1);
    return p + (N - 1);
  }
  // `s` as valid UTF-8 (utf8.hpp): each ASCII byte through `ascii(p, c)`
  // (the format's escaping), each well-formed sequence copied, each invalid
  // one replaced by U+FFFD. The one path every escape takes.
  template <class Ascii>
  static char* put_utf8(char* p, std::string_view s, Ascii ascii) noexcept {
    for (std::size_t i = 0; i < s.size();) {
      if (static_cast<unsigned char>(s[i]) < 0x80) {
        p = ascii(p, s[i++]);
        continue;
      }
      const utf8_step st = utf8_next(s, i);
      if (st.valid) {
        std::memcpy(p, s.data() + i, st.length);
        p += st.length;
      } else {
        std::memcpy(p, utf8_replacement.data(), utf8_replacement.size());
        p += utf8_replacement.size();
      }
      i += st.length;
    }
    return p;
  }
  void write_out() {
    if (used_ != 0) std::fwrite(buf_.data(), 1, used_, f_);
    used_ = 0;
  }
  void grow(std::size_t n) {
    if (f_ != nullptr) {
      write_out();
      if (buf_.size() >= n) return;
    }
    std::size_t want = buf_.size() < 256 ? 256 : 2 * buf_.size();
    if (want < used_ + n) want = used_ + n;
    buf_.resize(want);
  }
  std::FILE* f_ = nullptr;
  // Characters [0, used_) are the text; the rest is room to write into.
  mutable std::string buf_;
  std::size_t used_ = 0;
};

// The writers of output/ implement the row contract's receiver (core/row_writer.hpp).
using hwpc::row_writer;

}  // namespace hwpc::output
