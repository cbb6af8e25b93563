// The RPN front end (Intel metric XML equations): every token the corpus uses,
// the operand order, and every error with its column.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "hwpc/expr.hpp"

namespace {

using hwpc::errc;
using hwpc::expr::syntax;
using hwpc::expr::value;

// Compiles text as RPN with raw counters allowed and X, Y, Z declared (u64),
// then evaluates with inputs X=xv, Y=yv, Z=zv and raw counters 0.
hwpc::result<hwpc::expr::formula> compile_rpn(std::string_view text) {
  hwpc::expr::symbol_table s;
  s.add("X");
  s.add("Y");
  s.add("Z");
  s.allow_raw_counters();
  return hwpc::expr::compile(text, syntax::rpn, s);
}

value eval(std::string_view text, std::uint64_t x = 0, std::uint64_t y = 0, std::uint64_t z = 0) {
  auto f = compile_rpn(text);
  EXPECT_TRUE(f) << text << ": " << (f ? "" : f.error_value().describe());
  if (!f) return {};
  return f->evaluate({x, y, z});
}

hwpc::error err(std::string_view text) {
  auto f = compile_rpn(text);
  EXPECT_FALSE(f) << text;
  return f ? hwpc::error{} : f.error_value();
}

TEST(ExprRpn, NumbersDecimalHexAndDecimalPoint) {
  EXPECT_EQ(eval("42"), value::u(42));
  EXPECT_EQ(eval("0x12"), value::u(18));
  EXPECT_EQ(eval("0x01"), value::u(1));
  EXPECT_EQ(eval("0XfF"), value::u(255));
  EXPECT_EQ(eval("18446744073709551615"), value::u(~0ull));
  EXPECT_EQ(eval("0xffffffffffffffff"), value::u(~0ull));
  EXPECT_EQ(eval("1.5"), value::f(1.5));
  EXPECT_EQ(eval("2.5e3"), value::f(2500.0));
  EXPECT_EQ(eval("1e-3"), value::f(0.001));
  EXPECT_EQ(eval("0.1"), value::f(0.1));
  // Beyond the exact fast path, the run-time conversion is correctly rounded.
  EXPECT_EQ(eval("3.14159265358979323846264338327950288"), value::f(3.14159265358979323846));
  EXPECT_EQ(eval("true"), value::u(1));
  EXPECT_EQ(eval("false"), value::u(0));
}

TEST(ExprRpn, SecondPoppedIsTheLeftOperand) {
  EXPECT_EQ(eval("10 3 USUB"), value::u(7));
  EXPECT_EQ(eval("10 3 UDIV"), value::u(3));
  EXPECT_EQ(eval("1 4 <<"), value::u(16));
  EXPECT_EQ(eval("256 4 >>"), value::u(16));
  EXPECT_EQ(eval("3 4 ULT"), value::u(1));
  EXPECT_EQ(eval("3 4 UGT"), value::u(0));
  EXPECT_EQ(eval("1 2 FDIV"), value::f(0.5));
  EXPECT_EQ(eval("1 2 FSUB"), value::f(-1.0));
}

TEST(ExprRpn, EveryOperatorOfTheCorpus) {
  EXPECT_EQ(eval("2 3 UADD"), value::u(5));
  EXPECT_EQ(eval("2 3 UMUL"), value::u(6));
  EXPECT_EQ(eval("7 3 UMIN"), value::u(3));
  EXPECT_EQ(eval("0.5 0.25 FADD"), value::f(0.75));
  EXPECT_EQ(eval("1.5 2 FMUL"), value::f(3.0));
  EXPECT_EQ(eval("1.5 2 FMAX"), value::f(2.0));
  EXPECT_EQ(eval("0x12 0x02 AND"), value::u(2));
  EXPECT_EQ(eval("4 4 UGTE"), value::u(1));
  EXPECT_EQ(eval("4 4 ULTE"), value::u(1));
  EXPECT_EQ(eval("5 4 ULTE"), value::u(0));
  EXPECT_EQ(eval("true 0 &&"), value::u(0));
  EXPECT_EQ(eval("true 7 &&"), value::u(1));
}

TEST(ExprRpn, UnsignedOpsWrapAndDivisionByZeroIsZero) {
  EXPECT_EQ(eval("0 1 USUB"), value::u(~0ull));
  EXPECT_EQ(eval("0xffffffffffffffff 1 UADD"), value::u(0));
  EXPECT_EQ(eval("0x8000000000000000 2 UMUL"), value::u(0));
  EXPECT_EQ(eval("$X 0 UDIV", 5), value::u(0));
  EXPECT_EQ(eval("$X $Y UDIV", 5, 0), value::u(0));
  EXPECT_EQ(eval("$X $Y FDIV", 5, 0), value::f(0.0));
  EXPECT_EQ(eval("1 64 <<"), value::u(0));
  EXPECT_EQ(eval("1 63 <<"), value::u(1ull << 63));
  EXPECT_EQ(eval("$X $Y >>", 1, 1000), value::u(0));
}

TEST(ExprRpn, PromotionFOpsTakeDoublesUOpsComputeInDoubleThenTruncate) {
  // An F operator converts u64 operands to double; a U arithmetic operator
  // with a double operand computes in double and truncates the result toward
  // zero (saturating: negative -> 0), as the reference generator's C does.
  EXPECT_EQ(eval("3 2 FDIV"), value::f(1.5));
  EXPECT_EQ(eval("3 2 FDIV 2 UMUL"), value::u(3));    // 1.5 * 2 = 3.0, not 1 * 2
  EXPECT_EQ(eval("0 2.5 FSUB 1 UADD"), value::u(0));  // -2.5 + 1 = -1.5 -> 0
  EXPECT_EQ(eval("3 2 FDIV 2 UDIV"), value::u(0));    // UDIV truncates operands: 1 / 2
  EXPECT_EQ(eval("1e30 0 UADD"), value::u(~0ull));
  EXPECT_EQ(eval("0x20000000000001 0.0 FADD"), value::f(9007199254740992.0));  // rounds
}

TEST(ExprRpn, ReadNamesRawCountersOfEveryBank) {
  hwpc::expr::symbol_table s;
  s.allow_raw_counters();
  auto f = hwpc::expr::compile(
      "A 7 READ B 3 READ UADD C 0 READ UADD GPU_TIME 0 READ UADD GPU_CLOCK 0 READ UADD PERFCNT 1 "
      "READ UADD",
      syntax::rpn, s);
  ASSERT_TRUE(f) << f.error_value().describe();
  std::vector<std::string> names;
  for (const auto& in : f->inputs()) names.push_back(in.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"A7", "B3", "C0", "GPU_TIME", "GPU_CLOCK", "PERFCNT1"}));
  EXPECT_EQ(f->evaluate({1, 2, 4, 8, 16, 32}), value::u(63));
}

