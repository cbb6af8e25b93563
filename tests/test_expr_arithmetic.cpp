// The two arithmetics of integer products and quotients used as doubles
// (expr/arithmetic.hpp): metrics-discovery's exact fraction (the default) and
// IGT's literal truncation, each against hand-computed values, with the
// compile-time, scalar and batch evaluators agreeing bit for bit in both.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hwpc/expr.hpp"
#include "tool_runner.hpp"
#include "xorshift.hpp"

namespace {

using hwpc::expr::arithmetic;
using hwpc::expr::syntax;
using hwpc::expr::value;
namespace ex = hwpc::expr;

// ---- compile time ---------------------------------------------------------

// LNL-shaped EU percentage: 40 XeCore-cycles over 64 XVEs and 50 clocks.
// IGT: 40 / 64 = 0, x100 = 0, / 50 = 0. Metrics-discovery: 100 * 40 / (64 * 50) = 1.25.
constexpr auto eu_active_mdapi =
    ex::compile_static<"PEC 4 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
                       syntax::rpn, "PEC4", "EuCoresTotalCount", "GpuCoreClocks">();
static_assert(eu_active_mdapi(40, 64, 50) == value::f(1.25));
constexpr auto eu_active_igt =
    ex::compile_static_as<arithmetic::igt,
                          "PEC 4 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
                          syntax::rpn, "PEC4", "EuCoresTotalCount", "GpuCoreClocks">();
static_assert(eu_active_igt(40, 64, 50) == value::f(0.0));
// A quotient that stays an integer is an integer division in both.
constexpr auto gpu_time =
    ex::compile_static<"GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV", syntax::rpn,
                       "GPU_TIME", "GpuTimestampFrequency">();
static_assert(gpu_time(7, 19'200'000) == value::u(364));  // 7e9 / 19.2e6 = 364.58

// ---- hand-computed values, every evaluator --------------------------------

struct hand_case {
  const char* text;
  std::vector<std::uint64_t> in;  // inputs in order of first use
  value mdapi;
  value igt;
};

std::vector<hand_case> hand_cases() {
  return {
      // TGL RenderBasic EuActive shape, one counter: 2,734,927 EU-cycles, 96 EUs,
      // 1,000,000 clocks. mdapi: 273,492,700 / 96,000,000 (both exact in double);
      // igt: 2,734,927 / 96 = 28,488 (truncated), x100, / 1e6.
      {"A 7 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
       {2'734'927, 96, 1'000'000},
       value::f(273'492'700.0 / 96'000'000.0),
       value::f(2'848'800.0 / 1'000'000.0)},
      // LNL: fewer cycles than XVEs reads 0 under igt.
      {"PEC 4 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
       {40, 64, 50},
       value::f(1.25),
       value::f(0.0)},
      // Gen12 sum of counters (doubles): the sum is not truncated under mdapi.
      {"A 7 READ A 8 READ FADD $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
       {1'000, 7, 96, 1'000},
       value::f(100'700.0 / 96'000.0),
       value::f(1'000.0 / 1'000.0)},  // 1007 / 96 = 10, x100 = 1000
      // Occupancy: 8 x / threads, then the EU percentage.
      {"8 A 15 READ FMUL $EuThreadsCount FDIV $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks "
       "FDIV",
       {1'000, 7, 96, 1'000},
       value::f(8'000.0 / 7.0 * 100.0 / (96.0 * 1'000.0)),
       value::f(1'100.0 / 1'000.0)},  // 8000 / 7 = 1142.86 -> 1142 / 96 = 11, x100
      // HSW: two divisions and two constant factors: x * 800 / ((EUs * threads) * clocks).
      {"A 5 READ 8 UMUL $EuCoresTotalCount UDIV $EuThreadsCount UDIV 100 UMUL $GpuCoreClocks FDIV",
       {1'234, 20, 7, 1'000},
       value::f(987'200.0 / (140.0 * 1'000.0)),
       value::f(7'000.0 / 1'000.0)},  // 9872 / 20 = 493, / 7 = 70, x100 = 7000
      // A quotient used as a double without an FDIV after it: N / D.
      {"A 0 READ $EuCoresTotalCount UDIV 0.5 FADD", {7, 2}, value::f(4.0), value::f(3.5)},
      // Divisions by zero give 0 in both.
      {"A 7 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
       {5, 0, 10},
       value::f(0.0),
       value::f(0.0)},
      {"A 7 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
       {500, 4, 0},
       value::f(0.0),
       value::f(0.0)},
      // Left alone by both: a product without a UDIV, an integer result.
      {"A 0 READ 100 UMUL $GpuCoreClocks FDIV", {3, 8}, value::f(37.5), value::f(37.5)},
      {"GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV",
       {7, 19'200'000},
       value::u(364),
       value::u(364)},
      {"A 3 READ 2 UDIV", {9}, value::u(4), value::u(4)},
  };
}

