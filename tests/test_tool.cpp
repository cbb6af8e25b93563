// The hwpc tool's public interface: formats --json, decode CSV/JSON/summary,
// exit statuses and error messages that name the byte offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_result;
run_result run(const std::string& args) { return hwpc::testing::run_tool(args); }

class Tool : public hwpc::testing::tool_test {
 protected:
  // Writes HSW A13 reports (64 bytes): dw0 RPT_ID, dw1 TIME_STAMP, A0..A12 at dw3..dw15.
  std::string write_hsw_a13(const std::vector<std::vector<std::uint32_t>>& reports,
                            std::size_t extra = 0) {
    const auto path = dir_ / "capture.raw";
    std::ofstream f(path, std::ios::binary);
    for (const auto& dws : reports) {
      std::uint32_t r[16] = {};
      for (std::size_t i = 0; i < dws.size(); ++i) r[i] = dws[i];
      for (std::uint32_t v : r) {
        const char b[4] = {char(v & 0xff), char((v >> 8) & 0xff), char((v >> 16) & 0xff),
                           char(v >> 24)};
        f.write(b, 4);
      }
    }
    for (std::size_t i = 0; i < extra; ++i) f.put('\x7f');
    return path.string();
  }
};

TEST_F(Tool, FormatsJsonListsEveryFieldWithOffsetsAndWidths) {
  auto r = run("formats --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.front(), '[');
  EXPECT_NE(r.out.find("\"name\": \"A45_B8_C8\", \"aliases\": [], \"platforms\": [\"hsw\"], "
                       "\"counter_select\": 5, \"uapi_id\": 5, \"size\": 256"),
            std::string::npos);
  EXPECT_NE(
      r.out.find("{\"name\": \"A0\", \"offset\": 16, \"bits\": 40, \"high_byte_offset\": 160}"),
      std::string::npos);
  EXPECT_NE(r.out.find("\"aliases\": [\"A32u40_A4u32_B8_C8\"]"), std::string::npos);
  EXPECT_NE(r.out.find("\"uapi_id\": null"), std::string::npos);
}

TEST_F(Tool, DecodeCsvHasOneRowPerIntervalWithDeltas) {
  // Three reports; A0 wraps between the second and third.
  const auto file = write_hsw_a13(
      {{1, 1000, 0, 0xfffffff0u, 5}, {2, 1500, 0, 0xfffffff8u, 7}, {3, 2100, 0, 4, 7}});
  auto r = run("decode --platform hsw --format A13 " + file + " --output csv");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string header =
      "report,offset,timestamp,A0,A1,A2,A3,A4,A5,A6,A7,A8,A9,A10,A11,A12,reason,ctx_id\n";
  EXPECT_EQ(r.out, header + "1,64,1500,8,2,0,0,0,0,0,0,0,0,0,0,0,unknown,\n" +
                       "2,128,2100,12,0,0,0,0,0,0,0,0,0,0,0,0,unknown,\n");
}

TEST_F(Tool, DecodeJsonAndSummary) {
  const auto file =
      write_hsw_a13({{1, 10, 0, 1}, {0, 0, 0, 99}, {2, 30, 0, 4}});  // middle report never landed
  auto j = run("decode --platform hsw --format A13 --output json " + file);
  ASSERT_EQ(j.status, 0) << j.out;
  EXPECT_NE(j.out.find("{\"report\": 2, \"offset\": 128, \"timestamp\": 30, \"A0\": 3, \"A1\": 0"),
            std::string::npos)
      << j.out;
  auto s = run("decode --platform hsw --format A13 --summary " + file);
  ASSERT_EQ(s.status, 0) << s.out;
  // The skipped report is accounted for on stderr.
  EXPECT_EQ(
      s.out,
      "intervals,elapsed_ticks,A0,A1,A2,A3,A4,A5,A6,A7,A8,A9,A10,A11,A12,reports,skipped_zero\n"
      "1,20,3,0,0,0,0,0,0,0,0,0,0,0,0,2,1\n"
      "hwpc decode: " +
          file +
          ": 3 records read = 3 reports (1 intervals decoded + 0 filtered by context + 1 stretch "
          "starts + 1 zero RPT_ID skipped) + 0 lost (0 report-lost, 0 buffer-lost, 0 "
          "counter-overflow, 0 gap) + 0 unknown records skipped\n");
}

TEST_F(Tool, BadInputExitsTwoAndNamesTheByteOffset) {
  const auto file = write_hsw_a13({{1, 10}, {2, 20}}, 10);  // 128 + 10 bytes
  auto r = run("decode --platform hsw --format A13 " + file);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("byte offset 128"), std::string::npos) << r.out;
  auto empty = run("decode --platform hsw --format A13 " + write_hsw_a13({}));
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.out.find("byte offset 0"), std::string::npos) << empty.out;
  auto missing = run("decode --platform hsw --format A13 " + (dir_ / "nope.raw").string());
  EXPECT_EQ(missing.status, 2);
}

