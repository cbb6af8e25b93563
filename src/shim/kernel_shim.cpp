// libhwpc_kernel_shim.so: an LD_PRELOAD library that puts the simulated
// kernel (hwpc/live/sim/) behind libc's open, close, ioctl, read, poll, mmap
// and munmap, so the unmodified `hwpc record` runs its real system-call path
// against a fake /dev/dri/renderD128 or /dev/mali0 (the approach of Mesa's
// drm-shim, FACTS-live section 5.1). Told what to present by the environment:
//
//   HWPC_SHIM_DEVICE  intel:<platform> (intel:tgl, intel:hsw, ...; default
//                     intel:tgl; intel:lnl, intel:bmg and intel:ptl present
//                     the Xe driver, as does intel:<platform>:xe, e.g.
//                     intel:mtl:xe) or mali:<gpu> (mali:g78, mali:g720, ...)
//   HWPC_SHIM_FAULT   eacces (perf_stream_paranoid 1 without CAP_PERFMON; on
//                     Mali the node's mode refuses), einval-exponent (the
//                     kernel refuses OA_EXPONENT), overflow (OA buffer
//                     overflow: OA_BUFFER_LOST records; Mali: ring full),
//                     eio (Xe: some reads fail with EIO and the STATUS
//                     ioctl gives REPORT_LOST; overflow gives BUFFER_OVERFLOW),
//                     no-kinstr (Mali: a kbase too old for kinstr_prfcnt,
//                     interface 11.20 on Job Manager, 1.10 on CSF)
//   HWPC_SHIM_REPORTS reports per stream (Intel, default 64) or samples per
//                     session (Mali, default 32)
//   HWPC_SHIM_SEED    workload seed (default 1)
//
// Paths the simulated kernel does not serve, and fds it did not hand out, go
// to the real libc functions (dlsym RTLD_NEXT).
// The shim defines both open and open64 (openat/openat64, mmap/mmap64): without
// glibc's large-file renaming (Meson builds with _FILE_OFFSET_BITS=64), so each
// name is its own symbol.
#undef _FILE_OFFSET_BITS

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "hwpc/intel/platform.hpp"
#include "hwpc/live/i915_device.hpp"
#include "hwpc/live/kbase_uapi.hpp"
#include "hwpc/live/sim/i915.hpp"
#include "hwpc/live/sim/kbase.hpp"
#include "hwpc/live/sim/kernel.hpp"
#include "hwpc/live/sim/xe.hpp"
#include "hwpc/mali/gpu.hpp"

namespace {

namespace sim = hwpc::live::sim;

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

using open_fn = int (*)(const char*, int, ...);
using openat_fn = int (*)(int, const char*, int, ...);
using close_fn = int (*)(int);
using ioctl_fn = int (*)(int, unsigned long, ...);
using read_fn = ssize_t (*)(int, void*, size_t);
using poll_fn = int (*)(pollfd*, nfds_t, int);
using mmap_fn = void* (*)(void*, size_t, int, int, int, off_t);
using munmap_fn = int (*)(void*, size_t);

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

void say(const std::string& what) { std::fprintf(stderr, "hwpc kernel shim: %s\n", what.c_str()); }

struct shim {
  sim::kernel kernel{[] {
                       static const auto o = real<open_fn>("open");
                       return o("/dev/null", O_RDONLY | O_CLOEXEC);  // reserves the fd number
                     },
                     [](int fd) {
                       static const auto c = real<close_fn>("close");
                       c(fd);
                     }};
  std::mutex maps_mu;
  std::set<void*> maps;

