// Arm's kbase driver in the simulated kernel: /dev/mali0 answering the
// version checks (Job Manager or CSF, by the GPU), SET_FLAGS, GET_GPUPROPS,
// KINSTR_PRFCNT_ENUM_INFO and SETUP, and a kinstr_prfcnt reader fd with its
// sample ring: samples become due one period apart after START, land in the
// next free slot of the mapped ring, are handed out by GET_SAMPLE and come
// back with PUT_SAMPLE (a wrong offset is EINVAL). A sample due while every
// slot is taken is lost and the next one carries the overflow flag
// (FACTS-mali section 5). The samples come from the Mali sample emulator
// (mali::emulate, kinstr_prfcnt layout); only their values offsets are moved
// to the slot they land in.
#pragma once

#include <poll.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/live/kbase_uapi.hpp"
#include "hwpc/live/sim/kernel.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/gpu.hpp"

namespace hwpc::live::sim {

struct kbase_config {
  const mali::gpu_product* gpu = nullptr;  // required
  std::uint32_t l2_slices = 2;
  std::uint64_t core_mask = 0xf;
  std::size_t samples = 16;  // samples the emulated GPU produces per session
  std::uint64_t seed = 1;
  std::size_t ring_slots = 32;
  unsigned major = 0, minor = 0;  // interface version; 0.0: 11.40 (JM) or 1.21 (CSF)
  bool node_refused = false;      // open() fails with EACCES (mode or SELinux)
  // Every n-th sample finds the ring full (as a consumer that falls behind
  // would): it is lost and the next carries the overflow flag. 0: never.
  std::size_t full_every = 0;
};

namespace detail {

// One emulated sample, as it lies in the emulator's file: its bytes and
// where its block items are (values offsets relative to the sample's start).
struct kbase_sample {
  std::vector<std::byte> bytes;
  std::vector<std::size_t> block_items;
};

// Splits the emulator's kinstr payload into samples (a metadata list, then
// its blocks' values of `block_bytes` each); offsets become sample-relative.
inline std::vector<kbase_sample> split_samples(const std::vector<std::byte>& file,
                                               std::size_t block_bytes) {
  std::vector<kbase_sample> out;
  const std::size_t base = 64;  // values offsets count from the payload
  for (std::size_t at = base; at + 48 <= file.size();) {
    kbase_sample s;
    std::size_t item = at, stop = 0;
    for (; item + 48 <= file.size(); item += 48) {
      const std::uint16_t type = load_le16(file.data() + item);
      if (type == kbase::item::meta_block) {
        s.block_items.push_back(item - at);
        stop = std::max<std::size_t>(stop, base + load_le32(file.data() + item + 16) + block_bytes);
      }
      if (type == kbase::item::none) break;
    }
    stop = std::min(std::max(stop, item + 48), file.size());
    s.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(at),
                   file.begin() + static_cast<std::ptrdiff_t>(stop));
    for (std::size_t b : s.block_items) {
      std::byte* v = s.bytes.data() + b + 16;
      store_le32(v, static_cast<std::uint32_t>(load_le32(v) + base - at));
    }
    out.push_back(std::move(s));
    at = stop;
  }
  return out;
}

struct kbase_gpu {
  kbase_config cfg;
  bool busy = false;
  bool csf() const { return mali::is_csf_product(cfg.gpu->product_id); }
  std::uint16_t values_per_block() const { return cfg.gpu->table->values_per_block; }
};

class kinstr_reader_node final : public node {
 public:
  kinstr_reader_node(std::shared_ptr<kbase_gpu> gpu, std::uint64_t period_ns)
      : gpu_(std::move(gpu)), period_ns_(period_ns == 0 ? 1'000'000 : period_ns) {
    mali::emulate_options o;
    o.gpu_id = mali::gpu_id_of_product(gpu_->cfg.gpu->product_id);
    o.csf = gpu_->csf();
    o.values_per_block = gpu_->values_per_block();
    o.table = gpu_->cfg.gpu->table;
    o.kinstr = true;
    o.l2_slices = gpu_->cfg.l2_slices;
    o.core_mask = gpu_->cfg.core_mask;
    o.samples = gpu_->cfg.samples;
    o.seed = gpu_->cfg.seed;
    o.period_ns = period_ns_;
    samples_ = split_samples(mali::emulate(o).file, std::size_t{o.values_per_block} * 8);
    for (const auto& s : samples_) slot_bytes_ = std::max(slot_bytes_, s.bytes.size());
    slot_bytes_ = (slot_bytes_ + 63) / 64 * 64;
    ring_.assign(slot_bytes_ * gpu_->cfg.ring_slots, std::byte{0});
    taken_.assign(gpu_->cfg.ring_slots, false);
  }
  ~kinstr_reader_node() override { gpu_->busy = false; }
  std::size_t ring_bytes() const noexcept { return ring_.size(); }

