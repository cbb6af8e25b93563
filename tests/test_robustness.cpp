// Hostile input for every reader: random bytes, and valid captures from the
// emulator with bytes flipped and ends cut off. Each call either succeeds or
// returns an error whose offset lies inside the input — never a crash, a
// hang or an out-of-bounds read (CI runs this under ASan and UBSan). The same
// for formula text: an error's column lies inside the text (or one past it).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hwpc/emu.hpp"
#include "hwpc/expr.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/recording.hpp"

namespace {

using namespace hwpc::intel;

// An exact-size heap copy, so that any over-read lands in ASan's redzone.
struct exact_bytes {
  std::unique_ptr<std::byte[]> data;
  std::size_t size;
  explicit exact_bytes(const std::vector<std::byte>& v)
      : data(new std::byte[v.empty() ? 1 : v.size()]), size(v.size()) {
    std::copy(v.begin(), v.end(), data.get());
  }
  hwpc::byte_span span() const { return {data.get(), size}; }
};

template <class Source>
std::size_t drain(const Source& src, const report_format& f, generation gen) {
  delta_tracker t(f, gen);
  std::size_t steps = 0;
  for (const capture_event& e : src) {
    t.feed(e);
    ++steps;
  }
  return steps;
}

std::vector<std::byte> mutate(std::vector<std::byte> b, std::mt19937_64& rng) {
  switch (rng() % 3) {
    case 0:  // flip a few bytes
      for (int k = 0; k < 4 && !b.empty(); ++k) b[rng() % b.size()] = std::byte(rng());
      break;
    case 1:  // cut the end off
      b.resize(b.empty() ? 0 : rng() % b.size());
      break;
    default:  // a random record size field (bytes 6..7 of some header-aligned spot)
      if (b.size() > 8) {
        const std::size_t at = (rng() % (b.size() / 8)) * 8;
        if (at + 8 <= b.size()) b[at + 6 + rng() % 2] = std::byte(rng());
      }
  }
  return b;
}

TEST(Robustness, MutatedStreamsAndRecordingsFailCleanly) {
  std::mt19937_64 rng(1234);
  const std::pair<platform, const char*> configs[] = {{platform::hsw, "A45_B8_C8"},
                                                      {platform::skl, "A36_B8_C8"},
                                                      {platform::tgl, "C4_B8"},
                                                      {platform::dg2, "A24u40_A14u32_B8_C8"}};
  std::size_t ok = 0, failed = 0;
  for (auto [plat, fmt] : configs) {
    hwpc::emu::config c;
    c.platform = plat;
    c.format = fmt;
    c.reports = 24;
    c.seed = rng();
    c.faults = hwpc::emu::parse_faults("wrap,ctx-switch,report-lost").value();
    auto cap = hwpc::emu::emulate(c);
    ASSERT_TRUE(cap) << cap.error_value().describe();
    const report_format& f = *find_format(plat, fmt);
    const auto stream = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::i915_stream);
    const auto rec = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::recording);
    ASSERT_TRUE(stream && rec);
    for (int round = 0; round < 300; ++round) {
      const exact_bytes s(mutate(*stream, rng));
      if (auto st = i915_stream::make(s.span(), f)) {
        drain(*st, f, generation_of(plat));
        ++ok;
      } else {
        EXPECT_LE(st.error_value().offset, s.size);
        ++failed;
      }
      const exact_bytes r(mutate(*rec, rng));
      if (auto rd = recording::make(r.span())) {
        drain(*rd, rd->format(), generation_of(rd->device_platform()));
        ++ok;
      } else {
        EXPECT_LE(rd.error_value().offset, r.size);
        ++failed;
      }
    }
  }
  // Both outcomes occur: the mutations are neither all harmless nor all fatal.
  EXPECT_GT(ok, 0u);
  EXPECT_GT(failed, 0u);
}

TEST(Robustness, RandomBytesAsStreamsRecordingsAndRings) {
  std::mt19937_64 rng(77);
  const report_format& f = *find_format(platform::skl, "A12");
  for (int round = 0; round < 500; ++round) {
    std::vector<std::byte> v(rng() % 600);
    for (auto& b : v) b = std::byte(rng());
    if (rng() % 2 && v.size() >= 8) v[4] = v[5] = std::byte{0};  // plausible record headers
    const exact_bytes e(v);
    if (auto st = i915_stream::make(e.span(), f)) drain(*st, f, generation::gen9);
    if (auto rd = recording::make(e.span()))
      drain(*rd, rd->format(), generation_of(rd->device_platform()));
  }
  // Rings: pointers anywhere, sizes legal or not.
  std::vector<std::byte> ring(128 << 10);
  for (auto& b : ring) b = std::byte(rng());
  for (int round = 0; round < 2000; ++round) {
    const std::size_t size = (rng() % 4 == 0) ? (rng() % ring.size()) : ring.size();
    const auto regs =
        oa_ring_registers::offsets(rng() % (2 * ring.size()), rng() % (2 * ring.size()),
                                   static_cast<std::uint32_t>(rng() % 8));
    if (auto r = oa_ring::make(hwpc::byte_span(ring).first(size), f, regs)) {
      drain(*r, f, generation::gen9);
    }
  }
}

TEST(Robustness, RandomFormulaTextGivesErrorsWithColumnsInsideTheText) {
  std::mt19937_64 rng(5);
  const char* tokens[] = {"A",    "0",        "READ", "UADD",     "FDIV",  "(",
                          ")",    "$GpuTime", "+",    "*",        "-",     "/",
                          "min(", "max(",     ",",    "0x",       "1e309", "18446744073709551616",
                          "?",    ":",        "&&",   "<<",       "true",  "\xff",
                          "\"",   " ",        "  ",   "B 7 READ", "UMUL"};
  hwpc::expr::symbol_table symbols;
  symbols.add("GpuTime");
  symbols.allow_raw_counters();
  std::size_t errors = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k)
      text += std::string(tokens[rng() % std::size(tokens)]) + (rng() % 2 ? " " : "");
    for (auto syn : {hwpc::expr::syntax::rpn, hwpc::expr::syntax::infix}) {
      auto r = hwpc::expr::compile(text, syn, symbols);
      if (!r) {
        ++errors;
        EXPECT_GE(r.error_value().offset, 1u) << text;
        EXPECT_LE(r.error_value().offset, text.size() + 1) << text;
      }
    }
  }
  EXPECT_GT(errors, 0u);
}

}  // namespace