TEST(ExprRpn, ExtraWhiteSpaceIsFine) {
  // The corpus has double spaces ("64  C 5 READ ...") and trailing blanks.
  EXPECT_EQ(eval("  64  C 5 READ UMUL \n"), value::u(0));
  EXPECT_EQ(eval("$X 9 AND ", 0x1b), value::u(9));
}

TEST(ExprRpn, UnknownNameHasItsColumn) {
  const auto e = err("A 0 READ $Nope UADD");
  EXPECT_EQ(e.code, errc::unknown_name);
  EXPECT_EQ(e.anchor, hwpc::error_anchor::column);
  EXPECT_EQ(e.offset, 10u);
  EXPECT_NE(e.message.find("'$Nope'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("\n  A 0 READ $Nope UADD\n           ^"), std::string::npos)
      << e.message;
}

TEST(ExprRpn, StackUnderflowAndLeftovers) {
  auto e = err("A 0 READ UADD");
  EXPECT_EQ(e.code, errc::syntax);
  EXPECT_EQ(e.offset, 10u);
  EXPECT_NE(e.message.find("underflow"), std::string::npos);
  e = err("UMUL");
  EXPECT_EQ(e.offset, 1u);
  EXPECT_NE(e.message.find("no operands"), std::string::npos);
  e = err("1 2 3 UADD");
  EXPECT_EQ(e.offset, 3u) << "the second value from the bottom is the leftover";
  EXPECT_NE(e.message.find("left on the stack"), std::string::npos);
  e = err("   ");
  EXPECT_NE(e.message.find("empty formula"), std::string::npos);
}

TEST(ExprRpn, ReadMisuse) {
  auto e = err("0 READ");
  EXPECT_EQ(e.code, errc::syntax);
  EXPECT_EQ(e.offset, 3u);
  e = err("A READ");
  EXPECT_EQ(e.offset, 3u);
  e = err("A 1 UADD");
  EXPECT_EQ(e.offset, 1u) << e.message;
  EXPECT_NE(e.message.find("counter bank"), std::string::npos);
  e = err("A 300 READ");
  EXPECT_EQ(e.code, errc::out_of_range);
  EXPECT_EQ(e.offset, 3u);
  e = err("A 1.5 READ");
  EXPECT_EQ(e.code, errc::out_of_range);
  e = err("GPU_TIME");
  EXPECT_EQ(e.code, errc::syntax);
}

TEST(ExprRpn, BadWordsAndNumbers) {
  auto e = err("1 2 FOO");
  EXPECT_EQ(e.code, errc::syntax);
  EXPECT_EQ(e.offset, 5u);
  EXPECT_NE(e.message.find("$Name"), std::string::npos);
  e = err("1 2 +");
  EXPECT_EQ(e.offset, 5u);
  e = err("12abc");
  EXPECT_EQ(e.code, errc::syntax);
  EXPECT_EQ(e.offset, 3u);
  e = err("18446744073709551616");
  EXPECT_EQ(e.code, errc::out_of_range);
  EXPECT_EQ(e.offset, 1u);
  e = err("1 0x10000000000000000 UADD");
  EXPECT_EQ(e.code, errc::out_of_range);
  EXPECT_EQ(e.offset, 3u);
  e = err("0x");
  EXPECT_EQ(e.code, errc::syntax);
  e = err("1e999");
  EXPECT_EQ(e.code, errc::out_of_range);
  e = err("$ 1 UADD");
  EXPECT_EQ(e.code, errc::syntax);
  e = err("$9a");
  EXPECT_EQ(e.code, errc::syntax);
}

TEST(ExprRpn, NeverCrashesOnRandomText) {
  // Random bytes from the formula alphabet: every outcome is a value or an
  // error with a column inside (or one past) the text.
  const std::string alphabet = "0123456789xABCDEFRUMLTGPIN_$ ().<>&:e-+";
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int i = 0; i < 5000; ++i) {
    std::string t;
    const std::size_t len = next() % 24;
    for (std::size_t k = 0; k < len; ++k) t += alphabet[next() % alphabet.size()];
    for (auto s : {syntax::rpn, syntax::infix}) {
      hwpc::expr::symbol_table syms;
      syms.allow_raw_counters();
      auto f = hwpc::expr::compile(t, s, syms);
      if (!f) {
        EXPECT_GE(f.error_value().offset, 1u);
        EXPECT_LE(f.error_value().offset, t.size() + 1) << t;
      }
    }
  }
}

}  // namespace
