// A live Arm Mali counter session on kbase (/dev/mali<N>) through its
// current reader, kinstr_prfcnt (FACTS-live sections 3.2-3.5): version check
// (Job Manager, then CSF), SET_FLAGS, GET_GPUPROPS (GPU_ID, L2 slices, core
// mask), ENUM_INFO, SETUP (periodic mode, every block type enabled), mmap
// of the sample ring, START/STOP, then per sample poll, GET_SAMPLE, copy,
// PUT_SAMPLE. Each sample is copied out of the ring into the layout of the
// hwpc Mali capture file (mali/capture_file.hpp: metadata list, then its
// blocks' values, offsets from the payload's start) and checked by the
// reader that decodes captured files (mali::kinstr_reader).
//
// Kernels without kinstr_prfcnt (JM before 11.37, CSF before 1.17) get an
// error that says so: the legacy vinstr reader is not driven live
// (docs/record.md, "Arm Mali": why).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/live/explain.hpp"
#include "hwpc/live/kbase_uapi.hpp"
#include "hwpc/live/sys.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"

namespace hwpc::live {

struct kbase_counts {
  std::size_t samples = 0;
  std::size_t overflow = 0;  // samples the kernel flagged: its buffer was full (data lost)
  std::size_t errors = 0;    // samples flagged as errors
};

class kbase_session {
 public:
  static result<kbase_session> open(syscalls& sys, const std::string& path,
                                    std::uint64_t period_ns) {
    const sys_result fd = sys.open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (!fd.ok()) return explain_open(fd.err, path, driver_kind::kbase);
    kbase_session s(sys, unique_fd(sys, static_cast<int>(fd.value)));
    s.path_ = path;
    if (auto e = s.check_version(); !e) return e.error_value();
    kbase::set_flags f;
    f.create_flags = kbase::flag_system_monitor;
    const sys_result fr = sys.ioctl(s.dev_.get(), kbase::ioctl_set_flags, &f);
    if (!fr.ok() && fr.err != EPERM && fr.err != EINVAL) {
      return live_error(path + ": SET_FLAGS failed: " + errno_name(fr.err));
    }
    if (auto e = s.read_gpu_props(); !e) return e.error_value();
    if (auto e = s.enumerate(); !e) return e.error_value();
    if (auto e = s.setup(period_ns); !e) return e.error_value();
    return s;
  }

  // The capture file's header for this GPU.
  mali::capture_header header() const {
    mali::capture_header h;
    h.reader = mali::reader_kind::kinstr_prfcnt;
    h.gpu_id = gpu_id_;
    h.layout.l2_slices = l2_slices_;
    h.layout.core_mask = core_mask_;
    return h;
  }
  const mali::gpu_product& gpu() const noexcept { return *gpu_; }
  std::pair<unsigned, unsigned> interface_version() const noexcept { return {major_, minor_}; }

  result<void> start() { return command(kbase::cmd::start); }
  result<void> stop() { return command(kbase::cmd::stop); }

  result<bool> wait(int timeout_ms) {
    short revents = 0;
    const sys_result r = sys_->poll(reader_.get(), POLLIN, timeout_ms, revents);
    if (!r.ok()) return live_error("poll on the kinstr_prfcnt reader failed: " + errno_name(r.err));
    return r.value > 0 && (revents & POLLIN) != 0;
  }

  // Takes one sample from the ring (GET_SAMPLE), appends it to `out` in the
  // capture file's layout and returns the ring buffer (PUT_SAMPLE). `out`
  // starts `out_at` bytes into the file's payload, which values offsets
  // count from. False when no sample is ready.
  result<bool> take_sample(std::vector<std::byte>& out, std::size_t out_at = 0) {
    kbase::kinstr_sample_access a;
    const sys_result g = sys_->ioctl(reader_.get(), kbase::ioctl_kinstr_get_sample, &a);
    if (!g.ok()) {
      if (g.err == EAGAIN || g.err == ENODATA) return false;
      return live_error("GET_SAMPLE failed: " + errno_name(g.err));
    }
    auto copied = relocate(a.sample_offset_bytes, out_at + out.size());
    const sys_result p = sys_->ioctl(reader_.get(), kbase::ioctl_kinstr_put_sample, &a);
    if (!copied) return copied.error_value();
    if (!p.ok()) return live_error("PUT_SAMPLE failed: " + errno_name(p.err));
    out.insert(out.end(), copied->begin(), copied->end());
    return true;
  }

