// The emulator's workload and counter model: the relations a real GPU's
// counters keep hold in every interval, per generation; the SKU topology a
// recording carries is the one the model counts with.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "hwpc/emu.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/metrics/intel_device.hpp"

namespace {

namespace emu = hwpc::emu;
namespace intel = hwpc::intel;
using intel::platform;

emu::capture run(platform p, const char* fmt, std::uint64_t seed, bool ctx_switch = true) {
  emu::config c;
  c.platform = p;
  c.format = fmt;
  c.exponent = 7;
  c.reports = 160;
  c.seed = seed;
  c.faults.ctx_switch = ctx_switch;
  auto cap = emu::emulate(c);
  EXPECT_TRUE(cap.has_value());
  return std::move(*cap);
}

// Exact increments between consecutive reports the unit wrote.
template <class F>
void each_interval(const emu::capture& cap, F&& f) {
  for (std::size_t i = 1; i < cap.reports.size(); ++i) {
    emu::counter_totals d;
    const auto& a = cap.reports[i - 1].at;
    const auto& b = cap.reports[i].at;
    d.timestamp = b.timestamp - a.timestamp;
    d.gpu_ticks = b.gpu_ticks - a.gpu_ticks;
    for (std::size_t k = 0; k < emu::max_a; ++k) d.a[k] = b.a[k] - a.a[k];
    for (std::size_t k = 0; k < emu::max_bc; ++k) {
      d.b[k] = b.b[k] - a.b[k];
      d.c[k] = b.c[k] - a.c[k];
      d.mpec[k] = b.mpec[k] - a.mpec[k];
    }
    f(d);
  }
}

TEST(EmuWorkload, NodeArithmeticByHand) {
  // HSW: busy = clocks x busy share; EU time = busy x 20 EUs; active = EU
  // time x eu_active; stall = (EU time - active) x eu_stall; C2 = clocks.
  const emu::counter_model m(platform::hsw, emu::sku_of(platform::hsw), {{emu::bank::c, 2}});
  std::array<std::uint16_t, emu::role_count> share{};
  share.fill(500);
  std::vector<std::uint64_t> d;
  m.step(999, share, d);
  auto value = [&](emu::bank k, std::size_t i) {
    for (std::size_t n = 0; n < m.nodes().size(); ++n) {
      const auto& node = m.nodes()[n];
      if (node.counter && node.out_bank == k && node.out_index == i) return d[n];
    }
    return ~std::uint64_t{0};
  };
  EXPECT_EQ(value(emu::bank::a, 41), 499u);  // floor(999 / 2)
  EXPECT_EQ(value(emu::bank::a, 0), 4990u);  // 499 x 20 / 2
  EXPECT_EQ(value(emu::bank::a, 1), 2495u);  // (9980 - 4990) / 2
  EXPECT_EQ(value(emu::bank::a, 2), 2495u);  // VS: half of the active time
  EXPECT_EQ(value(emu::bank::a, 7), 1247u);  // HS: half of what VS left
  EXPECT_EQ(value(emu::bank::a, 4), 623u);   // VS core stall: half of 1247 (VS stall)
  EXPECT_EQ(value(emu::bank::c, 2), 999u);   // the clock signal
  EXPECT_EQ(value(emu::bank::b, 0), 249u);   // a signal: its share of the busy clocks
}

TEST(EmuWorkload, HaswellRelationsHoldInEveryInterval) {
  const unsigned eus = emu::sku_of(platform::hsw).eus();
  ASSERT_EQ(eus, 20u);
  std::size_t intervals = 0, busy_low = 0, busy_high = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto cap = run(platform::hsw, "A45_B8_C8", seed);
    each_interval(cap, [&](const emu::counter_totals& d) {
      ++intervals;
      const std::uint64_t clk = d.gpu_ticks;
      EXPECT_EQ(d.c[2], clk);  // C2 carries the GT clock (RenderBasic's GpuCoreClocks)
      EXPECT_LE(d.a[41], clk);
      EXPECT_LE(d.a[0] + d.a[1], eus * d.a[41]);  // EU active + stall <= EU time while busy
      std::uint64_t act = 0, stall = 0;
      for (std::size_t base : {2, 7, 12, 17, 22, 27}) {
        act += d.a[base];
        stall += d.a[base + 1];
        EXPECT_LE(d.a[base + 2], d.a[base + 1]);  // core stall <= stall
        // Threads dispatched: 20 to 100 active EU cycles each (the file's
        // *EuActivePerThread maximum is 100), so A(base) <= 100 x threads,
        // and none without an active cycle.
        EXPECT_LE(d.a[base], 100u * d.a[base + 3]);
        EXPECT_LE(d.a[base + 3], d.a[base]);
      }
      EXPECT_EQ(act, d.a[0]);  // every active EU cycle runs some stage
      EXPECT_EQ(stall, d.a[1]);
      EXPECT_GE(d.a[39], d.a[36]);  // post-PS depth fails include the killed ones
      EXPECT_LE(d.a[40], d.a[34]);  // RT writes <= pixels past the early tests
      EXPECT_LE(d.a[35], d.a[32]);  // slow test fails <= HiZ passes
      for (std::size_t k = 0; k < 8; ++k) {
        EXPECT_LE(4 * d.b[k], clk);
        if (k != 2) {
          EXPECT_LE(4 * d.c[k], clk);
        }
      }
      if (clk > 0) {
        const double busy = static_cast<double>(d.a[41]) / static_cast<double>(clk);
        busy_low += busy < 0.2;
        busy_high += busy > 0.7;
      }
    });
  }
  EXPECT_GT(intervals, 500u);
  // Phases give the timeline a shape: idle stretches and loaded ones.
  EXPECT_GT(busy_low, 10u);
  EXPECT_GT(busy_high, 100u);
}

