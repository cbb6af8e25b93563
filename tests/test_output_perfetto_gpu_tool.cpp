// `--output perfetto` (GPU counters) of every vendor and input kind, and a
// fleet of eight captures in one trace, checked three ways against the CSV
// of the same capture:
//  1. protoc decodes the trace against Perfetto's schema
//     (../shared/data/perfetto/perfetto_trace.proto): the sample packet at
//     each CSV row's time holds that row's values, and no other values.
//  2. the import-rules checker (perfetto_import_rules.hpp) finds no broken
//     rule, and its import puts each CSV value on the counter row that is
//     followed by a row at the CSV's time (the value covers its interval).
//  3. when HWPC_TRACE_PROCESSOR names a trace_processor_shell: every CSV
//     column is a gpu_counter_track of its GPU with the checker's unit, and
//     its counter rows (ts, value) are the checker's, so the CSV's values at
//     the CSV's times.
// Skips with a message when protoc or ../shared is absent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "adreno_results_capture.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "perfetto_import_rules.hpp"
#include "protoc_text.hpp"
#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_command;
using hwpc::testing::run_tool;
using hwpc::testing::split;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool is_value(const std::string& v) {
  return !v.empty() && v != "nan" && v != "inf" && v != "-inf";
}

// One capture's CSV: the value columns, and for each row that is not a
// loss its time (ns on the trace's own clock) and cells.
struct csv_capture {
  std::vector<std::string> columns;
  std::vector<std::uint64_t> times;
  std::vector<std::vector<std::string>> cells;  // per row, per column
  std::size_t values = 0;
};

csv_capture parse_csv(const std::string& text,
                      const std::function<std::uint64_t(std::uint64_t)>& ns) {
  csv_capture c;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const auto head = split(line);
  std::vector<std::size_t> keep;
  for (std::size_t i = 3; i < head.size(); ++i) {
    if (head[i] == "reason" || head[i] == "ctx_id" || head[i] == "lost") continue;
    keep.push_back(i);
    c.columns.push_back(head[i]);
  }
  const bool has_lost = head.back() == "lost";
  while (std::getline(in, line)) {
    const auto f = split(line);
    EXPECT_EQ(f.size(), head.size()) << line;
    if (has_lost && f.back() == "1") continue;
    c.times.push_back(ns(std::stoull(f[2])));
    std::vector<std::string> row;
    for (std::size_t i : keep) {
      row.push_back(f[i]);
      if (is_value(f[i])) ++c.values;
    }
    c.cells.push_back(std::move(row));
  }
  return c;
}

class PerfettoGpuTool : public hwpc::testing::tool_test {
 protected:
  void SetUp() override {
    tool_test::SetUp();
    if (IsSkipped()) return;
    if (const auto why = hwpc::testing::protoc::skip_reason(proto_dir_); !why.empty()) {
      GTEST_SKIP() << why;
    }
  }