  const kbase_counts& counts() const noexcept { return counts_; }

  kbase_session(kbase_session&& o) noexcept
      : sys_(o.sys_),
        dev_(std::move(o.dev_)),
        reader_(std::move(o.reader_)),
        path_(std::move(o.path_)),
        csf_(o.csf_),
        major_(o.major_),
        minor_(o.minor_),
        gpu_id_(o.gpu_id_),
        l2_slices_(o.l2_slices_),
        core_mask_(o.core_mask_),
        gpu_(o.gpu_),
        meta_item_size_(o.meta_item_size_),
        map_size_(o.map_size_),
        map_(std::exchange(o.map_, nullptr)),  // unmapped once, by the new owner
        cookie_(o.cookie_),
        counts_(o.counts_) {
    std::copy(std::begin(o.values_per_block_), std::end(o.values_per_block_), values_per_block_);
  }
  kbase_session& operator=(kbase_session&&) = delete;
  ~kbase_session() {
    if (map_ != nullptr) sys_->munmap(map_, map_size_);
  }

 private:
  kbase_session(syscalls& s, unique_fd fd) : sys_(&s), dev_(std::move(fd)) {}

  result<void> check_version() {
    kbase::version_check v;
    sys_result r = sys_->ioctl(dev_.get(), kbase::ioctl_version_check_jm, &v);
    csf_ = !r.ok() || (v.major == 0 && v.minor == 0);
    if (csf_) {
      v = {};
      r = sys_->ioctl(dev_.get(), kbase::ioctl_version_check_csf, &v);
      if (!r.ok() || (v.major == 0 && v.minor == 0)) {
        return live_error(path_ +
                          " answers neither the Job Manager nor the CSF version check: "
                          "a kbase older than r21, or not kbase");
      }
    }
    major_ = v.major;
    minor_ = v.minor;
    const kbase::version_check need = csf_ ? kbase::kinstr_min_csf : kbase::kinstr_min_jm;
    if (major_ < need.major || (major_ == need.major && minor_ < need.minor)) {
      return live_error(
          "this kbase (" + std::string(csf_ ? "CSF" : "Job Manager") + " interface " +
          std::to_string(major_) + "." + std::to_string(minor_) +
          ") is too old for kinstr_prfcnt (needs " + std::to_string(need.major) + "." +
          std::to_string(need.minor) +
          "), the only counter reader hwpc records through: its legacy vinstr reader is not "
          "driven live (docs/record.md says why). A kbase driver with interface " +
          std::to_string(need.major) + "." + std::to_string(need.minor) +
          " or later has kinstr_prfcnt");
    }
    return {};
  }

  result<void> read_gpu_props() {
    kbase::get_gpuprops q;
    const sys_result n = sys_->ioctl(dev_.get(), kbase::ioctl_get_gpuprops, &q);
    if (!n.ok() || n.value <= 0 || n.value > (1 << 20)) {
      return live_error(path_ + ": GET_GPUPROPS gave no size (" + errno_name(n.err) + ")");
    }
    std::vector<std::byte> buf(static_cast<std::size_t>(n.value));
    q.buffer = reinterpret_cast<std::uintptr_t>(buf.data());
    q.size = static_cast<std::uint32_t>(buf.size());
    if (const sys_result r = sys_->ioctl(dev_.get(), kbase::ioctl_get_gpuprops, &q); !r.ok()) {
      return live_error(path_ + ": GET_GPUPROPS failed: " + errno_name(r.err));
    }
    std::uint64_t groups = 0, shader_present = 0;
    std::uint64_t group_mask[16] = {};
    for (std::size_t at = 0; at + 4 <= buf.size();) {
      const std::uint32_t key = load_le32(buf.data() + at);
      const std::size_t size = std::size_t{1} << (key & 3);
      if (at + 4 + size > buf.size()) {
        return live_error("GET_GPUPROPS entry at byte " + std::to_string(at) + " is truncated");
      }
      std::uint64_t v = 0;
      for (std::size_t i = 0; i < size; ++i) {
        v |= std::uint64_t{load_u8(buf.data() + at + 4 + i)} << (8 * i);
      }
      const std::uint32_t id = key >> 2;
      if (id == kbase::gpuprop::raw_gpu_id) gpu_id_ = v;
      if (id == kbase::gpuprop::l2_num_l2_slices) l2_slices_ = static_cast<std::uint32_t>(v);
      if (id == kbase::gpuprop::coherency_num_core_groups) groups = v;
      if (id == kbase::gpuprop::raw_shader_present) shader_present = v;
      if (id >= kbase::gpuprop::coherency_group_0 && id < kbase::gpuprop::coherency_group_0 + 16) {
        group_mask[id - kbase::gpuprop::coherency_group_0] = v;
      }
      at += 4 + size;
    }
    for (std::uint64_t g = 0; g < groups && g < 16; ++g) core_mask_ |= group_mask[g];
    if (core_mask_ == 0) core_mask_ = shader_present;
    auto gpu = mali::find_gpu_by_id(gpu_id_);
    if (!gpu) return live_error(path_ + ": " + gpu.error_value().message);
    gpu_ = *gpu;
    if (l2_slices_ == 0 || core_mask_ == 0) {
      return live_error(path_ + ": GET_GPUPROPS gave no L2 slice count or shader core mask");
    }
    return {};
  }

