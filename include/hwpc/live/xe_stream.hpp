// A live Xe OA stream (DRM observation, FACTS-live section 2, FACTS-xe
// sections 1 and 6): opened with DRM_IOCTL_XE_OBSERVATION (type OA, op
// STREAM_OPEN) and a chain of set-property links (SAMPLE_OA, OA_METRIC_SET,
// OA_FORMAT as the packed key, OA_PERIOD_EXPONENT, OA_DISABLED); enable()/
// disable() on the stream fd. read() returns whole reports with no headers;
// a read that fails with EIO is followed by the STATUS ioctl, and the loss
// (its offset in the data, the status bits) is kept beside the bytes, as
// intel::xe_stream (the reader of captured Xe streams) takes them.
//
// The uapi has no open flags, so the stream fd blocks: read_ready() polls
// with a zero timeout before every read and reads only what is ready.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/live/explain.hpp"
#include "hwpc/live/sys.hpp"
#include "hwpc/live/xe_uapi.hpp"

namespace hwpc::live {

struct xe_stream_options {
  std::uint64_t metric_set = 0;              // the kernel's config id
  const intel::xe_format* format = nullptr;  // required; its key is packed into OA_FORMAT
  std::optional<unsigned> exponent;          // periodic sampling: 2^(e+1) OA ticks
  std::optional<std::uint32_t> oa_unit;      // OA_UNIT_ID (default: the kernel's unit 0)
};

struct xe_stream_counts {
  std::size_t bytes = 0;
  std::size_t reports = 0;
  std::size_t failed_reads = 0;  // reads that failed with EIO
  std::size_t report_lost = 0;   // ... whose status had REPORT_LOST
  std::size_t buffer_overflow = 0;
  std::size_t counter_overflow = 0;
  std::size_t mmio_trigger_queue_full = 0;
};

// What a status word means, for a person.
inline std::string describe_xe_status(std::uint64_t bits) {
  std::string s;
  const auto add = [&](std::uint64_t bit, const char* what) {
    if ((bits & bit) == 0) return;
    if (!s.empty()) s += ", ";
    s += what;
  };
  add(xe::status::report_lost, "REPORT_LOST (the unit could not write a report)");
  add(xe::status::buffer_overflow, "BUFFER_OVERFLOW (the OA buffer filled; reports were lost)");
  add(xe::status::counter_overflow, "COUNTER_OVERFLOW");
  add(xe::status::mmio_trigger_queue_full, "MMIO_TRG_Q_FULL");
  return s.empty() ? "no status bit" : s;
}

class xe_stream {
 public:
  static result<xe_stream> open(syscalls& sys, int drm_fd, const xe_stream_options& o) {
    if (o.format == nullptr) return live_error("no OA format given for the Xe stream");
    if (o.exponent && *o.exponent > 31) {
      return live_error("OA_PERIOD_EXPONENT " + std::to_string(*o.exponent) +
                        " is out of range: the kernel accepts 0..31 (EINVAL)");
    }
    const sys_result fd = open_raw(sys, drm_fd, o, true);
    if (!fd.ok()) return explain(sys, drm_fd, o, fd.err);
    return xe_stream(sys, unique_fd(sys, static_cast<int>(fd.value)), *o.format);
  }

  result<void> enable() { return stream_ioctl(xe::ioctl_stream_enable, "ENABLE"); }
  result<void> disable() { return stream_ioctl(xe::ioctl_stream_disable, "DISABLE"); }

  result<bool> wait(int timeout_ms) {
    short revents = 0;
    const sys_result r = sys_->poll(fd_.get(), POLLIN, timeout_ms, revents);
    if (!r.ok()) return live_error("poll on the Xe OA stream failed: " + errno_name(r.err));
    return r.value > 0 && (revents & POLLIN) != 0;
  }

