// Buffered text output for the writers, and the escaping every text format
// needs for strings it did not make itself.
//
// Numbers go through std::to_chars (doubles in the shortest form that reads
// back exactly); the buffer is handed to a std::FILE in 64 KiB pieces, or
// kept in a std::string for callers (and tests) that want the text.
//
// Escaping: a JSON string (RFC 8259 section 7) escapes '"', '\' and every
// control character below 0x20; bytes from 0x20 up, UTF-8 included, pass
// through. A CSV field (RFC 4180 section 2) is enclosed in double quotes when
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
#include <string>
#include <string_view>

#include "hwpc/core/row.hpp"

namespace hwpc::output {

class text_buffer {
 public:
  // Writes to `f` (flushed every 64 KiB and on destruction).
  explicit text_buffer(std::FILE* f) : f_(f) { buf_.reserve(1 << 16); }
  // Keeps the text; str() returns it.
  text_buffer() = default;
  ~text_buffer() { flush(); }
  text_buffer(const text_buffer&) = delete;
  text_buffer& operator=(const text_buffer&) = delete;

  text_buffer& operator<<(std::string_view s) {
    buf_.append(s);
    maybe_flush();
    return *this;
  }
  text_buffer& operator<<(const char* s) { return *this << std::string_view(s); }
  text_buffer& operator<<(char c) {
    buf_.push_back(c);
    return *this;
  }
  text_buffer& operator<<(std::uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
    maybe_flush();
    return *this;
  }
  // The shortest decimal form that reads back as the same double.
  text_buffer& number(double v) {
    char tmp[32];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
    maybe_flush();
    return *this;
  }
  // A JSON string literal (RFC 8259 section 7).
  text_buffer& json_string(std::string_view s) {
    buf_.push_back('"');
    for (char c : s) {
      switch (c) {
        case '"':
          buf_ += "\\\"";
          break;
        case '\\':
          buf_ += "\\\\";
          break;
        case '\n':
          buf_ += "\\n";
          break;
        case '\r':
          buf_ += "\\r";
          break;
        case '\t':
          buf_ += "\\t";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            static constexpr char hex[] = "0123456789abcdef";
            const auto u = static_cast<unsigned char>(c);
            buf_ += "\\u00";
            buf_.push_back(hex[u >> 4]);
            buf_.push_back(hex[u & 15]);
          } else {
            buf_.push_back(c);
          }
      }
    }
    buf_.push_back('"');
    maybe_flush();
    return *this;
  }
  // One CSV field (RFC 4180 section 2): quoted only when it must be.
  text_buffer& csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return *this << s;
    buf_.push_back('"');
    for (char c : s) {
      if (c == '"') buf_.push_back('"');
      buf_.push_back(c);
    }
    buf_.push_back('"');
    maybe_flush();
    return *this;
  }
  // Text for an HTML element or a double-quoted attribute value.
  text_buffer& html(std::string_view s) {
    for (char c : s) {
      switch (c) {
        case '&':
          buf_ += "&amp;";
          break;
        case '<':
          buf_ += "&lt;";
          break;
        case '>':
          buf_ += "&gt;";
          break;
        case '"':
          buf_ += "&quot;";
          break;
        case '\'':
          buf_ += "&#39;";
          break;
        default: {
          const auto u = static_cast<unsigned char>(c);
          if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f) {
            buf_ += "&#xFFFD;";
          } else {
            buf_.push_back(c);
          }
        }
      }
    }
    maybe_flush();
    return *this;
  }
  text_buffer& csv_field_after_comma(std::string_view s) {
    buf_.push_back(',');
    return csv_field(s);
  }
  // A derived value as CSV writes it: empty when none, integers as integers,
  // doubles in shortest round-trip form ("inf", "nan" as std::to_chars spells them).
  text_buffer& csv_cell(cell v) {
    if (v.is_u64()) return *this << v.bits;
    if (v.is_f64()) return number(v.as_double());
    return *this;
  }
  // A derived value as JSON writes it: null when none or not finite.
  text_buffer& json_cell(cell v) {
    if (!v.is_finite_number()) return *this << "null";
    return csv_cell(v);
  }

  void flush() {
    if (f_ != nullptr) {
      if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), f_);
      buf_.clear();
      std::fflush(f_);
    }
  }
  // The text so far (a buffer without a FILE).
  const std::string& str() const noexcept { return buf_; }

 private:
  void maybe_flush() {
    if (f_ != nullptr && buf_.size() >= (1 << 16)) {
      std::fwrite(buf_.data(), 1, buf_.size(), f_);
      buf_.clear();
    }
  }
  std::FILE* f_ = nullptr;
  std::string buf_;
};

// Receives a capture's rows in order; the writers of output/ implement it.
class row_writer {
 public:
  virtual ~row_writer() = default;
  virtual void write(const row& r) = 0;
  // After the last row; `acc` says where every record went.
  virtual void end(const accounting& acc) = 0;
};

}  // namespace hwpc::output
