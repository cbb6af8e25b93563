// hwpc adreno emulate: the emulator's capture (packed with its own encoder)
// read back by the decoder gives exactly the emulator's truth, for seeded
// workloads of several sizes, through the library and through the tool.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hwpc/adreno/emulate.hpp"
#include "hwpc/adreno/emulate6.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/recognise6.hpp"
#include "hwpc/adreno/rows.hpp"
#include "tool_runner.hpp"

namespace {

using namespace hwpc::adreno;

TEST(AdrenoEmulate, RowsMatchTheTruth) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const std::uint32_t rounds = 1 + static_cast<std::uint32_t>(seed % 7);
    const adreno_emulation e = emulate_a5xx({.seed = seed, .rounds = rounds});
    ASSERT_EQ(e.truth.size(), 3u * rounds + 1);
    const std::span<const std::byte> bytes(e.file);
    auto cols = sampled_counters(input_kind::rd, bytes);
    ASSERT_TRUE(cols.has_value());
    ASSERT_EQ(cols->size(), 1u);
    EXPECT_EQ((*cols)[0].name(), "CP_1");
    const hwpc::row_schema schema = schema_of(*cols);
    // A row's cells are valid during the call only: copied.
    std::vector<std::vector<hwpc::cell>> got;
    std::vector<std::string> reasons;
    std::size_t issues = 0;
    auto done = for_each_row(
        input_kind::rd, bytes, schema,
        [&](const hwpc::row& r) {
          got.emplace_back(r.metrics.begin(), r.metrics.end());
          reasons.emplace_back(r.reason);
        },
        [&](const hwpc::error&, bool note) { issues += note ? 0 : 1; });
    ASSERT_TRUE(done.has_value());
    EXPECT_EQ(issues, 0u);
    EXPECT_EQ(done->gpu_id, 530u);
    ASSERT_EQ(got.size(), e.truth.size()) << "seed " << seed;
    for (std::size_t k = 0; k < got.size(); ++k) {
      const emulated_row& t = e.truth[k];
      SCOPED_TRACE("seed " + std::to_string(seed) + " row " + std::to_string(k));
      EXPECT_EQ(reasons[k], t.reason);
      const auto cell = [&](std::size_t j) { return got[k][j]; };
      const auto u = [](std::uint64_t v) { return hwpc::cell::u(v); };
      const auto none = hwpc::cell::none();
      EXPECT_EQ(cell(0), t.reason == "occlusion" ? u(t.samples_passed) : none);
      EXPECT_EQ(cell(1), t.reason == "time-elapsed" ? u(t.time_elapsed_ns) : none);
      EXPECT_EQ(cell(2), t.reason == "always-on" ? u(t.gpu_time_ns) : none);
      EXPECT_EQ(cell(3), t.reason.starts_with("PERF_CP_") ? u(t.counter) : none);
    }
  }
}

TEST(AdrenoEmulate, ToolWritesACaptureAndItsTruth) {
  using hwpc::testing::run_tool;
  const std::string dir = ::testing::TempDir();
  const std::string rd = dir + "/hwpc_emulate_a5.rd", truth = dir + "/hwpc_emulate_a5.csv";
  auto w = run_tool("adreno emulate --seed 7 --rounds 5 --out " + rd + " --truth " + truth);
  ASSERT_EQ(w.status, 0) << w.out;
  auto r = run_tool("adreno --output csv " + rd);
  ASSERT_EQ(r.status, 0) << r.out;
  // The CSV's columns report,offset,timestamp,reason,ctx_id,samples_passed,time_elapsed,
  // gpu_time,CP_1 against the truth's report,reason,samples_passed,time_elapsed,gpu_time,CP_1.
  std::ifstream tf(truth);
  std::stringstream ts;
  ts << tf.rdbuf();
  std::istringstream got(r.out), want(ts.str());
  std::string g, t;
  std::getline(got, g);
  std::getline(want, t);
  EXPECT_EQ(t, "report,reason,samples_passed,time_elapsed,gpu_time,CP_1");
  std::size_t rows = 0;
  while (std::getline(want, t)) {
    ASSERT_TRUE(std::getline(got, g)) << "missing row for " << t;
    std::vector<std::string> c;
    std::stringstream gs(g);
    for (std::string f; std::getline(gs, f, ',');) c.push_back(f);
    if (g.back() == ',') c.emplace_back();
    ASSERT_EQ(c.size(), 9u) << g;
    EXPECT_EQ(c[0] + "," + c[3] + "," + c[5] + "," + c[6] + "," + c[7] + "," + c[8], t);
    ++rows;
  }
  EXPECT_EQ(rows, 16u);
  EXPECT_FALSE(std::getline(got, g)) << g;
  // Usage errors: no --out, an A6xx GPU, a bad round count.
  EXPECT_EQ(run_tool("adreno emulate").status, 1);
  EXPECT_EQ(run_tool("adreno emulate --gpu a999 --out " + rd).status, 1);
  EXPECT_EQ(run_tool("adreno emulate --rounds 0 --out " + rd).status, 1);
}

