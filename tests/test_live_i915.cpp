// Live i915 capture against the simulated kernel (live/sim/i915.hpp): a
// recording made through the seam equals the emulator's recording of the
// same run outside the correlation points (whose times are the wall clock),
// decodes to the emulator's truth, and every refusal of the uapi reaches the
// user as a message that says what to change.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "emu_crosscheck_util.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/set_registers.hpp"
#include "hwpc/live/sim/i915.hpp"
#include "live_sim_fixture.hpp"

namespace {

namespace live = hwpc::live;
namespace sim = hwpc::live::sim;
namespace emu = hwpc::emu;
namespace intel = hwpc::intel;

constexpr const char* uuid = hwpc::testing::sim_set_uuid;

using recorded = hwpc::testing::recorded<live::i915_stream_counts>;

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR ""
#endif

// Records until `ms` milliseconds have passed (the simulated unit writes its
// reports in real time).
recorded record(sim::kernel& k, const live::i915_record_options& o, int ms = 0) {
  return hwpc::testing::record_i915_for(k, o, ms);
}

// (type, whole record) in file order, without the correlation points.
std::vector<std::pair<std::uint32_t, std::vector<std::byte>>> records_but_points(
    const std::vector<std::byte>& b) {
  std::vector<std::pair<std::uint32_t, std::vector<std::byte>>> out;
  for (std::size_t at = 0; at + 8 <= b.size();) {
    const std::uint32_t type = hwpc::load_le32(b.data() + at);
    const std::uint16_t size = hwpc::load_le16(b.data() + at + 6);
    if (size < 8 || at + size > b.size()) break;
    if (type != intel::record_type::timestamp_correlation) {
      out.emplace_back(type,
                       std::vector<std::byte>(b.begin() + static_cast<std::ptrdiff_t>(at),
                                              b.begin() + static_cast<std::ptrdiff_t>(at + size)));
    }
    at += size;
  }
  return out;
}

// How long the emulated unit took to write its reports.
int span_ms(const emu::capture& cap) {
  const std::uint64_t ticks = cap.reports.empty() ? 0 : cap.reports.back().at.timestamp;
  return static_cast<int>(ticks * 1000 / cap.timestamp_hz);
}

void same_as_emulator(intel::platform p, const char* format, unsigned exponent,
                      emu::fault_set faults) {
  SCOPED_TRACE(std::string(intel::name_of(p)) + " " + format);
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = p;
  cfg.reports = 48;
  cfg.seed = 11;
  cfg.faults = faults;
  sim::add_i915(k, live::default_render_node, cfg);
  auto cap = emu::emulate(sim::emulated_run(cfg, format, exponent));
  ASSERT_TRUE(cap) << cap.error_value().describe();
  live::i915_record_options o;
  o.format = format;
  o.exponent = exponent;
  const recorded r = record(
      k, o, span_ms(*cap) + 1000);  // the reports end at span_ms; the rest is room for slow builds
  ASSERT_TRUE(r.counts) << r.counts.error_value().describe();
  auto want = emu::recording(*cap, {"RenderBasic", uuid});
  ASSERT_TRUE(want) << want.error_value().describe();
  const auto got_records = records_but_points(r.bytes);
  const auto want_records = records_but_points(*want);
  ASSERT_EQ(got_records.size(), want_records.size());
  for (std::size_t i = 0; i < got_records.size(); ++i) {
    EXPECT_EQ(got_records[i], want_records[i])
        << "record " << i << " type " << got_records[i].first;
  }

  // Decodes to the emulator's truth.
  auto rec = intel::recording::make({r.bytes.data(), r.bytes.size()});
  ASSERT_TRUE(rec) << rec.error_value().describe();
  const auto rows = crosscheck::via_capture(*rec, cap->gen);
  auto truth = emu::truth_for(*cap, emu::output_kind::recording);
  ASSERT_TRUE(truth);
  std::size_t failures = 0;
  // Report indices are compared on raw reports only (as the emulator cross-checks do).
  EXPECT_TRUE(crosscheck::matches_truth(true, rows, *truth, false, intel::name_of(p), cap->cfg,
                                        emu::output_kind::recording, "", failures));
  std::size_t samples = 0, lost = 0;
  for (const auto& it : cap->read) {
    samples += it.k == emu::read_item::kind::sample;
    lost += it.k == emu::read_item::kind::buffer_lost;
  }
  EXPECT_EQ(r.counts->samples, samples) << "every report the kernel handed out, counted once";
  EXPECT_EQ(r.counts->buffer_lost, lost);
}

TEST(LiveI915, RecordingEqualsTheEmulatorsAndDecodesToTruth) {
  same_as_emulator(intel::platform::hsw, "A45_B8_C8", 12, {});
  same_as_emulator(intel::platform::skl, "A32u40_A4u32_B8_C8", 14, {});
  same_as_emulator(intel::platform::tgl, "A32u40_A4u32_B8_C8", 14, {});
  emu::fault_set wrap;
  wrap.wrap = true;
  same_as_emulator(intel::platform::tgl, "A32u40_A4u32_B8_C8", 14, wrap);
}

TEST(LiveI915, OverflowBecomesBufferLostRecordsNotSilence) {
  emu::fault_set overflow;
  overflow.overflow = true;
  same_as_emulator(intel::platform::skl, "A32u40_A4u32_B8_C8", 12, overflow);
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = intel::platform::skl;
  cfg.reports = 300;
  cfg.faults = overflow;
  sim::add_i915(k, live::default_render_node, cfg);
  live::i915_record_options o;
  o.exponent = 12;
  auto cap = emu::emulate(sim::emulated_run(cfg, "A32u40_A4u32_B8_C8", 12));
  ASSERT_TRUE(cap);
  const recorded r = record(
      k, o, span_ms(*cap) + 1000);  // the reports end at span_ms; the rest is room for slow builds
  ASSERT_TRUE(r.counts) << r.counts.error_value().describe();
  EXPECT_GT(r.counts->buffer_lost, 0u);
  auto rec = intel::recording::make({r.bytes.data(), r.bytes.size()});
  ASSERT_TRUE(rec);
  std::size_t losses = 0;
  for (const auto& e : *rec) losses += e.kind == intel::event_kind::buffer_lost;
  EXPECT_EQ(losses, r.counts->buffer_lost);
}

// The uapi as the simulated kernel enforces it, seen through live::i915_stream.
TEST(LiveI915, StreamIsDisabledAtOpenAndReadsWholeRecords) {
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = intel::platform::hsw;
  cfg.reports = 8;
  cfg.metric_sets = {{uuid, 7}};
  sim::add_i915(k, live::default_render_node, cfg);
  auto dev = live::i915_device::open(k, live::default_render_node);
  ASSERT_TRUE(dev) << dev.error_value().describe();
  EXPECT_EQ(dev->info().platform, intel::platform::hsw);
  EXPECT_EQ(dev->info().perf_revision, 5);
  auto id = dev->metrics_set_id(uuid);
  ASSERT_TRUE(id);
  EXPECT_EQ(*id, 7u);
  live::i915_stream_options so;
  so.metrics_set = 7;
  so.oa_format = 5;  // A45_B8_C8
  so.exponent = 12;
  auto s = live::i915_stream::open(*dev, so);
  ASSERT_TRUE(s) << s.error_value().describe();
  // Disabled at open: read() fails with EIO.
  std::vector<std::byte> bytes;
  auto r = s->read_ready(bytes);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error_value().message.find("EIO"), std::string::npos);
  // A second stream on the same GPU: EBUSY.
  auto second = live::i915_stream::open(*dev, so);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error_value().message.find("EBUSY"), std::string::npos);
  ASSERT_TRUE(s->enable());
  // Eight reports at 655 us each have landed after 20 ms.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto ready = s->wait(10);
  ASSERT_TRUE(ready);
  EXPECT_TRUE(*ready);
  // ENOSPC: a buffer smaller than one record; read_ready grows its buffer.
  char tiny[16];
  const auto raw = k.read(s->fd(), tiny, sizeof tiny);
  EXPECT_EQ(raw.err, ENOSPC);
  auto n = s->read_ready(bytes);
  ASSERT_TRUE(n) << n.error_value().describe();
  EXPECT_EQ(*n, 8u * (8 + 256));
  EXPECT_EQ(s->counts().samples, 8u);
  // Nothing more: EAGAIN is "0 bytes", not an error.
  auto again = s->read_ready(bytes);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0u);
  ASSERT_TRUE(s->disable());
  auto closed = s->wait(1);
  ASSERT_TRUE(closed);
  EXPECT_FALSE(*closed);
}