  // 1. protoc: the sample packets of GPU `gpu` by time, each counter's value by name.
  void check_protoc(const std::string& trace, const std::vector<csv_capture>& caps) {
    const auto r = run_command("protoc --decode=perfetto.protos.Trace -I " + proto_dir_.string() +
                               " perfetto_trace.proto < " + trace + " 2>&1");
    ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
    const auto packets = hwpc::testing::protoc::parse_ordered(r.out);
    std::map<std::string, std::int32_t> gpu_of_seq;
    std::map<std::pair<std::int32_t, std::string>, std::string> name_of;  // (gpu, id) -> name
    // (gpu, ts) -> name -> value; NaN openings counted apart.
    std::map<std::int32_t, std::map<std::uint64_t, std::map<std::string, std::string>>> samples;
    std::map<std::int32_t, std::size_t> values;
    for (const auto& p : packets) {
      std::string seq, ts;
      for (const auto& f : p) {
        if (f.key == "trusted_packet_sequence_id") seq = f.value;
        if (f.key == "timestamp") ts = f.value;
      }
      ASSERT_FALSE(ts.empty()) << "a packet without a timestamp";
      std::string id;
      std::size_t msg = 0;
      for (const auto& f : p) {  // protoc prints the GPU id after the specs
        if (f.key == "interned_data.gpu_counter_descriptors.gpu_id") {
          gpu_of_seq[seq] = std::stoi(f.value);
        }
      }
      for (const auto& f : p) {
        const std::string spec = "interned_data.gpu_counter_descriptors.counter_descriptor.specs.";
        if (f.key == spec + "counter_id") {
          id = f.value;
          msg = f.message;
        }
        if (f.key == spec + "name" && f.message == msg) {
          name_of[{gpu_of_seq[seq], id}] = f.value;
        }
      }
      id.clear();
      for (const auto& f : p) {
        if (f.key == "gpu_counter_event.counters.counter_id") {
          id = f.value;
          msg = f.message;
        } else if ((f.key == "gpu_counter_event.counters.int_value" ||
                    f.key == "gpu_counter_event.counters.double_value") &&
                   f.message == msg) {
          if (f.value == "nan") continue;  // an opening: where an interval begins
          const std::int32_t gpu = gpu_of_seq.at(seq);
          samples[gpu][std::stoull(ts)][name_of.at({gpu, id})] = f.value;
          ++values[gpu];
        }
      }
    }
    for (std::size_t g = 0; g < caps.size(); ++g) {
      const csv_capture& c = caps[g];
      const auto gpu = static_cast<std::int32_t>(g);
      EXPECT_EQ(values[gpu], c.values) << "GPU " << g << ": values in the trace and the CSV";
      for (std::size_t k = 0; k < c.times.size(); ++k) {
        const auto& at = samples[gpu][c.times[k]];
        for (std::size_t j = 0; j < c.columns.size(); ++j) {
          const std::string& want = c.cells[k][j];
          const auto it = at.find(c.columns[j]);
          if (!is_value(want)) continue;  // the counts above say nothing else was sent
          ASSERT_TRUE(it != at.end())
              << "GPU " << g << " " << c.columns[j] << " row " << k << " at " << c.times[k];
          EXPECT_EQ(std::strtod(it->second.c_str(), nullptr), std::strtod(want.c_str(), nullptr))
              << c.columns[j] << " row " << k;
        }
      }
    }
  }

  // 2. the checker's rules and import.
  hwpc::testing::import::result check_rules(const std::string& trace,
                                            const std::vector<csv_capture>& caps) {
    auto r = hwpc::testing::import::check(read_file(trace));
    EXPECT_TRUE(r.errors.empty()) << r.errors.size()
                                  << " broken rules, first: " << r.errors.front();
    EXPECT_EQ(r.sequences.size(), caps.size());
    for (std::size_t g = 0; g < caps.size(); ++g) {
      const csv_capture& c = caps[g];
      for (std::size_t j = 0; j < c.columns.size(); ++j) {
        const auto* t = r.find(static_cast<std::int32_t>(g), c.columns[j]);
        if (t == nullptr) {
          ADD_FAILURE() << "GPU " << g << ": no track " << c.columns[j];
          continue;
        }
        std::map<std::uint64_t, std::size_t> at;
        for (std::size_t i = 0; i < t->rows.size(); ++i) at[t->rows[i].raw_ts] = i;
        std::size_t n = 0;
        for (std::size_t k = 0; k < c.times.size(); ++k) {
          const std::string& want = c.cells[k][j];
          if (!is_value(want)) continue;
          ++n;
          const auto it = at.find(c.times[k]);
          if (it == at.end() || it->second == 0) {
            ADD_FAILURE() << c.columns[j] << " row " << k << ": no row before " << c.times[k];
            continue;
          }
          EXPECT_EQ(t->rows[it->second - 1].value, std::strtod(want.c_str(), nullptr))
              << c.columns[j] << " row " << k;
        }
        std::size_t numbers = 0;
        for (std::size_t i = 0; i + 1 < t->rows.size(); ++i) {
          if (!std::isnan(t->rows[i].value)) ++numbers;
        }
        EXPECT_EQ(numbers, n) << c.columns[j] << ": rows holding a value";
      }
    }
    return r;
  }

