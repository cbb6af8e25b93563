// Counter scaling as Arm's sampler applies it (FACTS-mali section 6): a counter
// whose hardware layout gives it shift="n" is reported as value << n. The
// generated tables carry every shift of the layouts; counter columns (sums and
// per instance), derived counters and --summary totals all use the scaled
// value; a shifted value that would not fit in 64 bits saturates.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "hwpc/mali.hpp"
#include "hwpc/mali/rows.hpp"
#include "mali_test_util.hpp"

namespace {

using namespace hwpc;
namespace fs = std::filesystem;

const mali::gpu_product& gpu_named(const char* name) {
  auto g = mali::find_gpu(name);
  EXPECT_TRUE(g.has_value()) << name;
  return **g;
}

// The attribute `attr` of the <Counter> element starting at `at`, or "".
std::string attribute(const std::string& s, std::size_t at, const std::string& attr) {
  const std::size_t end = s.find("/>", at);
  const std::size_t a = s.find(" " + attr + "=\"", at);
  if (a == std::string::npos || a > end) return {};
  const std::size_t v = a + attr.size() + 3;
  return s.substr(v, s.find('"', v) - v);
}

// Every counter of every layout file has the shift its <Counter> gives (0
// when it gives none), read here with the test's own scan of the XML.
TEST(MaliScaling, TablesCarryEveryShiftOfTheLayouts) {
  const fs::path dir = fs::path(HWPC_SHARED_DIR) / "data" / "mali" / "hardwarelayout";
  if (!fs::exists(dir)) GTEST_SKIP() << "../shared is absent: " << dir;
  std::size_t files = 0, shifted = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".xml") continue;
    std::ifstream in(e.path());
    const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t g = s.find("gpu=\"");
    ASSERT_NE(g, std::string::npos) << e.path();
    const std::string key = s.substr(g + 5, s.find('"', g + 5) - g - 5);
    const mali::gpu_table* table = nullptr;
    for (const mali::gpu_table* t : mali::gpus::tables) {
      if (t->key == key) table = t;
    }
    ASSERT_NE(table, nullptr) << key;
    ++files;
    for (std::size_t at = s.find("<Counter "); at != std::string::npos;
         at = s.find("<Counter ", at + 1)) {
      const std::string name = attribute(s, at, "name");
      const std::string shift = attribute(s, at, "shift");
      const auto c = table->find(name);
      ASSERT_TRUE(c.has_value()) << key << " " << name;
      EXPECT_EQ(c->shift, shift.empty() ? 0 : std::stoi(shift)) << key << " " << name;
      if (!shift.empty() && shift != "0") ++shifted;
    }
  }
  EXPECT_EQ(files, 13u);
  // FRAG_SHADER_THREADS on 4 layouts, VCACHE_HIT and VBU_HIT on 2 each.
  EXPECT_EQ(shifted, 8u);
}

// FACTS-mali section 6, by hand, independent of the XML.
TEST(MaliScaling, TheShiftsArmApplies) {
  for (const char* g : {"g715", "g720", "g725", "g1-ultra"}) {
    const auto c = gpu_named(g).table->find("FRAG_SHADER_THREADS");
    ASSERT_TRUE(c.has_value()) << g;
    EXPECT_EQ(c->id.index, 69u) << g;
    EXPECT_EQ(c->shift, 2u) << g;
  }
  for (const char* g : {"g725", "g1-ultra"}) {
    for (const char* n : {"VCACHE_HIT", "VBU_HIT"}) {
      EXPECT_EQ(gpu_named(g).table->find(n)->shift, 4u) << g << " " << n;
    }
  }
  EXPECT_EQ(gpu_named("g715").table->find("VCACHE_HIT")->shift, 0u);
  // The G710 has no FRAG_SHADER_THREADS at all: reading ->shift of the empty optional was
  // undefined (0 by chance in some builds, 0x70 in g++'s sanitizer build).
  EXPECT_FALSE(gpu_named("g710").table->find("FRAG_SHADER_THREADS").has_value());
}

