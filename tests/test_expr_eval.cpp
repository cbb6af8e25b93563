// Evaluation: the semantics of every operator, folding and sharing, the
// compile-time evaluator, scalar vs batch bit for bit, RPN vs infix on
// thousands of random formulas, and the `hwpc eval` command.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "hwpc/expr.hpp"
#include "tool_runner.hpp"
#include "xorshift.hpp"

namespace {

using hwpc::errc;
using hwpc::expr::op;
using hwpc::expr::syntax;
using hwpc::expr::value;
using hwpc::expr::vtype;
namespace ex = hwpc::expr;

// ---- compile time ---------------------------------------------------------

// SKL GT2 RenderBasic GpuTime: 12000 ticks at 12 MHz = 1 ms = 1000000 ns.
constexpr auto gpu_time =
    ex::compile_static<"GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV", syntax::rpn,
                       "GPU_TIME", "GpuTimestampFrequency">();
static_assert(gpu_time(12000, 12'000'000) == value::u(1'000'000));
static_assert(gpu_time(12000, 0) == value::u(0));  // division by zero gives 0

constexpr auto tiler = ex::compile_static<"max(min(($Tiler / $Active) * 100, 100), 0)",
                                          syntax::infix, "Tiler", "Active">();
static_assert(tiler(1, 4) == value::f(25.0));
static_assert(tiler(9, 4) == value::f(100.0));
static_assert(tiler.type() == vtype::f64);

constexpr auto folded = ex::compile_static<"2 * 3 + 0.5", syntax::infix>();
static_assert(folded.is_constant() && folded() == value::f(6.5));

// A misspelt name or a syntax error in compile_static stops the build; check()
// is the same parse as a constant expression, so the error is testable.
static_assert(!ex::check("GPU_TIME 0 READ $GpuTimestampFreq UDIV", syntax::rpn,
                         {"GPU_TIME", "GpuTimestampFrequency"}));
static_assert(ex::check("GPU_TIME 0 READ $GpuTimestampFreq UDIV", syntax::rpn,
                        {"GPU_TIME", "GpuTimestampFrequency"})
                  .error.code == errc::unknown_name);
static_assert(ex::check("GPU_TIME 0 READ $GpuTimestampFreq UDIV", syntax::rpn,
                        {"GPU_TIME", "GpuTimestampFrequency"})
                  .error.column == 17);
static_assert(
    ex::check("max(min($A / $B) * 100, 100), 0)", syntax::infix, {"A", "B"}).error.column == 32);
static_assert(ex::check("1 2 3 UADD", syntax::rpn).error.column == 3);
static_assert(ex::check("1.0000000000000000000001", syntax::rpn).error.code == errc::out_of_range,
              "no correctly rounded conversion at compile time");

TEST(ExprEval, CompileTimeErrorsAreValues) {
  const auto s = ex::check("A 0 READ $Typo UADD", syntax::rpn, {"A0", "Tpyo"});
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.error.code, errc::unknown_name);
  EXPECT_EQ(s.error.column, 10u);
  EXPECT_TRUE(ex::check("A 0 READ $Tpyo UADD", syntax::rpn, {"A0", "Tpyo"}).ok);
  // The compile-time and run-time evaluators agree.
  ex::symbol_table syms;
  syms.add("Tiler");
  syms.add("Active");
  auto f = ex::compile("max(min(($Tiler / $Active) * 100, 100), 0)", syntax::infix, syms);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->evaluate({1, 3}), tiler(1, 3));
}

// ---- semantics ------------------------------------------------------------

TEST(ExprEval, ConversionsSaturate) {
  EXPECT_EQ(ex::f64_to_u64(2.99), 2u);
  EXPECT_EQ(ex::f64_to_u64(-0.5), 0u);
  EXPECT_EQ(ex::f64_to_u64(-7.0), 0u);
  EXPECT_EQ(ex::f64_to_u64(std::nan("")), 0u);
  EXPECT_EQ(ex::f64_to_u64(1e300), ~0ull);
  EXPECT_EQ(ex::f64_to_u64(18446744073709549568.0), 18446744073709549568ull);
  EXPECT_EQ(ex::u64_to_f64(~0ull), 18446744073709551616.0);
}

