// The Mali-G72 guide's derived counters over hand-built samples: values worked
// out by hand, the six repaired expressions, compile-time forms, batch versus
// scalar, and the table against the guide's text.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/expr/consteval.hpp"
#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/g72_metrics.hpp"
#include "hwpc/mali/gpus/index.hpp"
#include "mali_test_util.hpp"

namespace {

using hwpc::errc;
using hwpc::expr::value;
using hwpc::mali::g72_evaluator;
using hwpc::mali::sample;
using hwpc::mali::sample_layout;

// Two L2 slices; cores 0, 1, 3 (bit 2 is a gap); 128-bit external bus.
constexpr sample_layout gapped{.l2_slices = 2, .core_mask = 0b1011};

mali_test::sample_bytes worked_sample() {
  mali_test::sample_bytes b(gapped);
  b.fill(6, 0xdeadbeef);  // the gap: never read
  b.front_end(6, 1000);   // GPU_ACTIVE
  b.tiler(4, 1500);       // TILER_ACTIVE (more than GPU_ACTIVE: clamps)
  b.tiler(11, 30);        // PRIM_VISIBLE
  b.tiler(12, 50);        // PRIM_CULLED (facing or XY plane)
  b.tiler(13, 10);        // PRIM_CLIPPED (Z plane)
  b.tiler(14, 10);        // PRIM_SAT_CULLED (sample test)
  b.memory(0, 32, 10);    // L2_EXT_READ_BEATS
  b.memory(1, 32, 20);
  b.memory(0, 33, 100);  // L2_EXT_AR_STALL
  b.memory(1, 33, 300);
  const std::uint32_t frag_active[] = {600, 900, 0, 300};
  const std::uint32_t lzs_test[] = {10, 20, 0, 30};
  const std::uint32_t quads_rast[] = {100, 100, 0, 40};
  for (std::size_t core : {0, 1, 3}) {
    b.core(core, 4, frag_active[core]);  // FRAG_ACTIVE
    b.core(core, 15, lzs_test[core]);    // FRAG_LZS_TEST
    b.core(core, 11, quads_rast[core]);  // FRAG_QUADS_RAST
    b.core(core, 26, 100);               // EXEC_CORE_ACTIVE
  }
  b.core(0, 50, 50);  // VARY_SLOT_32
  b.core(3, 51, 25);  // VARY_SLOT_16
  return b;
}

double metric(const g72_evaluator& ev, const std::vector<value>& out, std::string_view symbol) {
  const auto i = ev.metrics().find(symbol);
  EXPECT_TRUE(i) << symbol;
  return i ? out[*i].as_double() : -1.0;
}

TEST(MaliMetrics, WorkedByHand) {
  auto ev = g72_evaluator::create(gapped, 128);
  ASSERT_TRUE(ev) << ev.error_value().describe();
  ASSERT_EQ(ev->size(), hwpc::mali::g72_guide_expressions.size());
  const auto b = worked_sample();
  auto s = sample::parse(gapped, b.bytes);
  ASSERT_TRUE(s) << s.error_value().describe();
  std::vector<value> out(ev->size());
  ASSERT_TRUE(ev->evaluate(*s, out));

  // 5.3.2 Fragment utilization: FRAG_ACTIVE summed over cores 0, 1, 3 is
  // 600 + 900 + 300 = 1800; per core 1800 / 3 = 600; of GPU_ACTIVE 1000: 60%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "FragmentUtilization"), 60.0);
  // 3.4.1 Read stall rate: L2_EXT_AR_STALL 100 + 300 = 400 over 2 slices = 200
  // per slice; 200 / 1000 = 20%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "OutputExternalReadStallRate"), 20.0);
  // 3.3.1 Read bytes: L2_EXT_READ_BEATS 10 + 20 = 30 beats of 128 / 8 = 16 bytes.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "OutputExternalReadBytes"), 480.0);
  // 3.2.3 Tiler utilization: 1500 / 1000 = 150%, clamped to 100.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "TilerUtilization"), 100.0);
  // Repaired 4.2.1: input primitives 30 + 50 + 10 + 10 = 100; visible 30 -> 30%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "VisiblePrimitivesRate"), 30.0);
  // Repaired 4.2.2: 50 / 100 -> 50%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "FacingOrXYPlaneTestCullRate"), 50.0);
  // Repaired 4.2.3: Z plane 10 of those that passed facing/XY, 100 - 50 = 50 -> 20%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "ZPlaneTestCullRate"), 20.0);
  // Repaired 4.2.4: sample test 10 of 100 - 50 - 10 = 40 -> 25%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "SampleTestCullRate"), 25.0);
  // Repaired 4.5.5: FRAG_LZS_TEST 10 + 20 + 30 = 60 of FRAG_QUADS_RAST
  // 100 + 100 + 40 = 240 -> 25%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "LateZSTestedQuadPercentage"), 25.0);
  // Repaired 6.1.2: VARY_SLOT_32 50 + VARY_SLOT_16 25 = 75 of EXEC_CORE_ACTIVE
  // 3 * 100 = 300 -> 25%.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "VaryingUnitUtilization"), 25.0);
  // 11.1.x: the constants bound from the layout and the bus width.
  EXPECT_DOUBLE_EQ(metric(*ev, out, "ShaderCoreCount"), 3.0);
  EXPECT_DOUBLE_EQ(metric(*ev, out, "L2CacheSliceCount"), 2.0);
  EXPECT_DOUBLE_EQ(metric(*ev, out, "ExternalBusBeatSize"), 16.0);
  // 3.1.1 is the counter itself, kept as an integer.
  const auto active = ev->metrics().find("GPUActiveCycles");
  ASSERT_TRUE(active);
  EXPECT_EQ(out[*active], value::u(1000));
}

TEST(MaliMetrics, IdleSampleGivesZerosNotNaN) {
  auto ev = g72_evaluator::create(gapped, 128);
  ASSERT_TRUE(ev);
  mali_test::sample_bytes b(gapped);
  auto s = sample::parse(gapped, b.bytes);
  ASSERT_TRUE(s);
  std::vector<value> out(ev->size());
  ASSERT_TRUE(ev->evaluate(*s, out));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& e = hwpc::mali::g72_guide_expressions[i];
    if (e.section.rfind("11.", 0) == 0) continue;  // constants
    EXPECT_EQ(out[i].as_double(), 0.0) << e.section << " " << e.title;
  }
}

