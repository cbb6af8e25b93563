// Flat memory (docs/adreno.md, "Flat memory"): buffers of a plain .rd input
// are views into its bytes, large buffers of a gzip one are inflated again
// from an index of access points when a lookup lands in them. The bytes
// read again must be the bytes the stream held: the walks, packets and rows
// are those of the whole capture in memory, and memory stays bounded when
// every submit holds a large data buffer, as real captures do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "adreno_read_peak.hpp"
#include "hwpc/adreno/emulate.hpp"
#include "hwpc/adreno/emulate6.hpp"
#include "hwpc/adreno/emulate_frames.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/gzip_index.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/rd_stream.hpp"
#include "hwpc/adreno/result_rows.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_packets.hpp"
#include "sanitizer.hpp"

namespace {

namespace a = hwpc::adreno;
using bytes = std::vector<std::byte>;

#ifdef HWPC_HAVE_ZLIB
// zlib's deflate into gzip members, one per piece of `data` cut at `cuts`.
bytes gzip_members(const bytes& data, std::vector<std::size_t> cuts = {}, int level = 6) {
  cuts.push_back(data.size());
  bytes out;
  std::size_t from = 0;
  for (std::size_t to : cuts) {
    z_stream zs{};
    deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    bytes z(deflateBound(&zs, static_cast<uLong>(to - from)));
    zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(data.data() + from));
    zs.avail_in = static_cast<uInt>(to - from);
    zs.next_out = reinterpret_cast<Bytef*>(z.data());
    zs.avail_out = static_cast<uInt>(z.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out.insert(out.end(), z.begin(), z.begin() + static_cast<std::ptrdiff_t>(zs.total_out));
    deflateEnd(&zs);
    from = to;
  }
  return out;
}

// Inflates `z` whole through a gunzip_stream observed by `index`.
hwpc::result<void> index_all(const bytes& z, a::gzip_index& index) {
  a::gunzip_stream s;
  s.observe(&index);
  for (std::size_t at = 0; at < z.size(); at += 4096) {
    const std::size_t n = std::min<std::size_t>(4096, z.size() - at);
    auto ok = s.feed(hwpc::byte_span(z.data() + at, n), [](hwpc::byte_span) { return true; });
    if (!ok) return ok;
  }
  return s.finish();
}

// Part random, part runs: deflate makes blocks of every kind of it.
bytes mixed(std::size_t n, unsigned seed) {
  std::mt19937 r(seed);
  bytes d(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool noise = (i / 50000) % 3 == 0;
    d[i] = static_cast<std::byte>(noise ? r() : (i / 97) & 0xff);
  }
  return d;
}

TEST(AdrenoFlat, GzipIndexReadsAnyRangeInBoundedPoints) {
  const bytes data = mixed(3 << 20, 1);
  // Three members: reads across their ends go on into the next one.
  const bytes z = gzip_members(data, {1'100'000, 2'000'000});
  a::gzip_index index(hwpc::byte_span(z), 64 << 10, 8);
  ASSERT_TRUE(index_all(z, index));
  EXPECT_LE(index.points(), 8u);
  EXPECT_GT(index.spacing(), std::size_t{64} << 10);  // thinned as the stream went on
  std::mt19937 r(2);
  std::vector<std::byte> got;
  const auto check = [&](std::size_t off, std::size_t n) {
    got.assign(n, std::byte{0});
    auto ok = index.read(off, n, got.data());
    ASSERT_TRUE(ok) << off << "+" << n << ": " << ok.error_value().message;
    ASSERT_TRUE(std::equal(got.begin(), got.end(), data.begin() + static_cast<std::ptrdiff_t>(off)))
        << off << "+" << n;
  };
  for (int k = 0; k < 200; ++k) {
    const std::size_t off = r() % data.size();
    check(off, std::min<std::size_t>(1 + r() % 200000, data.size() - off));
  }
  check(1'100'000 - 10, 20);  // across a member's end
  check(2'000'000 - 70000, 140000);
  check(0, data.size());
  // In stream order: each read continues the last one's inflater.
  const std::size_t before = index.inflated();
  for (std::size_t off = 0; off + 4096 <= data.size(); off += 100000) check(off, 4096);
  EXPECT_LT(index.inflated() - before, data.size() + (std::size_t{1} << 20));
}

TEST(AdrenoFlat, GzipIndexReadPastACutStreamFailsWithItsOffset) {
  const bytes data = mixed(1 << 20, 3);
  bytes z = gzip_members(data);
  z.resize(z.size() / 2);
  a::gzip_index index(hwpc::byte_span(z), 32 << 10, 16);
  auto all = index_all(z, index);
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error_value().code, hwpc::errc::truncated);
  ASSERT_GT(index.points(), 1u);
  std::vector<std::byte> got(4096);
  auto ok = index.read(data.size() - 4096, 4096, got.data());
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(ok.error_value().offset, z.size());
}

