// IGT recordings: metadata records, platform from the device id, every
// malformed-record error, CPU time by correlation (inside and outside the
// correlated range), and 32-bit report timestamps against 64-bit GPU time.
#include <gtest/gtest.h>

#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/recording.hpp"

namespace {

using namespace hwpc::intel;
using captest::bytes;

const report_format& a45() { return *find_format(platform::hsw, "A45_B8_C8"); }

bytes header(const captest::device_spec& d = {}) {
  bytes b = captest::version_record();
  captest::append(b, captest::device_info_record(d));
  return b;
}

TEST(Recording, ReadsMetadataAndYieldsTheStream) {
  bytes b = header();
  captest::append(b, captest::topology_record());
  captest::append(b, captest::correlation_record(1'000'000'000, 1000));
  captest::append(b, captest::record(70000, bytes(16)));  // an unknown type, skipped
  captest::append(b, captest::sample(a45(), {1, 1000, 0, 0}));
  captest::append(b, captest::sample(a45(), {2, 2000, 0, 7}));
  captest::append(b, captest::lost(record_type::oa_buffer_lost));
  captest::append(b, captest::sample(a45(), {3, 3000, 0, 9}));
  captest::append(b, captest::correlation_record(1'000'400'000, 6000));

  ASSERT_TRUE(recording::looks_like_recording(captest::span(b)));
  auto r = recording::make(captest::span(b));
  ASSERT_TRUE(r) << r.error_value().describe();
  EXPECT_EQ(r->version(), 1u);
  EXPECT_EQ(r->device().device_id, 0x0412u);
  EXPECT_EQ(r->device().timestamp_frequency, 12'500'000u);
  EXPECT_EQ(r->device().metric_set_name, "RenderBasic");
  EXPECT_EQ(r->device().metric_set_uuid, "403d8832-1a27-4aa6-a64e-f5389ce7b212");
  EXPECT_EQ(r->device().offset, 16u);
  EXPECT_EQ(r->device_platform(), platform::hsw);
  EXPECT_TRUE(r->platform_from_device_id());
  EXPECT_EQ(&r->format(), &a45());
  ASSERT_TRUE(r->topology());
  EXPECT_TRUE(r->topology()->slice_available(0));
  EXPECT_TRUE(r->topology()->subslice_available(0, 2));
  EXPECT_FALSE(r->topology()->subslice_available(0, 1));
  EXPECT_FALSE(r->topology()->eu_available(0, 0, 7));
  EXPECT_EQ(r->topology()->eu_count(), 7u + 0u + 8u);
  EXPECT_EQ(r->time().points().size(), 2u);
  EXPECT_EQ(r->samples(), 3u);
  EXPECT_EQ(r->unknown_records(), 1u);

  std::vector<event_kind> kinds;
  for (const auto& e : *r) {
    kinds.push_back(e.kind);
    EXPECT_TRUE(e.has_reference_gpu_ts);
    EXPECT_EQ(e.reference_gpu_ts, 1000u);
  }
  EXPECT_EQ(kinds, (std::vector<event_kind>{event_kind::report, event_kind::report,
                                            event_kind::buffer_lost, event_kind::report}));
  // CPU time: 2000 ticks is 1/5 of the way from 1000 to 6000.
  const cpu_time t = r->time().to_cpu(2000);
  EXPECT_EQ(t.quality, time_quality::interpolated);
  EXPECT_EQ(t.ns, 1'000'080'000);
}

TEST(Recording, PlatformFromTheCallerWhenTheDeviceIdIsUnknown) {
  captest::device_spec d;
  d.device_id = 0xabcd;
  d.oa_format = 10;  // A32u40_A4u32_B8_C8 on Gen8+
  const bytes b = header(d);
  auto unknown = recording::make(captest::span(b));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error_value().code, hwpc::errc::unknown_format);
  EXPECT_EQ(unknown.error_value().offset, 16u + 8 + 8);  // the device_id field
  EXPECT_NE(unknown.error_value().message.find("0xabcd"), std::string::npos);

  recording_options o;
  o.fallback_platform = platform::tgl;
  auto r = recording::make(captest::span(b), o);
  ASSERT_TRUE(r) << r.error_value().describe();
  EXPECT_EQ(r->device_platform(), platform::tgl);
  EXPECT_FALSE(r->platform_from_device_id());
  EXPECT_EQ(r->format().name, "A36_B8_C8");
  // No correlation points: no CPU time.
  EXPECT_EQ(r->time().to_cpu(1234).quality, time_quality::none);
}

TEST(Recording, KnownPciIds) {
  EXPECT_EQ(platform_from_pci_id(0x1616), platform::bdw);
  EXPECT_EQ(platform_from_pci_id(0x1912), platform::skl);
  EXPECT_EQ(platform_from_pci_id(0x5916), platform::kbl);
  EXPECT_EQ(platform_from_pci_id(0x9a49), platform::tgl);
  EXPECT_EQ(platform_from_pci_id(0x56a0), platform::dg2);
  EXPECT_EQ(platform_from_pci_id(0xffff), std::nullopt);
}

TEST(Recording, ZeroFrequencyFallsBackToThePlatformDefault) {
  captest::device_spec d;
  d.freq = 0;
  const bytes b = header(d);
  auto r = recording::make(captest::span(b));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->timestamp_frequency(), 12'500'000u);
}

TEST(RecordingErrors, EveryMalformedRecordNamesItsOffset) {
  struct bad {
    const char* name;
    bytes input;
    hwpc::errc code;
    std::size_t offset;
  };
  const std::size_t after = 16 + 344;  // VERSION + DEVICE_INFO
  auto with = [&](const bytes& tail) {
    bytes b = header();
    captest::append(b, tail);
    return b;
  };
  bytes no_version = captest::device_info_record({});
  bytes v2 = captest::version_record(2);
  bytes short_version = captest::record(record_type::recording_version, bytes(4));
  bytes sample_first = captest::version_record();
  captest::append(sample_first, captest::sample(a45(), {1, 1, 0, 0}));
  bytes info_only_version = captest::version_record();
  captest::device_spec bad_format;
  bad_format.oa_format = 9;  // A12_B8_C8 is not a HSW format
  bytes short_topology = captest::topology_record();
  short_topology.resize(8 + 8);
  captest::put16(short_topology.data() + 6, 16);
  bytes tight_topology = captest::topology_record();
  captest::put16(tight_topology.data() + 8 + 12, 40);  // eu_offset beyond the record
  const std::vector<bad> cases = {
      {"empty", bytes{}, hwpc::errc::empty_input, 0},
      {"no VERSION first", no_version, hwpc::errc::unknown_format, 0},
      {"version 2", v2, hwpc::errc::unknown_format, 8},
      {"VERSION of wrong size", short_version, hwpc::errc::inconsistent, 0},
      {"SAMPLE before DEVICE_INFO", sample_first, hwpc::errc::inconsistent, 16},
      {"no DEVICE_INFO", info_only_version, hwpc::errc::inconsistent, 16},
      {"second DEVICE_INFO", with(captest::device_info_record({})), hwpc::errc::inconsistent,
       after},
      {"second VERSION", with(captest::version_record()), hwpc::errc::inconsistent, after},
      {"DEVICE_INFO of wrong size",
       [] {
         bytes b = captest::version_record();
         captest::append(b, captest::record(record_type::device_info, bytes(300)));
         return b;
       }(),
       hwpc::errc::inconsistent, 16},
      {"format not on platform", header(bad_format), hwpc::errc::unknown_format, 16 + 8 + 32},
      {"size 0", with(captest::record(record_type::sample, bytes(256), 0)),
       hwpc::errc::inconsistent, after},
      {"size 0 on a metadata record",
       with(captest::record(record_type::timestamp_correlation, bytes(16), 0)),
       hwpc::errc::inconsistent, after},
      {"size 0 on an unknown record", with(captest::record(99999, bytes(16), 0)),
       hwpc::errc::inconsistent, after},
      {"size below header", with(captest::record(record_type::sample, bytes(256), 7)),
       hwpc::errc::inconsistent, after},
      {"size past end", with(captest::record(record_type::sample, bytes(256), 4000)),
       hwpc::errc::truncated, after},
      {"SAMPLE of wrong size", with(captest::record(record_type::sample, bytes(128))),
       hwpc::errc::inconsistent, after},
      {"OA_REPORT_LOST with payload", with(captest::record(record_type::oa_report_lost, bytes(8))),
       hwpc::errc::inconsistent, after},
      {"correlation of wrong size",
       with(captest::record(record_type::timestamp_correlation, bytes(8))),
       hwpc::errc::inconsistent, after},
      {"topology shorter than its header", with(short_topology), hwpc::errc::inconsistent, after},
      {"topology masks outside the record", with(tight_topology), hwpc::errc::inconsistent, after},
      {"trailing bytes", with(bytes(3)), hwpc::errc::truncated, after},
  };
  for (const auto& c : cases) {
    auto r = recording::make(captest::span(c.input));
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error_value().code, c.code) << c.name << ": " << r.error_value().describe();
    EXPECT_EQ(r.error_value().offset, c.offset) << c.name << ": " << r.error_value().describe();
  }
}

TEST(TimeCorrelation, InterpolatesExtrapolatesAndDropsDuplicates) {
  // Out of order, with a duplicate GPU timestamp; 1 tick = 80 ns nominal.
  time_correlation tc({{2'000'000, 20'000, 0}, {1'000'000, 10'000, 0}, {9'999'999, 20'000, 0}},
                      12'500'000);
  ASSERT_EQ(tc.points().size(), 2u);
  EXPECT_EQ(tc.points()[1].cpu_ns, 2'000'000u);  // the first of the duplicates is kept
  EXPECT_EQ(tc.to_cpu(10'000).ns, 1'000'000);
  EXPECT_EQ(tc.to_cpu(15'000).ns, 1'500'000);
  EXPECT_EQ(tc.to_cpu(20'000).ns, 2'000'000);
  EXPECT_EQ(tc.to_cpu(15'000).quality, time_quality::interpolated);
  // Outside: from the nearest point at the nominal 80 ns per tick.
  const cpu_time before = tc.to_cpu(9'000);
  EXPECT_EQ(before.quality, time_quality::extrapolated);
  EXPECT_EQ(before.ns, 1'000'000 - 80'000);
  const cpu_time after = tc.to_cpu(21'000);
  EXPECT_EQ(after.quality, time_quality::extrapolated);
  EXPECT_EQ(after.ns, 2'000'000 + 80'000);
  // 10 000 ticks before the first point is 800 us before CLOCK_MONOTONIC 1 ms;
  // 12 501 ticks would be before 0, which no CLOCK_MONOTONIC time is.
  EXPECT_EQ(tc.to_cpu(0).ns, 200'000);
  EXPECT_EQ(tc.to_cpu(10'000 - 12'500).ns, 0);
  EXPECT_EQ(tc.to_cpu(10'000 - 12'501).quality, time_quality::none);
  // One point: exact on it, extrapolated elsewhere.
  time_correlation one({{500, 100, 0}}, 12'500'000);
  EXPECT_EQ(one.to_cpu(100).quality, time_quality::interpolated);
  EXPECT_EQ(one.to_cpu(101).ns, 580);
  // Large CPU times keep nanosecond resolution.
  time_correlation big({{1'000'000'000'000'000'000, 0, 0}, {1'000'000'000'000'001'000, 1000, 0}},
                       12'500'000);
  EXPECT_EQ(big.to_cpu(1).ns, 1'000'000'000'000'000'001);
}

TEST(TimeCorrelation, NearestTimestampPlaces32BitValuesOn64BitTime) {
  EXPECT_EQ(nearest_timestamp(0x10, 32, 0x1'fffffff0), 0x2'00000010u);         // just past a wrap
  EXPECT_EQ(nearest_timestamp(0xfffffff0u, 32, 0x2'00000010), 0x1'fffffff0u);  // just before
  EXPECT_EQ(nearest_timestamp(0x1234, 32, 0x5'00001000), 0x5'00001234u);
  EXPECT_EQ(nearest_timestamp(0xfffffff0u, 32, 0x10), 0xfffffff0u);  // cannot go below 0
  EXPECT_EQ(nearest_timestamp(77, 64, 5), 77u);
}

// A recording whose GPU time is past 2^32 and whose reports wrap their
// 32-bit TIME_STAMP; a buffer loss longer than a whole wrap in the middle.
TEST(Recording, ReportTimestampsFollowTheCorrelationClockAcrossWraps) {
  const std::uint64_t t0 = 0x3'ffffff00;  // GPU time at the first correlation
  bytes b = header();
  captest::append(b, captest::correlation_record(5'000'000'000, t0));
  const std::uint64_t ts[] = {t0 + 0x80, t0 + 0x180, t0 + 0x280};  // the last two past the wrap
  for (std::uint32_t k = 0; k < 3; ++k) {
    captest::append(b, captest::sample(a45(), {k + 1, ts[k] & 0xffffffffu, 0, 0}));
  }
  // Reports stop for longer than a TIME_STAMP wrap; a correlation comes first.
  captest::append(b, captest::lost(record_type::oa_buffer_lost));
  const std::uint64_t t1 = t0 + 0x3'00000000;  // 3 wraps later
  captest::append(b, captest::correlation_record(5'000'000'000 + 0x3'00000000ull * 80, t1));
  captest::append(b, captest::sample(a45(), {4, (t1 + 0x40) & 0xffffffffu, 0, 0}));
  captest::append(b, captest::sample(a45(), {5, (t1 + 0x140) & 0xffffffffu, 0, 0}));
  auto r = recording::make(captest::span(b));
  ASSERT_TRUE(r) << r.error_value().describe();
  std::vector<std::uint64_t> got;
  std::vector<std::int64_t> cpu;
  for_each_delta(
      *r, generation::gen7_5,
      [&](const capture_interval& iv) {
        got.push_back(iv.timestamp);
        cpu.push_back(r->time().to_cpu(iv.timestamp).ns);
      },
      [](const capture_discontinuity&) {});
  EXPECT_EQ(got, (std::vector<std::uint64_t>{ts[1], ts[2], t1 + 0x140}));
  EXPECT_EQ(cpu[0], 5'000'000'000 + 0x180 * 80);
  EXPECT_EQ(cpu[2], 5'000'000'000 + static_cast<std::int64_t>(0x3'00000140ull * 80));
}

// Reports recorded before the first correlation point get extrapolated times.
TEST(Recording, ReportsBeforeTheFirstCorrelationAreExtrapolated) {
  bytes b = header();
  captest::append(b, captest::sample(a45(), {1, 100, 0, 0}));
  captest::append(b, captest::sample(a45(), {2, 200, 0, 0}));
  captest::append(b, captest::correlation_record(1'000'000, 1000));
  captest::append(b, captest::correlation_record(2'000'000, 13'500));
  auto r = recording::make(captest::span(b));
  ASSERT_TRUE(r);
  std::vector<cpu_time> t;
  for_each_delta(
      *r, generation::gen7_5,
      [&](const capture_interval& iv) { t.push_back(r->time().to_cpu(iv.timestamp)); },
      [](const capture_discontinuity&) {});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].quality, time_quality::extrapolated);
  EXPECT_EQ(t[0].ns, 1'000'000 - 800 * 80);
}

// A recording's interval across a loss: kept when the correlation-placed
// elapsed ticks clear the bound (1000 ticks), dropped when they do not
// (0x3'00000000 ticks, three TIME_STAMP wraps: the counters may have wrapped
// many times), whatever the 32-bit fields say.
TEST(Recording, IntervalsAcrossALossFollowTheBound) {
  bytes b = header();
  captest::append(b, captest::correlation_record(1'000'000'000, 1000));
  captest::append(b, captest::sample(a45(), {1, 1000, 0, 5}));
  captest::append(b, captest::sample(a45(), {2, 2000, 0, 7}));
  captest::append(b, captest::lost(record_type::oa_buffer_lost));
  captest::append(b, captest::sample(a45(), {3, 3000, 0, 19}));
  captest::append(b, captest::lost(record_type::oa_report_lost));
  const std::uint64_t far = 3000 + 0x3'00000000ull;
  captest::append(b, captest::correlation_record(1'000'000'000 + far * 80, far));
  captest::append(b, captest::sample(a45(), {4, static_cast<std::uint32_t>(far + 500), 0, 20}));
  auto r = recording::make(captest::span(b));
  ASSERT_TRUE(r) << r.error_value().describe();
  std::vector<std::uint64_t> ends, a0;
  std::vector<bool> across;
  const auto st = for_each_delta(
      *r, generation::gen7_5,
      [&](const capture_interval& iv) {
        ends.push_back(iv.timestamp);
        a0.push_back(iv.deltas[0]);
        across.push_back(iv.across_loss);
      },
      [](const capture_discontinuity&) {});
  EXPECT_EQ(ends, (std::vector<std::uint64_t>{2000, 3000}));
  EXPECT_EQ(a0, (std::vector<std::uint64_t>{2, 12}));
  EXPECT_EQ(across, (std::vector<bool>{false, true}));
  EXPECT_EQ(st.across_loss, 1u);
  EXPECT_EQ(st.unbridged, 1u);  // report 4, 0x3'00000000 ticks after report 3
}

}  // namespace
