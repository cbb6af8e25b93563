// The unmodified hwpc tool under the preload shim (src/shim/): `hwpc record`
// runs its real open/ioctl/read/poll/mmap path against the simulated kernel,
// writes files that `hwpc decode` and `hwpc mali` open and that equal the
// emulator's for the same run, ends cleanly on SIGTERM, and turns each
// fault the shim injects into a message that says what to change.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// An ASan-built tool refuses a preloaded library ahead of its runtime.
#include "sanitizer.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_SHIM_PATH
#define HWPC_SHIM_PATH ""
#endif
#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR ""
#endif

namespace {

using hwpc::testing::run_command;
using hwpc::testing::run_result;

std::vector<char> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class LiveShim : public hwpc::testing::tool_test {
 protected:
  void SetUp() override {
    tool_test::SetUp();
    if (IsSkipped()) return;
#ifdef HWPC_TEST_UNDER_ASAN
    GTEST_SKIP() << "a preloaded library cannot come before the ASan runtime";
#endif
    if (!std::filesystem::exists(HWPC_SHIM_PATH)) GTEST_SKIP() << "shim not built";
  }
  // `hwpc ARGS` under the shim presenting `device` with `fault`.
  run_result shimmed(const std::string& device, const std::string& fault, const std::string& args) {
    return run_command("LD_PRELOAD=" + std::string(HWPC_SHIM_PATH) + " HWPC_SHIM_DEVICE=" + device +
                       " HWPC_SHIM_FAULT=" + fault + " " + "HWPC_SHIM_REPORTS=40 " +
                       std::string(HWPC_TOOL_PATH) + " " + args + " 2>&1");
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  // `hwpc record intel` into `rec` on `device`, ended by SIGTERM a second in
  // (4000 reports: more than a second's worth, so the signal ends it).
  run_result record_until_sigterm(const std::string& device, const std::string& rec) {
    return run_command("LD_PRELOAD=" + std::string(HWPC_SHIM_PATH) + " HWPC_SHIM_DEVICE=" + device +
                       " HWPC_SHIM_REPORTS=4000 " + std::string(HWPC_TOOL_PATH) +
                       " record intel --set-id 2 --exponent 14 --out " + rec +
                       " 2>&1 & pid=$!; sleep 1; kill -TERM $pid; wait $pid");
  }
};

TEST_F(LiveShim, IntelRecordingDecodesLikeTheEmulators) {
  const std::string rec = path("live.rec");
  auto r = shimmed("intel:hsw", "",
                   "record intel --set-id 2 --set RenderBasic --exponent 12 --duration 300ms "
                   "--out " +
                       rec);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("40 reports, 0 OA_REPORT_LOST and 0 OA_BUFFER_LOST"), std::string::npos)
      << r.out;
  const std::string emu = path("emu.rec");
  auto e = hwpc::testing::run_tool(
      "emulate --platform hsw --format A45_B8_C8 --exponent 12 "
      "--reports 40 --seed 1 --driver i915 --output-kind recording "
      "--out " +
      emu);
  ASSERT_EQ(e.status, 0) << e.out;
  const auto live_rows = hwpc::testing::run_tool("decode " + rec, true);
  const auto emu_rows = hwpc::testing::run_tool("decode " + emu, true);
  ASSERT_EQ(live_rows.status, 0) << live_rows.out;
  ASSERT_EQ(emu_rows.status, 0);
  EXPECT_EQ(live_rows.out, emu_rows.out);
  EXPECT_NE(live_rows.out.find("report,offset,timestamp"), std::string::npos) << live_rows.out;
}

TEST_F(LiveShim, IntelMetricSetFoundByItsGuid) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  const std::string rec = path("set.rec");
  auto r = shimmed("intel:hsw", "",
                   "record intel --metrics " + xml +
                       " --set RenderBasic --period 1ms --duration 100ms --out " + rec);
  ASSERT_EQ(r.status, 0) << r.out;
  auto d =
      hwpc::testing::run_tool("decode " + rec + " --metrics " + xml + " --set RenderBasic", true);
  EXPECT_EQ(d.status, 0) << d.out;
  EXPECT_NE(d.out.find("GpuBusy"), std::string::npos) << d.out;
}

TEST_F(LiveShim, SigtermEndsWithACompleteFile) {
  const std::string rec = path("term.rec");
  auto r = record_until_sigterm("intel:tgl", rec);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("reports, 0 OA_REPORT_LOST"), std::string::npos) << r.out;
  auto d = hwpc::testing::run_tool("decode " + rec, true);
  EXPECT_EQ(d.status, 0) << d.out;
}

