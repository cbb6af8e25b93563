// The batch evaluator's special loops (division by a constant as a multiply,
// constant operands in registers, fused to_f64/UMUL/UDIV/FDIV chains) and the
// vectorisable u64 -> double conversion, each against the plain definition:
// `/`, static_cast<double>, and the scalar evaluator, bit for bit.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "hwpc/expr.hpp"
#include "xorshift.hpp"

namespace {

namespace ex = hwpc::expr;
using hwpc::expr::value;
using hwpc::expr::vtype;

using rng = hwpc::testing::xorshift64;

// Dividends and conversion inputs near the places where rounding or carries
// change: 0, powers of two and their neighbours, all-ones, random widths.
std::uint64_t edgy(rng& g) {
  switch (g.below(5)) {
    case 0:
      return g.below(4);
    case 1: {
      const std::uint64_t p = std::uint64_t{1} << g.below(64);
      return p + g.below(3) - 1;
    }
    case 2:
      return ~0ull - g.below(4);
    case 3:
      return g.next() >> g.below(64);
    default:
      return g.next();
  }
}

// Evaluates `p` over the input columns with the batch evaluator and row by
// row with the scalar one; every output must agree bit for bit. The batch
// evaluator runs with the block it picks (one block for these programs) and
// with blocks of 700 rows (several blocks, each shorter than a tile) and of
// 2148 rows (a full tile and a partial one per block, and a partial block).
// The block the evaluator picks: a power of two from min_block to max_block,
// the longest whose scratch columns fit the budget.
void expect_block_fits(const ex::batch_evaluator& be) {
  using B = ex::batch_evaluator;
  const std::size_t rows = be.block(), bytes = be.scratch_columns() * rows * 8;
  EXPECT_TRUE(std::has_single_bit(rows)) << rows;
  EXPECT_GE(rows, B::min_block);
  EXPECT_LE(rows, B::max_block);
  EXPECT_TRUE(bytes <= B::scratch_budget || rows == B::min_block) << rows << " rows, " << bytes;
  EXPECT_TRUE(rows == B::max_block || 2 * bytes > B::scratch_budget) << rows << " rows, " << bytes;
}

struct batch_run {
  std::size_t fused = 0, sum_chains = 0, compared = 0;
};
batch_run batch_equals_scalar(const ex::program& p,
                              const std::vector<std::vector<std::uint64_t>>& cols, std::size_t rows,
                              int program_index) {
  batch_run run;
  std::vector<const std::uint64_t*> in;
  for (const auto& c : cols) in.push_back(c.data());
  ex::scalar_evaluator se(p);
  std::vector<std::vector<std::uint64_t>> want(p.outputs.size(), std::vector<std::uint64_t>(rows));
  std::vector<value> sv(p.outputs.size());
  std::vector<std::uint64_t> one(cols.size());
  for (std::size_t row = 0; row < rows; ++row) {
    for (std::size_t k = 0; k < cols.size(); ++k) one[k] = cols[k][row];
    if (!se.evaluate(std::span<const std::uint64_t>(one), sv)) {
      ADD_FAILURE() << "program " << program_index << " row " << row << ": scalar evaluation";
      return run;
    }
    for (std::size_t k = 0; k < sv.size(); ++k) want[k][row] = sv[k].bits;
  }
  for (const std::size_t block_rows : {std::size_t{0}, std::size_t{700}, std::size_t{2148}}) {
    std::vector<std::vector<std::uint64_t>> out(p.outputs.size(),
                                                std::vector<std::uint64_t>(rows, 0x5a5a));
    std::vector<std::uint64_t*> outp;
    for (auto& c : out) outp.push_back(c.data());
    ex::batch_evaluator be(p, block_rows);
    if (block_rows == 0) expect_block_fits(be);
    EXPECT_TRUE(be.evaluate(in, rows, outp));
    run.fused = be.fused_nodes();
    run.sum_chains = be.sum_chains();
    for (std::size_t k = 0; k < out.size(); ++k) {
      for (std::size_t row = 0; row < rows; ++row) {
        if (out[k][row] != want[k][row]) {
          ADD_FAILURE() << "program " << program_index << " block " << be.block() << " output " << k
                        << " row " << row << ": " << out[k][row] << " != " << want[k][row];
          return run;
        }
        ++run.compared;
      }
    }
  }
  return run;
}

// 300 formulas `A0 + k` with distinct constants: each constant has a column
// of its own, too many for the longest block, so the evaluator takes shorter
// ones; its results still agree, over several blocks.
TEST(BatchFused, ManyScratchColumnsShortenTheBlock) {
  ex::symbol_table syms;
  syms.add_counter("A0");
  ex::program p;
  ex::builder b;
  p.inputs.push_back(syms.inputs()[0]);
  auto resolve = [&](std::string_view) -> ex::resolved {
    return ex::resolved::at(b.input(0, vtype::u64));
  };
  for (int k = 0; k < 300; ++k) {
    const auto r = ex::parse_rpn("A 0 READ " + std::to_string(1000 + k) + " UADD", b, resolve);
    ASSERT_TRUE(r.status);
    p.outputs.push_back(r.root);
  }
  p.nodes = std::move(b).take();
  p = ex::compact(p, true);
  rng g{0x13198a2e03707344ull};
  const std::size_t rows = 5000;
  std::vector<std::vector<std::uint64_t>> cols(1, std::vector<std::uint64_t>(rows));
  for (auto& v : cols[0]) v = edgy(g);
  const ex::batch_evaluator be(p);
  EXPECT_GE(be.scratch_columns(), 300u);
  EXPECT_EQ(be.block(), ex::batch_evaluator::min_block);
  expect_block_fits(be);
  const batch_run run = batch_equals_scalar(p, cols, rows, 0);
  EXPECT_EQ(run.compared, 3 * 300 * rows);
}

TEST(BatchFused, DivisionByConstantEqualsDivision) {
  rng g{0x243f6a8885a308d3ull};
  std::vector<std::uint64_t> divisors = {1,
                                         2,
                                         3,
                                         5,
                                         7,
                                         10,
                                         24,
                                         25,
                                         100,
                                         1000,
                                         12000000,
                                         19200000,
                                         (1ull << 32) - 1,
                                         (1ull << 32) + 1,
                                         (1ull << 63) - 1,
                                         (1ull << 63),
                                         (1ull << 63) + 1,
                                         ~0ull,
                                         ~0ull - 1};
  for (int i = 0; i < 2000; ++i) divisors.push_back(edgy(g) | 1);
  for (int i = 0; i < 500; ++i) divisors.push_back(g.below(5000) + 1);
  std::size_t checked = 0;
  for (const std::uint64_t d : divisors) {
    if (d == 0) continue;
    const ex::udiv_by_constant div(d);
    const std::uint64_t around[] = {
        0, 1, d - 1, d, d + 1, ~0ull, ~0ull - 1, ~0ull / d * d, ~0ull / d * d - 1, 1ull << 63};
    for (const std::uint64_t n : around) {
      ASSERT_EQ(div(n), n / d) << n << " / " << d;
      ++checked;
    }
    for (int k = 0; k < 200; ++k) {
      const std::uint64_t n = edgy(g);
      ASSERT_EQ(div(n), n / d) << n << " / " << d;
      // Near multiples: q * d + r for a quotient q that keeps it in range.
      const std::uint64_t top = ~0ull / d;
      const std::uint64_t q = top == ~0ull ? g.next() : g.next() % (top + 1);
      const std::uint64_t m = q * d + (q == top ? 0 : g.below(d));
      ASSERT_EQ(div(m), m / d) << m << " / " << d;
      checked += 2;
    }
  }
  std::printf("division by a constant: %zu quotients agree with '/'\n", checked);
}

TEST(BatchFused, ConversionEqualsStaticCast) {
  rng g{0x13198a2e03707344ull};
  const std::uint64_t fixed[] = {0,
                                 1,
                                 (1ull << 53) - 1,
                                 1ull << 53,
                                 (1ull << 53) + 1,  // a tie: rounds to even
                                 (1ull << 53) + 3,
                                 (1ull << 54) + 2,
                                 (1ull << 32) - 1,
                                 1ull << 32,
                                 (1ull << 32) + 1,
                                 1ull << 63,
                                 (1ull << 63) + 1024,  // ties at the top binade
                                 (1ull << 63) + 1025,
                                 ~0ull,
                                 ~0ull - 1024,
                                 ~0ull - 2048};
  for (const std::uint64_t v : fixed) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(ex::u64_to_f64(v)),
              std::bit_cast<std::uint64_t>(static_cast<double>(v)))
        << v;
  }
  for (int i = 0; i < 1'000'000; ++i) {
    const std::uint64_t v = edgy(g);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(ex::u64_to_f64(v)),
              std::bit_cast<std::uint64_t>(static_cast<double>(v)))
        << v;
  }
  static_assert(ex::u64_to_f64((1ull << 53) + 1) == 9007199254740992.0);
  static_assert(ex::u64_to_f64(~0ull) == 18446744073709551616.0);
}

