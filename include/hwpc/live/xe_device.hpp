// An Xe render node opened through the seam, and what an xe-perf recording
// needs to know about it (IGT's xe-perf recorder collects the same; sources
// in docs/record.md "Xe facts"): the PCI device id and revision
// (DRM_XE_DEVICE_QUERY CONFIG), the OA unit's timestamp frequency and its
// first engine (OA_UNITS), the topology (HWCONFIG + GT_TOPOLOGY, see
// xe_topology.hpp), the GT frequency range from sysfs
// (card<N>/device/tile0/gt0/freq0/{min,max}_freq, MHz), CPU/GPU correlation
// points (ENGINE_CYCLES), a metric set's kernel id from
// /sys/class/drm/card<N>/metrics/<uuid>/id, and ADD_CONFIG / REMOVE_CONFIG.
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/intel/pci_ids.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/live/explain.hpp"
#include "hwpc/live/i915_device.hpp"
#include "hwpc/live/oa_config.hpp"
#include "hwpc/live/sys.hpp"
#include "hwpc/live/xe_topology.hpp"
#include "hwpc/live/xe_uapi.hpp"

namespace hwpc::live {

// The metric-set uapi's names in Xe's messages (live/oa_config.hpp).
inline constexpr config_uapi xe_config_uapi{
    "DRM_XE_OBSERVATION ADD_CONFIG", "DRM_XE_OBSERVATION REMOVE_CONFIG", xe::paranoid_sysctl,
    "dev.xe.observation_paranoid",
    "an address outside the flex, B-counter and mux ranges this GPU's kernel allows, or no "
    "registers at all"};

struct xe_device_info {
  std::string path;
  unsigned card = 0;
  std::uint32_t device_id = 0;
  std::uint32_t revision = 0;
  std::optional<intel::platform> platform;  // from the device id
  std::uint32_t oa_unit = 0;
  std::uint64_t oa_timestamp_hz = 0;
  xe::engine_class_instance engine;  // the OA unit's first engine
  std::uint32_t gt_min_hz = 0;
  std::uint32_t gt_max_hz = 0;
  std::vector<std::byte> topology;  // the recording's DEVICE_TOPOLOGY body
};

class xe_device {
 public:
  // Whether `path` is a node of the Xe driver: it answers DEVICE_QUERY
  // CONFIG with a size. (On i915 that ioctl number is a legacy one a render
  // node refuses.)
  static bool is_xe(syscalls& sys, const std::string& path) {
    const sys_result fd = sys.open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (!fd.ok()) return false;
    unique_fd f(sys, static_cast<int>(fd.value));
    xe::device_query q;
    q.query = xe::query::config;
    const sys_result r = sys.ioctl(f.get(), xe::ioctl_device_query, &q);
    return r.ok() && q.size >= xe::config_header_bytes + 8;
  }

  static result<xe_device> open(syscalls& sys, const std::string& path, std::uint32_t oa_unit = 0) {
    const sys_result fd = sys.open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (!fd.ok()) return explain_open(fd.err, path, driver_kind::xe);
    xe_device d(sys, unique_fd(sys, static_cast<int>(fd.value)));
    d.info_.path = path;
    d.info_.card = card_of_node(path);
    auto config = d.query(xe::query::config);
    if (!config) {
      return live_error(path + " answers no DRM_XE_DEVICE_QUERY (" + config.error_value().message +
                        "): not a device of the Xe driver");
    }
    if (config->size() < xe::config_header_bytes + 8 || load_le32(config->data()) == 0) {
      return live_error(path + ": DEVICE_QUERY CONFIG gives no device id");
    }
    const std::uint64_t id =
        load_le64(config->data() + xe::config_header_bytes + 8 * xe::config_rev_and_device_id);
    d.info_.device_id = static_cast<std::uint32_t>(id & 0xffff);
    d.info_.revision = static_cast<std::uint32_t>((id >> 16) & 0xff);
    d.info_.platform = intel::platform_from_pci_id(d.info_.device_id);
    if (auto e = d.read_oa_unit(oa_unit); !e) return e.error_value();
    // Topology: the limits from HWCONFIG where the kernel has it.
    xe_topology_limits limits = xe_fallback_limits;
    if (auto hw = d.query(xe::query::hwconfig); hw && !hw->empty()) {
      auto l = parse_xe_hwconfig(*hw);
      if (!l) return live_error(path + ": " + l.error_value().describe());
      limits = *l;
    }
    auto topo = d.query(xe::query::gt_topology);
    if (!topo) return live_error(path + ": GT_TOPOLOGY query: " + topo.error_value().message);
    auto t = xe_recording_topology(*topo, limits);
    if (!t) return live_error(path + ": " + t.error_value().describe());
    d.info_.topology = std::move(*t);
    d.info_.gt_min_hz = d.sysfs_mhz("min_freq");
    d.info_.gt_max_hz = d.sysfs_mhz("max_freq");
    return d;
  }

  const xe_device_info& info() const noexcept { return info_; }
  int fd() const noexcept { return fd_.get(); }
  syscalls& sys() const noexcept { return *sys_; }

  // A query's reply: the first call asks its size, the second fills it.
  result<std::vector<std::byte>> query(std::uint32_t id) const {
    xe::device_query q;
    q.query = id;
    sys_result s = sys_->ioctl(fd_.get(), xe::ioctl_device_query, &q);
    if (!s.ok())
      return live_error("DRM_XE_DEVICE_QUERY " + std::to_string(id) + ": " + errno_name(s.err));
    if (q.size > (1u << 20)) {
      return live_error("DRM_XE_DEVICE_QUERY " + std::to_string(id) + ": implausible size " +
                        std::to_string(q.size));
    }
    std::vector<std::byte> data(q.size);
    q.data = reinterpret_cast<std::uintptr_t>(data.data());
    s = sys_->ioctl(fd_.get(), xe::ioctl_device_query, &q);
    if (!s.ok() || q.size != data.size()) {
      return live_error("DRM_XE_DEVICE_QUERY " + std::to_string(id) + "'s second call failed (" +
                        errno_name(s.ok() ? EINVAL : s.err) + ")");
    }
    return data;
  }

