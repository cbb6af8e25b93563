// `hwpc decode --output perfetto` read back by a real protobuf tool: protoc
// decodes the written traces against Perfetto's own schema
// (../shared/data/perfetto/perfetto_trace.proto), and the tracks, units,
// values, times and losses are checked against the CSV of the same capture.
// Emulated captures of each input kind (raw, i915-stream, recording), with
// a metric set when the metric XML loader is built.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hwpc/intel/platform.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "protoc_text.hpp"
#include "tool_runner.hpp"

namespace {

std::string shell(const std::string& cmd) { return hwpc::testing::run_command(cmd).out; }

using hwpc::testing::split;

using hwpc::testing::protoc::packet;
using hwpc::testing::protoc::parse_text;

class PerfettoTool : public hwpc::testing::tool_test {
 protected:
  void SetUp() override {
    tool_test::SetUp();
    if (IsSkipped()) return;
    if (const auto why = hwpc::testing::protoc::skip_reason(proto_dir_); !why.empty()) {
      GTEST_SKIP() << why;
    }
  }

  // Emulates a capture of `kind`, writes its trace and CSV, checks one against the other.
  void check(const std::string& kind, const std::string& faults) {
    using hwpc::testing::run_tool;
    const std::string cap = (dir_ / (kind + ".bin")).string();
    auto e = run_tool("emulate --platform hsw --format A45_B8_C8 --reports 40 --seed 11 " + faults +
                      " --output-kind " + kind + " --out " + cap);
    ASSERT_EQ(e.status, 0) << e.out;
    std::string args = "decode --input-kind " + kind + " ";
    if (kind != "recording") args += "--platform hsw --format A45_B8_C8 ";
    const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
    bool metrics = false;
#ifdef HWPC_HAVE_PUGIXML
    metrics = std::filesystem::exists(xml);
#endif
    if (metrics) {
      args += "--metrics " + xml + " --set RenderBasic ";
      for (const char* v :
           {"EuCoresTotalCount=20", "EuSlicesTotalCount=1", "EuSubslicesTotalCount=2",
            "EuThreadsCount=7", "SliceMask=1", "SubsliceMask=3", "GpuMinFrequency=300000000",
            "GpuMaxFrequency=1100000000"}) {
        args += std::string("--device-var ") + v + " ";
      }
    }
    const std::string trace = (dir_ / (kind + ".pftrace")).string();
    auto t = run_tool(
        args + "--output perfetto --perfetto-layout track-event " + cap + " > " + trace, true);
    ASSERT_EQ(t.status, 0) << t.out;
    auto csv = run_tool(args + cap, true);
    ASSERT_EQ(csv.status, 0);
    const std::string text =
        shell("protoc --decode=perfetto.protos.Trace -I " + proto_dir_.string() +
              " perfetto_trace.proto < " + trace + " 2>&1");
    const auto packets = parse_text(text);
    ASSERT_GT(packets.size(), 10u) << text.substr(0, 2000);

    // Tracks by name (names are unique in these traces) and by uuid.
    std::map<std::string, packet> by_name;
    std::map<std::string, std::string> name_of;              // uuid -> name
    std::map<std::string, std::vector<std::string>> values;  // track name -> values
    std::map<std::string, std::vector<std::string>> times;
    std::vector<std::string> losses;
    for (const packet& p : packets) {
      ASSERT_EQ(p.at("trusted_packet_sequence_id"), "1");
      if (p.count("track_descriptor.uuid") != 0) {
        by_name[p.at("track_descriptor.name")] = p;
        name_of[p.at("track_descriptor.uuid")] = p.at("track_descriptor.name");
        continue;
      }
      ASSERT_EQ(p.count("track_event.type"), 1u) << "neither descriptor nor event";
      const std::string& track = name_of.at(p.at("track_event.track_uuid"));
      if (p.at("track_event.type") == "TYPE_INSTANT") {
        ASSERT_EQ(track, "losses");
        losses.push_back(p.at("track_event.name"));
        continue;
      }
      ASSERT_EQ(p.at("track_event.type"), "TYPE_COUNTER");
      const auto v = p.count("track_event.counter_value") != 0
                         ? p.at("track_event.counter_value")
                         : p.at("track_event.double_counter_value");
      values[track].push_back(v);
      times[track].push_back(p.at("timestamp"));
    }
    const std::string root = by_name.at("raw counters").at("track_descriptor.parent_uuid");
    EXPECT_EQ(name_of.at(root).rfind("hwpc hsw A45_B8_C8: ", 0), 0u) << name_of.at(root);
    const std::string raw = by_name.at("raw counters").at("track_descriptor.uuid");

    // The CSV: header, then rows.
    std::istringstream in(csv.out);
    std::string line;
    std::getline(in, line);
    const auto head = split(line, ',');
    std::size_t reason_col = 0;
    while (head[reason_col] != "reason") ++reason_col;
    // Streams and recordings end with `lost`; raw input cannot lose reports.
    const bool has_lost = head.back() == "lost";
    ASSERT_EQ(has_lost, kind != "raw");
    const std::size_t lost_col = has_lost ? head.size() - 1 : head.size();
    std::vector<std::string> csv_losses;
    std::map<std::string, std::vector<std::string>> csv_values;
    std::vector<std::uint64_t> csv_ends;
    std::size_t rows = 0;
    while (std::getline(in, line)) {
      const auto f = split(line, ',');
      ASSERT_EQ(f.size(), head.size()) << line;
      if (has_lost && f[lost_col] == "1") {
        csv_losses.push_back(f[reason_col]);
        continue;
      }
      ++rows;
      csv_ends.push_back(std::stoull(f[2]));
      for (std::size_t c = 3; c < lost_col; ++c) {
        if (c == reason_col || c == reason_col + 1 || f[c].empty()) continue;
        if (f[c] == "nan" || f[c] == "inf" || f[c] == "-inf") continue;
        csv_values[head[c]].push_back(f[c]);
      }
    }
    ASSERT_GT(rows, 20u);
    EXPECT_EQ(losses, csv_losses);
    if (!faults.empty()) {
      EXPECT_FALSE(losses.empty()) << "the fault should have lost reports";
    }

    // Every counter column: a track under "raw counters", counted, with the CSV's values.
    for (std::size_t c = 3; c < reason_col; ++c) {
      const std::string& name = head[c];
      ASSERT_EQ(by_name.count(name), 1u) << name;
      EXPECT_EQ(by_name[name].at("track_descriptor.parent_uuid"), raw) << name;
      EXPECT_EQ(by_name[name].at("track_descriptor.counter.unit"), "UNIT_COUNT") << name;
      ASSERT_EQ(values[name].size(), rows) << name;
      EXPECT_EQ(values[name], csv_values[name]) << name;
    }
    // Times: each row's end; GPU time for raw input and streams, CPU time from
    // the recording's correlation (increasing, and not the GPU's).
    const auto& first_times = times[head[3]];
    ASSERT_EQ(first_times.size(), rows);
    const auto hz = hwpc::intel::info(hwpc::intel::platform::hsw).timestamp_frequency_hz;
    bool all_gpu = true;
    for (std::size_t i = 0; i < rows; ++i) {
      const auto gpu_ns = hwpc::output::ticks_to_ns(csv_ends[i], hz);
      if (std::to_string(gpu_ns) != first_times[i]) all_gpu = false;
      if (i > 0) {
        EXPECT_LT(std::stoull(first_times[i - 1]), std::stoull(first_times[i]));
      }
    }
    EXPECT_EQ(all_gpu, kind != "recording");

    if (!metrics) return;
    const std::string group = by_name.at("RenderBasic").at("track_descriptor.uuid");
    EXPECT_EQ(by_name.at("RenderBasic").at("track_descriptor.parent_uuid"), root);
    for (std::size_t c = reason_col + 2; c < lost_col; ++c) {
      const std::string& name = head[c];
      ASSERT_EQ(by_name.count(name), 1u) << name;
      EXPECT_EQ(by_name[name].at("track_descriptor.parent_uuid"), group) << name;
      // Values compare as numbers: protoc prints doubles in its own shortest form.
      const auto& tv = values[name];
      const auto& cv = csv_values[name];
      ASSERT_EQ(tv.size(), cv.size()) << name;
      for (std::size_t i = 0; i < tv.size(); ++i) {
        EXPECT_EQ(std::strtod(tv[i].c_str(), nullptr), std::strtod(cv[i].c_str(), nullptr))
            << name << " value " << i;
      }
    }
    // Units from the metric file's `units`.
    auto unit = [&](const std::string& n, const std::string& field) {
      const auto& p = by_name.at(n);
      const auto it = p.find("track_descriptor.counter." + field);
      return it == p.end() ? std::string("-") : it->second;
    };
    EXPECT_EQ(unit("GpuTime", "unit"), "UNIT_TIME_NS");
    EXPECT_EQ(unit("PsDuration", "unit"), "UNIT_TIME_NS");
    EXPECT_EQ(unit("PsDuration", "unit_multiplier"), "1000");
    EXPECT_EQ(unit("L3SamplerThroughput", "unit"), "UNIT_SIZE_BYTES");
    EXPECT_EQ(unit("GpuCoreClocks", "unit_name"), "cycles");
    EXPECT_EQ(unit("AvgGpuCoreFrequency", "unit_name"), "hz");
    EXPECT_EQ(unit("GpuBusy", "unit_name"), "percent");
    EXPECT_EQ(unit("GpuBusy", "unit"), "-");
  }

