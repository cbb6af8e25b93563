// Random access into gzip data (adreno/gzip_index.hpp) and the buffers a
// stream_reader reads again rather than holds (docs/adreno.md, "Flat memory").
// Input: [flags, spacing, points, level, damage at (4), damage xor, piece,
// hold, reads, (offset (4), length (2)) x reads] then the payload. Flags bit 0
// set: the payload is a gzip stream as it is; clear: the payload is deflated
// here into 1 to 4 gzip members (level and strategy from `level`), so the
// fuzzer gets past the header and reaches every kind of block, then damaged
// at `damage at` (bit 1) or cut there (bit 2).
// Invariants: the index is built while a gunzip_stream inflates the stream a
// piece at a time, and that pass agrees with a one-pass gunzip (both succeed
// or both fail, the same bytes out); a range read through the index that
// succeeds is the bytes the first pass gave, and a read past where a corrupt
// stream stopped fails; every error names an offset inside the compressed
// input and a clean message; memory stays within the index's points. The
// inflated bytes read as an .rd capture by a stream_reader give the same
// packets (with their payloads), issues, notes and walk figures whether its
// buffers are views into the whole, held copies, read again from the bytes
// by offset (as from a file, bit 3: from a real temporary file through
// detail::file_ranges), or read again from the gzip index.
// Without zlib (HWPC_WITH_ZLIB=OFF, or none found) the target reads nothing.
#include <cstddef>
#include <cstdint>

#ifdef HWPC_HAVE_ZLIB
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/gzip_index.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/rd_stream.hpp"
#include "hwpc/pipeline/adreno_input.hpp"

using namespace hwpc::adreno;
using bytes = std::vector<std::byte>;

namespace {

constexpr std::size_t max_out = std::size_t{1} << 20;

bool code_ok(hwpc::errc c) {
  return c == hwpc::errc::truncated || c == hwpc::errc::inconsistent || c == hwpc::errc::io ||
         c == hwpc::errc::out_of_range || c == hwpc::errc::oversized;
}

// zlib's deflate of `data` into `members` gzip members.
bytes deflate_members(hwpc::byte_span data, int level, int strategy, int members) {
  bytes out;
  const std::size_t step = data.size() / static_cast<std::size_t>(members) + 1;
  for (std::size_t from = 0; from < data.size() || out.empty(); from += step) {
    const std::size_t n = std::min(step, data.size() - from);
    z_stream zs{};
    FUZZ_CHECK(deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, strategy) == Z_OK,
               "deflateInit2");
    bytes z(deflateBound(&zs, static_cast<uLong>(n)) + 64);
    zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(data.data() + from));
    zs.avail_in = static_cast<uInt>(n);
    zs.next_out = reinterpret_cast<Bytef*>(z.data());
    zs.avail_out = static_cast<uInt>(z.size());
    FUZZ_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END, "deflate");
    out.insert(out.end(), z.begin(), z.begin() + static_cast<std::ptrdiff_t>(zs.total_out));
    deflateEnd(&zs);
    if (n == 0) break;
  }
  return out;
}

// What a walk gives, payload bytes included (a buffer read again must give
// the bytes a view gives).
struct trace final : rd::capture_sink {
  std::string text;
  void on_packet(const walked_packet& w) override {
    std::uint32_t h = 2166136261u;
    for (std::byte b : w.pkt.payload) h = (h ^ std::to_integer<std::uint32_t>(b)) * 16777619u;
    text += std::to_string(w.pkt.offset) + " " + std::to_string(w.gpu_addr) + " " +
            std::to_string(w.depth) + " " + std::to_string(w.pkt.hdr.id) + " " +
            std::to_string(w.pkt.payload.size()) + " " + std::to_string(h) + "\n";
  }
  void on_issue(const hwpc::error& e) override {
    text += "issue " + std::to_string(e.offset) + " " + e.message + "\n";
  }
  void on_note(const hwpc::error& e) override {
    text += "note " + std::to_string(e.offset) + " " + e.message + "\n";
  }
};

std::string figures(const walk_stats& s) {
  return std::to_string(s.packets) + " " + std::to_string(s.ibs_followed) + " " +
         std::to_string(s.issues) + " " + std::to_string(s.skipped_bytes) + " " +
         std::to_string(s.dwords);
}

// The bytes as fed, read again by offset (what a file gives).
struct from_bytes final : rd::range_source {
  explicit from_bytes(hwpc::byte_span b) : all(b) {}
  hwpc::result<void> read(std::size_t offset, std::size_t n, std::byte* out) override {
    FUZZ_CHECK(offset <= all.size() && n <= all.size() - offset, "a read again inside the stream");
    if (n != 0) std::memcpy(out, all.data() + offset, n);
    return {};
  }
  hwpc::byte_span all;
};

