// The Xe driver in the simulated kernel: a render node answering
// DRM_IOCTL_XE_DEVICE_QUERY (CONFIG, HWCONFIG, GT_TOPOLOGY, ENGINE_CYCLES,
// OA_UNITS: sim/xe_queries.hpp) and DRM_IOCTL_XE_OBSERVATION: ADD_CONFIG and
// REMOVE_CONFIG with FACTS-live section 2.4's checks (extensions 0, a uuid
// of the 8-4-4-4-12 form, registers given, EADDRINUSE, ids from 1, ENOENT,
// the paranoid rule; not the per-platform register ranges), and STREAM_OPEN
// with the checks of FACTS-live section 2: extensions 0, at most 16 property links (E2BIG), link
// name and pads zero, properties 1..13, OA_FORMAT among the platform's formats, exponent 0..31 and
// only with SAMPLE_OA, the paranoid rule (EACCES), one stream per unit (EBUSY). The stream is
// opened disabled when OA_DISABLED is set; read() returns whole reports without headers (ENOSPC
// when none fits) and fails with EIO where the emulated unit lost reports, after which the STATUS
// ioctl gives (and clears) the bits. Reports and losses come from the OA unit emulator's Xe read
// path (emu::xe_stream_of) and are released in real time. The packed OA_FORMAT is checked against
// the uapi's format keys (intel/format_keys.hpp, the kernel's own table as data). ENGINE_CYCLES
// reads a GPU clock that a stream's open sets to the emulated run's start, so correlation points
// and reports agree. Sysfs: the paranoid sysctl, card<N>/device/tile0/gt0/freq0/{min,max}_freq, and
// card<N>/metrics/<uuid>/id for the kernel's sets and the added ones.
#pragma once

#include <poll.h>
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hwpc/emu.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/live/sim/configs.hpp"
#include "hwpc/live/sim/kernel.hpp"
#include "hwpc/live/sim/xe_queries.hpp"
#include "hwpc/live/xe_uapi.hpp"

namespace hwpc::live::sim {

struct xe_config {
  intel::platform platform = intel::platform::lnl;
  std::size_t reports = 64;
  std::uint64_t seed = 1;
  emu::fault_set faults{};  // overflow: failed reads with BUFFER_OVERFLOW
  bool paranoid = false;    // dev.xe.observation_paranoid = 1 and no CAP_PERFMON
  bool refuse_exponent = false;
  // Metric sets the kernel has: hw_config_guid -> id. Empty: every uuid asked
  // for is present (ids from 1 up, in the order they are asked).
  std::map<std::string, std::uint64_t> metric_sets;
};

inline emu::config emulated_xe_run(const xe_config& cfg, std::string_view format,
                                   unsigned exponent) {
  emu::config c;
  c.platform = cfg.platform;
  c.format = std::string(format);
  c.exponent = exponent;
  c.reports = cfg.reports;
  c.seed = cfg.seed;
  c.faults = cfg.faults;
  c.kernel_driver = emu::driver::xe;
  return c;
}

namespace detail {

struct xe_gpu {
  xe_config cfg;
  bool stream_open = false;
  config_table configs{{}, 1, {}};  // Xe allocates config ids from 1
  // The GPU clock: `clock_base` ticks at `clock_origin`.
  std::chrono::steady_clock::time_point clock_origin = std::chrono::steady_clock::now();
  std::uint64_t clock_base = 0;
  std::uint64_t timestamp_hz() const { return intel::info(cfg.platform).timestamp_frequency_hz; }
  std::uint64_t gpu_ticks(std::chrono::steady_clock::time_point at) const {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at - clock_origin).count();
    return clock_base + static_cast<std::uint64_t>(static_cast<long double>(ns) *
                                                   static_cast<long double>(timestamp_hz()) / 1e9L);
  }
};

inline std::uint64_t monotonic_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(t.tv_nsec);
}

