// freedreno .rd captures: sections, the submit's address space, indirect
// buffers followed to any depth with their guards, recovery from bad data.
// Captures are packed by tests/adreno_rd_writer.hpp; expected offsets are
// worked out by hand from the section layout.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "adreno_seed.hpp"
#include "hwpc/adreno/rd_capture.hpp"

namespace {

using namespace hwpc::adreno;
using adreno_rd::cat;
using adreno_rd::ib;
using adreno_rd::pkt4;
using adreno_rd::pkt7;

struct seen {
  std::uint32_t id;
  std::size_t offset;
  unsigned depth;
  std::uint64_t gpu;
};

struct recorder : rd::capture_sink {
  std::vector<seen> packets;
  std::vector<hwpc::error> issues, notes;
  std::vector<std::size_t> cmdstreams;
  void on_packet(const walked_packet& p) override {
    packets.push_back({p.pkt.hdr.id, p.pkt.offset, p.depth, p.gpu_addr});
  }
  void on_issue(const hwpc::error& e) override { issues.push_back(e); }
  void on_note(const hwpc::error& e) override { notes.push_back(e); }
  void on_cmdstream(const rd::address_range&, std::size_t at) override { cmdstreams.push_back(at); }
};

const std::uint32_t wfi = pkt7(0x26, 0);

TEST(AdrenoRd, SectionsAndOneIndirectBuffer) {
  adreno_rd::writer w;
  EXPECT_EQ(w.gpu_id(530), 0u);                                     // 0..11
  EXPECT_EQ(w.buffer(0x10000, cat({ib(0x20000, 7), {wfi}})), 40u);  // GPUADDR 12, contents 32
  EXPECT_EQ(w.buffer(0x20000, adreno_seed::occlusion_begin), 88u);  // GPUADDR 60, contents 80
  EXPECT_EQ(w.cmdstream(0x10000, 5), 116u);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  EXPECT_TRUE(r.issues.empty());
  ASSERT_EQ(r.packets.size(), 5u);
  const seen want[] = {{0x3f, 40, 0, 0x10000},
                       {0xe1d1, 88, 1, 0x20000},
                       {0xe267, 96, 1, 0x20008},
                       {0x46, 108, 1, 0x20014},
                       {0x26, 56, 0, 0x10010}};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.packets[i].id, want[i].id) << i;
    EXPECT_EQ(r.packets[i].offset, want[i].offset) << i;
    EXPECT_EQ(r.packets[i].depth, want[i].depth) << i;
    EXPECT_EQ(r.packets[i].gpu, want[i].gpu) << i;
  }
  EXPECT_EQ(rd.stats().gpu_id, 530u);
  EXPECT_EQ(rd.stats().buffers, 2u);
  EXPECT_EQ(rd.stats().sections, 6u);
  EXPECT_EQ(rd.walk().ibs_followed, 2u);  // the cmdstream itself and its IB
  EXPECT_EQ(r.cmdstreams, std::vector<std::size_t>{116});
}

TEST(AdrenoRd, OldEightByteGpuaddrAndHighAddressBits) {
  adreno_rd::writer w;
  w.gpuaddr(0x1000, 4, true);
  w.contents({wfi});
  w.buffer(0x1'0000'2000ull, {wfi, wfi});
  w.cmdstream(0x1000, 1);
  w.cmdstream(0x1'0000'2000ull, 2);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  EXPECT_TRUE(r.issues.empty());
  ASSERT_EQ(r.packets.size(), 3u);
  EXPECT_EQ(r.packets[2].gpu, 0x1'0000'2004ull);
}

TEST(AdrenoRd, NestedIbsAndAMissingBuffer) {
  adreno_rd::writer w;
  // main -> a -> b -> c; a also calls 0x90000, which no buffer holds.
  w.buffer(0x1000, cat({ib(0x2000, 9), {wfi}}));
  const std::size_t a = w.buffer(0x2000, cat({ib(0x90000, 4), ib(0x3000, 5), {wfi}}));
  w.buffer(0x3000, cat({ib(0x4000, 1), {wfi}}));
  w.buffer(0x4000, {wfi});
  w.cmdstream(0x1000, 5);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].code, hwpc::errc::out_of_range);
  EXPECT_EQ(r.issues[0].offset, a);  // the CP_INDIRECT_BUFFER that names it
  EXPECT_NE(r.issues[0].message.find("0x90000"), std::string::npos);
  std::vector<unsigned> depths;
  for (const auto& p : r.packets) depths.push_back(p.depth);
  // main IB, a: IB(missing) IB, b: IB, c: wfi, b: wfi, a: wfi, main: wfi
  EXPECT_EQ(depths, (std::vector<unsigned>{0, 1, 1, 2, 3, 2, 1, 0}));
}

