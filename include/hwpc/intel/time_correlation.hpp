// GPU timestamp -> CPU CLOCK_MONOTONIC time, from correlation points.
//
// A recording holds TIMESTAMP_CORRELATION records, each a pair (CPU
// CLOCK_MONOTONIC ns, 64-bit GPU timestamp) taken at the same moment. A
// report's CPU time is interpolated linearly between the two points whose
// GPU timestamps bracket it.
//
// Both clocks only run forwards, so make() requires the points, in the order
// of the file, to be monotonic in both: a point whose GPU or CPU time is
// below the previous point's is refused with the offset of its record, and so
// is a CPU time past INT64_MAX ns (no signed CLOCK_MONOTONIC time is). The GPU
// clock is compared modulo 2^64, as report timestamps are: a step forward of
// less than 2^63 ticks across a wrap is forward. A point that repeats the
// previous GPU timestamp is dropped (the first is kept).
//
// All arithmetic is integer: the step from a point is
// (ticks * span_ns) / span_ticks in 128-bit unsigned arithmetic, rounded to
// the nearest nanosecond, so there is no overflow, no double rounding and no
// conversion of an out-of-range double for any 64-bit input.
//
// Outside the correlated range (before the first point or after the last)
// the time is extrapolated from the nearest point at the nominal timestamp
// frequency, not along the slope of the end segment (a short, noisy segment
// would tilt a long extrapolation), and is marked `extrapolated`; a timestamp
// belongs to whichever end it is nearer to modulo 2^64. CLOCK_MONOTONIC
// never reads below 0 (it counts from boot) nor past INT64_MAX ns, so a time
// extrapolated outside [0, INT64_MAX] is none the points can support: it has
// no CPU time (`none`), never a negative, saturated or wrapped one, and
// checked_cpu() turns it into an error naming the report's record and the
// correlation point it was extrapolated from. With no correlation point at
// all there is no CPU time either (`none`).
//
// Reports carry only the low 32 bits of TIME_STAMP (31 bits of ticks on DG2,
// timestamp_reading). nearest_timestamp() puts such a value on the 64-bit
// clock next to a reference (a correlation point or the previous report),
// which is unambiguous while the two are less than half a wrap apart (2^31
// ticks, ~2.9 minutes at 12.5 MHz; 2^30 ticks on DG2).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"

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
  std::int64_t ns = 0;  // CLOCK_MONOTONIC nanoseconds, >= 0; 0 when `none`
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

namespace detail {

// round(a * b / d) for d > 0, saturated at UINT64_MAX, without a 128-bit
// type: the product in two 64-bit halves, then binary long division.
constexpr std::uint64_t mul_div_round_portable(std::uint64_t a, std::uint64_t b,
                                               std::uint64_t d) noexcept {
  const std::uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
  const std::uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  std::uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
  std::uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  const std::uint64_t half = d / 2;  // rounds to nearest
  lo += half;
  if (lo < half) ++hi;
  if (hi >= d) return std::numeric_limits<std::uint64_t>::max();  // quotient >= 2^64
  std::uint64_t rem = hi, q = 0;
  for (int i = 63; i >= 0; --i) {
    const bool top = (rem >> 63) != 0;  // rem << 1 would pass 2^64 > d
    rem = (rem << 1) | ((lo >> i) & 1u);
    q <<= 1;
    if (top || rem >= d) {
      rem -= d;
      q |= 1u;
    }
  }
  return q;
}

// round(a * b / d) for d > 0, saturated at UINT64_MAX; exact for all inputs.
constexpr std::uint64_t mul_div_round(std::uint64_t a, std::uint64_t b, std::uint64_t d) noexcept {
#if defined(__SIZEOF_INT128__)
  __extension__ using u128 = unsigned __int128;
  const u128 q = (u128{a} * b + d / 2) / d;
  return q > std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<std::uint64_t>::max()
                                                       : static_cast<std::uint64_t>(q);
#else
  return mul_div_round_portable(a, b, d);
#endif
}

// base + step or base - step, saturated to the int64 range.
constexpr std::int64_t offset_saturated(std::int64_t base, std::uint64_t step,
                                        bool forward) noexcept {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  if (forward) {
    // Room above base, as unsigned (never overflows: max - base <= 2^64 - 1).
    const std::uint64_t room = static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(base);
    if (step > room) return max;
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(base) + step);
  }
  const std::uint64_t room = static_cast<std::uint64_t>(base) - static_cast<std::uint64_t>(min);
  if (step > room) return min;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(base) - step);
}

}  // namespace detail