// An xe-perf recording's records but the TIMESTAMP_CORRELATION ones (type
// 7, whose times are the wall clock), in file order.
std::vector<std::vector<char>> records_but_points(const std::vector<char>& b) {
  std::vector<std::vector<char>> out;
  for (std::size_t at = 0; at + 8 <= b.size();) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(b[at + i]); };
    const unsigned type = byte(0) | byte(1) << 8 | byte(2) << 16 | byte(3) << 24;
    const std::size_t size = byte(6) | byte(7) << 8;
    if (size < 8 || at + size > b.size()) break;
    if (type != 7) out.emplace_back(b.begin() + at, b.begin() + at + size);
    at += size;
  }
  return out;
}

TEST_F(LiveShim, XeRecordingDecodesLikeTheEmulators) {
  const std::string rec = path("xe.rec");
  auto r = shimmed("intel:lnl", "",
                   "record intel --set-id 2 --set RenderBasic --exponent 12 --duration 300ms "
                   "--out " +
                       rec);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Xe driver: 40 reports, 0 OA_REPORT_LOST and 0 OA_BUFFER_LOST"),
            std::string::npos)
      << r.out;
  const std::string emu = path("emu-xe.rec");
  auto e = hwpc::testing::run_tool(
      "emulate --platform lnl --format PEC64u64 --exponent 12 --reports 40 --seed 1 "
      "--output-kind xe-recording --out " +
      emu);
  ASSERT_EQ(e.status, 0) << e.out;
  const auto live_rows = hwpc::testing::run_tool("decode " + rec, true);
  const auto emu_rows = hwpc::testing::run_tool("decode " + emu, true);
  ASSERT_EQ(live_rows.status, 0) << live_rows.out;
  ASSERT_EQ(emu_rows.status, 0);
  EXPECT_EQ(live_rows.out, emu_rows.out);
  EXPECT_NE(live_rows.out.find("report,offset,timestamp,GPU_TICKS,PEC0"), std::string::npos)
      << live_rows.out;
}

TEST_F(LiveShim, XeRecordingIsTheEmulatorsFileOutsideTheClock) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics-xe/oa-bmg.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  const std::string rec = path("bmg.rec");
  auto r = shimmed("intel:bmg", "",
                   "record intel --metrics " + xml +
                       " --set RenderBasic --exponent 12 --duration 300ms --out " + rec);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string emu = path("emu-bmg.rec");
  auto e = hwpc::testing::run_tool("emulate --platform bmg --metrics " + xml +
                                   " --set RenderBasic --exponent 12 --reports 40 --seed 1 "
                                   "--output-kind xe-recording --out " +
                                   emu);
  ASSERT_EQ(e.status, 0) << e.out;
  const auto got = records_but_points(slurp(rec));
  const auto want = records_but_points(slurp(emu));
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.size(), 3u + 40u);  // VERSION, DEVICE_INFO, DEVICE_TOPOLOGY and the samples
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i] == want[i]) << "record " << i;
  auto d =
      hwpc::testing::run_tool("decode " + rec + " --metrics " + xml + " --set RenderBasic", true);
  EXPECT_EQ(d.status, 0) << d.out;
}

TEST_F(LiveShim, XeFaultsBecomeMessagesThatSayWhatToChange) {
  const std::string out = " --out " + path("xe.out");
  const std::string intel = "record intel --set-id 2 --exponent 12 --duration 300ms" + out;
  auto r = shimmed("intel:lnl", "eacces", intel);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("dev.xe.observation_paranoid is 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CAP_PERFMON"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(path("xe.out")));
  r = shimmed("intel:ptl", "einval-exponent", intel);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("refused OA_PERIOD_EXPONENT 12 (EINVAL)"), std::string::npos) << r.out;
  r = shimmed("intel:lnl", "eio", intel);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("reads failed with EIO; the stream status said: REPORT_LOST"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find(" 0 OA_REPORT_LOST"), std::string::npos) << r.out;
  auto d = hwpc::testing::run_tool("decode " + path("xe.out"), true);
  EXPECT_EQ(d.status, 0) << d.out;
  r = shimmed("intel:lnl", "overflow",
              "record intel --set-id 2 --exponent 8 --duration 300ms" + out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("the stream status said: BUFFER_OVERFLOW"), std::string::npos) << r.out;
  // A platform i915 also drives, on the Xe driver: its A/B/C format by default.
  r = shimmed("intel:mtl:xe", "", intel);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Xe driver: 40 reports"), std::string::npos) << r.out;
  d = hwpc::testing::run_tool("decode " + path("xe.out"), true);
  EXPECT_EQ(d.status, 0) << d.out;
  EXPECT_NE(d.out.find("A23"), std::string::npos) << d.out.substr(0, 300);
  r = shimmed("intel:lnl", "", "record intel --set-id 2 --ctx 3 --duration 100ms" + out);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("EXEC_QUEUE_ID"), std::string::npos) << r.out;
}

