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
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/rd_capture.hpp"

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
  std::vector<hwpc::error> issues, notes;
  void on_packet(const walked_packet& p) override {
    packets.push_back({p.pkt.hdr.id, p.pkt.offset, p.depth});
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

}  // namespace
