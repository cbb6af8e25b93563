// The Android libwrap .rd dialect (FACTS-live section 6): two 0xffffffff
// dwords before each section, sizes rounded up to 4 with zero fill, and files
// that mix it with the kernel's dialect; the section types hwpc does not
// decode are skipped with a note naming them, never walked as PM4. Offsets
// are worked out by hand from the layout written by tests/adreno_rd_writer.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "adreno_gzip_writer.hpp"
#include "adreno_rd_writer.hpp"
#include "adreno_seed.hpp"
#include "hwpc/adreno/emulate_frames.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/rd_stream.hpp"

namespace {

using namespace hwpc::adreno;
using adreno_rd::cat;
using adreno_rd::ib;
using adreno_rd::pkt7;

struct seen {
  std::uint32_t id;
  std::size_t offset;
  unsigned depth;
  bool operator==(const seen&) const = default;
};

struct recorder : rd::capture_sink {
  std::vector<seen> packets;
  std::uint64_t payload_sum = 0;  // every payload dword read back: spans must be valid
  std::vector<hwpc::error> issues, notes;
  void on_packet(const walked_packet& p) override {
    packets.push_back({p.pkt.hdr.id, p.pkt.offset, p.depth});
    for (std::uint32_t i = 0; i < p.pkt.hdr.count; ++i) payload_sum += p.pkt.dword(i);
  }
  void on_issue(const hwpc::error& e) override { issues.push_back(e); }
  void on_note(const hwpc::error& e) override { notes.push_back(e); }
};

const std::uint32_t wfi = pkt7(0x26, 0);

// RD_TEST, RD_GPU_ID 530, a top buffer calling the seed's occlusion begin, and
// its command stream: the same capture in either dialect.
std::vector<std::byte> capture(bool libwrap) {
  adreno_rd::writer w;
  w.libwrap = libwrap;
  w.text(1, "trace");
  w.gpu_id(530);
  w.buffer(0x10000, cat({ib(0x20000, 7), {wfi}}));
  w.buffer(0x20000, adreno_seed::occlusion_begin);
  w.cmdstream(0x10000, 5);
  return w.bytes;
}

bool mentions(const std::vector<hwpc::error>& v, const std::string& what, std::size_t at) {
  for (const auto& e : v) {
    if (e.offset == at && e.message.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(AdrenoLibwrap, BothDialectsGiveTheSamePacketsAtTheirOwnOffsets) {
  // libwrap layout: markers 0, RD_TEST 8 ("trace" padded to 8), markers 24, GPU_ID 32,
  // markers 44, GPUADDR 52, markers 72, CONTENTS 80 (payload 88..107), markers 108,
  // GPUADDR 116, markers 136, CONTENTS 144 (payload 152..179), markers 180, CMDSTREAM 188.
  const auto bytes = capture(true);
  ASSERT_EQ(bytes.size(), 208u);
  ASSERT_TRUE(rd::looks_like_rd(bytes));
  recorder r;
  rd::capture_reader reader(r);
  ASSERT_TRUE(reader.read(bytes));
  EXPECT_TRUE(r.issues.empty());
  const std::vector<seen> want = {
      {0x3f, 88, 0}, {0xe1d1, 152, 1}, {0xe267, 160, 1}, {0x46, 172, 1}, {0x26, 104, 0}};
  EXPECT_EQ(r.packets, want);
  EXPECT_EQ(reader.stats().marked_sections, 7u);
  EXPECT_EQ(reader.stats().marker_pairs, 7u);
  EXPECT_EQ(reader.stats().skipped_sections, 1u);
  ASSERT_NE(reader.gpu(), nullptr);
  EXPECT_EQ(reader.gpu()->name, "A530");
  EXPECT_TRUE(mentions(r.notes, "libwrap", 0));
  EXPECT_TRUE(mentions(r.notes, "RD_TEST", 8));

  // The kernel's dialect: RD_TEST 0 ("trace", 5 bytes), GPU_ID 13, GPUADDR 25,
  // CONTENTS 45 (payload 53), GPUADDR 73, CONTENTS 93 (payload 101), CMDSTREAM 129.
  const auto plain = capture(false);
  recorder p;
  rd::capture_reader pr(p);
  ASSERT_TRUE(pr.read(plain));
  EXPECT_TRUE(p.issues.empty());
  const std::vector<seen> want_plain = {
      {0x3f, 53, 0}, {0xe1d1, 101, 1}, {0xe267, 109, 1}, {0x46, 121, 1}, {0x26, 69, 0}};
  EXPECT_EQ(p.packets, want_plain);
  EXPECT_EQ(pr.stats().marked_sections, 0u);
  EXPECT_FALSE(mentions(p.notes, "libwrap", 0));
}

TEST(AdrenoLibwrap, AFileMixingTheDialectsAndRepeatedMarkers) {
  adreno_rd::writer w;
  w.gpu_id(630);  // plain, 0..11
  w.libwrap = true;
  w.buffer(0x10000, {wfi, wfi});  // markers 12, GPUADDR 20, markers 40, CONTENTS 48 (56..63)
  w.libwrap = false;
  // Three marker pairs before the command stream (Mesa skips any number).
  for (int i = 0; i < 6; ++i) adreno_rd::put32(w.bytes, 0xffffffffu);  // 64..87
  w.cmdstream(0x10000, 2);                                             // 88..107
  for (int i = 0; i < 2; ++i) adreno_rd::put32(w.bytes, 0xffffffffu);  // trailing pair: end
  recorder r;
  rd::capture_reader reader(r);
  ASSERT_TRUE(reader.read(w.bytes));
  EXPECT_TRUE(r.issues.empty());
  const std::vector<seen> want = {{0x26, 56, 0}, {0x26, 60, 0}};
  EXPECT_EQ(r.packets, want);
  EXPECT_EQ(reader.stats().sections, 4u);
  EXPECT_EQ(reader.stats().marked_sections, 3u);
  EXPECT_EQ(reader.stats().marker_pairs, 6u);
  EXPECT_TRUE(mentions(r.notes, "libwrap", 12));
  EXPECT_EQ(rd::capture_device(w.bytes)->name, "A630");
}

TEST(AdrenoLibwrap, PaddedBufferContentsAreTheGpuaddrLength) {
  // A 10-byte buffer: libwrap writes 12 bytes, the last two zero (FACTS-live
  // 6.1). Zero fill is padding; anything else is not, and the GPUADDR disagrees.
  for (const bool dirty : {false, true}) {
    adreno_rd::writer w;
    w.libwrap = true;
    w.gpuaddr(0x10000, 10);  // markers 0, header 8, payload 16..27
    std::vector<std::byte> p;
    adreno_rd::put32(p, wfi);
    adreno_rd::put32(p, wfi);
    p.push_back(std::byte{0});
    p.push_back(std::byte{0});
    if (dirty) {
      p.push_back(std::byte{0});
      p.push_back(std::byte{0x5a});
    }
    w.section(12, p);  // markers 28, header 36, payload 44..55
    w.cmdstream(0x10000, 2);
    recorder r;
    rd::capture_reader reader(r);
    ASSERT_TRUE(reader.read(w.bytes));
    const std::vector<seen> want = {{0x26, 44, 0}, {0x26, 48, 0}};
    EXPECT_EQ(r.packets, want);
    if (dirty) {
      ASSERT_EQ(r.issues.size(), 1u);
      EXPECT_EQ(r.issues[0].code, hwpc::errc::inconsistent);
      EXPECT_EQ(r.issues[0].offset, 36u);
    } else {
      EXPECT_TRUE(r.issues.empty());
    }
  }
}

TEST(AdrenoLibwrap, SectionsNotDecodedAreNotedOnceAndNeverWalkedAsPm4) {
  adreno_rd::writer w;
  w.libwrap = true;
  const std::vector<std::uint32_t> pm4 = {pkt7(0x26, 0), pkt7(0x26, 0)};
  std::size_t first_at[18] = {};
  for (std::uint32_t t : {0u, 1u, 2u, 4u, 5u, 7u, 8u, 9u, 10u, 11u, 15u, 16u, 17u}) {
    first_at[t] = w.words(t, pm4);  // PM4 inside: must not be walked
    w.words(t, pm4);                // a second of each type: no second note
  }
  w.text(2, "perfcounter_get: groupid=0, countable=1, off_lo=2, off_hi=3");
  recorder r;
  rd::capture_reader reader(r);
  ASSERT_TRUE(reader.read(w.bytes));
  EXPECT_TRUE(r.packets.empty());
  EXPECT_TRUE(r.issues.empty());
  EXPECT_EQ(reader.stats().skipped_sections, 27u);
  const char* names[18] = {"RD_NONE",
                           "RD_TEST",
                           "RD_CMD",
                           "",
                           "RD_CONTEXT",
                           "RD_CMDSTREAM",
                           "",
                           "RD_PARAM",
                           "RD_FLUSH",
                           "RD_PROGRAM",
                           "RD_VERT_SHADER",
                           "RD_FRAG_SHADER",
                           "",
                           "",
                           "",
                           "RD_SHADER_LOG_BUFFER",
                           "RD_CP_LOG_BUFFER",
                           "RD_WRBUFFER"};
  for (std::uint32_t t : {0u, 1u, 2u, 4u, 5u, 7u, 8u, 9u, 10u, 11u, 15u, 16u, 17u}) {
    EXPECT_TRUE(mentions(r.notes, std::string(names[t]) + " sections skipped", first_at[t]))
        << names[t];
  }
  EXPECT_EQ(r.notes.size(), 14u);  // the dialect, and one per type
}

TEST(AdrenoLibwrap, FramingErrorsNameTheOffsetInTheFile) {
  adreno_rd::writer w;
  w.libwrap = true;
  w.gpu_id(530);                                                       // markers 0, header 8..19
  for (int i = 0; i < 2; ++i) adreno_rd::put32(w.bytes, 0xffffffffu);  // 20
  adreno_rd::put32(w.bytes, 12);                                       // RD_BUFFER_CONTENTS at 28
  adreno_rd::put32(w.bytes, 4096);                                     // more than the file holds
  adreno_rd::put32(w.bytes, wfi);
  recorder r;
  rd::capture_reader reader(r);
  auto res = reader.read(w.bytes);
  ASSERT_FALSE(res);
  EXPECT_EQ(res.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(res.error_value().offset, 28u);

  // One marker dword and three bytes: no marker pair, a header cut short.
  adreno_rd::writer v;
  v.libwrap = true;
  v.gpu_id(530);
  adreno_rd::put32(v.bytes, 0xffffffffu);  // 20
  v.bytes.resize(v.bytes.size() + 3);
  recorder q;
  rd::capture_reader qr(q);
  auto res2 = qr.read(v.bytes);
  ASSERT_FALSE(res2);
  EXPECT_EQ(res2.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(res2.error_value().offset, 20u);
}

TEST(AdrenoLibwrap, DetectionByContent) {
  EXPECT_TRUE(rd::looks_like_rd(capture(true)));
  EXPECT_TRUE(rd::looks_like_rd(capture(false)));
  // Markers and nothing else, or markers before a PM4 header, are not .rd.
  std::vector<std::byte> only;
  for (int i = 0; i < 4; ++i) adreno_rd::put32(only, 0xffffffffu);
  EXPECT_FALSE(rd::looks_like_rd(only));
  adreno_rd::put32(only, pkt7(0x26, 0));
  adreno_rd::put32(only, 0);
  EXPECT_FALSE(rd::looks_like_rd(only));
}

#ifdef HWPC_HAVE_ZLIB
// Dive concatenates its per-fd libwrap files, each a gzip stream of its own
// that begins with RD_TEST and the ids again: one capture after gunzip.
TEST(AdrenoLibwrap, ConcatenatedGzipFilesReadAsOneCapture) {
  auto gz = adreno_gz::gzip_stored(capture(true));
  const auto second = adreno_gz::gzip_stored(capture(true));
  gz.insert(gz.end(), second.begin(), second.end());
  auto raw = gunzip(gz);
  ASSERT_TRUE(raw);
  ASSERT_EQ(raw->size(), 416u);
  recorder r;
  rd::capture_reader reader(r);
  ASSERT_TRUE(reader.read(*raw));
  EXPECT_TRUE(r.issues.empty());
  ASSERT_EQ(r.packets.size(), 10u);
  EXPECT_EQ(r.packets[5], (seen{0x3f, 208 + 88, 0}));  // offsets after gunzip
  EXPECT_EQ(reader.stats().skipped_sections, 2u);
}
#endif

TEST(AdrenoLibwrap, EveryMesaA5xxPartIsAnA5xxAndUnknownIdsAreNoGpu) {
  for (const std::uint32_t id : {505u, 506u, 508u, 509u, 510u, 512u, 530u, 540u}) {
    const device* d = find_device_by_gpu_id(id);
    ASSERT_NE(d, nullptr) << id;
    EXPECT_EQ(d->gen, generation::a5xx) << id;
    EXPECT_EQ(d->name, "A" + std::to_string(id));
  }
  // An A8XX part (chip id core 0x44) and an id in no table: unknown, never another GPU.
  EXPECT_EQ(resolve_device(0u, 0xffff44010000ull), nullptr);
  EXPECT_EQ(resolve_device(std::nullopt, 0x44010000ull), nullptr);
  EXPECT_EQ(find_device_by_gpu_id(507), nullptr);
  EXPECT_EQ(find_device_by_gpu_id(810), nullptr);
}

// The stream reader, fed `piece` bytes at a time, finds what the whole-file
// reader finds: packets, offsets, payloads, issues, notes and stats.
void same_as_whole(const std::vector<std::byte>& file, std::size_t piece) {
  recorder whole;
  rd::capture_reader w(whole);
  const bool whole_ok = static_cast<bool>(w.read(file));
  recorder r;
  rd::stream_reader s(r);
  bool ok = true;
  for (std::size_t at = 0; at < file.size() && ok; at += piece) {
    ok = static_cast<bool>(
        s.feed(hwpc::byte_span(file).subspan(at, std::min(piece, file.size() - at))));
  }
  ok = ok && static_cast<bool>(s.finish());
  EXPECT_EQ(ok, whole_ok) << piece;
  EXPECT_EQ(r.packets, whole.packets) << piece;
  EXPECT_EQ(r.payload_sum, whole.payload_sum) << piece;
  ASSERT_EQ(r.issues.size(), whole.issues.size()) << piece;
  for (std::size_t i = 0; i < r.issues.size(); ++i) {
    EXPECT_EQ(r.issues[i].offset, whole.issues[i].offset) << piece;
    EXPECT_EQ(r.issues[i].message, whole.issues[i].message) << piece;
  }
  ASSERT_EQ(r.notes.size(), whole.notes.size()) << piece;
  EXPECT_EQ(s.stats().sections, w.stats().sections);
  EXPECT_EQ(s.stats().marked_sections, w.stats().marked_sections);
  EXPECT_EQ(s.stats().marker_pairs, w.stats().marker_pairs);
  EXPECT_EQ(s.stats().skipped_sections, w.stats().skipped_sections);
  EXPECT_EQ(s.walk().packets, w.walk().packets);
}

TEST(AdrenoRdStream, PiecesOfAnySizeGiveWhatTheWholeFileGives) {
  for (const bool libwrap : {false, true}) {
    for (const std::size_t piece : {1u, 3u, 7u, 8u, 13u, 4096u, 1u << 20}) {
      same_as_whole(capture(libwrap), piece);
    }
  }
  frames_options o;
  o.bytes = 300'000;
  o.libwrap = true;
  for (const std::size_t piece : {5u, 4093u, 65536u}) {
    same_as_whole(emulate_frames_file(o, nullptr), piece);
  }
  // Cut short: in a header, in a payload, in a marker pair.
  auto cut = capture(true);
  for (const std::size_t n : {3u, 30u, 95u, 110u, 200u}) {
    same_as_whole(std::vector<std::byte>(cut.begin(), cut.begin() + n), 16);
  }
}

// Bounded memory without timing anything: the reader never holds more than
// the two submits it may still be walking (the one before stays for sinks
// that keep packets a little while) plus the section being assembled, however
// long the capture.
TEST(AdrenoRdStream, HoldsAtMostTwoSubmitsWhateverTheSize) {
  frames_options o;
  o.gen = generation::a7xx;
  o.libwrap = true;
  std::size_t submit = 0;  // the largest submit's size in the file
  std::vector<std::byte> piece_buf;
  recorder r;
  rd::stream_reader s(r);
  o.bytes = std::uint64_t{24} << 20;
  const frames_counts c = emulate_frames(o, [&](const std::byte* p, std::size_t n) {
    submit = std::max(submit, n);
    // Fed in 64 KiB pieces, as a file or gzip stream would come.
    for (std::size_t at = 0; at < n; at += 65536) {
      if (!s.feed(hwpc::byte_span(p + at, std::min<std::size_t>(65536, n - at)))) return false;
    }
    return true;
  });
  ASSERT_TRUE(s.finish());
  ASSERT_GT(c.submits, 100u);
  EXPECT_TRUE(r.issues.empty());
  EXPECT_EQ(s.walk().packets, c.packets);
  EXPECT_EQ(s.stats().cmdstreams, c.submits);
  EXPECT_LE(s.peak_held_bytes(), 2 * submit);
  EXPECT_GT(s.peak_held_bytes(), submit / 2);  // it does hold a submit
  EXPECT_LT(s.peak_held_bytes(), c.bytes / 50);
}

// The frames emulator's counts, from its own packing, against the walk; in
// both dialects and every generation.
TEST(AdrenoFrames, TheWalkFindsWhatTheEmulatorPacked) {
  for (const generation g : {generation::a5xx, generation::a6xx, generation::a7xx}) {
    for (const bool libwrap : {false, true}) {
      frames_options o;
      o.gen = g;
      o.libwrap = libwrap;
      o.bytes = 1 << 20;
      frames_counts c;
      const auto file = emulate_frames_file(o, &c);
      ASSERT_EQ(file.size(), c.bytes);
      ASSERT_GE(c.bytes, o.bytes);
      recorder r;
      rd::capture_reader reader(r);
      ASSERT_TRUE(reader.read(file));
      EXPECT_TRUE(r.issues.empty()) << r.issues.front().describe();
      EXPECT_EQ(reader.walk().packets, c.packets);
      EXPECT_EQ(reader.walk().ibs_followed, c.ibs + c.group_records + c.submits);
      EXPECT_EQ(reader.stats().sections, c.sections);
      EXPECT_EQ(reader.stats().cmdstreams, c.submits);
      EXPECT_EQ(reader.stats().marked_sections, libwrap ? c.sections : 0u);
      ASSERT_NE(reader.gpu(), nullptr);
      EXPECT_EQ(reader.gpu()->gen, g);
      EXPECT_EQ(c.group_records == 0, g == generation::a5xx);
    }
  }
}

}  // namespace