TEST_F(LiveShim, XeSigtermEndsWithACompleteFile) {
  const std::string rec = path("term-xe.rec");
  auto r = record_until_sigterm("intel:lnl", rec);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Xe driver: "), std::string::npos) << r.out;
  auto d = hwpc::testing::run_tool("decode " + rec, true);
  EXPECT_EQ(d.status, 0) << d.out;
}

TEST_F(LiveShim, MaliRecordingIsTheEmulatorsFile) {
  const std::string cap = path("live.hwpcmali");
  // 5 ms samples into a 32-slot ring: the tool may be held up for 160 ms without a loss.
  auto r = shimmed("mali:g78", "", "record mali --period 5ms --duration 400ms --out " + cap);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("40 samples (0 after a ring overflow)"), std::string::npos) << r.out;
  const std::string emu = path("emu.hwpcmali");
  auto e = hwpc::testing::run_tool(
      "mali emulate --gpu G78 --reader kinstr --l2-slices 2 --core-mask 0xf --samples 40 "
      "--seed 1 --period-ns 5000000 --out " +
      emu);
  ASSERT_EQ(e.status, 0) << e.out;
  EXPECT_TRUE(slurp(cap) == slurp(emu)) << "the recording differs from hwpc mali emulate's file";
  auto d = hwpc::testing::run_tool("mali " + cap, true);
  EXPECT_EQ(d.status, 0) << d.out;
  EXPECT_NE(d.out.find("GPU_ACTIVE"), std::string::npos);
}

TEST_F(LiveShim, FaultsBecomeMessagesThatSayWhatToChange) {
  const std::string out = " --out " + path("f.out");
  const std::string intel = "record intel --set-id 2 --exponent 12 --duration 100ms" + out;
  auto r = shimmed("intel:tgl", "eacces", intel);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("dev.i915.perf_stream_paranoid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CAP_PERFMON"), std::string::npos) << r.out;
  // A refusal leaves no file behind (the file is created with the first bytes).
  EXPECT_FALSE(std::filesystem::exists(path("f.out")));
  r = shimmed("intel:tgl", "einval-exponent", intel);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("refused OA_EXPONENT 12 (EINVAL)"), std::string::npos) << r.out;
  r = shimmed("intel:skl", "overflow",
              "record intel --set-id 2 --exponent 10 --duration 300ms" + out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find(" 0 OA_BUFFER_LOST"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the kernel lost reports"), std::string::npos) << r.out;
  r = shimmed("mali:g78", "", intel);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no such device: /dev/dri/renderD128"), std::string::npos) << r.out;
  std::filesystem::remove(path("f.out"));  // the overflow recording's
  r = shimmed("mali:g78", "eacces", "record mali --duration 50ms" + out);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("permission refused opening /dev/mali0"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(path("f.out")));
  // A kbase without kinstr_prfcnt (Job Manager and CSF): refused, saying why.
  for (const char* gpu : {"mali:g78", "mali:g720"}) {
    r = shimmed(gpu, "no-kinstr", "record mali --duration 50ms" + out);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("too old for kinstr_prfcnt"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("vinstr reader is not driven live"), std::string::npos) << r.out;
  }
  r = shimmed("mali:g720", "overflow", "record mali --period 1ms --duration 100ms" + out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("(0 after a ring overflow)"), std::string::npos) << r.out;
}

// `hwpc record ... --output FMT` prints, while recording, the rows `hwpc
// decode FILE` / `hwpc mali FILE` print for the file it wrote: byte for
// byte, losses and the accounting included. (How many reports arrive
// depends on the machine's speed; both sides read the same file.)
class LiveShimRows : public LiveShim {
 protected:
  void same_rows(const std::string& device, const std::string& fault, const std::string& record,
                 const std::string& decode, const std::string& out, const std::string& format) {
    SCOPED_TRACE(device + " " + fault + " " + format);
    const std::string live = path("live.rows"), offline = path("offline.rows");
    auto r =
        run_command("LD_PRELOAD=" + std::string(HWPC_SHIM_PATH) + " HWPC_SHIM_DEVICE=" + device +
                    " HWPC_SHIM_FAULT=" + fault + " HWPC_SHIM_REPORTS=40 " +
                    std::string(HWPC_TOOL_PATH) + " " + record + " --out " + out + " --output " +
                    format + " > " + live + " 2> " + live + ".err; " + "cat " + live + ".err");
    ASSERT_EQ(r.status, 0) << r.out;
    auto d = run_command(std::string(HWPC_TOOL_PATH) + " " + decode + " " + out + " --output " +
                         format + " > " + offline + " 2>/dev/null");
    ASSERT_EQ(d.status, 0) << d.out;
    const auto got = slurp(live), want = slurp(offline);
    EXPECT_FALSE(want.empty());
    EXPECT_TRUE(got == want) << "live rows (" << got.size() << " bytes) differ from the file's ("
                             << want.size() << " bytes)\n"
                             << std::string(got.begin(), got.end()).substr(0, 2000);
  }
};

TEST_F(LiveShimRows, IntelRowsWhileRecordingAreDecodesRows) {
  const std::string rec = path("rows.rec");
  const std::string args =
      "record intel --set-id 2 --set RenderBasic --exponent 12 --duration 300ms";
  for (const char* format : {"csv", "json", "perfetto", "chrome-json"}) {
    same_rows("intel:hsw", "", args, "decode", rec, format);
  }
  // Losses: OA_BUFFER_LOST records become loss rows, and JSON's accounting says so.
  same_rows("intel:skl", "overflow", "record intel --set-id 2 --exponent 10 --duration 300ms",
            "decode", rec, "json");
  EXPECT_NE(slurp(path("live.rows")).size(), 0u);
  const auto json = slurp(path("live.rows"));
  EXPECT_NE(std::string(json.begin(), json.end()).find("\"buffer-lost\""), std::string::npos);
}

TEST_F(LiveShimRows, IntelMetricColumnsWhileRecordingAreDecodesColumns) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  const std::string rec = path("metrics.rec");
  const std::string set = " --metrics " + xml + " --set RenderBasic";
  for (const char* format : {"perfetto", "json", "csv"}) {
    same_rows("intel:hsw", "", "record intel --period 1ms --duration 300ms" + set, "decode" + set,
              rec, format);
  }
  const auto csv = slurp(path("live.rows"));
  EXPECT_NE(std::string(csv.begin(), csv.end()).find("GpuBusy"), std::string::npos);
}