TEST(ExprEval, FloatEdgeCases) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto f = [](op o, double a, double b) {
    return ex::as_f64(ex::apply(o, ex::from_f64(a), ex::from_f64(b), 0));
  };
  EXPECT_EQ(f(op::fdiv, 1.0, 0.0), 0.0);
  EXPECT_EQ(f(op::fdiv, 1.0, -0.0), 0.0);
  EXPECT_EQ(f(op::fdiv, 0.0, 0.0), 0.0);
  EXPECT_EQ(f(op::fmax, nan, 2.0), 2.0);
  EXPECT_EQ(f(op::fmax, 2.0, nan), 2.0);
  EXPECT_EQ(f(op::fmin, nan, 3.0), 3.0);
  EXPECT_TRUE(std::signbit(f(op::fmax, -0.0, 0.0))) << "equal operands: the left one";
  EXPECT_EQ(ex::apply(op::fne, ex::from_f64(nan), ex::from_f64(nan), 0), 1u);
  EXPECT_EQ(ex::apply(op::feq, ex::from_f64(nan), ex::from_f64(nan), 0), 0u);
}

// ---- folding and sharing --------------------------------------------------

std::size_t count(const ex::program& p, op o) {
  std::size_t n = 0;
  for (const auto& x : p.nodes) n += x.code == o;
  return n;
}

TEST(ExprEval, ConstantsFoldAndSubexpressionsAreShared) {
  ex::symbol_table s;
  s.add("X");
  auto f = ex::compile("($X + 1) * ($X + 1) + (1 + $X)", syntax::infix, s);
  ASSERT_TRUE(f);
  EXPECT_EQ(count(f->ir(), op::fadd), 2u) << "X+1 and 1+X are one node";
  EXPECT_EQ(count(f->ir(), op::to_f64), 1u);
  EXPECT_EQ(f->evaluate({2}), value::f(12.0));
  auto g = ex::compile("2 3 UMUL 4 UADD 1 2 FDIV FMUL", syntax::rpn, s);
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->is_constant());
  EXPECT_EQ(g->ir().nodes.size(), 1u);
  EXPECT_EQ(g->evaluate({}), value::f(5.0));
  auto h = ex::compile("$X 1 UMUL 0 UADD", syntax::rpn, s);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->ir().nodes.size(), 1u) << "exact u64 identities";
}

TEST(ExprEval, BindingVariablesFolds) {
  ex::symbol_table s;
  s.add("EuCoresTotalCount");
  s.add_counter("A7");
  auto f = ex::compile("A 7 READ $EuCoresTotalCount UDIV 100 UMUL 2 $EuCoresTotalCount UMUL FDIV",
                       syntax::rpn, s);
  ASSERT_TRUE(f);
  std::vector<std::optional<value>> vars = {value::u(24), std::nullopt};
  const ex::program bound = ex::bind_variables(f->ir(), vars);
  ASSERT_EQ(bound.inputs.size(), 1u);
  EXPECT_EQ(bound.inputs[0].name, "A7");
  EXPECT_EQ(count(bound, op::input), 1u);
  std::vector<ex::slot> slots(bound.nodes.size());
  const std::uint64_t in[] = {4800};
  ex::run(bound.nodes, in, slots);
  EXPECT_EQ(ex::as_f64(slots[bound.outputs[0]]), 4800.0 / 24 * 100 / 48);
}

// ---- random formulas: infix vs RPN vs reference, batch vs scalar -----------

using rng = hwpc::testing::xorshift64;

constexpr int input_count = 6;

struct tree {
  op code = op::constant;  // constant, input or a binary operator
  value leaf;
  std::uint32_t input = 0;
  std::unique_ptr<tree> l, r;
};

constexpr op binary_ops[] = {op::uadd, op::usub, op::umul, op::udiv, op::umin, op::band,
                             op::shl,  op::shr,  op::ugt,  op::ugte, op::ult,  op::ulte,
                             op::land, op::fadd, op::fsub, op::fmul, op::fdiv, op::fmax};

std::unique_ptr<tree> random_tree(rng& g, int depth) {
  auto t = std::make_unique<tree>();
  if (depth == 0 || g.below(4) == 0) {
    switch (g.below(5)) {
      case 0:
      case 1:
        t->code = op::input;
        t->input = static_cast<std::uint32_t>(g.below(input_count));
        break;
      case 2: {
        const std::uint64_t smalls[] = {0, 1, 2, 3, 7, 63, 64, 100, 1000000000};
        t->leaf = value::u(smalls[g.below(9)]);
        break;
      }
      case 3:
        t->leaf = value::u(g.next() >> g.below(64));
        break;
      default: {
        const double ds[] = {0.0, 0.5, 1.5, 100.0, 1e-3, 12345.678, 1e20, 3.0};
        t->leaf = value::f(ds[g.below(8)]);
        break;
      }
    }
    return t;
  }
  t->code = binary_ops[g.below(std::size(binary_ops))];
  t->l = random_tree(g, depth - 1);
  t->r = random_tree(g, depth - 1);
  return t;
}

