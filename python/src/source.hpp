// What a decode reads (a path, memory-mapped; or any contiguous byte buffer,
// read in place) and how it fails.
//
// A path is opened with the tool's mapped_file (never read whole into
// Python); bytes, a memoryview or a NumPy uint8 array are read through the
// buffer protocol without a copy, the buffer held until the decode ends.
// Failures carry the tool's message (the text after "hwpc decode: ") and
// its anchor, so hwpc.DecodeError has .offset and .column.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/mapped_file.hpp"

namespace hwpc::py {

namespace pyb = pybind11;

// Bad input (the tool's exit status 2), raised as hwpc.DecodeError.
struct decode_failure : std::runtime_error {
  std::optional<std::size_t> offset;  // byte offset into the input
  std::optional<std::size_t> column;  // 1-based formula column
  decode_failure(std::string message, std::optional<std::size_t> off = std::nullopt,
                 std::optional<std::size_t> col = std::nullopt)
      : std::runtime_error(std::move(message)), offset(off), column(col) {}
};

// A usage error (the tool's exit status 1): raised as ValueError.
struct usage_failure : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// "NAME: <what the library says>", anchored as the error is.
[[noreturn]] inline void fail_input(const std::string& name, const error& e) {
  std::optional<std::size_t> off, col;
  if (e.anchor == error_anchor::byte_offset) off = e.offset;
  if (e.anchor == error_anchor::column) col = e.offset;
  throw decode_failure(name.empty() ? e.describe() : name + ": " + e.describe(), off, col);
}

class input_source {
 public:
  // `source`: str / os.PathLike (a file), or an object with the buffer protocol.
  explicit input_source(const pyb::object& source) {
    if (pyb::isinstance<pyb::str>(source) || pyb::hasattr(source, "__fspath__")) {
      name_ = pyb::str(pyb::module_::import("os").attr("fspath")(source));
      auto m = pipeline::mapped_file::open(name_);
      if (!m) {
        // The tool prints the error's message alone here (it names the path).
        const error& e = m.error_value();
        throw decode_failure(e.message, e.anchor == error_anchor::byte_offset
                                            ? std::optional<std::size_t>(e.offset)
                                            : std::nullopt);
      }
      file_.emplace(std::move(*m));
      bytes_ = file_->bytes();
      return;
    }
    if (!pyb::isinstance<pyb::buffer>(source)) {
      throw pyb::type_error(
          "source must be a path, bytes, a memoryview or a NumPy uint8 array, not " +
          std::string(pyb::str(pyb::type::of(source).attr("__name__"))));
    }
    view_ = pyb::reinterpret_borrow<pyb::buffer>(source).request();
    if (view_->itemsize != 1 || view_->ndim > 1 || (view_->ndim == 1 && view_->strides[0] != 1)) {
      throw pyb::type_error("source buffer must be contiguous bytes (itemsize 1, 1-D)");
    }
    name_ = "<buffer>";
    bytes_ =
        byte_span(static_cast<const std::byte*>(view_->ptr), static_cast<std::size_t>(view_->size));
  }

  byte_span bytes() const noexcept { return bytes_; }
  const std::string& name() const noexcept { return name_; }

 private:
  std::string name_;
  std::optional<pipeline::mapped_file> file_;
  std::optional<pyb::buffer_info> view_;
  byte_span bytes_;
};

// Options handed down from Python as a dict: each decode reads the keys it
// knows, so a new option is one key here and one keyword in Python.
class options {
 public:
  explicit options(pyb::dict d) : d_(std::move(d)) {}
  template <class T>
  std::optional<T> get(const char* key) const {
    if (!d_.contains(key)) return std::nullopt;
    pyb::object v = d_[key];
    if (v.is_none()) return std::nullopt;
    return v.cast<T>();
  }
  bool flag(const char* key) const { return get<bool>(key).value_or(false); }
  pyb::object raw(const char* key) const {
    return d_.contains(key) ? pyb::object(d_[key]) : pyb::object(pyb::none());
  }

 private:
  pyb::dict d_;
};

// What the library opens: a path is mapped (an Adreno .rd is streamed from
// it); a buffer is borrowed, kept alive by `keep` until the call returns.
inline capture_source source_of(const pyb::object& source, std::optional<input_source>& keep) {
  if (pyb::isinstance<pyb::str>(source) || pyb::hasattr(source, "__fspath__")) {
    const std::string path = pyb::str(pyb::module_::import("os").attr("fspath")(source));
    auto s = capture_source::map(path);
    if (!s) {
      // The error's message names the path, as the tool prints it.
      const error& e = s.error_value();
      throw decode_failure(e.message, e.anchor == error_anchor::byte_offset
                                          ? std::optional<std::size_t>(e.offset)
                                          : std::nullopt);
    }
    return std::move(*s);
  }
  keep.emplace(source);
  return capture_source::borrow(keep->bytes(), keep->name());
}

}  // namespace hwpc::py