// On the Xe driver the rows are written when the recording ends, from the
// file, by the capture `hwpc decode FILE` opens: the same bytes, losses
// (EIO read as a lost report) and metric columns included.
TEST_F(LiveShimRows, XeRowsAreDecodesRowsOfTheFinishedRecording) {
  const std::string rec = path("xe-rows.rec");
  const std::string args = "record intel --set-id 2 --exponent 12 --duration 300ms";
  for (const char* format : {"csv", "json", "perfetto", "chrome-json"}) {
    same_rows("intel:lnl", "", args, "decode", rec, format);
  }
  same_rows("intel:lnl", "eio", args, "decode", rec, "json");
  const auto json = slurp(path("live.rows"));
  EXPECT_NE(std::string(json.begin(), json.end()).find("\"report-lost\""), std::string::npos)
      << std::string(json.begin(), json.end()).substr(0, 2000);
#ifdef HWPC_HAVE_PUGIXML
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics-xe/oa-lnl.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  const std::string set = " --metrics " + xml + " --set RenderBasic";
  same_rows("intel:lnl", "", "record intel --exponent 12 --duration 300ms" + set, "decode" + set,
            rec, "csv");
  const auto csv = slurp(path("live.rows"));
  EXPECT_NE(std::string(csv.begin(), csv.end()).find("GpuCoreClocks"), std::string::npos);
#endif
}

TEST_F(LiveShimRows, MaliRowsWhileRecordingAreHwpcMalisRows) {
  const std::string cap = path("rows.hwpcmali");
  const std::string args = "record mali --period 5ms --duration 200ms";
  for (const char* format : {"csv", "json", "perfetto"}) {
    same_rows("mali:g78", "", args, "mali", cap, format);
  }
  // A full ring: sequence gaps become lost rows in both.
  same_rows("mali:g720", "overflow", "record mali --period 1ms --duration 100ms", "mali", cap,
            "csv");
  const auto csv = slurp(path("live.rows"));
  EXPECT_NE(std::string(csv.begin(), csv.end()).find(",overflow"), std::string::npos);
}

TEST_F(LiveShimRows, OutputIsCheckedBeforeTheDeviceIsOpened) {
  auto r = shimmed("intel:hsw", "", "record intel --set-id 2 --output html --out " + path("h.rec"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("hwpc report FILE"), std::string::npos) << r.out;
  r = shimmed("mali:g78", "", "record mali --output xml --out " + path("h.hwpcmali"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--output: expected csv, json, perfetto, chrome-json or html, not 'xml'"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(path("h.hwpcmali")));
}

}  // namespace
