// A live i915 perf OA stream (the i915 seed; FACTS-live section 1): opened
// with DRM_IOCTL_I915_PERF_OPEN, SAMPLE_OA, OA_METRICS_SET, OA_FORMAT and
// (for periodic sampling) OA_EXPONENT, disabled at open, non-blocking;
// enable()/disable() on the stream fd; read_ready() appends the framed
// records read() returns. The bytes are checked by the reader that decodes
// captured streams (intel::i915_stream), not by a second decoder, and the
// records are counted (samples, OA_REPORT_LOST, OA_BUFFER_LOST).
//
//   auto dev = live::i915_device::open(live::real_kernel(), "/dev/dri/renderD128");
//   auto s = live::i915_stream::open(*dev, opts);  // set id, format, exponent
//   s->enable();
//   while (...) { s->wait(100); s->read_ready(bytes); }
//   s->disable(); s->read_ready(bytes);   // the last reports
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/live/explain.hpp"
#include "hwpc/live/i915_device.hpp"
#include "hwpc/live/i915_uapi.hpp"
#include "hwpc/live/sys.hpp"

namespace hwpc::live {

struct i915_stream_options {
  std::uint64_t metrics_set = 0;                // the kernel's config id
  std::uint32_t oa_format = 0;                  // enum drm_i915_oa_format
  std::optional<unsigned> exponent;             // periodic sampling: 2^(e+1) OA timestamp ticks
  std::optional<std::uint32_t> ctx;             // CTX_HANDLE: one GEM context only
  std::optional<std::uint64_t> poll_period_ns;  // POLL_OA_PERIOD (perf revision 5+)
};

// What the records read so far held.
struct i915_stream_counts {
  std::size_t bytes = 0;
  std::size_t samples = 0;
  std::size_t report_lost = 0;
  std::size_t buffer_lost = 0;
};

class i915_stream {
 public:
  static result<i915_stream> open(const i915_device& dev, const i915_stream_options& o) {
    const auto& info = dev.info();
    if (!info.platform) {
      return live_error("device id " + std::to_string(info.chipset_id) +
                        " is not a platform hwpc knows: its report formats are unknown");
    }
    const intel::report_format* format =
        intel::find_format_by_uapi(*info.platform, static_cast<int>(o.oa_format));
    if (format == nullptr) {
      return live_error("OA_FORMAT " + std::to_string(o.oa_format) + " is not a format of " +
                        std::string(intel::name_of(*info.platform)) +
                        " (see `hwpc formats`): the kernel would refuse it (EINVAL)");
    }
    if (o.exponent && *o.exponent > i915::max_exponent) {
      return live_error("OA_EXPONENT " + std::to_string(*o.exponent) +
                        " is out of range: the kernel accepts 0..31 (EINVAL)");
    }
    if (o.metrics_set == 0) return live_error("OA_METRICS_SET 0 is not a config id (EINVAL)");
    auto fd = open_raw(dev, o, true);
    if (!fd.ok()) return explain_refusal(dev, o, *format, fd.err);
    return i915_stream(dev.sys(), unique_fd(dev.sys(), static_cast<int>(fd.value)), *format);
  }

  result<void> enable() { return stream_ioctl(i915::ioctl_stream_enable, "ENABLE"); }
  result<void> disable() { return stream_ioctl(i915::ioctl_stream_disable, "DISABLE"); }

  // Waits up to `timeout_ms` for reports; true when read() has some.
  result<bool> wait(int timeout_ms) {
    short revents = 0;
    const sys_result r = sys_->poll(fd_.get(), POLLIN, timeout_ms, revents);
    if (!r.ok()) return live_error("poll on the OA stream failed: " + errno_name(r.err));
    if (revents & (POLLERR | POLLHUP | POLLNVAL)) return live_error("the OA stream was closed");
    return r.value > 0 && (revents & POLLIN) != 0;
  }

  // Appends every whole record read() has now to `out` (after checking and
  // counting them); returns how many bytes were added (0: nothing ready).
  result<std::size_t> read_ready(std::vector<std::byte>& out) {
    std::size_t added = 0;
    for (;;) {
      const sys_result r = sys_->read(fd_.get(), buf_.data(), buf_.size());
      if (!r.ok()) {
        if (r.err == EAGAIN) break;
        if (r.err == ENOSPC && buf_.size() < (1u << 24)) {
          buf_.resize(buf_.size() * 2);  // the first record did not fit
          continue;
        }
        if (r.err == EIO) {
          return live_error(
              "read of the OA stream failed (EIO): the stream is not enabled or was opened "
              "without SAMPLE_OA");
        }
        return live_error("read of the OA stream failed: " + errno_name(r.err));
      }
      if (r.value == 0) break;
      const byte_span chunk(buf_.data(), static_cast<std::size_t>(r.value));
      auto s = intel::i915_stream::make(chunk, *format_, counts_.bytes);
      if (!s) return s.error_value();
      for (const auto& e : *s) {
        if (e.is_report()) {
          ++counts_.samples;
        } else if (e.kind == intel::event_kind::report_lost) {
          ++counts_.report_lost;
        } else if (e.kind == intel::event_kind::buffer_lost) {
          ++counts_.buffer_lost;
        }
      }
      out.insert(out.end(), chunk.begin(), chunk.end());
      counts_.bytes += chunk.size();
      added += chunk.size();
    }
    return added;
  }

