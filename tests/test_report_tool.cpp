// `hwpc report` end to end, without a browser: for every vendor and Intel
// input kind, the report's totals table holds exactly the numbers of the
// same command's --summary, its facts say what the capture is, it refers
// to nothing outside itself, hostile names are escaped, usage errors are
// refused and a failed report leaves no file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "adreno_results_capture.hpp"
#include "report_test_util.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

namespace {

using hwpc::testing::count_of;
using hwpc::testing::read_text;
using hwpc::testing::run_tool;

const std::string hsw_xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";

bool have_metrics() {
#ifdef HWPC_HAVE_PUGIXML
  return std::filesystem::exists(hsw_xml);
#else
  return false;
#endif
}

class ReportTool : public hwpc::testing::tool_test {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `report ARGS -o FILE`, checks that the page stands alone, returns it.
  // (`refs`: off where a hostile name holds such text, escaped.)
  std::string report(const std::string& args, const std::string& name, bool refs = true) {
    const std::string out = path(name);
    const auto r = run_tool("report " + args + " -o " + out);
    EXPECT_EQ(r.status, 0) << r.out;
    const std::string html = read_text(out);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << name;
    EXPECT_EQ(html.find("<script"), std::string::npos) << name;
    for (const char* ref : {"http:", "https:", "src=", "href=", "url(", "<link"}) {
      if (refs) {
        EXPECT_EQ(html.find(ref), std::string::npos) << name << ": " << ref;
      }
    }
    EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
    return html;
  }

  // Every number of `summary_args` --summary (CSV) is in the totals table,
  // and the table holds nothing else.
  void same_totals(const std::string& html, const std::string& summary_args) {
    const auto s = run_tool(summary_args + " --summary", true);
    ASSERT_EQ(s.status, 0) << summary_args;
    const auto want = hwpc::testing::summary_of(s.out);
    const auto got = hwpc::testing::totals_of(html);
    ASSERT_EQ(got.size(), want.size()) << summary_args;
    for (const auto& [name, value] : got) {
      const auto w = want.find(name);
      ASSERT_NE(w, want.end()) << name;
      EXPECT_EQ(value, w->second) << summary_args << ": " << name;
    }
  }
};

// The last cell of the totals table's row `name`: how that total is made.
std::string total_of(const std::string& html, const std::string& name) {
  const auto row = html.find("<tr><td>" + name + "</td>", html.find("id=\"totals-table\""));
  if (row == std::string::npos) return "(no row " + name + ")";
  const auto end = html.find("</td></tr>", row);
  const auto last = html.rfind("<td>", end);
  return html.substr(last + 4, end - last - 4);
}

TEST_F(ReportTool, DefaultCaptureWithoutCapture) {
  const std::string html = report("", "default.html");
  same_totals(html, "decode");
  EXPECT_EQ(total_of(html, "A0"), "sum over the intervals");
  EXPECT_EQ(total_of(html, "elapsed_ticks"), "sum of the intervals&#39; lengths");
  EXPECT_NE(html.find("<th>input</th><td>the embedded default capture (raw reports)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>device</th><td>emulated"), std::string::npos);
  EXPECT_EQ(count_of(html, "class=\"chart\" data-kind=\"counter\""), 8u);
  EXPECT_EQ(count_of(html, "class=\"chart\" data-kind=\"metric\""), 0u);
}

TEST_F(ReportTool, EveryIntelInputKindWithAndWithoutMetrics) {
  const std::string metrics = have_metrics() ? " --metrics " + hsw_xml + " --set RenderBasic" : "";
  // Raw reports and streams carry no device information: RenderBasic's variables.
  const std::string device = have_metrics() ? " --device-var EuCoresTotalCount=20 --device-var "
                                              "EuSlicesTotalCount=1 --device-var "
                                              "GpuMaxFrequency=1150000000 --device-var "
                                              "SubsliceMask=3"
                                            : "";
  struct kind {
    const char* emulate;
    const char* decode;  // what decode needs besides the file
    const char* fact;
  } kinds[] = {{"raw", " --platform hsw --format A45_B8_C8", "raw reports"},
               {"i915-stream", " --platform hsw --format A45_B8_C8 --input-kind i915-stream",
                "i915 perf stream"},
               {"recording", "", "recording"}};
  for (const kind& k : kinds) {
    const std::string cap = path(std::string(k.emulate) + ".bin");
    const std::string faults = std::string(k.emulate) == "raw" ? "wrap" : "report-lost,wrap";
    ASSERT_EQ(run_tool("emulate --platform hsw --format A45_B8_C8 --reports 500 --faults " +
                       faults + " --output-kind " + k.emulate + " --out " + cap)
                  .status,
              0);
    const bool raw_or_stream = std::string(k.emulate) != "recording";
    for (const std::string& m : {std::string(), metrics + (raw_or_stream ? device : "")}) {
      const std::string html = report(cap + k.decode + m, std::string(k.emulate) + ".html");
      same_totals(html, "decode " + cap + k.decode + m);
      EXPECT_NE(html.find(std::string("(") + k.fact + ")</td>"), std::string::npos) << k.fact;
      EXPECT_NE(html.find("<th>vendor</th><td>Intel"), std::string::npos);
      if (!m.empty()) {
        const auto csv = run_tool("decode " + cap + k.decode + m, true);
        const auto cols = hwpc::testing::columns_of(csv.out);
        EXPECT_EQ(count_of(html, "data-kind=\"metric\""), cols.metrics.size());
        for (const auto& name : cols.metrics) {
          EXPECT_NE(html.find("data-name=\"" + name + "\""), std::string::npos) << name;
        }
      }
      if (std::string(k.emulate) != "raw") {
        EXPECT_NE(html.find("<path class=\"loss\""), std::string::npos) << k.fact;
        EXPECT_EQ(html.find("<th>losses</th><td>0 "), std::string::npos) << k.fact;
      }
    }
  }
}

TEST_F(ReportTool, MaliVinstrAndKinstrCaptures) {
  const std::string v = path("g72.cap"), k = path("g78.cap");
  ASSERT_EQ(run_tool("mali emulate --gpu G72 --samples 40 --out " + v).status, 0);
  ASSERT_EQ(run_tool("mali emulate --gpu G78 --reader kinstr --samples 40 --out " + k).status, 0);
  for (const std::string& cap : {v, k}) {
    const std::string html = report(cap + " --bus-width-bits 128", "mali.html");
    same_totals(html, "mali " + cap + " --bus-width-bits 128");
    EXPECT_NE(html.find("<th>vendor</th><td>Arm Mali</td>"), std::string::npos);
    EXPECT_NE(html.find("<th>GPU</th><td>Mali-G7"), std::string::npos);
    EXPECT_GT(count_of(html, "data-kind=\"metric\""), 10u);
    EXPECT_EQ(count_of(html, "data-kind=\"counter\""), 8u);
  }
}

TEST_F(ReportTool, AdrenoRdCapture) {
  const adreno_results::capture c;
  const std::string rd = path("q.rd");
  std::ofstream(rd, std::ios::binary)
      .write(reinterpret_cast<const char*>(c.w.bytes.data()),
             static_cast<std::streamsize>(c.w.bytes.size()));
  const std::string html = report(rd, "adreno.html");
  same_totals(html, "adreno " + rd);
  EXPECT_NE(html.find("<th>GPU</th><td>Adreno 530 "), std::string::npos);
  EXPECT_NE(html.find("<th>format</th><td>freedreno .rd capture</td>"), std::string::npos);
  // Query results add up; gpu_time and the counters are running values (last minus first).
  EXPECT_EQ(total_of(html, "samples_passed"), "sum over the results");
  EXPECT_EQ(total_of(html, "time_elapsed"), "sum over the results");
  EXPECT_EQ(total_of(html, "gpu_time"), "last value read minus the first (not a sum)");
  EXPECT_EQ(total_of(html, "CP_1"), "last value read minus the first (not a sum)");
  // samples_passed, time_elapsed, gpu_time, CP_1: every column is a metric.
  EXPECT_EQ(count_of(html, "data-kind=\"metric\""), 4u);
  EXPECT_EQ(html.find("id=\"counters\""), std::string::npos);
}

// A metric whose name is markup, in a metric file and (through emulate
// --set) in the recording's DEVICE_INFO, and a file name with markup.
TEST_F(ReportTool, HostileNamesAreEscaped) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml (the metric XML loader)";
#else
  const std::string xml = path("evil.xml");
  std::ofstream(xml) << R"(<metrics><set name="E" symbol_name="&lt;script&gt;x()&lt;/script&gt;"
      chipset="HSW" hw_config_guid="x">
    <counter name="n" symbol_name="&lt;img src=x onerror=alert(1)&gt;&quot;'&amp;" units="&lt;b&gt;"
             data_type="uint64" equation="GPU_TIME 0 READ"/>
  </set></metrics>)";
  const std::string rec = path("a&<b>.rec");
  ASSERT_EQ(run_tool("emulate --platform hsw --format A45_B8_C8 --reports 20 --metrics " + xml +
                     " --set '<script>x()</script>' --output-kind recording --out '" + rec + "'")
                .status,
            0);
  const std::string html = report(
      "'" + rec + "' --metrics " + xml + " --set '<script>x()</script>'", "evil.html", false);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("data-name=\"&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;\""),
            std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;x()&lt;/script&gt;"), std::string::npos);    // the set
  EXPECT_NE(html.find("a&amp;&lt;b&gt;.rec"), std::string::npos);                 // the file
  EXPECT_NE(html.find("<span class=\"u\">&lt;b&gt;</span>"), std::string::npos);  // the units
