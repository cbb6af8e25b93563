// Live Xe recording against the simulated Xe kernel (live/sim/xe.hpp): a
// recording made by live::record_xe equals the emulator's xe-perf recording
// of the same run record for record outside the TIMESTAMP_CORRELATION
// records (whose times are the wall clock) and decodes to the emulator's
// truth; the device queries it is built from are read as the uapi lays them
// out (a hostile reply is an error, not a read past it); a set the kernel
// lacks is uploaded with ADD_CONFIG and removed; every refusal says what to
// change.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "emu_crosscheck_util.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/live/sim/i915.hpp"
#include "hwpc/live/sim/xe.hpp"
#include "hwpc/live/xe_record.hpp"
#include "live_sim_fixture.hpp"

namespace {

namespace live = hwpc::live;
namespace sim = hwpc::live::sim;
namespace emu = hwpc::emu;
namespace intel = hwpc::intel;

constexpr const char* node = "/dev/dri/renderD128";
constexpr const char* uuid = hwpc::testing::sim_set_uuid;

using recorded = hwpc::testing::recorded<live::xe_record_counts>;

// Records until `ms` milliseconds have passed (the simulated unit writes its
// reports in real time).
recorded record(sim::kernel& k, const live::i915_record_options& o, int ms = 0) {
  return hwpc::testing::record_xe_for(k, o, ms);
}

using record_list = std::vector<std::pair<std::uint32_t, std::vector<std::byte>>>;

// (type, whole record) in file order; the correlation points apart.
record_list records_of(const std::vector<std::byte>& b, record_list* points = nullptr) {
  record_list out;
  for (std::size_t at = 0; at + 8 <= b.size();) {
    const std::uint32_t type = hwpc::load_le32(b.data() + at);
    const std::uint16_t size = hwpc::load_le16(b.data() + at + 6);
    if (size < 8 || at + size > b.size()) break;
    std::vector<std::byte> rec(b.begin() + static_cast<std::ptrdiff_t>(at),
                               b.begin() + static_cast<std::ptrdiff_t>(at + size));
    if (type != intel::xe_record_type::timestamp_correlation) {
      out.emplace_back(type, std::move(rec));
    } else if (points != nullptr) {
      points->emplace_back(type, std::move(rec));
    }
    at += size;
  }
  return out;
}

int span_ms(const emu::capture& cap) {
  const std::uint64_t ticks = cap.reports.empty() ? 0 : cap.reports.back().at.timestamp;
  return static_cast<int>(ticks * 1000 / cap.timestamp_hz);
}

void same_as_emulator(intel::platform p, const char* format, unsigned exponent,
                      emu::fault_set faults, std::size_t reports) {
  SCOPED_TRACE(std::string(intel::name_of(p)) + " " + format);
  sim::kernel k;
  sim::xe_config cfg;
  cfg.platform = p;
  cfg.reports = reports;
  cfg.seed = 11;
  cfg.faults = faults;
  sim::add_xe(k, node, cfg);
  auto cap = emu::emulate(sim::emulated_xe_run(cfg, format, exponent));
  ASSERT_TRUE(cap) << cap.error_value().describe();
  live::i915_record_options o;
  o.format = format;
  o.exponent = exponent;
  // The reports end at span_ms; the rest is room for a slow, loaded machine.
  const recorded r = record(k, o, span_ms(*cap) + 1000);
  ASSERT_TRUE(r.counts) << r.counts.error_value().describe();
  auto want = emu::xe_recording(*cap, {"RenderBasic", uuid});
  ASSERT_TRUE(want) << want.error_value().describe();
  record_list points, want_points;
  const auto got_records = records_of(r.bytes, &points);
  const auto want_records = records_of(*want, &want_points);
  ASSERT_EQ(got_records.size(), want_records.size());
  for (std::size_t i = 0; i < got_records.size(); ++i) {
    EXPECT_EQ(got_records[i], want_records[i])
        << "record " << i << " type " << got_records[i].first;
  }
  // Correlation points: one before the stream, one at the end (and one a
  // second in a slow run), in order, the last after every report. (The
  // first one's GPU time is taken while the simulated unit already runs,
  // so on a loaded machine it may follow the first report: not checked.)
  ASSERT_GE(points.size(), 2u);
  const auto gpu_of = [](const std::vector<std::byte>& rec) {
    return hwpc::load_le64(rec.data() + 16);
  };
  const auto cpu_of = [](const std::vector<std::byte>& rec) {
    return hwpc::load_le64(rec.data() + 8);
  };
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_GE(gpu_of(points[i].second), gpu_of(points[i - 1].second));
    EXPECT_GE(cpu_of(points[i].second), cpu_of(points[i - 1].second));
  }
  if (!cap->reports.empty()) {
    EXPECT_GT(gpu_of(points.back().second),
              cap->start.timestamp + cap->reports.back().at.timestamp);
  }