class time_correlation {
 public:
  // CPU times are signed nanoseconds; no CLOCK_MONOTONIC time is larger.
  static constexpr std::uint64_t max_cpu_ns =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

  time_correlation() = default;

  // Points in any order (a caller's own table): they are sorted by GPU
  // timestamp and points that repeat a GPU timestamp are dropped (the first
  // one is kept). CPU times above max_cpu_ns are taken as max_cpu_ns. Points
  // from a file go through make(), which refuses what no clock produces.
  time_correlation(std::vector<correlation_point> points, std::uint64_t timestamp_frequency_hz)
      : points_(std::move(points)), freq_(timestamp_frequency_hz) {
    std::stable_sort(points_.begin(), points_.end(),
                     [](const auto& a, const auto& b) { return a.gpu_ts < b.gpu_ts; });
    points_.erase(std::unique(points_.begin(), points_.end(),
                              [](const auto& a, const auto& b) { return a.gpu_ts == b.gpu_ts; }),
                  points_.end());
    for (auto& p : points_) p.cpu_ns = std::min(p.cpu_ns, max_cpu_ns);
    place();
  }

  // Points in file order. The GPU clock is read modulo 2^64 (a 64-bit
  // TIME_STAMP that wraps between two points still runs forwards): each point
  // must be less than 2^63 ticks ahead of the previous one, or it runs
  // backwards, and all of them must lie within 2^64 ticks. CPU times must not
  // decrease and must be at most max_cpu_ns. Errors name the point's record.
  static result<time_correlation> make(std::vector<correlation_point> points,
                                       std::uint64_t timestamp_frequency_hz) {
    constexpr std::uint64_t half = std::uint64_t{1} << 63;
    time_correlation t;
    t.freq_ = timestamp_frequency_hz;
    std::uint64_t span = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const correlation_point& p = points[i];
      if (p.cpu_ns > max_cpu_ns) {
        return make_error(errc::out_of_range, p.offset,
                          "TIMESTAMP_CORRELATION CPU time " + std::to_string(p.cpu_ns) +
                              " ns is past INT64_MAX ns");
      }
      if (i == 0) {
        t.points_.push_back(p);
        t.rel_.push_back(0);
        continue;
      }
      const correlation_point& q = points[i - 1];
      const std::uint64_t step = p.gpu_ts - q.gpu_ts;  // forward, modulo 2^64
      if (step >= half) {
        return make_error(errc::inconsistent, p.offset,
                          "TIMESTAMP_CORRELATION GPU time " + std::to_string(p.gpu_ts) +
                              " runs backwards from " + std::to_string(q.gpu_ts) +
                              " (record at byte offset " + std::to_string(q.offset) + ")");
      }
      if (p.cpu_ns < q.cpu_ns) {
        return make_error(errc::inconsistent, p.offset,
                          "TIMESTAMP_CORRELATION CPU time " + std::to_string(p.cpu_ns) +
                              " ns runs backwards from " + std::to_string(q.cpu_ns) +
                              " ns (record at byte offset " + std::to_string(q.offset) + ")");
      }
      if (step > std::numeric_limits<std::uint64_t>::max() - span) {
        return make_error(errc::out_of_range, p.offset,
                          "TIMESTAMP_CORRELATION points span more than 2^64 GPU ticks");
      }
      if (step == 0) continue;  // a repeated GPU time: the first point is kept
      span += step;
      t.points_.push_back(p);
      t.rel_.push_back(span);
    }
    return t;
  }

  // In GPU time order (from the first point, modulo 2^64).
  std::span<const correlation_point> points() const noexcept { return points_; }
  std::uint64_t timestamp_frequency() const noexcept { return freq_; }
  bool empty() const noexcept { return points_.empty(); }

  // CPU time of a 64-bit GPU timestamp. A timestamp outside the correlated
  // range belongs to whichever end it is nearer to modulo 2^64: after the
  // last point or before the first.
  cpu_time to_cpu(std::uint64_t gpu_ts) const noexcept {
    if (points_.empty()) return {};
    const std::uint64_t span = rel_.back();
    const std::uint64_t r = gpu_ts - points_.front().gpu_ts;  // ticks after the first point
    if (r <= span) {
      // Last point with rel <= r: the segment is [a, a + 1] (or exactly the last point).
      const auto it = std::upper_bound(rel_.begin(), rel_.end(), r);
      const std::size_t a = static_cast<std::size_t>(it - rel_.begin()) - 1;
      const correlation_point& pa = points_[a];
      if (r == rel_[a]) return {static_cast<std::int64_t>(pa.cpu_ns), time_quality::interpolated};
      const correlation_point& pb = points_[a + 1];
      // rel_[a] < r < rel_[a + 1], so the step is at most |pb.cpu - pa.cpu|
      // and the time lies between the two points.
      const bool forward = pb.cpu_ns >= pa.cpu_ns;
      const std::uint64_t span_ns = forward ? pb.cpu_ns - pa.cpu_ns : pa.cpu_ns - pb.cpu_ns;
      const std::uint64_t step = detail::mul_div_round(r - rel_[a], span_ns, rel_[a + 1] - rel_[a]);
      return {detail::offset_saturated(static_cast<std::int64_t>(pa.cpu_ns), step, forward),
              time_quality::interpolated};
    }
    const std::uint64_t after = r - span;  // ticks past the last point
    const std::uint64_t before = 0 - r;    // ticks before the first point
    const bool forward = after <= before;
    const correlation_point& from = forward ? points_.back() : points_.front();
    const std::uint64_t step = extrapolation_ns(forward ? after : before);
    // Room on the CLOCK_MONOTONIC range [0, INT64_MAX] (from.cpu_ns is in it).
    if (step > (forward ? max_cpu_ns - from.cpu_ns : from.cpu_ns)) return {};
    return {static_cast<std::int64_t>(forward ? from.cpu_ns + step : from.cpu_ns - step),
            time_quality::extrapolated};
  }

  // to_cpu(), or an error when the points cannot give `gpu_ts` a CPU time:
  // `offset` is the byte offset of the record that holds the timestamp (a
  // report), named first in the message with the correlation point the time
  // would have been extrapolated from.
  result<cpu_time> checked_cpu(std::uint64_t gpu_ts, std::size_t offset) const {
    const cpu_time t = to_cpu(gpu_ts);
    if (t.quality != time_quality::none || points_.empty()) return t;
    const std::uint64_t r = gpu_ts - points_.front().gpu_ts;
    const bool forward = r - rel_.back() <= 0 - r;
    const correlation_point& from = forward ? points_.back() : points_.front();
    const std::uint64_t ticks = forward ? r - rel_.back() : 0 - r;
    return make_error(
        errc::out_of_range, offset,
        "GPU timestamp " + std::to_string(gpu_ts) + " lies " + std::to_string(ticks) + " ticks " +
            (forward ? "after" : "before") + " the TIMESTAMP_CORRELATION point at byte offset " +
            std::to_string(from.offset) + " (CPU time " + std::to_string(from.cpu_ns) +
            " ns): its CPU time would be " + (forward ? "past INT64_MAX ns" : "before 0 ns") +
            ", which no CLOCK_MONOTONIC reading is");
  }

 private:
  // Positions relative to the first point (points_ sorted, no wrap).
  void place() {
    rel_.clear();
    for (const auto& p : points_) rel_.push_back(p.gpu_ts - points_.front().gpu_ts);
  }

  // Nanoseconds of `ticks` at the nominal frequency (saturated at
  // UINT64_MAX, which no room on the CPU clock admits).
  std::uint64_t extrapolation_ns(std::uint64_t ticks) const noexcept {
    if (freq_ == 0) return 0;
    return detail::mul_div_round(ticks, 1'000'000'000u, freq_);
  }

  std::vector<correlation_point> points_;
  std::vector<std::uint64_t> rel_;  // points_[i].gpu_ts - points_[0].gpu_ts, modulo 2^64
  std::uint64_t freq_ = 0;
};

}  // namespace hwpc::intel
