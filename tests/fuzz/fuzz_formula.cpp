// Formula text in both syntaxes (the first byte picks RPN or infix): compile
// with named inputs and raw counters allowed, then evaluate on generated
// inputs with the scalar and the batch evaluator.
// Invariants: an error's column is inside the text or one past it; its
// message is bounded and carries no raw control byte; scalar and batch
// evaluation agree bit for bit on every row.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/expr.hpp"

using namespace hwpc::expr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const syntax s = (data[0] & 1) ? syntax::infix : syntax::rpn;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  symbol_table syms;
  syms.add("A");
  syms.add("B");
  syms.add("GpuTimestampFrequency");
  syms.add("F", vtype::f64);
  syms.allow_raw_counters();
  auto f = compile(text, s, syms);
  if (!f) {
    const hwpc::error& e = f.error_value();
    FUZZ_CHECK(e.anchor == hwpc::error_anchor::column, e.describe());
    FUZZ_CHECK(e.offset >= 1 && e.offset <= text.size() + 1, e.describe());
    FUZZ_CHECK(e.message.size() < 2048, "message bounded");
    for (char c : e.message) {
      const auto u = static_cast<unsigned char>(c);
      FUZZ_CHECK(c == '\n' || (u >= 0x20 && u < 0x7f), "message escaped");
    }
    return 0;
  }
  const std::size_t ni = f->inputs().size();
  constexpr std::size_t rows = 37;  // not a multiple of any vector width
  fuzz::rng g{size * 0x100000001b3ull};
  std::vector<std::vector<slot>> cols(ni, std::vector<slot>(rows));
  for (std::size_t i = 0; i < ni; ++i) {
    for (std::size_t r = 0; r < rows; ++r) {
      const std::uint64_t v = g();
      // Small values, edge values and arbitrary bits (NaNs for f64 inputs).
      cols[i][r] = r % 4 == 0 ? v % 16 : r % 4 == 1 ? ~std::uint64_t{0} - v % 3 : v;
      if (f->inputs()[i].type == vtype::f64 && r % 4 == 0) cols[i][r] = from_f64(double(v % 100));
    }
  }
  std::vector<slot> out(rows);
  std::vector<const slot*> in_ptrs;
  for (auto& c : cols) in_ptrs.push_back(c.data());
  std::vector<slot*> out_ptrs{out.data()};
  // The block the evaluator picks (all rows in one) or blocks of 1 to 16
  // rows (several, the last one partial).
  batch_evaluator ev(f->ir(), size % 3 == 0 ? 0 : 1 + size % 16);
  auto ok = ev.evaluate(in_ptrs, rows, out_ptrs);
  FUZZ_CHECK(static_cast<bool>(ok), "batch evaluation of a compiled formula");
  std::vector<slot> row(ni);
  scalar_evaluator sc(f->ir());
  std::vector<value> one(1);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < ni; ++i) row[i] = cols[i][r];
    const value v = f->evaluate(row);
    FUZZ_CHECK(v.bits == out[r], "scalar = batch, row " + std::to_string(r));
    FUZZ_CHECK(static_cast<bool>(sc.evaluate(row, one)), "scalar evaluator");
    FUZZ_CHECK(one[0].bits == v.bits, "scalar_evaluator = formula::evaluate");
  }
  return 0;
}