class xe_stream_node final : public node {
 public:
  xe_stream_node(std::shared_ptr<xe_gpu> gpu, emu::xe_stream_data data, std::size_t report_size,
                 std::vector<std::uint64_t> due_ns, bool enabled)
      : gpu_(std::move(gpu)),
        data_(std::move(data)),
        report_size_(report_size),
        due_ns_(std::move(due_ns)),
        enabled_(enabled),
        origin_(std::chrono::steady_clock::now()) {}
  ~xe_stream_node() override { gpu_->stream_open = false; }

  sys_result ioctl(kernel&, unsigned long req, void* arg) override {
    if (req == xe::ioctl_stream_enable || req == xe::ioctl_stream_disable) {
      enabled_ = req == xe::ioctl_stream_enable;  // both idempotent
      return {};
    }
    if (req == xe::ioctl_stream_status) {
      if (arg == nullptr) return {-1, EFAULT};
      auto& s = *static_cast<xe::oa_stream_status*>(arg);
      s.oa_status = status_;
      status_ = 0;
      return {};
    }
    return {-1, EINVAL};
  }
  sys_result read(void* buf, std::size_t n) override {
    const std::size_t limit = landed();
    // A loss at this point: the status bits are latched and the read fails.
    if (loss_ < data_.losses.size() && data_.losses[loss_].offset == pos_ && pos_ <= limit &&
        (pos_ < limit || pos_ == data_.bytes.size())) {
      status_ |= data_.losses[loss_++].oa_status;
      return {-1, EIO};
    }
    std::size_t end = limit;
    if (loss_ < data_.losses.size()) end = std::min(end, data_.losses[loss_].offset);
    if (pos_ >= end) return {-1, EAGAIN};  // a blocking read would wait here
    if (n < report_size_) return {-1, ENOSPC};
    end = std::min(end, pos_ + n / report_size_ * report_size_);
    std::memcpy(buf, data_.bytes.data() + pos_, end - pos_);
    const long k = static_cast<long>(end - pos_);
    pos_ = end;
    return {k, 0};
  }
  short ready() override {
    const std::size_t limit = landed();
    const bool loss_due = loss_ < data_.losses.size() && data_.losses[loss_].offset == pos_ &&
                          (pos_ < limit || pos_ == data_.bytes.size());
    return (pos_ < limit || loss_due) ? POLLIN : 0;
  }

 private:
  // The end of the data the unit has written by now (in whole reports).
  std::size_t landed() {
    if (!enabled_) return landed_;  // nothing new lands while disabled
    const auto now =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - origin_)
                                       .count());
    while (next_ < due_ns_.size() && due_ns_[next_] <= now) {
      landed_ += report_size_;
      ++next_;
    }
    return landed_;
  }

  std::shared_ptr<xe_gpu> gpu_;
  emu::xe_stream_data data_;
  std::size_t report_size_;
  std::vector<std::uint64_t> due_ns_;  // per report in data_.bytes
  bool enabled_;
  std::chrono::steady_clock::time_point origin_;
  std::size_t pos_ = 0, landed_ = 0, next_ = 0, loss_ = 0;
  std::uint64_t status_ = 0;
};

class xe_node final : public node {
 public:
  explicit xe_node(std::shared_ptr<xe_gpu> gpu) : gpu_(std::move(gpu)) {}