struct from_index final : rd::range_source {
  explicit from_index(gzip_index& i) : ix(i) {}
  hwpc::result<void> read(std::size_t offset, std::size_t n, std::byte* out) override {
    return ix.read(offset, n, out);
  }
  gzip_index& ix;
};

const walk_options walk_budget{8, std::uint64_t{1} << 16, 64};

struct walked {
  std::string text, fig;
  std::size_t fetches = 0;
};

// `rd` fed in pieces of `piece` bytes to a stream_reader: views (`backing`),
// held copies (neither), or read again from `src`.
walked stream(hwpc::byte_span rd, std::size_t piece, hwpc::byte_span backing, rd::range_source* src,
              std::size_t hold_max, std::size_t budget) {
  trace t;
  rd::stream_reader r(t, walk_budget);
  if (!backing.empty()) r.set_backing(backing);
  if (src != nullptr) r.set_source(src, hold_max, budget);
  for (std::size_t at = 0; at < rd.size(); at += piece) {
    if (!r.feed(rd.subspan(at, std::min(piece, rd.size() - at)))) break;
  }
  (void)r.finish();
  FUZZ_CHECK(!r.fetch_error(), r.fetch_error()->describe());
  r.set_source(nullptr);
  return {t.text, figures(r.walk()), r.fetches()};
}

