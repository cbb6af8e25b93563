// Operators over every mix of integer and floating operands, as Intel's
// metric code generator computes them (docs/expressions.md, "Mixed operands"):
// hand-worked values, each checked on three paths (constant folding, the
// scalar evaluator over typed inputs, the batch evaluator over one row).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hwpc/expr.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace {

namespace ex = hwpc::expr;
using ex::syntax;
using ex::value;
namespace hm = hwpc::metrics;

// Left operand 7 (u64) or 7.5 (f64); right operand 2 (u64) or 2.5 (f64).
struct row {
  const char* op;
  value uu, uf, fu, ff;
};

const row table[] = {
    // U arithmetic: in double when an operand is a double, then truncated.
    {"UADD", value::u(9), value::u(9), value::u(9), value::u(10)},     // 9.5 9.5 10.0
    {"USUB", value::u(5), value::u(4), value::u(5), value::u(5)},      // 4.5 5.5 5.0
    {"UMUL", value::u(14), value::u(17), value::u(15), value::u(18)},  // 17.5 15.0 18.75
    {"UMIN", value::u(2), value::u(2), value::u(2), value::u(2)},      // 2.5 2 2.5
    // UDIV converts both operands to uint64 before dividing.
    {"UDIV", value::u(3), value::u(3), value::u(3), value::u(3)},  // 7/2 each time
    // AND and shifts take integers only: operands truncated.
    {"AND", value::u(2), value::u(2), value::u(2), value::u(2)},
    {"<<", value::u(28), value::u(28), value::u(28), value::u(28)},
    {">>", value::u(1), value::u(1), value::u(1), value::u(1)},
    // Comparisons compare the doubles.
    {"UGT", value::u(1), value::u(1), value::u(1), value::u(1)},
    {"UGTE", value::u(1), value::u(1), value::u(1), value::u(1)},
    {"ULT", value::u(0), value::u(0), value::u(0), value::u(0)},
    {"ULTE", value::u(0), value::u(0), value::u(0), value::u(0)},
    {"&&", value::u(1), value::u(1), value::u(1), value::u(1)},
    // F operators: doubles.
    {"FADD", value::f(9.0), value::f(9.5), value::f(9.5), value::f(10.0)},
    {"FSUB", value::f(5.0), value::f(4.5), value::f(5.5), value::f(5.0)},
    {"FMUL", value::f(14.0), value::f(17.5), value::f(15.0), value::f(18.75)},
    {"FDIV", value::f(3.5), value::f(2.8), value::f(3.75), value::f(3.0)},
    {"FMAX", value::f(7.0), value::f(7.0), value::f(7.5), value::f(7.5)},
};

// Evaluates "L R OP" three ways and checks that all agree with want.
void check(const std::string& l, const std::string& r, const char* o, value want) {
  SCOPED_TRACE(l + " " + r + " " + o);
  const bool lf = l.find('.') != std::string::npos, rf = r.find('.') != std::string::npos;
  ex::symbol_table none;
  auto folded = ex::compile(l + " " + r + " " + o, syntax::rpn, none);
  ASSERT_TRUE(folded) << folded.error_value().describe();
  EXPECT_TRUE(folded->is_constant());
  EXPECT_EQ(folded->evaluate({}), want);

  ex::symbol_table s;
  s.add("L", lf ? ex::vtype::f64 : ex::vtype::u64);
  s.add("R", rf ? ex::vtype::f64 : ex::vtype::u64);
  auto f = ex::compile(std::string("$L $R ") + o, syntax::rpn, s);
  ASSERT_TRUE(f) << f.error_value().describe();
  const ex::slot in[] = {lf ? ex::from_f64(std::stod(l)) : std::stoull(l),
                         rf ? ex::from_f64(std::stod(r)) : std::stoull(r)};
  EXPECT_EQ(f->evaluate(in), want);

  ex::batch_evaluator b(f->ir());
  const ex::slot* cols[] = {&in[0], &in[1]};
  ex::slot out = 0;
  ex::slot* outs[] = {&out};
  ASSERT_TRUE(b.evaluate(cols, 1, outs));
  EXPECT_EQ((value{f->type(), out}), want);
}

