// Errors as values.
//
// Decoding untrusted captures must never abort or throw through a profiler's
// hot loop, so every fallible operation returns hwpc::result<T>: either a
// value or an hwpc::error that says what went wrong and where (a byte offset
// into the input, or a 1-based column for formulas).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace hwpc {

enum class errc : std::uint8_t {
  empty_input,     // nothing to decode
  truncated,       // fewer bytes than a complete item needs
  misaligned,      // length or pointer not a multiple of the item size
  oversized,       // larger than the format or container allows
  inconsistent,    // fields contradict each other (pointers, sizes, types)
  unknown_format,  // no such report format / platform / record type
  syntax,          // formula text does not parse
  unknown_name,    // formula refers to a name that is not bound
  out_of_range,    // a number or index outside what is representable
  io,              // the operating system refused (open, map, read)
  // The caller's options, not the input: options that cannot go together, a
  // missing one the input does not supply, one that contradicts the input.
  // The doors tell it apart by this code (the tool's exit status 1 rather
  // than 2, Python's ValueError rather than hwpc.DecodeError).
  usage,
};

constexpr std::string_view to_string(errc e) noexcept {
  switch (e) {
    case errc::empty_input:
      return "empty input";
    case errc::truncated:
      return "truncated";
    case errc::misaligned:
      return "misaligned";
    case errc::oversized:
      return "oversized";
    case errc::inconsistent:
      return "inconsistent";
    case errc::unknown_format:
      return "unknown format";
    case errc::syntax:
      return "syntax error";
    case errc::unknown_name:
      return "unknown name";
    case errc::out_of_range:
      return "out of range";
    case errc::io:
      return "i/o error";
    case errc::usage:
      return "usage";
  }
  return "error";
}

// Where an error is anchored: a byte offset into binary input, or a 1-based
// column into formula text.
enum class error_anchor : std::uint8_t { byte_offset, column, none };

struct error {
  errc code{};
  std::size_t offset = 0;  // byte offset, or 1-based column when anchor == column
  std::string message;
  error_anchor anchor = error_anchor::byte_offset;

  // "truncated at byte offset 192: ..." — the form the command-line tool prints.
  std::string describe() const {
    std::string s(to_string(code));
    if (anchor == error_anchor::byte_offset) {
      s += " at byte offset " + std::to_string(offset);
    } else if (anchor == error_anchor::column) {
      s += " at column " + std::to_string(offset);
    }
    if (!message.empty()) {
      s += ": ";
      s += message;
    }
    return s;
  }
};

inline error make_error(errc code, std::size_t offset, std::string message) {
  return error{code, offset, std::move(message), error_anchor::byte_offset};
}

// A usage error: anchored nowhere; its message is the whole text a door prints.
inline error usage_error(std::string message) {
  return error{errc::usage, 0, std::move(message), error_anchor::none};
}
inline bool is_usage(const error& e) noexcept { return e.code == errc::usage; }

// A minimal std::expected stand-in (C++20 has none).
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  result(error e) : v_(std::in_place_index<1>, std::move(e)) {}      // NOLINT

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const error& error_value() const& { return std::get<1>(v_); }

 private:
  std::variant<T, error> v_;
};

// result<void>: success or an error.
template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(error e) : e_(std::move(e)), ok_(false) {}  // NOLINT
  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const error& error_value() const& { return e_; }

 private:
  error e_{};
  bool ok_ = true;
};

}  // namespace hwpc
