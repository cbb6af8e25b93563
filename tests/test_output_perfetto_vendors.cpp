// `hwpc mali --output perfetto` and `hwpc adreno --output perfetto` read back
// by a real protobuf tool: protoc decodes the traces against Perfetto's own
// schema (../shared/data/perfetto/perfetto_trace.proto), and the track tree
// (GPU / block / core for Mali; queries and counter groups for Adreno),
// units, values, times and losses are checked against the CSV of the same
// capture. Skips with a message when protoc or ../shared is absent.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "adreno_results_capture.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "protoc_text.hpp"
#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_tool;
using hwpc::testing::split;
using hwpc::testing::protoc::packet;

// A decoded trace: tracks by uuid, counter values and times per track uuid,
// loss instants in order.
struct trace {
  std::map<std::string, packet> tracks;  // uuid -> descriptor packet
  std::map<std::string, std::vector<std::string>> values, times;
  std::vector<std::string> losses;
  std::string root;

  std::string name(const std::string& uuid) const {
    return tracks.at(uuid).at("track_descriptor.name");
  }
  std::string parent(const std::string& uuid) const {
    const auto& p = tracks.at(uuid);
    auto it = p.find("track_descriptor.parent_uuid");
    return it == p.end() ? std::string() : it->second;
  }
  // The track named `n` under the track `parent` ("" when there is none).
  std::string child(const std::string& parent_uuid, const std::string& n) const {
    std::string found;
    for (const auto& [uuid, p] : tracks) {
      if (parent(uuid) == parent_uuid && name(uuid) == n) {
        EXPECT_TRUE(found.empty()) << "two tracks named " << n;
        found = uuid;
      }
    }
    return found;
  }
  // The track at a path of names below the root.
  std::string at(const std::vector<std::string>& path) const {
    std::string t = root;
    for (const std::string& n : path) {
      t = child(t, n);
      if (t.empty()) return t;
    }
    return t;
  }
  std::string unit(const std::string& uuid, const std::string& field) const {
    const auto& p = tracks.at(uuid);
    auto it = p.find("track_descriptor.counter." + field);
    return it == p.end() ? std::string("-") : it->second;
  }
};

// The CSV of a capture: header and rows.
struct table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::size_t col(const std::string& n) const {
    for (std::size_t i = 0; i < head.size(); ++i) {
      if (head[i] == n) return i;
    }
    ADD_FAILURE() << "no column " << n;
    return 0;
  }
};

table parse_csv(const std::string& text) {
  table t;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  t.head = split(line);
  while (std::getline(in, line)) t.rows.push_back(split(line));
  return t;
}

class PerfettoVendors : public hwpc::testing::tool_test {
 protected:
  void SetUp() override {
    tool_test::SetUp();
    if (IsSkipped()) return;
    if (const auto why = hwpc::testing::protoc::skip_reason(proto_dir_); !why.empty()) {
      GTEST_SKIP() << why;
    }
  }