TEST(MaliScaling, AShiftedValueThatDoesNotFitSaturates) {
  EXPECT_EQ(mali::scale_counter(5, 0), 5u);
  EXPECT_EQ(mali::scale_counter(5, 2), 20u);
  EXPECT_EQ(mali::scale_counter(0x3fff'ffff'ffff'ffffull, 2), 0xffff'ffff'ffff'fffcull);
  EXPECT_EQ(mali::scale_counter(0x4000'0000'0000'0000ull, 2), ~std::uint64_t{0});
  EXPECT_EQ(mali::scale_counter(0x1000'0000'0000'0000ull, 4), ~std::uint64_t{0});
  EXPECT_EQ(mali::scale_counter(0x0fff'ffff'ffff'ffffull, 4), 0xffff'ffff'ffff'fff0ull);
}

struct decoded_row {
  std::map<std::string, std::uint64_t> counters;
  std::map<std::string, double> metrics;
};

// One kinstr_prfcnt sample of `gpu` (two L2 slices, cores 0 and 1), decoded
// through the reader and the row builder.
decoded_row decode_one(const mali::gpu_product& gpu, const mali_test::kinstr_sample_spec& s,
                       bool per_instance, std::vector<cell>* summary_metrics = nullptr) {
  mali_test::kinstr_buffer buf(gpu.table->values_per_block);
  buf.add(s);
  const mali::sample_layout layout{.l2_slices = 2, .core_mask = 0b11};
  auto ev = mali::evaluator::database(*gpu.table, layout, 128);
  EXPECT_TRUE(ev.has_value());
  auto rd = mali::kinstr_reader::make(*gpu.table, layout, buf.bytes);
  EXPECT_TRUE(rd.has_value()) << rd.error_value().describe();
  mali::row_options o;
  if (per_instance) o.per_instance = layout;
  mali::row_builder b(gpu, &*ev, o);
  decoded_row out;
  std::vector<std::uint64_t> totals;
  auto acc = mali::for_each_row(*rd, b, [&](const row& r) {
    totals.assign(r.counters.begin(), r.counters.end());
    for (std::size_t i = 0; i < r.counters.size(); ++i) {
      out.counters[b.schema().counters[i].name] = r.counters[i];
    }
    for (std::size_t i = 0; i < r.metrics.size(); ++i) {
      out.metrics[b.schema().metrics[i].name] = r.metrics[i].as_double();
    }
  });
  EXPECT_TRUE(acc.has_value());
  if (summary_metrics != nullptr) {
    totals.resize(gpu.table->counters.size());
    EXPECT_TRUE(b.metrics_of(totals, *summary_metrics).has_value());
  }
  return out;
}

// The case: on a G715, FRAG_ACTIVE 6,247 cycles and 10,000 counted
// FRAG_SHADER_THREADS. Read raw, MaliFragThroughputCy would be 0.6247; Arm
// reports FRAG_SHADER_THREADS << 2 = 40,000 threads, so 0.156175.
TEST(MaliScaling, G715FragThroughputIsArmsGolden) {
  const mali::gpu_product& gpu = gpu_named("g715");
  std::vector<std::uint64_t> core0(128), core1(128), fe(128);
  core0[4] = 3000;   // FRAG_ACTIVE
  core1[4] = 3247;   // FRAG_ACTIVE
  core0[69] = 4000;  // FRAG_SHADER_THREADS, in units of 4 threads
  core1[69] = 6000;
  fe[4] = 7000;  // GPU_ACTIVE
  fe[6] = 7000;  // GPU_ITER_ACTIVE
  mali_test::kinstr_sample_spec s;
  s.ts_start = 0;
  s.ts_end = 10'000;
  s.seq = 1;
  s.blocks = {{0, 0, 0, 0x15, fe}, {1, 0, 0, 0x15, {}},    {2, 0, 0, 0x15, {}},
              {2, 1, 0, 0x15, {}}, {3, 0, 0, 0x15, core0}, {3, 1, 0, 0x15, core1}};
  std::vector<cell> summary;
  const decoded_row r = decode_one(gpu, s, true, &summary);
  EXPECT_EQ(r.counters.at("FRAG_SHADER_THREADS"), 40'000u);
  EXPECT_EQ(r.counters.at("core0.FRAG_SHADER_THREADS"), 16'000u);
  EXPECT_EQ(r.counters.at("core1.FRAG_SHADER_THREADS"), 24'000u);
  EXPECT_EQ(r.counters.at("FRAG_ACTIVE"), 6'247u);  // no shift: unchanged
  EXPECT_DOUBLE_EQ(r.metrics.at("MaliFragThroughputCy"), 6247.0 / 40000.0);
  // The --summary path evaluates totals of scaled columns: not shifted twice.
  auto ev = mali::evaluator::database(*gpu.table, {.l2_slices = 2, .core_mask = 0b11}, 128);
  const auto i = ev->metrics().find("MaliFragThroughputCy");
  ASSERT_TRUE(i);
  ASSERT_LT(*i, summary.size());
  EXPECT_DOUBLE_EQ(summary[*i].as_double(), 6247.0 / 40000.0);
  // The evaluator over the readers' (raw) sums scales too.
  mali::block_sums raw;
  raw.values[3][4] = 6247;
  raw.values[3][69] = 10'000;
  std::vector<expr::value> out(ev->size());
  ASSERT_TRUE(ev->evaluate(raw, out).has_value());
  EXPECT_DOUBLE_EQ(out[*i].as_double(), 6247.0 / 40000.0);
}

// G725: VCACHE_HIT and VBU_HIT x16 in the column and in the hit rates that
// read them; a shifted sum past 2^64 - 1 saturates instead of wrapping.
TEST(MaliScaling, G725TilerHitsAndSaturation) {
  const mali::gpu_product& gpu = gpu_named("immortalis-g925");
  std::vector<std::uint64_t> tiler(128), core(128);
  tiler[26] = 5;                        // VCACHE_HIT
  tiler[34] = 7;                        // VBU_HIT
  core[69] = 0x4000'0000'0000'0000ull;  // FRAG_SHADER_THREADS: << 2 does not fit
  mali_test::kinstr_sample_spec s;
  s.ts_end = 10;
  s.seq = 1;
  s.blocks = {{0, 0, 0, 0x15, {}}, {1, 0, 0, 0x15, tiler}, {2, 0, 0, 0x15, {}},
              {2, 1, 0, 0x15, {}}, {3, 0, 0, 0x15, core},  {3, 1, 0, 0x15, {}}};
  const decoded_row r = decode_one(gpu, s, false);
  EXPECT_EQ(r.counters.at("VCACHE_HIT"), 80u);
  EXPECT_EQ(r.counters.at("VBU_HIT"), 112u);
  EXPECT_EQ(r.counters.at("FRAG_SHADER_THREADS"), ~std::uint64_t{0});
}

}  // namespace