// Programs of the shapes the batch evaluator fuses, with the fused nodes'
// values sometimes also outputs or used twice (which must stop the fusion),
// evaluated as columns and sample by sample.
TEST(BatchFused, ChainsEqualScalarBitForBit) {
  rng g{0xa4093822299f31d0ull};
  constexpr int inputs = 4;
  ex::symbol_table syms;
  for (int i = 0; i < inputs; ++i) syms.add_counter("A" + std::to_string(i));
  const std::size_t rows = 3000;  // a full tile and a partial one
  std::vector<std::vector<std::uint64_t>> cols(inputs, std::vector<std::uint64_t>(rows));
  for (auto& c : cols) {
    for (auto& v : c) v = g.below(8) == 0 ? 0 : edgy(g);
  }
  auto constant = [&]() -> std::string {
    switch (g.below(5)) {
      case 0:
        return "0";
      case 1:
        return std::to_string(1ull << g.below(12));
      case 2:
        return std::to_string(g.below(200) + 1);
      case 3:
        return std::to_string(edgy(g));
      default:
        return "1";
    }
  };
  auto counter = [&] { return "A " + std::to_string(g.below(inputs)) + " READ"; };
  std::size_t compared = 0, fused = 0, fused_exact = 0;
  // Each program as written (IGT's arithmetic: the integer chains) and as
  // metrics-discovery's arithmetic rewrites it (the exact shape).
  for (int i = 0; i < 800; ++i) {
    const auto arith = i % 2 == 0 ? ex::arithmetic::igt : ex::arithmetic::mdapi;
    ex::program p;
    ex::builder b;
    for (int k = 0; k < inputs; ++k) p.inputs.push_back(syms.inputs()[k]);
    auto resolve = [&](std::string_view n) -> ex::resolved {
      return ex::resolved::at(b.input(static_cast<std::uint32_t>(n[1] - '0'), vtype::u64));
    };
    const int formulas = 1 + static_cast<int>(g.below(5));
    for (int k = 0; k < formulas; ++k) {
      const std::string x = counter(), y = counter(), k1 = constant(), k2 = constant();
      std::string text;
      switch (g.below(10)) {
        case 0:  // percentage of the clock: to_f64(umul(K, udiv(x, D))) / y
          text = x + " " + k1 + " UDIV " + k2 + " UMUL " + y + " FDIV";
          break;
        case 1:
          text = x + " " + k2 + " UMUL " + y + " FDIV";
          break;
        case 2:
          text = x + " " + k1 + " UDIV " + y + " FDIV";
          break;
        case 3:  // sum of counters as doubles
          text = x + " " + y + " FADD";
          break;
        case 4:
          text = x + " " + k1 + " UDIV " + k2 + " UMUL " + y + " FADD";
          break;
        case 5:  // a constant divisor of a double
          text = x + " " + k2 + " UMUL 0.5 FDIV";
          break;
        case 6:  // converted alone, as an output
          text = x + " " + k1 + " UDIV " + k2 + " UMUL 0.0 FADD";
          break;
        case 7:  // a sum of doubles truncated, scaled, divided (TGL's EuActive)
          text =
              x + " " + y + " FADD " + x + " FADD " + k1 + " UDIV " + k2 + " UMUL " + y + " FDIV";
          break;
        case 8:  // a power-of-two scale
          text = x + " " + y + " UADD " + std::to_string(1ull << g.below(64)) + " UMUL";
          break;
        default:  // a shared intermediate: the UDIV is used twice
          text = x + " " + k1 + " UDIV " + x + " " + k1 + " UDIV " + k2 + " UMUL FDIV";
          break;
      }
      const auto r = ex::parse_rpn(text, b, resolve);
      ASSERT_TRUE(r.status) << text;
      p.outputs.push_back(r.root);
      if (g.below(3) == 0) {  // an intermediate (any earlier node) as an output too
        p.outputs.push_back(static_cast<std::uint32_t>(g.below(r.root + 1)));
      }
    }
    p.nodes = std::move(b).take();
    p = ex::compact(ex::with_arithmetic(p, arith), true);
    const batch_run run = batch_equals_scalar(p, cols, rows, i);
    if (HasFailure()) return;
    (arith == ex::arithmetic::igt ? fused : fused_exact) += run.fused;
    compared += run.compared;
  }
  EXPECT_GT(fused, 400u) << "the shapes above are the ones the evaluator fuses";
  EXPECT_GT(fused_exact, 200u) << "and their exact forms";
  std::printf(
      "fused chains (%zu nodes folded, %zu in exact forms): %zu values agree with the scalar "
      "evaluator\n",
      fused, fused_exact, compared);
}

