// The system-call seam of live capture: every call the live readers make to
// the kernel (open, close, ioctl, read, poll, mmap, munmap, and reads of
// sysfs/procfs files) goes through a `syscalls` object, so a simulated kernel
// (live/sim/) can stand in for the real one in tests, the way
// libGPUCounters' device layer takes its syscall interface as a parameter
// (FACTS-live section 5.2). `real_kernel()` is the default: plain POSIX calls,
// no other dependency.
//
// Every call returns a sys_result: `value` (the kernel's return: a byte
// count, an fd, an ioctl's result) and `err` (errno when the call failed,
// else 0). EINTR is retried here, so callers never see it.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace hwpc::live {

struct sys_result {
  long value = 0;
  int err = 0;  // errno of a failed call; 0 on success
  bool ok() const noexcept { return err == 0; }
};

class syscalls {
 public:
  virtual ~syscalls() = default;
  virtual sys_result open(const char* path, int flags) = 0;
  virtual sys_result close(int fd) = 0;
  virtual sys_result ioctl(int fd, unsigned long request, void* arg) = 0;
  virtual sys_result read(int fd, void* buf, std::size_t n) = 0;
  // value: 1 when `events` are ready (revents set), 0 on timeout.
  virtual sys_result poll(int fd, short events, int timeout_ms, short& revents) = 0;
  // value: the mapping's address as an integer.
  virtual sys_result mmap(std::size_t length, int prot, int flags, int fd, long offset) = 0;
  virtual sys_result munmap(void* addr, std::size_t length) = 0;

  // A small sysfs/procfs file (a sysctl, a device id), through open/read/close
  // of this seam; nothing when it cannot be opened or read.
  std::optional<std::string> read_file(const std::string& path) {
    const sys_result fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (!fd.ok()) return std::nullopt;
    std::string text;
    char buf[512];
    for (;;) {
      const sys_result n = read(static_cast<int>(fd.value), buf, sizeof buf);
      if (!n.ok()) {
        close(static_cast<int>(fd.value));
        return std::nullopt;
      }
      if (n.value == 0 || text.size() > 65536) break;  // sysfs files are small
      text.append(buf, static_cast<std::size_t>(n.value));
    }
    close(static_cast<int>(fd.value));
    return text;
  }
};

// The kernel itself.
class kernel_syscalls final : public syscalls {
 public:
  sys_result open(const char* path, int flags) override {
    return retry([&] { return static_cast<long>(::open(path, flags)); });
  }
  sys_result close(int fd) override {
    // close is not retried on EINTR: the fd is gone either way.
    const int r = ::close(fd);
    return r < 0 ? sys_result{-1, errno} : sys_result{};
  }
  sys_result ioctl(int fd, unsigned long request, void* arg) override {
    return retry([&] { return static_cast<long>(::ioctl(fd, request, arg)); });
  }
  sys_result read(int fd, void* buf, std::size_t n) override {
    return retry([&] { return static_cast<long>(::read(fd, buf, n)); });
  }
  sys_result poll(int fd, short events, int timeout_ms, short& revents) override {
    pollfd p{fd, events, 0};
    const sys_result r = retry([&] { return static_cast<long>(::poll(&p, 1, timeout_ms)); });
    revents = p.revents;
    return r;
  }
  sys_result mmap(std::size_t length, int prot, int flags, int fd, long offset) override {
    void* p = ::mmap(nullptr, length, prot, flags, fd, offset);
    if (p == MAP_FAILED) return {-1, errno};
    return {static_cast<long>(reinterpret_cast<std::intptr_t>(p)), 0};
  }
  sys_result munmap(void* addr, std::size_t length) override {
    return ::munmap(addr, length) < 0 ? sys_result{-1, errno} : sys_result{};
  }

 private:
  template <class F>
  static sys_result retry(F call) {
    for (;;) {
      const long r = call();
      if (r >= 0) return {r, 0};
      if (errno != EINTR) return {-1, errno};
    }
  }
};

inline syscalls& real_kernel() {
  static kernel_syscalls k;
  return k;
}

// Closes an fd of a seam when it goes out of scope.
class unique_fd {
 public:
  unique_fd() = default;
  unique_fd(syscalls& s, int fd) noexcept : sys_(&s), fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : sys_(o.sys_), fd_(o.release()) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) {
      reset();
      sys_ = o.sys_;
      fd_ = o.release();
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset() noexcept {
    if (fd_ >= 0 && sys_ != nullptr) sys_->close(fd_);
    fd_ = -1;
  }

 private:
  syscalls* sys_ = nullptr;
  int fd_ = -1;
};

}  // namespace hwpc::live
