// Adreno query results as rows (adreno/rows.hpp): an .rd capture built by
// hand, packets and dumped query memory, with every expected report index,
// byte offset, time and value worked out from the bytes written here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "hwpc/adreno/rows.hpp"

namespace {

using adreno_rd::cat;
using adreno_rd::dwords;
using adreno_rd::pkt4;
using adreno_rd::pkt7;

constexpr std::uint64_t te_slot = 0xc0000000;   // freedreno 24-byte time-elapsed slot
constexpr std::uint64_t occ_slot = 0xc0000100;  // occlusion slot
constexpr std::uint64_t cp1_dst = 0xc0000200;   // CP counter 1 copied here (LO, HI)
constexpr std::uint64_t aon_dst = 0xc0000300;   // always-on counter copied here
constexpr std::uint64_t lost_dst = 0xd0000000;  // a sample no dump holds

void put64(dwords& d, std::uint64_t v) {
  d.push_back(static_cast<std::uint32_t>(v));
  d.push_back(static_cast<std::uint32_t>(v >> 32));
}

// The command stream, packet by packet from the FACTS encodings.
dwords stream() {
  dwords d;
  // time-elapsed begin: CP_EVENT_WRITE(4) RB_DONE_TS | TIMESTAMP to the slot start
  d.insert(d.end(), {pkt7(0x46, 4), 0x40000016});
  put64(d, te_slot);
  d.push_back(0);
  // occlusion begin: RB_SAMPLE_COUNT_CONTROL COPY, ADDR = slot, ZPASS_DONE
  d.insert(d.end(), {pkt4(0xe1d1, 1), 2, pkt4(0xe267, 2)});
  put64(d, occ_slot);
  d.insert(d.end(), {pkt7(0x46, 1), 0x15});
  // occlusion end (the seed's sequence aimed at this slot)
  d.push_back(pkt7(0x3d, 4));
  put64(d, occ_slot + 16);
  d.insert(d.end(), {0xffffffff, 0xffffffff, pkt7(0x12, 0), pkt4(0xe1d1, 1), 2, pkt4(0xe267, 2)});
  put64(d, occ_slot + 16);
  d.insert(d.end(), {pkt7(0x46, 1), 0x15, pkt7(0x3c, 6), 0x14});
  put64(d, occ_slot + 20);
  d.insert(d.end(), {0xffffffff, 0xffffffff, 0x10, pkt7(0x73, 9), 0x20000004});
  for (std::uint64_t a : {occ_slot + 8, occ_slot + 8, occ_slot + 16, occ_slot}) put64(d, a);
  // time-elapsed end: timestamp to stop, wait for idle, result += stop - start
  d.insert(d.end(), {pkt7(0x46, 4), 0x40000016});
  put64(d, te_slot + 16);
  d.insert(d.end(), {0, pkt7(0x26, 0), pkt7(0x73, 9), 0x20000004});
  for (std::uint64_t a : {te_slot + 8, te_slot + 8, te_slot + 16, te_slot}) put64(d, a);
  // CP counter 1 selects countable 2 (BUSY_CYCLES), then LO and HI are copied out
  d.insert(d.end(), {pkt4(0x0bb1, 1), 2, pkt7(0x3e, 3), 0x03a2u | (2u << 18)});
  put64(d, cp1_dst);
  // RBBM_ALWAYSON_COUNTER_LO/HI copied out
  d.insert(d.end(), {pkt7(0x3e, 3), 0x04d2u | (2u << 18)});
  put64(d, aon_dst);
  // CP counter 1 again, to memory the capture does not dump
  d.insert(d.end(), {pkt7(0x3e, 3), 0x03a2u | (2u << 18)});
  put64(d, lost_dst);
  return d;
}

// The query memory as dumped: 0x400 bytes at te_slot.
dwords memory() {
  dwords m(0x100, 0);
  auto at = [&](std::uint64_t addr, std::uint64_t v) {
    const std::size_t i = (addr - te_slot) / 4;
    m[i] = static_cast<std::uint32_t>(v);
    m[i + 1] = static_cast<std::uint32_t>(v >> 32);
  };
  at(te_slot, 19'200'000);       // start: 1 s of always-on ticks
  at(te_slot + 8, 96'000);       // result: 5 ms
  at(te_slot + 16, 19'296'000);  // stop
  at(occ_slot, 100);
  at(occ_slot + 8, 42);
  at(occ_slot + 16, 142);
  at(cp1_dst, 0x1'0000'0005);
  at(aon_dst, 38'400'000);  // 2 s
  return m;
}

struct got {
  std::uint64_t report, offset, begin, end;
  std::vector<hwpc::cell> cells;
  std::string reason;
};

std::vector<got> rows_of(hwpc::adreno::input_kind kind, const std::vector<std::byte>& bytes,
                         hwpc::adreno::rows_done* done = nullptr) {
  namespace a = hwpc::adreno;
  auto cols = a::sampled_counters(kind, bytes);
  EXPECT_TRUE(cols.has_value());
  const hwpc::row_schema s = a::schema_of(*cols);
  std::vector<got> out;
  auto r = a::for_each_row(
      kind, bytes, s,
      [&](const hwpc::row& row) {
        out.push_back({row.report, row.offset, row.begin, row.end,
                       std::vector<hwpc::cell>(row.metrics.begin(), row.metrics.end()),
                       std::string(row.reason)});
      },
      [](const hwpc::error& e, bool note) {
        if (!note) ADD_FAILURE() << e.describe();
      });
  EXPECT_TRUE(r.has_value());
  if (r && done) *done = *r;
  return out;
}

TEST(AdrenoRows, RdCaptureResultsWithDumpedValues) {
  adreno_rd::writer w;
  w.gpu_id(530);
  const dwords cmd = stream();
  const std::size_t cmd_payload = w.buffer(0x10000, cmd);
  const std::size_t mem_section = w.buffer(te_slot, memory()) - 8;
  w.cmdstream(0x10000, static_cast<std::uint32_t>(cmd.size()));

  hwpc::adreno::rows_done done;
  const auto rows = rows_of(hwpc::adreno::input_kind::rd, w.bytes, &done);
  // Schema: samples_passed, time_elapsed, timestamp, CP_1.
  const auto cols = hwpc::adreno::sampled_counters(hwpc::adreno::input_kind::rd, w.bytes);
  ASSERT_EQ(cols->size(), 1u);
  EXPECT_EQ((*cols)[0].name(), "CP_1");
  const auto s = hwpc::adreno::schema_of(*cols);
  ASSERT_EQ(s.metrics.size(), 4u);
  EXPECT_EQ(s.metrics[0].units, "samples");
  EXPECT_EQ(s.metrics[1].units, "ns");
  EXPECT_EQ(s.metrics[3].units, "events");
  EXPECT_EQ(s.ticks_per_second, 19'200'000u);

  // Reports: 0 te begin, 1 occlusion begin (stretch starts), 2 occlusion end,
  // 3 te end, 4 CP_1, 5 always-on, 6 CP_1 undumped.
  ASSERT_EQ(rows.size(), 5u);
  const auto none = hwpc::cell::none();
  const auto u = [](std::uint64_t v) { return hwpc::cell::u(v); };
  EXPECT_EQ(rows[0].report, 2u);
  EXPECT_EQ(rows[0].reason, "occlusion");
  EXPECT_EQ(rows[0].offset, mem_section);
  EXPECT_EQ(rows[0].end, 19'200'000u);  // the last timestamp read: the te begin
  EXPECT_EQ(rows[0].cells, (std::vector<hwpc::cell>{u(42), none, none, none}));

  EXPECT_EQ(rows[1].report, 3u);
  EXPECT_EQ(rows[1].reason, "time-elapsed");
  EXPECT_EQ(rows[1].begin, 19'200'000u);
  EXPECT_EQ(rows[1].end, 19'296'000u);
  EXPECT_EQ(rows[1].cells, (std::vector<hwpc::cell>{none, u(5'000'000), none, none}));
  EXPECT_EQ(rows[1].offset, mem_section);

  EXPECT_EQ(rows[2].report, 4u);
  EXPECT_EQ(rows[2].reason, "PERF_CP_BUSY_CYCLES");
  EXPECT_EQ(rows[2].end, 19'296'000u);
  EXPECT_EQ(rows[2].cells, (std::vector<hwpc::cell>{none, none, none, u(0x1'0000'0005)}));

  EXPECT_EQ(rows[3].report, 5u);
  EXPECT_EQ(rows[3].reason, "always-on");
  EXPECT_EQ(rows[3].begin, 38'400'000u);
  EXPECT_EQ(rows[3].end, 38'400'000u);
  EXPECT_EQ(rows[3].cells, (std::vector<hwpc::cell>{none, none, u(2'000'000'000), none}));

  // Not dumped: no value, and the offset is the CP_REG_TO_MEM packet's.
  EXPECT_EQ(rows[4].report, 6u);
  EXPECT_EQ(rows[4].cells, (std::vector<hwpc::cell>{none, none, none, none}));
  EXPECT_EQ(rows[4].offset, cmd_payload + 4 * (cmd.size() - 4));

  EXPECT_EQ(done.acc.records, 7u);
  EXPECT_EQ(done.acc.reports, 7u);
  EXPECT_EQ(done.acc.intervals, 5u);
  EXPECT_EQ(done.acc.stretch_starts, 2u);
  EXPECT_TRUE(done.acc.balanced());
  EXPECT_EQ(done.issues, 0u);
  EXPECT_EQ(done.gpu_id, 530u);
}

TEST(AdrenoRows, HexTextHasNoMemoryAndTextOffsets) {
  std::string text;
  const dwords cmd = stream();
  std::vector<std::size_t> token;  // text offset of each dword
  for (std::size_t i = 0; i < cmd.size(); ++i) {
    char b[16];
    std::snprintf(b, sizeof b, "%08x", static_cast<unsigned>(cmd[i]));
    if (i % 4 == 0 && i != 0) text += "\n";
    if (i % 4 != 0) text += " ";
    token.push_back(text.size());
    text += b;
  }
  text += "\n";
  std::vector<std::byte> bytes(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) bytes[i] = static_cast<std::byte>(text[i]);
  hwpc::adreno::rows_done done;
  const auto rows = rows_of(hwpc::adreno::input_kind::hex, bytes, &done);
  ASSERT_EQ(rows.size(), 5u);
  for (const got& g : rows) {
    for (const auto& c : g.cells) EXPECT_TRUE(c.is_none());
    EXPECT_EQ(g.end, 0u);
  }
  // The occlusion end's first packet is dword 12 (5 + 7 dwords before it).
  EXPECT_EQ(rows[0].offset, token[12]);
  EXPECT_EQ(rows[4].offset, token[cmd.size() - 4]);
  EXPECT_TRUE(done.acc.balanced());
}

TEST(AdrenoRows, EmptyInputIsAnError) {
  const std::vector<std::byte> none;
  auto r = hwpc::adreno::for_each_row(
      hwpc::adreno::input_kind::bin, none, hwpc::adreno::schema_of({}), [](const hwpc::row&) {},
      [](const hwpc::error&, bool) {});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error_value().offset, 0u);
}

}  // namespace
