// The infix front end (Arm Streamline expressions): precedence, functions,
// the Mali-G72 guide's formulas, and errors with their columns.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/expr.hpp"

namespace {

using hwpc::errc;
using hwpc::expr::syntax;
using hwpc::expr::value;

hwpc::result<hwpc::expr::formula> compile_infix(std::string_view text) {
  hwpc::expr::symbol_table s;
  s.add("X");
  s.add("Y");
  s.add("Z");
  s.add("MaliGPUCyclesGPUActive");
  s.allow_raw_counters();
  return hwpc::expr::compile(text, syntax::infix, s);
}

value eval(std::string_view text, std::uint64_t x = 0, std::uint64_t y = 0, std::uint64_t z = 0) {
  auto f = compile_infix(text);
  EXPECT_TRUE(f) << text << ": " << (f ? "" : f.error_value().describe());
  if (!f) return {};
  return f->evaluate({x, y, z, 0});
}

hwpc::error err(std::string_view text) {
  auto f = compile_infix(text);
  EXPECT_FALSE(f) << text;
  return f ? hwpc::error{} : f.error_value();
}

TEST(ExprInfix, ArithmeticIsDoubleWithUsualPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), value::f(7.0));
  EXPECT_EQ(eval("(1 + 2) * 3"), value::f(9.0));
  EXPECT_EQ(eval("10 - 4 - 3"), value::f(3.0)) << "left-associative";
  EXPECT_EQ(eval("8 / 4 / 2"), value::f(1.0));
  EXPECT_EQ(eval("1 / 3"), value::f(1.0 / 3.0)) << "a ratio is not truncated";
  EXPECT_EQ(eval("-2 * 3"), value::f(-6.0));
  EXPECT_EQ(eval("2 - -3"), value::f(5.0));
  EXPECT_EQ(eval("-(1 + 1)"), value::f(-2.0));
  EXPECT_EQ(eval("+4"), value::u(4)) << "unary plus keeps the operand";
  EXPECT_EQ(eval("7"), value::u(7)) << "a lone integer literal stays u64";
  EXPECT_EQ(eval("$X / $Y", 1, 0), value::f(0.0)) << "division by zero gives 0";
}

TEST(ExprInfix, NamesWithAndWithoutDollar) {
  EXPECT_EQ(eval("$X + Y", 2, 3), value::f(5.0));
  EXPECT_EQ(eval("A0 + $GPU_TIME"), value::f(0.0));
}

TEST(ExprInfix, VariadicMinMax) {
  EXPECT_EQ(eval("max(1, 5, 3)"), value::f(5.0));
  EXPECT_EQ(eval("min(4, 2, 3, 9)"), value::f(2.0));
  EXPECT_EQ(eval("max(7)"), value::f(7.0));
  EXPECT_EQ(eval("max(min($X / $Y * 100, 100), 0)", 3, 4), value::f(75.0));
  EXPECT_EQ(eval("max(min($X / $Y * 100, 100), 0)", 9, 4), value::f(100.0));
}

TEST(ExprInfix, ComparisonsLogicBitsAndConditional) {
  EXPECT_EQ(eval("1 < 2"), value::u(1));
  EXPECT_EQ(eval("2 <= 1"), value::u(0));
  EXPECT_EQ(eval("3 == 3.0"), value::u(1));
  EXPECT_EQ(eval("3 != 3"), value::u(0));
  EXPECT_EQ(eval("1 < 2 && 3 > 4 || 1"), value::u(1));
  EXPECT_EQ(eval("!0"), value::u(1));
  EXPECT_EQ(eval("0x12 & 2"), value::u(2));
  EXPECT_EQ(eval("1 << 4 >> 2"), value::u(4));
  EXPECT_EQ(eval("1 + 1 << 2"), value::u(8)) << "+ binds tighter than <<";
  EXPECT_EQ(eval("$X > 2 ? 10 : 20", 3), value::u(10));
  EXPECT_EQ(eval("$X > 2 ? 10 : 20", 1), value::u(20));
  EXPECT_EQ(eval("$X ? 1 : $Y ? 2 : 3", 0, 1), value::u(2)) << "right-associative";
  EXPECT_EQ(eval("1 ? 2 : 0.5"), value::f(2.0)) << "mixed branches meet as double";
}

