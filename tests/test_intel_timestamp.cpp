// TIME_STAMP encoding per platform: DG2 (graphics 12.55) and MTL (12.70+)
// reports carry the timestamp shifted left by one, 31 bits valid (63 in
// MTL's 64-bit OAM field); the rest as is. The helpers, then every decoder
// path on hand-built DG2 and MTL reports, then the emulator's DG2 and MTL
// recordings against its own truth (docs/formats.md, "TIME_STAMP on DG2 and
// MTL").
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hwpc/emu.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace {

namespace emu = hwpc::emu;
namespace intel = hwpc::intel;
namespace metrics = hwpc::metrics;
using hwpc::intel::generation;
using hwpc::intel::oa_timestamp_field;
using hwpc::intel::oa_timestamp_ticks;

TEST(IntelTimestamp, Dg2ShiftsRightByOneAndKeeps31Bits) {
  static_assert(oa_timestamp_ticks(generation::gen12_5, 0x0000'0002) == 1);
  static_assert(oa_timestamp_ticks(generation::gen12_5, 0x0000'0003) == 1);  // low bit dropped
  static_assert(oa_timestamp_ticks(generation::gen12_5, 0xffff'fffe) == 0x7fff'ffff);
  static_assert(oa_timestamp_field(generation::gen12_5, 0x7fff'ffff) == 0xffff'fffe);
  static_assert(oa_timestamp_field(generation::gen12_5, 0x8000'0000) == 0);  // wraps at 2^31
  // A 2048-tick period on DG2 is a field step of 4096.
  EXPECT_EQ(
      oa_timestamp_ticks(generation::gen12_5, oa_timestamp_field(generation::gen12_5, 4096)) -
          oa_timestamp_ticks(generation::gen12_5, oa_timestamp_field(generation::gen12_5, 2048)),
      2048u);
}

// IGT's i915 reader and Mesa (MTL is verx10 125 there) shift MTL's field as
// DG2's.
TEST(IntelTimestamp, MeteorLakeShiftsAsDg2) {
  static_assert(oa_timestamp_ticks(generation::gen12_7, 0x0000'0002) == 1);
  static_assert(oa_timestamp_ticks(generation::gen12_7, 0xffff'fffe) == 0x7fff'ffff);
  static_assert(oa_timestamp_field(generation::gen12_7, 0x8000'0000) == 0);
  EXPECT_EQ(hwpc::intel::oa_timestamp_encoding_of(generation::gen12_7).bits, 31u);
  // The 64-bit OAM field of MTL: ticks = field >> 1, 63 bits; Xe2's 64-bit
  // field is the ticks.
  const intel::report_format* oam = intel::find_format(intel::platform::mtl, "MPEC8u32_B8_C8");
  ASSERT_NE(oam, nullptr);
  const auto r = intel::timestamp_reading::of(*oam, generation::gen12_7);
  EXPECT_EQ(r.shift, 1u);
  EXPECT_EQ(r.bits, 63u);
  EXPECT_EQ(r.ticks(0x2), 1u);
  EXPECT_EQ(r.ticks(0xffff'ffff'ffff'fffeull), 0x7fff'ffff'ffff'ffffull);
  EXPECT_EQ(r.step(0xffff'ffff'ffff'fffeull, 0x2), 2u);  // across the 2^63-tick wrap
}

TEST(IntelTimestamp, OthersUseTheFieldAsIs) {
  for (generation g : {generation::gen7_5, generation::gen9, generation::gen12}) {
    EXPECT_EQ(oa_timestamp_ticks(g, 0xffff'ffff), 0xffff'ffffu);
    EXPECT_EQ(oa_timestamp_field(g, 0x1234'5678), 0x1234'5678u);
    EXPECT_EQ(hwpc::intel::oa_timestamp_encoding_of(g).bits, 32u);
  }
}

// ---- the decoder on hand-built reports --------------------------------------

const intel::report_format& xehpg_format() {
  const intel::report_format* f = intel::find_format(intel::platform::dg2, "A24u40_A14u32_B8_C8");
  EXPECT_NE(f, nullptr);
  return *f;
}

// Reports of `f` with the given TIME_STAMP fields; a zero field list entry
// of `holes` marks a report with RPT_ID 0 (never written).
std::vector<std::byte> reports_with(const intel::report_format& f,
                                    std::span<const std::uint32_t> ts_fields,
                                    std::span<const bool> holes = {}) {
  const intel::field* ts = f.first_of(intel::field_kind::timestamp);
  EXPECT_NE(ts, nullptr);
  std::vector<std::byte> b(f.size * ts_fields.size(), std::byte{0});
  for (std::size_t i = 0; i < ts_fields.size(); ++i) {
    std::byte* r = b.data() + i * f.size;
    const bool hole = i < holes.size() && holes[i];
    hwpc::store_le32(r, hole ? 0u : 0x0000'0011u);
    hwpc::store_le32(r + ts->offset, ts_fields[i]);
  }
  return b;
}

struct timeline {
  std::vector<std::uint64_t> timestamps;  // of every interval's later report
  std::uint64_t elapsed = 0;
};

// Every decoder path over the same buffer must give the same timeline.
timeline every_path(const intel::report_buffer& buf, generation gen) {
  timeline ref;
  intel::for_each_delta(
      intel::raw_capture(buf), gen,
      [&](const intel::capture_interval& iv) {
        ref.timestamps.push_back(iv.timestamp);
        ref.elapsed += iv.elapsed_ticks;
      },
      [](const intel::capture_discontinuity&) {});
  timeline fe;
  intel::for_each_interval(buf, gen, [&](const intel::interval& iv) {
    fe.timestamps.push_back(iv.timestamp);
    fe.elapsed += iv.elapsed_ticks;
  });
  EXPECT_EQ(fe.timestamps, ref.timestamps);
  EXPECT_EQ(fe.elapsed, ref.elapsed);
  for (auto path : {intel::simd_path::automatic, intel::simd_path::scalar}) {
    const intel::counter_list counters(buf.format());
    std::vector<std::vector<std::uint64_t>> cols(counters.size(),
                                                 std::vector<std::uint64_t>(buf.size()));
    std::vector<std::uint64_t*> ptrs;
    for (auto& c : cols) ptrs.push_back(c.data());
    std::vector<std::uint64_t> ts(buf.size());
    const std::size_t n = intel::deltas_to_columns(buf, gen, ptrs, ts.data(), path);
    ts.resize(n);
    EXPECT_EQ(ts, ref.timestamps);
    EXPECT_EQ(intel::accumulate(buf, gen, path).elapsed_ticks, ref.elapsed);
  }
  EXPECT_EQ(intel::accumulate_naive(buf, gen).elapsed_ticks, ref.elapsed);
  EXPECT_EQ(intel::accumulate_parallel(buf, gen, 3).elapsed_ticks, ref.elapsed);
  return ref;
}

// Two DG2 or MTL reports whose fields differ by 2N are N ticks apart: the
// field counts twice per tick of the reported frequency. The same bytes read
// as TGL reports are 2N ticks apart.
TEST(IntelTimestamp, Dg2ReportPairIsHalfTheFieldDifferenceOnEveryPath) {
  const intel::report_format& f = xehpg_format();
  constexpr std::uint32_t n = 12'345;
  const std::uint32_t fields[] = {0x0000'1000, 0x0000'1000 + 2 * n};
  const auto bytes = reports_with(f, fields);
  const auto buf = intel::report_buffer::make(bytes, f).value();
  const timeline dg2 = every_path(buf, generation::gen12_5);
  EXPECT_EQ(dg2.elapsed, n);
  EXPECT_EQ(dg2.timestamps, (std::vector<std::uint64_t>{0x800 + n}));
  const timeline mtl = every_path(buf, generation::gen12_7);
  EXPECT_EQ(mtl.elapsed, n);
  EXPECT_EQ(mtl.timestamps, (std::vector<std::uint64_t>{0x800 + n}));
  const timeline tgl = every_path(buf, generation::gen12);
  EXPECT_EQ(tgl.elapsed, 2 * n);
  EXPECT_EQ(tgl.timestamps, (std::vector<std::uint64_t>{0x1000 + 2 * n}));
}

// The ticks wrap at 2^31 where the field wraps at 2^32: one whole turn of
// the 32-bit field is 2^31 ticks, and the extended timestamp carries on
// past 2^31 (and past 2^32) without a jump.
TEST(IntelTimestamp, Dg2TicksWrapAt31Bits) {
  const intel::report_format& f = xehpg_format();
  // ticks: 0x7ffffff8, 0x8, 0x40000000, 0x7fffffff, 0x1
  const std::uint32_t fields[] = {0xffff'fff0, 0x0000'0010, 0x8000'0000, 0xffff'fffe, 0x0000'0002};
  const auto bytes = reports_with(f, fields);
  const auto buf = intel::report_buffer::make(bytes, f).value();
  const timeline t = every_path(buf, generation::gen12_5);
  EXPECT_EQ(t.timestamps,
            (std::vector<std::uint64_t>{0x8000'0008, 0xc000'0000, 0xffff'ffff, 0x1'0000'0001}));
  EXPECT_EQ(t.elapsed, 0x1'0000'0001u - 0x7fff'fff8u);
}

// A field one lower than an odd predecessor is the same tick, not a wrap:
// the fast path (which counts dword wraps) must not add 2^31 for it.
TEST(IntelTimestamp, Dg2OddFieldOneLowerIsNoTickWrap) {
  const intel::report_format& f = xehpg_format();
  const std::uint32_t fields[] = {0x0000'0005, 0x0000'0004, 0x0000'0006};
  const auto bytes = reports_with(f, fields);
  const auto buf = intel::report_buffer::make(bytes, f).value();
  const timeline dg2 = every_path(buf, generation::gen12_5);
  EXPECT_EQ(dg2.elapsed, 1u);
  EXPECT_EQ(dg2.timestamps, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(every_path(buf, generation::gen12_7).elapsed, 1u);  // MTL as DG2
  // Read as it is (TGL), the same field goes back by one: nearly a whole wrap.
  EXPECT_EQ(every_path(buf, generation::gen12).elapsed, std::uint64_t{0xffff'ffff} + 2);
}

// A long run with several field wraps and zero-RPT_ID holes: every path
// bridges the holes and counts each 2^31-tick wrap.
TEST(IntelTimestamp, Dg2LongRunWithHolesAndWraps) {
  const intel::report_format& f = xehpg_format();
  constexpr std::uint32_t step = 0x0100'0002;  // 0x0080'0001 ticks
  std::vector<std::uint32_t> fields;
  std::array<bool, 600> holes{};
  std::uint32_t v = 0xf000'0000;
  for (std::size_t i = 0; i < holes.size(); ++i) {
    fields.push_back(v);
    v += step;
    holes[i] = i % 97 == 50;
  }
  const auto bytes = reports_with(f, fields, holes);
  const auto buf = intel::report_buffer::make(bytes, f).value();
  const timeline t = every_path(buf, generation::gen12_5);
  EXPECT_EQ(t.elapsed, std::uint64_t{599} * 0x0080'0001u);  // first and last reports are not holes
  EXPECT_GT(t.elapsed, std::uint64_t{1} << 32);
}

// ---- the emulator's DG2 recordings -----------------------------------------

// GpuTime and AvgGpuCoreFrequency as the metric files define them.
metrics::metric_set time_metrics() {
  metrics::metric_set s;
  s.symbol_name = "TimeOnly";
  s.name = "Time";
  auto add = [&](const char* sym, const char* eq) {
    metrics::metric m;
    m.symbol_name = sym;
    m.name = sym;
    m.equation = eq;
    s.metrics.push_back(m);
  };
  add("GpuTime", "GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV");
  add("GpuCoreClocks", "GPU_CLOCK 0 READ");
  add("AvgGpuCoreFrequency", "$GpuCoreClocks 1000000000 UMUL $GpuTime UDIV");
  return s;
}

// An emulated DG2 recording (TIME_STAMP wrapping inside it) decodes to the
// emulator's own timestamps, period and GT clocks, so GpuTime and
// AvgGpuCoreFrequency are the truth's, and the frequency lies in the part's
// GT range (with the raw field it would be half of it).
struct shifted_run {
  intel::platform platform;
  const char* format;
  const char* faults;
};

TEST(IntelTimestamp, EmulatedDg2AndMtlRecordingsGiveTheTruthsGpuTimeAndFrequency) {
  const shifted_run runs[] = {{intel::platform::dg2, "A24u40_A14u32_B8_C8", "none"},
                              {intel::platform::dg2, "A24u40_A14u32_B8_C8", "wrap"},
                              {intel::platform::dg2, "A24u40_A14u32_B8_C8", "wrap,report-lost"},
                              {intel::platform::mtl, "A24u40_A14u32_B8_C8", "none"},
                              {intel::platform::mtl, "A24u40_A14u32_B8_C8", "wrap,report-lost"},
                              {intel::platform::mtl, "MPEC8u32_B8_C8", "none"},
                              {intel::platform::mtl, "MPEC8u32_B8_C8", "wrap"}};
  for (const shifted_run& run : runs) {
    const char* faults = run.faults;
    SCOPED_TRACE(std::string(intel::name_of(run.platform)) + " " + run.format + " " + faults);
    emu::config c;
    c.platform = run.platform;
    c.format = run.format;
    c.exponent = 10;
    c.reports = 64;
    c.seed = 31;
    c.faults = emu::parse_faults(faults).value();
    const auto cap = emu::emulate(c).value();
    const auto bytes = emu::recording(cap).value();
    const auto truth = emu::truth_for(cap, emu::output_kind::recording).value();
    ASSERT_TRUE(truth.representable);
    intel::recording_options ro;
    ro.fallback_platform = run.platform;
    const auto rec =
        intel::recording::make(hwpc::byte_span(bytes.data(), bytes.size()), ro).value();
    const intel::report_format& f = rec.format();
    const intel::counter_list counters(f);
    const std::size_t clock = counters.index_of("GPU_TICKS");
    ASSERT_NE(clock, counters.size());
    std::size_t truth_clock = truth.names.size();
    for (std::size_t i = 0; i < truth.names.size(); ++i) {
      if (truth.names[i] == "GPU_TICKS") truth_clock = i;
    }
    ASSERT_NE(truth_clock, truth.names.size());

    auto compiled = metrics::compile(time_metrics()).value();
    const auto dev = metrics::to_device_values(metrics::device_of(rec));
    auto bound = compiled.bind(dev).value();
    std::vector<std::uint64_t> raw(bound.inputs().size());
    std::vector<hwpc::expr::value> got(bound.size()), want(bound.size());
    auto eval = [&](std::uint64_t ticks, std::uint64_t clocks, std::vector<hwpc::expr::value>& o) {
      for (std::size_t k = 0; k < raw.size(); ++k) {
        raw[k] = bound.inputs()[k].name == "GPU_TIME" ? ticks : clocks;
      }
      ASSERT_TRUE(bound.evaluate(raw, o));
    };
    const emu::sku& part = emu::device_of(c);
    std::size_t k = 0, at_period = 0;
    double fastest = 0.0;
    std::uint64_t prev_truth_ts = 0;
    bool have_prev = false;
    intel::for_each_delta(
        rec, cap.gen,
        [&](const intel::capture_interval& iv) {
          ASSERT_LT(k, truth.rows.size());
          const emu::truth_row& t = truth.rows[k++];
          EXPECT_EQ(iv.report, t.report);
          EXPECT_EQ(iv.timestamp, t.timestamp);
          EXPECT_EQ(iv.deltas[clock], t.deltas[truth_clock]);
          if (iv.elapsed_ticks == cap.period_ticks) ++at_period;
          // The truth's own elapsed ticks, where the previous truth row is the
          // interval's earlier report.
          if (have_prev && iv.timestamp - iv.elapsed_ticks == prev_truth_ts) {
            eval(iv.elapsed_ticks, iv.deltas[clock], got);
            eval(t.timestamp - prev_truth_ts, t.deltas[truth_clock], want);
            EXPECT_EQ(got, want);
          } else {
            eval(iv.elapsed_ticks, iv.deltas[clock], got);
          }
          const double hz = got[*bound.find("AvgGpuCoreFrequency")].as_double();
          if (iv.elapsed_ticks >= cap.period_ticks) {
            // No faster than the part's GT clock (one clock of rounding).
            EXPECT_LE(hz, part.max_mhz * 1.0e6 * 1.01) << "report " << iv.report;
            if (hz > fastest) fastest = hz;
          }
          prev_truth_ts = t.timestamp;
          have_prev = true;
        },
        [](const intel::capture_discontinuity&) {});
    EXPECT_EQ(k, truth.rows.size());
    EXPECT_GT(at_period, truth.rows.size() / 2);  // timer reports one period apart
    // Some interval ran at least at the part's lowest GT clock.
    EXPECT_GE(fastest, part.min_mhz * 1.0e6 * 0.99);
  }
}

}  // namespace
