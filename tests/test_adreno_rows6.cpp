// A6XX query results as rows (adreno/rows6.hpp): an A630 .rd built by hand
// from FACTS-adreno6 section 4 — gallium's time elapsed (two RB_DONE_TS |
// TIMESTAMP event writes, +16 and +32 of the slot), gallium's one-pair and
// turnip's all-pairs pipeline statistics (CP_REG_TO_MEM of RBBM_PIPESTAT
// 0x0540 + 2i, CNT = 2 per pair, 64B), turnip's primitives generated (pair 7
// at +16/+24), stream-out (VPC_SO_QUERY_BASE 0x9218 then
// WRITE_PRIMITIVE_COUNTS, +32/+96), two turnip timestamps 16 bytes apart —
// with every value, report, time and offset worked out here.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/adreno/tracks.hpp"

namespace {

using adreno_rd::dwords;
using adreno_rd::pkt4;
using adreno_rd::pkt7;
namespace a = hwpc::adreno;

constexpr std::uint64_t mem_base = 0xc0000000;
constexpr std::uint64_t te = mem_base, ps = mem_base + 0x40, pg = mem_base + 0x60,
                        all = mem_base + 0x80, so = mem_base + 0x180, ts = mem_base + 0x240;

dwords at(std::uint64_t addr) {
  return {static_cast<std::uint32_t>(addr), static_cast<std::uint32_t>(addr >> 32)};
}

dwords stream() {
  const auto reg_to_mem = [](std::uint32_t dw0, std::uint64_t to) {
    return adreno_rd::cat({{pkt7(0x3e, 3), dw0}, at(to)});
  };
  const auto stamp = [](std::uint64_t to) {
    return adreno_rd::cat({{pkt7(0x46, 4), 0x40000016}, at(to), {0}});
  };
  const auto so_write = [](std::uint64_t to) {
    return adreno_rd::cat({{pkt4(0x9218, 2)}, at(to), {pkt7(0x46, 1), 0x09}});
  };
  return adreno_rd::cat({
      stamp(te + 16),
      stamp(te + 32),
      {pkt7(0x26, 0)},  // time elapsed
      reg_to_mem(0x40080552, ps + 8),
      reg_to_mem(0x40080552, ps + 16),  // PSINVOCATIONS
      reg_to_mem(0x4008054e, pg + 16),
      reg_to_mem(0x4008054e, pg + 24),  // CINVOCATIONS
      reg_to_mem(0x40580540, all + 96),
      reg_to_mem(0x40580540, all + 184),  // all eleven
      so_write(so + 32),
      so_write(so + 96),  // stream-out
      reg_to_mem(0x40080980, ts),
      reg_to_mem(0x40080980, ts + 16),  // turnip timestamps
  });
}

dwords memory() {
  dwords m(0x260 / 4, 0);
  const auto put = [&m](std::uint64_t addr, std::uint64_t v) {
    m[(addr - mem_base) / 4] = static_cast<std::uint32_t>(v);
    m[(addr - mem_base) / 4 + 1] = static_cast<std::uint32_t>(v >> 32);
  };
  put(te + 16, 19'200'000);            // 1 s
  put(te + 32, 19'200'000 + 192'000);  // + 10 ms
  put(ps + 8, 1000);
  put(ps + 16, 1500);
  put(pg + 16, 0xffff'fff0);
  put(pg + 24, 0x1'0000'0010);
  for (std::uint64_t i = 0; i < 11; ++i) {
    put(all + 96 + 8 * i, 100 * i);
    put(all + 184 + 8 * i, 100 * i + i + 1);
  }
  for (std::uint64_t i = 0; i < 8; ++i) {
    put(so + 32 + 8 * i, 1000 * i);
    put(so + 96 + 8 * i, 1000 * i + 10 * (i + 1));
  }
  put(ts, 20'000'000);
  put(ts + 16, 38'400'000);
  return m;
}

TEST(AdrenoRows6, PipelineStatisticsStreamOutAndTimeElapsed) {
  adreno_rd::writer w;
  w.gpu_id(630);
  const dwords cmd = stream();
  w.buffer(0x10000, cmd);
  const std::size_t mem_section = w.buffer(mem_base, memory()) - 8;
  w.cmdstream(0x10000, static_cast<std::uint32_t>(cmd.size()));

  auto cols = a::sampled_counters(a::input_kind::rd, w.bytes);
  ASSERT_TRUE(cols.has_value());
  const hwpc::row_schema s = a::schema_of(*cols);
  // The fixed three, then the counts in order of first row: ps, c, the other nine, stream-out.
  const std::vector<std::string> names = {
      "samples_passed",         "time_elapsed",           "gpu_time",
      "ps_invocations",         "c_invocations",          "ia_vertices",
      "ia_primitives",          "vs_invocations",         "hs_invocations",
      "ds_invocations",         "gs_invocations",         "gs_primitives",
      "c_primitives",           "cs_invocations",         "primitives_written_0",
      "primitives_generated_0", "primitives_written_1",   "primitives_generated_1",
      "primitives_written_2",   "primitives_generated_2", "primitives_written_3",
      "primitives_generated_3"};
  ASSERT_EQ(s.metrics.size(), names.size());
  for (std::size_t j = 0; j < names.size(); ++j) EXPECT_EQ(s.metrics[j].name, names[j]);
  EXPECT_EQ(s.metrics[3].units, "invocations");
  EXPECT_EQ(s.metrics[5].units, "vertices");
  EXPECT_EQ(s.metrics[14].units, "primitives");
  // Perfetto tracks: the counts under "queries", by kind (no counter group to name them).
  const auto tracks = a::track_layout_of(*cols);
  ASSERT_EQ(tracks.metrics.size(), names.size());
  EXPECT_EQ(tracks.metrics[1], (std::vector<std::string>{"queries"}));
  EXPECT_EQ(tracks.metrics[3], (std::vector<std::string>{"queries", "pipeline statistics"}));
  EXPECT_EQ(tracks.metrics[13], (std::vector<std::string>{"queries", "pipeline statistics"}));
  EXPECT_EQ(tracks.metrics[14], (std::vector<std::string>{"queries", "stream-out"}));

  struct got {
    std::uint64_t report, offset, begin, end;
    std::string reason;
    std::vector<hwpc::cell> cells;
  };
  std::vector<got> rows;
  a::result_totals totals(s);
  auto done = a::for_each_row(
      a::input_kind::rd, w.bytes, s,
      [&](const hwpc::row& r) {
        rows.push_back({r.report, r.offset, r.begin, r.end, std::string(r.reason),
                        std::vector<hwpc::cell>(r.metrics.begin(), r.metrics.end())});
        totals.add(r);
      },
      [](const hwpc::error& e, bool note) {
        if (!note) ADD_FAILURE() << e.describe();
      });
  ASSERT_TRUE(done.has_value());
  ASSERT_NE(done->gpu, nullptr);
  EXPECT_EQ(done->gpu->name, "A630");

  // One cell set per row: column name -> value.
  const auto only = [&](std::vector<std::pair<std::string, std::uint64_t>> v) {
    std::vector<hwpc::cell> c(names.size(), hwpc::cell::none());
    for (const auto& [n, x] : v) {
      for (std::size_t j = 0; j < names.size(); ++j)
        if (names[j] == n) c[j] = hwpc::cell::u(x);
    }
    return c;
  };
  // Reports: 0 timestamp (the time-elapsed start), 1 time-elapsed end, 2 ps begin, 3 ps end,
  // 4 c begin, 5 c end, 6 all begin, 7 all end, 8 stream-out begin, 9 end, 10 and 11 turnip
  // timestamps (16 bytes apart, not paired).
  ASSERT_EQ(rows.size(), 8u);
  const std::uint64_t t0 = 19'200'000, t1 = 19'392'000;
  EXPECT_EQ(rows[0].report, 0u);
  EXPECT_EQ(rows[0].reason, "timestamp");
  EXPECT_EQ(rows[0].begin, t0);
  EXPECT_EQ(rows[0].end, t0);
  EXPECT_EQ(rows[0].cells, only({{"gpu_time", 1'000'000'000}}));
  EXPECT_EQ(rows[1].report, 1u);
  EXPECT_EQ(rows[1].reason, "time-elapsed");
  EXPECT_EQ(rows[1].begin, t0);
  EXPECT_EQ(rows[1].end, t1);
  EXPECT_EQ(rows[1].cells, only({{"time_elapsed", 10'000'000}}));
  EXPECT_EQ(rows[2].report, 3u);
  EXPECT_EQ(rows[2].reason, "pipeline-statistics");
  EXPECT_EQ(rows[2].begin, t1);  // no time of its own: the last timestamp read
  EXPECT_EQ(rows[2].end, t1);
  EXPECT_EQ(rows[2].cells, only({{"ps_invocations", 500}}));
  EXPECT_EQ(rows[3].report, 5u);
  EXPECT_EQ(rows[3].cells, only({{"c_invocations", 0x20}}));
  EXPECT_EQ(rows[4].report, 7u);
  EXPECT_EQ(rows[4].reason, "pipeline-statistics");
  EXPECT_EQ(rows[4].cells, only({{"ia_vertices", 1},
                                 {"ia_primitives", 2},
                                 {"vs_invocations", 3},
                                 {"hs_invocations", 4},
                                 {"ds_invocations", 5},
                                 {"gs_invocations", 6},
                                 {"gs_primitives", 7},
                                 {"c_invocations", 8},
                                 {"c_primitives", 9},
                                 {"ps_invocations", 10},
                                 {"cs_invocations", 11}}));
  EXPECT_EQ(rows[5].report, 9u);
  EXPECT_EQ(rows[5].reason, "stream-out");
  EXPECT_EQ(rows[5].cells, only({{"primitives_written_0", 10},
                                 {"primitives_generated_0", 20},
                                 {"primitives_written_1", 30},
                                 {"primitives_generated_1", 40},
                                 {"primitives_written_2", 50},
                                 {"primitives_generated_2", 60},
                                 {"primitives_written_3", 70},
                                 {"primitives_generated_3", 80}}));
  EXPECT_EQ(rows[6].report, 10u);
  EXPECT_EQ(rows[6].reason, "timestamp");
  EXPECT_EQ(rows[6].end, 20'000'000u);
  EXPECT_EQ(rows[6].cells, only({{"gpu_time", 20'000'000ull * 625 / 12}}));
  EXPECT_EQ(rows[7].report, 11u);
  EXPECT_EQ(rows[7].cells, only({{"gpu_time", 2'000'000'000}}));
  for (const got& g : rows) EXPECT_EQ(g.offset, mem_section) << g.report;

  EXPECT_EQ(done->acc.reports, 12u);
  EXPECT_EQ(done->acc.intervals, 8u);
  EXPECT_EQ(done->acc.stretch_starts, 4u);
  EXPECT_TRUE(done->acc.balanced());

  // Totals: per-query counts summed, gpu_time last minus first.
  const auto t = totals.cells();
  EXPECT_EQ(t[1], hwpc::cell::u(10'000'000));
  EXPECT_EQ(t[2], hwpc::cell::u(1'000'000'000));
  EXPECT_EQ(t[3], hwpc::cell::u(510));   // ps_invocations: 500 + 10
  EXPECT_EQ(t[4], hwpc::cell::u(0x28));  // c_invocations: 0x20 + 8
  EXPECT_EQ(t[21], hwpc::cell::u(80));
  EXPECT_TRUE(t[0].is_none());
}

// A stream that only begins queries (no end 8 x pairs or 64 bytes later)
// makes no rows; every begin is a stretch start.
TEST(AdrenoRows6, BeginsWithoutEndsMakeNoRows) {
  adreno_rd::writer w;
  w.gpu_id(630);
  const dwords cmd = adreno_rd::cat({{pkt7(0x3e, 3), 0x40080552},
                                     at(ps + 8),
                                     {pkt7(0x3e, 3), 0x40080552},
                                     at(ps + 24),  // not +16
                                     {pkt4(0x9218, 2)},
                                     at(so + 32),
                                     {pkt7(0x46, 1), 0x09},
                                     {pkt4(0x9218, 2)},
                                     at(so + 64),
                                     {pkt7(0x46, 1), 0x09}});
  w.buffer(0x10000, cmd);
  w.cmdstream(0x10000, static_cast<std::uint32_t>(cmd.size()));
  const hwpc::row_schema s = a::schema_of({});
  std::size_t rows = 0;
  auto done = a::for_each_row(
      a::input_kind::rd, w.bytes, s, [&](const hwpc::row&) { ++rows; },
      [](const hwpc::error&, bool) {});
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(rows, 0u);
  EXPECT_EQ(done->acc.reports, 4u);
  EXPECT_EQ(done->acc.stretch_starts, 4u);
}

}  // namespace

namespace {

// rows6 keeps the begins waiting for their end in a sorted list capped at
// 4096, the lowest key forgotten first when a begin comes to a full list, as
// the std::set it replaced did; an end whose begin is not there is a begin.
TEST(AdrenoRows6, BeginsPastTheCapForgetTheLowestKey) {
  using k = hwpc::adreno::query6_event::kind;
  hwpc::adreno::rows6 rows;
  hwpc::adreno::result6 r;
  const auto none = [](std::uint64_t, std::size_t, std::optional<std::size_t>*) {
    return std::optional<std::uint64_t>{};
  };
  const auto event = [](std::uint64_t address) {
    hwpc::adreno::query6_event e;
    e.what = k::pipeline_stats;
    e.value = 0;
    e.count = 1;
    e.address = address;
    return e;
  };
  constexpr std::uint64_t base = 0x10000, step = 0x100;
  constexpr int begins = 4097;  // one past the cap
  for (int i = 0; i < begins; ++i) {
    rows.take(event(base + step * static_cast<std::uint64_t>(i)), none, r);
    ASSERT_EQ(r.what, hwpc::adreno::result6::kind::stretch_start) << i;
  }
  // The end of begin 0 (the lowest key, forgotten): a begin of its own,
  // which, the list being full, forgets the lowest again: begin 1. Its end
  // is then a begin too (forgetting the one at base + 8); the rest pair.
  rows.take(event(base + 8), none, r);
  EXPECT_EQ(r.what, hwpc::adreno::result6::kind::stretch_start);
  rows.take(event(base + step + 8), none, r);
  EXPECT_EQ(r.what, hwpc::adreno::result6::kind::stretch_start);
  for (int i = 2; i < begins; ++i) {
    rows.take(event(base + step * static_cast<std::uint64_t>(i) + 8), none, r);
    ASSERT_EQ(r.what, hwpc::adreno::result6::kind::row) << i;
    EXPECT_EQ(r.reason, "pipeline-statistics");
    ASSERT_EQ(r.columns.size(), 1u);
    EXPECT_EQ(r.columns[0].column, "ia_vertices");
    EXPECT_TRUE(r.values.empty());  // nothing read
  }
  // A begin seen twice is one begin: its second end starts a stretch.
  rows.take(event(0x900000), none, r);
  rows.take(event(0x900000), none, r);
  rows.take(event(0x900008), none, r);
  EXPECT_EQ(r.what, hwpc::adreno::result6::kind::row);
  rows.take(event(0x900008), none, r);
  EXPECT_EQ(r.what, hwpc::adreno::result6::kind::stretch_start);
}

}  // namespace