TEST(AdrenoRd, CycleIsReportedAndNotFollowed) {
  adreno_rd::writer w;
  const std::size_t a = w.buffer(0x2000, cat({{wfi}, ib(0x2000, 5)}));
  w.cmdstream(0x2000, 5);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].code, hwpc::errc::inconsistent);
  EXPECT_EQ(r.issues[0].offset, a + 4);
  EXPECT_NE(r.issues[0].message.find("cycle"), std::string::npos);
  EXPECT_EQ(r.packets.size(), 2u);
}

TEST(AdrenoRd, DepthGuard) {
  adreno_rd::writer w;
  // 100 buffers, each calling the next.
  std::vector<std::size_t> at;
  for (std::uint64_t i = 0; i < 100; ++i)
    at.push_back(w.buffer(0x10000 * (i + 1), ib(0x10000 * (i + 2), 4)));
  w.cmdstream(0x10000, 4);
  recorder r;
  walk_options opt;
  opt.max_depth = 10;
  rd::capture_reader rd(r, opt);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].code, hwpc::errc::oversized);
  EXPECT_EQ(r.issues[0].offset, at[9]);  // the 10th frame's call would make an 11th
  EXPECT_EQ(r.packets.size(), 10u);
  EXPECT_EQ(r.packets.back().depth, 9u);
}

TEST(AdrenoRd, RepeatedCallsStopAtTheBudget) {
  adreno_rd::writer w;
  // Buffer k calls buffer k+1 twice: 2^40 calls without a budget.
  for (std::uint64_t k = 0; k < 40; ++k) {
    w.buffer(0x1000 * (k + 1), cat({ib(0x1000 * (k + 2), 8), ib(0x1000 * (k + 2), 8)}));
  }
  w.buffer(0x1000 * 41, adreno_rd::dwords(8, wfi));
  w.cmdstream(0x1000, 8);
  recorder r;
  walk_options opt;
  opt.max_dwords = 100000;
  rd::capture_reader rd(r, opt);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].code, hwpc::errc::oversized);
  EXPECT_TRUE(rd.walk().budget_exhausted);
  EXPECT_LE(rd.walk().dwords, 100001u + 8u);
}

TEST(AdrenoRd, ChainContinuesInTheTargetAtTheSameLevel) {
  adreno_rd::writer w;
  w.buffer(0x1000, cat({ib(0x2000, 5), {wfi}}));
  // 0x2000 chains to 0x3000; the dword after the chain is never executed.
  w.buffer(0x2000, cat({ib(0x3000, 1, 0x57), {pkt7(0x12, 0)}}));
  w.buffer(0x3000, {pkt7(0x10, 0)});
  w.cmdstream(0x1000, 5);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  EXPECT_TRUE(r.issues.empty());
  std::vector<std::uint32_t> ids;
  for (const auto& p : r.packets) ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::uint32_t>{0x3f, 0x57, 0x10, 0x26}));
  EXPECT_EQ(r.packets[2].depth, 1u);
}

TEST(AdrenoRd, PaddingGarbageAndTruncatedPacketsAreRecovered) {
  adreno_rd::writer w;
  const std::size_t c = w.buffer(0x1000, cat({adreno_seed::occlusion_begin,
                                              {0x12345678, 0x9abcdef0},
                                              {wfi, 0, 0, 0},
                                              {pkt7(0x3d, 9), 0xc0456000}}));
  w.cmdstream(0x1000, 15);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 2u);
  // Two garbage dwords after the 7 of the occlusion begin: one run, reported once.
  EXPECT_EQ(r.issues[0].code, hwpc::errc::unknown_format);
  EXPECT_EQ(r.issues[0].offset, c + 28);
  EXPECT_NE(r.issues[0].message.find("skipped 8 bytes"), std::string::npos) << r.issues[0].message;
  // CP_MEM_WRITE claims 9 payload dwords, 1 remains: truncated at its header.
  EXPECT_EQ(r.issues[1].code, hwpc::errc::truncated);
  EXPECT_EQ(r.issues[1].offset, c + 52);
  EXPECT_EQ(r.packets.size(), 4u);  // 3 + the wfi
  EXPECT_EQ(rd.walk().padding_dwords, 3u);
}

