// Every option of every hwpc subcommand, alone and in the combinations the tool cannot honour:
// an option is either used or refused with a message that says what to do instead, never
// ignored. One table row per case; a new option fails the coverage test until a row names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "adreno_results_capture.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR ""
#endif

namespace {

using hwpc::testing::run_command;
using hwpc::testing::run_tool;

// {rec} {raw} {mali} {malibin} {rd} {hex} {xml} {dir}: the captures SetUpTestSuite makes, the
// HSW metric file, the scratch directory.
struct option_case {
  const char* command;  // the subcommand whose options the row exercises ("mali emulate")
  const char* args;     // after `hwpc COMMAND`
  int status;           // 0 ok, 1 usage error
  const char* says;     // what the output must contain (for errors: what to do instead)
};

const option_case cases[] = {
    // formats
    {"formats", "--json --platform hsw", 0, "\"name\": \"A45_B8_C8\""},
    {"formats", "--platform nosuch", 1, "unknown platform 'nosuch'"},
    // decode: each option alone
    {"decode", "{raw} --platform hsw --format A45_B8_C8", 0, "report,offset,timestamp"},
    {"decode", "{rec} --input-kind recording --output json", 0, "\"report\""},
    {"decode", "{rec} --context 0x20", 1, "--context"},
    {"decode", "{rec} --summary --threads 2", 1, "--threads"},
    {"decode", "{raw} --platform hsw --format A45_B8_C8 --summary --threads 2", 0, "report"},
    {"decode", "{raw} --platform hsw --format A45_B8_C8 --unverified-layouts", 0, "report"},
    {"decode", "--platform lnl --format PEC64u64 --input-kind raw --xe-loss 0:1 {raw}", 1,
     "--input-kind xe-stream"},
    {"decode", "{rec} --metrics {xml} --set RenderBasic --device-var GpuMinFrequency=1", 0,
     "GpuBusy"},
    {"decode", "{rec} --output perfetto > {dir}/t.pftrace", 0, ""},
    {"decode", "{rec} --output perfetto --perfetto-layout track-event > {dir}/t.pftrace", 0, ""},
    {"decode", "{rec} {rec} --output perfetto > {dir}/t.pftrace", 0, ""},
    // decode: combinations it cannot honour
    {"decode", "{rec} --summary --output perfetto", 1, "drop --summary"},
    {"decode", "{rec} --perfetto-layout track-event", 1, "goes with --output perfetto"},
    {"decode", "{rec} --output perfetto --perfetto-layout json", 1,
     "--perfetto-layout: expected gpu-counters or track-event, not 'json'"},
    {"decode", "{rec} --output xml", 1,
     "--output: expected csv, json, perfetto, chrome-json or html, not 'xml'"},
    {"decode", "{raw} --input-kind pipe", 1,
     "--input-kind: expected raw, i915-stream, xe-stream or recording, not 'pipe'"},
    {"decode", "{rec} --metrics {xml} --set RenderBasic --arithmetic exact", 1,
     "--arithmetic: expected mdapi or igt, not 'exact'"},
    {"decode", "{rec} {rec}", 1, "several FILEs make one trace"},
    {"decode", "{rec} {rec} --output perfetto --perfetto-layout track-event", 1,
     "several FILEs make one trace"},
    {"decode", "{rec} --summary --output chrome-json", 1, "or use --output csv|json"},
    {"decode", "{rec} --summary --output html", 1, "--summary and --output html"},
    {"decode", "{raw} --platform hsw --format A45_B8_C8 --threads 2", 1, "add --summary"},
    {"decode", "{rec} --device-var GpuMinFrequency=1", 1, "needs --metrics"},
    {"decode", "{rec} --set RenderBasic", 1, "--set needs --metrics"},
    {"decode", "{rec} --metrics {xml} --set RenderBasic --arithmetic igt", 0, "GpuBusy"},
    {"decode", "{rec} --arithmetic igt", 1, "it needs --metrics"},
    // HSW RenderBasic is a set metrics-discovery defines: newer appends its own metrics.
    {"decode", "{rec} --metrics {xml} --set RenderBasic --definitions newer", 0,
     "AvgGpuCoreFrequencyMHz"},
    {"decode", "{rec} --metrics {xml} --set RenderBasic --definitions file --arithmetic igt", 0,
     "GpuBusy"},
    {"decode", "{rec} --definitions file", 1, "it needs --metrics"},
    {"decode", "{rec} --metrics {xml} --set RenderBasic --definitions igt", 1,
     "--definitions: expected file, mdapi or newer, not 'igt'"},
    {"decode", "{rec} --metrics {xml} --set RenderBasic --arithmetic igt --definitions mdapi", 1,
     "--definitions mdapi takes metrics-discovery's formulas"},
    // a metric file that is not there: where Intel's files come from
    {"decode", "{rec} --metrics oa-hsw.xml --set RenderBasic", 2, "lib/i915/perf-configs/oa-*.xml"},
    {"decode", "{raw}", 1, "--platform and --format are required"},
    // eval
    {"eval", "--syntax infix --expr '$A / $B' --var A=1 --var B=20", 0, "0.05\n"},
    // a value outside an option's choices, or not a number: one message shape (cli.hpp)
    {"eval", "--syntax lisp --expr 1", 1, "--syntax: expected rpn or infix, not 'lisp'"},
    {"eval", "--arithmetic exact --expr 1", 1, "--arithmetic: expected mdapi or igt, not 'exact'"},
    {"eval",
     "--arithmetic igt --syntax rpn --expr 'PEC 4 READ $EuCoresTotalCount UDIV 100 UMUL "
     "$GpuCoreClocks FDIV' --var PEC4=40 --var EuCoresTotalCount=64 --var GpuCoreClocks=50",
     0, "0\n"},
    // emulate
    {"emulate",
     "--platform hsw --format A45_B8_C8 --exponent 10 --reports 20 --seed 3 --faults wrap "
     "--driver i915 --output-kind raw --out {dir}/e.raw --truth {dir}/e.csv",
     0, "20 reports"},
    {"emulate",
     "--platform hsw --format A45_B8_C8 --reports 20 --overrun-disable --output-kind recording "
     "--out {dir}/e.rec --metrics {xml} --set RenderBasic",
     0, "reports"},
    {"emulate", "--platform hsw --format A45_B8_C8 --output-kind raw --out {dir}/e.raw --set X", 1,
     "--metrics and --set go together"},
    {"emulate",
     "--platform hsw --format A45_B8_C8 --output-kind raw --driver amd --out {dir}/e.raw", 1,
     "--driver: expected i915 or xe, not 'amd'"},
    {"emulate", "--platform hsw --format A45_B8_C8 --output-kind tape --out {dir}/e.raw", 1,
     "--output-kind: expected raw, i915-stream, recording, xe-stream or xe-recording, not 'tape'"},
    {"emulate",
     "--platform hsw --format A45_B8_C8 --output-kind raw --reports many --out {dir}/e.raw", 1,
     "--reports: expected a number (decimal or 0x hex), not 'many'"},
    {"emulate",
     "--platform hsw --format A45_B8_C8 --output-kind raw --exponent 0x100000000 --out "
     "{dir}/e.raw",
     1, "--exponent: at most 4294967295"},
    {"emulate",
     "--platform lnl --format PEC64u64 --driver xe --output-kind xe-recording --out {dir}/x.rec "
     "--metrics oa-lnl.xml --set RenderBasic",
     1, "lib/xe/oa-configs/oa-*.xml"},
    // mali
    {"mali", "{mali} --bus-width-bits 128 --derived guide --per-instance --output json", 0,
     "\"GPU_ACTIVE\""},
    {"mali", "{mali} --summary --counters-only", 0, "GPU_ACTIVE"},
    {"mali", "{malibin} --gpu G72 --reader vinstr --l2-slices 1 --core-mask 0xf", 0, "GPU_ACTIVE"},
    {"mali", "{mali} --output perfetto > {dir}/m.pftrace", 0, ""},
    {"mali", "{mali} --output perfetto --perfetto-layout track-event > {dir}/m.pftrace", 0, ""},
    {"mali", "{mali} --perfetto-layout gpu-counters", 1, "goes with --output perfetto"},
    {"mali", "--list-gpus", 0, "Mali-G72"},
    {"mali", "{mali} --names streamline --max-clock-mhz 1000", 0, "MaliGPUActiveCy"},
    {"mali", "{mali} --derived guide", 1, "--derived needs --bus-width-bits"},
    {"mali", "{mali} --bus-width-bits 128 --counters-only", 1, "drop one"},
    {"mali", "{mali} --summary --output perfetto", 1, "drop --summary"},
    {"mali", "{mali} --summary --output chrome-json", 1, "drop --summary"},
    {"mali", "{mali} --core-index sparse", 1, "give --reader kinstr"},
    {"mali", "--list-gpus {mali}", 1, "--list-gpus takes no FILE"},
    {"mali", "--list-gpus --gpu G72", 1, "--list-gpus takes no FILE"},
    {"mali", "{malibin} --l2-slices 1 --core-mask 0xf", 1, "--gpu is required"},
    {"mali", "{mali} --reader perf", 1, "--reader: expected vinstr or kinstr, not 'perf'"},
    {"mali", "{mali} --output xml", 1,
     "--output: expected csv, json, perfetto, chrome-json or html, not 'xml'"},
    {"mali", "{malibin} --gpu G72 --l2-slices two --core-mask 0xf", 1,
     "--l2-slices: expected a number (decimal or 0x hex), not 'two'"},
    // record intel: no GPU here, so the device is one that does not exist (test_live_shim.cpp
    // runs the tool against the simulated kernel)
    {"record intel",
     "--device /nonexistent/renderD128 --set-id 2 --set RenderBasic --format A45_B8_C8 "
     "--exponent 12 --duration 1s --ctx 1 --out {dir}/r.rec",
     2, "no such device: /nonexistent/renderD128"},
    {"record intel",
     "--device /nonexistent/renderD128 --metrics {xml} --set RenderBasic --period 1ms "
     "--out {dir}/r.rec",
     2, "no such device"},
    {"record intel", "--set-id 2 --exponent 40 --out {dir}/r.rec", 1, "--exponent: 0..31"},
    {"record intel", "--set-id 2 --period 1ms --exponent 3 --out {dir}/r.rec", 1, "give one"},
    {"record intel", "--metrics {xml} --set-id 2 --out {dir}/r.rec", 1, "give one"},
    {"record intel", "--out {dir}/r.rec", 1, "name the metric set"},
    {"record intel", "--set-id 2 --duration soon --out {dir}/r.rec", 1, "--duration: expected"},
    {"record intel", "--set-id 2", 1, "--out FILE is required"},
    {"record intel", "--set-id 2 --output html --out {dir}/r.rec", 1, "run `hwpc report FILE`"},
    {"record intel", "--set-id 2 --output xml --out {dir}/r.rec", 1,
     "--output: expected csv, json, perfetto, chrome-json or html, not 'xml'"},
    {"record intel", "--set-id two --out {dir}/r.rec", 1,
     "--set-id: expected a number (decimal or 0x hex), not 'two'"},
    {"record intel", "--set-id 0 --out {dir}/r.rec", 1, "--set-id: the kernel's config id"},
    {"record intel", "--set-id 2 --exponent 1e3 --out {dir}/r.rec", 1,
     "--exponent: expected a number (decimal or 0x hex), not '1e3'"},
    {"record intel", "--set-id 2 --ctx 0x100000000 --out {dir}/r.rec", 1,
     "--ctx: a GEM context handle (32 bits)"},
    // record mali
    {"record mali", "--device /nonexistent/mali0 --period 1ms --duration 1s --out {dir}/m.hwpcmali",
     2, "no such device: /nonexistent/mali0"},
    {"record mali", "--period fast --out {dir}/m.hwpcmali", 1, "--period: expected a time"},
    {"record mali", "--output tsv --out {dir}/m.hwpcmali", 1,
     "--output: expected csv, json, perfetto, chrome-json or html, not 'tsv'"},
    // mali emulate
    {"mali emulate",
     "--gpu G78 --reader kinstr --l2-slices 2 --core-mask 0x3 --samples 3 --seed 2 "
     "--period-ns 1000 --out {dir}/k.hwpcmali --truth {dir}/k.csv",
     0, ""},
    {"mali emulate", "--gpu G72 --samples 0 --out {dir}/z.hwpcmali", 1,
     "--samples: expected 1..1000000, not 0"},
    {"mali emulate", "--gpu G72 --reader perf --out {dir}/z.hwpcmali", 1,
     "--reader: expected vinstr or kinstr, not 'perf'"},
    // adreno
    {"adreno", "{rd} --queries", 0, "occlusion"},
    {"adreno", "{hex} --format hex", 0, "pkt7"},
    {"adreno", "{rd} --output csv", 0, "samples_passed"},
    {"adreno", "{rd} --summary", 0, "samples_passed"},
    {"adreno", "{hex} --format hex --gpu a530", 0, "pkt7"},
    {"adreno", "{rd} --packets --output csv", 0, ""},
    {"adreno", "{rd} --summary --output perfetto", 1, "drop --summary"},
    {"adreno", "{rd} --output perfetto --perfetto-layout track-event > {dir}/a.pftrace", 0, ""},
    {"adreno", "{rd} --output csv --perfetto-layout track-event", 1, "goes with --output perfetto"},
    {"adreno", "{rd} --format elf", 1, "--format: expected auto, rd, hex or bin, not 'elf'"},
    {"adreno", "{rd} --output tsv", 1,
     "--output: expected csv, json, perfetto, chrome-json or html, not 'tsv'"},
    {"adreno", "{rd} --output perfetto --perfetto-layout tracks", 1,
     "--perfetto-layout: expected gpu-counters or track-event, not 'tracks'"},
    // adreno emulate
    {"adreno emulate", "--gpu a530 --rounds 2 --seed 3 --out {dir}/e.rd --truth {dir}/e.csv", 0,
     ""},
    {"adreno emulate", "--gpu a630 --libwrap --size 64K --out {dir}/f.rd --truth {dir}/f.csv", 0,
     ""},
    {"adreno emulate", "--size 0 --out {dir}/f.rd", 1, "--size: a byte count"},
    {"adreno emulate", "--gpu a750 --size 1M --texture 256K --out {dir}/f.rd", 0, ""},
    {"adreno emulate", "--size 1M --texture 2G --out {dir}/f.rd", 1, "--texture: a byte count"},
    {"adreno emulate", "--texture 1M --out {dir}/f.rd", 1, "give --size"},
    {"adreno emulate", "--size 1M --rounds 2 --out {dir}/f.rd", 1, "drop one of them"},
    {"adreno emulate", "--rounds four --out {dir}/f.rd", 1,
     "--rounds: expected a number (decimal or 0x hex), not 'four'"},
    {"adreno emulate", "--rounds 0 --out {dir}/f.rd", 1, "--rounds: a number from 1 to 100000"},
    {"adreno emulate", "--seed -1 --out {dir}/f.rd", 1,
     "--seed: expected a number (decimal or 0x hex), not '-1'"},
    {"adreno emulate", "--seed x --out {dir}/f.rd", 1,
     "--seed: expected a number (decimal or 0x hex), not 'x'"},
    {"adreno", "{rd} --queries --summary", 1, "--queries is the listing's"},
    // report
    {"report", "{rec} --out {dir}/r.html --metrics {xml} --set RenderBasic", 0, ""},
    {"report", "{rec} -o {dir}/r.html --metrics {xml} --set RenderBasic --arithmetic igt", 0, ""},
    {"report", "{rec} -o {dir}/r.html --arithmetic igt", 1, "it needs --metrics"},
    {"report", "{rec} -o {dir}/r.html --metrics {xml} --set RenderBasic --definitions newer", 0,
     ""},
    {"report", "{rec} -o {dir}/r.html --definitions newer", 1, "it needs --metrics"},
    {"report",
     "{rec} -o {dir}/r.html --metrics {xml} --set RenderBasic --arithmetic igt "
     "--definitions newer",
     1, "not igt's"},
    {"report", "{raw} -o {dir}/r.html --vendor intel --platform hsw --format A45_B8_C8", 0, ""},
    {"report", "{rec} -o {dir}/r.html --input-kind recording --context 0x20", 1, "--context"},
    {"report", "{rec} -o {dir}/r.html --unverified-layouts --device-var X=1", 1, "needs --metrics"},
    {"report", "-o {dir}/r.html --platform lnl --format PEC64u64 --xe-loss 0:1 {raw}", 1,
     "--input-kind xe-stream"},
    {"report",
     "{malibin} -o {dir}/m.html --gpu G72 --reader vinstr --l2-slices 1 --core-mask 0xf "
     "--bus-width-bits 128 --derived guide",
     0, ""},
    {"report", "{mali} -o {dir}/m.html --counters-only --core-index dense", 1,
     "give --reader kinstr"},
    {"report", "{hex} -o {dir}/a.html --format hex --gpu a530", 0, ""},
    // Hex dword text is Adreno's (identify(), as for hwpc decode): it names no GPU.
    {"report", "{hex} -o {dir}/a.html", 1, "query rows need one: give --gpu"},
    {"report", "{rd} -o {dir}/a.html --platform hsw", 1, "--platform and --format are required"},
    {"report", "{rec} -o {dir}/r.html --vendor arm", 1,
     "--vendor: expected intel, mali or adreno, not 'arm'"},
    {"report", "{malibin} -o {dir}/m.html --gpu G72 --l2-slices two --core-mask 0xf", 1,
     "--l2-slices: expected a number"},
    {"report", "{mali} -o {dir}/m.html --reader perf", 1,
     "--reader: expected vinstr or kinstr, not 'perf'"},
    {"report", "{mali} -o {dir}/m.html --context 1", 1, "are Intel OA options"},
    {"report", "{raw} -o {dir}/r.html", 1, "cannot tell what the capture is"},
};

class ToolOptions : public hwpc::testing::tool_test {};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) {
    s.replace(at, from.size(), to);
  }
  return s;
}

