// GPU timestamp -> CPU CLOCK_MONOTONIC time, from correlation points.
//
// A recording holds TIMESTAMP_CORRELATION records, each a pair (CPU
// CLOCK_MONOTONIC ns, 64-bit GPU timestamp) taken at the same moment. A
// report's CPU time is interpolated linearly between the two points whose
// GPU timestamps bracket it.
//
// Outside the correlated range (before the first point or after the last)
// the time is extrapolated from the nearest point at the nominal timestamp
// frequency, not along the slope of the end segment (a short, noisy segment
// would tilt a long extrapolation), and is marked `extrapolated`. With no
// correlation point at all there is no CPU time (`none`).
//
// Reports carry only the low 32 bits of TIME_STAMP. nearest_timestamp() puts
// a 32-bit value on the 64-bit clock next to a reference (a correlation point
// or the previous report), which is unambiguous while the two are less than
// 2^31 ticks apart (~2.9 minutes at 12.5 MHz, ~1.9 at 19.2 MHz).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace hwpc::intel {

struct correlation_point {
  std::uint64_t cpu_ns = 0;  // CLOCK_MONOTONIC
  std::uint64_t gpu_ts = 0;  // timestamp ticks
  std::size_t offset = 0;    // byte offset of the record it came from
};

enum class time_quality : std::uint8_t {
  none,          // no correlation point: no CPU time
  interpolated,  // between two correlation points (or exactly on one)
  extrapolated,  // outside the correlated range, at the nominal frequency
};

struct cpu_time {
  std::int64_t ns = 0;  // CLOCK_MONOTONIC nanoseconds (may be negative when extrapolated)
  time_quality quality = time_quality::none;
};

// The value congruent to `raw` modulo 2^bits that is nearest to `reference`.
constexpr std::uint64_t nearest_timestamp(std::uint64_t raw, unsigned bits,
                                          std::uint64_t reference) noexcept {
  if (bits >= 64) return raw;
  const std::uint64_t m = std::uint64_t{1} << bits;
  const std::uint64_t low = (raw - reference) & (m - 1);  // forward distance
  // Forward when under half the period, else backwards (unless that goes below 0).
  if (low < m / 2 || reference < m - low) return reference + low;
  return reference - (m - low);
}

class time_correlation {
 public:
  time_correlation() = default;
  // Points in any order; they are sorted by GPU timestamp, and points that
  // repeat a GPU timestamp are dropped (the first one in the input is kept).
  time_correlation(std::vector<correlation_point> points, std::uint64_t timestamp_frequency_hz)
      : points_(std::move(points)), freq_(timestamp_frequency_hz) {
    std::stable_sort(points_.begin(), points_.end(),
                     [](const auto& a, const auto& b) { return a.gpu_ts < b.gpu_ts; });
    points_.erase(std::unique(points_.begin(), points_.end(),
                              [](const auto& a, const auto& b) { return a.gpu_ts == b.gpu_ts; }),
                  points_.end());
  }

  std::span<const correlation_point> points() const noexcept { return points_; }
  std::uint64_t timestamp_frequency() const noexcept { return freq_; }
  bool empty() const noexcept { return points_.empty(); }

  // CPU time of a 64-bit GPU timestamp.
  cpu_time to_cpu(std::uint64_t gpu_ts) const noexcept {
    if (points_.empty()) return {};
    const auto& first = points_.front();
    const auto& last = points_.back();
    if (gpu_ts < first.gpu_ts || gpu_ts > last.gpu_ts || points_.size() == 1) {
      const correlation_point& p = gpu_ts < first.gpu_ts ? first : last;
      if (points_.size() == 1 && gpu_ts == p.gpu_ts) {
        return {static_cast<std::int64_t>(p.cpu_ns), time_quality::interpolated};
      }
      return {extrapolate(p, gpu_ts), time_quality::extrapolated};
    }
    // First point with gpu_ts > the timestamp: the segment is [it-1, it].
    auto it = std::upper_bound(points_.begin(), points_.end(), gpu_ts,
                               [](std::uint64_t t, const auto& p) { return t < p.gpu_ts; });
    if (it == points_.end())
      return {static_cast<std::int64_t>(last.cpu_ns), time_quality::interpolated};
    const correlation_point& b = *it;
    const correlation_point& a = *(it - 1);
    const double f =
        static_cast<double>(gpu_ts - a.gpu_ts) / static_cast<double>(b.gpu_ts - a.gpu_ts);
    // Only the step from `a` goes through double, so CPU times far from 0
    // keep nanosecond resolution.
    const double span_ns = static_cast<double>(static_cast<std::int64_t>(b.cpu_ns - a.cpu_ns));
    return {static_cast<std::int64_t>(a.cpu_ns) + std::llround(f * span_ns),
            time_quality::interpolated};
  }

 private:
  std::int64_t extrapolate(const correlation_point& p, std::uint64_t gpu_ts) const noexcept {
    if (freq_ == 0) return static_cast<std::int64_t>(p.cpu_ns);
    const double dticks = gpu_ts >= p.gpu_ts ? static_cast<double>(gpu_ts - p.gpu_ts)
                                             : -static_cast<double>(p.gpu_ts - gpu_ts);
    return static_cast<std::int64_t>(p.cpu_ns) +
           std::llround(dticks * 1e9 / static_cast<double>(freq_));
  }

  std::vector<correlation_point> points_;
  std::uint64_t freq_ = 0;
};

}  // namespace hwpc::intel
