// Hostile inputs must not buy unbounded time: per-context totals over a
// capture where every interval has its own context id stay linear (a hash
// lookup, not a scan of every context seen so far).
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/intel/context.hpp"
#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/formats.hpp"

namespace {

using namespace hwpc::intel;

TEST(RobustnessCost, EveryIntervalInItsOwnContextStaysLinear) {
  const report_format& f = *find_format(platform::tgl, "C4_B8");  // 12 counters: small totals
  const std::size_t nc = counter_list(f).size();
  std::vector<std::uint64_t> deltas(nc, 1);
  context_accumulator acc(f, context_filter::from_reports());
  constexpr std::uint32_t n = 200'000;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::byte> report(f.size);
  rpt_id_fields valid;
  valid.context_valid = true;
  capture_interval iv{.elapsed_ticks = 2,
                      .later = report_view(report.data(), f),
                      .rpt = valid,
                      .earlier_rpt = valid,
                      .deltas = deltas};
  for (std::uint32_t i = 0; i < n; ++i) {
    // Ids in an order that defeats the "same as the last one" shortcut.
    iv.earlier_ctx_id = (i * 2654435761u) | 1u;
    acc.add(iv);
  }
  iv.earlier_ctx_id = 1u;  // one repeat of an early context
  acc.add(iv);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(acc.contexts().size(), n);
  EXPECT_EQ(acc.contexts().front().ctx_id, 1u);  // first seen first
  ASSERT_NE(acc.find(1u), nullptr);
  EXPECT_EQ(acc.find(1u)->intervals, 2u);
  EXPECT_EQ(acc.find(1u)->totals[0], 2u);
  EXPECT_EQ(acc.find(2u), nullptr);  // every id is odd
  EXPECT_EQ(acc.no_context().intervals, 0u);
  // Linear: well under a second even in a sanitizer build; a scan of every
  // context per interval (2e10 comparisons) takes tens of seconds.
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
