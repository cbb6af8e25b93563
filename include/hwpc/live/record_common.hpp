// What an i915 and an Xe recording do alike (record_i915 in i915_record.hpp,
// record_xe in xe_record.hpp): the exponent from --exponent or --period, the
// metric set's id (named, else sysfs's by uuid, else uploaded and removed at
// the end), the errors naming an unknown platform or format, and the loop
// that reads the stream, puts correlation points and writes the records until
// told to stop. The driver's own parts (its uapi, its reads, its records)
// come in as callables so each keeps its messages.
#pragma once

#include <time.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/live/explain.hpp"
#include "hwpc/live/i915_uapi.hpp"
#include "hwpc/live/sys.hpp"

namespace hwpc::live {

inline std::uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(t.tv_nsec);
}

// The exponent whose period 2^(e+1) / hz is nearest `period_ns` (the
// kernel's formula, FACTS-live section 1.6; not IGT's 2^e). Xe keeps i915's
// exponent range and formula (FACTS-xe).
inline unsigned exponent_for_period(std::uint64_t period_ns, std::uint64_t hz) {
  unsigned best = 0;
  long double best_err = -1;
  for (unsigned e = 0; e <= i915::max_exponent; ++e) {
    const long double p = static_cast<long double>(2ull << e) * 1e9L / static_cast<long double>(hz);
    const long double err = std::fabs(std::log2(p / static_cast<long double>(period_ns)));
    if (best_err < 0 || err < best_err) {
      best = e;
      best_err = err;
    }
  }
  return best;
}

// The stream's exponent: --exponent as given, else the one nearest --period,
// else none (the stream samples on reports it is asked for).
template <class Options>
std::optional<unsigned> record_exponent(const Options& o, std::uint64_t oa_timestamp_hz) {
  if (o.exponent) return o.exponent;
  if (o.period_ns) return exponent_for_period(*o.period_ns, oa_timestamp_hz);
  return std::nullopt;
}

inline error unknown_platform_error(std::uint64_t device_id) {
  return live_error("device id " + std::to_string(device_id) +
                    " is not a platform hwpc knows (see `hwpc formats`)");
}

// `what`: the driver's kind of format ("i915 uapi", "Xe OA").
inline error no_format_error(const std::string& format, const char* what, intel::platform p) {
  return live_error("--format " + (format.empty() ? std::string("(default)") : format) + ": no " +
                    what + " format of that name on " + std::string(intel::name_of(p)) +
                    " (see `hwpc formats`)");
}

// A set this recording added is removed when it ends, however it ends.
template <class Device>
struct added_config {
  explicit added_config(const Device& d) : dev(&d) {}
  added_config(const added_config&) = delete;
  added_config& operator=(const added_config&) = delete;
  ~added_config() {
    if (id) (void)dev->remove_config(*id);
  }
  const Device* dev;
  std::optional<std::uint64_t> id;
};

// The kernel's id of the set to record: --set-id, else sysfs's id for the
// set's uuid, else `upload(*o.upload)` (noted in `added` to be removed),
// else sysfs's error.
template <class Device, class Options, class Upload>
result<std::uint64_t> record_set_id(const Device& dev, const Options& o,
                                    added_config<Device>& added, Upload&& upload) {
  if (o.set_id) return *o.set_id;
  auto id = dev.metrics_set_id(o.set_uuid);
  if (id) return *id;
  if (!o.upload) return id.error_value();
  auto up = upload(*o.upload);
  if (!up) return up.error_value();
  added.id = *up;
  return *up;
}

// Hands the records gathered in `out` to `write` and empties it.
template <class Write>
result<void> flush_records(std::vector<std::byte>& out, Write& write) {
  if (!out.empty() && !write(std::span<const std::byte>(out.data(), out.size()))) {
    return live_error("cannot write the recording");
  }
  out.clear();
  return {};
}

// The recording's body: a correlation point, the stream enabled, then until
// `stop()` the ready reports (`drain()`), a point every
// `correlation_period_ns` and the records flushed; at the end the reports
// still in the buffer (read before the disable: a read of a disabled i915
// stream fails with EIO), the closing point and the last flush.
template <class Options, class Stream, class Drain, class Point, class Flush, class Stop>
result<void> record_loop(const Options& o, Stream& stream, Drain&& drain, Point&& put_point,
                         Flush&& flush, Stop&& stop) {
  if (auto e = put_point(); !e) return e.error_value();
  if (auto e = stream.enable(); !e) return e.error_value();
  std::uint64_t next_point = monotonic_ns() + o.correlation_period_ns;
  while (!stop()) {
    auto ready = stream.wait(o.poll_ms);
    if (!ready) return ready.error_value();
    if (*ready) {
      if (auto e = drain(); !e) return e.error_value();
    }
    if (monotonic_ns() >= next_point) {
      if (auto e = put_point(); !e) return e.error_value();
      next_point += o.correlation_period_ns;
    }
    if (auto e = flush(); !e) return e.error_value();
  }
  if (auto e = drain(); !e) return e.error_value();
  if (auto e = stream.disable(); !e) return e.error_value();
  if (auto e = put_point(); !e) return e.error_value();
  return flush();
}

}  // namespace hwpc::live
