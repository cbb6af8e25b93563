// Time correlation under hostile recordings: integer arithmetic without
// overflow at the ends of the 64-bit clocks, saturation instead of wrapping
// when extrapolating, and correlation points that run backwards in either
// clock refused with the offending record's offset.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/time_correlation.hpp"

namespace {

using namespace hwpc::intel;
using captest::bytes;

constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();

// VERSION (16 bytes) + DEVICE_INFO (344 bytes): the first record after them
// is at byte offset 360, each correlation record is 24 bytes.
constexpr std::size_t first_after_header = 360;

bytes header(std::uint64_t freq = 12'500'000) {
  captest::device_spec d;
  d.freq = freq;
  bytes b = captest::version_record();
  captest::append(b, captest::device_info_record(d));
  return b;
}

TEST(RobustnessTime, CpuTimeRunningBackwardsIsRefusedAtItsRecord) {
  bytes b = header();
  captest::append(b, captest::correlation_record(2'000'000'000, 1000));
  captest::append(b, captest::correlation_record(1'000'000'000, 2000));
  auto r = recording::make(captest::span(b));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, hwpc::errc::inconsistent);
  EXPECT_EQ(r.error_value().offset, first_after_header + 24);
  EXPECT_NE(r.error_value().message.find("CPU time"), std::string::npos);
}

TEST(RobustnessTime, GpuTimeRunningBackwardsIsRefusedAtItsRecord) {
  bytes b = header();
  captest::append(b, captest::correlation_record(1'000'000'000, 1000));
  captest::append(b, captest::correlation_record(1'100'000'000, 3000));
  captest::append(b, captest::correlation_record(1'200'000'000, 2000));
  auto r = recording::make(captest::span(b));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, hwpc::errc::inconsistent);
  EXPECT_EQ(r.error_value().offset, first_after_header + 48);
  EXPECT_NE(r.error_value().message.find("GPU time"), std::string::npos);
}

TEST(RobustnessTime, CpuTimePastInt64MaxIsRefused) {
  bytes b = header();
  captest::append(b, captest::correlation_record(std::uint64_t{1} << 63, 1000));
  auto r = recording::make(captest::span(b));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, hwpc::errc::out_of_range);
  EXPECT_EQ(r.error_value().offset, first_after_header);
}

TEST(RobustnessTime, RepeatedGpuTimeKeepsTheFirstPoint) {
  bytes b = header();
  captest::append(b, captest::correlation_record(1'000'000'000, 1000));
  captest::append(b, captest::correlation_record(1'000'000'500, 1000));
  auto r = recording::make(captest::span(b));
  ASSERT_TRUE(r) << r.error_value().describe();
  ASSERT_EQ(r->time().points().size(), 1u);
  EXPECT_EQ(r->time().points()[0].cpu_ns, 1'000'000'000u);
  EXPECT_EQ(r->time().points()[0].offset, first_after_header);
}

TEST(RobustnessTime, InterpolationNearInt64MaxDoesNotOverflow) {
  auto tc = time_correlation::make({{static_cast<std::uint64_t>(i64_max) - 1000, 0, 0},
                                    {static_cast<std::uint64_t>(i64_max), 1000, 24}},
                                   1);
  ASSERT_TRUE(tc);
  EXPECT_EQ(tc->to_cpu(500).ns, i64_max - 500);
  EXPECT_EQ(tc->to_cpu(1000).ns, i64_max);
  // 1 Hz: one tick past the last point is a second past INT64_MAX ns, which
  // no CLOCK_MONOTONIC reading is: no CPU time, and an error naming the
  // report's record and the point.
  const cpu_time after = tc->to_cpu(1001);
  EXPECT_EQ(after.quality, time_quality::none);
  EXPECT_EQ(after.ns, 0);
  auto checked = tc->checked_cpu(1001, 4096);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error_value().code, hwpc::errc::out_of_range);
  EXPECT_EQ(checked.error_value().offset, 4096u);
  EXPECT_NE(checked.error_value().message.find("point at byte offset 24"), std::string::npos)
      << checked.error_value().message;
  EXPECT_TRUE(tc->checked_cpu(500, 4096));
}

TEST(RobustnessTime, FullRangeSegmentInterpolatesExactly) {
  // A caller's table spanning the whole clock: 2^63 - 1 ns over 2^64 - 1
  // ticks, so the product needs 127 bits.
  const time_correlation tc({{0, 0, 0}, {static_cast<std::uint64_t>(i64_max), u64_max, 24}}, 1);
  // round((2^63 - 1)^2 / (2^64 - 1)), worked out by hand in 128-bit integers.
  EXPECT_EQ(tc.to_cpu(static_cast<std::uint64_t>(i64_max)).ns, 4'611'686'018'427'387'903);
  EXPECT_EQ(tc.to_cpu(u64_max).ns, i64_max);
  EXPECT_EQ(tc.to_cpu(1).ns, 0);  // just under 0.5 ns rounds down
  // From a file one step is at most 2^63 - 1 ticks (more would run backwards).
  const std::uint64_t half = (std::uint64_t{1} << 63) - 1;
  auto f = time_correlation::make({{0, 0, 0}, {static_cast<std::uint64_t>(i64_max), half, 24}}, 1);
  ASSERT_TRUE(f) << f.error_value().describe();
  EXPECT_EQ(f->to_cpu(half).ns, i64_max);
  EXPECT_EQ(f->to_cpu(half / 2).ns, i64_max / 2);  // (2^62 - 1) ticks -> 2^62 - 0.5 ns, rounds down
}

TEST(RobustnessTime, ExtrapolationOutsideTheClockHasNoTime) {
  // GPU time is modular: 2^63 ticks from the only point is as far as a
  // timestamp can be. At 1 Hz that is ~2.9e11 years either way: past
  // INT64_MAX ns ahead, before 0 behind. Neither saturates nor wraps.
  auto tc = time_correlation::make({{5'000'000'000, std::uint64_t{1} << 63, 0}}, 1);
  ASSERT_TRUE(tc);
  const cpu_time ahead = tc->to_cpu(0);  // 2^63 ticks after (a tie goes forwards)
  EXPECT_EQ(ahead.quality, time_quality::none);
  const cpu_time before = tc->to_cpu(1);  // 2^63 - 1 ticks before
  EXPECT_EQ(before.quality, time_quality::none);
  EXPECT_EQ(before.ns, 0);
  // A bounded distance stays exact: 3 ticks at 1 Hz before 5 s is 2 s, and
  // 5 ticks before is exactly 0; 6 ticks would be before 0.
  const std::uint64_t at = std::uint64_t{1} << 63;
  EXPECT_EQ(tc->to_cpu(at - 3).ns, 2'000'000'000);
  EXPECT_EQ(tc->to_cpu(at - 5).ns, 0);
  EXPECT_EQ(tc->to_cpu(at - 5).quality, time_quality::extrapolated);
  EXPECT_EQ(tc->to_cpu(at - 6).quality, time_quality::none);
  auto checked = tc->checked_cpu(at - 6, 777);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error_value().offset, 777u);
  EXPECT_NE(checked.error_value().message.find("6 ticks before"), std::string::npos)
      << checked.error_value().message;
  EXPECT_NE(checked.error_value().message.find("before 0 ns"), std::string::npos);
  // At 19.2 MHz a tick is 52.083 ns: 192 ticks are 10000 ns exactly.
  auto f = time_correlation::make({{1'000'000, 1'000, 0}}, 19'200'000);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->to_cpu(1'192).ns, 1'010'000);
  EXPECT_EQ(f->to_cpu(1'001).ns, 1'000'052);  // 52.083 rounds down
  EXPECT_EQ(f->to_cpu(1'002).ns, 1'000'104);  // 104.17 rounds down
}

TEST(RobustnessTime, GpuTimeThatWrapsBetweenPointsRunsForwards) {
  // A 64-bit TIME_STAMP that wraps between the two points: 1280 ticks apart.
  auto tc =
      time_correlation::make({{1'000'000, u64_max - 639, 360}, {1'102'400, 640, 384}}, 12'500'000);
  ASSERT_TRUE(tc) << tc.error_value().describe();
  EXPECT_EQ(tc->to_cpu(u64_max - 639).ns, 1'000'000);
  EXPECT_EQ(tc->to_cpu(0).ns, 1'000'000 + 640 * 80);  // interpolated across the wrap
  EXPECT_EQ(tc->to_cpu(0).quality, time_quality::interpolated);
  EXPECT_EQ(tc->to_cpu(640).ns, 1'102'400);
  EXPECT_EQ(tc->to_cpu(650).ns, 1'102'400 + 800);            // after the last point
  EXPECT_EQ(tc->to_cpu(u64_max - 649).ns, 1'000'000 - 800);  // before the first
  // A step of 2^63 or more is backwards.
  auto back = time_correlation::make({{0, 0, 0}, {1, std::uint64_t{1} << 63, 24}}, 1);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error_value().offset, 24u);
  // Steps that each go forwards but together pass 2^64 ticks are refused.
  const std::uint64_t third = u64_max / 3 + 1;
  auto lap = time_correlation::make(
      {{0, 0, 0}, {1, third, 24}, {2, 2 * third, 48}, {3, 3 * third, 72}, {4, 4 * third, 96}}, 1);
  ASSERT_FALSE(lap);
  EXPECT_EQ(lap.error_value().code, hwpc::errc::out_of_range);
}

TEST(RobustnessTime, CallerTablesWithBackwardsCpuTimeStayDefined) {
  // The unchecked constructor takes any table: a CPU time that falls along
  // the GPU order interpolates downwards, and huge CPU times are clamped.
  time_correlation tc({{u64_max, 0, 0}, {0, 1000, 0}}, 1);
  EXPECT_EQ(tc.points()[0].cpu_ns, static_cast<std::uint64_t>(i64_max));
  EXPECT_EQ(tc.to_cpu(0).ns, i64_max);
  EXPECT_EQ(tc.to_cpu(1000).ns, 0);
  EXPECT_EQ(tc.to_cpu(500).ns, i64_max / 2);  // the step (2^63 - 1) / 2 rounds up
}

TEST(RobustnessTime, PortableMulDivMatchesThe128BitOne) {
  std::mt19937_64 rng(77);
  const std::uint64_t edges[] = {0,           1,           2,      3, 999'999'999, 1'000'000'000,
                                 u64_max / 2, u64_max - 1, u64_max};
  std::vector<std::uint64_t> values(std::begin(edges), std::end(edges));
  for (int i = 0; i < 64; ++i) values.push_back(rng() >> (rng() % 64));
  for (std::uint64_t a : values)
    for (std::uint64_t b : values)
      for (std::uint64_t d : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{12'500'000},
                              u64_max / 3, u64_max, rng() | 1}) {
        ASSERT_EQ(detail::mul_div_round_portable(a, b, d), detail::mul_div_round(a, b, d))
            << a << " * " << b << " / " << d;
      }
  EXPECT_EQ(detail::mul_div_round_portable(u64_max, u64_max, u64_max), u64_max);
  EXPECT_EQ(detail::mul_div_round_portable(u64_max, 2, 1), u64_max);  // saturates
  EXPECT_EQ(detail::mul_div_round_portable(5, 1, 2), 3u);             // 2.5 rounds up
}

}  // namespace