TEST_F(Tool, UsageErrorsExitOne) {
  EXPECT_EQ(run("decode --platform hsw --format A99 x.raw").status, 1);
  EXPECT_EQ(run("decode --platform zzz --format A13 x.raw").status, 1);
  EXPECT_EQ(run("decode --format A13 x.raw").status, 1);
  EXPECT_EQ(run("decode --platform hsw --format A13 --bogus x.raw").status, 1);
  EXPECT_EQ(run("no-such-command").status, 1);
  EXPECT_EQ(run("").status, 1);
}

TEST_F(Tool, EverySubcommandHasHelp) {
  auto top = run("--help");
  ASSERT_EQ(top.status, 0);
  // Every command the top-level help lists answers --help with status 0.
  std::size_t pos = top.out.find("commands:\n");
  ASSERT_NE(pos, std::string::npos);
  int seen = 0;
  for (std::size_t line = top.out.find('\n', pos) + 1;
       line < top.out.size() && top.out.compare(line, 2, "  ") == 0;
       line = top.out.find('\n', line) + 1) {
    const std::size_t start = line + 2;
    const std::string name = top.out.substr(start, top.out.find(' ', start) - start);
    auto h = run(name + " --help");
    EXPECT_EQ(h.status, 0) << name;
    EXPECT_NE(h.out.find("usage: hwpc " + name), std::string::npos) << name << ": " << h.out;
    ++seen;
  }
  EXPECT_GE(seen, 2);
}

}  // namespace

