// An i915 render node opened through the seam, and what a recording needs to
// know about it (FACTS-live section 1.10): the chipset id and revision, the
// perf revision, the OA timestamp frequency, the GT frequency range from
// sysfs, the topology (QUERY TOPOLOGY_INFO), a metric set's kernel id from
// /sys/class/drm/card<N>/metrics/<uuid>/id, and the GPU timestamp register
// for CPU/GPU correlation points.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/intel/pci_ids.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/live/explain.hpp"
#include "hwpc/live/i915_uapi.hpp"
#include "hwpc/live/oa_config.hpp"
#include "hwpc/live/sys.hpp"

namespace hwpc::live {

inline constexpr const char* default_render_node = "/dev/dri/renderD128";

// The metric-set uapi's names in i915's messages (live/oa_config.hpp).
inline constexpr config_uapi i915_config_uapi{
    "I915_PERF_ADD_CONFIG", "I915_PERF_REMOVE_CONFIG", i915::paranoid_sysctl,
    "dev.i915.perf_stream_paranoid",
    "an address outside what this GPU's kernel allows, flex registers before Gen8, or no "
    "registers at all"};

// The card index of a node path: renderD<128+N> and card<N> give N, else 0.
inline unsigned card_of_node(std::string_view path) {
  const auto slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (const auto& [prefix, base] : {std::pair<std::string_view, unsigned>{"renderD", 128},
                                     std::pair<std::string_view, unsigned>{"card", 0}}) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    const auto n = parse_decimal(name.substr(prefix.size()));
    if (n && *n >= base) return static_cast<unsigned>(*n - base);
  }
  return 0;
}

struct i915_device_info {
  std::string path;
  unsigned card = 0;
  std::uint32_t chipset_id = 0;
  std::uint32_t revision = 0;
  int perf_revision = 1;  // a failed query means revision 1, as IGT's recorder assumes
  std::uint64_t oa_timestamp_hz = 0;
  std::uint32_t gt_min_hz = 0;
  std::uint32_t gt_max_hz = 0;
  std::optional<intel::platform> platform;  // from the chipset id
  std::vector<std::byte> topology;          // drm_i915_query_topology_info, as the kernel gave it
};

class i915_device {
 public:
  static result<i915_device> open(syscalls& sys, const std::string& path) {
    const sys_result fd = sys.open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (!fd.ok()) return explain_open(fd.err, path, driver_kind::i915);
    i915_device d(sys, unique_fd(sys, static_cast<int>(fd.value)));
    d.info_.path = path;
    d.info_.card = card_of_node(path);
    auto id = d.getparam(i915::param::chipset_id);
    if (!id) {
      return live_error(path + " answers no i915 GETPARAM (" + errno_name(id.err) +
                        "): not an i915 device (an Xe GPU? use the Xe driver's node)");
    }
    d.info_.chipset_id = static_cast<std::uint32_t>(id.value);
    d.info_.platform = intel::platform_from_pci_id(d.info_.chipset_id);
    if (auto r = d.getparam(i915::param::revision)) d.info_.revision = r.value;
    if (auto r = d.getparam(i915::param::perf_revision)) d.info_.perf_revision = r.value;
    auto hz = d.getparam(i915::param::oa_timestamp_frequency);
    if (!hz) hz = d.getparam(i915::param::cs_timestamp_frequency);
    if (!hz || hz.value <= 0) {
      return live_error(path + ": the kernel gives no OA timestamp frequency (GETPARAM 57/51)");
    }
    d.info_.oa_timestamp_hz = static_cast<std::uint64_t>(hz.value);
    d.info_.gt_min_hz = d.sysfs_mhz("gt_min_freq_mhz", "gt/gt0/rps_min_freq_mhz");
    d.info_.gt_max_hz = d.sysfs_mhz("gt_max_freq_mhz", "gt/gt0/rps_max_freq_mhz");
    if (auto t = d.query_topology(); t) {
      d.info_.topology = std::move(*t);
    } else {
      return t.error_value();
    }
    return d;
  }

  const i915_device_info& info() const noexcept { return info_; }
  int fd() const noexcept { return fd_.get(); }
  syscalls& sys() const noexcept { return *sys_; }

  // The kernel's id of a metric set (its hw_config_guid), from sysfs.
  result<std::uint64_t> metrics_set_id(const std::string& uuid) const {
    return sysfs_metrics_set_id(*sys_, info_.card, uuid, i915_config_uapi);
  }