// Sums of 2 to 10 converted counters (more than a chain takes), in every tree
// shape a left-deep sum can have (each addition's running sum on either
// side), optionally times a double constant and divided by one (0.0, -0.0,
// NaN, inf and ordinary values), truncated to u64 (saturating: sums past
// 2^64 from all-ones counters), then scaled and divided by a counter, added
// to one, or stored; sometimes an intermediate is an output or used twice,
// which must stop the fusion. Batch against scalar, bit for bit.
TEST(BatchFused, SumChainsEqualScalarBitForBit) {
  rng g{0x6c8e9cf570932bd5ull};
  constexpr int inputs = 10;
  const std::size_t rows = 2048 + 700;  // a full block and a partial one, tiles of both
  std::vector<std::vector<std::uint64_t>> cols(inputs, std::vector<std::uint64_t>(rows));
  for (auto& c : cols) {
    for (auto& v : c) v = g.below(8) == 0 ? 0 : edgy(g);
  }
  const char* doubles[] = {"0.0", "8", "0.5", "7.0", "3"};
  std::size_t compared = 0, fused = 0, sum_chains = 0, exact_sum_chains = 0;
  for (int i = 0; i < 600; ++i) {
    const auto arith = i % 2 == 0 ? ex::arithmetic::igt : ex::arithmetic::mdapi;
    ex::program p;
    ex::builder b;
    for (int k = 0; k < inputs; ++k) p.inputs.push_back({"A" + std::to_string(k)});
    auto resolve = [&](std::string_view n) -> ex::resolved {
      return ex::resolved::at(b.input(static_cast<std::uint32_t>(n[1] - '0'), vtype::u64));
    };
    auto counter = [&] { return "A " + std::to_string(g.below(inputs)) + " READ"; };
    // inf, NaN and -0.0 as constant expressions the builder folds: 1e20^16
    // overflows, inf - inf, 0.0 * -1.0.
    std::string inf = "100000000000000000000.0";
    for (int k = 0; k < 15; ++k) inf += " 100000000000000000000.0 FMUL";
    auto dconst = [&]() -> std::string {
      switch (g.below(8)) {
        case 0:
          return "0.0 0.0 1.0 FSUB FMUL";
        case 1:
          return inf + " " + inf + " FSUB";
        case 2:
          return inf;
        case 3:
          return "0.0 " + inf + " FSUB";
        default:
          return doubles[g.below(5)];
      }
    };
    const int formulas = 1 + static_cast<int>(g.below(4));
    for (int f = 0; f < formulas; ++f) {
      const int terms = 2 + static_cast<int>(g.below(9));
      std::string text = counter() + " " + counter() + " FADD";
      for (int t = 2; t < terms; ++t) {
        // The next counter on the right, or the running sum on the right.
        text =
            g.below(2) == 0 ? text + " " + counter() + " FADD" : counter() + " " + text + " FADD";
      }
      if (g.below(2) == 0) {
        text = g.below(2) == 0 ? dconst() + " " + text + " FMUL" : text + " " + dconst() + " FMUL";
      }
      if (g.below(2) == 0) text += " " + dconst() + " FDIV";
      // UDIV takes u64: the sum is truncated first.
      // (UDIV by 0 folds the formula to 0 when it is built; divisions by
      // zero at run time are FDIV by 0.0 above and by idle counters below.)
      text += " " + std::to_string(g.below(10) == 0 ? 0 : 1 + g.below(100)) + " UDIV";
      switch (g.below(4)) {
        case 0:
          text += " 100 UMUL " + counter() + " FDIV";
          break;
        case 1:
          text += " " + counter() + " FADD";
          break;
        case 2:
          text += " 64 UMUL 0.0 FADD";
          break;
        default:
          text += " 3 UMUL";
          break;
      }
      const auto r = ex::parse_rpn(text, b, resolve);
      ASSERT_TRUE(r.status) << text;
      p.outputs.push_back(r.root);
      if (g.below(4) == 0) p.outputs.push_back(static_cast<std::uint32_t>(g.below(r.root + 1)));
    }
    p.nodes = std::move(b).take();
    p = ex::compact(ex::with_arithmetic(p, arith), true);
    const batch_run run = batch_equals_scalar(p, cols, rows, i);
    if (HasFailure()) return;
    fused += run.fused;
    (arith == ex::arithmetic::igt ? sum_chains : exact_sum_chains) += run.sum_chains;
    compared += run.compared;
  }
  EXPECT_GT(sum_chains, 250u) << "most of these sums are fused whole";
  EXPECT_GT(exact_sum_chains, 100u) << "and in their exact forms (100 UMUL ... FDIV ends)";
  std::printf(
      "sum chains: %zu, %zu in exact forms (%zu nodes folded): %zu values agree with the scalar "
      "evaluator\n",
      sum_chains, exact_sum_chains, fused, compared);
}

}  // namespace
