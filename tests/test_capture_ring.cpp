// OA ring buffer reader: wrap-around at every report size, tail alignment and
// margin, zero-RPT_ID reports, status events, pointer errors; sampling periods.
#include <gtest/gtest.h>

#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/sampling.hpp"

namespace {

using namespace hwpc::intel;
using captest::bytes;

constexpr std::size_t ring_size = 128 * 1024;

const report_format& hsw(const char* name) { return *find_format(platform::hsw, name); }

// Writes `r` at ring offset `at`, wrapping at the end as the OA unit does.
void write_wrapped(bytes& ring, std::size_t at, const bytes& r) {
  for (std::size_t i = 0; i < r.size(); ++i) ring[(at + i) % ring.size()] = r[i];
}

// Fills n reports from `head` on: RPT_ID k+1, TIME_STAMP 1000*(k+1), counters 100*k + i.
std::size_t fill(bytes& ring, const report_format& f, std::size_t head, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    write_wrapped(
        ring, head + k * f.size,
        captest::make_report(f, {static_cast<std::uint32_t>(k + 1), 1000 * (k + 1), 0, 100 * k}));
  }
  return (head + n * f.size) % ring.size();
}

struct wrap_case {
  const char* format;
  std::size_t head;  // offset in the ring
  std::size_t n;     // reports written
};

class RingWrap : public ::testing::TestWithParam<wrap_case> {};

TEST_P(RingWrap, ReadsEveryReportAcrossTheEndOfTheRing) {
  const auto& c = GetParam();
  const report_format& f = hsw(c.format);
  bytes ring(ring_size);
  const std::size_t tail = fill(ring, f, c.head, c.n);
  auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(c.head, tail));
  ASSERT_TRUE(r) << r.error_value().describe();
  EXPECT_EQ(r->report_slots(), c.n);
  EXPECT_EQ(r->new_head_offset(), tail);
  const field& last = f.fields.back();
  std::size_t k = 0;
  bool wrapped = false;
  for (const capture_event& e : *r) {
    ASSERT_TRUE(e.is_report());
    EXPECT_EQ(e.index, k);
    EXPECT_EQ(e.offset, (c.head + k * f.size) % ring_size);
    if (e.offset + f.size > ring_size || e.offset < c.head) wrapped = true;
    const report_view v = e.report();
    EXPECT_EQ(v.rpt_id(), k + 1);
    EXPECT_EQ(v.timestamp(), 1000 * (k + 1));
    // The last field lies at the end of the report: for a report that
    // straddles the end of the ring it comes from the ring's start.
    EXPECT_EQ(v.value(last), 100 * k + f.fields.size() - 1) << "report " << k;
    ++k;
  }
  EXPECT_EQ(k, c.n);
  EXPECT_TRUE(wrapped);
}

INSTANTIATE_TEST_SUITE_P(
    EveryReportSize, RingWrap,
    ::testing::Values(wrap_case{"A13", ring_size - 3 * 64, 7},          // 64 B
                      wrap_case{"A29", ring_size - 3 * 128, 7},         // 128 B
                      wrap_case{"A29_B8_C8", ring_size - 320, 7},       // 192 B: report 1 straddles
                      wrap_case{"A29_B8_C8", ring_size - 64, 5},        // 192 B: report 0 straddles
                      wrap_case{"A29_B8_C8", ring_size - 128, 5},       // 192 B: 128 + 64
                      wrap_case{"A45_B8_C8", ring_size - 2 * 256, 6}),  // 256 B
    [](const auto& info) {
      return std::string(info.param.format) + "_head_end_minus_" +
             std::to_string(ring_size - info.param.head);
    });

TEST(Ring, DeltasPairTheStraddlingReportWithItsNeighbours) {
  const report_format& f = hsw("A29_B8_C8");
  bytes ring(ring_size);
  const std::size_t head = ring_size - 320;
  const std::size_t tail = fill(ring, f, head, 4);
  auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(head, tail));
  ASSERT_TRUE(r);
  std::vector<std::uint64_t> c7;
  for_each_delta(
      *r, generation::gen7_5,
      [&](const capture_interval& iv) {
        EXPECT_EQ(iv.elapsed_ticks, 1000u);
        c7.push_back(iv.deltas.back());
      },
      [](const capture_discontinuity&) { FAIL(); });
  EXPECT_EQ(c7, (std::vector<std::uint64_t>{100, 100, 100}));
}

TEST(Ring, TailIsAlignedDownToWholeReports) {
  const report_format& f = hsw("A29");  // 128 B; the tail moves in 64 B steps
  bytes ring(ring_size);
  fill(ring, f, 0, 3);
  auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(0, 2 * 128 + 64));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->report_slots(), 2u);
  EXPECT_EQ(r->new_head_offset(), 256u);
}