void write_file(const std::filesystem::path& p, const std::vector<std::byte>& bytes) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

// The options `hwpc COMMAND --help` lists.
std::set<std::string> options_of(const std::string& command) {
  const auto help = run_tool(command + " --help", true);
  std::set<std::string> names;
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  --", 0) != 0) continue;
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    if (name != "--help") names.insert(name);
  }
  return names;
}

TEST_F(ToolOptions, EveryRowDoesWhatItSays) {
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  const std::string d = dir_.string();
  ASSERT_EQ(run_tool("emulate --platform hsw --format A45_B8_C8 --reports 50 --output-kind "
                     "recording --out " +
                     d + "/c.rec")
                .status,
            0);
  ASSERT_EQ(run_tool("emulate --platform hsw --format A45_B8_C8 --reports 50 --output-kind raw "
                     "--out " +
                     d + "/c.raw")
                .status,
            0);
  ASSERT_EQ(run_tool("mali emulate --gpu G72 --samples 4 --out " + d + "/c.hwpcmali").status, 0);
  // The same G72 samples without the file header and the per-sample metadata: raw vinstr.
  ASSERT_EQ(run_command("tail -c +65 " + d +
                        "/c.hwpcmali | { for i in 1 2 3 4; do head -c 32 "
                        ">/dev/null; head -c 1792; done; } > " +
                        d + "/c.vinstr")
                .status,
            0);
  const adreno_results::capture rd;
  write_file(dir_ / "c.rd", rd.w.bytes);
  {
    std::ofstream hex(dir_ / "c.txt");
    for (std::uint32_t dw : rd.cmd) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%08x\n", dw);
      hex << buf;
    }
  }
  const std::map<std::string, std::string> vars = {{"{rec}", d + "/c.rec"},
                                                   {"{raw}", d + "/c.raw"},
                                                   {"{mali}", d + "/c.hwpcmali"},
                                                   {"{malibin}", d + "/c.vinstr"},
                                                   {"{rd}", d + "/c.rd"},
                                                   {"{hex}", d + "/c.txt"},
                                                   {"{xml}", xml},
                                                   {"{dir}", d}};
  for (const option_case& c : cases) {
#ifndef HWPC_HAVE_PUGIXML
    // Without pugixml every --metrics is refused before the file is read, with its own
    // message (test_robustness_tool.cpp): the rows that load a metric file say nothing here.
    if (std::string_view(c.args).find("--metrics") != std::string_view::npos) continue;
#endif
    std::string args = std::string(c.command) + " " + c.args;
    for (const auto& [k, v] : vars) args = replace_all(args, k, v);
    const auto r = run_tool(args);
    EXPECT_EQ(r.status, c.status) << "hwpc " << args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos)
        << "hwpc " << args << "\nshould say: " << c.says << "\n"
        << r.out.substr(0, 2000);
    if (c.status == 1) {
      EXPECT_EQ(r.out.find("report,offset"), std::string::npos) << "no rows on a usage error";
    }
  }
}

