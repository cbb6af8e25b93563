// IGT xe-perf-recorder files (FACTS-xe section 7), built byte by byte here:
// record types 4..7, DEVICE_INFO with IGT's 1-based format number, one-slice
// DSS topology, SAMPLE / OA_REPORT_LOST records of 576-byte PEC64u64
// reports; errors naming byte offsets; the tool recognising the file.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "tool_runner.hpp"

namespace {

namespace intel = hwpc::intel;
using bytes = std::vector<std::byte>;

void u8(bytes& b, unsigned v) { b.push_back(static_cast<std::byte>(v & 0xff)); }
void u16(bytes& b, unsigned v) {
  u8(b, v);
  u8(b, v >> 8);
}
void u32(bytes& b, std::uint32_t v) {
  u16(b, v & 0xffff);
  u16(b, v >> 16);
}
void u64(bytes& b, std::uint64_t v) {
  u32(b, static_cast<std::uint32_t>(v));
  u32(b, static_cast<std::uint32_t>(v >> 32));
}
void header(bytes& b, std::uint32_t type, unsigned size) {
  u32(b, type);
  u16(b, 0);
  u16(b, size);
}
void text(bytes& b, const std::string& s, std::size_t field) {
  for (std::size_t i = 0; i < field; ++i)
    u8(b, i < s.size() ? static_cast<unsigned char>(s[i]) : 0);
}

// One PEC64u64 report (FACTS-xe 3.1, 3.3): qw0 RPT_ID, qw1 TIME_STAMP,
// dw4 CTX_ID, qw3 GPU_TICKS, PEC i at 32 + 8i, bytes 544..575 zero.
void report(bytes& b, std::uint32_t rpt_id, std::uint64_t ts, std::uint32_t ctx,
            std::uint64_t ticks, std::uint64_t pec_base) {
  u64(b, rpt_id);
  u64(b, ts);
  u32(b, ctx);
  u32(b, 0);
  u64(b, ticks);
  for (unsigned i = 0; i < 64; ++i) u64(b, pec_base + i * 1000);
  for (unsigned i = 0; i < 32; ++i) u8(b, 0);
}

struct built {
  bytes b;
  std::size_t info_at = 0;
  std::size_t first_sample_at = 0;
};

// VERSION, DEVICE_INFO (LNL 0x64A0, PEC64u64 = IGT #11), DEVICE_TOPOLOGY (one
// slice, 8 DSS of 16 EUs, DSS 5 fused off), TIMESTAMP_CORRELATION, then
// SAMPLE, SAMPLE, OA_REPORT_LOST, SAMPLE, SAMPLE, and a closing correlation.
built tiny(std::uint32_t oa_format = 11, std::uint32_t device = 0x64a0) {
  built r;
  bytes& b = r.b;
  header(b, 4, 16);  // VERSION
  u32(b, 1);
  u32(b, 0);
  r.info_at = b.size();
  header(b, 5, 8 + 336);  // DEVICE_INFO
  u64(b, 19'200'000);
  u32(b, device);
  u32(b, 0);              // revision
  u32(b, 400'000'000);    // GT min, Hz
  u32(b, 2'050'000'000);  // GT max, Hz
  u32(b, 0);              // engine class
  u32(b, 0);              // engine instance
  u32(b, oa_format);
  text(b, "RenderBasic", 256);
  text(b, "0f8bd9f5-bd02-4e65-a3ac-1c4e1ea1fa2d", 40);
  u32(b, 0);
  EXPECT_EQ(b.size(), 16u + 344u);
  // DEVICE_TOPOLOGY: 16-byte header, slice byte, 1 DSS-mask byte, 8 x 2 EU
  // bytes = 34, padded to 40.
  header(b, 6, 8 + 40);
  for (unsigned v : {0u, 1u, 8u, 16u, 1u, 1u, 2u, 2u}) u16(b, v);
  u8(b, 0x01);
  u8(b, 0xdf);  // DSS 0..7 but 5
  for (unsigned d = 0; d < 8; ++d) u16(b, 0xffff);
  for (unsigned i = 0; i < 6; ++i) u8(b, 0);
  header(b, 7, 24);  // TIMESTAMP_CORRELATION
  u64(b, 5'000'000'000ull);
  u64(b, 100'000);
  r.first_sample_at = b.size();
  header(b, 1, 8 + 576);
  report(b, 1u << 19 | 1u << 16, 100'192, 7, 50'000, 1'000'000);
  header(b, 1, 8 + 576);
  report(b, 1u << 19 | 1u << 16, 100'192 + 2048, 7, 50'000 + 3000, 1'000'000 + 77);
  header(b, 2, 8);  // OA_REPORT_LOST
  header(b, 1, 8 + 576);
  report(b, 1u << 19 | 1u << 16, 110'000, 9, 60'000, 2'000'000);
  header(b, 1, 8 + 576);
  report(b, 1u << 19 | 1u << 16, 112'048, 9, 61'000, 2'000'000 + 5);
  header(b, 7, 24);
  u64(b, 5'100'000'000ull);
  u64(b, 2'020'000);
  return r;
}

hwpc::byte_span span(const bytes& b) { return {b.data(), b.size()}; }

TEST(XeRecording, HandBuiltRecordingDecodes) {
  const built t = tiny();
  auto r = intel::xe_recording::make(span(t.b));
  ASSERT_TRUE(r.has_value()) << r.error_value().describe();
  EXPECT_EQ(r->device_platform(), intel::platform::lnl);
  EXPECT_TRUE(r->platform_from_device_id());
  EXPECT_EQ(r->xe().name, "PEC64u64");
  EXPECT_EQ(r->format().size, 576u);
  EXPECT_EQ(r->metric_set_name(), "RenderBasic");
  EXPECT_EQ(r->metric_set_uuid(), "0f8bd9f5-bd02-4e65-a3ac-1c4e1ea1fa2d");
  EXPECT_EQ(r->timestamp_frequency(), 19'200'000u);
  EXPECT_EQ(r->samples(), 4u);
  EXPECT_EQ(r->records(), 10u);
  EXPECT_EQ(r->unknown_records(), 0u);
  const auto v = r->device_variables();
  EXPECT_TRUE(v.has_topology);
  EXPECT_EQ(v.slice_mask, 1u);
  EXPECT_EQ(v.dss_mask, 0xdfu);
  EXPECT_EQ(v.dss_stride, 8u);
  EXPECT_EQ(v.eu_count, 7u * 16u);
  EXPECT_EQ(v.eus_per_dss, 16u);
  EXPECT_EQ(v.gt_max_frequency_hz, 2'050'000'000u);

  struct row {
    std::size_t report, offset;
    std::uint64_t ts;
    std::vector<std::uint64_t> d;
  };
  std::vector<row> rows;
  std::size_t losses = 0;
  intel::for_each_delta(
      *r, intel::generation::xe2,
      [&](const intel::capture_interval& iv) {
        rows.push_back({iv.report, iv.offset, iv.timestamp, {iv.deltas.begin(), iv.deltas.end()}});
      },
      [&](const intel::capture_discontinuity& d) {
        ++losses;
        EXPECT_EQ(d.kind, intel::event_kind::report_lost);
        EXPECT_EQ(d.offset, t.first_sample_at + 2 * 584);
      });
  EXPECT_EQ(losses, 1u);
  // 1->2 spans the lost report: 7760 ticks, 64-bit counters: exact.
  ASSERT_EQ(rows.size(), 3u);
  // Columns: GPU_TICKS, PEC0..PEC63.
  EXPECT_EQ(rows[0].report, 1u);
  EXPECT_EQ(rows[0].offset, t.first_sample_at + 584);
  EXPECT_EQ(rows[0].ts, 100'192u + 2048u);
  ASSERT_EQ(rows[0].d.size(), 65u);
  EXPECT_EQ(rows[0].d[0], 3000u);
  EXPECT_EQ(rows[0].d[1], 77u);
  EXPECT_EQ(rows[0].d[64], 77u);
  EXPECT_EQ(rows[1].report, 2u);
  EXPECT_EQ(rows[1].offset, t.first_sample_at + 2 * 584 + 8);
  EXPECT_EQ(rows[1].ts, 110'000u);
  EXPECT_EQ(rows[1].d[0], 7000u);
  EXPECT_EQ(rows[1].d[33], 999'923u);
  EXPECT_EQ(rows[2].report, 3u);
  EXPECT_EQ(rows[2].offset, t.first_sample_at + 2 * 584 + 8 + 584);
  EXPECT_EQ(rows[2].d[0], 1000u);
  EXPECT_EQ(rows[2].d[33], 5u);
}

TEST(XeRecording, FamilyFromTheFirstRecord) {
  const built t = tiny();
  EXPECT_TRUE(intel::xe_recording::looks_like_xe_recording(span(t.b)));
  EXPECT_FALSE(intel::recording::looks_like_recording(span(t.b)));
  bytes i915 = t.b;
  i915[0] = std::byte{0};
  i915[2] = std::byte{1};  // 65536: an i915 recording's VERSION
  EXPECT_FALSE(intel::xe_recording::looks_like_xe_recording(span(i915)));
  auto r = intel::xe_recording::make(span(i915));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error_value().offset, 0u);
}

// Errors name the byte offset into the file.
TEST(XeRecording, BadInputNamesTheOffset) {
  const built t = tiny();
  auto offset_of = [](const bytes& b, intel::xe_recording_options o = {}) -> std::size_t {
    auto r = intel::xe_recording::make(span(b), o);
    EXPECT_FALSE(r.has_value());
    return r ? ~std::size_t{0} : r.error_value().offset;
  };
  // A record of size 0 (IGT's reader would loop forever).
  bytes zero = t.b;
  zero[t.first_sample_at + 6] = std::byte{0};
  zero[t.first_sample_at + 7] = std::byte{0};
  EXPECT_EQ(offset_of(zero), t.first_sample_at);
  // A SAMPLE whose size is not header + 576.
  bytes small = t.b;
  small[t.first_sample_at + 6] = std::byte{8};
  small[t.first_sample_at + 7] = std::byte{0};
  EXPECT_EQ(offset_of(small), t.first_sample_at);
  // Truncated: the last record runs past the end.
  bytes cut(t.b.begin(), t.b.end() - 4);
  EXPECT_EQ(offset_of(cut), t.b.size() - 24);
  // The kernel's 0-based number (10) is MPEC8u32_B8_C8 in IGT's numbering,
  // whose 128-byte reports the SAMPLE records do not hold.
  EXPECT_EQ(offset_of(tiny(10).b), t.first_sample_at);
  // 12 is PEC64u64_B8_C8: unverified without the opt-in, at the oa_format field.
  EXPECT_EQ(offset_of(tiny(12).b), t.info_at + 8 + 32);
  intel::xe_recording_options opt_in;
  opt_in.unverified_layouts = true;
  EXPECT_EQ(offset_of(tiny(12).b, opt_in), t.first_sample_at);  // 640-byte reports expected
  // Not a format of the platform (A12 is Gen12 only), and no format at all.
  EXPECT_EQ(offset_of(tiny(2).b), t.info_at + 8 + 32);
  EXPECT_EQ(offset_of(tiny(0).b), t.info_at + 8 + 32);
  // An unknown device id names the device_id field; a fallback platform rescues it.
  EXPECT_EQ(offset_of(tiny(11, 0x1234).b), t.info_at + 8 + 8);
  intel::xe_recording_options fb;
  fb.fallback_platform = intel::platform::bmg;
  auto r = intel::xe_recording::make(span(tiny(11, 0x1234).b), fb);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->device_platform(), intel::platform::bmg);
  // A SAMPLE before DEVICE_INFO.
  bytes early;
  early.insert(early.end(), t.b.begin(), t.b.begin() + 16);
  early.insert(early.end(), t.b.begin() + static_cast<std::ptrdiff_t>(t.first_sample_at),
               t.b.end());
  EXPECT_EQ(offset_of(early), 16u);
  // No DEVICE_INFO at all: the end of the file.
  bytes only_version(t.b.begin(), t.b.begin() + 16);
  EXPECT_EQ(offset_of(only_version), 16u);
}

template <class T>
concept makes_from = requires(T&& t) {
  intel::xe_recording::make(std::forward<T>(t));
};
static_assert(makes_from<hwpc::byte_span>);
static_assert(!makes_from<std::vector<std::byte>>, "a temporary would leave the reader dangling");

// `hwpc decode FILE` recognises the recording with no flags and takes its
// platform and format from it.
class XeRecordingTool : public hwpc::testing::tool_test {};

TEST_F(XeRecordingTool, DecodesWithoutFlags) {
  const built t = tiny();
  const auto path = (dir_ / "tiny.xerec").string();
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(t.b.data()), static_cast<std::streamsize>(t.b.size()));
  }
  const auto r = hwpc::testing::run_tool("decode " + path, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto first = r.out.substr(0, r.out.find('\n'));
  const auto cols = hwpc::testing::split(first);
  ASSERT_GE(cols.size(), 5u);
  EXPECT_EQ(cols[3], "GPU_TICKS");
  EXPECT_EQ(cols[4], "PEC0");
  EXPECT_NE(r.out.find("\n1," + std::to_string(t.first_sample_at + 584) + ","), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("report-lost"), std::string::npos);
  // --format that disagrees with DEVICE_INFO is a usage error.
  EXPECT_EQ(hwpc::testing::run_tool("decode " + path + " --format MPEC8u32_B8_C8").status, 1);
  // An unverified layout (IGT #12, PEC64u64_B8_C8) needs the opt-in: a usage error without.
  // Its header records, then two SAMPLEs of 640-byte reports.
  const built v = tiny(12);
  const std::size_t rs = 640;
  bytes ub(v.b.begin(), v.b.begin() + static_cast<std::ptrdiff_t>(v.first_sample_at));
  for (unsigned i = 0; i < 2; ++i) {
    header(ub, 1, 8 + rs);
    const std::size_t at = ub.size();
    ub.resize(at + rs, std::byte{0});
    ub[at] = std::byte{1};                       // RPT_ID
    ub[at + 8] = static_cast<std::byte>(i + 1);  // TIME_STAMP
  }
  const auto upath = (dir_ / "unverified.xerec").string();
  {
    std::ofstream f(upath, std::ios::binary);
    f.write(reinterpret_cast<const char*>(ub.data()), static_cast<std::streamsize>(ub.size()));
  }
  EXPECT_EQ(hwpc::testing::run_tool("decode " + upath).status, 1);
  const auto ok = hwpc::testing::run_tool("decode --unverified-layouts " + upath, true);
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("\n1,"), std::string::npos) << ok.out;
}

}  // namespace
