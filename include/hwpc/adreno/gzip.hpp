// gzip-compressed input (`capture.rd.gz`) through zlib. zlib is optional:
// `is_gzip` always exists; `gunzip` only when HWPC_HAVE_ZLIB is defined (the
// build defines it when zlib is found and HWPC_WITH_ZLIB / -Dzlib allow it),
// so nothing else in hwpc depends on zlib (docs/adreno.md, "gzip").
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwpc/core/bytes.hpp"

#ifdef HWPC_HAVE_ZLIB
#include <zlib.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#endif

namespace hwpc::adreno {

// gzip member header: 1f 8b (RFC 1952).
inline bool is_gzip(byte_span d) noexcept {
  return d.size() >= 2 && d[0] == std::byte{0x1f} && d[1] == std::byte{0x8b};
}

inline constexpr bool have_gzip =
#ifdef HWPC_HAVE_ZLIB
    true;
#else
    false;
#endif

#ifdef HWPC_HAVE_ZLIB
namespace detail {

// One inflate() call: the feeding step gunzip_to, gunzip_stream and
// gzip_index (gzip_index.hpp) share around their own state (a one-pass sink,
// a resumable stream, a read from an access point). Input from the start of
// `in`, output into `out`, at most `room` bytes; zlib counts both in uInt, so
// each is cut to 1 GiB. `used` and `got` are the bytes taken and given.
struct inflate_step {
  int rc;
  std::size_t used, got;
};
inline inflate_step inflate_some(z_stream& zs, byte_span in, std::byte* out, std::size_t room,
                                 int flush) noexcept {
  constexpr std::size_t most = std::size_t{1} << 30;
  zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data()));
  zs.avail_in = static_cast<uInt>(std::min(in.size(), most));
  zs.next_out = reinterpret_cast<Bytef*>(out);
  zs.avail_out = static_cast<uInt>(std::min(room, most));
  const uInt given_in = zs.avail_in, given_out = zs.avail_out;
  const int rc = inflate(&zs, flush);
  return {rc, std::size_t{given_in - zs.avail_in}, std::size_t{given_out - zs.avail_out}};
}

// The error an inflate() code is, at `at` in the compressed input: corrupt
// data (in zlib's words) or no memory. None for the others: whether
// Z_BUF_ERROR is a cut stream only the caller knows.
inline std::optional<error> inflate_error(const z_stream& zs, int rc, std::size_t at) {
  if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
    return make_error(errc::inconsistent, at,
                      std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "zlib data error"));
  }
  if (rc == Z_MEM_ERROR) return make_error(errc::io, at, "zlib ran out of memory");
  return std::nullopt;
}

}  // namespace detail

// Decompresses every gzip member of `in` (concatenated members are one
// stream, as gunzip treats them), handing the output to `sink` a piece of at
// most 1 MiB at a time (`sink(byte_span)` returns false to stop: an `io`
// error). Memory is that piece, whatever the sizes, so a caller can write
// the output to a file. Errors name the byte offset in the compressed input
// where zlib stopped; output beyond `max_out` bytes is `oversized` (a guard
// against decompression bombs). Returns the output size.
template <class Sink>
result<std::size_t> gunzip_to(byte_span in, Sink&& sink,
                              std::size_t max_out = std::size_t{1} << 33) {
  constexpr std::size_t piece = std::size_t{1} << 20;
  std::vector<std::byte> buf(piece);
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    return make_error(errc::io, 0, "zlib could not start");
  }
  std::size_t consumed = 0;  // input bytes handed to zlib and used
  std::size_t total = 0;     // output bytes
  const auto fail = [&](errc code, std::size_t at, std::string msg) {
    inflateEnd(&zs);
    return make_error(code, at, std::move(msg));
  };
  while (true) {
    if (total == max_out) {
      return fail(errc::oversized, consumed,
                  "gzip data expands past " + std::to_string(max_out) + " bytes");
    }
    const auto [rc, used, got] = detail::inflate_some(zs, in.subspan(consumed), buf.data(),
                                                      std::min(piece, max_out - total), Z_NO_FLUSH);
    consumed += used;
    total += got;
    if (got != 0 && !sink(byte_span(buf.data(), got))) {
      return fail(errc::io, consumed, "cannot keep the decompressed data");
    }
    if (rc == Z_STREAM_END) {
      if (consumed == in.size()) break;
      if (!is_gzip(in.subspan(consumed))) {
        return fail(errc::inconsistent, consumed, "data after the end of the gzip stream");
      }
      inflateReset(&zs);
      continue;
    }
    if (auto e = detail::inflate_error(zs, rc, consumed)) {
      inflateEnd(&zs);
      return *e;
    }
    if (rc == Z_BUF_ERROR && consumed == in.size() && zs.avail_out != 0) {
      return fail(errc::truncated, in.size(), "gzip stream ends before its end marker");
    }
  }
  inflateEnd(&zs);
  return total;
}

