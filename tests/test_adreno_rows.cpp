// Adreno query results as rows (adreno/rows.hpp): an .rd capture built by
// hand, packets and dumped query memory, with every expected report index,
// byte offset, time and value worked out from the bytes written here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "adreno_results_capture.hpp"
#include "hwpc/adreno/rows.hpp"

namespace {

using adreno_rd::dwords;
using namespace adreno_results;

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
  const adreno_results::capture c;
  const auto& w = c.w;
  const dwords& cmd = c.cmd;
  const std::size_t cmd_payload = c.cmd_payload, mem_section = c.mem_section;

  hwpc::adreno::rows_done done;
  const auto rows = rows_of(hwpc::adreno::input_kind::rd, w.bytes, &done);
  // Schema: samples_passed, time_elapsed, gpu_time, CP_1.
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

namespace {

// A counter read's reason is made once per counter and countable and kept
// (row_counters.hpp): reads of one counter with countables changing between
// them, a countable read again, one past the kept range and one the tables do
// not name must each say the countable selected at that read.
TEST(AdrenoRows, ReasonFollowsTheCountableSelectedAtEachRead) {
  namespace a = hwpc::adreno;
  const a::counter_group& cp = a::a5xx_counter_groups[0];
  ASSERT_EQ(cp.name, "CP");
  const std::uint32_t countables[] = {1, 2, 1, 70000, 1023, 1024, 2, 70000};
  dwords d;
  std::vector<std::string> want;
  std::uint64_t dst = 0x7000'0000;
  // The first read, before any select: the counter's name.
  const auto sample = [&](std::uint32_t c) {
    d.insert(d.end(), {adreno_rd::pkt7(0x3e, 3), cp.lo_reg(c) | (2u << 18),
                       static_cast<std::uint32_t>(dst), static_cast<std::uint32_t>(dst >> 32)});
    dst += 8;
  };
  sample(1);
  want.push_back("CP_1");
  for (const std::uint32_t v : countables) {
    d.insert(d.end(), {adreno_rd::pkt4(cp.select_reg(1), 1), v});
    sample(1);
    want.push_back(a::countable_name(cp, v));
  }
  std::vector<std::byte> bytes;
  for (const std::uint32_t v : d) adreno_rd::put32(bytes, v);
  const auto rows = rows_of(a::input_kind::bin, bytes);
  ASSERT_EQ(rows.size(), want.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].reason, want[i]) << i;
  // The names are the tables' (a named countable, then an unnamed one).
  EXPECT_EQ(rows[1].reason, "PERF_CP_" + std::string(cp.countable(1)));
  EXPECT_EQ(rows[4].reason, "countable 70000");
}

}  // namespace