  std::filesystem::path proto_dir_;
};

TEST_F(PerfettoTool, RawCaptureDecodesWithProtoc) { check("raw", ""); }
TEST_F(PerfettoTool, I915StreamWithLossesDecodesWithProtoc) {
  check("i915-stream", "--faults report-lost");
}
TEST_F(PerfettoTool, RecordingWithLossesDecodesWithProtocAtCpuTime) {
  check("recording", "--faults report-lost");
}

// The trace is binary: a terminal on stdout is refused (exit 1, usage), a
// pipe or a file is written. util-linux `script` gives the tool a terminal.
class PerfettoTerminal : public hwpc::testing::tool_test {};

TEST_F(PerfettoTerminal, RefusesATerminalButWritesToAPipe) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "util-linux `script` is not installed";
  }
  const std::string tty = shell("script -qec '" + std::string(HWPC_TOOL_PATH) +
                                " decode --output perfetto; echo status=$?' /dev/null");
  EXPECT_NE(tty.find("redirect stdout to a file"), std::string::npos) << tty;
  EXPECT_NE(tty.find("status=1"), std::string::npos) << tty;
  auto piped = hwpc::testing::run_tool("decode --output perfetto", true);
  EXPECT_EQ(piped.status, 0);
  EXPECT_GT(piped.out.size(), 100u);
}

}  // namespace