std::string refusal(sim::i915_config cfg, live::i915_record_options o,
                    const std::string& node = live::default_render_node) {
  sim::kernel k;
  sim::add_i915(k, node, cfg);
  const recorded r = record(k, o);
  EXPECT_FALSE(r.counts);
  return r.counts ? std::string() : r.counts.error_value().message;
}

TEST(LiveI915, RefusalsSayWhatToChange) {
  sim::i915_config cfg;
  live::i915_record_options o;
  o.exponent = 16;
  // No such device.
  live::i915_record_options elsewhere = o;
  elsewhere.device = "/dev/dri/renderD129";
  std::string m = refusal(cfg, elsewhere);
  EXPECT_NE(m.find("no such device: /dev/dri/renderD129"), std::string::npos) << m;
  // Paranoid and no CAP_PERFMON.
  sim::i915_config paranoid = cfg;
  paranoid.paranoid = true;
  paranoid.perfmon = false;
  m = refusal(paranoid, o);
  EXPECT_NE(m.find("dev.i915.perf_stream_paranoid"), std::string::npos) << m;
  EXPECT_NE(m.find("CAP_PERFMON"), std::string::npos) << m;
  EXPECT_NE(m.find("(it is 1 here)"), std::string::npos) << m;
  // A period faster than oa_max_sample_rate without CAP_PERFMON.
  sim::i915_config limited = cfg;
  limited.perfmon = false;
  live::i915_record_options fast = o;
  fast.exponent = 2;
  m = refusal(limited, fast);
  EXPECT_NE(m.find("dev.i915.oa_max_sample_rate (100000 Hz here)"), std::string::npos) << m;
  // A kernel that refuses the exponent.
  sim::i915_config no_exponent = cfg;
  no_exponent.refuse_exponent = true;
  m = refusal(no_exponent, o);
  EXPECT_NE(m.find("refused OA_EXPONENT 16 (EINVAL)"), std::string::npos) << m;
  // Out of range before asking the kernel.
  live::i915_record_options big = o;
  big.exponent = 32;
  m = refusal(cfg, big);
  EXPECT_NE(m.find("OA_EXPONENT 32 is out of range"), std::string::npos) << m;
  // A format of another generation.
  live::i915_record_options hsw_format = o;
  hsw_format.format = "A45_B8_C8";
  m = refusal(cfg, hsw_format);  // TGL
  EXPECT_NE(m.find("--format A45_B8_C8"), std::string::npos) << m;
  // A set the kernel does not have.
  sim::i915_config one_set = cfg;
  one_set.metric_sets = {{"99999999-2222-4333-8444-555555555555", 3}};
  m = refusal(one_set, o);
  EXPECT_NE(m.find("the kernel has no metric set " + std::string(uuid)), std::string::npos) << m;
  // A GEM context this process does not have.
  live::i915_record_options ctx = o;
  ctx.ctx = 5;
  m = refusal(cfg, ctx);
  EXPECT_NE(m.find("no GEM context 5 (CTX_HANDLE; ENOENT)"), std::string::npos) << m;
  // A config id the kernel does not know.
  live::i915_record_options bad_id = o;
  bad_id.set_id = 42;
  m = refusal(one_set, bad_id);
  EXPECT_NE(m.find("OA_METRICS_SET 42 or OA_FORMAT"), std::string::npos) << m;
}

