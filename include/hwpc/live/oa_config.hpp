// What the i915 and Xe devices (i915_device.hpp, xe_device.hpp) do alike
// with metric sets: the kernel's id of a set from
// /sys/class/drm/card<N>/metrics/<uuid>/id, the uuid an upload carries, and
// what an ADD_CONFIG or REMOVE_CONFIG failure means. Each driver passes its
// own uapi names, sysctl and meaning of EINVAL, so the messages stay its own.
#pragma once

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hwpc/core/error.hpp"
#include "hwpc/live/explain.hpp"
#include "hwpc/live/sys.hpp"

namespace hwpc::live {

// A decimal number at the start of `text` (sysfs files end with a newline).
inline std::optional<std::uint64_t> parse_decimal(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end == text.data()) return std::nullopt;
  return v;
}

// A driver's names for the metric-set uapi, as its messages say them.
struct config_uapi {
  const char* add;              // "I915_PERF_ADD_CONFIG"
  const char* remove;           // "I915_PERF_REMOVE_CONFIG"
  const char* paranoid_sysctl;  // the file under /proc/sys
  const char* paranoid_name;    // the same as `sysctl` spells it
  const char* einval;           // why the kernel refuses a set's registers
};

// The kernel's id of the metric set `uuid` on card `card`; missing, the error
// says how to add it (`cfg.add`) or pick another.
inline result<std::uint64_t> sysfs_metrics_set_id(syscalls& sys, unsigned card,
                                                  const std::string& uuid, const config_uapi& cfg) {
  const std::string path =
      "/sys/class/drm/card" + std::to_string(card) + "/metrics/" + uuid + "/id";
  const auto text = sys.read_file(path);
  if (!text) {
    return live_error("the kernel has no metric set " + uuid + " (" + path +
                      " is missing): it was not built in for this GPU and was not added. "
                      "Without the set's registers (--metrics) it cannot be uploaded (" +
                      cfg.add + "): pick a set the kernel lists (`ls /sys/class/drm/card" +
                      std::to_string(card) + "/metrics`) or pass --set-id N");
  }
  const auto id = parse_decimal(*text);
  if (!id || *id == 0) return live_error(path + " does not hold a config id");
  return *id;
}

// Copies a set's uuid into the uapi's 36 characters (no terminator).
inline result<void> put_config_uuid(const std::string& uuid, char (&to)[36]) {
  if (uuid.size() != sizeof to) {
    return live_error("metric set uuid '" + uuid + "' is not 36 characters");
  }
  for (std::size_t i = 0; i < sizeof to; ++i) to[i] = uuid[i];
  return {};
}

// The kernel's new id, or what its refusal of set `uuid` means.
inline result<std::uint64_t> add_config_result(syscalls& sys, const sys_result& r,
                                               const std::string& uuid, const config_uapi& cfg) {
  if (r.ok()) return static_cast<std::uint64_t>(r.value);
  if (r.err == EACCES) {
    return live_error("the kernel refused to add metric set " + uuid +
                      " (EACCES): adding a set needs CAP_PERFMON (or CAP_SYS_ADMIN) while " +
                      cfg.paranoid_name + " is 1 (it is " + sysctl_value(sys, cfg.paranoid_sysctl) +
                      " here). Run `sudo sysctl " + cfg.paranoid_name +
                      "=0`, or give the tool CAP_PERFMON");
  }
  if (r.err == EADDRINUSE) {
    return live_error("the kernel already has a metric set " + uuid + " (EADDRINUSE)");
  }
  if (r.err == EINVAL) {
    return live_error("the kernel refused metric set " + uuid +
                      "'s registers (EINVAL): " + cfg.einval);
  }
  return live_error(std::string(cfg.add) + " failed: " + errno_name(r.err));
}

inline result<void> remove_config_result(const sys_result& r, std::uint64_t id,
                                         const config_uapi& cfg) {
  if (!r.ok()) {
    return live_error(std::string(cfg.remove) + " of set id " + std::to_string(id) +
                      " failed: " + errno_name(r.err));
  }
  return {};
}

}  // namespace hwpc::live