  // Decodes to the emulator's truth, through the reader `hwpc decode` uses.
  auto rec = intel::xe_recording::make({r.bytes.data(), r.bytes.size()});
  ASSERT_TRUE(rec) << rec.error_value().describe();
  EXPECT_EQ(rec->device_platform(), p);
  const auto rows = crosscheck::via_capture(*rec, cap->gen);
  auto truth = emu::truth_for(*cap, emu::output_kind::xe_recording);
  ASSERT_TRUE(truth);
  std::size_t failures = 0;
  EXPECT_TRUE(crosscheck::matches_truth(true, rows, *truth, false, intel::name_of(p), cap->cfg,
                                        emu::output_kind::xe_recording, "", failures));
  auto stream = emu::xe_stream_of(*cap);
  ASSERT_TRUE(stream);
  EXPECT_EQ(r.counts->samples, stream->bytes.size() / cap->report_size());
  EXPECT_EQ(r.counts->failed_reads, stream->losses.size());
}

TEST(LiveXeRecord, RecordingEqualsTheEmulatorsAndDecodesToTruth) {
  same_as_emulator(intel::platform::lnl, "PEC64u64", 12, {}, 40);
  same_as_emulator(intel::platform::bmg, "PEC64u64", 12, {}, 40);
  same_as_emulator(intel::platform::ptl, "PEC64u64", 12, {}, 40);
  // A generation before Xe2 on the Xe driver: A/B/C reports, SIMD8 EU masks.
  same_as_emulator(intel::platform::mtl, "A24u40_A14u32_B8_C8", 12, {}, 40);
}

TEST(LiveXeRecord, FailedReadsBecomeLossRecordsByStatusBit) {
  emu::fault_set lost;
  lost.report_lost = true;
  same_as_emulator(intel::platform::lnl, "PEC64u64", 12, lost, 40);
  emu::fault_set overflow;
  overflow.overflow = true;
  same_as_emulator(intel::platform::lnl, "PEC64u64", 8, overflow, 400);

  sim::kernel k;
  sim::xe_config cfg;
  cfg.reports = 40;
  cfg.faults = lost;
  sim::add_xe(k, node, cfg);
  live::i915_record_options o;
  o.exponent = 12;
  const recorded r = record(k, o, 300);
  ASSERT_TRUE(r.counts) << r.counts.error_value().describe();
  EXPECT_GT(r.counts->report_lost, 0u);
  EXPECT_EQ(r.counts->status_bits & live::xe::status::report_lost, live::xe::status::report_lost);
  EXPECT_NE(live::describe_xe_status(r.counts->status_bits).find("REPORT_LOST"), std::string::npos);
}

TEST(LiveXeRecord, DeviceInfoComesFromTheKernelsQueries) {
  sim::kernel k;
  sim::xe_config cfg;
  cfg.platform = intel::platform::bmg;
  sim::add_xe(k, node, cfg, 0);
  auto dev = live::xe_device::open(k, node);
  ASSERT_TRUE(dev) << dev.error_value().describe();
  const auto& i = dev->info();
  EXPECT_EQ(i.device_id, 0xe20bu);
  EXPECT_EQ(i.platform, intel::platform::bmg);
  EXPECT_EQ(i.oa_timestamp_hz, intel::info(intel::platform::bmg).timestamp_frequency_hz);
  EXPECT_EQ(i.engine.engine_class, 0);  // the OAG unit's first engine: render
  EXPECT_EQ(i.gt_max_hz, emu::sku_of(intel::platform::bmg).max_mhz * 1'000'000u);
  // 32 DSS positions, 20 present, 8 SIMD16 EUs each.
  ASSERT_GE(i.topology.size(), 16u + 1 + 4 + 32);
  EXPECT_EQ(hwpc::load_le16(i.topology.data() + 2), 1);   // max_slices
  EXPECT_EQ(hwpc::load_le16(i.topology.data() + 4), 32);  // max_subslices
  EXPECT_EQ(hwpc::load_le16(i.topology.data() + 6), 8);   // max_eus_per_subslice
  EXPECT_EQ(i.topology[16], std::byte{1});
  EXPECT_EQ(hwpc::load_le32(i.topology.data() + 17), 0xfffffu);
  EXPECT_TRUE(live::xe_device::is_xe(k, node));
  EXPECT_FALSE(live::xe_device::is_xe(k, "/dev/dri/renderD129"));  // no such node
  // An i915 node is not Xe, and opening it as Xe says so.
  sim::add_i915(k, "/dev/dri/renderD130", {}, 2);
  EXPECT_FALSE(live::xe_device::is_xe(k, "/dev/dri/renderD130"));
  auto i915 = live::xe_device::open(k, "/dev/dri/renderD130");
  ASSERT_FALSE(i915);
  EXPECT_NE(i915.error_value().message.find("not a device of the Xe driver"), std::string::npos)
      << i915.error_value().message;
  auto p = dev->engine_cycles();
  ASSERT_TRUE(p) << p.error_value().describe();
  EXPECT_GT(p->first, 0u);
}

