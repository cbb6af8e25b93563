// The hwpc tool on every input kind: i915 perf streams and recordings, lost
// rows, --context, --output perfetto, and bad input (exit 2 with the offset).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "capture_test_util.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

namespace {

using namespace hwpc::intel;
using captest::bytes;

using hwpc::testing::run_result;
run_result run(const std::string& args, bool stdout_only = false) {
  return hwpc::testing::run_tool(args, stdout_only);
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

class CaptureTool : public hwpc::testing::tool_test {
 protected:
  std::string write(const std::string& name, const bytes& b) {
    const auto path = dir_ / name;
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    return path.string();
  }
};

const report_format& skl_a12() { return *find_format(platform::skl, "A12"); }

constexpr std::uint32_t valid = (1u << 19) | (1u << 16);  // timer, context valid (Gen9)

// SKL A12 stream: ctx 0x10, 0x10, loss, 0x20, 0x20, 0x10.
bytes skl_stream() {
  bytes s;
  captest::append(s, captest::sample(skl_a12(), {valid, 100, 0x10, 0}));
  captest::append(s, captest::sample(skl_a12(), {valid, 200, 0x10, 5}));
  captest::append(s, captest::lost(record_type::oa_report_lost));
  captest::append(s, captest::sample(skl_a12(), {valid, 400, 0x20, 20}));
  captest::append(s, captest::sample(skl_a12(), {valid, 500, 0x20, 27}));
  captest::append(s, captest::sample(skl_a12(), {valid, 600, 0x10, 30}));
  return s;
}

TEST_F(CaptureTool, StreamCsvHasLostRowsAndExactIntervalsAcrossThem) {
  const auto file = write("s.bin", skl_stream());
  auto r = run("decode --platform skl --format A12 --input-kind i915-stream " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string header =
      "report,offset,timestamp,GPU_TICKS,A7,A8,A9,A10,A11,A12,A13,A14,A15,A16,A17,A18,reason,"
      "ctx_id,lost\n";
  ASSERT_EQ(r.out.compare(0, header.size(), header), 0) << r.out;
  // `report` counts reports (SAMPLE records), `offset` is the record's; ctx_id is
  // the earlier report's.
  EXPECT_NE(r.out.find("\n1,72,200,5,5,5,5,5,5,5,5,5,5,5,5,5,timer,16,0\n"), std::string::npos)
      << r.out;
  // A loss: the reports before it, and its own record's offset.
  EXPECT_NE(r.out.find("\n2,144,,,,,,,,,,,,,,,report-lost,,1\n"), std::string::npos) << r.out;
  // 1->2 spans the loss: 200 ticks, so every counter's delta is exact (a
  // free-running counter), marked across-loss, in the earlier report's context.
  EXPECT_NE(r.out.find("\n2,152,400,15,15,15,15,15,15,15,15,15,15,15,15,15,across-loss,16,0\n"),
            std::string::npos)
      << r.out;
  // 2->3 and 3->4 are intervals (4 ran after 0x20's report).
  EXPECT_NE(r.out.find("\n3,224,500,7,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n4,296,600,3,3,3,3,3,3,3,3,3,3,3,3,3,timer,32,0\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(count(r.out, "\n"), 1u + 1 + 1 + 1 + 2);
}

TEST_F(CaptureTool, ContextFilterKeepsTheEarlierReportsContext) {
  const auto file = write("s.bin", skl_stream());
  auto r = run("decode --platform skl --format A12 --input-kind i915-stream --context 0x20 " +
                   file + " --summary",
               true);
  ASSERT_EQ(r.status, 0) << r.out;
  // 3->4 and 4->5 ran in 0x20: each interval belongs to its earlier report.
  EXPECT_NE(r.out.find("\n2,200,10,"), std::string::npos) << r.out;
  auto c10 = run("decode --platform skl --format A12 --input-kind i915-stream --context 16 " +
                     file + " --output json",
                 true);
  ASSERT_EQ(c10.status, 0) << c10.out;
  EXPECT_EQ(count(c10.out, "\"timestamp\""), 2u) << c10.out;  // 0->1 and 1->2 across the loss
  EXPECT_EQ(count(c10.out, "\"lost\": true"), 1u) << c10.out;
  // Gen7 reports carry no context id.
  EXPECT_EQ(run("decode --platform hsw --format A13 --context 1 " + file).status, 1);
}

bytes recording_bytes() {
  bytes b = captest::version_record();
  captest::device_spec d;
  d.device_id = 0x1912;  // SKL GT2
  d.oa_format = 8;       // A12
  d.freq = 12'000'000;
  captest::append(b, captest::device_info_record(d));
  captest::append(b, captest::correlation_record(2'000'000'000, 1000));
  captest::append(b, captest::sample(skl_a12(), {valid, 1000, 0x10, 0}));
  captest::append(b, captest::sample(skl_a12(), {valid, 13000, 0x10, 9}));
  captest::append(b, captest::lost(record_type::oa_buffer_lost));
  captest::append(b, captest::sample(skl_a12(), {valid, 25000, 0x10, 100}));
  captest::append(b, captest::sample(skl_a12(), {valid, 37000, 0x10, 110}));
  captest::append(b, captest::correlation_record(2'000'003'000, 37000));
  return b;
}

TEST_F(CaptureTool, RecordingsAreRecognisedAndGiveTheirOwnFormat) {
  const auto file = write("r.rec", recording_bytes());
  auto r = run("decode " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("report,offset,timestamp,GPU_TICKS,A7,", 0), 0u) << r.out;
  // Report 1 is the second SAMPLE, at 16 + 344 + 24 + 72 (VERSION, DEVICE_INFO,
  // TIMESTAMP_CORRELATION, the first SAMPLE).
  EXPECT_NE(r.out.find("\n1,456,13000,9,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",buffer-lost,,1\n"), std::string::npos) << r.out;
  auto s = run("decode --input-kind recording --summary " + file, true);
  ASSERT_EQ(s.status, 0) << s.out;
  // Three intervals: 13000 -> 25000 spans the buffer loss (12 000 ticks: SKL's
  // 32-bit A counters clear the bound, loss_bound.hpp).
  EXPECT_NE(s.out.find("\n3,36000,110,"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find(",4,0,1\n"), std::string::npos) << s.out;  // reports, skipped, lost
  // A format that contradicts DEVICE_INFO is a usage error.
  EXPECT_EQ(run("decode --platform skl --format C4_B8 " + file).status, 1);
}

TEST_F(CaptureTool, ChromeJsonUsesCpuTimeFromTheRecording) {
  const auto file = write("r.rec", recording_bytes());
  auto r = run("decode --output chrome-json " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", 0), 0u) << r.out;
  // 13000 ticks -> 2 s + 1000 ns; the first interval starts at tick 1000 = 2 s exactly.
  EXPECT_NE(r.out.find("{\"name\": \"GPU_TICKS\", \"ph\": \"C\", \"pid\": 1, \"ts\": "
                       "2000000.000, \"args\": {\"value\": 9}}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"name\": \"buffer-lost\", \"ph\": \"i\""), std::string::npos);
  EXPECT_NE(r.out.find("\"ts\": 2000002.000, \"args\": {\"value\": 10}"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - 3), "]}\n");
  // Raw input: GPU time at the platform frequency (12 MHz on SKL: 83.333 ns per tick).
  bytes raw;
  captest::append(raw, captest::make_report(skl_a12(), {valid, 12'000'000, 0, 0}));
  captest::append(raw, captest::make_report(skl_a12(), {valid, 24'000'000, 0, 1}));
  const auto rf = write("a.raw", raw);
  auto p = run("decode --platform skl --format A12 --output chrome-json " + rf, true);
  ASSERT_EQ(p.status, 0) << p.out;
  EXPECT_NE(p.out.find("\"ts\": 1000000.000, \"args\": {\"value\": 1}"), std::string::npos)
      << p.out;
}

// A report whose CPU time the correlation points can only put before
// CLOCK_MONOTONIC 0 is refused with its record's offset, before any output:
// a trace never carries a negative or saturated time.
TEST_F(CaptureTool, TraceRefusesCpuTimesTheCorrelationCannotSupport) {
  bytes b = captest::version_record();
  captest::device_spec d;
  d.device_id = 0x1912;  // SKL GT2, 12 MHz: 83.3 ns a tick
  d.oa_format = 8;       // A12
  d.freq = 12'000'000;
  captest::append(b, captest::device_info_record(d));
  captest::append(b, captest::correlation_record(1'000, 100'000));  // 1 us at tick 100000
  const std::size_t second = b.size() + 72;                         // the second SAMPLE
  captest::append(b, captest::sample(skl_a12(), {valid, 99'000, 0x10, 0}));
  captest::append(b, captest::sample(skl_a12(), {valid, 99'500, 0x10, 3}));
  captest::append(b, captest::sample(skl_a12(), {valid, 100'000, 0x10, 5}));
  const auto file = write("early.rec", b);
  // The first interval, 99 000 to 99 500 (ending at the second SAMPLE),
  // starts 1000 ticks (83 us) before the point at 1 us: before 0.
  for (const char* out : {"chrome-json", "perfetto"}) {
    auto r = run(std::string("decode --output ") + out + " " + file);
    EXPECT_EQ(r.status, 2) << out << ": " << r.out;
    EXPECT_NE(r.out.find("byte offset " + std::to_string(second)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("before 0 ns"), std::string::npos) << r.out;
  }
  // CSV carries GPU ticks only: nothing to refuse.
  EXPECT_EQ(run("decode " + file, true).status, 0);
  // The shared hostile recording: points near CPU time 0, reports about 2^62
  // ticks from them (MTL OAM: a 64-bit TIME_STAMP).
  const std::filesystem::path hostile = std::filesystem::path(HWPC_SHARED_DIR) / "data" /
                                        "hostile" / "recording-cpu-time-near-int64-min.rec";
  if (!std::filesystem::exists(hostile)) GTEST_SKIP() << "../shared is absent: " << hostile;
  auto h = run("decode --output chrome-json " + hostile.string());
  EXPECT_EQ(h.status, 2) << h.out.substr(0, 400);
  EXPECT_EQ(h.out.find("\"ts\": -"), std::string::npos);
  EXPECT_NE(h.out.find("which no CLOCK_MONOTONIC reading is"), std::string::npos)
      << h.out.substr(0, 400);
}

TEST_F(CaptureTool, BadStreamsAndRecordingsExitTwoWithTheOffset) {
  bytes s = skl_stream();
  captest::put16(s.data() + 72 + 6, 0);  // record 1 claims size 0
  const auto f = write("bad.bin", s);
  auto r = run("decode --platform skl --format A12 --input-kind i915-stream " + f);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("byte offset 72"), std::string::npos) << r.out;

  bytes rec = recording_bytes();
  rec.resize(rec.size() - 5);  // cut into the last record
  const auto rf = write("bad.rec", rec);
  auto rr = run("decode " + rf);
  EXPECT_EQ(rr.status, 2) << rr.out;
  EXPECT_NE(rr.out.find("byte offset " + std::to_string(recording_bytes().size() - 24)),
            std::string::npos)
      << rr.out;

  bytes unknown = recording_bytes();
  captest::put32(unknown.data() + 16 + 8 + 8, 0xbeef);  // device id not in the table
  const auto uf = write("unknown.rec", unknown);
  auto u = run("decode " + uf);
  EXPECT_EQ(u.status, 2) << u.out;
  EXPECT_NE(u.out.find("byte offset 32"), std::string::npos) << u.out;
  EXPECT_EQ(run("decode --platform kbl " + uf, true).status, 0);

  EXPECT_EQ(run("decode --input-kind zzz " + f).status, 1);
  EXPECT_EQ(run("decode --input-kind i915-stream " + f).status, 1);  // no platform/format
}

}  // namespace