TEST(Ring, TailMarginHoldsBackTheNewestReports) {
  const report_format& f = hsw("A13");
  bytes ring(ring_size);
  const std::size_t tail = fill(ring, f, 0, 10);
  oa_ring_options o;
  o.tail_margin = 3 * 64;
  auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(0, tail), o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->report_slots(), 7u);
  EXPECT_EQ(r->new_head_offset(), 7u * 64);
  // Less than one report beyond the margin: nothing to read, the head stays.
  o.tail_margin = 10 * 64;
  auto none = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(0, tail), o);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->report_slots(), 0u);
  EXPECT_EQ(none->begin(), none->end());
  EXPECT_EQ(none->new_head_offset(), 0u);
  // A margin that is not a whole number of reports is rounded up.
  o.tail_margin = 65;
  auto up = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(0, tail), o);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->report_slots(), 8u);
}

TEST(Ring, EmptyWhenHeadEqualsTail) {
  bytes ring(ring_size);
  auto r = oa_ring::make(captest::span(ring), hsw("A13"), oa_ring_registers::offsets(640, 640));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->begin(), r->end());
  EXPECT_EQ(r->new_head_offset(), 640u);
}

TEST(Ring, ZeroRptIdReportsAreSkippedCountedAndConsumed) {
  const report_format& f = hsw("A13");
  bytes ring(ring_size);
  const std::size_t tail = fill(ring, f, 0, 5);
  captest::put32(ring.data() + 2 * 64, 0);  // report 2 never landed
  auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(0, tail));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->skipped_zero(), 1u);
  // Every slot is yielded, as raw_capture yields it; the unlanded one is not valid.
  std::vector<std::size_t> idx, landed;
  for (const auto& e : *r) {
    idx.push_back(e.index);
    if (e.report().is_valid()) landed.push_back(e.index);
  }
  EXPECT_EQ(idx, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(landed, (std::vector<std::size_t>{0, 1, 3, 4}));
  EXPECT_EQ(r->new_head_offset(), 5u * 64);
}

TEST(Ring, ZeroConsumedClearsRptIdLikeTheDriver) {
  const report_format& f = hsw("A29_B8_C8");
  bytes ring(ring_size);
  const std::size_t head = ring_size - 64;  // report 0 straddles the end
  const std::size_t tail = fill(ring, f, head, 3);
  fill(ring, f, tail, 1);  // one more report beyond the tail: not consumed
  auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(head, tail));
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->zero_consumed(std::span<std::byte>(ring.data(), ring.size())));
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(hwpc::load_le32(ring.data() + (head + k * 192) % ring_size), 0u);
  }
  EXPECT_EQ(hwpc::load_le32(ring.data() + tail), 1u);
  // Another buffer is refused.
  bytes other(ring_size);
  auto bad = r->zero_consumed(std::span<std::byte>(other.data(), other.size()));
  EXPECT_FALSE(bad);
  // A second pass over the same slots sees only never-written reports.
  auto again = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(head, tail));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->skipped_zero(), 3u);
  for (const auto& e : *again) EXPECT_FALSE(e.report().is_valid());
}

TEST(Ring, Gen7RegistersGiveGgttPointersSizeAndStatus) {
  const report_format& f = hsw("A13");
  bytes ring(ring_size);
  const std::uint32_t base = 0x01000000;  // HSW: 16 MiB aligned
  const std::size_t tail = fill(ring, f, 128, 4);
  // OASTATUS2: head | GGTT memory select (bit 0). OASTATUS1: tail | size 0 (128 KiB) | status.
  const std::uint32_t oastatus1 =
      (base + static_cast<std::uint32_t>(tail)) | (0u << 3) | oastatus::report_lost;
  const auto regs = oa_ring_registers::gen7(base, oastatus1, (base + 128) | 1u);
  EXPECT_EQ(hsw_oa_buffer_size(oastatus1), ring_size);
  EXPECT_EQ(hsw_oa_buffer_size(7u << 3), 16u << 20);
  EXPECT_EQ(regs.head, base + 128u);
  EXPECT_EQ(regs.status, oastatus::report_lost);
  auto r = oa_ring::make(captest::span(ring), f, regs);
  ASSERT_TRUE(r) << r.error_value().describe();
  EXPECT_EQ(r->new_head(), base + tail);
  std::vector<event_kind> kinds;
  for (const auto& e : *r) kinds.push_back(e.kind);
  ASSERT_EQ(kinds.size(), 5u);
  EXPECT_EQ(kinds[0], event_kind::report_lost);
  EXPECT_EQ(kinds[1], event_kind::report);
}

