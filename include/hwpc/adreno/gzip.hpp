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
    const std::size_t room = std::min(piece, max_out - total);
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(room);
    const std::size_t left = in.size() - consumed;
    zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data() + consumed));
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(left, std::size_t{1} << 30));
    const uInt given = zs.avail_in;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    consumed += given - zs.avail_in;
    const std::size_t got = room - zs.avail_out;
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
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
      return fail(errc::inconsistent, consumed,
                  std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "zlib data error"));
    }
    if (rc == Z_MEM_ERROR) return fail(errc::io, consumed, "zlib ran out of memory");
    if (rc == Z_BUF_ERROR && consumed == in.size() && zs.avail_out != 0) {
      return fail(errc::truncated, in.size(), "gzip stream ends before its end marker");
    }
  }
  inflateEnd(&zs);
  return total;
}

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