TEST(MaliMetrics, BatchMatchesScalar) {
  auto ev = g72_evaluator::create(gapped, 256);
  ASSERT_TRUE(ev);
  const auto b = worked_sample();
  auto s = sample::parse(gapped, b.bytes);
  ASSERT_TRUE(s);
  std::vector<value> out(ev->size());
  ASSERT_TRUE(ev->evaluate(*s, out));
  std::vector<std::uint64_t> raw(ev->metrics().inputs().size());
  ev->inputs(s->sums(), raw);
  std::vector<const std::uint64_t*> in_cols;
  for (auto& r : raw) in_cols.push_back(&r);
  std::vector<std::uint64_t> slots(ev->size());
  std::vector<std::uint64_t*> out_cols;
  for (auto& o : slots) out_cols.push_back(&o);
  auto batch = ev->metrics().batch();
  ASSERT_TRUE(batch.evaluate(in_cols, 1, out_cols));
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(slots[i], out[i].bits) << i;
}

TEST(MaliMetrics, ConfigurationErrors) {
  auto ev = g72_evaluator::create(gapped, 0);
  ASSERT_FALSE(ev);
  EXPECT_EQ(ev.error_value().code, errc::out_of_range);
  ev = g72_evaluator::create(gapped, 100);
  ASSERT_FALSE(ev) << "not a whole number of bytes";
  ev = g72_evaluator::create({.l2_slices = 0, .core_mask = 1}, 128);
  ASSERT_FALSE(ev);
  EXPECT_EQ(ev.error_value().code, errc::inconsistent);
  ev = g72_evaluator::create({.l2_slices = 1, .core_mask = 1}, 128);
  ASSERT_TRUE(ev);
  const auto b = worked_sample();
  auto s = sample::parse(gapped, b.bytes);
  ASSERT_TRUE(s);
  std::vector<value> out(ev->size());
  auto r = ev->evaluate(*s, out);
  ASSERT_FALSE(r) << "bound to another layout";
  EXPECT_EQ(r.error_value().code, errc::inconsistent);
}

// The six repairs: the guide's text does not parse, the repair does, and the
// two differ only in parentheses.
std::string without_parens_or_space(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '(' && c != ')' && c != ' ') out += c;
  }
  return out;
}

TEST(MaliMetrics, SixRepairedExpressions) {
  std::vector<std::string_view> repaired;
  for (const auto& e : hwpc::mali::g72_guide_expressions) {
    if (e.guide_text.empty()) continue;
    repaired.push_back(e.section);
    EXPECT_FALSE(hwpc::mali::detail::g72_expression_parses(e.guide_text)) << e.section;
    EXPECT_TRUE(hwpc::mali::detail::g72_expression_parses(e.formula)) << e.section;
    EXPECT_EQ(without_parens_or_space(e.guide_text), without_parens_or_space(e.formula))
        << e.section;
    EXPECT_EQ(e.formula.rfind("max(min((", 0), 0u) << e.section;
  }
  EXPECT_EQ(repaired,
            (std::vector<std::string_view>{"4.2.1", "4.2.2", "4.2.3", "4.2.4", "4.5.5", "6.1.2"}));
}

// The guide's text of 4.5.5 fails at compile time too; the repair compiles.
static_assert(!hwpc::mali::detail::g72_expression_parses(
    "max(min($MaliCoreQuadsLateZSTestedQuads / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), "
    "0)"));