TEST(LiveXeRecord, HostileQueryRepliesAreErrorsWithTheirOffset) {
  const auto bytes = [](std::initializer_list<std::uint32_t> words) {
    std::vector<std::byte> v;
    for (std::uint32_t w : words) {
      for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::byte>(w >> (8 * i)));
    }
    return v;
  };
  // HWCONFIG: an item whose length runs past the reply; a zero DSS count.
  auto h = live::parse_xe_hwconfig(bytes({1, 1, 1, 2, 5, 7}));
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error_value().offset, 12u);
  h = live::parse_xe_hwconfig(bytes({2, 1, 0}));
  ASSERT_FALSE(h);
  EXPECT_NE(h.error_value().message.find("max DSS 0"), std::string::npos);
  h = live::parse_xe_hwconfig(bytes({2, 1, 20, 3, 1, 8, 99, 2, 0, 0}));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->max_dss, 20u);
  EXPECT_EQ(h->max_eus, 8u);
  // GT_TOPOLOGY: a mask longer than the reply; no EU mask; a cut header.
  std::vector<std::byte> t = bytes({0x00010000u, 16, 0xff});
  auto r = live::xe_recording_topology(t, *h);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().offset, 0u);
  t = bytes({0x00010000u, 4, 0xff});
  r = live::xe_recording_topology(t, *h);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error_value().message.find("no DSS or EU mask"), std::string::npos);
  t.resize(t.size() + 3);
  r = live::xe_recording_topology(t, *h);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().offset, 12u);
  // A second GT's masks are not GT 0's.
  t = bytes({0x00010000u, 4, 0x0f, 0x00050001u, 4, 0xff});
  r = live::xe_recording_topology(t, *h);
  EXPECT_FALSE(r);
  t = bytes({0x00010000u, 4, 0x0f, 0x00050000u, 4, 0xff});
  r = live::xe_recording_topology(t, *h);
  ASSERT_TRUE(r) << r.error_value().describe();
  EXPECT_EQ(r->size(), 16u + 1 + 3 + 20);
}

TEST(LiveXeRecord, UploadsAMissingSetAndRemovesIt) {
  sim::kernel k;
  sim::xe_config cfg;
  cfg.reports = 16;
  cfg.metric_sets = {{"99999999-2222-4333-8444-555555555555", 1}};  // not ours
  sim::add_xe(k, node, cfg);
  live::i915_record_options o;
  o.exponent = 12;
  // Without registers: the kernel lacks the set, and the message says so.
  recorded r = record(k, o);
  ASSERT_FALSE(r.counts);
  EXPECT_NE(r.counts.error_value().message.find("cannot be uploaded (DRM_XE_OBSERVATION "
                                                "ADD_CONFIG)"),
            std::string::npos)
      << r.counts.error_value().message;
  o.upload = live::set_upload{{0x9888, 1}, {0xdc00, 2}, {0xe458, 3}};
  r = record(k, o, 200);
  ASSERT_TRUE(r.counts) << r.counts.error_value().describe();
  EXPECT_TRUE(r.counts->uploaded);
  EXPECT_EQ(r.counts->samples, 16u);
  // Removed at the end: sysfs no longer lists it, and removing it again is ENOENT.
  EXPECT_FALSE(k.read_file(std::string("/sys/class/drm/card0/metrics/") + uuid + "/id"));
  auto dev = live::xe_device::open(k, node);
  ASSERT_TRUE(dev);
  auto gone = dev->remove_config(2);
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error_value().message.find("ENOENT"), std::string::npos);
}