  result<void> enumerate() {
    kbase::kinstr_enum_info e;
    if (const sys_result r = sys_->ioctl(dev_.get(), kbase::ioctl_kinstr_enum_info, &e); !r.ok()) {
      return live_error(path_ + ": KINSTR_PRFCNT_ENUM_INFO failed (" + errno_name(r.err) +
                        "): no kinstr_prfcnt in this kernel; the legacy vinstr reader is not "
                        "supported by live recording in this version");
    }
    if (e.info_item_size < kbase::enum_item_bytes || e.info_item_count == 0 ||
        e.info_item_count > 4096) {
      return live_error("KINSTR_PRFCNT_ENUM_INFO: implausible item size or count");
    }
    std::vector<std::byte> list(std::size_t{e.info_item_size} * e.info_item_count);
    e.info_list_ptr = reinterpret_cast<std::uintptr_t>(list.data());
    if (const sys_result r = sys_->ioctl(dev_.get(), kbase::ioctl_kinstr_enum_info, &e); !r.ok()) {
      return live_error("KINSTR_PRFCNT_ENUM_INFO's second call failed: " + errno_name(r.err));
    }
    bool mode = false, enable = false;
    for (std::size_t i = 0; i < e.info_item_count; ++i) {
      const std::byte* p = list.data() + i * e.info_item_size;
      const std::uint16_t type = load_le16(p);
      if (type == kbase::item::enum_request) {
        const std::uint16_t req = load_le16(p + 8);
        const bool v0 = (load_le32(p + 12) & 1u) != 0;
        mode = mode || (req == kbase::request_type_mode && v0);
        enable = enable || (req == kbase::request_type_enable && v0);
      } else if (type == kbase::item::enum_block && i + 1 < e.info_item_count) {
        // (the last item is the sentinel, numbered like a block item)
        const std::uint8_t block = load_u8(p + 8);
        if (block < 4) values_per_block_[block] = load_le16(p + 14);
      }
    }
    if (!mode || !enable) {
      return live_error("kinstr_prfcnt does not offer API version 0 of MODE and ENABLE requests");
    }
    return {};
  }

  result<void> setup(std::uint64_t period_ns) {
    std::vector<std::byte> list((1 + 4 + 1) * kbase::request_item_bytes);
    kbase::request_mode_item m;
    m.mode = period_ns == 0 ? kbase::mode_manual : kbase::mode_periodic;
    m.period_ns = period_ns;
    std::memcpy(list.data(), &m, sizeof m);
    for (std::uint8_t b = 0; b < 4; ++b) {
      kbase::request_enable_item en;
      en.block_type = b;
      en.enable_mask[0] = en.enable_mask[1] = ~0ull;
      std::memcpy(list.data() + (1 + b) * kbase::request_item_bytes, &en, sizeof en);
    }
    kbase::kinstr_setup s;
    s.request_item_count = 6;
    s.request_item_size = kbase::request_item_bytes;
    s.requests_ptr = reinterpret_cast<std::uintptr_t>(list.data());
    const sys_result r = sys_->ioctl(dev_.get(), kbase::ioctl_kinstr_setup, &s);
    if (!r.ok()) {
      if (r.err == EBUSY) {
        return live_error(
            "kinstr_prfcnt is in use (EBUSY): close Streamline, AGI or another "
            "counter client");
      }
      return live_error("KINSTR_PRFCNT_SETUP refused the request (" + errno_name(r.err) +
                        "): a period of " + std::to_string(period_ns) +
                        " ns may be below what this kernel allows");
    }
    reader_ = unique_fd(*sys_, static_cast<int>(r.value));
    meta_item_size_ = s.request_item_count;
    map_size_ = s.request_item_size;
    if (meta_item_size_ < kbase::metadata_item_bytes || map_size_ == 0) {
      return live_error("KINSTR_PRFCNT_SETUP: implausible metadata item or ring size");
    }
    const sys_result mm = sys_->mmap(map_size_, PROT_READ, MAP_PRIVATE, reader_.get(), 0);
    if (!mm.ok()) return live_error("mmap of the kinstr_prfcnt ring failed: " + errno_name(mm.err));
    map_ = reinterpret_cast<std::byte*>(static_cast<std::intptr_t>(mm.value));
    return {};
  }