TEST(ExprMixed, EveryOperatorEveryOperandMix) {
  for (const row& t : table) {
    check("7", "2", t.op, t.uu);
    check("7", "2.5", t.op, t.uf);
    check("7.5", "2", t.op, t.fu);
    check("7.5", "2.5", t.op, t.ff);
  }
}

TEST(ExprMixed, ComparisonsDoNotTruncateADouble) {
  check("2.5", "2", "UGT", value::u(1));  // truncating first would say 2 > 2: 0
  check("2", "2.5", "ULT", value::u(1));
  check("2.5", "2", "ULTE", value::u(0));
  check("2", "2.5", "UGTE", value::u(0));
}

TEST(ExprMixed, NegativeResultOfAnUnsignedOperatorSaturatesToZero) {
  // C leaves double -> uint64_t of a negative value undefined; hwpc gives 0.
  check("2", "2.5", "USUB", value::u(0));
  check("0.5", "3", "USUB", value::u(0));
}

TEST(ExprMixed, FsubOfTwoIntegersIsTheMathematicalDifference) {
  // The generated C computes `double t = a - b;` in uint64_t (2^64 - 5 for
  // 2 - 7); hwpc keeps the difference.
  check("2", "7", "FSUB", value::f(-5.0));
}

hm::metric_set one_set(std::vector<hm::metric> ms) {
  hm::metric_set s;
  s.symbol_name = "Mixed";
  s.metrics = std::move(ms);
  return s;
}

hm::metric make(const char* sym, hm::data_type t, const char* eq) {
  hm::metric m;
  m.symbol_name = sym;
  m.type = t;
  m.equation = eq;
  return m;
}

TEST(ExprMixed, SklVmeBusyMultipliesInDouble) {
  // SKL GT2 VMEPipe VMEBusy with B0=1, B3=0, GpuCoreClocks=1000:
  // (1 + 0) / 2 = 0.5; 0.5 * 100 = 50 (not 0 * 100); 50 / 1000 = 0.05.
  auto set = one_set({make("GpuCoreClocks", hm::data_type::uint64, "GPU_CLOCK 0 READ"),
                      make("VMEBusy", hm::data_type::float32,
                           "B 0 READ B 3 READ FADD 2 FDIV 100 UMUL $GpuCoreClocks FDIV")});
  auto c = hm::compile(set);
  ASSERT_TRUE(c) << c.error_value().describe();
  auto b = c->bind({});
  ASSERT_TRUE(b) << b.error_value().describe();
  std::vector<std::uint64_t> raw(b->inputs().size(), 0);
  raw[*b->input_index("B0")] = 1;
  raw[*b->input_index("GPU_CLOCK")] = 1000;
  std::vector<value> out(2);
  ASSERT_TRUE(b->evaluate(raw, out));
  EXPECT_EQ(out[1], value::f(0.05));
}

TEST(ExprMixed, Uint64MetricTruncatesItsDoubleResult) {
  // As the generated C returns uint64_t: 10 / 3 = 3.33.. -> 3, and a metric
  // that refers to it reads 3 (3 * 2 = 6.0, not 6.67).
  auto set = one_set({make("Third", hm::data_type::uint64, "A 0 READ 3 FDIV"),
                      make("Twice", hm::data_type::float32, "$Third 2 FMUL"),
                      make("Plain", hm::data_type::float32, "A 0 READ 3 FDIV")});
  auto c = hm::compile(set);
  ASSERT_TRUE(c) << c.error_value().describe();
  auto b = c->bind({});
  ASSERT_TRUE(b);
  const std::uint64_t raw[] = {10};
  std::vector<value> out(3);
  ASSERT_TRUE(b->evaluate(raw, out));
  EXPECT_EQ(out[0], value::u(3));
  EXPECT_EQ(out[1], value::f(6.0));
  EXPECT_EQ(out[2], value::f(10.0 / 3.0));
  // Batch agrees bit for bit.
  auto ev = b->batch();
  const std::uint64_t* cols[] = {raw};
  std::uint64_t o[3] = {};
  std::uint64_t* outs[] = {&o[0], &o[1], &o[2]};
  ASSERT_TRUE(ev.evaluate(cols, 1, outs));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(o[i], out[i].bits) << i;
}

}  // namespace
