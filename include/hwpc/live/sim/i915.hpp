// The i915 driver of the simulated kernel: a render node that answers
// GETPARAM, QUERY TOPOLOGY_INFO and REG_READ, and DRM_IOCTL_I915_PERF_OPEN
// with the checks of the i915 uapi (FACTS-live sections 1.2-1.6, 1.11): flag
// and property validation with their errno, the privilege rule
// (perf_stream_paranoid, oa_max_sample_rate), one stream per GPU (EBUSY).
// The stream is disabled at open when asked, reads fail with EIO until it
// is enabled, and read() hands out whole records only (ENOSPC when the first
// does not fit, EAGAIN when none is ready). Its reports come from the OA
// unit emulator (emu::emulate) and its records from the emulator's own
// stream writer (emu::i915_stream): OA_REPORT_LOST and OA_BUFFER_LOST
// records appear where the emulated unit lost reports or overflowed.
#pragma once

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/emu/recording_records.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/live/i915_uapi.hpp"
#include "hwpc/live/sim/configs.hpp"
#include "hwpc/live/sim/kernel.hpp"

namespace hwpc::live::sim {

struct i915_config {
  intel::platform platform = intel::platform::tgl;
  std::size_t reports = 64;  // reports the emulated OA unit writes per stream
  std::uint64_t seed = 1;
  emu::fault_set faults{};                  // e.g. overflow: OA_BUFFER_LOST records
  bool paranoid = false;                    // dev.i915.perf_stream_paranoid = 1
  bool perfmon = true;                      // the caller has CAP_PERFMON
  std::uint64_t max_sample_rate = 100'000;  // dev.i915.oa_max_sample_rate (Hz)
  bool refuse_exponent = false;             // a kernel that refuses OA_EXPONENT (EINVAL)
  // Metric sets the kernel has: hw_config_guid -> id. Empty: every uuid asked
  // for is present (ids from 2 up, in the order they are asked).
  std::map<std::string, std::uint64_t> metric_sets;
};

// The emulator configuration a stream of this simulated GPU runs (tests
// compare a live recording with emu::recording of the same run).
inline emu::config emulated_run(const i915_config& cfg, std::string_view format,
                                unsigned exponent) {
  emu::config c;
  c.platform = cfg.platform;
  c.format = std::string(format);
  c.exponent = exponent;
  c.reports = cfg.reports;
  c.seed = cfg.seed;
  c.faults = cfg.faults;
  c.kernel_driver = emu::driver::i915;
  return c;
}

namespace detail {

// What every stream and node of one simulated GPU shares.
struct i915_gpu {
  i915_config cfg;
  bool stream_open = false;
  config_table configs{{}, 2, {}};  // ids start at 2 (1 is the kernel's test config)
  // The GPU clock: `clock_base` ticks at `clock_origin`. A stream's open
  // moves it to the emulated run's start, so reports and REG_READ agree.
  std::chrono::steady_clock::time_point clock_origin = std::chrono::steady_clock::now();
  std::uint64_t clock_base = 0;
  std::uint64_t ns_since_origin() const {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - clock_origin)
                                          .count());
  }
  std::uint64_t gpu_ticks() const {
    return clock_base + static_cast<std::uint64_t>(static_cast<long double>(ns_since_origin()) *
                                                   timestamp_hz() / 1e9L);
  }
  std::uint64_t timestamp_hz() const { return intel::info(cfg.platform).timestamp_frequency_hz; }
  const emu::format_desc* format(std::uint64_t uapi_id) const {
    for (const auto& f : emu::emu_formats) {
      if (f.on(cfg.platform) && f.uapi_id >= 0 &&
          static_cast<std::uint64_t>(f.uapi_id) == uapi_id) {
        return &f;
      }
    }
    return nullptr;
  }
};