TEST(AdrenoRd, FramingErrorsAndStraySections) {
  adreno_rd::writer w;
  w.gpu_id(540);
  const std::size_t stray = w.contents({wfi});  // no GPUADDR before it
  const std::size_t unknown = w.words(99, {1, 2});
  const std::size_t bad = w.words(3, {1, 2, 3, 4});  // GPUADDR of 16 bytes
  w.buffer(0x1000, {wfi});
  w.cmdstream(0x1000, 1);
  const std::size_t cut = w.bytes.size();
  adreno_rd::put32(w.bytes, 12);
  adreno_rd::put32(w.bytes, 100);  // says 100 bytes, 4 follow
  adreno_rd::put32(w.bytes, 0);
  recorder r;
  rd::capture_reader rd(r);
  auto res = rd.read(w.bytes);
  ASSERT_FALSE(res);
  EXPECT_EQ(res.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(res.error_value().offset, cut);
  ASSERT_EQ(r.issues.size(), 4u);
  EXPECT_EQ(r.issues[0].offset, stray);
  EXPECT_EQ(r.issues[1].offset, unknown);
  EXPECT_EQ(r.issues[1].code, hwpc::errc::unknown_format);
  EXPECT_EQ(r.issues[2].offset, bad);
  EXPECT_EQ(r.issues[3].offset, cut);
  EXPECT_EQ(r.packets.size(), 1u);  // the cmdstream before the bad section decoded

  recorder e;
  rd::capture_reader empty(e);
  auto er = empty.read(hwpc::byte_span{});
  ASSERT_FALSE(er);
  EXPECT_EQ(er.error_value().code, hwpc::errc::empty_input);
}

TEST(AdrenoRd, ANewSubmitForgetsThePreviousBuffers) {
  adreno_rd::writer w;
  w.buffer(0x1000, {wfi});
  w.cmdstream(0x1000, 1);
  w.buffer(0x2000, {wfi});  // second submit: 0x1000 is gone
  const std::size_t second = w.cmdstream(0x1000, 1);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].offset, second);
  EXPECT_EQ(r.issues[0].code, hwpc::errc::out_of_range);
  EXPECT_EQ(r.packets.size(), 1u);
}

TEST(AdrenoRd, ShortDumpIsWalkedAsFarAsItGoes) {
  adreno_rd::writer w;
  w.gpuaddr(0x1000, 64);
  w.contents({wfi, wfi});  // 8 of the 64 bytes
  w.cmdstream(0x1000, 16);
  recorder r;
  rd::capture_reader rd(r);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 2u);
  EXPECT_EQ(r.issues[0].code, hwpc::errc::inconsistent);  // contents vs GPUADDR size
  EXPECT_EQ(r.issues[1].code, hwpc::errc::truncated);     // the cmdstream wants 64
  EXPECT_EQ(r.packets.size(), 2u);
}

TEST(AdrenoRd, LooksLikeRd) {
  adreno_rd::writer w;
  w.gpu_id(530);
  EXPECT_TRUE(rd::looks_like_rd(w.bytes));
  EXPECT_FALSE(rd::looks_like_rd(adreno_seed::bytes_of(adreno_seed::occlusion_begin)));
  EXPECT_FALSE(rd::looks_like_rd({}));
}

TEST(AdrenoRd, FlatInputReportsIbsAndWalksOn) {
  // Without an address space IBs (chains too) are notes and the stream goes on.
  const auto d = adreno_rd::cat({ib(0x2000, 4), ib(0x3000, 1, 0x57), ib(0x4000, 1, 0x3a), {wfi}});
  const auto bytes = adreno_seed::bytes_of(d);
  recorder r;
  walker w(r, nullptr);
  w.walk(bytes, 0, 0);
  EXPECT_TRUE(r.issues.empty());
  ASSERT_EQ(r.notes.size(), 3u);
  EXPECT_EQ(r.notes[0].offset, 0u);
  EXPECT_EQ(r.notes[1].offset, 16u);
  EXPECT_EQ(r.notes[2].offset, 32u);
  EXPECT_NE(r.notes[2].message.find("CP_COND_INDIRECT_BUFFER_PFE not followed"), std::string::npos);
  ASSERT_EQ(r.packets.size(), 4u);
  EXPECT_EQ(r.packets[3].id, 0x26u);
}

