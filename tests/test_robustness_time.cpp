// Time correlation under hostile recordings: integer arithmetic without
// overflow at the ends of the 64-bit clocks, saturation instead of wrapping
// when extrapolating, and correlation points that run backwards in either
// clock refused with the offending record's offset; Mali vinstr dumps whose
// time runs backwards refused at the later dump.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/time_correlation.hpp"
#include "hwpc/mali/gpus/g72.hpp"
#include "hwpc/mali/gpus/g720.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/vinstr.hpp"
#include "mali_test_util.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

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

// Mali vinstr: a sample's interval runs from the previous dump to its own, so
// a dump timestamped before the previous one is refused as kinstr_prfcnt
// refuses a sample that ends before it starts (one rule for both readers).
namespace {

using hwpc::mali::sample_layout;
using hwpc::mali::vinstr_capture;

constexpr sample_layout g72_layout{.l2_slices = 1, .core_mask = 0b1};  // 4 blocks, 1024 bytes

// Records of 32 bytes of metadata (timestamp first) and one sample each.
std::vector<std::byte> vinstr_records(const std::vector<std::uint64_t>& timestamps) {
  std::vector<std::byte> all;
  for (std::uint64_t ts : timestamps) {
    std::vector<std::byte> meta(hwpc::mali::vinstr_meta_bytes);
    mali_test::put_le(meta, 0, ts, 8);
    mali_test::put_le(meta, 8, 1, 4);  // periodic
    all.insert(all.end(), meta.begin(), meta.end());
    mali_test::sample_bytes s(g72_layout);
    s.front_end(6, 100);
    all.insert(all.end(), s.bytes.begin(), s.bytes.end());
  }
  return all;
}

TEST(RobustnessTime, MaliVinstrDumpBeforeThePreviousIsRefusedAtItsTimestamp) {
  const auto& g72 = hwpc::mali::gpus::g72;
  const std::size_t record = 32 + 1024;
  // Equal timestamps are an empty interval, accepted.
  const auto equal = vinstr_records({1000, 1000, 2000});
  auto ok = vinstr_capture::make(g72, g72_layout, equal, 64, true);
  ASSERT_TRUE(ok) << ok.error_value().describe();
  const auto bytes = vinstr_records({1'000'000, 2'000'000, 1'999'500});
  auto bad = vinstr_capture::make(g72, g72_layout, bytes, 64, true);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error_value().code, hwpc::errc::inconsistent);
  EXPECT_EQ(bad.error_value().offset, 64 + 2 * record);
  EXPECT_NE(bad.error_value().message.find("sample 2 ends (1999500 ns) before it starts (2000000"),
            std::string::npos)
      << bad.error_value().message;
}

// kinstr_prfcnt: each sample carries its start and end; the next may start
// where this one ends or later, never before (found by fuzz_time: sample 1
// started at 1000000 ns after sample 0 ended at 36283884716608 ns).
TEST(RobustnessTime, MaliKinstrSampleStartingBeforeThePreviousEndsIsRefused) {
  auto sample = [](std::uint64_t start, std::uint64_t end, std::uint64_t seq) {
    mali_test::kinstr_sample_spec s;
    s.ts_start = start;
    s.ts_end = end;
    s.seq = seq;
    s.blocks = {{0, 0, 0, 0x15, {0, 0, 0, 0, 7}}};
    return s;
  };
  const auto& g720 = hwpc::mali::gpus::g720;
  constexpr sample_layout one_core{.l2_slices = 1, .core_mask = 0b1};
  mali_test::kinstr_buffer ok(128);
  ok.add(sample(1000, 2000, 0));
  ok.add(sample(2000, 3000, 1));  // starts where the one before ended
  auto r = hwpc::mali::kinstr_reader::make(g720, one_core, ok.bytes);
  ASSERT_TRUE(r) << r.error_value().describe();
  for (int k = 0; k < 2; ++k) {
    auto s = r->next();
    ASSERT_TRUE(s && *s) << k;
  }
  mali_test::kinstr_buffer bad(128);
  bad.add(sample(1000, 2000, 0));
  bad.add(sample(1999, 3000, 1));
  auto rb = hwpc::mali::kinstr_reader::make(g720, one_core, bad.bytes, 64);
  ASSERT_TRUE(rb) << rb.error_value().describe();
  ASSERT_TRUE(rb->next());
  auto second = rb->next();
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error_value().code, hwpc::errc::inconsistent);
  EXPECT_EQ(second.error_value().offset, 64 + bad.sample_offsets[1]);
  EXPECT_NE(second.error_value().message.find(
                "sample starts (1999 ns) before the previous sample ends (2000 ns)"),
            std::string::npos)
      << second.error_value().message;
}

class MaliTimeTool : public hwpc::testing::tool_test {};

// Before: exit 0 and row 1 running from 1000000 to 999500 ns.
TEST_F(MaliTimeTool, HostileVinstrFileWhoseTimeRunsBackwardsIsBadInput) {
  const std::string file =
      std::string(HWPC_SHARED_DIR) + "/data/hostile/mali-g72-vinstr-time-backwards.hwpcmali";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is absent (../shared)";
  for (const char* extra : {"", " --summary"}) {
    auto r = hwpc::testing::run_tool(std::string("mali ") + file + extra);
    EXPECT_EQ(r.status, 2) << r.out;
    // Sample 1's metadata: after the 64-byte header and record 0 (32 + 1792 bytes).
    EXPECT_NE(r.out.find("offset 1888"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sample 1 ends (999500 ns) before it starts (1000000 ns"),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