TEST(LiveI915, ExponentForPeriodUsesTheKernelsFormula) {
  // HSW: 12.5 MHz, period 2^(e+1) * 80 ns: 1 ms is nearest e = 12 (655 us) or 13 (1.31 ms).
  EXPECT_EQ(live::exponent_for_period(1'310'720, 12'500'000), 13u);
  EXPECT_EQ(live::exponent_for_period(163'840, 12'500'000), 10u);
}

}  // namespace

namespace {

// A set the kernel lacks is uploaded with its registers, used, and removed.
TEST(LiveI915, UploadsAMissingSetAndRemovesIt) {
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = intel::platform::hsw;
  cfg.reports = 8;
  cfg.metric_sets = {{"99999999-2222-4333-8444-555555555555", 3}};
  sim::add_i915(k, live::default_render_node, cfg);
  live::i915_record_options o;
  o.exponent = 12;
  o.upload = live::set_upload{{0x9840, 0x80, 0x253a4, 0x1600000}, {0x2724, 0x800000}, {}};
  const recorded r = record(k, o, 20);
  ASSERT_TRUE(r.counts) << r.counts.error_value().describe();
  EXPECT_EQ(r.counts->samples, 8u);
  auto dev = live::i915_device::open(k, live::default_render_node);
  ASSERT_TRUE(dev);
  EXPECT_FALSE(dev->metrics_set_id(uuid)) << "the uploaded set outlived the recording";
  // Removing it again: the kernel no longer has it.
  EXPECT_FALSE(dev->remove_config(4));
  // Uploading needs the privilege a stream needs.
  sim::i915_config paranoid = cfg;
  paranoid.paranoid = true;
  paranoid.perfmon = false;
  sim::kernel k2;
  sim::add_i915(k2, live::default_render_node, paranoid);
  const recorded refused = record(k2, o);
  ASSERT_FALSE(refused.counts);
  EXPECT_NE(refused.counts.error_value().message.find("refused to add metric set"),
            std::string::npos)
      << refused.counts.error_value().message;
  // Flex registers on Haswell: EINVAL, said as such.
  live::i915_record_options flex = o;
  flex.upload->flex = {0xe458, 0x5};
  sim::kernel k3;
  sim::add_i915(k3, live::default_render_node, cfg);
  const recorded bad = record(k3, flex);
  ASSERT_FALSE(bad.counts);
  EXPECT_NE(bad.counts.error_value().message.find("flex registers before Gen8"), std::string::npos);
}

#ifdef HWPC_HAVE_PUGIXML
TEST(LiveI915, RegistersOfASetFromItsMetricFile) {
  const std::string path = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << "../shared is absent: " << path;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto regs = live::registers_of(text, "RenderBasic");
  ASSERT_TRUE(regs) << regs.error_value().describe();
  EXPECT_EQ(regs->uuid.size(), 36u);
  EXPECT_FALSE(regs->mux.empty());
  EXPECT_FALSE(regs->boolean.empty());
  EXPECT_TRUE(regs->flex.empty());  // Haswell has no flex EU counters
  EXPECT_EQ(regs->conditional_blocks, 0u);
  EXPECT_EQ(regs->mux.front(), (live::register_write{0x9840, 0x80}));
  EXPECT_FALSE(live::registers_of(text, "NoSuchSet"));
}
#endif

}  // namespace