// A read that ends where a member ends leaves the inflater there, past the
// member's trailer; when the trailer is cut short that is past the input. A
// read further on continues from there: it fails at the input's end, and
// hands zlib no input beyond it.
TEST(AdrenoFlat, GzipIndexReadAfterACutTrailerFailsAtTheEnd) {
  const bytes data = mixed(200000, 4);
  bytes z = gzip_members(data);
  z.resize(z.size() - 5);  // 3 bytes of the 8-byte trailer left
  a::gzip_index index(hwpc::byte_span(z), 16 << 10, 16);
  auto all = index_all(z, index);
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error_value().code, hwpc::errc::truncated);
  std::vector<std::byte> got(4096);
  const std::size_t last = data.size() - got.size();
  ASSERT_TRUE(index.read(last, got.size(), got.data()));
  EXPECT_TRUE(std::equal(got.begin(), got.end(), data.begin() + static_cast<std::ptrdiff_t>(last)));
  for (int again = 0; again < 2; ++again) {
    auto ok = index.read(data.size(), 1, got.data());
    ASSERT_FALSE(ok);
    EXPECT_EQ(ok.error_value().code, hwpc::errc::truncated);
    EXPECT_EQ(ok.error_value().offset, z.size());
  }
}
#endif

// What a walk gives: every packet's offset, address, depth and header, the
// issues and notes, and the walk's figures.
struct trace final : a::rd::capture_sink {
  std::vector<std::string> lines;
  void on_packet(const a::walked_packet& w) override {
    lines.push_back(std::to_string(w.pkt.offset) + " " + std::to_string(w.gpu_addr) + " " +
                    std::to_string(w.depth) + " " + std::to_string(w.pkt.hdr.id) + " " +
                    std::to_string(w.pkt.payload.size()) + " " +
                    std::to_string(w.pkt.payload.empty()
                                       ? 0u
                                       : std::to_integer<unsigned>(w.pkt.payload.back())));
  }
  void on_issue(const hwpc::error& e) override {
    lines.push_back("issue " + std::to_string(e.offset) + " " + e.message);
  }
  void on_note(const hwpc::error& e) override {
    lines.push_back("note " + std::to_string(e.offset) + " " + e.message);
  }
};

std::string figures(const a::walk_stats& s) {
  return std::to_string(s.packets) + " " + std::to_string(s.ibs_followed) + " " +
         std::to_string(s.issues) + " " + std::to_string(s.skipped_bytes);
}

// The whole capture in memory, read at once (capture_reader::read).
std::vector<std::string> whole_walk(const bytes& file, std::string* fig) {
  trace t;
  a::rd::capture_reader r(t);
  (void)r.read(hwpc::byte_span(file));
  *fig = figures(r.walk());
  return t.lines;
}

#ifdef HWPC_HAVE_ZLIB
// The same capture gzip-compressed, streamed with nothing large held:
// every buffer is read again from the index when a lookup lands in it.
struct from_index final : a::rd::range_source {
  explicit from_index(a::gzip_index& i) : ix(i) {}
  hwpc::result<void> read(std::size_t offset, std::size_t n, std::byte* out) override {
    return ix.read(offset, n, out);
  }
  a::gzip_index& ix;
};