namespace {

// Why the metric-file tests cannot run here, or nullptr when they can: the files come from
// ../shared and are read through the optional pugixml loader.
const char* metric_files_missing() {
#ifdef HWPC_HAVE_PUGIXML
  if (std::filesystem::exists(std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml"))
    return nullptr;
  return "../shared/data/intel-metrics is absent";
#else
  return "built without pugixml: the metric XML loader is absent";
#endif
}

TEST_F(Tool, DecodeWithoutAFileDecodesTheEmulatorsDefaultCapture) {
  auto r = run("decode --summary");
  ASSERT_EQ(r.status, 0) << r.out;
  // HSW A45_B8_C8: 64 reports, 63 intervals, 61 counters.
  EXPECT_EQ(r.out.rfind("intervals,elapsed_ticks,A0,", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n63,"), std::string::npos) << r.out;
  // Row by row, the default capture decodes to the emulator's truth.
  auto rows = run("decode");
  ASSERT_EQ(rows.status, 0);
  EXPECT_EQ(std::count(rows.out.begin(), rows.out.end(), '\n'), 64);
  EXPECT_EQ(run("decode --platform hsw").status, 1);  // a FILE is needed to go with it
}

TEST_F(Tool, EmulateThenDecodeReproducesTheTruthRowForRow) {
  const std::string raw = (dir_ / "e.raw").string(), truth = (dir_ / "t.csv").string();
  auto e =
      run("emulate --platform skl --format A36_B8_C8 --reports 40 --seed 5 --faults wrap "
          "--output-kind raw --out " +
          raw + " --truth " + truth);
  ASSERT_EQ(e.status, 0) << e.out;
  auto d = run("decode --platform skl --format A36_B8_C8 " + raw);
  ASSERT_EQ(d.status, 0) << d.out;
  std::ifstream t(truth);
  std::string truth_line, decode_line;
  std::istringstream dec(d.out);
  std::getline(t, truth_line);
  std::getline(dec, decode_line);
  // The decode has an `offset` column after `report` and more (reason, ctx_id)
  // after the counters.
  auto without_offset = [](const std::string& l) {
    const auto a = l.find(',');
    return l.substr(0, a) + l.substr(l.find(',', a + 1));
  };
  ASSERT_EQ(without_offset(decode_line).rfind(truth_line, 0), 0u) << truth_line << "\n"
                                                                  << decode_line;
  int rows = 0;
  while (std::getline(t, truth_line)) {
    ASSERT_TRUE(std::getline(dec, decode_line));
    EXPECT_EQ(without_offset(decode_line).rfind(truth_line + ",", 0), 0u) << truth_line << "\n"
                                                                          << decode_line;
    ++rows;
  }
  EXPECT_EQ(rows, 39);
}

TEST_F(Tool, DecodeAddsMetricColumnsFromTheXml) {
  if (const char* why = metric_files_missing()) GTEST_SKIP() << why;
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  auto r = run("decode --metrics " + xml + " --set RenderBasic --summary");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string header = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(header.find(",skipped_zero,GpuTime,GpuCoreClocks,AvgGpuCoreFrequency,"),
            std::string::npos)
      << header;
  // Query-mode-only metrics (LlcAccesses reads PERFCNT registers) are dropped.
  EXPECT_EQ(header.find("LlcAccesses"), std::string::npos);
  // GpuTime = elapsed ticks * 1e9 / 12.5 MHz: the summary's elapsed_ticks is 63 * 2048.
  EXPECT_NE(r.out.find("\n63,129024,"), std::string::npos) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find(",10321920,"), std::string::npos);  // 129024 * 80 ns
  auto rows = run("decode --metrics " + xml + " --set RenderBasic --output json");
  ASSERT_EQ(rows.status, 0);
  EXPECT_NE(rows.out.find("\"GpuTime\": 163840"), std::string::npos);  // 2048 ticks * 80 ns
}

TEST_F(Tool, MetricErrorsSayWhatIsWrong) {
  if (const char* why = metric_files_missing()) GTEST_SKIP() << why;
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  auto unknown = run("decode --metrics " + xml + " --set NoSuchSet");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.out.find("has no set 'NoSuchSet'"), std::string::npos);
  auto missing = run("decode --metrics " + (dir_ / "none.xml").string() + " --set X");
  EXPECT_EQ(missing.status, 2);
  std::ofstream(dir_ / "bad.xml") << "<metrics><set";
  auto bad = run("decode --metrics " + (dir_ / "bad.xml").string() + " --set X");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("byte offset"), std::string::npos) << bad.out;
  EXPECT_EQ(run("decode --metrics " + xml).status, 1);  // --set missing
  EXPECT_EQ(run("decode --device-var Eu=").status, 1);
  // Raw input knows no EU count: the metrics that read it are dropped (each
  // line names the variable and its column), the rest of the set runs, and
  // the fix is named (docs/expressions.md, "A device variable with no value").
  auto novar = run("decode --platform hsw --format A45_B8_C8 --metrics " + xml +
                   " --set RenderBasic " + write_hsw_a13({{1}, {2}, {3}, {4}}));
  EXPECT_EQ(novar.status, 0) << novar.out;
  EXPECT_NE(novar.out.find("dropped: unknown name at column"), std::string::npos) << novar.out;
  EXPECT_NE(novar.out.find("'$EuCoresTotalCount': a device variable with no value"),
            std::string::npos)
      << novar.out;
  EXPECT_NE(novar.out.find("--device-var NAME=VALUE"), std::string::npos) << novar.out;
  EXPECT_NE(novar.out.find("GpuTime"), std::string::npos) << "the rest of the set is shown";
}

}  // namespace

namespace {

TEST_F(Tool, RecordingsGiveTheirDeviceVariablesToTheMetrics) {
  if (const char* why = metric_files_missing()) GTEST_SKIP() << why;
  const std::string rec = (dir_ / "skl.rec").string();
  ASSERT_EQ(
      run("emulate --platform skl --format A36_B8_C8 --reports 20 --output-kind recording --out " +
          rec)
          .status,
      0);
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-sklgt2.xml";
  // No --device-var: EuCoresTotalCount and the masks come from the recording's topology
  // (the emulator models 1 slice x 3 subslices x 8 EUs), the frequency from DEVICE_INFO.
  auto r =
      run("decode " + rec + " --metrics " + xml + " --set RenderBasic --summary --output json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"EuActive\": "), std::string::npos) << r.out;
  // A variable given on the command line wins over the recording's.
  auto over =
      run("decode " + rec + " --metrics " + xml +
          " --set RenderBasic --summary --output json --device-var GpuTimestampFrequency=24000000");
  ASSERT_EQ(over.status, 0) << over.out;
  auto gpu_time = [](const std::string& s) {
    const auto at = s.find("\"GpuTime\": ");
    return at == std::string::npos ? std::string() : s.substr(at, s.find(',', at) - at);
  };
  EXPECT_NE(gpu_time(r.out), "");
  EXPECT_NE(gpu_time(r.out), gpu_time(over.out));  // twice the frequency: half the time
}

}  // namespace
