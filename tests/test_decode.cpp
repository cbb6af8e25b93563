// Deltas, wrap, timestamp extension, zero-RPT_ID skipping, accumulation
// (every SIMD path against the naive loop) and buffer errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hwpc/intel.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace {

using namespace hwpc::intel;

// Writes `v` into field `fd` of the report at `p`, by hand: low dword little
// endian, bits 39:32 into the high byte for 40-bit counters.
void put(std::byte* p, const field& fd, std::uint64_t v) {
  for (int k = 0; k < 4; ++k) p[fd.offset + k] = std::byte((v >> (8 * k)) & 0xff);
  if (fd.bits == 64) {
    for (int k = 4; k < 8; ++k) p[fd.offset + k] = std::byte((v >> (8 * k)) & 0xff);
  }
  if (fd.bits == 40) p[fd.high_byte_offset] = std::byte((v >> 32) & 0xff);
}

struct capture {
  const report_format* f;
  std::vector<std::byte> bytes;
  std::byte* report(std::size_t i) { return bytes.data() + i * f->size; }
};

capture make_capture(platform p, std::string_view fmt, std::size_t n) {
  capture c{find_format(p, fmt), {}};
  c.bytes.assign(c.f->size * n, std::byte{0});
  for (std::size_t i = 0; i < n; ++i)
    put(c.report(i), *c.f->find("RPT_ID"), 0x80000 | i);  // timer reason
  return c;
}

TEST(Delta, ThirtyTwoBitCounterWraps) {
  auto c = make_capture(platform::hsw, "A45_B8_C8", 2);
  const field& a5 = *c.f->find("A5");
  put(c.report(0), a5, 0xfffffff0u);
  put(c.report(1), a5, 0x00000010u);
  EXPECT_EQ(field_delta(a5, 0xfffffff0u, 0x10u), 0x20u);
  auto buf = report_buffer::make(c.bytes, *c.f);
  ASSERT_TRUE(buf);
  std::vector<std::uint64_t> got;
  const std::size_t a5_index = counter_list(*c.f).index_of("A5");
  for_each_interval(*buf, generation::gen7_5,
                    [&](const interval& iv) { got.push_back(iv.deltas[a5_index]); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], 0x20u);
}

TEST(Delta, FortyBitCounterWrapsAtTwoToTheFortieth) {
  auto c = make_capture(platform::skl, "A36_B8_C8", 3);
  const field& a0 = *c.f->find("A0");
  put(c.report(0), a0, 0xff'ffff'fff0ull);  // 2^40 - 16
  put(c.report(1), a0, 0x00'0000'0010ull);  // wrapped: +32
  put(c.report(2), a0, 0x01'0000'0010ull);  // carries into the high byte: +2^32
  EXPECT_EQ(report_view(c.report(0), *c.f).value(a0), 0xff'ffff'fff0ull);
  EXPECT_EQ(std::to_integer<int>(c.report(2)[160]), 1);  // bits 39:32 of A0 live at byte 160
  auto buf = report_buffer::make(c.bytes, *c.f);
  std::vector<std::uint64_t> got;
  const std::size_t idx = counter_list(*c.f).index_of("A0");
  for_each_interval(*buf, generation::gen9,
                    [&](const interval& iv) { got.push_back(iv.deltas[idx]); });
  EXPECT_EQ(got, (std::vector<std::uint64_t>{32, 0x1'0000'0000ull}));
  for (auto path : {simd_path::automatic, simd_path::scalar, simd_path::vector}) {
    auto acc = accumulate(*buf, path);
    EXPECT_EQ(acc.totals[idx], 32 + 0x1'0000'0000ull);
  }
}