// memcmp, with no pointer read for no bytes (an empty vector's may be null).
bool same(const std::byte* a, const std::byte* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

void check_failure(const hwpc::error& e, std::size_t compressed) {
  fuzz::check_error(e, compressed);
  FUZZ_CHECK(e.anchor == hwpc::error_anchor::byte_offset, e.describe());
  FUZZ_CHECK(e.offset <= compressed, e.describe());
  FUZZ_CHECK(code_ok(e.code), e.describe());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const std::uint8_t flags = in.u8();
  const std::size_t spacing = std::size_t{1} << (6 + in.u8() % 14);
  const std::size_t max_points = 2 + in.u8() % 15;
  const std::uint8_t level = in.u8();
  const std::uint32_t damage_at = in.u32();
  const std::uint8_t damage_xor = in.u8();
  const std::size_t piece = 1 + std::size_t{in.u8()} * 257;
  const std::uint8_t hold = in.u8();
  const std::size_t reads = in.u8() % 9;
  struct range {
    std::size_t offset, n;
  };
  std::vector<range> ranges;
  for (std::size_t k = 0; k < reads; ++k) {
    const std::uint32_t off = in.u32();
    const std::uint32_t n = std::uint32_t{in.u8()} | std::uint32_t{in.u8()} << 8;
    ranges.push_back({off, n});
  }
  const hwpc::byte_span payload = in.rest();

  bytes z;
  if ((flags & 1) != 0) {
    z.assign(payload.begin(), payload.end());
  } else {
    static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE,
                                     Z_FIXED};
    z = deflate_members(payload, level % 10, strategies[(level / 10) % 5], 1 + (level >> 6));
    if ((flags & 2) != 0 && !z.empty())
      z[damage_at % z.size()] ^= static_cast<std::byte>(damage_xor | 1);
    if ((flags & 4) != 0) z.resize(damage_at % (z.size() + 1));
  }
  const hwpc::byte_span zs(z);

  // The one-pass reference.
  auto whole = gunzip(zs, max_out);
  if (!whole) check_failure(whole.error_value(), z.size());

  // The index, built while a gunzip_stream inflates the stream a piece at a time.
  gzip_index index(zs, spacing, max_points);
  bytes first;
  gunzip_stream s(max_out);
  s.observe(&index);
  hwpc::result<void> built;
  for (std::size_t at = 0; at < z.size() && built; at += piece) {
    built = s.feed(zs.subspan(at, std::min(piece, z.size() - at)), [&](hwpc::byte_span p) {
      first.insert(first.end(), p.begin(), p.end());
      return true;
    });
  }
  if (built) built = s.finish();
  if (!built) check_failure(built.error_value(), z.size());
  FUZZ_CHECK(first.size() <= max_out, "the first pass within its limit");
  FUZZ_CHECK(index.points() <= max_points, "the index within its points");
  FUZZ_CHECK(s.total_out() == first.size(), "total_out counts the bytes out");
  FUZZ_CHECK(static_cast<bool>(whole) == static_cast<bool>(built),
             "gunzip and gunzip_stream agree: " +
                 (whole ? built.error_value().describe() : whole.error_value().describe()));
  if (whole) FUZZ_CHECK(*whole == first, "gunzip and gunzip_stream give the same bytes");
  if ((flags & 7) == 0) {
    FUZZ_CHECK(whole && whole->size() == payload.size() &&
                   same(whole->data(), payload.data(), payload.size()),
               "deflate then gunzip gives the payload back");
  }
  // A corrupt or cut stream of one member: nothing past where the first pass
  // stopped reads. (With more members, a read that crosses a member's end
  // from an access point skips its trailer unchecked, as a raw inflater
  // stops before it, and goes on into the next member; the reader never asks
  // for bytes past where the first pass stopped, so only the bytes before
  // that point are checked.)
  const bool stopped =
      (flags & 1) == 0 && level < 64 && !built && built.error_value().code != hwpc::errc::oversized;

  // Ranges through the index: the first pass's bytes, or a clean error.
  ranges.push_back({0, first.size()});
  if (!first.empty()) ranges.push_back({first.size() - 1, 2});
  bytes got;
  for (const range& r : ranges) {
    const std::size_t off = r.offset % (first.size() + 64);
    got.assign(r.n, std::byte{0xa5});
    auto ok = index.read(off, r.n, got.data());
    if (!ok) {
      check_failure(ok.error_value(), z.size());
      continue;
    }
    FUZZ_CHECK(r.n == 0 || !stopped || off + r.n <= first.size(),
               "a read past a corrupt stream's end fails: " + std::to_string(off) + "+" +
                   std::to_string(r.n) + " of " + std::to_string(first.size()) + " (" +
                   built.error_value().describe() + ")");
    const std::size_t known = off >= first.size() ? 0 : std::min(r.n, first.size() - off);
    FUZZ_CHECK(known == 0 || same(got.data(), first.data() + off, known),
               "the index reads the first pass's bytes at " + std::to_string(off));
  }

  // The inflated bytes as an .rd capture, buffers kept four ways.
  if (!whole || whole->empty()) return 0;
  const hwpc::byte_span rd(*whole);
  const std::size_t hold_max = (hold & 1) != 0 ? 0 : std::size_t{hold} * 64;
  const std::size_t budget = (hold & 2) != 0 ? 0 : std::size_t{hold} * 256;
  const walked views = stream(rd, piece, rd, nullptr, 0, 0);
  const walked copies = stream(rd, piece, {}, nullptr, 0, 0);
  FUZZ_CHECK(copies.text == views.text && copies.fig == views.fig, "copies read as views");
  from_bytes again(rd);
  const walked reread = stream(rd, piece, {}, &again, hold_max, budget);
  FUZZ_CHECK(reread.text == views.text && reread.fig == views.fig,
             "buffers read again by offset read as views");
  if ((flags & 8) != 0) {
    // A real file, as a plain capture's buffers are read again (cheap: the
    // inflated bytes are at most max_out, and most inputs are far smaller).
    char path[] = "/tmp/hwpc-fuzz-gzip-index-XXXXXX";
    const int fd = ::mkstemp(path);
    FUZZ_CHECK(fd >= 0, "mkstemp");
    FUZZ_CHECK(::write(fd, rd.data(), rd.size()) == static_cast<ssize_t>(rd.size()), "write");
    ::close(fd);
    {
      detail::file_ranges file(path);
      FUZZ_CHECK(file.open(), "the file opens");
      const walked from_file = stream(rd, piece, {}, &file, hold_max, budget);
      FUZZ_CHECK(from_file.text == views.text && from_file.fig == views.fig,
                 "buffers read again from a file read as views");
    }
    ::unlink(path);
  }
  // The gzip stream fed through its index, every unheld buffer inflated again.
  {
    gzip_index ix(zs, spacing, max_points);
    from_index src(ix);
    trace t;
    rd::stream_reader r(t, walk_budget);
    r.set_source(&src, hold_max, budget);
    gunzip_stream g(max_out);
    g.observe(&ix);
    for (std::size_t at = 0; at < z.size(); at += piece) {
      FUZZ_CHECK(g.feed(zs.subspan(at, std::min(piece, z.size() - at)),
                        [&](hwpc::byte_span p) { return static_cast<bool>(r.feed(p)); }),
                 "the stream inflates again");
    }
    FUZZ_CHECK(g.finish(), "the stream ends again");
    (void)r.finish();
    FUZZ_CHECK(!r.fetch_error(), r.fetch_error()->describe());
    r.set_source(nullptr);
    FUZZ_CHECK(t.text == views.text && figures(r.walk()) == views.fig,
               "buffers inflated again from the index read as views");
  }
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
#endif