std::string literal(value v) {
  if (v.is_u64()) return std::to_string(v.bits);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v.as_double());
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string rpn(const tree& t) {
  if (t.code == op::constant) return literal(t.leaf);
  if (t.code == op::input) return "A " + std::to_string(t.input) + " READ";
  return rpn(*t.l) + " " + rpn(*t.r) + " " + std::string(ex::info(t.code).rpn);
}

std::string infix(const tree& t) {
  if (t.code == op::constant) return literal(t.leaf);
  if (t.code == op::input) return "A" + std::to_string(t.input);
  const std::string_view sym = ex::info(t.code).infix;
  const bool is_function = sym.front() >= 'a' && sym.front() <= 'z';
  if (is_function) return std::string(sym) + "(" + infix(*t.l) + ", " + infix(*t.r) + ")";
  return "(" + infix(*t.l) + " " + std::string(sym) + " " + infix(*t.r) + ")";
}

// An independent reading of docs/expressions.md, written with plain C++.
value reference(const tree& t, const std::uint64_t* in) {
  if (t.code == op::constant) return t.leaf;
  if (t.code == op::input) return value::u(in[t.input]);
  const value a = reference(*t.l, in), b = reference(*t.r, in);
  const bool is_float = ex::info(t.code).operand == ex::otype::f64;
  auto to_u = [](value v) -> std::uint64_t {
    if (v.is_u64()) return v.bits;
    const double d = v.as_double();
    if (std::isnan(d) || d < 0) return 0;
    if (d >= 18446744073709551616.0) return ~0ull;
    return static_cast<std::uint64_t>(d);
  };
  auto to_f = [](value v) { return v.is_u64() ? static_cast<double>(v.bits) : v.as_double(); };
  if (is_float) {
    const double x = to_f(a), y = to_f(b);
    switch (t.code) {
      case op::fadd:
        return value::f(x + y);
      case op::fsub:
        return value::f(x - y);
      case op::fmul:
        return value::f(x * y);
      case op::fdiv:
        return value::f(y == 0 ? 0.0 : x / y);
      default:  // fmax
        if (std::isnan(x)) return value::f(y);
        if (std::isnan(y)) return value::f(x);
        return value::f(x < y ? y : x);
    }
  }
  if (!a.is_u64() || !b.is_u64()) {
    // C's usual arithmetic conversions in the reference code generator's
    // `uint64_t t = l OP r;`: computed in double, truncated by the assignment.
    const double x = to_f(a), y = to_f(b);
    switch (t.code) {
      case op::uadd:
        return value::u(to_u(value::f(x + y)));
      case op::usub:
        return value::u(to_u(value::f(x - y)));
      case op::umul:
        return value::u(to_u(value::f(x * y)));
      case op::umin:  // NaN (not reachable from counters): the other operand
        if (std::isnan(x)) return value::u(to_u(b));
        if (std::isnan(y)) return value::u(to_u(a));
        return value::u(to_u(value::f(y < x ? y : x)));
      case op::ugt:
        return value::u(x > y);
      case op::ugte:
        return value::u(x >= y);
      case op::ult:
        return value::u(x < y);
      case op::ulte:
        return value::u(x <= y);
      default:
        break;  // UDIV, AND, shifts, &&: operands truncated first
    }
  }
  const std::uint64_t x = to_u(a), y = to_u(b);
  switch (t.code) {
    case op::uadd:
      return value::u(x + y);
    case op::usub:
      return value::u(x - y);
    case op::umul:
      return value::u(x * y);
    case op::udiv:
      return value::u(y == 0 ? 0 : x / y);
    case op::umin:
      return value::u(std::min(x, y));
    case op::band:
      return value::u(x & y);
    case op::shl:
      return value::u(y >= 64 ? 0 : x << y);
    case op::shr:
      return value::u(y >= 64 ? 0 : x >> y);
    case op::ugt:
      return value::u(x > y);
    case op::ugte:
      return value::u(x >= y);
    case op::ult:
      return value::u(x < y);
    case op::ulte:
      return value::u(x <= y);
    default:  // land
      return value::u(x != 0 && y != 0);
  }
}