  sys_result ioctl(kernel&, unsigned long req, void* arg) override {
    if (arg == nullptr) return {-1, EFAULT};
    if (req == kbase::ioctl_kinstr_cmd) {
      const auto& c = *static_cast<const kbase::kinstr_control*>(arg);
      if (c.cmd == kbase::cmd::start) {
        if (!running_) start_ = std::chrono::steady_clock::now();
        running_ = true;
        return {};
      }
      if (c.cmd == kbase::cmd::stop) {
        land();
        running_ = false;
        return {};
      }
      return {-1, EINVAL};
    }
    if (req == kbase::ioctl_kinstr_get_sample) {
      land();
      if (ready_.empty()) return {-1, ENODATA};
      auto& a = *static_cast<kbase::kinstr_sample_access*>(arg);
      a.sequence = ++sequence_;
      a.sample_offset_bytes = ready_.front() * slot_bytes_;
      handed_.push_back(ready_.front());
      ready_.pop_front();
      return {};
    }
    if (req == kbase::ioctl_kinstr_put_sample) {
      const auto& a = *static_cast<const kbase::kinstr_sample_access*>(arg);
      auto it = std::find_if(handed_.begin(), handed_.end(), [&](std::size_t slot) {
        return slot * slot_bytes_ == a.sample_offset_bytes;
      });
      if (it == handed_.end()) return {-1, EINVAL};
      taken_[*it] = false;
      handed_.erase(it);
      return {};
    }
    return {-1, ENOTTY};
  }
  short ready() override {
    land();
    return ready_.empty() ? 0 : POLLIN;
  }
  sys_result mmap(std::size_t len, int prot, int flags, long off) override {
    if (off != 0 || len != ring_.size() || (prot & PROT_WRITE) != 0 || (flags & MAP_SHARED) != 0) {
      return {-1, EINVAL};
    }
    return {static_cast<long>(reinterpret_cast<std::intptr_t>(ring_.data())), 0};
  }

 private:
  // Samples whose period has ended land in free slots, or are lost.
  void land() {
    if (!running_) return;
    const auto ns = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   std::chrono::steady_clock::now() - start_)
                                                   .count());
    while (next_ < samples_.size() && (next_ + 1) * period_ns_ <= ns) {
      const auto free = std::find(taken_.begin(), taken_.end(), false);
      const std::size_t every = gpu_->cfg.full_every;
      if (free == taken_.end() || (every != 0 && (next_ + 1) % every == 0)) {
        overflow_ = true;  // the ring is full: this sample is lost
        ++next_;
        continue;
      }
      const std::size_t slot = static_cast<std::size_t>(free - taken_.begin());
      const kbase_sample& s = samples_[next_++];
      std::byte* dst = ring_.data() + slot * slot_bytes_;
      std::memcpy(dst, s.bytes.data(), s.bytes.size());
      for (std::size_t b : s.block_items) {
        store_le32(dst + b + 16,
                   static_cast<std::uint32_t>(load_le32(dst + b + 16) + slot * slot_bytes_));
      }
      if (overflow_) {
        store_le32(dst + 40, load_le32(dst + 40) | 1u);  // SAMPLE flags: overflow
        overflow_ = false;
      }
      taken_[slot] = true;
      ready_.push_back(slot);
    }
  }

  std::shared_ptr<kbase_gpu> gpu_;
  std::uint64_t period_ns_;
  std::vector<kbase_sample> samples_;
  std::size_t slot_bytes_ = 64;
  std::vector<std::byte> ring_;
  std::vector<bool> taken_;
  std::deque<std::size_t> ready_, handed_;
  std::size_t next_ = 0;
  std::uint64_t sequence_ = 0;
  bool running_ = false;
  bool overflow_ = false;
  std::chrono::steady_clock::time_point start_{};
};