ex::symbol_table symbols() {
  ex::symbol_table s;
  s.allow_raw_counters();
  for (const char* n :
       {"EuCoresTotalCount", "GpuCoreClocks", "EuThreadsCount", "GpuTimestampFrequency"}) {
    s.add(n);
  }
  return s;
}

// The inputs in the formula's input order: counters first by the case's
// order of names, resolved by name.
std::vector<std::uint64_t> ordered(const ex::formula& f, const hand_case& c) {
  // The case lists counters (in order of first use), then variables in order
  // of first use; map by walking the formula's text.
  std::vector<std::string> names;
  const std::string t = c.text;
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t j = t.find(' ', i);
    if (j == std::string::npos) j = t.size();
    const std::string tok = t.substr(i, j - i);
    if (!tok.empty() && tok[0] == '$') names.push_back(tok.substr(1));
    if (tok == "READ") {
      // previous two tokens: bank, index
      const std::size_t e = i - 1;
      const std::size_t s2 = t.rfind(' ', e - 1);
      const std::size_t s1 = t.rfind(' ', s2 - 1);
      const std::string bank = t.substr(s1 == std::string::npos ? 0 : s1 + 1,
                                        s2 - (s1 == std::string::npos ? 0 : s1 + 1));
      const std::string idx = t.substr(s2 + 1, e - s2 - 1);
      names.push_back(bank == "GPU_TIME" || bank == "GPU_CLOCK" ? bank : bank + idx);
    }
    i = j + 1;
  }
  std::vector<std::string> unique;
  for (const auto& n : names) {
    bool seen = false;
    for (const auto& u : unique) seen = seen || u == n;
    if (!seen) unique.push_back(n);
  }
  std::vector<std::uint64_t> out(f.inputs().size(), 0);
  for (std::size_t k = 0; k < f.inputs().size(); ++k) {
    for (std::size_t u = 0; u < unique.size(); ++u) {
      if (unique[u] == f.inputs()[k].name) out[k] = c.in.at(u);
    }
  }
  return out;
}

void check_mode(arithmetic a) {
  for (const hand_case& c : hand_cases()) {
    auto f = ex::compile(c.text, syntax::rpn, symbols(), a);
    ASSERT_TRUE(f) << c.text;
    const std::vector<std::uint64_t> in = ordered(*f, c);
    const value want = a == arithmetic::mdapi ? c.mdapi : c.igt;
    const value got = f->evaluate(in);
    EXPECT_EQ(got, want) << ex::to_string(a) << ": " << c.text << " gave " << got.as_double();
    // The batch evaluator over a column of the same row, twice.
    std::vector<std::vector<std::uint64_t>> cols(in.size());
    std::vector<const std::uint64_t*> colp;
    for (std::size_t k = 0; k < in.size(); ++k) {
      cols[k].assign(3, in[k]);
      colp.push_back(cols[k].data());
    }
    std::vector<std::uint64_t> out(3);
    std::uint64_t* o[] = {out.data()};
    ex::batch_evaluator be(f->ir());
    ASSERT_TRUE(be.evaluate(colp, 3, o));
    for (const std::uint64_t bits : out) EXPECT_EQ(bits, want.bits) << c.text;
  }
}

TEST(ExprArithmetic, MdapiHandValues) { check_mode(arithmetic::mdapi); }
TEST(ExprArithmetic, IgtHandValues) { check_mode(arithmetic::igt); }

TEST(ExprArithmetic, DefaultIsMdapi) {
  auto f = ex::compile("PEC 4 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
                       syntax::rpn, symbols());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->evaluate(ordered(*f, hand_cases()[1])), value::f(1.25));
  EXPECT_EQ(ex::parse_arithmetic("igt"), arithmetic::igt);
  EXPECT_EQ(ex::parse_arithmetic("mdapi"), arithmetic::mdapi);
  EXPECT_FALSE(ex::parse_arithmetic("exact"));
}