// A6xx and A7xx: the capture walked (through the draw-state group) and
// recognised as its own generation gives the emulator's lines, offsets
// included; no issue, every packet reached.
TEST(AdrenoEmulate, A6xxA7xxEventsMatchTheTruth) {
  for (const bool a7 : {false, true}) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      const std::uint32_t rounds = 1 + static_cast<std::uint32_t>(seed % 5);
      const adreno6_emulation e = emulate_a6xx_a7xx({.seed = seed, .rounds = rounds}, a7);
      struct sink : rd::capture_sink {
        std::optional<recogniser6> rec;
        generation gen = generation::unknown;
        std::vector<std::string> lines;
        std::size_t issues = 0, grouped = 0;
        void on_packet(const walked_packet& w) override {
          grouped += w.group == 2 ? 1 : 0;
          rec->push(w.pkt, [&](const query6_event& ev) {
            char b[24];
            std::snprintf(b, sizeof b, "%08zx: ", ev.offset);
            lines.push_back(b + describe(gen, ev));
          });
        }
        void on_issue(const hwpc::error&) override { ++issues; }
      } s;
      const device* d = rd::capture_device(e.file);
      ASSERT_NE(d, nullptr);
      EXPECT_EQ(d->name, a7 ? "A750" : "A630");
      s.gen = d->gen;
      s.rec.emplace(d->gen);
      rd::capture_reader r(s);
      ASSERT_TRUE(r.read(e.file));
      SCOPED_TRACE((a7 ? "A7xx seed " : "A6xx seed ") + std::to_string(seed));
      EXPECT_EQ(s.issues, 0u);
      EXPECT_EQ(s.grouped, 1u);  // the group's one packet, walked once
      EXPECT_EQ(s.lines, e.truth);
      EXPECT_EQ(e.truth.size(), 1 + 13u * rounds);

      // The rows: each with its reason and one value in its column, every other cell empty.
      const std::span<const std::byte> bytes(e.file);
      auto cols = sampled_counters(input_kind::rd, bytes);
      ASSERT_TRUE(cols.has_value());
      const hwpc::row_schema schema = schema_of(*cols);
      struct got_row {
        std::string reason;
        std::vector<hwpc::cell> cells;
        std::uint64_t begin, end;
      };
      std::vector<got_row> got;
      auto done = for_each_row(
          input_kind::rd, bytes, schema,
          [&](const hwpc::row& row) {
            got.push_back({std::string(row.reason),
                           std::vector<hwpc::cell>(row.metrics.begin(), row.metrics.end()),
                           row.begin, row.end});
          },
          [](const hwpc::error& err, bool note) {
            if (!note) ADD_FAILURE() << err.describe();
          });
      ASSERT_TRUE(done.has_value());
      ASSERT_EQ(got.size(), e.rows.size());
      std::size_t filled = 0;
      for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].reason, e.rows[k].reason) << k;
        EXPECT_EQ(got[k].begin, e.rows[k].begin) << k;
        EXPECT_EQ(got[k].end, e.rows[k].end) << k;
        for (std::size_t j = 0; j < schema.metrics.size(); ++j) {
          hwpc::cell want = hwpc::cell::none();
          for (const auto& [column, v] : e.rows[k].values) {
            if (column == schema.metrics[j].name) want = hwpc::cell::u(v);
          }
          filled += want.is_none() ? 0 : 1;
          EXPECT_EQ(got[k].cells[j], want) << k << " " << schema.metrics[j].name;
        }
      }
      // Every value of the truth has its column.
      std::size_t values = 0;
      for (const emulated6_row& t : e.rows) values += t.values.size();
      EXPECT_EQ(filled, values);
      // Each round: 9 rows; reports also count the begins of the occlusion, pipeline-statistics
      // and stream-out queries, which start stretches.
      EXPECT_EQ(e.rows.size(), 9u * rounds);
      EXPECT_EQ(done->acc.reports, e.rows.size() + 3 * rounds);
      EXPECT_EQ(done->acc.stretch_starts, 3u * rounds);
      EXPECT_TRUE(done->acc.balanced());
    }
  }
}

