// A simulated kernel behind the live seam (sys.hpp): a table of open files,
// each a `node` that answers ioctl/read/poll/mmap as its driver would, device
// nodes registered by path, and small text files (sysfs, procfs). The
// drivers are in sim/i915.hpp and sim/kbase.hpp; tests use this directly and
// the preload shim (src/shim/) puts it behind libc's calls.
//
// fds: by default numbered from 1000 up; the shim supplies its own source
// (real placeholder fds) so simulated fds never collide with real ones.
#pragma once

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hwpc/live/sys.hpp"

namespace hwpc::live::sim {

class kernel;

// An open file of the simulated kernel.
class node {
 public:
  virtual ~node() = default;
  virtual sys_result ioctl(kernel&, unsigned long, void*) { return {-1, ENOTTY}; }
  virtual sys_result read(void*, std::size_t) { return {-1, EINVAL}; }
  // The poll events ready now.
  virtual short ready() { return 0; }
  virtual sys_result mmap(std::size_t, int, int, long) { return {-1, ENODEV}; }
};

// A read-only text file.
class file_node final : public node {
 public:
  explicit file_node(std::string text) : text_(std::move(text)) {}
  sys_result read(void* buf, std::size_t n) override {
    const std::size_t k = std::min(n, text_.size() - pos_);
    std::memcpy(buf, text_.data() + pos_, k);
    pos_ += k;
    return {static_cast<long>(k), 0};
  }
  short ready() override { return POLLIN; }

 private:
  std::string text_;
  std::size_t pos_ = 0;
};

// What opening a path makes: a node, or an errno.
using opener = std::function<sys_result(int flags, std::shared_ptr<node>& out)>;

class kernel final : public syscalls {
 public:
  kernel() = default;
  kernel(std::function<int()> fd_source, std::function<void(int)> fd_release)
      : fd_source_(std::move(fd_source)), fd_release_(std::move(fd_release)) {}

  // A device node or any path served by `open`.
  void add_path(const std::string& path, opener open) { paths_[path] = std::move(open); }
  // Paths below `prefix` answered by `open(path)`: an opener, or nothing (ENOENT).
  void add_prefix(const std::string& prefix,
                  std::function<std::optional<opener>(const std::string&)> open) {
    prefixes_.emplace_back(prefix, std::move(open));
  }
  void add_file(const std::string& path, std::string text) {
    paths_[path] = [text = std::move(text)](int, std::shared_ptr<node>& out) {
      out = std::make_shared<file_node>(text);
      return sys_result{};
    };
  }
  bool serves(const std::string& path) const {
    if (paths_.count(path) != 0) return true;
    for (const auto& [prefix, f] : prefixes_) {
      if (path.compare(0, prefix.size(), prefix) == 0) return true;
    }
    return false;
  }
  bool owns(int fd) const {
    std::lock_guard<std::mutex> g(mu_);
    return fds_.count(fd) != 0;
  }
  // A node opened by a driver (a stream fd): its new fd.
  int install(std::shared_ptr<node> n) {
    const int fd = fd_source_ ? fd_source_() : next_fd_++;
    std::lock_guard<std::mutex> g(mu_);
    fds_[fd] = std::move(n);
    return fd;
  }

  sys_result open(const char* path, int flags) override {
    std::optional<opener> op;
    if (auto it = paths_.find(path); it != paths_.end()) {
      op = it->second;
    } else {
      const std::string p(path);
      for (const auto& [prefix, f] : prefixes_) {
        if (p.compare(0, prefix.size(), prefix) == 0) {
          op = f(p);
          break;
        }
      }
    }
    if (!op) return {-1, ENOENT};
    std::shared_ptr<node> n;
    const sys_result r = (*op)(flags, n);
    if (!r.ok()) return r;
    return {install(std::move(n)), 0};
  }
  sys_result close(int fd) override {
    std::shared_ptr<node> n;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = fds_.find(fd);
      if (it == fds_.end()) return {-1, EBADF};
      n = std::move(it->second);
      fds_.erase(it);
    }
    n.reset();  // a driver's node releases what it held (an OA unit) here
    if (fd_release_) fd_release_(fd);
    return {};
  }
  sys_result ioctl(int fd, unsigned long request, void* arg) override {
    auto n = find(fd);
    if (!n) return {-1, EBADF};
    return n->ioctl(*this, request, arg);
  }
  sys_result read(int fd, void* buf, std::size_t len) override {
    auto n = find(fd);
    if (!n) return {-1, EBADF};
    return n->read(buf, len);
  }
  // Waits as a kernel would: up to the timeout until the node is ready. A
  // wait is capped at one second (a negative, endless timeout too), so a
  // caller's mistake cannot hang a test; the caller then sees a timeout.
  sys_result poll(int fd, short events, int timeout_ms, short& revents) override {
    auto n = find(fd);
    if (!n) {
      revents = POLLNVAL;
      return {1, 0};
    }
    using clock = std::chrono::steady_clock;
    const int wait_ms = timeout_ms < 0 ? 1000 : std::min(timeout_ms, 1000);
    const auto until = clock::now() + std::chrono::milliseconds(wait_ms);
    for (;;) {
      revents = static_cast<short>(n->ready() & (events | POLLERR | POLLHUP));
      if (revents != 0) return {1, 0};
      if (wait_ms == 0 || clock::now() >= until) return {0, 0};
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  sys_result mmap(std::size_t length, int prot, int flags, int fd, long offset) override {
    auto n = find(fd);
    if (!n) return {-1, EBADF};
    return n->mmap(length, prot, flags, offset);
  }
  // The nodes own their memory: unmapping only forgets the address.
  sys_result munmap(void*, std::size_t) override { return {}; }

 private:
  std::shared_ptr<node> find(int fd) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = fds_.find(fd);
    return it == fds_.end() ? nullptr : it->second;
  }

  std::map<std::string, opener> paths_;
  std::vector<std::pair<std::string, std::function<std::optional<opener>(const std::string&)>>>
      prefixes_;
  mutable std::mutex mu_;
  std::map<int, std::shared_ptr<node>> fds_;
  int next_fd_ = 1000;
  std::function<int()> fd_source_;
  std::function<void(int)> fd_release_;
};

}  // namespace hwpc::live::sim