// The compile-time evaluator against the scalar and batch ones, both modes,
// on the TGL case of hand_cases() and a sweep of inputs around it.
TEST(ExprArithmetic, CompileTimeEqualsScalarAndBatch) {
  constexpr auto tgl_mdapi =
      ex::compile_static<"A 7 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
                         syntax::rpn, "A7", "EuCoresTotalCount", "GpuCoreClocks">();
  constexpr auto tgl_igt =
      ex::compile_static_as<arithmetic::igt,
                            "A 7 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV",
                            syntax::rpn, "A7", "EuCoresTotalCount", "GpuCoreClocks">();
  static_assert(tgl_mdapi(2'734'927, 96, 1'000'000) == value::f(273'492'700.0 / 96'000'000.0));
  static_assert(tgl_igt(2'734'927, 96, 1'000'000) == value::f(2.8488));
  ex::symbol_table s;
  for (const char* n : {"A7", "EuCoresTotalCount", "GpuCoreClocks"}) s.add_counter(n);
  const char* text = "A 7 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV";
  for (const arithmetic a : {arithmetic::mdapi, arithmetic::igt}) {
    auto f = ex::compile(text, syntax::rpn, s, a);
    ASSERT_TRUE(f);
    hwpc::testing::xorshift64 g{0x5eed};
    std::vector<std::uint64_t> x(500), e(500), c(500), out(500);
    for (std::size_t r = 0; r < x.size(); ++r) {
      x[r] = g.below(10'000'000);
      e[r] = g.below(8) == 0 ? 0 : 1 + g.below(512);
      c[r] = g.below(8) == 0 ? 0 : g.below(2'000'000);
    }
    const std::uint64_t* cols[] = {x.data(), e.data(), c.data()};
    std::uint64_t* o[] = {out.data()};
    ex::batch_evaluator be(f->ir());
    ASSERT_TRUE(be.evaluate(cols, x.size(), o));
    for (std::size_t r = 0; r < x.size(); ++r) {
      const value st =
          a == arithmetic::mdapi ? tgl_mdapi(x[r], e[r], c[r]) : tgl_igt(x[r], e[r], c[r]);
      ASSERT_EQ(f->evaluate({x[r], e[r], c[r]}), st) << ex::to_string(a) << " row " << r;
      ASSERT_EQ(out[r], st.bits) << ex::to_string(a) << " row " << r;
    }
  }
}

// Random chains of UMUL/UDIV/FDIV/FADD over counters and constants, in both
// modes: scalar and batch agree bit for bit, constants and zeros included.
TEST(ExprArithmetic, RandomChainsBatchEqualsScalar) {
  hwpc::testing::xorshift64 g{0xa71e};
  const char* ops[] = {"UDIV", "UMUL", "UDIV", "FDIV", "FADD", "FMUL"};
  for (int round = 0; round < 400; ++round) {
    std::string text = "A 0 READ";
    const int n = 1 + static_cast<int>(g.below(6));
    for (int k = 0; k < n; ++k) {
      const std::uint64_t pick = g.below(4);
      std::string operand;
      if (pick == 0) {
        operand = std::to_string(g.below(5));  // 0 .. 4, zero divisors too
      } else if (pick == 1) {
        operand = "$EuCoresTotalCount";
      } else {
        operand = "A " + std::to_string(1 + g.below(3)) + " READ";
      }
      text += " " + operand + " " + ops[g.below(6)];
    }
    for (const arithmetic a : {arithmetic::mdapi, arithmetic::igt}) {
      auto f = ex::compile(text, syntax::rpn, symbols(), a);
      ASSERT_TRUE(f) << text;
      const std::size_t rows = 97;
      std::vector<std::vector<std::uint64_t>> cols(f->inputs().size(),
                                                   std::vector<std::uint64_t>(rows));
      std::vector<const std::uint64_t*> colp;
      for (auto& c : cols) {
        for (auto& v : c) v = g.below(8) == 0 ? 0 : g.below(1'000'000);
        colp.push_back(c.data());
      }
      std::vector<std::uint64_t> out(rows);
      std::uint64_t* o[] = {out.data()};
      ex::batch_evaluator be(f->ir());
      ASSERT_TRUE(be.evaluate(colp, rows, o));
      for (std::size_t r = 0; r < rows; ++r) {
        std::vector<std::uint64_t> one;
        for (const auto& c : cols) one.push_back(c[r]);
        ASSERT_EQ(out[r], f->evaluate(one).bits) << ex::to_string(a) << ": " << text;
      }
    }
  }
}

// ---- the tool --------------------------------------------------------------

TEST(ExprArithmetic, EvalCommandOption) {
  const std::string expr =
      "--syntax rpn --expr 'PEC 4 READ $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV' "
      "--var PEC4=40 --var EuCoresTotalCount=64 --var GpuCoreClocks=50";
  EXPECT_EQ(hwpc::testing::run_tool("eval " + expr).out, "1.25\n");
  EXPECT_EQ(hwpc::testing::run_tool("eval --arithmetic mdapi " + expr).out, "1.25\n");
  EXPECT_EQ(hwpc::testing::run_tool("eval --arithmetic igt " + expr).out, "0\n");
  const auto bad = hwpc::testing::run_tool("eval --arithmetic exact " + expr);
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("mdapi or igt"), std::string::npos) << bad.out;
}

}  // namespace