// The query memory a capture dumps (RD_GPUADDR 0xc0000000, then its
// RD_BUFFER_CONTENTS), as 64-bit words; read with a section walk of its own
// (the kernel's dialect: type, size, payload).
std::vector<std::uint64_t> query_memory(const std::vector<std::byte>& file) {
  const auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::to_integer<std::uint32_t>(file[at + i]) << (8 * i);
    return v;
  };
  bool next_is_memory = false;
  for (std::size_t at = 0; at + 8 <= file.size();) {
    const std::uint32_t type = u32(at), size = u32(at + 4);
    if (type == 12 && next_is_memory) {
      std::vector<std::uint64_t> words;
      for (std::size_t i = 0; i + 8 <= size; i += 8) {
        words.push_back(u32(at + 8 + i) | std::uint64_t{u32(at + 12 + i)} << 32);
      }
      return words;
    }
    next_is_memory = type == 3 && u32(at + 8) == 0xc0000000u && u32(at + 16) == 0;
    at += 8 + size;
  }
  ADD_FAILURE() << "no query memory";
  return {};
}

// What a GPU could show: every counter reading, and every word of the dumped
// query memory, below 2^40 (not garbage of 2^56 and more), and each counter
// increasing from round to round, for A5xx, A6xx and A7xx captures of many
// seeds, and for the most rounds of a long capture.
TEST(AdrenoEmulate, CounterReadingsArePlausible) {
  constexpr std::uint64_t limit = std::uint64_t{1} << 40;
  struct run {
    std::uint64_t seed;
    std::uint32_t rounds;
  };
  std::vector<run> runs;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    runs.push_back({seed, 2 + static_cast<std::uint32_t>(seed % 6)});
  }
  runs.push_back({77, 3000});
  for (const run& x : runs) {
    SCOPED_TRACE("seed " + std::to_string(x.seed) + ", " + std::to_string(x.rounds) + " rounds");
    {
      const adreno_emulation e = emulate_a5xx({.seed = x.seed, .rounds = x.rounds});
      std::uint64_t last = 0;
      std::size_t readings = 0;
      for (const emulated_row& t : e.truth) {
        if (t.reason.rfind("PERF_CP_", 0) != 0) continue;
        EXPECT_LT(t.counter, limit) << "A5xx CP_1";
        EXPECT_GT(t.counter, last) << "A5xx CP_1 after " << last;
        last = t.counter;
        ++readings;
      }
      EXPECT_EQ(readings, x.rounds);
      EXPECT_LT(e.truth.back().gpu_time_ns, std::uint64_t{1} << 50);  // always-on
      for (const std::uint64_t w : query_memory(e.file)) EXPECT_LT(w, limit) << "A5xx memory";
    }
    for (const bool a7 : {false, true}) {
      const std::string gpu = a7 ? "A750 " : "A630 ";
      const adreno6_emulation e = emulate_a6xx_a7xx({.seed = x.seed, .rounds = x.rounds}, a7);
      std::map<std::string, std::vector<std::uint64_t>> counters;
      for (const emulated6_row& r : e.rows) {
        for (const auto& [column, v] : r.values) {
          if (column == "TSE_0" || column == "BV_TSE_1" || column == "CP_1") {
            counters[column].push_back(v);
          }
        }
      }
      EXPECT_EQ(counters.size(), 2u);
      for (const auto& [column, values] : counters) {
        ASSERT_EQ(values.size(), x.rounds) << gpu << column;
        for (std::size_t k = 0; k < values.size(); ++k) {
          EXPECT_LT(values[k], limit) << gpu << column << " round " << k;
          if (k > 0) {
            EXPECT_GT(values[k], values[k - 1]) << gpu << column << " round " << k;
          }
        }
      }
      // The dumped memory, a 0x200-byte slot a round: every word below 2^40; the
      // timestamps (+48, +56), the counters (+0xf0, +0xf8) and the stream-out begin and end
      // counts (+0x160 .. +0x1c0) increase from round to round.
      const std::vector<std::uint64_t> mem = query_memory(e.file);
      ASSERT_EQ(mem.size(), x.rounds * 0x200u / 8);
      for (const std::uint64_t w : mem) EXPECT_LT(w, limit) << gpu << "memory";
      std::vector<std::size_t> running = {48, 56, 0xf0, 0xf8};
      for (std::size_t at = 0x160; at < 0x1e0; at += 8) running.push_back(at);
      for (const std::size_t at : running) {
        for (std::uint32_t k = 1; k < x.rounds; ++k) {
          EXPECT_GT(mem[(0x200 * k + at) / 8], mem[(0x200 * (k - 1) + at) / 8])
              << gpu << "slot +" << at << " round " << k;
        }
      }
    }
  }
}