// Told of the deflate block boundaries a gunzip_stream passes (gzip_index.hpp):
// `zs` stopped after a block's end code (or a member's header), `in_at`
// compressed bytes used, `out_at` bytes out; the last byte used is `last`
// (its unused high bits, data_type & 7 of them, start the next block).
class inflate_observer {
 public:
  virtual void on_boundary(z_stream& zs, std::size_t in_at, std::size_t out_at, std::byte last) = 0;

 protected:
  ~inflate_observer() = default;
};

// The same, with the compressed input handed over a piece at a time too (a
// file read in blocks), so that neither side is ever held whole. feed() hands
// the output of each piece to `sink` as gunzip_to does; finish() says whether
// the stream ended where a gzip member ends. Errors name the offset in the
// compressed input, as gunzip_to's do.
class gunzip_stream {
 public:
  explicit gunzip_stream(std::size_t max_out = std::size_t{1} << 33)
      : max_out_(max_out), buf_(std::size_t{1} << 20) {}
  ~gunzip_stream() {
    if (started_) inflateEnd(&zs_);
  }
  gunzip_stream(const gunzip_stream&) = delete;
  gunzip_stream& operator=(const gunzip_stream&) = delete;

  std::size_t total_out() const noexcept { return total_; }
  // Stops at every deflate block boundary to tell `o` (before the first feed).
  void observe(inflate_observer* o) noexcept { observer_ = o; }

  template <class Sink>
  result<void> feed(byte_span in, Sink&& sink) {
    if (failed_) return *failed_;
    if (!started_) {
      if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) {
        return fail(errc::io, 0, "zlib could not start");
      }
      started_ = true;
    }
    std::size_t used = 0;
    while (used < in.size() || pending_out_) {
      if (ended_) {  // the next member, or bytes that are none
        if (!head_ok(in.subspan(used))) {
          return fail(errc::inconsistent, consumed_, "data after the end of the gzip stream");
        }
        inflateReset(&zs_);
        ended_ = false;
      }
      if (total_ == max_out_) {
        return fail(errc::oversized, consumed_,
                    "gzip data expands past " + std::to_string(max_out_) + " bytes");
      }
      const auto [rc, took, got] = detail::inflate_some(
          zs_, in.subspan(used), buf_.data(), std::min(buf_.size(), max_out_ - total_),
          observer_ != nullptr ? Z_BLOCK : Z_NO_FLUSH);
      used += took;
      consumed_ += took;
      if (took != 0) last_ = in[used - 1];
      total_ += got;
      // A full buffer may leave output inside zlib with no input left.
      pending_out_ = zs_.avail_out == 0 && rc == Z_OK;
      if (observer_ != nullptr && rc == Z_OK && (zs_.data_type & 128) != 0 &&
          (zs_.data_type & 64) == 0) {
        observer_->on_boundary(zs_, consumed_, total_, last_);
      }
      if (got != 0 && !sink(byte_span(buf_.data(), got))) {
        return fail(errc::io, consumed_, "cannot keep the decompressed data");
      }
      if (rc == Z_STREAM_END) {
        ended_ = true;
        pending_out_ = false;
        continue;
      }
      if (auto e = detail::inflate_error(zs_, rc, consumed_)) {
        failed_ = std::move(*e);
        return *failed_;
      }
      if (rc == Z_BUF_ERROR) pending_out_ = false;  // needs more input
    }
    return {};
  }

  // The end of the compressed input.
  result<void> finish() {
    if (failed_) return *failed_;
    if (!ended_) return fail(errc::truncated, consumed_, "gzip stream ends before its end marker");
    return {};
  }

 private:
  // After a member's end, another may start only with the gzip magic (a
  // piece boundary may cut it: one byte 1f is taken on trust).
  static bool head_ok(byte_span rest) noexcept {
    if (rest.empty()) return true;
    if (rest.size() == 1) return rest[0] == std::byte{0x1f};
    return is_gzip(rest);
  }
  result<void> fail(errc code, std::size_t at, std::string msg) {
    failed_ = make_error(code, at, std::move(msg));
    return *failed_;
  }

  z_stream zs_{};
  std::size_t max_out_;
  std::vector<std::byte> buf_;
  std::size_t consumed_ = 0, total_ = 0;
  bool started_ = false, ended_ = false, pending_out_ = false;
  std::optional<error> failed_;
  inflate_observer* observer_ = nullptr;
  std::byte last_{};
};

// The same into memory: the whole decompressed data.
inline result<std::vector<std::byte>> gunzip(byte_span in,
                                             std::size_t max_out = std::size_t{1} << 33) {
  std::vector<std::byte> out;
  auto n = gunzip_to(
      in,
      [&out](byte_span b) {
        out.insert(out.end(), b.begin(), b.end());
        return true;
      },
      max_out);
  if (!n) return n.error_value();
  return out;
}
#endif

}  // namespace hwpc::adreno
