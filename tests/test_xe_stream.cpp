// Xe OA read() streams (xe_stream.hpp): back-to-back reports, losses from
// the status ioctl given by the caller, rows through intel/rows.hpp. Reports
// are packed here byte by byte at the offsets FACTS-xe.md gives for PEC64u64
// (64-bit header; PEC i as u64 at 32 + 8 i), not through the decoder's tables.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "hwpc/intel/rows.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "tool_runner.hpp"

namespace {

using namespace hwpc;
using namespace hwpc::intel;

void put64(std::byte* p, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) p[k] = std::byte((v >> (8 * k)) & 0xff);
}
void put32(std::byte* p, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = std::byte((v >> (8 * k)) & 0xff);
}

// Report i: timer reason, context valid, ctx 0x77, timestamp 1000 + 100 i,
// ticks 5000 + 70 i, PEC n = n * i (PEC5 near 2^64 to wrap).
std::vector<std::byte> pec_stream(std::size_t n) {
  std::vector<std::byte> b(576 * n, std::byte{0});
  for (std::size_t i = 0; i < n; ++i) {
    std::byte* r = b.data() + 576 * i;
    put64(r, (1u << 19) | (1u << 16));
    put64(r + 8, 1000 + 100 * i);
    put32(r + 16, 0x77);
    put64(r + 24, 5000 + 70 * i);
    for (std::uint64_t p = 0; p < 64; ++p) put64(r + 32 + 8 * p, p * i);
    put64(r + 32 + 8 * 5, ~std::uint64_t{0} - 10 + 20 * i);
  }
  return b;
}

const xe_format& pec64u64() { return *find_xe_format(platform::lnl, "PEC64u64"); }

TEST(XeStream, RowsFromBackToBackReportsWithALossBetween) {
  const auto bytes = pec_stream(4);
  // read() failed after two reports: report lost + buffer overflow.
  auto s = xe_stream::make(bytes, pec64u64(),
                           {{2 * 576, xe_oa_status::report_lost | xe_oa_status::buffer_overflow}});
  ASSERT_TRUE(s) << s.error_value().message;
  EXPECT_EQ(s->reports(), 4u);
  EXPECT_EQ(s->events(), 6u);
  // A row's views are valid until the next row: the reasons and counters are copied.
  std::vector<row> rows;
  std::vector<std::string> reasons;
  std::vector<std::vector<std::uint64_t>> counters;
  const accounting acc = for_each_row(*s, generation::xe2, {}, [&](row& r) {
    rows.push_back(r);
    reasons.emplace_back(r.reason);
    counters.emplace_back(r.counters.begin(), r.counters.end());
  });
  // interval 0->1, report-lost, buffer-lost, 1->2 across the losses (100
  // ticks: 64-bit counters are exact across any loss), interval 2->3.
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_FALSE(rows[0].lost);
  EXPECT_EQ(rows[0].report, 1u);
  EXPECT_EQ(rows[0].offset, 576u);
  EXPECT_EQ(rows[0].end - rows[0].begin, 100u);
  EXPECT_EQ(reasons[0], "timer");
  EXPECT_TRUE(rows[0].has_context);
  EXPECT_EQ(rows[0].context, 0x77u);
  ASSERT_EQ(counters[0].size(), 65u);  // GPU_TICKS, PEC0..63
  EXPECT_EQ(counters[0][0], 70u);
  for (std::uint64_t p = 0; p < 64; ++p) {
    EXPECT_EQ(counters[0][1 + p], p == 5 ? 20u : p) << "PEC" << p;
  }
  EXPECT_TRUE(rows[1].lost);
  EXPECT_EQ(reasons[1], "report-lost");
  EXPECT_EQ(rows[1].offset, 2u * 576);
  EXPECT_TRUE(rows[2].lost);
  EXPECT_EQ(reasons[2], "buffer-lost");
  EXPECT_FALSE(rows[3].lost);
  EXPECT_EQ(rows[3].report, 2u);
  EXPECT_EQ(reasons[3], "across-loss");
  EXPECT_EQ(rows[3].end - rows[3].begin, 100u);
  EXPECT_EQ(counters[3][0], 70u);
  EXPECT_EQ(counters[3][1 + 7], 7u);
  EXPECT_EQ(rows[4].report, 3u);
  EXPECT_EQ(reasons[4], "timer");
  EXPECT_EQ(counters[4][1 + 5], 20u);  // 64-bit wrap between reports 2 and 3
  EXPECT_EQ(acc.reports, 4u);
  EXPECT_EQ(acc.intervals, 3u);
  EXPECT_EQ(acc.across_loss, 1u);
  EXPECT_EQ(acc.report_lost, 1u);
  EXPECT_EQ(acc.buffer_lost, 1u);
  EXPECT_EQ(acc.stretch_starts, 1u);
  EXPECT_EQ(acc.unbridged, 0u);
  EXPECT_TRUE(acc.balanced());
}