  // Rows of a trace_processor query (CSV, strings unquoted; hwpc's names hold
  // no commas), after its header line, the one that names `first_column`.
  std::vector<std::vector<std::string>> tp_query(const std::string& tp, const std::string& trace,
                                                 const std::string& sql,
                                                 const std::string& first_column) {
    const std::string file = (dir_ / "q.sql").string();
    std::ofstream(file) << sql << "\n";
    const auto out = run_command(tp + " query -f " + file + " " + trace + " 2>/dev/null");
    EXPECT_EQ(out.status, 0) << out.out.substr(0, 2000);
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(out.out);
    bool header = false;
    for (std::string line; std::getline(in, line);) {
      if (!header) {
        header = line.find(first_column) != std::string::npos;
        continue;
      }
      auto f = split(line);
      for (auto& x : f) {
        if (x.size() >= 2 && x.front() == '"') x = x.substr(1, x.size() - 2);
      }
      rows.push_back(std::move(f));
    }
    EXPECT_TRUE(header) << out.out.substr(0, 2000);
    return rows;
  }

  // 3. trace_processor, when one is named.
  void check_trace_processor(const std::string& trace, const hwpc::testing::import::result& r,
                             const std::vector<csv_capture>& caps) {
    const char* tp = std::getenv("HWPC_TRACE_PROCESSOR");
    if (tp == nullptr || *tp == '\0') return;
    std::map<std::pair<std::int32_t, std::string>, std::vector<std::pair<std::int64_t, double>>>
        rows;
    std::map<std::pair<std::int32_t, std::string>, std::string> units;
    for (const auto& f :
         tp_query(tp, trace,
                  "select t.gpu_id, t.name, ifnull(t.unit, '(null)') as unit, "
                  "c.ts, case when c.value is null then 'nan' else printf('%.17g', c.value) end "
                  "as value from counter c join "
                  "gpu_counter_track t on c.track_id = t.id order by t.gpu_id, "
                  "t.name, c.ts;",
                  "gpu_id")) {
      if (f.size() < 5) continue;
      const std::pair<std::int32_t, std::string> key{std::stoi(f[0]), f[1]};
      units[key] = f[2];
      rows[key].emplace_back(std::stoll(f[3]), std::stod(f[4]));
    }
    ASSERT_FALSE(rows.empty()) << "trace_processor found no GPU counter";
    std::size_t tracks = 0;
    for (std::size_t g = 0; g < caps.size(); ++g) {
      for (const std::string& col : caps[g].columns) {
        const std::pair<std::int32_t, std::string> key{static_cast<std::int32_t>(g), col};
        const auto* t = r.find(key.first, col);
        ASSERT_NE(t, nullptr) << col;
        ASSERT_EQ(rows.count(key), 1u)
            << "trace_processor has no gpu_counter_track " << col << " on GPU " << g;
        ++tracks;
        EXPECT_EQ(units[key], t->unit.value_or("(null)")) << col;
        const auto& got = rows[key];
        ASSERT_EQ(got.size(), t->rows.size()) << col;
        for (std::size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].first, t->rows[i].ts) << col << " row " << i;
          const double want = t->rows[i].value;
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got[i].second)) << col << " row " << i;
          } else {
            EXPECT_DOUBLE_EQ(got[i].second, want) << col << " row " << i;
          }
        }
      }
    }
    EXPECT_EQ(rows.size(), tracks) << "trace_processor has tracks no CSV column names";
    // The GPUs by GpuInfo's names, one per capture.
    std::map<std::int32_t, std::string> gpus;
    for (const auto& f :
         tp_query(tp, trace, "select gpu, name as gpu_name from gpu order by gpu;", "gpu_name")) {
      if (f.size() >= 2) gpus[std::stoi(f[0])] = f[1];
    }
    EXPECT_EQ(gpus, r.gpu_names);
    // No import error or data loss. Left out: the analysis log
    // clock_sync_unrelatable_clock_domains, which a trace whose trace clock is
    // MONOTONIC may log for the BOOTTIME edge the proto reader always defers
    // (../shared/docs/FACTS-perfetto-gpu.md 2.6); nothing here is on BOOTTIME,
    // and a packet that did fail to convert counts in clock_sync_failure_*.
    for (const auto& f :
         tp_query(tp, trace,
                  "select name as stat_name, idx, value from stats where value > 0 and severity in "
                  "('error', 'data_loss') and name != 'clock_sync_unrelatable_clock_domains';",
                  "stat_name")) {
      ADD_FAILURE() << "trace_processor stat: " << (f.empty() ? "" : f[0])
                    << (f.size() > 2 ? " = " + f[2] : "");
    }
  }

  void check_all(const std::string& trace, const std::vector<csv_capture>& caps) {
    check_protoc(trace, caps);
    if (HasFatalFailure()) return;
    const auto r = check_rules(trace, caps);
    if (HasFatalFailure()) return;
    check_trace_processor(trace, r, caps);
  }

  std::string emulate_intel(const std::string& kind, const std::string& faults, int seed) {
    const std::string cap = (dir_ / (kind + std::to_string(seed) + ".bin")).string();
    auto e =
        run_tool("emulate --platform hsw --format A45_B8_C8 --reports 40 --seed " +
                 std::to_string(seed) + " " + faults + " --output-kind " + kind + " --out " + cap);
    EXPECT_EQ(e.status, 0) << e.out;
    return cap;
  }

  std::string intel_args(const std::string& kind) {
    std::string args = "decode --input-kind " + kind + " ";
    if (kind != "recording") args += "--platform hsw --format A45_B8_C8 ";
    const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
#ifdef HWPC_HAVE_PUGIXML
    if (std::filesystem::exists(xml)) {
      args += "--metrics " + xml + " --set RenderBasic ";
      for (const char* v :
           {"EuCoresTotalCount=20", "EuSlicesTotalCount=1", "EuSubslicesTotalCount=2",
            "EuThreadsCount=7", "SliceMask=1", "SubsliceMask=3", "GpuMinFrequency=300000000",
            "GpuMaxFrequency=1100000000"}) {
        args += std::string("--device-var ") + v + " ";
      }
    }
#else
    (void)xml;
#endif
    return args;
  }

  void intel(const std::string& kind, const std::string& faults) {
    const std::string cap = emulate_intel(kind, faults, 11);
    const std::string args = intel_args(kind);
    const std::string trace = (dir_ / "t.pftrace").string();
    ASSERT_EQ(run_tool(args + "--output perfetto " + cap + " > " + trace, true).status, 0);
    const auto csv = run_tool(args + cap, true);
    ASSERT_EQ(csv.status, 0);
    const auto hz = hwpc::intel::info(hwpc::intel::platform::hsw).timestamp_frequency_hz;
    const auto c = parse_csv(csv.out, [&](std::uint64_t t) {
      return static_cast<std::uint64_t>(hwpc::output::ticks_to_ns(t, hz));
    });
    ASSERT_GT(c.times.size(), 20u);
    check_all(trace, {c});
    const auto r = hwpc::testing::import::check(read_file(trace));
    EXPECT_EQ(r.has_snapshot, kind == "recording");
    EXPECT_EQ(r.gpu_names.at(0).rfind("hwpc hsw A45_B8_C8: ", 0), 0u);
    const auto* ticks = r.find(0, "A0");
    ASSERT_NE(ticks, nullptr);
    EXPECT_EQ(ticks->groups, std::vector<std::string>{"raw counters"});
    EXPECT_FALSE(ticks->unit.has_value()) << "events have no MeasureUnit";
    if (const auto* busy = r.find(0, "GpuBusy")) {
      EXPECT_EQ(busy->unit, "%");
      EXPECT_EQ(busy->groups, std::vector<std::string>{"RenderBasic"});
      EXPECT_EQ(r.find(0, "GpuTime")->unit, "ns");
      EXPECT_EQ(r.find(0, "PsDuration")->unit, "us");
      EXPECT_EQ(r.find(0, "L3SamplerThroughput")->unit, "B");
      EXPECT_EQ(r.find(0, "AvgGpuCoreFrequency")->unit, "Hz");
      EXPECT_FALSE(r.find(0, "GpuCoreClocks")->unit.has_value());
    }
    if (!faults.empty()) {
      // A loss the next interval cannot span (the buffer overflow) is a
      // gap: a NaN row between two values.
      bool gap = false;
      for (std::size_t i = 1; i + 1 < ticks->rows.size(); ++i) {
        gap = gap || std::isnan(ticks->rows[i].value);
      }
      EXPECT_TRUE(gap) << "the faults should have made a gap";
    }
  }

  std::filesystem::path proto_dir_;
};

