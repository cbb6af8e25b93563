// Errors a person can act on: what the kernel's errno means for each live
// call, and what to change (FACTS-live sections 1.5-1.7, 2.3, 3.7). Every
// message names the device or sysctl, the value we saw where we could read
// it, and the command that changes it.
#pragma once

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "hwpc/core/error.hpp"
#include "hwpc/live/sys.hpp"

namespace hwpc::live {

enum class driver_kind { i915, xe, kbase };

inline std::string errno_name(int err) {
  switch (err) {
    case ENOENT:
      return "ENOENT";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case EINVAL:
      return "EINVAL";
    case EBUSY:
      return "EBUSY";
    case ENODEV:
      return "ENODEV";
    case EIO:
      return "EIO";
    case ENOTTY:
      return "ENOTTY";
    case ENXIO:
      return "ENXIO";
    case ENOSPC:
      return "ENOSPC";
    case EAGAIN:
      return "EAGAIN";
    case EFAULT:
      return "EFAULT";
    case ENOMEM:
      return "ENOMEM";
    case ENOSYS:
      return "ENOSYS";
    default:
      return "errno " + std::to_string(err);
  }
}

inline error live_error(std::string msg) { return make_error(errc::io, 0, std::move(msg)); }

// A sysctl's value as the seam reads it ("unreadable" when it cannot).
inline std::string sysctl_value(syscalls& sys, const char* path) {
  auto v = sys.read_file(path);
  if (!v) return "unreadable";
  while (!v->empty() && (v->back() == '\n' || v->back() == ' ')) v->pop_back();
  return *v;
}

// open() of a device node failed.
inline error explain_open(int err, const std::string& path, driver_kind d) {
  const std::string what = d == driver_kind::kbase ? "Arm Mali (kbase)" : "Intel GPU";
  if (err == ENOENT || err == ENXIO || err == ENODEV) {
    std::string m = "no such device: " + path + " (" + errno_name(err) + "): ";
    if (d == driver_kind::kbase) {
      m += "no kbase Mali driver here (`ls /dev/mali*`); Panfrost and Panthor systems have no "
           "/dev/mali0 and no kbase counter interface";
    } else {
      m += "no " + what +
           " render node (`ls /dev/dri`; is the i915 or xe driver loaded?); "
           "pass --device /dev/dri/renderD<N>";
    }
    return live_error(m);
  }
  if (err == EACCES || err == EPERM) {
    std::string m = "permission refused opening " + path + " (" + errno_name(err) + "): ";
    if (d == driver_kind::kbase) {
      m += "check the node's mode and group (`ls -l " + path +
           "`; add yourself to its group or `sudo chmod a+rw " + path +
           "`); on Android SELinux decides: look for an avc denial naming " + path +
           " in `logcat`/`dmesg` (an untrusted_app may not open it)";
    } else {
      m += "check its mode and group (`ls -l " + path +
           "`; the group is usually `render`: `sudo usermod -aG render $USER`, then log in "
           "again)";
    }
    return live_error(m);
  }
  return live_error("cannot open " + path + ": " + errno_name(err) + " (" + std::strerror(err) +
                    ")");
}

// A refused stream open: EACCES is privilege. `rate_limited` says the open
// succeeded without the sampling exponent, so the period was the problem.
inline std::string privilege_advice(syscalls& sys, driver_kind d, bool rate_limited) {
  if (d == driver_kind::xe) {
    return "the kernel refused the OA stream (EACCES): a system-wide observation stream needs "
           "CAP_PERFMON (or CAP_SYS_ADMIN) while dev.xe.observation_paranoid is 1 (it is " +
           sysctl_value(sys, "/proc/sys/dev/xe/observation_paranoid") +
           " here; newer kernels then defer to kernel.perf_event_paranoid). Run `sudo sysctl "
           "dev.xe.observation_paranoid=0`, or give the tool CAP_PERFMON (`sudo setcap "
           "cap_perfmon+ep $(command -v hwpc)`)";
  }
  if (rate_limited) {
    return "the kernel refused the sampling period (EACCES): it is faster than "
           "dev.i915.oa_max_sample_rate (" +
           sysctl_value(sys, "/proc/sys/dev/i915/oa_max_sample_rate") +
           " Hz here) allows without CAP_PERFMON. Choose a longer --period or larger "
           "--exponent, raise the limit (`sudo sysctl dev.i915.oa_max_sample_rate=N`), or give "
           "the tool CAP_PERFMON (`sudo setcap cap_perfmon+ep $(command -v hwpc)`)";
  }
  return "the kernel refused the OA stream (EACCES): a system-wide OA stream needs CAP_PERFMON "
         "(or CAP_SYS_ADMIN) while dev.i915.perf_stream_paranoid is 1 (it is " +
         sysctl_value(sys, "/proc/sys/dev/i915/perf_stream_paranoid") +
         " here). Run `sudo sysctl dev.i915.perf_stream_paranoid=0`, or give the tool "
         "CAP_PERFMON (`sudo setcap cap_perfmon+ep $(command -v hwpc)`)";
}

}  // namespace hwpc::live