TEST(LiveXeRecord, AddConfigChecks) {
  sim::kernel k;
  sim::add_xe(k, node, {});
  auto dev = live::xe_device::open(k, node);
  ASSERT_TRUE(dev);
  const std::vector<std::uint32_t> regs{0x9888, 1};
  auto id = dev->add_config(uuid, regs);
  ASSERT_TRUE(id) << id.error_value().describe();
  EXPECT_EQ(*id, 1u);  // Xe hands out ids from 1
  EXPECT_EQ(k.read_file(std::string("/sys/class/drm/card0/metrics/") + uuid + "/id"), "1\n");
  auto again = dev->add_config(uuid, regs);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error_value().message.find("EADDRINUSE"), std::string::npos);
  auto empty = dev->add_config("22222222-2222-4333-8444-555555555555", {});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error_value().message.find("(EINVAL)"), std::string::npos);
  auto bad = dev->add_config("2222222x-2222-4333-8444-555555555555", regs);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error_value().message.find("(EINVAL)"), std::string::npos);
  EXPECT_TRUE(dev->remove_config(*id));
  EXPECT_FALSE(dev->remove_config(*id));

  sim::kernel kp;
  sim::xe_config paranoid;
  paranoid.paranoid = true;
  sim::add_xe(kp, node, paranoid);
  auto pdev = live::xe_device::open(kp, node);
  ASSERT_TRUE(pdev);
  auto refused = pdev->add_config(uuid, regs);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error_value().message.find("dev.xe.observation_paranoid is 1 (it is 1 here"),
            std::string::npos)
      << refused.error_value().message;
  EXPECT_NE(refused.error_value().message.find("CAP_PERFMON"), std::string::npos);
}

std::string refusal(const sim::xe_config& cfg, live::i915_record_options o,
                    const std::string& device = node) {
  sim::kernel k;
  sim::add_xe(k, node, cfg);
  o.device = device;
  const recorded r = record(k, o);
  EXPECT_FALSE(r.counts);
  return r.counts ? std::string() : r.counts.error_value().message;
}

TEST(LiveXeRecord, RefusalsSayWhatToChange) {
  sim::xe_config cfg;
  live::i915_record_options o;
  o.exponent = 12;
  sim::xe_config paranoid = cfg;
  paranoid.paranoid = true;
  std::string m = refusal(paranoid, o);
  EXPECT_NE(m.find("dev.xe.observation_paranoid is 1 (it is 1 here"), std::string::npos) << m;
  EXPECT_NE(m.find("CAP_PERFMON"), std::string::npos) << m;
  sim::xe_config no_exponent = cfg;
  no_exponent.refuse_exponent = true;
  m = refusal(no_exponent, o);
  EXPECT_NE(m.find("refused OA_PERIOD_EXPONENT 12 (EINVAL)"), std::string::npos) << m;
  m = refusal(cfg, o, "/dev/dri/renderD129");
  EXPECT_NE(m.find("no such device: /dev/dri/renderD129"), std::string::npos) << m;
  live::i915_record_options other = o;
  other.format = "A32u40_A4u32_B8_C8";
  m = refusal(cfg, other);
  EXPECT_NE(m.find("no Xe OA format of that name on lnl"), std::string::npos) << m;
  other.format = "PEC64u32";
  m = refusal(cfg, other);
  EXPECT_NE(m.find("only inferred"), std::string::npos) << m;
  other = o;
  other.ctx = 3;
  m = refusal(cfg, other);
  EXPECT_NE(m.find("EXEC_QUEUE_ID"), std::string::npos) << m;
  sim::xe_config listed = cfg;
  listed.metric_sets = {{uuid, 4}};
  other = o;
  other.set_id = 9;
  m = refusal(listed, other);
  EXPECT_NE(m.find("OA_METRIC_SET 9"), std::string::npos) << m;
  // Busy: a second recorder while the first holds the OA unit.
  sim::kernel k;
  sim::add_xe(k, node, cfg);
  auto dev = live::xe_device::open(k, node);
  ASSERT_TRUE(dev);
  live::xe_stream_options so;
  so.metric_set = 1;
  so.format = live::default_xe_record_format(intel::platform::lnl);
  auto held = live::xe_stream::open(k, dev->fd(), so);
  ASSERT_TRUE(held) << held.error_value().describe();
  const recorded busy = record(k, o);
  ASSERT_FALSE(busy.counts);
  EXPECT_NE(busy.counts.error_value().message.find("EBUSY"), std::string::npos);
}

}  // namespace