TEST(AdrenoEmulate, ToolQueriesPrintTheTruth) {
  using hwpc::testing::run_tool;
  const std::string dir = ::testing::TempDir();
  for (const char* gpu : {"a630", "a750", "x1-85"}) {
    const std::string rd = dir + "/hwpc_emulate_" + gpu + ".rd",
                      truth = dir + "/hwpc_emulate_" + gpu + ".txt";
    auto w = run_tool(std::string("adreno emulate --gpu ") + gpu + " --seed 5 --rounds 3 --out " +
                      rd + " --truth " + truth);
    ASSERT_EQ(w.status, 0) << w.out;
    std::ifstream tf(truth);
    std::stringstream ts;
    ts << tf.rdbuf();
    auto q = run_tool("adreno --queries " + rd, true);
    EXPECT_EQ(q.status, 0) << q.out;
    EXPECT_EQ(q.out, ts.str()) << gpu;
    // Every output kind takes the A6xx/A7xx columns (the Perfetto tracks of the pipeline
    // statistics and stream-out columns have no counter group).
    for (const char* kind : {"csv", "json", "perfetto", "chrome-json", "html"}) {
      auto o = run_tool("adreno --output " + std::string(kind) + " " + rd);
      EXPECT_EQ(o.status, 0) << gpu << " " << kind;
      EXPECT_FALSE(o.out.empty()) << gpu << " " << kind;
    }
    auto l = run_tool("adreno " + rd, true);
    EXPECT_NE(l.out.find(std::string(gpu) == "a630" ? "GPU A630 (A6XX)" : "GPU A750 (A7XX)"),
              std::string::npos)
        << l.out;
  }
}

}  // namespace

namespace {

// Android libwrap's dialect through the tool's doors: the listing, --queries, the rows and
// `hwpc report` read it as they read the kernel's (the library's one reader).
TEST(AdrenoEmulate, ToolReadsTheLibwrapDialect) {
  using hwpc::testing::run_tool;
  const std::string dir = ::testing::TempDir();
  for (const char* gpu : {"a630", "a750"}) {
    const std::string rd = dir + "/hwpc_libwrap_" + gpu + ".rd",
                      truth = dir + "/hwpc_libwrap_" + gpu + ".txt";
    auto w = run_tool(std::string("adreno emulate --libwrap --gpu ") + gpu +
                      " --seed 5 --rounds 3 --out " + rd + " --truth " + truth);
    ASSERT_EQ(w.status, 0) << w.out;
    std::ifstream tf(truth);
    std::stringstream ts;
    ts << tf.rdbuf();
    auto q = run_tool("adreno --queries " + rd, true);
    EXPECT_EQ(q.status, 0) << q.out;
    EXPECT_EQ(q.out, ts.str()) << gpu;  // offsets in the libwrap file
    auto l = run_tool("adreno " + rd);
    EXPECT_NE(l.out.find("libwrap .rd dialect"), std::string::npos) << l.out;
    EXPECT_NE(l.out.find("RD_TEST sections skipped"), std::string::npos) << l.out;
    EXPECT_EQ(run_tool("report " + rd + " -o " + dir + "/hwpc_libwrap.html").status, 0) << gpu;
  }
  // A5xx rows: the same values as the kernel dialect's, at other offsets.
  const std::string plain = dir + "/hwpc_plain_a5.rd", wrapped = dir + "/hwpc_libwrap_a5.rd";
  ASSERT_EQ(run_tool("adreno emulate --seed 3 --rounds 4 --out " + plain).status, 0);
  ASSERT_EQ(run_tool("adreno emulate --libwrap --seed 3 --rounds 4 --out " + wrapped).status, 0);
  auto a = run_tool("adreno --output csv " + plain, true);
  auto b = run_tool("adreno --output csv " + wrapped, true);
  ASSERT_EQ(a.status, 0);
  ASSERT_EQ(b.status, 0);
  const auto without_offsets = [](const std::string& csv) {
    std::string out;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);) {
      const std::size_t c1 = line.find(','), c2 = line.find(',', c1 + 1);
      out += line.substr(0, c1) + line.substr(c2) + "\n";
    }
    return out;
  };
  EXPECT_EQ(without_offsets(a.out), without_offsets(b.out));
  EXPECT_NE(a.out, b.out);  // the offsets do differ
}

}  // namespace