TEST(AdrenoRd, DefaultBudgetGrowsWithTheInput) {
  recorder r;
  walker w(r, nullptr);
  w.set_input_bytes(std::size_t{1} << 30);  // a 1 GiB stream: 2^28 dwords
  EXPECT_EQ(w.budget(), (1ull << 26) + 16 * (1ull << 28));
  walk_options opt;
  opt.max_dwords = 1000;
  EXPECT_EQ(walker(r, nullptr, opt).budget(), 1000u);
}

TEST(AdrenoRd, ChainLoopStopsAtTheHopGuard) {
  adreno_rd::writer w;
  // 0x1000 chains to 0x2000, which chains back: no frame ever stays on the stack.
  const std::size_t a = w.buffer(0x1000, cat({{wfi}, ib(0x2000, 5, 0x57)}));
  w.buffer(0x2000, cat({{wfi}, ib(0x1000, 5, 0x57)}));
  w.cmdstream(0x1000, 5);
  recorder r;
  walk_options opt;
  opt.max_chain = 10;
  rd::capture_reader rd(r, opt);
  ASSERT_TRUE(rd.read(w.bytes));
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].code, hwpc::errc::oversized);
  // Hop n lands in 0x1000 when n is even; from hop 10 the 11th is refused.
  EXPECT_EQ(r.issues[0].offset, a + 4);
  EXPECT_EQ(r.packets.size(), 2u * 11);  // 11 buffers walked, 2 packets each
}

}  // namespace

namespace {

// address_space::find tests the buffer it found last before searching: every
// answer must be the one a fresh space (nothing found before) gives, for
// reads in runs, jumps, gaps, overlapping buffers and buffers added out of order.
TEST(AdrenoAddressSpace, FindAfterFindsIsAFreshSearch) {
  static std::vector<std::byte> bytes(4096);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 7);
  const hwpc::byte_span all(bytes);
  const std::vector<rd::gpu_buffer> buffers = {
      {0x1000, all.subspan(0, 256), 100},
      {0x2000, all.subspan(256, 512), 400},
      {0x2100, all.subspan(1024, 64), 900},  // overlaps the one before: the higher base wins
      {0x0800, all.subspan(2048, 128), 50},  // added out of order
      {0x8000, all.subspan(3000, 32), 2000}};
  rd::address_space kept;
  for (const rd::gpu_buffer& b : buffers) kept.add(b);
  std::uint64_t state = 12345;
  const std::vector<std::uint64_t> bases = {0x0800, 0x1000, 0x2000, 0x2100, 0x8000, 0};
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t base = bases[(state >> 33) % bases.size()];
    const std::uint64_t addr = base + ((state >> 13) % 0x300) - 0x10;
    const std::uint64_t n = (state >> 50) % 2 != 0 ? 8 : 4;
    rd::address_space fresh;
    for (const rd::gpu_buffer& b : buffers) fresh.add(b);
    const auto got = kept.find(addr, n);
    const auto want = fresh.find(addr, n);
    ASSERT_EQ(got.has_value(), want.has_value()) << std::hex << addr;
    if (!want) continue;
    EXPECT_EQ(got->bytes.data(), want->bytes.data()) << std::hex << addr;
    EXPECT_EQ(got->bytes.size(), want->bytes.size()) << std::hex << addr;
    EXPECT_EQ(got->file_offset, want->file_offset) << std::hex << addr;
    EXPECT_EQ(got->buffer_offset, want->buffer_offset) << std::hex << addr;
  }
  // A buffer added after lookups (a later one, then an earlier one) is found.
  kept.add({0x9000, all.subspan(3500, 16), 3000});
  ASSERT_TRUE(kept.find(0x9004, 4));
  EXPECT_EQ(kept.find(0x9004, 4)->file_offset, 3004u);
  kept.add({0x0100, all.subspan(3600, 16), 3100});
  ASSERT_TRUE(kept.find(0x0104, 4));
  EXPECT_EQ(kept.find(0x0104, 4)->file_offset, 3104u);
  EXPECT_EQ(kept.find(0x9004, 4)->file_offset, 3004u);
  kept.clear();
  EXPECT_FALSE(kept.find(0x9004, 4));
}

}  // namespace