template <class Sink>
std::size_t stream_unheld(
    const bytes& z, Sink& sink, a::rd::stream_reader& r,
    const std::function<void()>& at_end = [] {}) {
  a::gzip_index index(hwpc::byte_span(z), 16 << 10, 32);
  from_index src(index);
  r.set_source(&src, 0, 0);
  a::gunzip_stream s;
  s.observe(&index);
  for (std::size_t at = 0; at < z.size(); at += 65536) {
    const std::size_t n = std::min<std::size_t>(65536, z.size() - at);
    EXPECT_TRUE(s.feed(hwpc::byte_span(z.data() + at, n),
                       [&](hwpc::byte_span p) { return static_cast<bool>(r.feed(p)); }));
  }
  EXPECT_TRUE(s.finish());
  (void)r.finish();
  at_end();
  EXPECT_FALSE(r.fetch_error());
  r.set_source(nullptr);
  (void)sink;
  return r.fetches();
}
#endif

std::vector<bytes> captures() {
  std::vector<bytes> out;
  a::emulate_options o;
  o.rounds = 9;
  out.push_back(a::emulate_a5xx(o).file);
  out.push_back(a::emulate_a6xx_a7xx(o, false).file);
  o.libwrap = true;
  out.push_back(a::emulate_a6xx_a7xx(o, true).file);
  for (const a::generation g : {a::generation::a5xx, a::generation::a6xx, a::generation::a7xx}) {
    a::frames_options fo;
    fo.bytes = 2 << 20;
    fo.gen = g;
    fo.libwrap = g == a::generation::a7xx;
    fo.texture_bytes = (256 << 10) + 4;
    fo.draw_ibs = 8;
    out.push_back(a::emulate_frames_file(fo, nullptr));
  }
  return out;
}

TEST(AdrenoFlat, BuffersReadAgainGiveTheWalkOfTheWholeCapture) {
  for (const bytes& file : captures()) {
    std::string want_fig;
    const auto want = whole_walk(file, &want_fig);
    ASSERT_GT(want.size(), 10u);
    // Plain, the payloads views into the bytes.
    {
      trace t;
      a::rd::stream_reader r(t);
      r.set_backing(hwpc::byte_span(file));
      for (std::size_t at = 0; at < file.size(); at += 4099) {
        ASSERT_TRUE(r.feed(
            hwpc::byte_span(file).subspan(at, std::min<std::size_t>(4099, file.size() - at))));
      }
      (void)r.finish();
      EXPECT_EQ(t.lines, want);
      EXPECT_EQ(figures(r.walk()), want_fig);
      EXPECT_LT(r.peak_held_bytes(), 4096u);  // the small sections only
    }
#ifdef HWPC_HAVE_ZLIB
    // gzip, every buffer read again.
    trace t;
    a::rd::stream_reader r(t);
    EXPECT_GT(stream_unheld(gzip_members(file, {file.size() / 3}), t, r), 0u);
    EXPECT_EQ(t.lines, want);
    EXPECT_EQ(figures(r.walk()), want_fig);
#endif
  }
}

#ifdef HWPC_HAVE_ZLIB

TEST(AdrenoFlat, RowsFromBuffersReadAgainAreTheRowsOfTheWholeCapture) {
  a::emulate_options o;
  o.rounds = 12;
  for (const bytes& file : {a::emulate_a5xx(o).file, a::emulate_a6xx_a7xx(o, false).file,
                            a::emulate_a6xx_a7xx(o, true).file}) {
    auto cols = a::sampled_counters(a::input_kind::rd, file);
    ASSERT_TRUE(cols);
    const hwpc::row_schema schema = a::schema_of(*cols);
    const auto text = [](const hwpc::row& row) {
      std::string s = std::to_string(row.report) + " @" + std::to_string(row.offset) + " " +
                      std::string(row.reason);
      for (const hwpc::cell& c : row.metrics) {
        s += c.is_u64() ? " " + std::to_string(c.bits) : " -";
      }
      return s;
    };
    std::vector<std::string> want, got;
    ASSERT_TRUE(a::for_each_row(
        a::input_kind::rd, file, schema, [&](const hwpc::row& row) { want.push_back(text(row)); },
        [](const hwpc::error&, bool) {}));
    ASSERT_FALSE(want.empty());
    auto add = [&](const hwpc::row& row) { got.push_back(text(row)); };
    a::detail::result_rows sink(&schema, add, [](const hwpc::error&, bool) {});
    a::rd::stream_reader r(sink);
    sink.attach(&r.reader().space());
    sink.keep_copies();
    EXPECT_GT(stream_unheld(gzip_members(file), sink, r, [&] { sink.finish(); }), 0u);
    EXPECT_EQ(got, want);
  }
}
#endif

