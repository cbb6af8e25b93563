// Recordings the emulator writes open in IGT's reader: correlation points on
// both sides of every report (its correlate_gpu_timestamp asserts on a
// report at or after the last point), and the metric set named by the user.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "hwpc/emu.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/report.hpp"

namespace {

namespace emu = hwpc::emu;
using hwpc::intel::platform;

void check_brackets(platform p, const char* format, bool wrap) {
  SCOPED_TRACE(format);
  emu::config c;
  c.platform = p;
  c.format = format;
  c.reports = 40;
  c.seed = 7;
  if (wrap) c.faults.wrap = true;
  auto cap = emu::emulate(c);
  ASSERT_TRUE(cap) << cap.error_value().describe();
  auto bytes = emu::output_bytes(*cap, emu::output_kind::recording);
  ASSERT_TRUE(bytes) << bytes.error_value().describe();
  auto r = hwpc::intel::recording::make({bytes->data(), bytes->size()});
  ASSERT_TRUE(r) << r.error_value().describe();
  const auto points = r->time().points();
  ASSERT_EQ(points.size(), 2u);
  // As IGT's reader compares: the report's 32-bit TIME_STAMP against the
  // points' low 32 bits, within the points' 2^32 chunk.
  const std::uint64_t lo = points[0].gpu_ts, hi = points[1].gpu_ts;
  ASSERT_LT(lo, hi);
  std::size_t reports = 0;
  std::uint64_t full = 0;
  std::uint32_t prev = 0;
  for (const auto& e : *r) {
    if (!e.is_report()) continue;
    ++reports;
    const auto ts = static_cast<std::uint32_t>(e.report().timestamp());
    if (reports == 1) {
      // Place the first 32-bit value on the 64-bit clock next to the first
      // point; later ones follow it modulo 2^32 (TIME_STAMP wraps).
      full = (lo & ~0xffffffffull) | ts;
      if (full < lo) full += 1ull << 32;
    } else {
      full += static_cast<std::uint32_t>(ts - prev);
    }
    prev = ts;
    EXPECT_LE(lo, full) << "report " << reports;
    EXPECT_LT(full, hi) << "report " << reports << ": not strictly before the closing point";
  }
  EXPECT_GT(reports, 10u);
}

TEST(EmuRecording, CorrelationPointsBracketEveryReport) {
  check_brackets(platform::hsw, "A45_B8_C8", false);
  check_brackets(platform::skl, "A32u40_A4u32_B8_C8", false);
  check_brackets(platform::tgl, "A32u40_A4u32_B8_C8", false);
  check_brackets(platform::hsw, "A45_B8_C8", true);  // TIME_STAMP wraps inside
}

TEST(EmuRecording, NamesTheUsersMetricSet) {
  emu::config c;
  c.platform = platform::skl;
  c.format = "A32u40_A4u32_B8_C8";
  c.reports = 4;
  auto cap = emu::emulate(c);
  ASSERT_TRUE(cap);
  const emu::recording_identity id{"RenderBasic", "07b25942-d9fd-4fce-bd58-e29abd66b7de"};
  auto bytes = emu::output_bytes(*cap, emu::output_kind::recording, id);
  ASSERT_TRUE(bytes);
  auto r = hwpc::intel::recording::make({bytes->data(), bytes->size()});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->device().metric_set_name, "RenderBasic");
  EXPECT_EQ(r->device().metric_set_uuid, "07b25942-d9fd-4fce-bd58-e29abd66b7de");
  // Without a name: the emulator's own.
  auto plain = emu::output_bytes(*cap, emu::output_kind::recording);
  ASSERT_TRUE(plain);
  auto p = hwpc::intel::recording::make({plain->data(), plain->size()});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->device().metric_set_name, "EmulatedA36_B8_C8");
  // A uuid that does not fit DEVICE_INFO's 40 bytes is refused.
  auto bad = emu::output_bytes(*cap, emu::output_kind::recording, {"X", std::string(40, 'a')});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error_value().code, hwpc::errc::out_of_range);
}

}  // namespace
