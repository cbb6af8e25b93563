// Read-only memory map of an input file.
//
// Captures can be gigabytes; mapping them lets the decoder stream through
// the page cache without a copy, and keeps the tool's memory flat.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::pipeline {

class mapped_file {
 public:
  // Only regular files: a FIFO (or a terminal, a socket) is refused before it
  // is opened, since opening a FIFO with no writer blocks forever. The open
  // itself is non-blocking in case the path is swapped for a FIFO in between,
  // and the descriptor is checked again.
  static result<mapped_file> open(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return io_error(path, "cannot open");
    if (!S_ISREG(st.st_mode)) return not_regular(path, st);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return io_error(path, "cannot open");
    if (::fstat(fd, &st) != 0) {
      auto e = io_error(path, "cannot stat");
      ::close(fd);
      return e;
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return not_regular(path, st);
    }
    mapped_file m;
    m.size_ = static_cast<std::size_t>(st.st_size);
    if (m.size_ > 0) {
      void* p = ::mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        auto e = io_error(path, "cannot map");
        ::close(fd);
        return e;
      }
      ::madvise(p, m.size_, MADV_SEQUENTIAL);
      m.data_ = p;
    }
    ::close(fd);
    return m;
  }

  mapped_file() = default;
  mapped_file(mapped_file&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  mapped_file& operator=(mapped_file&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file() { release(); }

  byte_span bytes() const noexcept { return {static_cast<const std::byte*>(data_), size_}; }

 private:
  static error not_regular(const std::string& path, const struct stat& st) {
    const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return error{errc::io, 0, path + ": " + what + ", not a regular file: give a capture file",
                 error_anchor::none};
  }
  static error io_error(const std::string& path, const char* what) {
    return make_error(errc::io, 0, path + ": " + what + ": " + std::strerror(errno));
  }
  void release() noexcept {
    if (data_ != nullptr) ::munmap(data_, size_);
    data_ = nullptr;
  }
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace hwpc::pipeline
