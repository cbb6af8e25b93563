// Random access into a gzip stream already inflated once: while a
// gunzip_stream inflates it (gzip.hpp, observe()), the index keeps access
// points at deflate block boundaries (where the compressed bits of the next
// block start, and the 32 KiB of output before it, which later blocks may
// copy from); read() inflates a range again from the last point before it,
// as a raw deflate stream primed with those bits and that window. This is
// the technique zlib's documentation describes for inflatePrime and
// inflateSetDictionary (docs/adreno.md, "Flat memory").
//
// Memory is bounded whatever the stream's size: at most `max_points` points
// of at most 32 KiB each. When the index is full, every other point is
// dropped and the spacing doubles, so a read inflates at most about
// `spacing()` bytes before the range it wants. The inflater of the last read
// is kept: a read further on continues it rather than starting again (the
// walk reads buffers in stream order, mostly).
#pragma once

#ifdef HWPC_HAVE_ZLIB
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "hwpc/adreno/gzip.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

class gzip_index final : public inflate_observer {
 public:
  static constexpr std::size_t window_size = std::size_t{1} << 15;

  // `compressed`: the whole gzip input, valid while reads are made.
  explicit gzip_index(byte_span compressed, std::size_t spacing = std::size_t{1} << 20,
                      std::size_t max_points = 64)
      : in_(compressed), spacing_(spacing), max_points_(std::max<std::size_t>(max_points, 2)) {}
  ~gzip_index() { end(); }
  gzip_index(const gzip_index&) = delete;
  gzip_index& operator=(const gzip_index&) = delete;

  std::size_t points() const noexcept { return points_.size(); }
  std::size_t spacing() const noexcept { return spacing_; }
  // Bytes inflated by reads, including those skipped to reach a range.
  std::size_t inflated() const noexcept { return inflated_; }

  void on_boundary(z_stream& zs, std::size_t in_at, std::size_t out_at, std::byte last) override {
    if (!points_.empty() && out_at - points_.back().out < spacing_) return;
    if (points_.size() == max_points_) thin();
    if (!points_.empty() && out_at - points_.back().out < spacing_) return;
    point p;
    p.in = in_at;
    p.out = out_at;
    p.bits = zs.data_type & 7;
    p.last = last;
    p.window.resize(window_size);
    uInt n = static_cast<uInt>(window_size);
    if (inflateGetDictionary(&zs, reinterpret_cast<Bytef*>(p.window.data()), &n) != Z_OK) n = 0;
    p.window.resize(n);
    p.window.shrink_to_fit();
    points_.push_back(std::move(p));
  }

  // Inflates [offset, offset + n) of the output into `out`. Errors name the
  // offset in the compressed input where inflating stopped.
  result<void> read(std::size_t offset, std::size_t n, std::byte* out) {
    if (n == 0) return {};
    auto it = std::upper_bound(points_.begin(), points_.end(), offset,
                               [](std::size_t o, const point& p) { return o < p.out; });
    if (it == points_.begin()) {
      return make_error(
          errc::out_of_range, 0,
          "gzip offset " + std::to_string(offset) + " is before the first access point");
    }
    --it;
    if (!live_ || out_at_ > offset || out_at_ < it->out) {
      if (auto ok = start(*it); !ok) return ok;
    }
    std::size_t copied = 0;
    while (copied < n) {
      const std::size_t want_from = offset + copied;
      // Straight into `out` once the range is reached; through the scratch
      // buffer before it.
      std::byte* dst;
      std::size_t room;
      if (out_at_ == want_from) {
        dst = out + copied;
        room = n - copied;
      } else {
        scratch_.resize(std::size_t{1} << 16);
        dst = scratch_.data();
        room = std::min(scratch_.size(), want_from - out_at_);
      }
      // A member's end may leave in_at_ past a cut trailer: no input then.
      const auto [rc, used, got] = detail::inflate_some(
          zs_, in_.subspan(std::min(in_at_, in_.size())), dst, room, Z_NO_FLUSH);
      in_at_ += used;
      out_at_ += got;
      inflated_ += got;
      if (out_at_ - got == want_from) copied += got;
      if (rc == Z_STREAM_END) {
        // The member ends; the next starts after its 8-byte trailer (a raw
        // stream stops before it) with a gzip header.
        if (raw_) in_at_ += 8;
        if (in_at_ >= in_.size()) {
          if (copied < n) return fail(errc::truncated, in_.size(), "gzip stream ends early");
          break;
        }
        raw_ = false;
        if (inflateReset2(&zs_, 16 + MAX_WBITS) != Z_OK) {
          return fail(errc::io, in_at_, "zlib could not start");
        }
        continue;
      }
      if (auto e = detail::inflate_error(zs_, rc, in_at_)) {
        end();
        return *e;
      }
      if (rc == Z_BUF_ERROR && got == 0) {
        return fail(errc::truncated, in_at_, "gzip stream ends before its end marker");
      }
    }
    return {};
  }

 private:
  struct point {
    std::size_t in = 0, out = 0;  // compressed bytes used, bytes out
    int bits = 0;                 // of the byte before `in`, the next block's first
    std::byte last{};             // that byte
    std::vector<std::byte> window;
  };

  void thin() {
    std::size_t k = 0;
    for (std::size_t i = 0; i < points_.size(); i += 2) points_[k++] = std::move(points_[i]);
    points_.resize(k);
    spacing_ *= 2;
  }

  result<void> start(const point& p) {
    end();
    zs_ = z_stream{};
    if (inflateInit2(&zs_, -MAX_WBITS) != Z_OK) return fail(errc::io, p.in, "zlib could not start");
    live_ = true;
    raw_ = true;
    in_at_ = p.in;
    out_at_ = p.out;
    if (p.bits != 0 &&
        inflatePrime(&zs_, p.bits,
                     static_cast<int>(std::to_integer<unsigned>(p.last) >> (8 - p.bits))) != Z_OK) {
      return fail(errc::io, p.in, "zlib could not resume at an access point");
    }
    if (!p.window.empty() &&
        inflateSetDictionary(&zs_, reinterpret_cast<const Bytef*>(p.window.data()),
                             static_cast<uInt>(p.window.size())) != Z_OK) {
      return fail(errc::io, p.in, "zlib could not resume at an access point");
    }
    return {};
  }

  void end() {
    if (live_) inflateEnd(&zs_);
    live_ = false;
  }

  error fail(errc code, std::size_t at, std::string msg) {
    end();
    return make_error(code, at, std::move(msg));
  }

  byte_span in_;
  std::size_t spacing_, max_points_;
  std::vector<point> points_;
  z_stream zs_{};
  bool live_ = false, raw_ = true;
  std::size_t in_at_ = 0, out_at_ = 0, inflated_ = 0;
  std::vector<std::byte> scratch_;
};

}  // namespace hwpc::adreno
#endif