TEST(Ring, StatusBitsBecomeEventsBeforeTheReports) {
  const report_format& f = *find_format(platform::skl, "A32u40_A4u32_B8_C8");
  bytes ring(ring_size);
  const std::size_t tail = fill(ring, f, 0, 3);
  const std::uint64_t base = 0xfe000000;
  const auto regs = oa_ring_registers::gen8(
      base, static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(base + tail),
      oastatus::buffer_overflow | oastatus::report_lost | oastatus::counter_overflow |
          oastatus::overrun_status);
  auto r = oa_ring::make(captest::span(ring), f, regs);
  ASSERT_TRUE(r);
  std::vector<event_kind> kinds;
  for (const auto& e : *r) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<event_kind>{event_kind::buffer_lost, event_kind::report_lost,
                                            event_kind::counter_overflow, event_kind::report,
                                            event_kind::report, event_kind::report}));
  // The delta layer starts afresh after them: 3 reports, 2 intervals.
  const auto st = for_each_delta(
      *r, generation::gen9, [](const capture_interval&) {}, [](const capture_discontinuity&) {});
  EXPECT_EQ(st.discontinuities, 3u);
  EXPECT_EQ(st.intervals, 2u);

  oa_ring_options discard;
  discard.discard_on_buffer_overflow = true;
  auto d = oa_ring::make(captest::span(ring), f, regs, discard);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->report_slots(), 0u);
  EXPECT_EQ(d->new_head_offset(), tail);
  std::size_t n = 0;
  for (const auto& e : *d) n += e.is_report() ? 1 : 0;
  EXPECT_EQ(n, 0u);
}

TEST(Ring, SuccessiveReadsContinueTheDeltas) {
  const report_format& f = hsw("A13");
  bytes ring(ring_size);
  std::size_t head = ring_size - 128;
  std::size_t tail = fill(ring, f, head, 2);
  delta_tracker t(f, generation::gen7_5);
  std::size_t intervals = 0;
  auto pass = [&](std::size_t h, std::size_t tl) {
    auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(h, tl));
    EXPECT_TRUE(r);
    for (const auto& e : *r) {
      if (t.feed(e) == delta_step::interval) {
        ++intervals;
        EXPECT_EQ(t.interval().elapsed_ticks, 1000u);
      }
    }
    EXPECT_TRUE(r->zero_consumed(std::span<std::byte>(ring.data(), ring.size())));
    return r->new_head_offset();
  };
  head = pass(head, tail);
  // The unit writes two more reports (continuing the sequence) after the wrap.
  write_wrapped(ring, head, captest::make_report(f, {3, 3000, 0, 200}));
  write_wrapped(ring, head + 64, captest::make_report(f, {4, 4000, 0, 300}));
  tail = (head + 128) % ring_size;
  pass(head, tail);
  EXPECT_EQ(intervals, 3u);
}

// The OA ring's status says reports were lost between two reads: the
// tracker pairs the first report of the second read with the last of the
// first when the bound clears (2000 ticks here), and not when it cannot
// (10^6 ticks: SKL's 32-bit A counters could have wrapped twice).
TEST(Ring, AReportLostBetweenReadsIsBridgedWhereExact) {
  const report_format& f = *find_format(platform::skl, "A32u40_A4u32_B8_C8");
  for (const std::uint32_t late : {4000u, 1'002'000u}) {
    bytes ring(ring_size);
    std::size_t tail = fill(ring, f, 0, 2);  // TIME_STAMP 1000, 2000
    const std::uint64_t base = 0xfe000000;
    delta_tracker t(f, generation::gen9);
    std::vector<std::uint64_t> elapsed;
    std::vector<bool> across;
    auto pass = [&](std::size_t h, std::size_t tl, std::uint32_t status) {
      auto r =
          oa_ring::make(captest::span(ring), f,
                        oa_ring_registers::gen8(base, static_cast<std::uint32_t>(base + h),
                                                static_cast<std::uint32_t>(base + tl), status));
      ASSERT_TRUE(r);
      for (const auto& e : *r) {
        if (t.feed(e) == delta_step::interval) {
          elapsed.push_back(t.interval().elapsed_ticks);
          across.push_back(t.interval().across_loss);
        }
      }
    };
    pass(0, tail, 0);
    const std::size_t head = tail;
    write_wrapped(ring, head, captest::make_report(f, {3, late, 0, 300}));
    write_wrapped(ring, head + f.size, captest::make_report(f, {4, late + 1000, 0, 400}));
    tail = head + 2 * f.size;
    pass(head, tail, oastatus::report_lost);
    if (late == 4000u) {
      EXPECT_EQ(elapsed, (std::vector<std::uint64_t>{1000, 2000, 1000}));
      EXPECT_EQ(across, (std::vector<bool>{false, true, false}));
      EXPECT_EQ(t.stats().across_loss, 1u);
    } else {
      EXPECT_EQ(elapsed, (std::vector<std::uint64_t>{1000, 1000}));
      EXPECT_EQ(t.stats().unbridged, 1u);
    }
  }
}