  shim() {
    const std::string device = env("HWPC_SHIM_DEVICE", "intel:tgl");
    const std::string fault = env("HWPC_SHIM_FAULT", "");
    const auto count = std::strtoull(env("HWPC_SHIM_REPORTS", "0").c_str(), nullptr, 10);
    const auto seed = std::strtoull(env("HWPC_SHIM_SEED", "1").c_str(), nullptr, 10);
    if (!fault.empty() && fault != "eacces" && fault != "einval-exponent" && fault != "overflow" &&
        fault != "eio" && fault != "no-kinstr") {
      say("unknown HWPC_SHIM_FAULT '" + fault +
          "' (eacces, einval-exponent, overflow, eio, no-kinstr)");
    }
    if (device.rfind("intel:", 0) == 0) {
      // intel:<platform>:xe puts a platform i915 also drives (tgl, dg2, mtl) on Xe.
      std::string name = device.substr(6);
      const bool on_xe = name.size() > 3 && name.compare(name.size() - 3, 3, ":xe") == 0;
      if (on_xe) name.resize(name.size() - 3);
      const auto p = hwpc::intel::platform_from_name(name);
      if (!p) {
        say("unknown platform in HWPC_SHIM_DEVICE=" + device);
        return;
      }
      if (on_xe || hwpc::emu::default_driver(*p) == hwpc::emu::driver::xe) {
        sim::xe_config c;
        c.platform = *p;
        c.reports = count != 0 ? count : 64;
        c.seed = seed;
        c.paranoid = fault == "eacces";
        c.refuse_exponent = fault == "einval-exponent";
        // Both fail reads with EIO: overflow's status says BUFFER_OVERFLOW,
        // eio's REPORT_LOST (reports the unit could not write).
        c.faults.overflow = fault == "overflow";
        c.faults.report_lost = fault == "eio";
        sim::add_xe(kernel, hwpc::live::default_render_node, c);
        return;
      }
      sim::i915_config c;
      c.platform = *p;
      c.reports = count != 0 ? count : 64;
      c.seed = seed;
      c.paranoid = fault == "eacces";
      c.perfmon = fault != "eacces";
      c.refuse_exponent = fault == "einval-exponent";
      c.faults.overflow = fault == "overflow";
      if (fault == "eio") say("eio is the Xe driver's fault (intel:lnl, ...); i915 ignores it");
      sim::add_i915(kernel, hwpc::live::default_render_node, c);
    } else if (device.rfind("mali:", 0) == 0) {
      auto gpu = hwpc::mali::find_gpu(device.substr(5));
      if (!gpu) {
        say("unknown GPU in HWPC_SHIM_DEVICE=" + device + ": " + gpu.error_value().message);
        return;
      }
      sim::kbase_config c;
      c.gpu = *gpu;
      c.samples = count != 0 ? count : 32;
      c.seed = seed;
      c.node_refused = fault == "eacces";
      c.full_every = fault == "overflow" ? 4 : 0;
      if (fault == "no-kinstr") {
        const bool csf = hwpc::mali::is_csf_product(c.gpu->product_id);
        c.major = csf ? 1 : 11;
        c.minor = csf ? 10 : 20;
      }
      sim::add_kbase(kernel, hwpc::live::kbase::default_node, c);
    } else {
      say("HWPC_SHIM_DEVICE=" + device + ": expected intel:<platform> or mali:<gpu>");
    }
  }
};

shim& the_shim() {
  static shim s;
  return s;
}

int result_of(const hwpc::live::sys_result& r) {
  if (!r.ok()) {
    errno = r.err;
    return -1;
  }
  return static_cast<int>(r.value);
}

int open_path(const char* path, int flags, mode_t mode, bool at, int dirfd) {
  if (path != nullptr && the_shim().kernel.serves(path)) {
    return result_of(the_shim().kernel.open(path, flags));
  }
  if (at) {
    static const auto o = real<openat_fn>("openat");
    return o(dirfd, path, flags, mode);
  }
  static const auto o = real<open_fn>("open");
  return o(path, flags, mode);
}

mode_t mode_arg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return open_path(path, flags, mode, false, AT_FDCWD);
}
__attribute__((visibility("default"))) int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return open_path(path, flags, mode, false, AT_FDCWD);
}
__attribute__((visibility("default"))) int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return open_path(path, flags, mode, true, dirfd);
}
__attribute__((visibility("default"))) int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return open_path(path, flags, mode, true, dirfd);
}
__attribute__((visibility("default"))) int __open_2(const char* path, int flags) {
  return open_path(path, flags, 0, false, AT_FDCWD);
}
__attribute__((visibility("default"))) int __open64_2(const char* path, int flags) {
  return open_path(path, flags, 0, false, AT_FDCWD);
}

__attribute__((visibility("default"))) int close(int fd) {
  if (the_shim().kernel.owns(fd)) return result_of(the_shim().kernel.close(fd));
  static const auto c = real<close_fn>("close");
  return c(fd);
}

__attribute__((visibility("default"))) int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (the_shim().kernel.owns(fd)) return result_of(the_shim().kernel.ioctl(fd, request, arg));
  static const auto i = real<ioctl_fn>("ioctl");
  return i(fd, request, arg);
}

__attribute__((visibility("default"))) ssize_t read(int fd, void* buf, size_t n) {
  if (the_shim().kernel.owns(fd)) {
    const auto r = the_shim().kernel.read(fd, buf, n);
    if (!r.ok()) {
      errno = r.err;
      return -1;
    }
    return r.value;
  }
  static const auto rd = real<read_fn>("read");
  return rd(fd, buf, n);
}

__attribute__((visibility("default"))) int poll(pollfd* fds, nfds_t n, int timeout) {
  if (n == 1 && the_shim().kernel.owns(fds[0].fd)) {
    short revents = 0;
    const auto r = the_shim().kernel.poll(fds[0].fd, fds[0].events, timeout, revents);
    fds[0].revents = revents;
    return result_of(r);
  }
  static const auto p = real<poll_fn>("poll");
  return p(fds, n, timeout);
}

__attribute__((visibility("default"))) void* mmap(void* addr, size_t len, int prot, int flags,
                                                  int fd, off_t off) {
  if (fd >= 0 && the_shim().kernel.owns(fd)) {
    const auto r = the_shim().kernel.mmap(len, prot, flags, fd, static_cast<long>(off));
    if (!r.ok()) {
      errno = r.err;
      return MAP_FAILED;
    }
    void* p = reinterpret_cast<void*>(static_cast<std::intptr_t>(r.value));
    std::lock_guard<std::mutex> g(the_shim().maps_mu);
    the_shim().maps.insert(p);
    return p;
  }
  static const auto m = real<mmap_fn>("mmap");
  return m(addr, len, prot, flags, fd, off);
}
__attribute__((visibility("default"))) void* mmap64(void* addr, size_t len, int prot, int flags,
                                                    int fd, off_t off) {
  return mmap(addr, len, prot, flags, fd, off);
}

__attribute__((visibility("default"))) int munmap(void* addr, size_t len) {
  {
    std::lock_guard<std::mutex> g(the_shim().maps_mu);
    if (the_shim().maps.erase(addr) != 0) return 0;  // the simulated kernel's memory
  }
  static const auto m = real<munmap_fn>("munmap");
  return m(addr, len);
}

}  // extern "C"