TEST(ExprInfix, IntelOperatorsAsFunctions) {
  EXPECT_EQ(eval("usub(0, 1)"), value::u(~0ull));
  EXPECT_EQ(eval("udiv(7, 2)"), value::u(3));
  EXPECT_EQ(eval("udiv(7, 0)"), value::u(0));
  EXPECT_EQ(eval("umul(uadd(1, 2), 4)"), value::u(12));
  EXPECT_EQ(eval("umin(3, 9)"), value::u(3));
  EXPECT_EQ(eval("fmax(1, 2.5)"), value::f(2.5));
  EXPECT_EQ(eval("and(6, 3)"), value::u(2));
  EXPECT_EQ(eval("ugte(2, 2)"), value::u(1));
  EXPECT_EQ(eval("u64(2.9)"), value::u(2));
  EXPECT_EQ(eval("f64(3)"), value::f(3.0));
}

TEST(ExprInfix, Errors) {
  auto e = err("1 +");
  EXPECT_EQ(e.code, errc::syntax);
  EXPECT_EQ(e.offset, 4u);
  EXPECT_NE(e.message.find("missing operand"), std::string::npos);
  e = err("1 + * 2");
  EXPECT_EQ(e.offset, 5u);
  e = err("1 2");
  EXPECT_EQ(e.offset, 3u);
  EXPECT_NE(e.message.find("unexpected text"), std::string::npos);
  e = err("$Nope * 2");
  EXPECT_EQ(e.code, errc::unknown_name);
  EXPECT_EQ(e.offset, 1u);
  e = err("2 * Nope");
  EXPECT_EQ(e.code, errc::unknown_name);
  EXPECT_EQ(e.offset, 5u);
  e = err("median(1, 2)");
  EXPECT_EQ(e.code, errc::unknown_name);
  e = err("uadd(1)");
  EXPECT_EQ(e.code, errc::syntax);
  e = err("max()");
  EXPECT_EQ(e.code, errc::syntax);
  e = err("1, 2");
  EXPECT_EQ(e.offset, 2u);
  e = err("(1 2)");
  EXPECT_EQ(e.offset, 4u);
  e = err("1 ? 2");
  EXPECT_EQ(e.offset, 6u);
  e = err("1 = 2");
  EXPECT_EQ(e.offset, 3u);
  e = err("2x");
  EXPECT_EQ(e.offset, 2u);
  e = err(".5");
  EXPECT_EQ(e.offset, 1u);
  e = err("99999999999999999999 + 1");
  EXPECT_EQ(e.code, errc::out_of_range);
  e = err("");
  EXPECT_NE(e.message.find("empty"), std::string::npos);
}