class kbase_node final : public node {
 public:
  explicit kbase_node(std::shared_ptr<kbase_gpu> gpu) : gpu_(std::move(gpu)) {}

  sys_result ioctl(kernel& k, unsigned long req, void* arg) override {
    if (arg == nullptr) return {-1, EFAULT};
    const bool csf = gpu_->csf();
    if (req == kbase::ioctl_version_check_jm || req == kbase::ioctl_version_check_csf) {
      if ((req == kbase::ioctl_version_check_csf) != csf) return {-1, ENOTTY};
      auto& v = *static_cast<kbase::version_check*>(arg);
      const bool given = gpu_->cfg.major != 0 || gpu_->cfg.minor != 0;
      v.major = static_cast<std::uint16_t>(given ? gpu_->cfg.major : csf ? 1 : 11);
      v.minor = static_cast<std::uint16_t>(given ? gpu_->cfg.minor : csf ? 21 : 40);
      version_checked_ = true;
      return {};
    }
    if (req == kbase::ioctl_set_flags) {
      if (!version_checked_) return {-1, EINVAL};
      return {};
    }
    if (req == kbase::ioctl_get_gpuprops) return gpuprops(*static_cast<kbase::get_gpuprops*>(arg));
    if (!kinstr_present()) return {-1, ENOTTY};
    if (req == kbase::ioctl_kinstr_enum_info) {
      return enum_info(*static_cast<kbase::kinstr_enum_info*>(arg));
    }
    if (req == kbase::ioctl_kinstr_setup) return setup(k, *static_cast<kbase::kinstr_setup*>(arg));
    return {-1, ENOTTY};
  }

 private:
  bool kinstr_present() const {
    const auto& c = gpu_->cfg;
    if (c.major == 0 && c.minor == 0) return true;
    const auto need = gpu_->csf() ? kbase::kinstr_min_csf : kbase::kinstr_min_jm;
    return c.major > need.major || (c.major == need.major && c.minor >= need.minor);
  }