// The help says what the tool does today: every Mali GPU, and --gpu, --l2-slices and
// --core-mask optional when a capture file's header gives them.
TEST_F(ToolOptions, HelpSaysWhatIsRequired) {
  const auto top = run_tool("--help", true);
  EXPECT_EQ(top.out.find("Mali-G72"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("any GPU in Arm's counter database"), std::string::npos) << top.out;
  const auto mali = run_tool("mali --help", true);
  EXPECT_NE(mali.out.find("[--gpu NAME|GPU_ID] [--reader vinstr|kinstr] [--l2-slices N] "
                          "[--core-mask M]"),
            std::string::npos)
      << mali.out;
  EXPECT_EQ(mali.out.find("(required)"), std::string::npos) << mali.out;
  EXPECT_NE(mali.out.find("required unless a capture file's header names it"), std::string::npos);
  // And a capture file does decode without them.
  const std::string file = (dir_ / "h.hwpcmali").string();
  ASSERT_EQ(run_tool("mali emulate --gpu G52 --samples 2 --out " + file).status, 0);
  EXPECT_EQ(run_tool("mali " + file).status, 0);
}

// Every option `--help` lists has a row that gives it, so a new option comes with its case.
TEST_F(ToolOptions, EveryOptionHasARow) {
  for (const char* command :
       {"formats", "decode", "eval", "emulate", "mali", "mali emulate", "adreno", "adreno emulate",
        "report", "record intel", "record mali"}) {
    const auto options = options_of(command);
    EXPECT_FALSE(options.empty()) << command;
    for (const std::string& option : options) {
      const bool covered = std::any_of(std::begin(cases), std::end(cases), [&](const auto& c) {
        const std::string args = std::string(" ") + c.args + " ";
        return c.command == std::string(command) &&
               (args.find(" " + option + " ") != std::string::npos ||
                (option == "--out" && args.find(" -o ") != std::string::npos));
      });
      EXPECT_TRUE(covered) << "hwpc " << command << " " << option
                           << ": add a row to cases[] in tests/test_tool_options.cpp";
    }
  }
}

}  // namespace
