// Misuse that would dangle does not compile: every public type that keeps a
// pointer to an argument refuses a temporary (a deleted rvalue overload), so
// `deltas(raw_capture(buf), gen)` is a compile error, not a use after scope.
// The checks are requires-expressions and type traits evaluated at compile
// time (a deleted overload makes them false); the tests then run the lvalue
// forms, which must keep working.
#include <gtest/gtest.h>

#include <type_traits>
#include <utility>
#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/expr.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/oa_ring.hpp"

namespace {

using namespace hwpc;
using namespace hwpc::intel;

template <class S>
concept deltas_accepts = requires(S&& s) {
  deltas(std::forward<S>(s), generation::gen9);
};

// deltas() over a named source compiles; over a temporary it does not.
static_assert(deltas_accepts<const raw_capture&>);
static_assert(deltas_accepts<raw_capture&>);
static_assert(!deltas_accepts<raw_capture>);
static_assert(!deltas_accepts<const raw_capture>);
static_assert(deltas_accepts<const i915_stream&>);
static_assert(!deltas_accepts<i915_stream>);
static_assert(deltas_accepts<const oa_ring&>);
static_assert(!deltas_accepts<oa_ring>);

static_assert(std::is_constructible_v<delta_range<raw_capture>, const raw_capture&, generation>);
static_assert(!std::is_constructible_v<delta_range<raw_capture>, raw_capture, generation>);

// Types that keep a pointer to a report format or a program.
static_assert(std::is_constructible_v<delta_tracker, const report_format&, generation>);
static_assert(!std::is_constructible_v<delta_tracker, report_format, generation>);
static_assert(std::is_constructible_v<expr::scalar_evaluator, const expr::program&>);
static_assert(!std::is_constructible_v<expr::scalar_evaluator, expr::program>);
static_assert(std::is_constructible_v<expr::batch_evaluator, const expr::program&>);
static_assert(!std::is_constructible_v<expr::batch_evaluator, expr::program>);

template <class F>
concept ring_make_accepts = requires(F&& f) {
  oa_ring::make(byte_span{}, std::forward<F>(f), oa_ring_registers{});
};
template <class F>
concept stream_make_accepts = requires(F&& f) {
  i915_stream::make(byte_span{}, std::forward<F>(f));
};
static_assert(ring_make_accepts<const report_format&>);
static_assert(!ring_make_accepts<report_format>);
static_assert(stream_make_accepts<const report_format&>);
static_assert(!stream_make_accepts<report_format>);

TEST(RobustnessApi, NamedSourcesStillWork) {
  const report_format& f = *find_format(platform::hsw, "A13");
  captest::bytes raw;
  for (std::uint32_t i = 1; i <= 3; ++i)
    captest::append(raw, captest::make_report(f, {i, 100 * i, 0, i}));
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  const raw_capture cap(*buf);
  std::size_t intervals = 0;
  for (const delta_item& d : deltas(cap, generation::gen7_5)) {
    if (d.kind == delta_step::interval) {
      ++intervals;
      EXPECT_EQ(d.interval->elapsed_ticks, 100u);
    }
  }
  EXPECT_EQ(intervals, 2u);
}

}  // namespace