// Reports the MMIO trigger asked for and never wrote are a loss like any
// other: the interval across it is kept (64-bit counters clear the bound),
// where a caller's gap would end the stretch.
TEST(XeStream, MmioTriggerQueueFullIsBridgedAsALoss) {
  const auto bytes = pec_stream(3);
  auto s = xe_stream::make(bytes, pec64u64(), {{576, xe_oa_status::mmio_trigger_queue_full}});
  ASSERT_TRUE(s) << s.error_value().message;
  std::vector<std::string> reasons;
  const accounting acc =
      for_each_row(*s, generation::xe2, {}, [&](row& r) { reasons.emplace_back(r.reason); });
  const std::vector<std::string> want = {"report-lost", "across-loss", "timer"};
  EXPECT_EQ(reasons, want);
  EXPECT_EQ(acc.intervals, 2u);
  EXPECT_EQ(acc.across_loss, 1u);
  EXPECT_EQ(acc.report_lost, 1u);
  EXPECT_EQ(acc.gaps, 0u);
  EXPECT_EQ(acc.stretch_starts, 1u);
  EXPECT_TRUE(acc.balanced());
}

TEST(XeStream, LossesAtTheStartTheEndAndEveryStatusBit) {
  const auto bytes = pec_stream(2);
  auto s = xe_stream::make(bytes, pec64u64(),
                           {{0, xe_oa_status::counter_overflow},
                            {0, xe_oa_status::mmio_trigger_queue_full},
                            {2 * 576, xe_oa_status::all}},
                           4096);
  ASSERT_TRUE(s) << s.error_value().message;
  std::vector<event_kind> kinds;
  std::vector<std::size_t> offsets;
  for (const capture_event& e : *s) {
    kinds.push_back(e.kind);
    offsets.push_back(e.offset);
  }
  // Bit 3, MMIO trigger queue full, is a loss of reports (report-lost).
  const std::vector<event_kind> want = {event_kind::counter_overflow, event_kind::report_lost,
                                        event_kind::report,           event_kind::report,
                                        event_kind::report_lost,      event_kind::buffer_lost,
                                        event_kind::counter_overflow, event_kind::report_lost};
  EXPECT_EQ(kinds, want);
  const std::vector<std::size_t> want_off = {4096,        4096,        4096,        4096 + 576,
                                             4096 + 1152, 4096 + 1152, 4096 + 1152, 4096 + 1152};
  EXPECT_EQ(offsets, want_off);
  EXPECT_EQ(s->events(), want.size());
}