// The stream: its records (emu::i915_stream) and, per record, when the
// emulated unit had written it (ns after the stream's open): a record is
// readable once the GPU clock has passed it and the stream is enabled.
class i915_stream_node final : public node {
 public:
  i915_stream_node(std::shared_ptr<i915_gpu> gpu, std::vector<std::byte> records,
                   std::vector<std::uint64_t> due_ns, bool enabled)
      : gpu_(std::move(gpu)),
        records_(std::move(records)),
        due_ns_(std::move(due_ns)),
        enabled_(enabled) {}
  ~i915_stream_node() override { gpu_->stream_open = false; }

  sys_result ioctl(kernel&, unsigned long req, void*) override {
    if (req == i915::ioctl_stream_enable) {
      enabled_ = true;
      return {};
    }
    if (req == i915::ioctl_stream_disable) {
      enabled_ = false;
      return {};
    }
    return {-1, EINVAL};
  }
  sys_result read(void* buf, std::size_t n) override {
    if (!enabled_) return {-1, EIO};
    const std::size_t limit = landed();
    if (pos_ >= limit) return {-1, EAGAIN};
    std::size_t end = pos_;
    while (end < limit) {
      const std::uint16_t size = load_le16(records_.data() + end + 6);
      if (end + size - pos_ > n) break;
      end += size;
    }
    if (end == pos_) return {-1, ENOSPC};
    std::memcpy(buf, records_.data() + pos_, end - pos_);
    const long k = static_cast<long>(end - pos_);
    pos_ = end;
    return {k, 0};
  }
  short ready() override { return enabled_ && pos_ < landed() ? POLLIN : 0; }

 private:
  // The end of the records the unit has written by now.
  std::size_t landed() {
    const std::uint64_t now = gpu_->ns_since_origin();
    while (next_ < due_ns_.size() && due_ns_[next_] <= now) {
      landed_ += load_le16(records_.data() + landed_ + 6);
      ++next_;
    }
    return landed_;
  }

  std::shared_ptr<i915_gpu> gpu_;
  std::vector<std::byte> records_;
  std::vector<std::uint64_t> due_ns_;
  std::size_t pos_ = 0;
  std::size_t landed_ = 0;
  std::size_t next_ = 0;
  bool enabled_;
};

class i915_node final : public node {
 public:
  explicit i915_node(std::shared_ptr<i915_gpu> gpu) : gpu_(std::move(gpu)) {}

  sys_result ioctl(kernel& k, unsigned long req, void* arg) override {
    if (arg == nullptr && req != i915::ioctl_stream_enable) return {-1, EFAULT};
    if (req == i915::ioctl_getparam) return getparam(*static_cast<i915::getparam*>(arg));
    if (req == i915::ioctl_query) return query(*static_cast<i915::query*>(arg));
    if (req == i915::ioctl_reg_read) {
      auto& r = *static_cast<i915::reg_read*>(arg);
      if ((r.offset & ~i915::reg_read_8b) != i915::render_ring_timestamp) return {-1, EINVAL};
      r.val = gpu_->gpu_ticks();
      return {};
    }
    if (req == i915::ioctl_perf_open)
      return perf_open(k, *static_cast<i915::perf_open_param*>(arg));
    if (req == i915::ioctl_perf_add_config) {
      return add_config(*static_cast<const i915::perf_oa_config*>(arg));
    }
    if (req == i915::ioctl_perf_remove_config) {
      return remove_config(*static_cast<const std::uint64_t*>(arg));
    }
    return {-1, EINVAL};  // DRM answers unknown driver ioctls with EINVAL
  }

 private:
  sys_result getparam(i915::getparam& g) {
    long v = 0;
    switch (g.param) {
      case i915::param::chipset_id:
        v = emu::detail::device_ids[static_cast<std::size_t>(gpu_->cfg.platform)];
        break;
      case i915::param::revision:
        v = 0;
        break;
      case i915::param::perf_revision:
        v = 5;
        break;
      case i915::param::cs_timestamp_frequency:
      case i915::param::oa_timestamp_frequency:
        v = static_cast<long>(gpu_->timestamp_hz());
        break;
      default:
        return {-1, EINVAL};
    }
    if (g.value_ptr == 0) return {-1, EFAULT};
    *reinterpret_cast<int*>(static_cast<std::uintptr_t>(g.value_ptr)) = static_cast<int>(v);
    return {};
  }