bool same_bits(value a, value b) {
  if (a.type != b.type) return false;
  if (a.is_u64()) return a.bits == b.bits;
  const double x = a.as_double(), y = b.as_double();
  return a.bits == b.bits || (std::isnan(x) && std::isnan(y));  // NaN payloads may differ
}

std::uint64_t random_input(rng& g) {
  switch (g.below(4)) {
    case 0:
      return 0;
    case 1:
      return g.below(100);
    case 2:
      return ~0ull - g.below(4);
    default:
      return g.next() >> g.below(64);
  }
}

TEST(ExprEval, RandomFormulasInfixEqualsRpnEqualsReference) {
  rng g{0x9e3779b97f4a7c15ull};
  ex::symbol_table syms;
  for (int i = 0; i < input_count; ++i) syms.add_counter("A" + std::to_string(i));
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto t = random_tree(g, 1 + static_cast<int>(g.below(6)));
    const std::string r = rpn(*t), f = infix(*t);
    // The reference is the operators' literal definition: IGT's arithmetic.
    // Metrics-discovery's rewrites both syntaxes alike.
    auto cr = ex::compile(r, syntax::rpn, syms, ex::arithmetic::igt);
    auto cf = ex::compile(f, syntax::infix, syms, ex::arithmetic::igt);
    auto mr = ex::compile(r, syntax::rpn, syms);
    auto mf = ex::compile(f, syntax::infix, syms);
    ASSERT_TRUE(cr) << r << "\n" << cr.error_value().describe();
    ASSERT_TRUE(cf) << f << "\n" << cf.error_value().describe();
    ASSERT_TRUE(mr && mf) << r;
    for (int k = 0; k < 4; ++k) {
      std::uint64_t in[input_count];
      for (auto& v : in) v = random_input(g);
      const value vr = cr->evaluate(in), vf = cf->evaluate(in), ref = reference(*t, in);
      ASSERT_TRUE(same_bits(vr, vf)) << r << "\n" << f;
      ASSERT_TRUE(same_bits(mr->evaluate(in), mf->evaluate(in))) << r << "\n" << f;
      ASSERT_TRUE(same_bits(vr, ref))
          << r << "\nreference " << ref.as_double() << " got " << vr.as_double();
      ++compared;
    }
  }
  std::printf("random formulas: %d evaluations agree (RPN, infix, reference)\n", compared);
}

TEST(ExprEval, BatchEqualsScalarBitForBit) {
  rng g{12345};
  ex::symbol_table syms;
  for (int i = 0; i < input_count; ++i) syms.add_counter("A" + std::to_string(i));
  const std::size_t rows = 1000;  // not a multiple of any block size below
  std::vector<std::vector<std::uint64_t>> cols(input_count, std::vector<std::uint64_t>(rows));
  for (auto& c : cols) {
    for (auto& v : c) v = random_input(g);
  }
  std::vector<const std::uint64_t*> in;
  for (const auto& c : cols) in.push_back(c.data());
  for (int i = 0; i < 1000; ++i) {
    // Several formulas in one program, as in a metric set, sharing nodes.
    ex::program p;
    ex::builder b;
    for (int k = 0; k < input_count; ++k) p.inputs.push_back(syms.inputs()[k]);
    auto resolve = [&](std::string_view n) -> ex::resolved {
      return ex::resolved::at(b.input(static_cast<std::uint32_t>(n[1] - '0'), vtype::u64));
    };
    for (int k = 0; k < 3; ++k) {
      const auto t = random_tree(g, 1 + static_cast<int>(g.below(6)));
      const auto r = ex::parse_rpn(rpn(*t), b, resolve);
      ASSERT_TRUE(r.status);
      p.outputs.push_back(r.root);
    }
    p.nodes = std::move(b).take();
    p = ex::compact(p, true);
    // The block the evaluator picks, and blocks of 64 and 333 rows: many
    // blocks, the last one partial.
    for (const std::size_t block_rows : {std::size_t{0}, std::size_t{64}, std::size_t{333}}) {
      std::vector<std::vector<std::uint64_t>> out(3, std::vector<std::uint64_t>(rows));
      std::vector<std::uint64_t*> outp = {out[0].data(), out[1].data(), out[2].data()};
      ex::batch_evaluator be(p, block_rows);
      ASSERT_TRUE(be.evaluate(in, rows, outp));
      ex::scalar_evaluator se(p);
      std::vector<value> sv(3);
      for (std::size_t row = 0; row < rows; ++row) {
        std::uint64_t one[input_count];
        for (int k = 0; k < input_count; ++k) one[k] = cols[k][row];
        ASSERT_TRUE(se.evaluate(one, sv));
        for (int k = 0; k < 3; ++k) {
          ASSERT_EQ(out[k][row], sv[k].bits)
              << "formula " << k << " row " << row << " block " << be.block();
        }
      }
    }
  }
}