TEST(XeStream, BadInputIsRefusedWithTheByteOffset) {
  auto bytes = pec_stream(2);
  bytes.resize(576 * 2 + 64);
  auto a = xe_stream::make(bytes, pec64u64(), {}, 100);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error_value().code, errc::truncated);
  EXPECT_EQ(a.error_value().offset, 100u + 1152);
  bytes.resize(576 * 2);
  auto b = xe_stream::make(bytes, pec64u64(), {{500, xe_oa_status::report_lost}});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error_value().offset, 500u);
  auto c = xe_stream::make(bytes, pec64u64(), {{576 * 3, xe_oa_status::report_lost}});
  ASSERT_FALSE(c);  // past the end
  EXPECT_EQ(c.error_value().offset, 1152u);
  auto d = xe_stream::make(bytes, pec64u64(),
                           {{576, xe_oa_status::report_lost}, {0, xe_oa_status::report_lost}});
  ASSERT_FALSE(d);  // out of order
  EXPECT_EQ(d.error_value().offset, 0u);
  auto e = xe_stream::make(bytes, pec64u64(), {{576, 0}});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error_value().offset, 576u);
  auto f = xe_stream::make(bytes, pec64u64(), {{576, 0x10}});
  ASSERT_FALSE(f);
  EXPECT_NE(f.error_value().message.find("0x10"), std::string::npos);
}

TEST(XeStream, ALandedReportHasRptIdOrTimestamp) {
  auto bytes = pec_stream(1);
  const report_format& f = pec64u64().layout;
  EXPECT_TRUE(xe_report_landed({bytes.data(), f}));
  put64(bytes.data(), 0);  // RPT_ID zero, timestamp 1000: landed on Xe
  EXPECT_TRUE(xe_report_landed({bytes.data(), f}));
  put64(bytes.data() + 8, 0);
  EXPECT_FALSE(xe_report_landed({bytes.data(), f}));
  put64(bytes.data(), 1ull << 40);  // only RPT_ID's high dword: still landed
  EXPECT_TRUE(xe_report_landed({bytes.data(), f}));
}

class XeTool : public hwpc::testing::tool_test {
 protected:
  std::string write(const std::vector<std::byte>& b) {
    const auto path = dir_ / "xe.bin";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    return path.string();
  }
};

TEST_F(XeTool, DecodesAnXeStreamWithALossGivenOnTheCommandLine) {
  const std::string file = write(pec_stream(3));
  auto r = hwpc::testing::run_tool(
      "decode --platform lnl --format 0x00010105 --input-kind "
      "xe-stream --xe-loss 1152:0x1 --output json " +
      file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("{\"report\": 1, \"offset\": 576, \"timestamp\": 1100, \"GPU_TICKS\": 70, "
                       "\"PEC0\": 0, \"PEC1\": 1, \"PEC2\": 2"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"report-lost\""), std::string::npos) << r.out;
  // The report after the loss pairs with the one before it: 100 ticks, and
  // 64-bit PECs cannot wrap twice in any capture.
  EXPECT_NE(r.out.find("{\"report\": 2, \"offset\": 1152, \"timestamp\": 1200, \"GPU_TICKS\": 70,"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"reason\": \"across-loss\""), std::string::npos) << r.out;
  auto bad = hwpc::testing::run_tool(
      "decode --platform lnl --format PEC64u64 --input-kind "
      "xe-stream --xe-loss 100:1 " +
      file);
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("byte offset 100"), std::string::npos) << bad.out;
}

TEST_F(XeTool, UnverifiedLayoutsNeedTheOptIn) {
  std::vector<std::byte> b(640 * 2, std::byte{1});
  const std::string file = write(b);
  auto no = hwpc::testing::run_tool("decode --platform bmg --format PEC64u64_B8_C8 " + file);
  EXPECT_EQ(no.status, 1) << no.out;
  EXPECT_NE(no.out.find("--unverified-layouts"), std::string::npos) << no.out;
  auto yes = hwpc::testing::run_tool(
      "decode --platform bmg --format PEC64u64_B8_C8 --unverified-layouts " + file);
  EXPECT_EQ(yes.status, 0) << yes.out;
  auto list = hwpc::testing::run_tool("formats --platform ptl");
  EXPECT_NE(list.out.find("PEC64u64                 xe=0x00010105 igt=11 size=576 counters=65 "
                          "verified"),
            std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("PEC64u32                 xe=0x00000105 igt=13 size=320 counters=65 "
                          "unverified"),
            std::string::npos)
      << list.out;
}

}  // namespace