TEST(ExprInfix, UnbalancedParenthesesPointAtTheCulprit) {
  auto e = err("((1 + 2)");
  EXPECT_EQ(e.code, errc::syntax);
  EXPECT_EQ(e.offset, 1u);
  EXPECT_NE(e.message.find("never closed"), std::string::npos);
  e = err("(1 + 2))");
  EXPECT_EQ(e.offset, 8u);
  EXPECT_NE(e.message.find("no matching '('"), std::string::npos);
  // Mali-G72 guide 4.5.5 "Late ZS tested quad percentage" has one ')' too many.
  e =
      err("max(min($MaliCoreQuadsLateZSTestedQuads / $MaliCoreQuadsRasterizedFineQuads) * 100,\n"
          "      100), 0)");
  EXPECT_EQ(e.code, errc::syntax);
  EXPECT_EQ(e.offset, 98u);
  EXPECT_NE(e.message.find("      100), 0)\n"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.substr(e.message.size() - 2), " ^") << e.message;
}

TEST(ExprInfix, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  deep += "1";
  deep += std::string(5000, ')');
  auto e = err(deep);
  EXPECT_NE(e.message.find("nested too deeply"), std::string::npos);
  std::string minus(5000, '-');
  e = err(minus + "1");
  EXPECT_NE(e.message.find("nested too deeply"), std::string::npos);
}

// Every code block of the Mali-G72 counter guide: the formulas compile (names
// bound to inputs), except the six that FACTS.md lists as unbalanced.
TEST(ExprInfix, EveryFormulaOfTheMaliGuide) {
  const std::filesystem::path guide =
      std::filesystem::path(HWPC_SHARED_DIR) / "seeds" / "arm-mali-g72-performance-counters.txt";
  if (!std::filesystem::exists(guide)) GTEST_SKIP() << "../shared is absent: " << guide;
  std::ifstream in(guide);
  std::string line, heading, block;
  bool inside = false;
  std::vector<std::pair<std::string, std::string>> formulas;  // heading, text
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      if (inside) formulas.emplace_back(heading, block);
      inside = !inside;
      block.clear();
      continue;
    }
    if (inside) {
      block += line + "\n";
    } else if (!line.empty() && line[0] >= '1' && line[0] <= '9' &&
               line.find("....") == std::string::npos && line.find('.') != std::string::npos &&
               line.find(' ') != std::string::npos) {
      heading = line;
    }
  }
  std::size_t compiled = 0;
  std::vector<std::string> unbalanced;
  for (const auto& [head, text] : formulas) {
    // CPU counters ("Cluster[0..N]") and the cycle-budget pseudo-code are not formulas.
    if (text.find('[') != std::string::npos || text.find(" = ") != std::string::npos) continue;
    hwpc::expr::builder b;
    std::map<std::string, std::uint32_t, std::less<>> inputs;
    auto resolve = [&](std::string_view n) {
      auto it = inputs.emplace(std::string(n), static_cast<std::uint32_t>(inputs.size())).first;
      return hwpc::expr::resolved::at(b.input(it->second, hwpc::expr::vtype::u64));
    };
    const auto r = hwpc::expr::parse_infix(text, b, resolve);
    if (r.status) {
      ++compiled;
    } else {
      EXPECT_NE(r.status.error.message.find("unbalanced parentheses"), std::string::npos)
          << head << ": " << hwpc::expr::to_error(text, r.status.error).describe();
      unbalanced.push_back(head.substr(0, head.find(' ')));
    }
  }
  std::printf("Mali-G72 guide: %zu formulas compile, %zu unbalanced\n", compiled,
              unbalanced.size());
  EXPECT_EQ(unbalanced,
            (std::vector<std::string>{"4.2.1", "4.2.2", "4.2.3", "4.2.4", "4.5.5", "6.1.2"}));
  EXPECT_GE(compiled, 50u);
}

TEST(ExprInfix, GuideFormulaValues) {
  // 3.3.1 Output external read bytes: beats * (bus width bits / 8).
  hwpc::expr::symbol_table s;
  s.add("MaliExternalBusBeatsReadBeats");
  s.add("MaliConstantsBusWidthBits");
  auto f = hwpc::expr::compile("$MaliExternalBusBeatsReadBeats * ($MaliConstantsBusWidthBits / 8)",
                               syntax::infix, s);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->evaluate({1000, 128}), value::f(16000.0));  // 1000 beats of 16 bytes
  // 3.2.3 Tiler utilization with the percentage clamped to [0, 100].
  hwpc::expr::symbol_table t;
  t.add("MaliGPUCyclesTilerActive");
  t.add("MaliGPUCyclesGPUActive");
  auto g = hwpc::expr::compile(
      "max(min(($MaliGPUCyclesTilerActive / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
      syntax::infix, t);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->evaluate({250, 1000}), value::f(25.0));
  EXPECT_EQ(g->evaluate({250, 0}), value::f(0.0));  // idle GPU: 0, not NaN
}

}  // namespace