  trace decode(const std::string& file) {
    const auto r = hwpc::testing::run_command("protoc --decode=perfetto.protos.Trace -I " +
                                              proto_dir_.string() + " perfetto_trace.proto < " +
                                              file + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.out.substr(0, 2000);
    trace t;
    for (const packet& p : hwpc::testing::protoc::parse_text(r.out)) {
      EXPECT_EQ(p.at("trusted_packet_sequence_id"), "1");
      if (p.count("track_descriptor.uuid") != 0) {
        const std::string& uuid = p.at("track_descriptor.uuid");
        EXPECT_EQ(t.tracks.count(uuid), 0u) << "uuid " << uuid << " declared twice";
        t.tracks[uuid] = p;
        if (p.count("track_descriptor.parent_uuid") == 0) t.root = uuid;
        continue;
      }
      const std::string& track = p.at("track_event.track_uuid");
      EXPECT_EQ(t.tracks.count(track), 1u) << "event before its track's descriptor";
      if (p.at("track_event.type") == "TYPE_INSTANT") {
        t.losses.push_back(p.at("track_event.name"));
        continue;
      }
      EXPECT_EQ(p.at("track_event.type"), "TYPE_COUNTER");
      t.values[track].push_back(p.count("track_event.counter_value") != 0
                                    ? p.at("track_event.counter_value")
                                    : p.at("track_event.double_counter_value"));
      t.times[track].push_back(p.at("timestamp"));
    }
    return t;
  }

  std::filesystem::path proto_dir_;
};

// A kinstr_prfcnt capture of a Mali-G78 (2 L2 slices, cores 0, 2, 3) whose
// last sample's sequence number jumps, and a vinstr capture of a Mali-G72
// (cores 0, 2): every CSV column (sums and per-instance) is a track under
// GPU / block [/ instance] with the CSV's values at the samples' kernel ns.
TEST_F(PerfettoVendors, MaliTracksPerGpuBlockAndCore) {
  struct {
    const char* gpu;
    const char* reader;
    const char* gpu_track;
    const char* mask;
  } cases[] = {{"g78", "kinstr", "Mali-G78", "0xd"}, {"g72", "vinstr", "Mali-G72", "0x5"}};
  for (const auto& c : cases) {
    const std::string cap = (dir_ / "mali.bin").string();
    auto e =
        run_tool(std::string("mali emulate --gpu ") + c.gpu + " --reader " + c.reader +
                 " --l2-slices 2 --core-mask " + c.mask + " --samples 5 --seed 3 --out " + cap);
    ASSERT_EQ(e.status, 0) << e.out;
    const bool kinstr = std::string(c.reader) == "kinstr";
    if (kinstr) {
      // The SAMPLE item of sample 4 (its CSV offset) holds seq at +24: 5 becomes 9.
      auto csv0 = parse_csv(run_tool("mali " + cap, true).out);
      const std::size_t at = std::stoull(csv0.rows[4][csv0.col("offset")]) + 24;
      std::fstream f(cap, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(static_cast<std::streamoff>(at));
      char b = 0;
      f.read(&b, 1);
      ASSERT_EQ(b, 5) << "the emulator numbers samples from 1";
      f.seekp(static_cast<std::streamoff>(at));
      f.put(9);
    }
    const std::string opts = " --bus-width-bits 128 " + cap;
    const std::string pf = (dir_ / "mali.pftrace").string();
    ASSERT_EQ(
        run_tool("mali --output perfetto --perfetto-layout track-event" + opts + " > " + pf, true)
            .status,
        0);
    const auto csv_run = run_tool("mali --per-instance" + opts, true);
    ASSERT_EQ(csv_run.status, 0);
    const table csv = parse_csv(csv_run.out);
    const trace t = decode(pf);

    EXPECT_EQ(t.name(t.root).rfind(std::string("hwpc mali ") + c.gpu_track, 0), 0u);
    const std::string gpu = t.at({c.gpu_track});
    ASSERT_FALSE(gpu.empty());
    const std::string mem = t.at({c.gpu_track, "memory"});
    const std::string sc = t.at({c.gpu_track, "shader core"});
    ASSERT_FALSE(mem.empty());
    ASSERT_FALSE(sc.empty());
    EXPECT_FALSE(t.at({c.gpu_track, "front-end"}).empty());
    EXPECT_FALSE(t.at({c.gpu_track, "tiler"}).empty());
    EXPECT_FALSE(t.child(mem, "L2 slice 1").empty());
    EXPECT_FALSE(t.child(sc, "core 2").empty());
    EXPECT_TRUE(t.child(sc, "core 1").empty()) << "core 1 is not in the mask";

    // Rows and losses of the CSV.
    const std::size_t reason = csv.col("reason");
    const bool has_lost = csv.head.back() == "lost";
    EXPECT_EQ(has_lost, kinstr);
    std::vector<std::string> csv_losses;
    std::vector<const std::vector<std::string>*> rows;
    for (const auto& r : csv.rows) {
      ASSERT_EQ(r.size(), csv.head.size());
      if (has_lost && r.back() == "1") {
        csv_losses.push_back(r[reason]);
      } else {
        rows.push_back(&r);
      }
    }
    EXPECT_EQ(t.losses, csv_losses);
    if (kinstr) {
      EXPECT_EQ(csv_losses, std::vector<std::string>{"sequence-gap"});
    }
    ASSERT_EQ(rows.size(), 5u);

    // Every counter column: its track under block or block / instance.
    const std::map<std::string, std::string> instance_group = {{"l2slice0", "L2 slice 0"},
                                                               {"l2slice1", "L2 slice 1"},
                                                               {"core0", "core 0"},
                                                               {"core2", "core 2"},
                                                               {"core3", "core 3"}};
    std::size_t sums = 0, per_instance = 0;
    for (std::size_t col = 3; col < reason; ++col) {
      const std::string& h = csv.head[col];
      std::string track;
      const auto dot = h.find('.');
      if (dot != std::string::npos) {
        const std::string inst = h.substr(0, dot);
        const std::string group =
            t.child(inst.rfind("core", 0) == 0 ? sc : mem, instance_group.at(inst));
        ASSERT_FALSE(group.empty()) << h;
        track = t.child(group, h.substr(dot + 1));
        ++per_instance;
      } else {
        for (const char* b : {"front-end", "tiler", "memory", "shader core"}) {
          if (track.empty()) track = t.child(t.at({c.gpu_track, b}), h);
        }
        ++sums;
      }
      ASSERT_FALSE(track.empty()) << h;
      EXPECT_EQ(t.unit(track, "unit"), "UNIT_COUNT") << h;
      std::vector<std::string> want;
      for (const auto* r : rows) want.push_back((*r)[col]);
      EXPECT_EQ(t.values.at(track), want) << h;
      // Times: the samples' end in kernel ns (vinstr: the dump timestamp).
      std::vector<std::string> ends;
      for (const auto* r : rows) ends.push_back((*r)[2]);
      EXPECT_EQ(t.times.at(track), ends) << h;
    }
    EXPECT_GT(sums, 100u);
    EXPECT_GT(per_instance, 2 * sums / 3);

    // Derived counters under the GPU, compared as numbers.
    const std::string derived = t.at({c.gpu_track, "derived counters"});
    ASSERT_FALSE(derived.empty());
    std::size_t metrics = 0;
    for (std::size_t col = reason + 2; col < csv.head.size() - (has_lost ? 1 : 0); ++col) {
      const std::string track = t.child(derived, csv.head[col]);
      ASSERT_FALSE(track.empty()) << csv.head[col];
      std::vector<double> want, got;
      for (const auto* r : rows) {
        const std::string& v = (*r)[col];
        if (!v.empty() && v != "nan" && v != "inf" && v != "-inf") want.push_back(std::stod(v));
      }
      if (t.values.count(track) != 0) {
        for (const auto& v : t.values.at(track)) got.push_back(std::stod(v));
      }
      EXPECT_EQ(got, want) << csv.head[col];
      ++metrics;
    }
    EXPECT_GT(metrics, 5u) << c.gpu;
  }
}

// The hand-built .rd capture of adreno_results_capture.hpp: the query
// columns under "queries", CP_1 under "performance counters" / "CP", units,
// values and times (always-on ticks at 19.2 MHz) as in the CSV.
TEST_F(PerfettoVendors, AdrenoQueriesAndCounterGroups) {
  const adreno_results::capture c;
  const std::string rd = (dir_ / "q.rd").string();
  {
    std::ofstream f(rd, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.w.bytes.data()),
            static_cast<std::streamsize>(c.w.bytes.size()));
  }
  const std::string pf = (dir_ / "q.pftrace").string();
  ASSERT_EQ(
      run_tool("adreno --output perfetto --perfetto-layout track-event " + rd + " > " + pf, true)
          .status,
      0);
  const auto csv_run = run_tool("adreno --output csv " + rd, true);
  ASSERT_EQ(csv_run.status, 0);
  const table csv = parse_csv(csv_run.out);
  ASSERT_EQ(csv.head,
            (std::vector<std::string>{"report", "offset", "timestamp", "reason", "ctx_id",
                                      "samples_passed", "time_elapsed", "gpu_time", "CP_1"}));
  const trace t = decode(pf);
  EXPECT_EQ(t.name(t.root).rfind("hwpc adreno rd: ", 0), 0u);
  const std::map<std::string, std::vector<std::string>> where = {
      {"samples_passed", {"queries"}},
      {"time_elapsed", {"queries"}},
      {"gpu_time", {"queries"}},
      {"CP_1", {"performance counters", "CP"}}};
  std::size_t values = 0;
  for (std::size_t col = 5; col < csv.head.size(); ++col) {
    auto path = where.at(csv.head[col]);
    path.push_back(csv.head[col]);
    const std::string track = t.at(path);
    ASSERT_FALSE(track.empty()) << csv.head[col];
    std::vector<std::string> want, when;
    for (const auto& r : csv.rows) {
      if (r[col].empty()) continue;
      want.push_back(r[col]);
      when.push_back(std::to_string(hwpc::output::ticks_to_ns(std::stoull(r[2]), 19'200'000)));
    }
    const auto v = t.values.find(track);
    EXPECT_EQ(v == t.values.end() ? std::vector<std::string>{} : v->second, want) << csv.head[col];
    if (v != t.values.end()) {
      EXPECT_EQ(t.times.at(track), when) << csv.head[col];
    }
    values += want.size();
  }
  EXPECT_EQ(values, 4u) << "one value per dumped result";
  EXPECT_EQ(t.unit(t.at({"queries", "samples_passed"}), "unit_name"), "samples");
  EXPECT_EQ(t.unit(t.at({"queries", "time_elapsed"}), "unit"), "UNIT_TIME_NS");
  EXPECT_EQ(t.unit(t.at({"queries", "gpu_time"}), "unit"), "UNIT_TIME_NS");
  EXPECT_EQ(t.unit(t.at({"performance counters", "CP", "CP_1"}), "unit"), "UNIT_COUNT");
  EXPECT_TRUE(t.losses.empty());
}

}  // namespace
