// Unlanded reports on the Xe driver (FACTS-xe section 4): the kernel zeroes
// RPT_ID and TIME_STAMP of what it copies and takes a report as written when
// either is non-zero, so a report with RPT_ID 0 but a TIME_STAMP (an
// MMIO-triggered report has reason 0) is landed. Every delta path applies
// the rule to the Xe driver's rows and keeps i915's zero-RPT_ID rule for
// i915's rows; the skipped count says how many slots were unlanded.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/intel/accumulate.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/rows.hpp"

namespace {

namespace intel = hwpc::intel;
using intel::platform;

void put32(std::vector<std::byte>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}
void put64(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  put32(b, at, static_cast<std::uint32_t>(v));
  put32(b, at + 4, static_cast<std::uint32_t>(v >> 32));
}

// Four MPEC8u32_B8_C8 reports (128 bytes, FACTS-xe 3.2: qw0 RPT_ID, qw1
// TIME_STAMP, qw3 GPU_TICKS, MPEC i at dw(8+i)): a timer report, an
// MMIO-triggered one (RPT_ID 0, TIME_STAMP set), an unlanded slot (both 0,
// stale counters left), a timer report.
std::vector<std::byte> four_reports() {
  std::vector<std::byte> b(4 * 128, std::byte{0});
  const std::uint32_t ids[] = {1u << 19, 0, 0, 1u << 19};
  const std::uint64_t ts[] = {1000, 1500, 0, 3000};
  const std::uint64_t ticks[] = {10'000, 10'700, 99, 12'000};
  const std::uint32_t mpec0[] = {50, 60, 999, 80};
  for (std::size_t i = 0; i < 4; ++i) {
    put64(b, i * 128, ids[i]);
    put64(b, i * 128 + 8, ts[i]);
    put64(b, i * 128 + 24, ticks[i]);
    put32(b, i * 128 + 32, mpec0[i]);
  }
  return b;
}

const intel::report_format& xe_mpec() {
  return intel::find_xe_format(platform::lnl, "MPEC8u32_B8_C8")->layout;
}

TEST(XeUnlanded, RuleByDriver) {
  const auto b = four_reports();
  const auto& xe = xe_mpec();
  const auto& i915 = *intel::find_format(platform::mtl, "MPEC8u32_B8_C8");
  EXPECT_TRUE(xe.xe_landed_rule);
  EXPECT_FALSE(i915.xe_landed_rule);
  EXPECT_TRUE(intel::report_landed(b.data() + 128, xe));     // RPT_ID 0, TIME_STAMP 1500
  EXPECT_FALSE(intel::report_landed(b.data() + 256, xe));    // both 0
  EXPECT_FALSE(intel::report_landed(b.data() + 128, i915));  // i915: RPT_ID alone
  // Every Xe row takes the Xe rule, every i915 row keeps its own.
  for (const auto& x : intel::xe_formats) EXPECT_TRUE(x.layout.xe_landed_rule) << x.name;
  for (const auto& f : intel::all_formats) EXPECT_FALSE(f.xe_landed_rule) << f.name;
}

TEST(XeUnlanded, EveryDeltaPathSkipsOnlyTheUnlandedSlot) {
  const auto b = four_reports();
  auto buf = intel::report_buffer::make(hwpc::byte_span(b.data(), b.size()), xe_mpec()).value();
  // Columns: GPU_TICKS, MPEC0.., B.., C...
  std::vector<std::vector<std::uint64_t>> got;
  std::vector<std::size_t> reports;
  const auto st = intel::for_each_interval(buf, intel::generation::xe2, [&](const auto& iv) {
    got.push_back({iv.deltas.begin(), iv.deltas.end()});
    reports.push_back(iv.report);
  });
  EXPECT_EQ(st.skipped_zero, 1u);
  EXPECT_EQ(st.reports, 3u);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(reports, (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(got[0][0], 700u);
  EXPECT_EQ(got[0][1], 10u);
  EXPECT_EQ(got[1][0], 1300u);  // across the unlanded slot, to report 3
  EXPECT_EQ(got[1][1], 20u);

  // The reference tracker and the rows contract's accounting.
  const auto acc =
      intel::for_each_row(intel::raw_capture(buf), intel::generation::xe2, {}, [](hwpc::row&) {});
  EXPECT_EQ(acc.skipped_zero, 1u);
  EXPECT_EQ(acc.intervals, 2u);
  EXPECT_EQ(acc.reports, 4u);
  EXPECT_TRUE(acc.balanced());

  // Totals on every accumulate path.
  for (auto path : {intel::simd_path::scalar, intel::simd_path::automatic}) {
    const auto a = intel::accumulate(buf, intel::generation::xe2, path);
    EXPECT_EQ(a.skipped_zero, 1u);
    EXPECT_EQ(a.reports, 3u);
    EXPECT_EQ(a.intervals, 2u);
    EXPECT_EQ(a.totals[0], 2000u);
    EXPECT_EQ(a.totals[1], 30u);
    EXPECT_EQ(a.elapsed_ticks, 2000u);
  }
  const auto n = intel::accumulate_naive(buf, intel::generation::xe2);
  EXPECT_EQ(n.skipped_zero, 1u);
  EXPECT_EQ(n.totals[0], 2000u);

  // Columns.
  std::vector<std::uint64_t*> cols(xe_mpec().counter_count(), nullptr);
  std::vector<std::vector<std::uint64_t>> store(cols.size(), std::vector<std::uint64_t>(4));
  for (std::size_t i = 0; i < cols.size(); ++i) cols[i] = store[i].data();
  const std::size_t rows = intel::deltas_to_columns(buf, intel::generation::xe2, cols);
  ASSERT_EQ(rows, 2u);
  EXPECT_EQ(store[0][0], 700u);
  EXPECT_EQ(store[0][1], 1300u);
}

TEST(XeUnlanded, I915RowsKeepTheZeroRptIdRule) {
  const auto b = four_reports();
  const auto& i915 = *intel::find_format(platform::mtl, "MPEC8u32_B8_C8");
  auto buf = intel::report_buffer::make(hwpc::byte_span(b.data(), b.size()), i915).value();
  const auto st =
      intel::for_each_interval(buf, intel::generation::gen12_7, [](const intel::interval&) {});
  EXPECT_EQ(st.skipped_zero, 2u);
  EXPECT_EQ(intel::accumulate(buf, intel::generation::gen12_7).skipped_zero, 2u);
}

// The ring reader applies the same rule, and zero_consumed() clears both
// fields on the Xe driver's formats.
TEST(XeUnlanded, RingAppliesTheRule) {
  std::vector<std::byte> ring(128 * 1024, std::byte{0});
  const auto b = four_reports();
  std::copy(b.begin(), b.end(), ring.begin());
  const auto regs = intel::oa_ring_registers::offsets(0, 4 * 128);
  auto r = intel::oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), xe_mpec(), regs,
                                intel::oa_ring_options::xe(intel::generation::xe2, false))
               .value();
  EXPECT_EQ(r.report_slots(), 4u);
  EXPECT_EQ(r.skipped_zero(), 1u);
  std::size_t yielded = 0;
  for (const auto& e : r) yielded += !e.is_discontinuity() && e.report().is_valid() ? 1 : 0;
  EXPECT_EQ(yielded, 3u);
  ASSERT_TRUE(r.zero_consumed(std::span<std::byte>(ring.data(), ring.size())).has_value());
  const std::uint32_t mpec0[] = {50, 60, 999, 80};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_FALSE(intel::report_landed(ring.data() + i * 128, xe_mpec())) << i;
    EXPECT_EQ(hwpc::load_le32(ring.data() + i * 128 + 32), mpec0[i]) << "counters stay";
  }
}

}  // namespace