// A plain file read again at the offsets wanted (detail::file_ranges), with
// nothing held: the walk of the whole capture. A source that fails ends the
// read with its error, reported as an issue, never with bytes silently
// missing.
TEST(AdrenoFlat, AFileReadAgainGivesTheWalkAndAFailedReadEndsIt) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hwpc-adreno-flat-file-" + std::to_string(::getpid()) + ".rd");
  for (const bytes& file : captures()) {
    std::string want_fig;
    const auto want = whole_walk(file, &want_fig);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()),
               static_cast<std::streamsize>(file.size()));
    a::detail::file_ranges src(path.string());
    ASSERT_TRUE(src.open());
    trace t;
    a::rd::stream_reader r(t);
    r.set_source(&src, 0, 0);
    for (std::size_t at = 0; at < file.size(); at += 65536) {
      ASSERT_TRUE(r.feed(
          hwpc::byte_span(file).subspan(at, std::min<std::size_t>(65536, file.size() - at))));
    }
    (void)r.finish();
    EXPECT_GT(r.fetches(), 0u);
    EXPECT_FALSE(r.fetch_error());
    EXPECT_EQ(t.lines, want);
    EXPECT_EQ(figures(r.walk()), want_fig);
  }
  std::filesystem::remove(path);

  struct failing final : a::rd::range_source {
    hwpc::result<void> read(std::size_t offset, std::size_t, std::byte*) override {
      return hwpc::make_error(hwpc::errc::io, offset, "cannot read it again");
    }
  } broken;
  const bytes file = captures()[0];
  trace t;
  a::rd::stream_reader r(t);
  r.set_source(&broken, 0, 0);
  bool stopped = false;
  for (std::size_t at = 0; at < file.size() && !stopped; at += 256) {
    stopped =
        !r.feed(hwpc::byte_span(file).subspan(at, std::min<std::size_t>(256, file.size() - at)));
  }
  EXPECT_TRUE(stopped);
  ASSERT_TRUE(r.fetch_error());
  EXPECT_EQ(r.fetch_error()->code, hwpc::errc::io);
  EXPECT_NE(std::find(t.lines.begin(), t.lines.end(),
                      "issue " + std::to_string(r.fetch_error()->offset) + " cannot read it again"),
            t.lines.end());
}