TEST(ExprEval, BatchDivisionByZeroAndWrap) {
  ex::symbol_table s;
  s.add_counter("A0");
  s.add_counter("A1");
  for (const char* text :
       {"A 0 READ A 1 READ UDIV", "A 0 READ A 1 READ FDIV", "A 0 READ A 1 READ USUB",
        "A 0 READ A 1 READ UMUL", "A 0 READ A 1 READ <<"}) {
    auto f = ex::compile(text, syntax::rpn, s);
    ASSERT_TRUE(f);
    const std::vector<std::uint64_t> a = {5, 0, 1, ~0ull, 7}, b = {0, 0, 2, ~0ull, 64};
    std::vector<std::uint64_t> out(a.size());
    const std::uint64_t* in[] = {a.data(), b.data()};
    std::uint64_t* o[] = {out.data()};
    ex::batch_evaluator be(f->ir());
    ASSERT_TRUE(be.evaluate(in, a.size(), o));
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(out[i], f->evaluate({a[i], b[i]}).bits) << text << " row " << i;
    }
  }
  auto d = ex::compile("A 0 READ A 1 READ UDIV", syntax::rpn, s);
  EXPECT_EQ(d->evaluate({5, 0}), value::u(0));
}

// ---- the command-line tool ------------------------------------------------

hwpc::testing::run_result tool(const std::string& args) {
  return hwpc::testing::run_tool("eval " + args);
}

TEST(ExprEvalTool, PrintsValuesAndErrors) {
  if (std::string(HWPC_TOOL_PATH).empty()) GTEST_SKIP() << "the hwpc tool is not built";
  EXPECT_EQ(tool("--expr '1 + 2'").out, "3\n");
  EXPECT_EQ(tool("--expr '7'").out, "7\n");
  EXPECT_EQ(tool("--expr '1 / 3'").out, "0.3333333333333333\n");
  // The shortest form that reads back as the same double, as the CSV writes it: not %.17g's
  // 0.050000000000000003.
  EXPECT_EQ(tool("--expr '$A / $B' --var A=1 --var B=20").out, "0.05\n");
  EXPECT_EQ(tool("--expr '$X * 3' --var X=0.1").out, "0.30000000000000004\n");
  EXPECT_EQ(tool("--expr '1e300 * 1e300'").out, "inf\n");
  EXPECT_EQ(tool("--expr '0 1 USUB'").out, "18446744073709551615\n") << "RPN when only RPN parses";
  EXPECT_EQ(
      tool("--syntax rpn --expr 'GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV' "
           "--var GPU_TIME=12000 --var GpuTimestampFrequency=12000000")
          .out,
      "1000000\n");
  EXPECT_EQ(tool("--expr '$X * 2' --var X=1.25").out, "2.5\n");
  EXPECT_EQ(tool("--expr 'A 3 READ 2 UDIV' --var A3=9").out, "4\n");
  auto r = tool("--expr 'max(min($A / $B) * 100, 100), 0)' --var A=1 --var B=2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("column 32"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("\n  max(min($A / $B) * 100, 100), 0)\n                                 ^\n"),
      std::string::npos)
      << r.out;
  r = tool("--syntax rpn --expr 'A 0 READ UADD' --var A0=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("column 10"), std::string::npos) << r.out;
  r = tool("--expr '$Nope + 1'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("unknown name at column 1"), std::string::npos) << r.out;
  EXPECT_EQ(tool("--syntax lisp --expr 1").status, 1);
  EXPECT_EQ(tool("").status, 1);
  EXPECT_EQ(tool("--expr 1 --var X").status, 1);
  EXPECT_EQ(tool("--help").status, 0);
}

}  // namespace