TEST(Delta, TimestampExtendsAcrossManyThirtyTwoBitWraps) {
  // A long capture: 5000 reports 2^30 ticks apart wrap the 32-bit TIME_STAMP 1250 times.
  const std::size_t n = 5000;
  auto c = make_capture(platform::hsw, "A13", n);
  const field& ts = *c.f->find("TIMESTAMP");
  const std::uint64_t start = 0xfffff000u, step = 1ull << 30;
  for (std::size_t i = 0; i < n; ++i) put(c.report(i), ts, (start + i * step) & 0xffffffffu);
  auto buf = report_buffer::make(c.bytes, *c.f);
  std::uint64_t last = 0;
  std::size_t rows = 0;
  for_each_interval(*buf, generation::gen7_5, [&](const interval& iv) {
    EXPECT_EQ(iv.timestamp, start + iv.report * step);
    EXPECT_EQ(iv.elapsed_ticks, step);
    last = iv.timestamp;
    ++rows;
  });
  EXPECT_EQ(rows, n - 1);
  EXPECT_EQ(last, start + (n - 1) * step);
  EXPECT_EQ(accumulate(*buf).elapsed_ticks, (n - 1) * step);
}

TEST(Delta, SixtyFourBitTimestampOnOamReports) {
  auto c = make_capture(platform::mtl, "MPEC8u32_B8_C8", 2);
  put(c.report(0), *c.f->find("TIMESTAMP"), 0x1'0000'0000ull);
  put(c.report(1), *c.f->find("TIMESTAMP"), 0x1'0000'0500ull);
  put(c.report(0), *c.f->find("MPEC3"), 7);
  put(c.report(1), *c.f->find("MPEC3"), 9);
  auto buf = report_buffer::make(c.bytes, *c.f);
  int rows = 0;
  // MTL's OAM field holds the ticks doubled (docs/formats.md): 0x500 field
  // steps are 0x280 ticks.
  for_each_interval(*buf, generation::gen12_7, [&](const interval& iv) {
    EXPECT_EQ(iv.timestamp, 0x8000'0280ull);
    EXPECT_EQ(iv.elapsed_ticks, 0x280u);
    EXPECT_EQ(iv.deltas[counter_list(*c.f).index_of("MPEC3")], 2u);
    ++rows;
  });
  EXPECT_EQ(rows, 1);
}

TEST(Delta, ZeroRptIdReportsAreSkippedAndCounted) {
  auto c = make_capture(platform::bdw, "A12", 5);
  const field& a7 = *c.f->find("A7");
  for (std::size_t i = 0; i < 5; ++i) put(c.report(i), a7, 100 * i);
  put(c.report(2), *c.f->find("RPT_ID"), 0);  // never landed
  put(c.report(2), a7, 0xdeadbeef);           // garbage must not be read as a counter
  auto buf = report_buffer::make(c.bytes, *c.f);
  std::vector<std::pair<std::size_t, std::uint64_t>> rows;
  const std::size_t idx = counter_list(*c.f).index_of("A7");
  auto st = for_each_interval(*buf, generation::gen8, [&](const interval& iv) {
    rows.emplace_back(iv.report, iv.deltas[idx]);
  });
  EXPECT_EQ(st.skipped_zero, 1u);
  EXPECT_EQ(st.reports, 4u);
  EXPECT_EQ(rows,
            (std::vector<std::pair<std::size_t, std::uint64_t>>{{1, 100}, {3, 200}, {4, 100}}));
  auto acc = accumulate(*buf);
  EXPECT_EQ(acc.skipped_zero, 1u);
  EXPECT_EQ(acc.intervals, 3u);
  EXPECT_EQ(acc.totals[idx], 400u);
}

TEST(Buffer, EmptyAndRaggedBuffersAreErrorsNamingTheOffset) {
  const report_format& f = *find_format(platform::hsw, "A45_B8_C8");
  auto empty = report_buffer::make({}, f);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error_value().code, hwpc::errc::empty_input);
  std::vector<std::byte> ragged(256 * 3 + 100);
  auto r = report_buffer::make(ragged, f);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(r.error_value().offset, 768u);
  EXPECT_NE(r.error_value().describe().find("byte offset 768"), std::string::npos);
  auto short_one = report_buffer::make(std::span(ragged).first(100), f, 4096);
  ASSERT_FALSE(short_one);
  EXPECT_EQ(short_one.error_value().offset, 4096u);  // base offset of the slice
}

