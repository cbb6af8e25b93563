// A6XX/A7XX query and counter events (recognise6.hpp) from packets built by
// hand after FACTS-adreno6 sections 4 and 5: the header words and dword-0
// values the sheet gives (0x40000016, 0x08300016, 0x00001015, 0x00007015,
// 0x40080980, 0x40580540), the same stream read as A6XX and as A7XX, and
// nothing on A5XX or without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "hwpc/adreno/recognise6.hpp"

namespace {

using namespace hwpc::adreno;
using adreno_rd::pkt4;
using adreno_rd::pkt7;

// Walks `dws` flat as generation `g` and describes every event.
std::vector<std::string> events(generation g, const std::vector<std::uint32_t>& dws) {
  std::vector<std::byte> bytes;
  for (auto v : dws) adreno_rd::put32(bytes, v);
  struct sink : walk_sink {
    recogniser6 rec;
    generation gen;
    std::vector<std::string> out;
    explicit sink(generation x) : rec(x), gen(x) {}
    void on_packet(const walked_packet& w) override {
      rec.push(w.pkt, [&](const query6_event& e) {
        out.push_back(std::to_string(e.offset) + " " + describe(gen, e));
      });
    }
    void on_issue(const hwpc::error& e) override { ADD_FAILURE() << e.describe(); }
  } s(g);
  walker w(s, nullptr);
  w.set_generation(g);
  w.walk(bytes, 0, 0);
  return s.out;
}

TEST(AdrenoRecognise6, GalliumOcclusionAndTimestamps) {
  // A6XX occlusion begin (F6 4.2): RB_SAMPLE_COUNTER_CNTL = COPY, RB_SAMPLE_COUNTER_BASE,
  // ZPASS_DONE; then a timestamp CP_EVENT_WRITE RB_DONE_TS | TIMESTAMP (4 dwords).
  const std::vector<std::uint32_t> s = {
      pkt4(0x8891, 1), 2,          pkt4(0x8927, 2), 0xc0000010, 0x1, pkt7(0x46, 1), 0x15,
      pkt7(0x46, 4),   0x40000016, 0xc0000100,      0,          7};
  EXPECT_EQ(events(generation::a6xx, s),
            (std::vector<std::string>{"20 sample count (occlusion) -> 0x1c0000010",
                                      "28 timestamp (always-on counter, 19.2 MHz) -> 0xc0000100"}));
  // A7XX: the same ZPASS_DONE through the base register (A725/A730 path), but 0x40000016 is
  // CP_EVENT_WRITE7 with WRITE_SRC 0 (a payload), not a timestamp.
  EXPECT_EQ(events(generation::a7xx, s),
            (std::vector<std::string>{"20 sample count (occlusion) -> 0x1c0000010"}));
  EXPECT_TRUE(events(generation::a5xx, s).empty());
  EXPECT_TRUE(events(generation::unknown, s).empty());
}

TEST(AdrenoRecognise6, A7xxEventWrite7) {
  // Opening and closing WRITE_SAMPLE_COUNT events on one address A (F6 4.2), and the gallium
  // A7XX timestamp 0x08300016 (RB_DONE_TS, WRITE_SRC always-on, memory, WRITE_ENABLED).
  const std::vector<std::uint32_t> s = {pkt7(0x46, 3), 0x00001015, 0x2000, 0,
                                        pkt7(0x46, 3), 0x00007015, 0x2000, 0,
                                        pkt7(0x46, 3), 0x08300016, 0x3000, 0};
  EXPECT_EQ(events(generation::a7xx, s),
            (std::vector<std::string>{"0 sample count (occlusion) -> 0x2000",
                                      "16 sample count (occlusion) -> 0x2010",
                                      "32 timestamp (always-on counter, 19.2 MHz) -> 0x3000"}));
  // On A6XX these are CP_EVENT_WRITE with no TIMESTAMP bit and no base register: nothing.
  EXPECT_TRUE(events(generation::a6xx, s).empty());
}

TEST(AdrenoRecognise6, TurnipReadsOfRegisters) {
  // vkCmdWriteTimestamp2 (0x40080980), pipeline statistics of all eleven pairs (0x40580540),
  // primitives generated (pair 7, CNT 2, 64B), stream-out base + WRITE_PRIMITIVE_COUNTS.
  const std::vector<std::uint32_t> s = {
      pkt7(0x3e, 3), 0x40080980, 0x100, 0, pkt7(0x3e, 3),   0x40580540, 0x200, 0,
      pkt7(0x3e, 3), 0x4008054e, 0x300, 0, pkt4(0x9218, 2), 0x400,      0,     pkt7(0x46, 1),
      0x09};
  const std::vector<std::string> want = {
      "0 timestamp (always-on counter, 19.2 MHz) -> 0x100",
      "16 pipeline statistics IAVERTICES..CSINVOCATIONS -> 0x200",
      "32 pipeline statistics CINVOCATIONS -> 0x300",
      "60 stream-out counts (4 streams x {written, generated}) -> 0x400"};
  EXPECT_EQ(events(generation::a6xx, s), want);
  EXPECT_EQ(events(generation::a7xx, s), want);
}

TEST(AdrenoRecognise6, CountersPerGenerationAndThread) {
  // Select then sample: A6XX CP counter 1 (SEL 0x08d1, LO 0x0402), turnip's CNT 0 + 64B read.
  const std::vector<std::uint32_t> a6 = {pkt4(0x08d1, 1), 2, pkt7(0x3e, 3), 0x40000402, 0x500, 0};
  EXPECT_EQ(
      events(generation::a6xx, a6),
      (std::vector<std::string>{"0 counter select: CP counter 1 selects countable 2 (BUSY_CYCLES)",
                                "8 counter sample: CP counter 1 -> 0x500"}));
  // On A7XX 0x08d1 is CP counter 1 too, but 0x0402 is no counter register.
  EXPECT_EQ(events(generation::a7xx, a6),
            (std::vector<std::string>{
                "0 counter select: CP counter 1 selects countable 2 (BUSY_CYCLES) [BR+BV]"}));
  // A7XX shared SELECT register 0x8611: the render TSE counter 1 on BR, BV_TSE on BV
  // (CP_THREAD_CONTROL 0x80000002 = SYNC_THREADS | BV); BV_TSE counter 1 LO is 0x048e.
  const std::vector<std::uint32_t> a7 = {pkt7(0x17, 1), 0x80000001, pkt4(0x8611, 1), 6,
                                         pkt7(0x17, 1), 0x80000002, pkt4(0x8611, 1), 7,
                                         pkt7(0x3e, 3), 0x4000048e, 0x600,           0};
  EXPECT_EQ(events(generation::a7xx, a7),
            (std::vector<std::string>{
                "8 counter select: TSE counter 1 selects countable 6 (INPUT_PRIM) [BR]",
                "24 counter select: BV_TSE counter 1 selects countable 7 (INPUT_NULL_PRIM) [BV]",
                "32 counter sample: BV_TSE counter 1 -> 0x600"}));
}

}  // namespace
