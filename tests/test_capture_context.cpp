// Per-context attribution: context-switch reports, the context-valid bit
// (bit 25 on Gen8, bit 16 on Gen9+), CTX_ID masks, Gen7 specific-context mode.
#include <gtest/gtest.h>

#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/i915_stream.hpp"

namespace {

using namespace hwpc::intel;
using captest::bytes;

constexpr std::uint32_t timer = 1u << 19;
constexpr std::uint32_t ctx_switch = 1u << 22;

struct step {
  std::uint32_t reason;
  bool valid;
  std::uint32_t ctx;
  std::uint64_t base;  // counter value
};

// Reports of `f` in a raw buffer, with the valid bit at `valid_bit`.
bytes reports(const report_format& f, unsigned valid_bit, const std::vector<step>& steps) {
  bytes raw;
  std::uint64_t ts = 0;
  for (const auto& s : steps) {
    const std::uint32_t rpt = s.reason | (s.valid ? 1u << valid_bit : 0u);
    captest::append(raw, captest::make_report(f, {rpt, ts += 100, s.ctx, s.base}));
  }
  return raw;
}

// ctx 0x10 runs, switches to 0x20, the GPU idles, then 0x10 runs again.
const std::vector<step> story = {
    {timer, true, 0x10, 0},        //
    {ctx_switch, true, 0x20, 10},  // 0->1: ran 0x10 (the earlier report's context)
    {timer, true, 0x20, 30},       // 1->2: 0x20
    {ctx_switch, false, 0, 60},    // 2->3: 0x20
    {timer, false, 0, 61},         // 3->4: no context
    {ctx_switch, true, 0x10, 70},  // 4->5: no context
    {timer, true, 0x10, 100},      // 5->6: 0x10
};

void check_story(platform p, unsigned valid_bit) {
  const report_format& f = *find_format(p, "A12");
  const bytes raw = reports(f, valid_bit, story);
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  context_accumulator acc(f, context_filter::from_reports());
  std::vector<std::optional<std::uint32_t>> owner;
  const auto filter = context_filter::from_reports();
  for_each_delta(
      raw_capture(*buf), generation_of(p),
      [&](const capture_interval& iv) {
        acc.add(iv);
        owner.push_back(filter.context_of(iv));
      },
      [](const capture_discontinuity&) {});
  using o = std::optional<std::uint32_t>;
  EXPECT_EQ(owner, (std::vector<o>{0x10u, 0x20u, 0x20u, std::nullopt, std::nullopt, 0x10u}));
  ASSERT_EQ(acc.contexts().size(), 2u);
  EXPECT_EQ(*acc.contexts()[0].ctx_id, 0x10u);
  const context_totals* a = acc.find(0x10);
  const context_totals* b = acc.find(0x20);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(acc.find(0x30), nullptr);
  // Counter 0 is GPU_TICKS; every counter advanced by the same amount.
  EXPECT_EQ(a->totals[0], 10u + 30u);
  EXPECT_EQ(b->totals[0], 20u + 30u);
  EXPECT_EQ(acc.no_context().totals[0], 1u + 9u);
  EXPECT_EQ(a->intervals, 2u);
  EXPECT_EQ(a->elapsed_ticks, 200u);
  EXPECT_EQ(acc.no_context().intervals, 2u);
}

TEST(Context, Gen8ValidBit25) { check_story(platform::bdw, 25); }
TEST(Context, Gen9ValidBit16) { check_story(platform::skl, 16); }

TEST(Context, WrongValidBitMeansNoContext) {
  // Bit 25 on Gen9 is a slice-clock bit, not context valid.
  const report_format& f = *find_format(platform::skl, "A12");
  const bytes raw = reports(f, 25, story);
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  context_accumulator acc(f, context_filter::from_reports());
  for_each_delta(
      raw_capture(*buf), generation::gen9, [&](const capture_interval& iv) { acc.add(iv); },
      [](const capture_discontinuity&) {});
  EXPECT_TRUE(acc.contexts().empty());
  EXPECT_EQ(acc.no_context().intervals, 6u);
}

TEST(Context, RingBufferModeMasksTheLowBits) {
  const report_format& f = *find_format(platform::bdw, "A12");
  const bytes raw =
      reports(f, 25, {{timer, true, 0x5000 | 0x123, 0}, {timer, true, 0x5000 | 0x456, 5}});
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  const auto filter = context_filter::from_reports(0xfffff000u);
  std::size_t matched = 0;
  for_each_delta(
      raw_capture(*buf), generation::gen8,
      [&](const capture_interval& iv) {
        EXPECT_EQ(filter.context_of(iv), 0x5000u);
        matched += filter.matches(iv, 0x5abc) ? 1 : 0;
      },
      [](const capture_discontinuity&) {});
  EXPECT_EQ(matched, 1u);
}

// An interval across a loss is charged to the earlier report's context, as
// any interval; one the bound cannot clear is charged to nobody.
TEST(Context, AnIntervalAcrossALossIsChargedToTheEarlierContext) {
  const report_format& f = *find_format(platform::skl, "A12");
  for (const std::uint32_t after : {900u, 100'000u}) {  // 800 ticks clear; 99 900 do not
    bytes s;
    captest::append(s, captest::sample(f, {timer | 1u << 16, 100, 0x10, 0}));
    captest::append(s, captest::lost(record_type::oa_buffer_lost));
    captest::append(s, captest::sample(f, {timer | 1u << 16, after, 0x20, 1000}));
    captest::append(s, captest::sample(f, {timer | 1u << 16, after + 100, 0x20, 1005}));
    auto st = i915_stream::make(captest::span(s), f);
    ASSERT_TRUE(st);
    context_accumulator acc(f, context_filter::from_reports());
    for_each_delta(
        *st, generation::gen9, [&](const capture_interval& iv) { acc.add(iv); },
        [](const capture_discontinuity&) {});
    if (after == 900u) {
      ASSERT_NE(acc.find(0x10), nullptr);
      EXPECT_EQ(acc.find(0x10)->totals[0], 1000u);
    } else {
      EXPECT_EQ(acc.find(0x10), nullptr);
    }
    ASSERT_NE(acc.find(0x20), nullptr);
    EXPECT_EQ(acc.find(0x20)->totals[0], 5u);
  }
}

TEST(Context, Gen7SpecificContextMode) {
  const gen7_oacontrol oc{0x12345000u | (16u << 6) | (1u << 5) | (5u << 2) | (1u << 1) | 1u};
  EXPECT_TRUE(oc.counter_enable());
  EXPECT_TRUE(oc.specific_context_enable());
  EXPECT_TRUE(oc.timer_enable());
  EXPECT_EQ(oc.timer_period(), 16u);
  EXPECT_EQ(oc.counter_select(), 5u);
  EXPECT_EQ(oc.context_id(), 0x12345000u);
  auto filter = context_filter::from_gen7_oacontrol(oc);
  ASSERT_TRUE(filter);
  const report_format& f = *find_format(platform::hsw, "A13");
  bytes raw;
  for (std::uint32_t k = 0; k < 4; ++k) {
    captest::append(raw, captest::make_report(f, {k + 1, 100u * k, 0, 3u * k}));
  }
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  context_accumulator acc(f, *filter);
  for_each_delta(
      raw_capture(*buf), generation::gen7_5, [&](const capture_interval& iv) { acc.add(iv); },
      [](const capture_discontinuity&) {});
  ASSERT_EQ(acc.contexts().size(), 1u);
  EXPECT_EQ(*acc.contexts()[0].ctx_id, 0x12345000u);
  EXPECT_EQ(acc.contexts()[0].totals[0], 9u);
  // Without specific-context mode the counts include every context: refused.
  EXPECT_FALSE(context_filter::from_gen7_oacontrol(gen7_oacontrol{0x12345000u | 1u}));
  // Gen7 reports carry no context: from_reports attributes nothing.
  context_accumulator none(f, context_filter::from_reports());
  for_each_delta(
      raw_capture(*buf), generation::gen7_5, [&](const capture_interval& iv) { none.add(iv); },
      [](const capture_discontinuity&) {});
  EXPECT_TRUE(none.contexts().empty());
  EXPECT_EQ(none.no_context().intervals, 3u);
}

}  // namespace