TEST(Buffer, ReportsAtAnyAlignmentReadTheSame) {
  auto c = make_capture(platform::hsw, "A13", 4);
  for (std::size_t i = 0; i < 4; ++i) put(c.report(i), *c.f->find("A12"), 0x01020304u * (i + 1));
  for (std::size_t shift = 1; shift < 8; ++shift) {
    std::vector<std::byte> moved(c.bytes.size() + shift);
    std::copy(c.bytes.begin(), c.bytes.end(), moved.begin() + shift);
    auto buf = report_buffer::make(std::span(moved).subspan(shift), *c.f);
    ASSERT_TRUE(buf);
    std::size_t i = 0;
    for (report_view r : *buf) EXPECT_EQ(r["A12"], 0x01020304u * (++i));
  }
}

// Random captures over every format: the fast accumulate paths equal the
// naive per-interval sum exactly, including wraps and skipped reports.
TEST(Accumulate, EveryPathEqualsTheNaiveSumOnThousandsOfRandomCaptures) {
  std::mt19937_64 rng(2024);
  std::size_t checked = 0;
  for (int round = 0; round < 120; ++round) {
    for (const auto& f : all_formats) {
      const std::size_t n = 1 + rng() % 40;
      std::vector<std::byte> bytes(f.size * n);
      const counter_list counters(f);
      std::vector<std::uint64_t> v(counters.size());
      for (auto& x : v) x = rng();
      for (std::size_t i = 0; i < n; ++i) {
        std::byte* r = bytes.data() + i * f.size;
        for (auto& b : std::span(r, f.size)) b = std::byte(rng());
        // Counters advance by random steps, sometimes huge (forcing wraps).
        for (std::size_t c = 0; c < counters.size(); ++c) {
          v[c] += (rng() % 4 == 0) ? rng() : rng() % 100000;
          put(r, counters[c], v[c] & counters[c].mask());
        }
        if (rng() % 10 == 0) put(r, f.fields[0], 0);  // a report that never landed
      }
      auto buf = report_buffer::make(bytes, f);
      ASSERT_TRUE(buf);
      const accumulation ref = accumulate_naive(*buf);
      for (auto path :
           {simd_path::automatic, simd_path::scalar, simd_path::vector, simd_path::avx2}) {
        const accumulation got = accumulate(*buf, path);
        ASSERT_EQ(got.totals, ref.totals) << f.name << " path " << int(path) << " round " << round;
        ASSERT_EQ(got.elapsed_ticks, ref.elapsed_ticks) << f.name;
        ASSERT_EQ(got.skipped_zero, ref.skipped_zero);
        ASSERT_EQ(got.intervals, ref.intervals);
        ASSERT_EQ(got.reports, ref.reports);
      }
      // The per-interval decoder sums to the same totals.
      std::vector<std::uint64_t> sum(counters.size());
      for_each_interval(*buf, generation_of(f.platforms[0]), [&](const interval& iv) {
        for (std::size_t c = 0; c < sum.size(); ++c) sum[c] += iv.deltas[c];
      });
      ASSERT_EQ(sum, ref.totals);
      // And the column writer agrees with the decoder.
      std::vector<std::vector<std::uint64_t>> cols(counters.size(), std::vector<std::uint64_t>(n));
      std::vector<std::uint64_t*> ptrs;
      for (auto& col : cols) ptrs.push_back(col.data());
      const std::size_t rows = deltas_to_columns(*buf, ptrs);
      ASSERT_EQ(rows, ref.intervals);
      for (std::size_t c = 0; c < counters.size(); ++c) {
        std::uint64_t s = 0;
        for (std::size_t k = 0; k < rows; ++k) s += cols[c][k];
        ASSERT_EQ(s, ref.totals[c]);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 120 * all_formats.size());
}

// Whether this CPU runs AVX2 code, asked of the CPU itself rather than of the
// library: CPUID leaf 7 EBX bit 5 (AVX2), leaf 1 ECX bit 27 (OSXSAVE) and bit
// 28 (AVX), and XCR0 bits 1 and 2 (the OS saves the XMM and YMM state).
std::optional<bool> cpu_runs_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid(1, a, b, c, d);
  if ((c & (1u << 27)) == 0 || (c & (1u << 28)) == 0) return false;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6u) != 0x6u) return false;
  __cpuid_count(7, 0, a, b, c, d);
  return (b & (1u << 5)) != 0;