  sys_result ioctl(kernel& k, unsigned long req, void* arg) override {
    if (req == xe::ioctl_device_query) {
      if (arg == nullptr) return {-1, EFAULT};
      return device_query(*static_cast<xe::device_query*>(arg));
    }
    if (req != xe::ioctl_observation) return {-1, EINVAL};
    if (arg == nullptr) return {-1, EFAULT};
    const auto& p = *static_cast<const xe::observation_param*>(arg);
    if (p.extensions != 0 || p.observation_type != xe::observation_type_oa) return {-1, EINVAL};
    if (p.param == 0) return {-1, EFAULT};
    const auto* param = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(p.param));
    if (p.observation_op == xe::op_add_config) {
      return add_config(*static_cast<const xe::oa_config*>(param));
    }
    if (p.observation_op == xe::op_remove_config) {
      return remove_config(*static_cast<const std::uint64_t*>(param));
    }
    if (p.observation_op != xe::op_stream_open) return {-1, EINVAL};
    return stream_open(k, p);
  }

 private:
  // Size 0 asks the size; any other size must be exactly it (EINVAL).
  sys_result device_query(xe::device_query& q) {
    if (q.extensions != 0 || q.reserved[0] != 0 || q.reserved[1] != 0) return {-1, EINVAL};
    const intel::platform p = gpu_->cfg.platform;
    std::vector<std::byte> reply;
    switch (q.query) {
      case xe::query::config:
        reply = xe_queries::config(p);
        break;
      case xe::query::hwconfig:
        reply = xe_queries::hwconfig(p);
        break;
      case xe::query::gt_topology:
        reply = xe_queries::gt_topology(p);
        break;
      case xe::query::oa_units:
        reply = xe_queries::oa_units(p, gpu_->timestamp_hz());
        break;
      case xe::query::engine_cycles:
        return engine_cycles(q);
      default:
        return {-1, EINVAL};
    }
    if (q.size == 0) {
      q.size = static_cast<std::uint32_t>(reply.size());
      return {};
    }
    if (q.size != reply.size()) return {-1, EINVAL};
    if (q.data == 0) return {-1, EFAULT};
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(q.data)), reply.data(),
                reply.size());
    return {};
  }

  // The engine's timestamp, between two reads of the caller's clock.
  sys_result engine_cycles(xe::device_query& q) {
    if (q.size == 0) {
      q.size = sizeof(xe::engine_cycles);
      return {};
    }
    if (q.size != sizeof(xe::engine_cycles)) return {-1, EINVAL};
    if (q.data == 0) return {-1, EFAULT};
    auto& c = *reinterpret_cast<xe::engine_cycles*>(static_cast<std::uintptr_t>(q.data));
    if (c.clockid != CLOCK_MONOTONIC) return {-1, EINVAL};  // the only clock simulated
    if (c.eci.gt_id != 0 || (c.eci.engine_class != 0 && c.eci.engine_class != 4) ||
        c.eci.engine_instance != 0) {
      return {-1, EINVAL};  // no such engine on GT 0
    }
    const std::uint64_t before = monotonic_now_ns();
    c.engine_cycles = gpu_->gpu_ticks(std::chrono::steady_clock::now());
    const std::uint64_t after = monotonic_now_ns();
    c.cpu_timestamp = before;
    c.cpu_delta = after - before;
    c.width = 64;
    return {};
  }

  // ADD_CONFIG's checks (FACTS-live section 2.4), but for the platform's
  // register ranges, which the simulated kernel does not know.
  sys_result add_config(const xe::oa_config& c) {
    if (gpu_->cfg.paranoid) return {-1, EACCES};
    if (c.extensions != 0 || c.n_regs == 0 || c.regs_ptr == 0) return {-1, EINVAL};
    const std::string uuid(c.uuid, sizeof c.uuid);
    if (!is_config_uuid(uuid)) return {-1, EINVAL};
    return gpu_->configs.add(uuid);
  }
  sys_result remove_config(std::uint64_t id) {
    if (gpu_->cfg.paranoid) return {-1, EACCES};
    return gpu_->configs.remove(id);
  }

  sys_result stream_open(kernel& k, const xe::observation_param& p) {
    bool sample_oa = false, disabled = false;
    std::uint64_t set = 0, fmt = 0;
    std::optional<std::uint64_t> exponent;
    bool have_format = false;
    unsigned links = 0;
    for (auto at = p.param; at != 0;) {
      if (++links > xe::max_chain_links) return {-1, E2BIG};
      const auto& e =
          *reinterpret_cast<const xe::ext_set_property*>(static_cast<std::uintptr_t>(at));
      if (e.name != 0 || e.pad != 0 || e.pad2 != 0) return {-1, EINVAL};
      if (e.property == 0 || e.property >= xe::prop::max) return {-1, EINVAL};
      switch (e.property) {
        case xe::prop::oa_unit_id:
          if (e.value != 0) return {-1, EINVAL};  // one OAG unit
          break;
        case xe::prop::sample_oa:
          sample_oa = e.value != 0;
          break;
        case xe::prop::oa_metric_set:
          set = e.value;
          break;
        case xe::prop::oa_format:
          if (intel::find_xe_format(gpu_->cfg.platform, e.value) == nullptr) return {-1, EINVAL};
          fmt = e.value;
          have_format = true;
          break;
        case xe::prop::oa_period_exponent:
          if (e.value > 31 || gpu_->cfg.refuse_exponent) return {-1, EINVAL};
          exponent = e.value;
          break;
        case xe::prop::oa_disabled:
          disabled = e.value != 0;
          break;
        default:
          return {-1, EINVAL};  // exec queues, syncs, buffer size: not simulated
      }
      at = e.next_extension;
    }
    if (!sample_oa || !have_format) return {-1, EINVAL};
    if (exponent && !sample_oa) return {-1, EINVAL};
    if (gpu_->cfg.paranoid) return {-1, EACCES};
    if (set == 0) return {-1, EINVAL};
    // With no sets listed, the kernel has every set (any id it could have given).
    bool known_set = gpu_->cfg.metric_sets.empty();
    known_set = known_set || gpu_->configs.has_id(set);
    if (!known_set) return {-1, EINVAL};
    if (gpu_->stream_open) return {-1, EBUSY};
    const intel::xe_format* f = intel::find_xe_format(gpu_->cfg.platform, fmt);
    auto cap = emu::emulate(
        emulated_xe_run(gpu_->cfg, f->name, static_cast<unsigned>(exponent.value_or(10))));
    if (!cap) return {-1, EINVAL};
    auto data = emu::xe_stream_of(*cap);
    if (!data) return {-1, EINVAL};
    std::vector<std::uint64_t> due;
    const long double ns_per_tick = 1e9L / static_cast<long double>(cap->timestamp_hz);
    for (const auto& it : cap->read) {
      if (it.k != emu::read_item::kind::sample) continue;
      due.push_back(static_cast<std::uint64_t>(
          static_cast<long double>(cap->reports[it.report].at.timestamp) * ns_per_tick));
    }
    gpu_->stream_open = true;
    gpu_->clock_origin = std::chrono::steady_clock::now();
    gpu_->clock_base = cap->start.timestamp;
    return {k.install(std::make_shared<xe_stream_node>(gpu_, std::move(*data), cap->report_size(),
                                                       std::move(due), !disabled)),
            0};
  }

  std::shared_ptr<xe_gpu> gpu_;
};

}  // namespace detail