  result<void> command(std::uint16_t c) {
    kbase::kinstr_control k;
    k.cmd = c;
    k.user_data = ++cookie_;
    const sys_result r = sys_->ioctl(reader_.get(), kbase::ioctl_kinstr_cmd, &k);
    if (!r.ok())
      return live_error("kinstr_prfcnt command " + std::to_string(c) +
                        " failed: " + errno_name(r.err));
    return {};
  }

  // One sample of the ring in the capture's layout, its values offsets
  // counted from `base` (where it will sit in the payload); checked by
  // mali::kinstr_reader on a copy whose offsets start at 0.
  result<std::vector<std::byte>> relocate(std::uint64_t offset, std::size_t base) {
    std::vector<std::pair<std::size_t, std::size_t>> blocks;  // item index, ring values offset
    std::vector<std::byte> out;
    for (std::size_t i = 0;; ++i) {
      const std::uint64_t at = offset + i * meta_item_size_;
      if (at + kbase::metadata_item_bytes > map_size_ || i > 300) {
        return live_error("sample metadata at ring offset " + std::to_string(offset) +
                          " runs past the ring");
      }
      const std::byte* p = map_ + at;
      out.insert(out.end(), p, p + kbase::metadata_item_bytes);
      const std::uint16_t type = load_le16(p);
      if (type == kbase::item::none) break;
      if (type == kbase::item::meta_block) blocks.emplace_back(i, load_le32(p + 16));
      if (type == kbase::item::meta_sample) {
        const std::uint32_t flags = load_le32(p + 40);
        counts_.overflow += (flags & mali::kinstr::flag_overflow) != 0;
        counts_.errors += (flags & mali::kinstr::flag_error) != 0;
      }
    }
    for (const auto& [item, ring_at] : blocks) {
      const std::uint8_t type = load_u8(out.data() + item * kbase::metadata_item_bytes + 8);
      const std::size_t n = std::size_t{values_per_block_[type < 4 ? type : 0]} * 8;
      if (ring_at + n > map_size_) {
        return live_error("block values at ring offset " + std::to_string(ring_at) +
                          " run past the ring");
      }
      store_le32(out.data() + item * kbase::metadata_item_bytes + 16,
                 static_cast<std::uint32_t>(out.size()));
      out.insert(out.end(), map_ + ring_at, map_ + ring_at + n);
    }
    auto reader = mali::kinstr_reader::make(*gpu_->table, header().layout, out);
    if (!reader) return reader.error_value();
    if (auto s = reader->next(); !s) return s.error_value();
    for (const auto& [item, ring_at] : blocks) {
      std::byte* v = out.data() + item * kbase::metadata_item_bytes + 16;
      store_le32(v, static_cast<std::uint32_t>(load_le32(v) + base));
    }
    ++counts_.samples;
    return out;
  }

  syscalls* sys_;
  unique_fd dev_;
  unique_fd reader_;
  std::string path_;
  bool csf_ = false;
  unsigned major_ = 0, minor_ = 0;
  std::uint64_t gpu_id_ = 0;
  std::uint32_t l2_slices_ = 0;
  std::uint64_t core_mask_ = 0;
  const mali::gpu_product* gpu_ = nullptr;
  std::uint16_t values_per_block_[4] = {64, 64, 64, 64};
  std::uint32_t meta_item_size_ = 0;
  std::size_t map_size_ = 0;
  std::byte* map_ = nullptr;
  std::uint64_t cookie_ = 0;
  kbase_counts counts_;
};

}  // namespace hwpc::live