TEST(EmuWorkload, Gen9RelationsHoldInEveryInterval) {
  const auto& sku = emu::sku_of(platform::skl);
  const std::uint64_t eus = sku.eus(), slices = sku.slices();
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto cap = run(platform::skl, "A36_B8_C8", seed);
    each_interval(cap, [&](const emu::counter_totals& d) {
      const std::uint64_t clk = d.gpu_ticks;
      EXPECT_LE(d.a[0], clk);
      EXPECT_LE(d.a[7] + d.a[8], eus * d.a[0]);
      EXPECT_LE(d.a[9], d.a[11]);  // both FPUs <= FPU1 <= FPU0 <= active
      EXPECT_LE(d.a[11], d.a[10]);
      EXPECT_LE(d.a[10], d.a[7]);
      EXPECT_LE(8 * d.a[7], 7 * eus * clk);  // EuThreadOccupancy on A7..A20 stays <= 100%
      EXPECT_EQ(d.a[21], d.a[22] + d.a[23] + d.a[24] + d.a[25] + d.a[26]);
      EXPECT_LE(d.a[27], d.a[26]);
      EXPECT_LE(d.a[29], d.a[28]);
      EXPECT_LE(d.a[28], slices * d.a[0]);
      EXPECT_LE(d.a[30] + d.a[31] + d.a[32], slices * d.a[0]);
      EXPECT_LE(d.a[33], d.a[32]);
      std::uint64_t bc = 0;
      for (std::size_t k = 0; k < 8; ++k) bc += d.b[k] + d.c[k];
      EXPECT_LE(bc, d.a[0]);      // sixteen signals, each <= 1/16 of the busy clocks
      EXPECT_LE(d.c[2], d.c[3]);  // stalled <= busy pairs of the Gen9 files
      EXPECT_LE(d.c[0], d.c[1]);
      EXPECT_LE(d.b[6], d.b[7]);
    });
  }
}