#else
  return std::nullopt;  // not x86: no AVX2 kernel is built
#endif
}

// The kernel's choice matches what the CPU and the build support, each found
// out here independently: the AVX2 kernels exist on x86 builds only, and run
// (for the automatic and avx2 paths, never for scalar or vector) exactly
// when the CPU and the OS support AVX2. Linux's own view (/proc/cpuinfo) must
// agree where it can be read.
TEST(Accumulate, AvxPathIsReportedHonestly) {
  const std::optional<bool> cpu = cpu_runs_avx2();
#if defined(__x86_64__) || defined(__i386__)
  ASSERT_TRUE(cpu.has_value());
#if !defined(HWPC_HAVE_AVX2_KERNEL)
  FAIL() << "an x86 build with GCC or Clang has the AVX2 kernel";
#else
  EXPECT_EQ(detail::avx2_available(), *cpu);
  EXPECT_EQ(detail::avx2_chosen(simd_path::automatic), *cpu);
  EXPECT_EQ(detail::avx2_chosen(simd_path::avx2), *cpu);
  EXPECT_FALSE(detail::avx2_chosen(simd_path::scalar));
  EXPECT_FALSE(detail::avx2_chosen(simd_path::vector));
  if (std::ifstream info("/proc/cpuinfo"); info) {
    std::string line;
    while (std::getline(info, line)) {
      if (line.rfind("flags", 0) != 0) continue;
      std::istringstream words(line.substr(line.find(':') + 1));
      bool listed = false;
      for (std::string w; words >> w;) listed = listed || w == "avx2";
      EXPECT_EQ(listed, *cpu) << "/proc/cpuinfo and CPUID disagree";
      break;
    }
  }
#endif
#else
  EXPECT_FALSE(cpu.has_value());
  EXPECT_FALSE(detail::avx2_available()) << "no AVX2 kernel off x86";
#endif
  RecordProperty("avx2", detail::avx2_available() ? "yes" : "no");
}

TEST(RptId, Gen8ReasonsAndContextValidAtBit25) {
  // timer (bit 19) | context switch (bit 22) | context valid (bit 25)
  const std::uint32_t v = (1u << 19) | (1u << 22) | (1u << 25);
  auto r = decode_rpt_id(generation::gen8, v);
  EXPECT_TRUE(r.reasons_known);
  EXPECT_TRUE(has(r.reasons, report_reason::timer));
  EXPECT_TRUE(has(r.reasons, report_reason::context_switch));
  EXPECT_FALSE(has(r.reasons, report_reason::trigger1));
  EXPECT_TRUE(r.context_valid);
  EXPECT_FALSE(r.has_clock_fields);
  EXPECT_EQ(reason_names(r), "timer|ctx-switch");
  EXPECT_FALSE(decode_rpt_id(generation::gen8, 1u << 16).context_valid);
}

TEST(RptId, Gen9ContextValidAtBit16AndSquashedClocks) {
  // slice clock: bits 31:25 = 0x55, bits 10:9 = 0b10 -> 0x55 | (2 << 7) = 0x155
  // unslice clock: bits 8:0 = 0x0a5; reasons: GO transition (bit 23), clock ratio (bit 24)
  const std::uint32_t v = (0x55u << 25) | (1u << 24) | (1u << 23) | (1u << 18) | (1u << 17) |
                          (1u << 16) | (2u << 9) | 0x0a5u;
  auto r = decode_rpt_id(generation::gen9, v);
  EXPECT_TRUE(r.context_valid);
  EXPECT_TRUE(r.start_trigger_event);
  EXPECT_TRUE(r.threshold_enable);
  EXPECT_TRUE(has(r.reasons, report_reason::go_transition));
  EXPECT_TRUE(has(r.reasons, report_reason::clock_ratio));
  ASSERT_TRUE(r.has_clock_fields);
  EXPECT_EQ(r.slice_clock, 0x155u);
  EXPECT_EQ(r.unslice_clock, 0x0a5u);
  EXPECT_NEAR(r.unslice_clock_hz(), 0xa5 * 1e9 / 60.0, 1e-3);
  EXPECT_FALSE(decode_rpt_id(generation::gen9, 1u << 25).context_valid);
}

