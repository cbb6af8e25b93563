// i915 perf read() stream: records, zero copy, every malformed-record error;
// the delta layer over raw buffers and streams crosses a loss only where the
// deltas are exact (loss_bound.hpp).
#include <gtest/gtest.h>

#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/loss_bound.hpp"
#include "hwpc/intel/rows.hpp"

namespace {

using namespace hwpc::intel;
using captest::bytes;

const report_format& a45() { return *find_format(platform::hsw, "A45_B8_C8"); }
const report_format& a12() { return *find_format(platform::skl, "A12"); }

bytes three_samples_and_losses(const report_format& f) {
  bytes s;
  captest::append(s, captest::sample(f, {1, 1000, 0, 10}));
  captest::append(s, captest::sample(f, {2, 2000, 0, 20}));
  captest::append(s, captest::lost(record_type::oa_report_lost));
  captest::append(s, captest::sample(f, {3, 3000, 0, 50}));
  captest::append(s, captest::lost(record_type::oa_buffer_lost));
  captest::append(s, captest::sample(f, {4, 4000, 0, 90}));
  captest::append(s, captest::sample(f, {5, 5000, 0, 91}));
  return s;
}

TEST(Stream, YieldsSamplesAndLossesInOrderWithoutCopying) {
  const auto s = three_samples_and_losses(a45());
  auto st = i915_stream::make(captest::span(s), a45());
  ASSERT_TRUE(st) << st.error_value().describe();
  EXPECT_EQ(st->records(), 7u);
  EXPECT_EQ(st->samples(), 5u);
  std::vector<event_kind> kinds;
  std::vector<std::size_t> offsets;
  for (const capture_event& e : *st) {
    kinds.push_back(e.kind);
    offsets.push_back(e.offset);
    if (e.is_report()) {
      // Zero copy: the view points at the payload in the caller's bytes.
      EXPECT_EQ(e.data, s.data() + e.offset + record_header_size);
      EXPECT_EQ(&e.report().format(), &a45());
    }
  }
  EXPECT_EQ(kinds,
            (std::vector<event_kind>{
                event_kind::report, event_kind::report, event_kind::report_lost, event_kind::report,
                event_kind::buffer_lost, event_kind::report, event_kind::report}));
  EXPECT_EQ(offsets, (std::vector<std::size_t>{0, 264, 528, 536, 800, 808, 1072}));
}

// Counters are free-running: the report after a loss pairs with the last one
// before it when no counter can have wrapped more than once in between
// (loss_bound.hpp). Here 1000 ticks: HSW's 32-bit A counters clear the bound
// (at most 256 clocks x 10 x 40 EUs = 102 400 a tick: 41 943 ticks).
TEST(Stream, IntervalsAcrossALossAreKeptWhereExact) {
  const auto s = three_samples_and_losses(a45());
  auto st = i915_stream::make(captest::span(s), a45());
  ASSERT_TRUE(st);
  std::vector<std::size_t> interval_at, gap_at, stretch;
  std::vector<std::uint64_t> a0;
  std::vector<bool> across;
  const auto stats = for_each_delta(
      *st, generation::gen7_5,
      [&](const capture_interval& iv) {
        interval_at.push_back(iv.offset);
        stretch.push_back(iv.stretch);
        EXPECT_EQ(iv.elapsed_ticks, 1000u);
        a0.push_back(iv.deltas[0]);
        across.push_back(iv.across_loss);
      },
      [&](const capture_discontinuity& d) { gap_at.push_back(d.offset); });
  // 1->2; 2->3 across the report loss; 3->4 across the buffer loss; 4->5.
  EXPECT_EQ(interval_at, (std::vector<std::size_t>{264, 536, 808, 1072}));
  EXPECT_EQ(a0, (std::vector<std::uint64_t>{10, 30, 40, 1}));
  EXPECT_EQ(across, (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(stretch, (std::vector<std::size_t>{0, 1, 2, 2}));
  EXPECT_EQ(gap_at, (std::vector<std::size_t>{528, 800}));
  EXPECT_EQ(stats.reports, 5u);
  EXPECT_EQ(stats.intervals, 4u);
  EXPECT_EQ(stats.across_loss, 2u);
  EXPECT_EQ(stats.discontinuities, 2u);
  EXPECT_EQ(stats.stretches, 1u);
  EXPECT_EQ(stats.unbridged, 0u);
}

// A loss longer than the bound allows: the interval is dropped and counted.
// 41 943 ticks is the last HSW A45 clears; 41 944 x 102 400 >= 2^32.
TEST(Stream, IntervalsAcrossALossTooLongAreDropped) {
  for (const std::uint32_t elapsed : {41'943u, 41'944u}) {
    bytes s;
    captest::append(s, captest::sample(a45(), {1, 1000, 0, 10}));
    captest::append(s, captest::lost(record_type::oa_report_lost));
    captest::append(s, captest::sample(a45(), {2, 1000 + elapsed, 0, 20}));
    auto st = i915_stream::make(captest::span(s), a45());
    ASSERT_TRUE(st);
    std::size_t n = 0;
    const auto stats = for_each_delta(
        *st, generation::gen7_5, [&](const capture_interval&) { ++n; },
        [](const capture_discontinuity&) {});
    const bool kept = elapsed == 41'943u;
    EXPECT_EQ(n, kept ? 1u : 0u) << elapsed;
    EXPECT_EQ(stats.across_loss, kept ? 1u : 0u);
    EXPECT_EQ(stats.unbridged, kept ? 0u : 1u);
    EXPECT_EQ(stats.stretches, kept ? 1u : 2u);
    // Through the row contract: one bucket per report.
    const hwpc::accounting acc = for_each_row(*st, generation::gen7_5, {}, [](hwpc::row&) {});
    EXPECT_TRUE(acc.balanced());
    EXPECT_EQ(acc.across_loss, kept ? 1u : 0u);
    EXPECT_EQ(acc.unbridged, kept ? 0u : 1u);
    EXPECT_EQ(acc.stretch_starts, 1u);
  }
  static_assert(count_exact_over(41'943, 32, 102'400));
  static_assert(!count_exact_over(41'944, 32, 102'400));
  static_assert(count_exact_over(~std::uint64_t{0} / 7, 64, 7));
  static_assert(!count_exact_over(~std::uint64_t{0} / 7 + 1, 64, 7));
  static_assert(highest_rate_per_tick(field_kind::a, generation::gen7_5) == 102'400);
}

TEST(Stream, DeltaRangeYieldsIntervalsAndDiscontinuities) {
  const auto s = three_samples_and_losses(a12());
  auto st = i915_stream::make(captest::span(s), a12());
  ASSERT_TRUE(st);
  auto range = deltas(*st, generation::gen9);
  std::string seq;
  std::vector<std::uint32_t> later;
  for (const delta_item& d : range) {
    seq += d.kind == delta_step::interval ? 'I' : 'D';
    if (d.kind == delta_step::interval) later.push_back(d.interval->later.rpt_id());
  }
  // Both losses are 1000 ticks: each report after one still pairs (across-loss).
  EXPECT_EQ(seq, "IDIDII");
  EXPECT_EQ(later, (std::vector<std::uint32_t>{2, 3, 4, 5}));
  EXPECT_EQ(range.stats().intervals, 4u);
  EXPECT_EQ(range.stats().across_loss, 2u);
}

TEST(Stream, UnknownRecordTypesAreSkippedBySize) {
  bytes s;
  captest::append(s, captest::sample(a12(), {1, 100, 0, 0}));
  captest::append(s, captest::record(42, bytes(24)));
  captest::append(s, captest::sample(a12(), {2, 200, 0, 5}));
  auto st = i915_stream::make(captest::span(s), a12());
  ASSERT_TRUE(st);
  EXPECT_EQ(st->unknown_records(), 1u);
  std::vector<std::size_t> idx;
  for (const auto& e : *st) idx.push_back(e.index);
  EXPECT_EQ(idx, (std::vector<std::size_t>{0, 2}));
}

struct bad_case {
  const char* name;
  bytes input;
  hwpc::errc code;
  std::size_t offset;
};

TEST(StreamErrors, EveryMalformedRecordNamesItsOffset) {
  const report_format& f = a12();  // 64-byte reports: SAMPLE records are 72 bytes
  const bytes good = captest::sample(f, {1, 1, 0, 0});
  auto with = [&](const bytes& tail) {
    bytes b = good;
    captest::append(b, tail);
    return b;
  };
  bytes short_sample = captest::sample(f, {1, 1, 0, 0});
  short_sample.resize(40);
  const std::vector<bad_case> cases = {
      {"size 0", with(captest::record(record_type::sample, bytes(64), 0)), hwpc::errc::inconsistent,
       72},
      {"size below header", with(captest::record(record_type::sample, bytes(64), 4)),
       hwpc::errc::inconsistent, 72},
      {"size past end", with(captest::record(record_type::sample, bytes(64), 200)),
       hwpc::errc::truncated, 72},
      {"sample too small", with(captest::record(record_type::sample, bytes(32))),
       hwpc::errc::inconsistent, 72},
      {"sample too large", with(captest::record(record_type::sample, bytes(128))),
       hwpc::errc::inconsistent, 72},
      {"report lost with payload", with(captest::record(record_type::oa_report_lost, bytes(8))),
       hwpc::errc::inconsistent, 72},
      {"buffer lost with payload", with(captest::record(record_type::oa_buffer_lost, bytes(8))),
       hwpc::errc::inconsistent, 72},
      {"trailing partial header", with(bytes(5)), hwpc::errc::truncated, 72},
      {"truncated sample", with(short_sample), hwpc::errc::truncated, 72},
      {"empty", bytes{}, hwpc::errc::empty_input, 0},
  };
  for (const auto& c : cases) {
    auto st = i915_stream::make(captest::span(c.input), f);
    ASSERT_FALSE(st) << c.name;
    EXPECT_EQ(st.error_value().code, c.code) << c.name << ": " << st.error_value().describe();
    EXPECT_EQ(st.error_value().offset, c.offset) << c.name << ": " << st.error_value().describe();
  }
  // base_offset shifts what errors report.
  auto shifted = i915_stream::make(captest::span(cases[0].input), f, 1000);
  ASSERT_FALSE(shifted);
  EXPECT_EQ(shifted.error_value().offset, 1072u);
  EXPECT_NE(shifted.error_value().describe().find("size 0"), std::string::npos);
}

TEST(RawCapture, SkipsZeroRptIdAndHonoursCallerGaps) {
  const report_format& f = a12();
  bytes raw;
  for (std::uint32_t k = 0; k < 6; ++k) {
    captest::append(raw, captest::make_report(f, {k == 2 ? 0u : k + 1, 100u * k, 0, 10u * k}));
  }
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  raw_capture cap(*buf, 4096);
  delta_tracker t(f, generation::gen9);
  std::vector<std::uint64_t> elapsed;
  std::size_t n = 0;
  for (const auto& e : cap) {
    EXPECT_EQ(e.offset, 4096 + e.index * 64);
    if (n++ == 4) {  // the caller knows data is missing before report 4
      EXPECT_EQ(t.mark_gap(e.offset), delta_step::discontinuity);
      EXPECT_EQ(t.discontinuity().kind, event_kind::gap);
      EXPECT_EQ(t.discontinuity().offset, 4096u + 4 * 64);
    }
    if (t.feed(e) == delta_step::interval) elapsed.push_back(t.interval().elapsed_ticks);
  }
  // 0->1, 1->3 (2 skipped), then the gap, 4->5.
  EXPECT_EQ(elapsed, (std::vector<std::uint64_t>{100, 200, 100}));
  EXPECT_EQ(t.stats().skipped_zero, 1u);
  // A caller's gap is never bridged, and the report after it is a stretch
  // start, not an interval the loss bound dropped.
  EXPECT_EQ(t.stats().stretches, 2u);
  EXPECT_EQ(t.stats().across_loss, 0u);
  EXPECT_EQ(t.stats().unbridged, 0u);
}

TEST(RawCapture, TimestampsExtendAcrossThe32BitWrap) {
  const report_format& f = a12();
  bytes raw;
  const std::uint32_t ts[] = {0xfffffe00u, 0xffffff00u, 0x00000100u, 0x00000200u};
  for (std::uint32_t k = 0; k < 4; ++k) {
    captest::append(raw, captest::make_report(f, {k + 1, ts[k], 0, 0}));
  }
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  std::vector<std::uint64_t> got;
  for_each_delta(
      raw_capture(*buf), generation::gen9,
      [&](const capture_interval& iv) { got.push_back(iv.timestamp); },
      [](const capture_discontinuity&) {});
  EXPECT_EQ(got, (std::vector<std::uint64_t>{0xffffff00u, 0x100000100u, 0x100000200u}));
}

}  // namespace