// libwrap rounds a section's size up to whole dwords and zero-fills
// (FACTS-live 6.1): a 10-byte buffer arrives as 12 bytes. Zero fill is the
// padding, and the buffer is the RD_GPUADDR's 10 bytes; any other byte there
// is not, and the sizes disagree: an issue at the RD_BUFFER_CONTENTS header.
// The check reads the payload's last bytes, which a reader that does not hold
// the buffer keeps aside as they stream past: the same issue at the same
// offset whether the buffer is held, viewed or read again, whatever the
// pieces the stream comes in.
TEST(AdrenoFlat, LibwrapPaddingIsCheckedOnBuffersNotHeld) {
  for (const bool dirty : {false, true}) {
    SCOPED_TRACE(dirty ? "padding not zero" : "zero padding");
    bytes file;
    const auto u32 = [&file](std::uint32_t v) {
      for (int i = 0; i < 4; ++i) file.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
    };
    const std::uint32_t marker = 0xffffffff, wfi = 0x70268000;  // CP_WAIT_FOR_IDLE, no payload
    u32(marker), u32(marker);                                   // 0
    u32(13), u32(4), u32(630);                                  // 8: RD_GPU_ID, A630
    u32(marker), u32(marker);                                   // 20
    u32(3), u32(12);                                            // 28: RD_GPUADDR {lo, size, hi}
    u32(0x10000), u32(10), u32(0);
    u32(marker), u32(marker);  // 48
    u32(12), u32(12);          // 56: RD_BUFFER_CONTENTS, 12 bytes for 10
    u32(wfi), u32(wfi);        // 64, 68
    for (const std::uint8_t b : {0x00, 0x00, 0x00, dirty ? 0x5a : 0x00}) {
      file.push_back(std::byte{b});  // 72: the buffer's last 2 bytes, then libwrap's 2
    }
    u32(marker), u32(marker);  // 76
    u32(6), u32(12);           // 84: RD_CMDSTREAM_ADDR, 2 dwords at 0x10000
    u32(0x10000), u32(2), u32(0);
    ASSERT_EQ(file.size(), 104u);

    const std::string issue =
        "issue 56 RD_BUFFER_CONTENTS has 12 bytes, its RD_GPUADDR says 10; the bytes present "
        "are used";
    const auto check = [&](const std::vector<std::string>& lines, const char* how) {
      SCOPED_TRACE(how);
      std::vector<std::string> issues, packets;
      for (const std::string& l : lines) {
        if (l.rfind("issue ", 0) == 0) issues.push_back(l);
        if (l.rfind("6", 0) == 0) packets.push_back(l.substr(0, l.find(' ')));
      }
      EXPECT_EQ(packets, (std::vector<std::string>{"64", "68"}));
      if (dirty) {
        EXPECT_EQ(issues, std::vector<std::string>{issue});
      } else {
        EXPECT_TRUE(issues.empty()) << issues.front();
      }
    };
    std::string fig;
    const auto whole = whole_walk(file, &fig);
    check(whole, "held: the whole capture");

    // Fed in pieces of every size up to the whole: held copies, and read
    // again by offset with nothing held.
    struct from_memory final : a::rd::range_source {
      explicit from_memory(const bytes& b) : all(b) {}
      hwpc::result<void> read(std::size_t offset, std::size_t n, std::byte* out) override {
        std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(offset), n, out);
        return {};
      }
      const bytes& all;
    } again(file);
    for (std::size_t piece = 1; piece <= file.size(); ++piece) {
      SCOPED_TRACE("pieces of " + std::to_string(piece));
      for (const bool held : {true, false}) {
        trace t;
        a::rd::stream_reader r(t);
        if (!held) r.set_source(&again, 0, 0);
        for (std::size_t at = 0; at < file.size(); at += piece) {
          ASSERT_TRUE(r.feed(
              hwpc::byte_span(file).subspan(at, std::min<std::size_t>(piece, file.size() - at))));
        }
        (void)r.finish();
        EXPECT_EQ(r.fetches(), held ? 0u : 1u);
        check(t.lines, held ? "held copies" : "read again");
        EXPECT_EQ(t.lines, whole);
        EXPECT_EQ(figures(r.walk()), fig);
      }
    }
#ifdef HWPC_HAVE_ZLIB
    // gzip, the buffer inflated again from the index.
    trace t;
    a::rd::stream_reader r(t);
    EXPECT_EQ(stream_unheld(gzip_members(file), t, r), 1u);
    check(t.lines, "inflated again");
    EXPECT_EQ(t.lines, whole);
#endif
  }
}

// The rows and the listing of a 64 MiB capture whose every submit holds a
// 12 MiB data buffer, plain and gzip, read from its file: the process's
// resident memory grows by far less than one such buffer (holding a
// submit's buffers, as the reader did, grew by two of them). Each read
// runs in a child whose peak is reset first (/proc/self/clear_refs 5).
TEST(AdrenoFlat, CapturesOfLargeBuffersAreReadInBoundedMemory) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("hwpc-adreno-flat-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  a::frames_options fo;
  fo.bytes = std::uint64_t{64} << 20;
  fo.texture_bytes = std::uint64_t{12} << 20;
  std::vector<std::string> paths;
  {
    const bytes file = a::emulate_frames_file(fo, nullptr);
    const auto put = [&](const std::string& name, const bytes& b) {
      const auto p = (dir / name).string();
      std::ofstream(p, std::ios::binary)
          .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
      paths.push_back(p);
    };
    put("big.rd", file);
#ifdef HWPC_HAVE_ZLIB
    put("big.rd.gz", gzip_members(file, {}, 1));
#endif
  }
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    for (const bool rows : {true, false}) {
      const hwpc::testing::read_peak r = hwpc::testing::adreno_read_peak(path, rows);
      if (!r.measured) GTEST_SKIP() << "no /proc/self/clear_refs";
      ASSERT_TRUE(r.read) << (rows ? "rows" : "listing");
#if !defined(HWPC_TEST_UNDER_ASAN)
      EXPECT_LT(r.grew_kib, 8u * 1024) << (rows ? "rows" : "listing");
#endif
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