TEST(RingErrors, InconsistentPointersNameTheOffset) {
  const report_format& f = hsw("A29");
  bytes ring(ring_size);
  auto check = [&](const oa_ring_registers& regs, hwpc::errc code, std::size_t offset) {
    auto r = oa_ring::make(captest::span(ring), f, regs);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error_value().code, code) << r.error_value().describe();
    EXPECT_EQ(r.error_value().offset, offset) << r.error_value().describe();
  };
  // Pointers outside the buffer are register values, not places in the ring:
  // no byte offset (error_anchor::none, offset 0); the message names them.
  check(oa_ring_registers::offsets(ring_size + 128, 0), hwpc::errc::inconsistent, 0);
  check(oa_ring_registers::offsets(0, ring_size + 64), hwpc::errc::inconsistent, 0);
  check({0x10000, 0x8000, 0x10000, 0}, hwpc::errc::inconsistent, 0);       // head below the base
  check(oa_ring_registers::offsets(64, 256), hwpc::errc::misaligned, 64);  // not a 128 B multiple
  check(oa_ring_registers::offsets(0, 96), hwpc::errc::misaligned, 96);
  // A pointer at the very end is the wrap point, as the driver accepts it.
  EXPECT_TRUE(oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(ring_size, 0)));
  const auto describe =
      oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(ring_size + 128, 0))
          .error_value()
          .describe();
  EXPECT_EQ(describe.find("byte offset"), std::string::npos) << describe;
  EXPECT_NE(describe.find("0x20080"), std::string::npos) << describe;
}

TEST(RingErrors, BadSizes) {
  const report_format& f = hsw("A13");
  for (std::size_t size : {std::size_t{0}, std::size_t{64 * 1024}, std::size_t{96 * 1024},
                           std::size_t{192 * 1024}, std::size_t{32} << 20}) {
    bytes ring(size);
    auto r = oa_ring::make(captest::span(ring), f, oa_ring_registers::offsets(0, 0));
    ASSERT_FALSE(r) << size;
    EXPECT_EQ(r.error_value().anchor, hwpc::error_anchor::none) << size;
    EXPECT_NE(r.error_value().message.find(std::to_string(size)), std::string::npos) << size;
  }
  bytes big(16u << 20);
  EXPECT_TRUE(oa_ring::make(captest::span(big), f, oa_ring_registers::offsets(0, 0)));
}

TEST(Sampling, PeriodsAndExponents) {
  EXPECT_EQ(period_ticks(0), 2u);
  EXPECT_EQ(period_ticks(16), 131072u);
  EXPECT_EQ(period_ticks(0, generation::gen6), 16u);  // SNB: 2^(exp+4)
  EXPECT_EQ(period_ticks(63), ~std::uint64_t{0});     // saturates
  // 12.5 MHz: 80 ns per tick; exponent 16 -> 131072 ticks = 10.48576 ms.
  EXPECT_DOUBLE_EQ(period_ns(16, 12'500'000), 10'485'760.0);
  EXPECT_EQ(exponent_for_period(10'485'760, 12'500'000), 16u);
  EXPECT_EQ(exponent_for_period(10'485'761, 12'500'000), 17u);
  EXPECT_EQ(exponent_for_period(10'485'759, 12'500'000), 16u);
  EXPECT_EQ(exponent_for_period(0, 12'500'000), 0u);
  EXPECT_EQ(exponent_for_period(1'000'000, 19'200'000), 14u);  // 19200 ticks -> 2^15
  EXPECT_EQ(exponent_for_period(1, 0), std::nullopt);
  EXPECT_EQ(exponent_for_period(~std::uint64_t{0}, 19'200'000), 58u);              // 3.5e17 ticks
  EXPECT_EQ(exponent_for_period(~std::uint64_t{0}, 4'000'000'000), std::nullopt);  // > 2^64 ticks
  EXPECT_EQ(exponent_for_period(1, std::uint64_t{1} << 33), std::nullopt);
  // Every exponent round-trips.
  for (unsigned e = 0; e < 40; ++e) {
    const auto ns = static_cast<std::uint64_t>(period_ns(e, 12'500'000));
    EXPECT_EQ(exponent_for_period(ns, 12'500'000), e) << e;
  }
  // Driver tail margin: 100 us at a 5.12 us period (exponent 5 at 12.5 MHz) is
  // 19 reports, plus one.
  EXPECT_EQ(tail_margin_bytes(5, 12'500'000, 256), 20u * 256);
  EXPECT_EQ(tail_margin_bytes(20, 12'500'000, 64), 64u);
}

}  // namespace