TEST(MaliMetrics, CompileTimeFormOfAGuideExpression) {
  // 5.3.2 Fragment utilization as a constant-evaluated program: the worked
  // example's 1800 FRAG_ACTIVE cycles on 3 cores over 1000 GPU cycles.
  constexpr auto frag = hwpc::expr::compile_static<
      "max(min(($MaliCoreCyclesFragmentActive / $MaliConstantsShaderCoreCount / "
      "$MaliGPUCyclesGPUActive) * 100, 100), 0)",
      hwpc::expr::syntax::infix, "MaliCoreCyclesFragmentActive", "MaliConstantsShaderCoreCount",
      "MaliGPUCyclesGPUActive">();
  static_assert(frag(1800, 3, 1000) == value::f(60.0));
  static_assert(frag(1800, 3, 0) == value::f(0.0));
  EXPECT_EQ(frag(4000, 2, 1000), value::f(100.0));
}

// The table holds the guide's expressions: every code block of sections 3 to
// 11 (except 4.4's pseudo-code), in order, text equal up to white space.
TEST(MaliMetrics, TableMatchesTheGuide) {
  const std::filesystem::path guide =
      std::filesystem::path(HWPC_SHARED_DIR) / "seeds" / "arm-mali-g72-performance-counters.txt";
  if (!std::filesystem::exists(guide)) GTEST_SKIP() << "../shared is absent: " << guide;
  std::ifstream in(guide);
  std::string line, heading, block;
  bool inside = false;
  std::vector<std::pair<std::string, std::string>> blocks;  // section, text without spaces
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      if (inside) blocks.emplace_back(heading.substr(0, heading.find(' ')), block);
      inside = !inside;
      block.clear();
    } else if (inside) {
      for (char c : line) {
        if (c != ' ' && c != '\t' && c != '\r') block += c;
      }
    } else if (!line.empty() && line[0] >= '1' && line[0] <= '9' &&
               line.find("....") == std::string::npos) {
      heading = line;
    }
  }
  std::vector<std::pair<std::string, std::string>> expected;
  for (const auto& [section, text] : blocks) {
    if (section.rfind("2.", 0) == 0 || section == "4.4") continue;
    expected.emplace_back(section, text);
  }
  const auto& table = hwpc::mali::g72_guide_expressions;
  ASSERT_EQ(expected.size(), table.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& e = table[i];
    std::string text;
    for (char c : e.guide_text.empty() ? e.formula : e.guide_text) {
      if (c != ' ') text += c;
    }
    EXPECT_EQ(expected[i].first, e.section);
    EXPECT_EQ(expected[i].second, text) << e.section;
  }
}

}  // namespace

namespace {

// The GPU-neutral evaluator refuses to bind the G72 guide's names to a GPU
// whose table holds other counters at those positions.
TEST(MaliMetrics, TheGuideIsBoundToTheG72TableOnly) {
  using hwpc::mali::evaluator;
  namespace gpus = hwpc::mali::gpus;
  auto ok = evaluator::create(gpus::g72, hwpc::mali::g72_metric_set(),
                              hwpc::mali::g72_streamline_counters, gapped, 128);
  ASSERT_TRUE(ok) << ok.error_value().describe();
  EXPECT_EQ(&ok->table(), &gpus::g72);
  for (const auto* t : {&gpus::g78, &gpus::g720, &gpus::g1}) {
    auto ev = evaluator::create(*t, hwpc::mali::g72_metric_set(),
                                hwpc::mali::g72_streamline_counters, gapped, 128);
    ASSERT_FALSE(ev) << t->key;
    EXPECT_EQ(ev.error_value().code, errc::inconsistent);
    EXPECT_NE(ev.error_value().message.find("which on " + std::string(t->key) + " is"),
              std::string::npos)
        << ev.error_value().message;
  }
  // The G72 wrapper and the neutral evaluator give the same values.
  auto g72 = g72_evaluator::create(gapped, 128);
  ASSERT_TRUE(g72);
  const auto b = worked_sample();
  auto s = sample::parse(gapped, b.bytes);
  ASSERT_TRUE(s);
  std::vector<value> x(g72->size()), y(ok->size());
  ASSERT_TRUE(g72->evaluate(*s, x));
  ASSERT_TRUE(ok->evaluate(*s, y));
  EXPECT_EQ(x, y);
}

}  // namespace

// The header's static_assert of the same runs under GCC only (clang's default
// constexpr step budget runs out there): every guide expression parses.
TEST(MaliMetrics, EveryGuideExpressionParses) {
  EXPECT_TRUE(hwpc::mali::detail::every_g72_expression_parses());
  for (const auto& e : hwpc::mali::g72_guide_expressions) {
    EXPECT_TRUE(hwpc::mali::detail::g72_expression_parses(e.formula)) << e.formula;
  }
}