#endif
}

TEST_F(ReportTool, UsageErrorsAndNoHalfWrittenFile) {
  EXPECT_EQ(run_tool("report").status, 1);  // no -o
  const std::string out = path("x.html");
  EXPECT_EQ(run_tool("report --summary -o " + out).status, 1);
  EXPECT_EQ(run_tool("report --vendor arm -o " + out).status, 1);
  EXPECT_EQ(run_tool("report --vendor mali -o " + out).status, 1);  // Mali needs CAPTURE
  const std::string rec = path("r.rec");
  ASSERT_EQ(
      run_tool("emulate --platform hsw --format A45_B8_C8 --output-kind recording --out " + rec)
          .status,
      0);
  const auto wrong = run_tool("report " + rec + " --gpu G72 -o " + out);
  EXPECT_EQ(wrong.status, 1);
  EXPECT_NE(wrong.out.find("--gpu is not an option for Intel captures"), std::string::npos);
  EXPECT_EQ(run_tool("report " + path("missing.bin") + " -o " + out).status, 2);
  // Truncated raw reports: decode fails after the page was begun; no file is left.
  std::ofstream(path("short.bin"), std::ios::binary) << std::string(300, '\x01');
  EXPECT_EQ(run_tool("report " + path("short.bin") + " --platform hsw --format A45_B8_C8 -o " + out)
                .status,
            2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
  // -o - writes to standard output.
  const auto stdout_run = run_tool("report -o -", true);
  EXPECT_EQ(stdout_run.status, 0);
  EXPECT_EQ(stdout_run.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(run_tool("decode --output html --summary").status, 1);
}

}  // namespace