TEST(EmuWorkload, Gen12GroupsKeepOccupancyWithinThreads) {
  const auto& sku = emu::sku_of(platform::tgl);
  ASSERT_EQ(sku.eus(), 96u);
  std::uint64_t group_eus = 0;
  for (unsigned g = 0; g < 4; ++g) group_eus += sku.eus_in_group(g, 4);
  EXPECT_EQ(group_eus, 96u);
  const auto cap = run(platform::tgl, "A36_B8_C8", 3);
  each_interval(cap, [&](const emu::counter_totals& d) {
    std::uint64_t occ = 0, act = 0;
    for (unsigned g = 0; g < 4; ++g) {
      EXPECT_EQ(d.a[15 + g], 2 * d.a[7 + g]);
      EXPECT_LE(d.a[7 + g] + d.a[11 + g], sku.eus_in_group(g, 4) * d.a[0]);
      occ += d.a[15 + g];
      act += d.a[7 + g];
    }
    EXPECT_LE(8 * occ, 7 * 96 * d.gpu_ticks);  // EuThreadOccupancy <= 100%
    EXPECT_LE(act, 96 * d.a[0]);
  });
}

TEST(EmuWorkload, ClockSignalFollowsTheConfiguration) {
  emu::config c;
  c.platform = platform::hsw;
  c.format = "A45_B8_C8";
  c.reports = 40;
  c.clock_signals =
      std::vector<std::pair<emu::bank, std::uint8_t>>{{emu::bank::c, 7}, {emu::bank::b, 7}};
  const auto cap = emu::emulate(c).value();
  std::size_t moving = 0;
  each_interval(cap, [&](const emu::counter_totals& d) {
    EXPECT_EQ(d.c[7], d.gpu_ticks);
    EXPECT_EQ(d.b[7], d.gpu_ticks);
    EXPECT_LE(4 * d.c[2], d.gpu_ticks);
    moving += d.gpu_ticks > 0;
  });
  EXPECT_GT(moving, 20u);
}

TEST(EmuWorkload, SameSeedSameWorkload) {
  const auto a = run(platform::icl, "A36_B8_C8", 9);
  const auto b = run(platform::icl, "A36_B8_C8", 9);
  EXPECT_EQ(a.packed, b.packed);
  const auto c = run(platform::icl, "A36_B8_C8", 10);
  EXPECT_NE(a.packed, c.packed);
}

// What a recording says about the GPU is the SKU the counters were made on.
TEST(EmuWorkload, RecordingsCarryTheSkuTopology) {
  struct expect {
    platform p;
    const char* fmt;
    unsigned eus, slices;
    std::uint64_t subslice_mask;
  };
  for (const expect& e : {
           expect{platform::hsw, "A45_B8_C8", 20, 1, 0b11},
           expect{platform::bdw, "A36_B8_C8", 23, 1, 0b111},  // one EU fused off
           expect{platform::chv, "A36_B8_C8", 12, 1, 0b11},   // two per subslice
           expect{platform::glk, "A36_B8_C8", 12, 1, 0b011},  // subslice 2 fused off
           expect{platform::cnl, "A36_B8_C8", 40, 2, 0b011111},
           expect{platform::ehl, "A36_B8_C8", 24, 1, 0b0111},
           expect{platform::tgl, "A36_B8_C8", 96, 1, 0b111111},
           expect{platform::dg2, "A24u40_A14u32_B8_C8", 512, 8, 0xffffffffu},
           expect{platform::mtl, "A24u40_A14u32_B8_C8", 112, 2, 0x7f},  // one Xe-core fused off
       }) {
    emu::config c;
    c.platform = e.p;
    c.format = e.fmt;
    c.reports = 8;
    const auto cap = emu::emulate(c).value();
    const auto bytes = emu::recording(cap).value();
    intel::recording_options o;
    o.fallback_platform = e.p;
    const auto rec = intel::recording::make(hwpc::byte_span(bytes.data(), bytes.size()), o);
    ASSERT_TRUE(rec.has_value()) << rec.error_value().describe();
    const auto dev = hwpc::metrics::device_of(*rec);
    const auto& sku = emu::sku_of(e.p);
    EXPECT_EQ(dev.eu_count, e.eus) << sku.name;
    EXPECT_EQ(sku.eus(), e.eus) << sku.name;
    EXPECT_EQ(std::popcount(dev.slice_mask), static_cast<int>(e.slices)) << sku.name;
    EXPECT_EQ(dev.subslice_mask, e.subslice_mask) << sku.name;
    EXPECT_EQ(dev.gt_max_frequency_hz, std::uint64_t{sku.max_mhz} * 1'000'000u) << sku.name;
    EXPECT_EQ(dev.gt_min_frequency_hz, std::uint64_t{sku.min_mhz} * 1'000'000u) << sku.name;
  }
}

