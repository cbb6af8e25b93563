// Buffered text output for the tool: integers through std::to_chars and one
// fwrite per 64 KiB, so printing millions of CSV cells stays cheap.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace hwpc::cli {

class out_buffer {
 public:
  explicit out_buffer(std::FILE* f) : f_(f) { buf_.reserve(1 << 16); }
  ~out_buffer() { flush(); }
  out_buffer(const out_buffer&) = delete;
  out_buffer& operator=(const out_buffer&) = delete;

  out_buffer& operator<<(std::string_view s) {
    buf_.append(s);
    maybe_flush();
    return *this;
  }
  out_buffer& operator<<(char c) {
    buf_.push_back(c);
    return *this;
  }
  out_buffer& operator<<(std::uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
    maybe_flush();
    return *this;
  }
  // A JSON string literal with the escapes JSON requires.
  out_buffer& json_string(std::string_view s) {
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
        case '\t':
          buf_ += "\\t";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char tmp[8];
            std::snprintf(tmp, sizeof tmp, "\\u%04x",
                          static_cast<unsigned>(static_cast<unsigned char>(c)));
            buf_ += tmp;
          } else {
            buf_.push_back(c);
          }
      }
    }
    buf_.push_back('"');
    maybe_flush();
    return *this;
  }
  void flush() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), f_);
    buf_.clear();
    std::fflush(f_);
  }

 private:
  void maybe_flush() {
    if (buf_.size() >= (1 << 16)) {
      std::fwrite(buf_.data(), 1, buf_.size(), f_);
      buf_.clear();
    }
  }
  std::FILE* f_;
  std::string buf_;
};

}  // namespace hwpc::cli