  const intel::report_format& format() const noexcept { return *format_; }
  const i915_stream_counts& counts() const noexcept { return counts_; }
  int fd() const noexcept { return fd_.get(); }

 private:
  i915_stream(syscalls& s, unique_fd fd, const intel::report_format& f)
      : sys_(&s), fd_(std::move(fd)), format_(&f), buf_(std::size_t{1} << 16) {}

  static sys_result open_raw(const i915_device& dev, const i915_stream_options& o,
                             bool with_exponent) {
    std::vector<std::uint64_t> props{i915::prop::sample_oa,      1,
                                     i915::prop::oa_metrics_set, o.metrics_set,
                                     i915::prop::oa_format,      o.oa_format};
    if (o.exponent && with_exponent) {
      props.insert(props.end(), {i915::prop::oa_exponent, *o.exponent});
    }
    if (o.ctx) props.insert(props.end(), {i915::prop::ctx_handle, *o.ctx});
    if (o.poll_period_ns && dev.info().perf_revision >= 5) {
      props.insert(props.end(), {i915::prop::poll_oa_period, *o.poll_period_ns});
    }
    i915::perf_open_param p;
    p.flags = i915::open_fd_cloexec | i915::open_fd_nonblock | i915::open_disabled;
    p.num_properties = static_cast<std::uint32_t>(props.size() / 2);
    p.properties_ptr = reinterpret_cast<std::uintptr_t>(props.data());
    return dev.sys().ioctl(dev.fd(), i915::ioctl_perf_open, &p);
  }

  // The kernel's errno does not say which property it refused: where it
  // could be the period, open again without OA_EXPONENT (and close at once)
  // to tell the period from the rest.
  static error explain_refusal(const i915_device& dev, const i915_stream_options& o,
                               const intel::report_format& f, int err) {
    bool period_refused = false;
    if ((err == EACCES || err == EINVAL) && o.exponent) {
      const sys_result probe = open_raw(dev, o, false);
      if (probe.ok()) {
        dev.sys().close(static_cast<int>(probe.value));
        period_refused = true;
      }
    }
    if (err == EACCES)
      return live_error(privilege_advice(dev.sys(), driver_kind::i915, period_refused));
    if (err == EINVAL && period_refused) {
      return live_error("the kernel refused OA_EXPONENT " + std::to_string(*o.exponent) +
                        " (EINVAL): it accepts the stream without it, so this kernel does not "
                        "take that sampling period; choose another --exponent/--period");
    }
    if (err == EINVAL) {
      return live_error("the kernel refused the stream (EINVAL): OA_METRICS_SET " +
                        std::to_string(o.metrics_set) + " or OA_FORMAT " +
                        std::to_string(o.oa_format) + " (" + std::string(f.name) +
                        ") is not accepted by this kernel (an unknown or removed config id, or a "
                        "format this kernel does not enable for the GPU)");
    }
    if (err == EBUSY) {
      return live_error(
          "the OA unit is already in use (EBUSY): only one OA stream per GPU; close gputop, "
          "IGT's i915-perf-recorder, Mesa's pps producer or another hwpc record");
    }
    if (err == ENOENT && o.ctx) {
      return live_error("the kernel has no GEM context " + std::to_string(*o.ctx) +
                        " (CTX_HANDLE; ENOENT): the handle belongs to the process that created "
                        "it");
    }
    if (err == ENODEV || err == 524 /* kernel-internal ENOTSUPP */) {
      return live_error("the i915 driver has no OA support for this GPU (" + errno_name(err) + ")");
    }
    return live_error("DRM_IOCTL_I915_PERF_OPEN failed: " + errno_name(err));
  }

  result<void> stream_ioctl(unsigned long req, const char* what) {
    const sys_result r = sys_->ioctl(fd_.get(), req, nullptr);
    if (!r.ok())
      return live_error(std::string("I915_PERF_IOCTL_") + what + " failed: " + errno_name(r.err));
    return {};
  }

  syscalls* sys_;
  unique_fd fd_;
  const intel::report_format* format_;
  std::vector<std::byte> buf_;
  i915_stream_counts counts_;
};

}  // namespace hwpc::live