  // Appends the reports ready now to `out` and the failed reads to
  // `losses` (offsets into `out`'s data as a whole); returns the bytes added.
  result<std::size_t> read_ready(std::vector<std::byte>& out,
                                 std::vector<intel::xe_stream_loss>& losses) {
    std::size_t added = 0;
    for (;;) {
      auto ready = wait(0);
      if (!ready) return ready.error_value();
      if (!*ready) break;
      const sys_result r = sys_->read(fd_.get(), buf_.data(), buf_.size());
      if (!r.ok()) {
        if (r.err == EAGAIN) break;
        if (r.err == ENOSPC && buf_.size() < (1u << 24)) {
          buf_.resize(buf_.size() * 2);
          continue;
        }
        if (r.err != EIO)
          return live_error("read of the Xe OA stream failed: " + errno_name(r.err));
        xe::oa_stream_status st;
        const sys_result s = sys_->ioctl(fd_.get(), xe::ioctl_stream_status, &st);
        if (!s.ok()) {
          return live_error(
              "read of the Xe OA stream failed with EIO and the STATUS ioctl "
              "failed too (" +
              errno_name(s.err) + ")");
        }
        if (st.oa_status == 0) {
          return live_error(
              "read of the Xe OA stream failed with EIO but its status has no "
              "bit set: is the stream enabled?");
        }
        losses.push_back({counts_.bytes, st.oa_status & intel::xe_oa_status::all});
        ++counts_.failed_reads;
        counts_.report_lost += (st.oa_status & xe::status::report_lost) != 0;
        counts_.buffer_overflow += (st.oa_status & xe::status::buffer_overflow) != 0;
        counts_.counter_overflow += (st.oa_status & xe::status::counter_overflow) != 0;
        counts_.mmio_trigger_queue_full +=
            (st.oa_status & xe::status::mmio_trigger_queue_full) != 0;
        continue;
      }
      if (r.value == 0) break;
      const byte_span chunk(buf_.data(), static_cast<std::size_t>(r.value));
      auto s = intel::xe_stream::make(chunk, *format_, {}, counts_.bytes);
      if (!s) return s.error_value();
      counts_.reports += s->reports();
      out.insert(out.end(), chunk.begin(), chunk.end());
      counts_.bytes += chunk.size();
      added += chunk.size();
    }
    return added;
  }

  const xe_stream_counts& counts() const noexcept { return counts_; }
  int fd() const noexcept { return fd_.get(); }

 private:
  xe_stream(syscalls& s, unique_fd fd, const intel::xe_format& f)
      : sys_(&s), fd_(std::move(fd)), format_(&f), buf_(std::size_t{1} << 16) {}

  static sys_result open_raw(syscalls& sys, int drm_fd, const xe_stream_options& o,
                             bool with_exponent) {
    std::vector<xe::ext_set_property> links;
    const auto add = [&](std::uint32_t p, std::uint64_t v) {
      xe::ext_set_property e;
      e.property = p;
      e.value = v;
      links.push_back(e);
    };
    if (o.oa_unit) add(xe::prop::oa_unit_id, *o.oa_unit);
    add(xe::prop::sample_oa, 1);
    add(xe::prop::oa_metric_set, o.metric_set);
    add(xe::prop::oa_format, o.format->key.pack());
    if (o.exponent && with_exponent) add(xe::prop::oa_period_exponent, *o.exponent);
    add(xe::prop::oa_disabled, 1);
    for (std::size_t i = 0; i + 1 < links.size(); ++i) {
      links[i].next_extension = reinterpret_cast<std::uintptr_t>(&links[i + 1]);
    }
    xe::observation_param p;
    p.observation_type = xe::observation_type_oa;
    p.observation_op = xe::op_stream_open;
    p.param = reinterpret_cast<std::uintptr_t>(links.data());
    return sys.ioctl(drm_fd, xe::ioctl_observation, &p);
  }

  static error explain(syscalls& sys, int drm_fd, const xe_stream_options& o, int err) {
    bool period_refused = false;
    if ((err == EACCES || err == EINVAL) && o.exponent) {
      const sys_result probe = open_raw(sys, drm_fd, o, false);
      if (probe.ok()) {
        sys.close(static_cast<int>(probe.value));
        period_refused = true;
      }
    }
    if (err == EACCES) return live_error(privilege_advice(sys, driver_kind::xe, false));
    if (err == EINVAL && period_refused) {
      return live_error("the kernel refused OA_PERIOD_EXPONENT " + std::to_string(*o.exponent) +
                        " (EINVAL): it accepts the stream without it; choose another period");
    }
    if (err == EINVAL) {
      return live_error("the kernel refused the Xe OA stream (EINVAL): OA_METRIC_SET " +
                        std::to_string(o.metric_set) + " or OA_FORMAT " +
                        std::string(o.format->name) + " (packed " +
                        std::to_string(o.format->key.pack()) +
                        ") is not accepted (an unknown config id, or a format this GPU's OA unit "
                        "does not have)");
    }
    if (err == EBUSY) {
      return live_error(
          "the OA unit is already in use (EBUSY): one stream per OA unit; close "
          "the other observation client");
    }
    if (err == ENODEV) return live_error("this Xe device has no OA unit (ENODEV)");
    return live_error("DRM_IOCTL_XE_OBSERVATION failed: " + errno_name(err));
  }

  result<void> stream_ioctl(unsigned long req, const char* what) {
    const sys_result r = sys_->ioctl(fd_.get(), req, nullptr);
    if (!r.ok()) {
      return live_error(std::string("DRM_XE_OBSERVATION_IOCTL_") + what +
                        " failed: " + errno_name(r.err));
    }
    return {};
  }

  syscalls* sys_;
  unique_fd fd_;
  const intel::xe_format* format_;
  std::vector<std::byte> buf_;
  xe_stream_counts counts_;
};

}  // namespace hwpc::live
