// Physics checks on decoded Mali samples (hwpc/mali/plausibility.hpp): hand-
// built samples that break each bound are named by counter and sample; a G710
// kinstr_prfcnt capture read as a G72 is found out; every GPU's own emulated
// captures raise no finding; `hwpc mali` prints the findings on stderr and
// keeps its exit status.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "hwpc/mali.hpp"
#include "hwpc/mali/plausibility.hpp"
#include "hwpc/mali/rows.hpp"
#include "mali_test_util.hpp"
#include "tool_runner.hpp"

namespace {

using namespace hwpc;

const mali::gpu_product& gpu_named(const char* name) {
  auto g = mali::find_gpu(name);
  EXPECT_TRUE(g.has_value()) << name;
  return **g;
}

// Decodes a capture file's payload as `gpu` (whatever GPU wrote it) and runs
// the checker over every row.
struct checked {
  std::vector<mali::plausibility_finding> findings;
  std::uint64_t total = 0;
  std::size_t rows = 0;
};
checked check_capture(const mali::gpu_product& gpu, const std::vector<std::byte>& file,
                      std::uint32_t bus_width_bits = 0, mali::plausibility_options po = {}) {
  checked out;
  auto h = mali::capture_header::parse(file);
  EXPECT_TRUE(h.has_value());
  if (!h) return out;
  const auto payload = h->payload(file);
  std::optional<mali::evaluator> ev;
  if (bus_width_bits != 0) {
    auto e = mali::evaluator::database(*gpu.table, h->layout, bus_width_bits);
    EXPECT_TRUE(e.has_value());
    ev.emplace(std::move(*e));
  }
  mali::row_builder b(gpu, ev ? &*ev : nullptr, true);
  mali::plausibility_checker pc(*gpu.table, h->layout, po, ev ? &*ev : nullptr);
  auto each = [&](const row& r) {
    pc.check(r);
    ++out.rows;
  };
  result<accounting> acc = accounting{};
  if (h->reader == mali::reader_kind::vinstr) {
    auto cap = mali::vinstr_capture::make(*gpu.table, h->layout, payload,
                                          mali::capture_header_bytes, true);
    EXPECT_TRUE(cap.has_value());
    if (cap) acc = mali::for_each_row(*cap, b, each);
  } else {
    auto rd = mali::kinstr_reader::make(*gpu.table, h->layout, payload, mali::capture_header_bytes);
    EXPECT_TRUE(rd.has_value());
    if (rd) acc = mali::for_each_row(*rd, b, each);
  }
  EXPECT_TRUE(acc.has_value()) << (acc ? "" : acc.error_value().describe());
  out.findings = pc.findings();
  out.total = pc.total_findings();
  return out;
}

mali::emulation emulate(const mali::gpu_product& gpu, bool kinstr, std::uint64_t seed,
                        bool record_gpu_id = true) {
  mali::emulate_options o;
  o.gpu_id = record_gpu_id ? mali::gpu_id_of_product(gpu.product_id) : 0;
  o.csf = mali::is_csf_product(gpu.product_id);
  o.values_per_block = gpu.table->values_per_block;
  o.table = gpu.table;
  o.kinstr = kinstr;
  o.l2_slices = 2;
  o.core_mask = 0x2d;  // cores 0, 2, 3, 5
  o.samples = 8;
  o.seed = seed;
  o.period_ns = 250'000;
  return mali::emulate(o);
}

// A G72 vinstr sample, by hand: JS0_ACTIVE above GPU_ACTIVE, FRAG_ACTIVE
// summed over two cores above 2 x GPU_ACTIVE; one finding each, naming the
// counter and the sample.
TEST(MaliPlausibility, HandBuiltSamplesBreakingEachBound) {
  const mali::gpu_product& gpu = gpu_named("g72");
  const mali::sample_layout layout{.l2_slices = 1, .core_mask = 0b11};
  std::vector<std::byte> all;
  for (int k = 0; k < 3; ++k) {
    mali_test::sample_bytes s(layout);
    s.front_end(6, 1000);                   // GPU_ACTIVE
    s.front_end(10, k == 1 ? 1001 : 1000);  // JS0_ACTIVE: sample 1 breaks the bound
    s.core(0, 4, 1000);                     // FRAG_ACTIVE
    s.core(1, 4, k == 2 ? 1001 : 1000);     // sample 2: 2001 > 2 x 1000
    all.insert(all.end(), s.bytes.begin(), s.bytes.end());
  }
  auto cap = mali::vinstr_capture::make(*gpu.table, layout, all);
  ASSERT_TRUE(cap.has_value());
  mali::row_builder b(gpu, nullptr, false);
  mali::plausibility_checker pc(*gpu.table, layout);
  ASSERT_TRUE(mali::for_each_row(*cap, b, [&](const row& r) { pc.check(r); }).has_value());
  ASSERT_EQ(pc.total_findings(), 2u);
  const auto& f = pc.findings();
  EXPECT_EQ(f[0].report, 1u);
  EXPECT_EQ(f[0].offset, layout.size_bytes());
  EXPECT_EQ(f[0].counter, "JS0_ACTIVE");
  EXPECT_EQ(f[0].value, 1001.0);
  EXPECT_EQ(f[0].bound, 1000.0);
  EXPECT_EQ(f[0].describe(), "sample 1 (byte offset " + std::to_string(layout.size_bytes()) +
                                 "): JS0_ACTIVE = 1001, expected <= GPU_ACTIVE (1000)");
  EXPECT_EQ(f[1].report, 2u);
  EXPECT_EQ(f[1].counter, "FRAG_ACTIVE");
  EXPECT_EQ(f[1].bound, 2000.0);
}

// Derived counters by Arm's formulas over the row's own counters: a read miss
// rate above 100 % (more external reads than L2 read lookups) and a read
// latency histogram whose buckets exceed the beats (MaliExtBusRdLat384, the
// remainder, negative). G72 memory values 26 L2_READ_LOOKUP, 29 L2_EXT_READ,
// 32 L2_EXT_READ_BEATS, 37 L2_EXT_RRESP_0_127.
TEST(MaliPlausibility, DerivedCountersOutOfTheirRange) {
  const mali::gpu_product& gpu = gpu_named("g72");
  const mali::sample_layout layout{.l2_slices = 1, .core_mask = 1};
  mali_test::sample_bytes s(layout);
  s.front_end(6, 1000);  // GPU_ACTIVE
  s.memory(0, 26, 10);   // 10 lookups
  s.memory(0, 29, 20);   // 20 external reads: 200 %
  s.memory(0, 32, 30);   // 30 beats
  s.memory(0, 37, 40);   // 40 of them in the 0-127 cycle bucket: 384+ is -10
  auto cap = mali::vinstr_capture::make(*gpu.table, layout, s.bytes);
  ASSERT_TRUE(cap.has_value());
  mali::row_builder b(gpu, nullptr, false);
  mali::plausibility_checker pc(*gpu.table, layout);
  ASSERT_TRUE(mali::for_each_row(*cap, b, [&](const row& r) { pc.check(r); }).has_value());
  std::map<std::string, double> got;
  for (const auto& f : pc.findings()) got[f.counter] = f.value;
  EXPECT_EQ(pc.total_findings(), 2u);
  EXPECT_DOUBLE_EQ(got["MaliL2CacheRdMissRate"], 200.0);
  EXPECT_DOUBLE_EQ(got["MaliExtBusRdLat384"], -10.0);
}

// The clock bound: 1,000 ns at 1 GHz holds 1,000 cycles, not 1,001.
TEST(MaliPlausibility, GpuActiveWithinDurationTimesTheHighestClock) {
  const mali::gpu_product& gpu = gpu_named("g720");
  mali_test::kinstr_buffer buf(128);
  for (std::uint64_t k = 0; k < 2; ++k) {
    mali_test::kinstr_sample_spec s;
    s.ts_start = 5000 + 1000 * k;
    s.ts_end = 6000 + 1000 * k;
    s.seq = k + 1;
    std::vector<std::uint64_t> fe(128);
    fe[4] = 1000 + k;  // GPU_ACTIVE
    s.blocks = {{0, 0, 0, 0x15, fe}, {1, 0, 0, 0x15, {}}, {2, 0, 0, 0x15, {}}, {3, 0, 0, 0x15, {}}};
    buf.add(s);
  }
  const mali::sample_layout layout{.l2_slices = 1, .core_mask = 1};
  for (const std::uint64_t hz : {std::uint64_t{0}, std::uint64_t{1'000'000'000}}) {
    auto rd = mali::kinstr_reader::make(*gpu.table, layout, buf.bytes);
    ASSERT_TRUE(rd.has_value());
    mali::row_builder b(gpu, nullptr, true);
    mali::plausibility_checker pc(*gpu.table, layout, {.max_clock_hz = hz});
    ASSERT_TRUE(mali::for_each_row(*rd, b, [&](const row& r) { pc.check(r); }).has_value());
    if (hz == 0) {
      EXPECT_EQ(pc.total_findings(), 0u) << "no clock given: no clock check";
    } else {
      ASSERT_EQ(pc.total_findings(), 1u);
      EXPECT_EQ(pc.findings()[0].report, 1u);
      EXPECT_EQ(pc.findings()[0].counter, "GPU_ACTIVE");
      EXPECT_EQ(pc.findings()[0].bound, 1000.0);
    }
  }
}

// The case: a G710 kinstr_prfcnt capture without GPU_ID decodes
// without error as a G72 (both have 64-value blocks), and the checks find it
// out, in every seed tried.
TEST(MaliPlausibility, AG710CaptureReadAsAG72IsFoundOut) {
  const mali::gpu_product& g710 = gpu_named("g710");
  const mali::gpu_product& g72 = gpu_named("g72");
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const mali::emulation e = emulate(g710, true, seed, false);
    const checked own = check_capture(g710, e.file);
    EXPECT_EQ(own.total, 0u) << "seed " << seed << ": "
                             << (own.findings.empty() ? "" : own.findings[0].describe());
    const checked wrong = check_capture(g72, e.file);
    EXPECT_EQ(wrong.rows, 8u);
    ASSERT_GT(wrong.total, 0u) << "seed " << seed;
    // Rows that carry the database's derived counters (any bus width) are
    // checked on those values: the same findings.
    const checked carried = check_capture(g72, e.file, 256);
    ASSERT_EQ(carried.total, wrong.total) << "seed " << seed;
    for (std::size_t i = 0; i < wrong.findings.size(); ++i) {
      EXPECT_EQ(carried.findings[i].describe(), wrong.findings[i].describe());
    }
    // Each finding names a counter or derived counter of the G72 and a
    // sample of the capture.
    for (const auto& f : wrong.findings) {
      bool derived = false;
      for (const auto& d : g72.table->derived) derived = derived || d.name == f.counter;
      EXPECT_TRUE(g72.table->find(f.counter).has_value() || derived) << f.describe();
      EXPECT_LT(f.report, 8u);
    }
  }
}

// Every product's own emulated captures, both readers where the GPU has
// them, raise no finding.
TEST(MaliPlausibility, EveryGpusOwnCapturesRaiseNoFinding) {
  for (const mali::gpu_product& p : mali::gpus::products) {
    for (const bool kinstr : {false, true}) {
      if (!kinstr && p.table->values_per_block != mali::counters_per_block) continue;
      const mali::emulation e = emulate(p, kinstr, p.product_id);
      const checked c = check_capture(p, e.file);
      EXPECT_EQ(c.rows, 8u);
      EXPECT_EQ(c.total, 0u) << p.name << (kinstr ? " kinstr: " : " vinstr: ")
                             << (c.findings.empty() ? "" : c.findings[0].describe());
    }
  }
}

class MaliPlausibilityTool : public hwpc::testing::tool_test {};

// hwpc mali on a G710 capture without GPU_ID: as a G710 nothing is said; as a
// G72 the rows are still written (exit 0) and stderr names counters and samples.
TEST_F(MaliPlausibilityTool, AWrongGpuIsReportedOnStderr) {
  const mali::emulation e = emulate(gpu_named("g710"), true, 3, false);
  const std::string file = (dir_ / "g710.bin").string();
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(e.file.data()),
              static_cast<std::streamsize>(e.file.size()));
  }
  // stderr alone: the tool's stdout to /dev/null, its stderr into the pipe.
  auto stderr_of = [](const std::string& args) {
    return hwpc::testing::run_command(std::string(HWPC_TOOL_PATH) + " " + args +
                                      " 2>&1 >/dev/null");
  };
  auto r = stderr_of("mali --gpu g710 " + file);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  r = stderr_of("mali --gpu g72 " + file);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("hwpc mali: warning: sample "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("under Mali-G72"), std::string::npos) << r.out;
  r = hwpc::testing::run_tool("mali --gpu g72 " + file, true);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 9) << "header + 8 rows on stdout";
  EXPECT_EQ(hwpc::testing::run_tool("mali --gpu g72 --max-clock-mhz 0 " + file).status, 1);
}

}  // namespace