// Adds an Xe GPU at `node` (card `card`) with its sysfs files and sysctl.
inline void add_xe(kernel& k, const std::string& node, const xe_config& cfg, unsigned card = 0) {
  auto gpu = std::make_shared<detail::xe_gpu>();
  gpu->cfg = cfg;
  gpu->configs.seed(cfg.metric_sets);
  k.add_path(node, [gpu](int, std::shared_ptr<sim::node>& out) {
    out = std::make_shared<detail::xe_node>(gpu);
    return sys_result{};
  });
  k.add_file(xe::paranoid_sysctl, cfg.paranoid ? "1\n" : "0\n");
  const std::string dir = "/sys/class/drm/card" + std::to_string(card) + "/";
  const emu::sku& s = emu::sku_of(cfg.platform);
  k.add_file(dir + "device/tile0/gt0/freq0/min_freq", std::to_string(s.min_mhz) + "\n");
  k.add_file(dir + "device/tile0/gt0/freq0/max_freq", std::to_string(s.max_mhz) + "\n");
  // metrics/<uuid>/id: the listed sets and the added ones, or any uuid when none are listed.
  add_metrics_files(k, dir, std::shared_ptr<sim::config_table>(gpu, &gpu->configs),
                    cfg.metric_sets.empty());
}

}  // namespace hwpc::live::sim