TEST_F(PerfettoGpuTool, IntelRawReports) { intel("raw", ""); }
TEST_F(PerfettoGpuTool, IntelI915StreamWithLosses) {
  intel("i915-stream", "--faults report-lost,overflow");
}
TEST_F(PerfettoGpuTool, IntelRecordingWithLossesOnTheCpuClock) {
  intel("recording", "--faults report-lost,overflow");
}

// Mali: kinstr_prfcnt (timed, a sequence gap) and a vinstr capture file;
// every CSV column of --per-instance, derived counters too.
TEST_F(PerfettoGpuTool, MaliKinstrAndVinstr) {
  for (const char* reader : {"kinstr", "vinstr"}) {
    const std::string cap = (dir_ / (std::string(reader) + ".bin")).string();
    const std::string gpu = std::string(reader) == "kinstr" ? "g78" : "g72";
    ASSERT_EQ(run_tool("mali emulate --gpu " + gpu + " --reader " + reader +
                       " --l2-slices 2 --core-mask 0xd --samples 6 --seed 3 --out " + cap)
                  .status,
              0);
    const std::string opts = " --bus-width-bits 128 " + cap;
    const std::string trace = (dir_ / "m.pftrace").string();
    ASSERT_EQ(run_tool("mali --output perfetto" + opts + " > " + trace, true).status, 0);
    const auto csv = run_tool("mali --per-instance" + opts, true);
    ASSERT_EQ(csv.status, 0);
    const auto c = parse_csv(csv.out, [](std::uint64_t t) { return t; });
    ASSERT_EQ(c.times.size(), 6u);
    check_all(trace, {c});
    const auto r = hwpc::testing::import::check(read_file(trace));
    const auto* core = r.find(0, "core2.GPU_ACTIVE");
    if (core == nullptr) core = r.find(0, "core2.EXEC_CORE_ACTIVE");
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->groups, std::vector<std::string>{"core 2"});
  }
}

