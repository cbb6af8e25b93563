// The HTML report's downsampler: many series reduced, in one pass and in
// bounded memory, to at most `capacity` buckets of one shared grid, keeping
// the smallest and largest value per bucket (a min/max band, not a decimated
// line: a spike inside a bucket still reaches its top edge), and the mean
// of the values for a line through the band.
//
// The grid starts at an origin `x0` with buckets one unit wide: bucket i
// holds the keys [x0 + i*w, x0 + (i+1)*w). Keys are a row's time on the
// schema's clock (or its report index when the source has no clock). A row
// is an interval [begin, end): its values go to the bucket of its end and to
// every bucket after the latest end seen so far that the interval covers, so
// a bucket no interval ends in shows the interval that spans it (sampling
// slower than the bucket width leaves no false gaps), while time no interval
// covers (a loss, a filtered context) stays a gap. When a
// key lands at or past bucket `capacity`, neighbouring buckets are folded in
// pairs (2i and 2i+1 become i: min of the minima, max of the maxima, counts
// added) and `w` doubles, until it fits. Once at least `capacity` units have
// been seen, the buckets in use therefore number more than capacity/2 and at
// most capacity: with capacity = the chart's width in pixels, each bucket is
// one to two pixel columns wide, whatever the number of rows. The cost is
// O(series) per row plus O(series x capacity) per fold (a bucket is filled
// from a spanning interval at most once between folds), and folds happen at
// most 63 times: w never passes 2^63, since with capacity >= 2 no key
// satisfies (x - x0) / 2^63 >= capacity.
//
// A key before the origin (time that went backwards in hostile input) is
// clamped into bucket 0 and counted, never dropped or wrapped. Non-finite
// values are skipped (a bucket with no value is a gap in the band).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace hwpc::output::html {

// The values of one series in one bucket: smallest, largest, and their sum
// and count for the mean; empty when lo > hi.
struct band {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  double sum = 0;
  std::uint64_t n = 0;
  constexpr bool empty() const noexcept { return lo > hi; }
  constexpr double mean() const noexcept { return n != 0 ? sum / static_cast<double>(n) : 0; }
  constexpr void add(double v) noexcept {
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    sum += v;
    ++n;
  }
  constexpr void add(const band& b) noexcept {
    lo = b.lo < lo ? b.lo : lo;
    hi = b.hi > hi ? b.hi : hi;
    sum += b.sum;
    n += b.n;
  }
};

class band_grid {
 public:
  // `capacity` >= 2 buckets for each of `series` series.
  band_grid(std::size_t series, std::size_t capacity)
      : series_(series),
        cap_(std::max<std::size_t>(capacity, 2)),
        bands_(series_ * cap_),
        rows_(cap_, 0),
        losses_(cap_, 0) {}

  // Sets the origin; the first place() sets it when this is not called.
  void start(std::uint64_t x0) noexcept {
    x0_ = x0;
    started_ = true;
  }
  // The bucket of key `x`, folding the grid first if `x` is past its end.
  // Counts one row in that bucket.
  std::size_t place(std::uint64_t x) {
    const std::size_t b = locate(x);
    ++rows_[b];
    max_end_ = std::max(max_end_, x);
    seen_ = true;
    return b;
  }
  // The buckets of an interval [begin, end): `last` is the bucket of its
  // end (one row counted there), `first` the first bucket after the latest
  // end seen before it that the interval covers (`last` when none). Values
  // of the row go to every bucket of the range.
  struct bucket_range {
    std::size_t first;
    std::size_t last;
  };
  bucket_range place(std::uint64_t begin, std::uint64_t end) {
    const bool had = seen_;
    const std::uint64_t before = max_end_;
    const std::size_t last = place(end);
    std::size_t first = last;
    if (begin <= end) {
      std::size_t from = bucket_of(begin);
      if (had) from = std::max(from, bucket_of(before) + 1);
      first = std::min(from, last);
    }
    return {first, last};
  }
  // Marks a loss in the bucket of key `x` (where reports resume).
  void add_loss(std::uint64_t x) { ++losses_[locate(x)]; }
  // Adds a value of series `s` to bucket `b` (from place()); non-finite values are skipped.
  void add(std::size_t s, std::size_t b, double v) noexcept {
    if (std::isfinite(v)) bands_[s * cap_ + b].add(v);
  }
  void add(std::size_t s, bucket_range r, double v) noexcept {
    if (!std::isfinite(v)) return;
    band* p = &bands_[s * cap_];
    for (std::size_t b = r.first; b <= r.last; ++b) p[b].add(v);
  }

  bool started() const noexcept { return started_; }
  std::uint64_t origin() const noexcept { return x0_; }
  std::uint64_t width() const noexcept { return w_; }     // key units per bucket
  std::size_t used() const noexcept { return used_; }     // buckets 0 .. used()-1
  std::size_t capacity() const noexcept { return cap_; }  // the most buckets ever in use
  std::size_t series() const noexcept { return series_; }
  std::uint64_t clamped() const noexcept { return clamped_; }  // keys before the origin
  const band& at(std::size_t s, std::size_t b) const noexcept { return bands_[s * cap_ + b]; }
  std::uint64_t rows(std::size_t b) const noexcept { return rows_[b]; }
  std::uint64_t losses(std::size_t b) const noexcept { return losses_[b]; }
  // Every value of series `s`.
  band range(std::size_t s) const noexcept {
    band r;
    for (std::size_t b = 0; b < used_; ++b) r.add(at(s, b));
    return r;
  }

 private:
  std::size_t locate(std::uint64_t x) {
    if (!started_) start(x);
    if (x < x0_) {
      ++clamped_;
      x = x0_;
    }
    while ((x - x0_) / w_ >= cap_) fold();
    const auto b = static_cast<std::size_t>((x - x0_) / w_);
    used_ = std::max(used_, b + 1);
    return b;
  }
  // The bucket of a key already within the grid (no fold, no count).
  std::size_t bucket_of(std::uint64_t x) const noexcept {
    return static_cast<std::size_t>((std::max(x, x0_) - x0_) / w_);
  }
  // Buckets 2i and 2i+1 become bucket i; the upper half empties.
  void fold() {
    const std::size_t half = (cap_ + 1) / 2;
    for (std::size_t s = 0; s < series_; ++s) {
      band* v = &bands_[s * cap_];
      for (std::size_t i = 0; i < half; ++i) {
        band m = v[2 * i];
        if (2 * i + 1 < cap_) m.add(v[2 * i + 1]);
        v[i] = m;
      }
      std::fill(v + half, v + cap_, band{});
    }
    for (auto* counts : {&rows_, &losses_}) {
      auto& c = *counts;
      for (std::size_t i = 0; i < half; ++i)
        c[i] = c[2 * i] + (2 * i + 1 < cap_ ? c[2 * i + 1] : 0);
      std::fill(c.begin() + static_cast<std::ptrdiff_t>(half), c.end(), 0);
    }
    w_ *= 2;
    used_ = (used_ + 1) / 2;
  }

  std::size_t series_;
  std::size_t cap_;
  std::vector<band> bands_;  // series-major: series s at [s * cap_, (s + 1) * cap_)
  std::vector<std::uint64_t> rows_;
  std::vector<std::uint64_t> losses_;
  std::uint64_t x0_ = 0;
  std::uint64_t w_ = 1;
  std::size_t used_ = 0;
  std::uint64_t clamped_ = 0;
  std::uint64_t max_end_ = 0;  // the latest key place() has seen
  bool seen_ = false;
  bool started_ = false;
};

}  // namespace hwpc::output::html