  // Uploads a set's register lists (I915_PERF_ADD_CONFIG); the kernel's new id.
  // Lists of {u32 address, u32 value} pairs, as the uapi takes them.
  result<std::uint64_t> add_config(const std::string& uuid, const std::vector<std::uint32_t>& mux,
                                   const std::vector<std::uint32_t>& boolean,
                                   const std::vector<std::uint32_t>& flex) const {
    i915::perf_oa_config c;
    if (auto e = put_config_uuid(uuid, c.uuid); !e) return e.error_value();
    c.n_mux_regs = static_cast<std::uint32_t>(mux.size() / 2);
    c.n_boolean_regs = static_cast<std::uint32_t>(boolean.size() / 2);
    c.n_flex_regs = static_cast<std::uint32_t>(flex.size() / 2);
    c.mux_regs_ptr = reinterpret_cast<std::uintptr_t>(mux.data());
    c.boolean_regs_ptr = reinterpret_cast<std::uintptr_t>(boolean.data());
    c.flex_regs_ptr = reinterpret_cast<std::uintptr_t>(flex.data());
    const sys_result r = sys_->ioctl(fd_.get(), i915::ioctl_perf_add_config, &c);
    return add_config_result(*sys_, r, uuid, i915_config_uapi);
  }
  result<void> remove_config(std::uint64_t id) const {
    const sys_result r = sys_->ioctl(fd_.get(), i915::ioctl_perf_remove_config, &id);
    return remove_config_result(r, id, i915_config_uapi);
  }

  // The render ring's TIMESTAMP register (REG_READ, 8-byte read).
  result<std::uint64_t> gpu_timestamp() const {
    i915::reg_read r;
    r.offset = i915::render_ring_timestamp | i915::reg_read_8b;
    const sys_result s = sys_->ioctl(fd_.get(), i915::ioctl_reg_read, &r);
    if (!s.ok()) return live_error("REG_READ of the GPU timestamp failed: " + errno_name(s.err));
    return r.val;
  }

 private:
  struct param_result {
    int value = 0;
    int err = 0;
    explicit operator bool() const noexcept { return err == 0; }
  };

  i915_device(syscalls& s, unique_fd fd) : sys_(&s), fd_(std::move(fd)) {}

  param_result getparam(std::int32_t id) const {
    int value = 0;
    i915::getparam g;
    g.param = id;
    g.value_ptr = reinterpret_cast<std::uintptr_t>(&value);
    const sys_result s = sys_->ioctl(fd_.get(), i915::ioctl_getparam, &g);
    if (!s.ok()) return {0, s.err};
    return {value, 0};
  }

  std::uint32_t sysfs_mhz(const char* name, const char* gt_name) const {
    const std::string dir = "/sys/class/drm/card" + std::to_string(info_.card) + "/";
    for (const char* n : {name, gt_name}) {
      if (auto t = sys_->read_file(dir + n)) {
        if (auto v = parse_decimal(*t)) return static_cast<std::uint32_t>(*v * 1'000'000u);
      }
    }
    return 0;
  }

  // Two calls: length 0 asks the size, the second fills the buffer.
  result<std::vector<std::byte>> query_topology() const {
    i915::query_item item;
    item.query_id = i915::query_topology_info;
    i915::query q;
    q.num_items = 1;
    q.items_ptr = reinterpret_cast<std::uintptr_t>(&item);
    sys_result s = sys_->ioctl(fd_.get(), i915::ioctl_query, &q);
    if (!s.ok() || item.length <= 0) {
      const int err = !s.ok() ? s.err : -item.length;
      return live_error("QUERY TOPOLOGY_INFO failed (" + errno_name(err) +
                        "): the kernel is too old for a recording's topology (4.17+ needed)");
    }
    if (item.length > (1 << 20)) return live_error("QUERY TOPOLOGY_INFO: implausible size");
    std::vector<std::byte> data(static_cast<std::size_t>(item.length));
    item.data_ptr = reinterpret_cast<std::uintptr_t>(data.data());
    s = sys_->ioctl(fd_.get(), i915::ioctl_query, &q);
    if (!s.ok() || item.length < static_cast<std::int32_t>(i915::topology_header_bytes) ||
        static_cast<std::size_t>(item.length) > data.size()) {
      return live_error("QUERY TOPOLOGY_INFO's second call failed");
    }
    data.resize(static_cast<std::size_t>(item.length));
    return data;
  }

  syscalls* sys_;
  unique_fd fd_;
  i915_device_info info_;
};

}  // namespace hwpc::live