// Adreno: the hand-built .rd capture of adreno_results_capture.hpp.
TEST_F(PerfettoGpuTool, AdrenoQueriesAndCounterGroups) {
  const adreno_results::capture c;
  const std::string rd = (dir_ / "q.rd").string();
  {
    std::ofstream f(rd, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.w.bytes.data()),
            static_cast<std::streamsize>(c.w.bytes.size()));
  }
  const std::string trace = (dir_ / "q.pftrace").string();
  ASSERT_EQ(run_tool("adreno --output perfetto " + rd + " > " + trace, true).status, 0);
  const auto csv = run_tool("adreno --output csv " + rd, true);
  ASSERT_EQ(csv.status, 0);
  const auto cc = parse_csv(csv.out, [](std::uint64_t t) {
    return static_cast<std::uint64_t>(hwpc::output::ticks_to_ns(t, 19'200'000));
  });
  EXPECT_EQ(cc.values, 4u);
  check_all(trace, {cc});
  const auto r = hwpc::testing::import::check(read_file(trace));
  EXPECT_EQ(r.find(0, "CP_1")->groups, std::vector<std::string>{"CP"});
  EXPECT_EQ(r.find(0, "time_elapsed")->unit, "ns");
}

// A fleet: eight recordings (every other one with losses) in one trace,
// capture k as GPU k; each GPU's tracks hold its own CSV's values.
TEST_F(PerfettoGpuTool, FleetOfEightRecordings) {
  std::string files;
  std::vector<csv_capture> caps;
  const std::string args = intel_args("recording");
  const auto hz = hwpc::intel::info(hwpc::intel::platform::hsw).timestamp_frequency_hz;
  for (int k = 0; k < 8; ++k) {
    const std::string cap = emulate_intel("recording", k % 2 ? "--faults overflow" : "", 20 + k);
    files += " " + cap;
    const auto csv = run_tool(args + cap, true);
    ASSERT_EQ(csv.status, 0);
    caps.push_back(parse_csv(csv.out, [&](std::uint64_t t) {
      return static_cast<std::uint64_t>(hwpc::output::ticks_to_ns(t, hz));
    }));
  }
  const std::string trace = (dir_ / "fleet.pftrace").string();
  const auto w = run_tool(args + "--output perfetto" + files + " > " + trace, true);
  ASSERT_EQ(w.status, 0) << w.out;
  check_all(trace, caps);
  const auto r = hwpc::testing::import::check(read_file(trace));
  EXPECT_EQ(r.gpu_names.size(), 8u);
  // Several captures want one trace: other outputs refuse them.
  const auto refused = run_tool(args + files);
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.out.find("several FILEs make one trace"), std::string::npos) << refused.out;
}

}  // namespace