// Every phase's clock is within the SKU's range.
TEST(EmuWorkload, ClocksStayWithinTheSkuRange) {
  for (platform p : {platform::hsw, platform::skl, platform::dg2}) {
    const auto& sku = emu::sku_of(p);
    const auto cap = run(p,
                         p == platform::hsw   ? "A45_B8_C8"
                         : p == platform::dg2 ? "A24u40_A14u32_B8_C8"
                                              : "A36_B8_C8",
                         2);
    each_interval(cap, [&](const emu::counter_totals& d) {
      // One clock of rounding carried from the previous interval.
      EXPECT_LE(d.gpu_ticks * cap.timestamp_hz,
                (d.timestamp * sku.max_mhz * 1'000'000u) + cap.timestamp_hz);
    });
  }
}

}  // namespace

namespace {

// The largest per-clock rates (threads loaded on Gen7, 2x2s and data-port
// messages per slice on Gen8+) still fit 32-bit fields across a whole lost
// buffer at exponent 10 (docs/emulator.md "Outputs and the truth").
TEST(EmuWorkload, IncrementsFitTheirFieldsAcrossALostBuffer) {
  for (auto [p, fmt] : {std::pair{platform::hsw, "A45_B8_C8"},
                        {platform::icl, "A12"},
                        {platform::dg2, "A24u40_A14u32_B8_C8"}}) {
    emu::config c;
    c.platform = p;
    c.format = fmt;
    c.exponent = 10;
    c.reports = 16;
    c.faults.overflow = true;
    const auto cap = emu::emulate(c).value();
    EXPECT_GT(cap.stats.restarts, 0u) << fmt;
    for (auto k : {emu::output_kind::raw, emu::output_kind::i915_stream}) {
      EXPECT_TRUE(emu::truth_for(cap, k)->representable) << fmt;
    }
  }
}

}  // namespace

namespace {

// The README's first command decodes the default capture with RenderBasic:
// its totals must read like a GPU (GpuBusy = A41 / C2, EuActive = A0 / EUs
// / C2, EuStall = A1 / EUs / C2 on HSW).
TEST(EmuWorkload, DefaultCaptureReadsLikeAGpu) {
  const auto d = emu::default_capture();
  auto column = [&](const char* name) {
    const auto it = std::find(d.truth.names.begin(), d.truth.names.end(), name);
    EXPECT_NE(it, d.truth.names.end()) << name;
    const auto i = static_cast<std::size_t>(it - d.truth.names.begin());
    std::uint64_t sum = 0;
    for (const auto& r : d.truth.rows) sum += r.deltas[i];
    return static_cast<double>(sum);
  };
  const double clk = column("C2"), eus = emu::sku_of(platform::hsw).eus();
  const double busy = column("A41") / clk;
  const double active = column("A0") / eus / clk;
  const double stall = column("A1") / eus / clk;
  EXPECT_GT(busy, 0.5);
  EXPECT_LE(busy, 1.0);
  EXPECT_GT(active, 0.2);
  EXPECT_GT(stall, 0.05);
  EXPECT_LE(active + stall, busy);  // EuIdle = 100 % - active - stall >= 0
  // The stages' active times add up to EuActive.
  double stages = 0;
  for (const char* a : {"A2", "A7", "A12", "A17", "A22", "A27"}) stages += column(a);
  EXPECT_EQ(stages, column("A0"));
}

}  // namespace