TEST(RptId, Gen12MmioTriggerAndGen7ReportId) {
  auto r = decode_rpt_id(generation::gen12, (1u << 25) | (1u << 20));
  EXPECT_TRUE(has(r.reasons, report_reason::mmio_trigger));
  EXPECT_TRUE(has(r.reasons, report_reason::trigger1));
  auto h = decode_rpt_id(generation::gen7_5, 0xc0ffee);
  EXPECT_FALSE(h.reasons_known);
  EXPECT_EQ(h.report_id(), 0xc0ffeeu);  // MI_REPORT_PERF_COUNT's Report ID
  EXPECT_EQ(reason_names(h), "unknown");
}

}  // namespace

#include "hwpc/intel/accumulate_parallel.hpp"

namespace {

TEST(AccumulateParallel, EqualsSingleThreadedIncludingEmptyChunksAndSkippedReports) {
  using namespace hwpc::intel;
  const report_format& f = *find_format(platform::skl, "A36_B8_C8");
  // 64k reports of 256 bytes = 16 MiB, enough for four 4 MiB chunks.
  const std::size_t n = 65536;
  std::vector<std::byte> bytes(f.size * n);
  std::mt19937_64 rng(7);
  const counter_list counters(f);
  std::vector<std::uint64_t> v(counters.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::byte* r = bytes.data() + i * f.size;
    for (std::size_t c = 0; c < counters.size(); ++c) {
      v[c] += rng() % (1u << 20) + ((rng() % 64 == 0) ? rng() : 0);
      put(r, counters[c], v[c] & counters[c].mask());
    }
    put(r, f.fields[0], 1 + (i % 7));
  }
  // A whole chunk (the second of four) never landed, and scattered reports too.
  for (std::size_t i = n / 4; i < n / 2; ++i) put(bytes.data() + i * f.size, f.fields[0], 0);
  for (std::size_t i = 0; i < n; i += 997) put(bytes.data() + i * f.size, f.fields[0], 0);
  auto buf = report_buffer::make(bytes, f);
  const accumulation one = accumulate(*buf);
  EXPECT_EQ(one.totals, accumulate_naive(*buf).totals);
  for (unsigned t : {2u, 3u, 4u, 8u}) {
    const accumulation many = accumulate_parallel(*buf, t);
    EXPECT_EQ(many.totals, one.totals) << t << " threads";
    EXPECT_EQ(many.elapsed_ticks, one.elapsed_ticks);
    EXPECT_EQ(many.intervals, one.intervals);
    EXPECT_EQ(many.reports, one.reports);
    EXPECT_EQ(many.skipped_zero, one.skipped_zero);
  }
}

}  // namespace

namespace {

// Arbitrary bytes of arbitrary length through every format: either an error
// naming an offset inside the input, or a full decode — never a crash or an
// out-of-bounds read (this suite also runs under ASan and UBSan).
TEST(BadInput, RandomBytesOfRandomLengthsNeverReadOutOfBounds) {
  using namespace hwpc::intel;
  std::mt19937_64 rng(99);
  for (int round = 0; round < 400; ++round) {
    const std::size_t len = rng() % 1200;
    // An exact-size heap block, so any over-read hits ASan's redzone.
    std::unique_ptr<std::byte[]> bytes(new std::byte[len == 0 ? 1 : len]);
    for (std::size_t i = 0; i < len; ++i) bytes[i] = std::byte(rng());
    for (const auto& f : all_formats) {
      auto buf = report_buffer::make(hwpc::byte_span(bytes.get(), len), f);
      if (!buf) {
        EXPECT_LE(buf.error_value().offset, len);
        EXPECT_EQ(len == 0 || len % f.size != 0, true);
        continue;
      }
      std::size_t rows = 0;
      for_each_interval(*buf, generation_of(f.platforms[0]), [&](const interval&) { ++rows; });
      EXPECT_EQ(accumulate(*buf).intervals, rows);
    }
  }
}

}  // namespace