  sys_result query(i915::query& q) {
    if (q.flags != 0 || q.num_items == 0 || q.items_ptr == 0) return {-1, EINVAL};
    auto* items = reinterpret_cast<i915::query_item*>(static_cast<std::uintptr_t>(q.items_ptr));
    for (std::uint32_t i = 0; i < q.num_items; ++i) {
      auto& it = items[i];
      if (it.query_id != i915::query_topology_info) {
        it.length = -EINVAL;
        continue;
      }
      const auto info = emu::records::topology_info(emu::sku_of(gpu_->cfg.platform));
      if (it.length == 0) {
        it.length = static_cast<std::int32_t>(info.size());
      } else if (it.length < static_cast<std::int32_t>(info.size()) || it.data_ptr == 0) {
        it.length = -EINVAL;
      } else {
        std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(it.data_ptr)), info.data(),
                    info.size());
        it.length = static_cast<std::int32_t>(info.size());
      }
    }
    return {};
  }

  // ADD_CONFIG's checks (FACTS-live section 1.8), but for the register
  // whitelist, which the simulated kernel does not know.
  sys_result add_config(const i915::perf_oa_config& c) {
    const auto& cfg = gpu_->cfg;
    if (cfg.paranoid && !cfg.perfmon) return {-1, EACCES};
    if (c.n_mux_regs + c.n_boolean_regs + c.n_flex_regs == 0) return {-1, EINVAL};
    const std::string uuid(c.uuid, sizeof c.uuid);
    if (!is_config_uuid(uuid)) return {-1, EINVAL};
    if (c.n_flex_regs != 0 && intel::is_gen7_family(intel::generation_of(cfg.platform))) {
      return {-1, EINVAL};
    }
    return gpu_->configs.add(uuid);
  }
  sys_result remove_config(std::uint64_t id) {
    const auto& cfg = gpu_->cfg;
    if (cfg.paranoid && !cfg.perfmon) return {-1, EACCES};
    return gpu_->configs.remove(id);
  }

  sys_result perf_open(kernel& k, const i915::perf_open_param& p) {
    const auto& cfg = gpu_->cfg;
    if ((p.flags & ~(i915::open_fd_cloexec | i915::open_fd_nonblock | i915::open_disabled)) != 0) {
      return {-1, EINVAL};
    }
    if (p.num_properties == 0 || p.num_properties >= i915::prop::max) return {-1, EINVAL};
    if (p.properties_ptr == 0) return {-1, EFAULT};
    const auto* props =
        reinterpret_cast<const std::uint64_t*>(static_cast<std::uintptr_t>(p.properties_ptr));
    bool sample_oa = false;
    std::uint64_t set = 0, fmt = 0;
    std::optional<std::uint64_t> exponent, ctx;
    for (std::uint32_t i = 0; i < p.num_properties; ++i) {
      const std::uint64_t id = props[2 * i], v = props[2 * i + 1];
      switch (id) {
        case i915::prop::ctx_handle:
          ctx = v;
          break;
        case i915::prop::sample_oa:
          sample_oa = v != 0;
          break;
        case i915::prop::oa_metrics_set:
          if (v == 0) return {-1, EINVAL};
          set = v;
          break;
        case i915::prop::oa_format:
          if (v == 0 || v >= 15 || gpu_->format(v) == nullptr) return {-1, EINVAL};
          fmt = v;
          break;
        case i915::prop::oa_exponent:
          if (v > i915::max_exponent || cfg.refuse_exponent) return {-1, EINVAL};
          exponent = v;
          break;
        case i915::prop::poll_oa_period:
          if (v < i915::min_poll_oa_period_ns) return {-1, EINVAL};
          break;
        case i915::prop::hold_preemption:
        case i915::prop::global_sseu:
        case i915::prop::oa_engine_class:
        case i915::prop::oa_engine_instance:
          return {-1, EINVAL};  // not simulated: refused rather than ignored
        default:
          return {-1, EINVAL};
      }
    }
    if (!sample_oa || fmt == 0) return {-1, EINVAL};
    if (ctx) return {-1, ENOENT};  // the simulated GPU has no GEM contexts
    // A system-wide stream is privileged (no CTX_HANDLE here).
    if (cfg.paranoid && !cfg.perfmon) return {-1, EACCES};
    if (exponent) {
      const long double period_ns =
          static_cast<long double>(2ull << *exponent) * 1e9L / gpu_->timestamp_hz();
      if (1e9L / period_ns > static_cast<long double>(cfg.max_sample_rate) && !cfg.perfmon) {
        return {-1, EACCES};
      }
    }
    // With no sets listed, the kernel has every set (any id it could have given).
    bool known_set = cfg.metric_sets.empty();
    known_set = known_set || gpu_->configs.has_id(set);
    if (!known_set) return {-1, EINVAL};
    if (gpu_->stream_open) return {-1, EBUSY};
    // The reports of this stream, from the emulated OA unit.
    const emu::config c =
        emulated_run(cfg, gpu_->format(fmt)->name, static_cast<unsigned>(exponent.value_or(10)));
    auto cap = emu::emulate(c);
    if (!cap) return {-1, EINVAL};
    auto records = emu::i915_stream(*cap);
    if (!records) return {-1, EINVAL};
    // When each record is due: its report's time (a loss marker: the report before it).
    std::vector<std::uint64_t> due;
    std::uint64_t last = 0;
    const long double ns_per_tick = 1e9L / static_cast<long double>(gpu_->timestamp_hz());
    for (const auto& it : cap->read) {
      if (it.k == emu::read_item::kind::unlanded) continue;  // i915 skips these
      if (it.k == emu::read_item::kind::sample) {
        last = static_cast<std::uint64_t>(
            static_cast<long double>(cap->reports[it.report].at.timestamp) * ns_per_tick);
      }
      due.push_back(last);
    }
    gpu_->stream_open = true;
    gpu_->clock_origin = std::chrono::steady_clock::now();
    gpu_->clock_base = cap->start.timestamp;
    const bool enabled = (p.flags & i915::open_disabled) == 0;
    return {k.install(std::make_shared<i915_stream_node>(gpu_, std::move(*records), std::move(due),
                                                         enabled)),
            0};
  }

  std::shared_ptr<i915_gpu> gpu_;
};

}  // namespace detail