  sys_result gpuprops(kbase::get_gpuprops& q) {
    std::vector<std::byte> b;
    const auto put = [&](std::uint32_t id, std::uint64_t v, unsigned code) {
      const std::size_t at = b.size();
      b.resize(at + 4 + (std::size_t{1} << code));
      store_le32(b.data() + at, id << 2 | code);
      for (std::size_t i = 0; i < (std::size_t{1} << code); ++i) {
        b[at + 4 + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
      }
    };
    put(kbase::gpuprop::raw_gpu_id, mali::gpu_id_of_product(gpu_->cfg.gpu->product_id), 3);
    put(kbase::gpuprop::l2_num_l2_slices, gpu_->cfg.l2_slices, 0);
    put(kbase::gpuprop::raw_shader_present, gpu_->cfg.core_mask, 3);
    put(kbase::gpuprop::coherency_num_core_groups, 1, 0);
    put(kbase::gpuprop::coherency_group_0, gpu_->cfg.core_mask, 3);
    if (q.buffer == 0 && q.size == 0) return {static_cast<long>(b.size()), 0};
    if (q.size < b.size()) return {-1, EINVAL};
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(q.buffer)), b.data(), b.size());
    return {static_cast<long>(b.size()), 0};
  }

  sys_result enum_info(kbase::kinstr_enum_info& e) {
    std::vector<std::byte> items;
    const auto add = [&](const auto& item) {
      const auto* p = reinterpret_cast<const std::byte*>(&item);
      items.insert(items.end(), p, p + sizeof item);
    };
    for (std::uint16_t req : {kbase::request_type_mode, kbase::request_type_enable}) {
      kbase::enum_request_item r;
      r.request_type = req;
      r.versions_mask = 1;
      add(r);
    }
    kbase::enum_request_item info;  // SAMPLE_INFO: two clock domains
    info.type = kbase::item::enum_sample_info;
    info.request_type = 2;
    add(info);
    const std::uint16_t instances[4] = {
        1, 1, static_cast<std::uint16_t>(gpu_->cfg.l2_slices),
        static_cast<std::uint16_t>(std::popcount(gpu_->cfg.core_mask))};
    for (std::uint8_t t = 0; t < 4; ++t) {
      kbase::enum_block_item blk;
      blk.block_type = t;
      blk.num_instances = instances[t];
      blk.num_values = gpu_->values_per_block();
      blk.counter_mask[0] = blk.counter_mask[1] = ~0ull;
      add(blk);
    }
    add(kbase::enum_block_item{});  // sentinel
    const std::uint32_t count = static_cast<std::uint32_t>(items.size() / kbase::enum_item_bytes);
    if (e.info_list_ptr == 0) {
      e.info_item_size = kbase::enum_item_bytes;
      e.info_item_count = count;
      return {};
    }
    if (e.info_item_size != kbase::enum_item_bytes || e.info_item_count < count) {
      return {-1, EINVAL};
    }
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(e.info_list_ptr)), items.data(),
                items.size());
    return {};
  }

  sys_result setup(kernel& k, kbase::kinstr_setup& s) {
    if (s.request_item_size != kbase::request_item_bytes || s.request_item_count < 3 ||
        s.requests_ptr == 0) {
      return {-1, EINVAL};
    }
    const auto* list =
        reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(s.requests_ptr));
    if (load_le16(list) != kbase::item::request_mode) return {-1, EINVAL};
    const std::uint64_t period = load_le64(list + 16);
    if (load_u8(list + 8) == kbase::mode_periodic && period < 100'000) return {-1, EINVAL};
    for (std::uint32_t i = 1; i + 1 < s.request_item_count; ++i) {
      const std::byte* p = list + i * kbase::request_item_bytes;
      if (load_le16(p) != kbase::item::request_enable || load_u8(p + 8) > 3) return {-1, EINVAL};
    }
    const std::byte* last = list + (s.request_item_count - 1) * kbase::request_item_bytes;
    for (std::size_t i = 0; i < kbase::request_item_bytes; ++i) {
      if (last[i] != std::byte{0}) return {-1, EINVAL};  // the list ends with a zero item
    }
    if (gpu_->busy) return {-1, EBUSY};
    gpu_->busy = true;
    auto reader = std::make_shared<kinstr_reader_node>(gpu_, period);
    s.request_item_count = kbase::metadata_item_bytes;  // out: metadata item size
    s.request_item_size = static_cast<std::uint32_t>(reader->ring_bytes());  // out: mmap size
    return {k.install(std::move(reader)), 0};
  }

  std::shared_ptr<kbase_gpu> gpu_;
  bool version_checked_ = false;
};

}  // namespace detail

// Adds a kbase GPU at `node` (/dev/mali0).
inline void add_kbase(kernel& k, const std::string& node, const kbase_config& cfg) {
  auto gpu = std::make_shared<detail::kbase_gpu>();
  gpu->cfg = cfg;
  k.add_path(node, [gpu](int, std::shared_ptr<sim::node>& out) {
    if (gpu->cfg.node_refused) return sys_result{-1, EACCES};
    out = std::make_shared<detail::kbase_node>(gpu);
    return sys_result{};
  });
}

}  // namespace hwpc::live::sim