  // A CPU/GPU correlation point: the engine's timestamp and the CPU
  // (CLOCK_MONOTONIC) time in the middle of the kernel's read of it.
  result<std::pair<std::uint64_t, std::uint64_t>> engine_cycles() const {
    xe::engine_cycles c;
    c.eci = info_.engine;
    c.clockid = CLOCK_MONOTONIC;
    xe::device_query q;
    q.query = xe::query::engine_cycles;
    q.size = sizeof c;
    q.data = reinterpret_cast<std::uintptr_t>(&c);
    const sys_result s = sys_->ioctl(fd_.get(), xe::ioctl_device_query, &q);
    if (!s.ok()) return live_error("DEVICE_QUERY ENGINE_CYCLES failed: " + errno_name(s.err));
    return std::pair{c.cpu_timestamp + c.cpu_delta / 2, c.engine_cycles};
  }

  // The kernel's id of a metric set (its hw_config_guid), from sysfs.
  result<std::uint64_t> metrics_set_id(const std::string& uuid) const {
    return sysfs_metrics_set_id(*sys_, info_.card, uuid, xe_config_uapi);
  }

  // Uploads a set's {address, value} pairs (one list; ADD_CONFIG); the new id.
  result<std::uint64_t> add_config(const std::string& uuid,
                                   const std::vector<std::uint32_t>& regs) const {
    xe::oa_config c;
    if (auto e = put_config_uuid(uuid, c.uuid); !e) return e.error_value();
    c.n_regs = static_cast<std::uint32_t>(regs.size() / 2);
    c.regs_ptr = reinterpret_cast<std::uintptr_t>(regs.data());
    const sys_result r = observation(xe::op_add_config, &c);
    return add_config_result(*sys_, r, uuid, xe_config_uapi);
  }
  result<void> remove_config(std::uint64_t id) const {
    std::uint64_t v = id;
    const sys_result r = observation(xe::op_remove_config, &v);
    return remove_config_result(r, id, xe_config_uapi);
  }

 private:
  xe_device(syscalls& s, unique_fd fd) : sys_(&s), fd_(std::move(fd)) {}

  sys_result observation(std::uint64_t op, void* param) const {
    xe::observation_param p;
    p.observation_type = xe::observation_type_oa;
    p.observation_op = op;
    p.param = reinterpret_cast<std::uintptr_t>(param);
    return sys_->ioctl(fd_.get(), xe::ioctl_observation, &p);
  }

  // OA unit `id`: its timestamp frequency and first engine (units are
  // variable-sized: 72 bytes and 8 per engine).
  result<void> read_oa_unit(std::uint32_t id) {
    auto units = query(xe::query::oa_units);
    if (!units) {
      return live_error(info_.path + ": no OA_UNITS answer (" + units.error_value().message +
                        "): a kernel without OA support on the Xe driver (6.11 or later has it)");
    }
    const auto& u = *units;
    if (u.size() < xe::oa_units_header_bytes) return live_error("OA_UNITS reply too short");
    const std::uint32_t n = load_le32(u.data() + 8);
    std::size_t at = xe::oa_units_header_bytes;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (u.size() - at < xe::oa_unit_bytes) {
        return live_error("OA_UNITS reply ends inside unit " + std::to_string(i) + " (byte " +
                          std::to_string(at) + ")");
      }
      const std::uint64_t engines = load_le64(u.data() + at + xe::oa_unit_field::num_engines);
      if (engines > (u.size() - at - xe::oa_unit_bytes) / 8) {
        return live_error("OA_UNITS unit " + std::to_string(i) + " lists engines past the reply");
      }
      if (load_le32(u.data() + at + xe::oa_unit_field::id) == id) {
        info_.oa_unit = id;
        info_.oa_timestamp_hz = load_le64(u.data() + at + xe::oa_unit_field::timestamp_freq);
        if (info_.oa_timestamp_hz == 0)
          return live_error("OA unit " + std::to_string(id) + " has no timestamp frequency");
        if (engines == 0) {
          return live_error("OA unit " + std::to_string(id) +
                            " has no engine to take correlation points from");
        }
        const std::byte* e = u.data() + at + xe::oa_unit_field::engines;
        info_.engine.engine_class = load_le16(e);
        info_.engine.engine_instance = load_le16(e + 2);
        info_.engine.gt_id = load_le16(e + 4);
        return {};
      }
      at += xe::oa_unit_bytes + 8 * static_cast<std::size_t>(engines);
    }
    if (n == 0) return live_error(info_.path + " has no OA unit (ENODEV on open)");
    return live_error(info_.path + " has no OA unit " + std::to_string(id));
  }

  std::uint32_t sysfs_mhz(const char* name) const {
    const std::string path =
        "/sys/class/drm/card" + std::to_string(info_.card) + "/device/tile0/gt0/freq0/" + name;
    if (auto t = sys_->read_file(path)) {
      if (auto v = parse_decimal(*t); v && *v < 100'000) {
        return static_cast<std::uint32_t>(*v * 1'000'000u);
      }
    }
    return 0;
  }

  syscalls* sys_;
  unique_fd fd_;
  xe_device_info info_;
};

}  // namespace hwpc::live