// Adds an i915 GPU at `node` (e.g. /dev/dri/renderD128, card 0) with its
// sysfs files and sysctls.
inline void add_i915(kernel& k, const std::string& node, const i915_config& cfg,
                     unsigned card = 0) {
  auto gpu = std::make_shared<detail::i915_gpu>();
  gpu->cfg = cfg;
  gpu->configs.seed(cfg.metric_sets);
  k.add_path(node, [gpu](int, std::shared_ptr<sim::node>& out) {
    out = std::make_shared<detail::i915_node>(gpu);
    return sys_result{};
  });
  const std::string dir = "/sys/class/drm/card" + std::to_string(card) + "/";
  const emu::sku& s = emu::sku_of(cfg.platform);
  k.add_file(dir + "gt_min_freq_mhz", std::to_string(s.min_mhz) + "\n");
  k.add_file(dir + "gt_max_freq_mhz", std::to_string(s.max_mhz) + "\n");
  k.add_file(i915::paranoid_sysctl, cfg.paranoid ? "1\n" : "0\n");
  k.add_file(i915::max_sample_rate_sysctl, std::to_string(cfg.max_sample_rate) + "\n");
  // metrics/<uuid>/id: the listed sets, or any uuid when none are listed.
  add_metrics_files(k, dir, std::shared_ptr<sim::config_table>(gpu, &gpu->configs),
                    cfg.metric_sets.empty());
}

}  // namespace hwpc::live::sim
