// Live Xe OA capture against the simulated Xe driver (live/sim/xe.hpp): the
// reports and failed reads live::xe_stream collects equal the emulator's Xe
// read path for the same run and decode (through intel::xe_stream) to its
// truth; EIO is followed by the STATUS ioctl and named; refusals say what to
// change (dev.xe.observation_paranoid, the exponent, the format).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "emu_crosscheck_util.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/live/sim/xe.hpp"
#include "hwpc/live/xe_stream.hpp"

namespace {

namespace live = hwpc::live;
namespace sim = hwpc::live::sim;
namespace emu = hwpc::emu;
namespace intel = hwpc::intel;

constexpr const char* node = "/dev/dri/renderD128";

const intel::xe_format* format(intel::platform p, const char* name) {
  for (const auto& f : intel::xe_formats) {
    if (f.on(p) && f.name == name) return &f;
  }
  return nullptr;
}

struct collected {
  hwpc::result<live::xe_stream_counts> counts;
  std::vector<std::byte> bytes;
  std::vector<intel::xe_stream_loss> losses;
};

collected collect(sim::kernel& k, const live::xe_stream_options& o, int ms) {
  collected c{live::live_error("not run"), {}, {}};
  const hwpc::live::sys_result fd = k.open(node, O_RDWR);
  if (!fd.ok()) return c;
  auto s = live::xe_stream::open(k, static_cast<int>(fd.value), o);
  if (!s) {
    c.counts = s.error_value();
    k.close(static_cast<int>(fd.value));
    return c;
  }
  if (auto e = s->enable(); !e) c.counts = e.error_value();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    (void)s->wait(2);
    if (auto r = s->read_ready(c.bytes, c.losses); !r) {
      c.counts = r.error_value();
      return c;
    }
  }
  if (auto r = s->read_ready(c.bytes, c.losses); !r) {
    c.counts = r.error_value();
    return c;
  }
  c.counts = s->counts();
  k.close(static_cast<int>(fd.value));
  return c;
}

void same_as_emulator(intel::platform p, const char* name, emu::fault_set faults,
                      std::size_t reports) {
  SCOPED_TRACE(name);
  sim::kernel k;
  sim::xe_config cfg;
  cfg.platform = p;
  cfg.reports = reports;
  cfg.seed = 3;
  cfg.faults = faults;
  sim::add_xe(k, node, cfg);
  const intel::xe_format* f = format(p, name);
  ASSERT_NE(f, nullptr);
  auto cap = emu::emulate(sim::emulated_xe_run(cfg, name, 8));
  ASSERT_TRUE(cap) << cap.error_value().describe();
  const auto ms = static_cast<int>(cap->reports.back().at.timestamp * 1000 / cap->timestamp_hz);
  live::xe_stream_options o;
  o.metric_set = 1;
  o.format = f;
  o.exponent = 8;
  const collected c = collect(k, o, ms + 1000);  // room for slow builds past the last report
  ASSERT_TRUE(c.counts) << c.counts.error_value().describe();
  auto want = emu::xe_stream_of(*cap);
  ASSERT_TRUE(want);
  EXPECT_TRUE(c.bytes == want->bytes);
  ASSERT_EQ(c.losses.size(), want->losses.size());
  for (std::size_t i = 0; i < c.losses.size(); ++i) {
    EXPECT_EQ(c.losses[i].offset, want->losses[i].offset);
    EXPECT_EQ(c.losses[i].oa_status, want->losses[i].oa_status);
  }
  auto s = intel::xe_stream::make({c.bytes.data(), c.bytes.size()}, *f, c.losses);
  ASSERT_TRUE(s) << s.error_value().describe();
  const auto rows = crosscheck::via_capture(*s, cap->gen);
  auto truth = emu::truth_for(*cap, emu::output_kind::xe_stream);
  ASSERT_TRUE(truth);
  std::size_t failures = 0;
  EXPECT_TRUE(crosscheck::matches_truth(true, rows, *truth, false, intel::name_of(p), cap->cfg,
                                        emu::output_kind::xe_stream, "", failures));
}

TEST(LiveXe, ReadsEqualTheEmulatorsAndDecodeToTruth) {
  same_as_emulator(intel::platform::lnl, "PEC64u64", {}, 40);
  same_as_emulator(intel::platform::bmg, "PEC64u64", {}, 40);
}

TEST(LiveXe, OverflowIsAFailedReadWhoseStatusIsNamed) {
  emu::fault_set overflow;
  overflow.overflow = true;
  same_as_emulator(intel::platform::lnl, "PEC64u64", overflow, 2000);
  sim::kernel k;
  sim::xe_config cfg;
  cfg.reports = 2000;
  cfg.faults = overflow;
  sim::add_xe(k, node, cfg);
  live::xe_stream_options o;
  o.metric_set = 1;
  o.format = format(intel::platform::lnl, "PEC64u64");
  o.exponent = 8;
  const collected c = collect(k, o, 250);
  ASSERT_TRUE(c.counts) << c.counts.error_value().describe();
  EXPECT_GT(c.counts->failed_reads, 0u);
  EXPECT_EQ(c.counts->buffer_overflow, c.counts->failed_reads);
  EXPECT_NE(live::describe_xe_status(3).find("BUFFER_OVERFLOW (the OA buffer filled"),
            std::string::npos);
}

std::string refusal(const sim::xe_config& cfg, live::xe_stream_options o) {
  sim::kernel k;
  sim::add_xe(k, node, cfg);
  const collected c = collect(k, o, 0);
  EXPECT_FALSE(c.counts);
  return c.counts ? std::string() : c.counts.error_value().message;
}

TEST(LiveXe, RefusalsSayWhatToChange) {
  sim::xe_config cfg;
  live::xe_stream_options o;
  o.metric_set = 1;
  o.format = format(intel::platform::lnl, "PEC64u64");
  o.exponent = 8;
  sim::xe_config paranoid = cfg;
  paranoid.paranoid = true;
  std::string m = refusal(paranoid, o);
  EXPECT_NE(m.find("dev.xe.observation_paranoid is 1 (it is 1 here"), std::string::npos) << m;
  EXPECT_NE(m.find("CAP_PERFMON"), std::string::npos) << m;
  sim::xe_config no_exponent = cfg;
  no_exponent.refuse_exponent = true;
  m = refusal(no_exponent, o);
  EXPECT_NE(m.find("refused OA_PERIOD_EXPONENT 8 (EINVAL)"), std::string::npos) << m;
  live::xe_stream_options tgl_format = o;
  tgl_format.format = format(intel::platform::tgl, "A32u40_A4u32_B8_C8");
  ASSERT_NE(tgl_format.format, nullptr);
  m = refusal(cfg, tgl_format);
  EXPECT_NE(m.find("OA_FORMAT A32u40_A4u32_B8_C8"), std::string::npos) << m;
  live::xe_stream_options big = o;
  big.exponent = 40;
  m = refusal(cfg, big);
  EXPECT_NE(m.find("OA_PERIOD_EXPONENT 40 is out of range"), std::string::npos) << m;
}

}  // namespace
