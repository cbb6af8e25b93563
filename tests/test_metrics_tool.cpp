// `hwpc decode --metrics FILE --set SYMBOL`: metrics dropped for unknown
// names (stderr), --device-var for any name, unavailable metrics that
// available ones need, and every set of every shared metric file on an
// emulated recording of its platform.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/metrics/binding.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/xml_loader.hpp"
#include "hwpc/output/csv.hpp"
#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_result;
namespace hm = hwpc::metrics;

run_result run(const std::string& args, bool stdout_only = false) {
  return hwpc::testing::run_tool(args, stdout_only);
}

const std::filesystem::path metrics_dir =
    std::filesystem::path(HWPC_SHARED_DIR) / "data" / "intel-metrics";

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
  return f;
}

class MetricsTool : public hwpc::testing::tool_test {};

// Three metrics on the embedded Haswell capture: Ticks is fine, Bad names an
// unknown variable, UsesBad refers to Bad.
const char* const three_metrics = R"(<?xml version="1.0"?>
<metrics>
  <set name="T" symbol_name="T" chipset="HSW" hw_config_guid="x">
    <counter name="Ticks" symbol_name="Ticks" data_type="uint64" equation="GPU_TIME 0 READ"/>
    <counter name="Bad" symbol_name="Bad" data_type="uint64" equation="A 0 READ $Unknown UADD"/>
    <counter name="UsesBad" symbol_name="UsesBad" data_type="uint64" equation="$Bad 2 UMUL"/>
  </set>
</metrics>
)";

TEST_F(MetricsTool, UnknownNameDropsMetricsAndSaysSoOnStderr) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml";
#endif
  const std::string xml = (dir_ / "t.xml").string();
  std::ofstream(xml) << three_metrics;
  auto out = run("decode --metrics " + xml + " --set T --summary", true);
  ASSERT_EQ(out.status, 0) << out.out;
  const std::string header = out.out.substr(0, out.out.find('\n'));
  EXPECT_NE(header.find(",skipped_zero,Ticks"), std::string::npos) << header;
  EXPECT_EQ(header.find("Bad"), std::string::npos) << header;
  auto all = run("decode --metrics " + xml + " --set T --summary");
  EXPECT_NE(all.out.find("hwpc decode: --metrics: metric Bad dropped: unknown name at column 10"),
            std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("metric UsesBad dropped: unknown name at column 1"), std::string::npos);
  EXPECT_NE(all.out.find("refers to metric Bad, which is dropped"), std::string::npos);

  // --device-var binds a name no list knows: A0 of the summary + 5, doubled.
  auto bound = run("decode --metrics " + xml + " --set T --summary --device-var Unknown=5");
  ASSERT_EQ(bound.status, 0) << bound.out;
  EXPECT_EQ(bound.out.find("dropped"), std::string::npos) << bound.out;
  std::stringstream lines(bound.out);
  std::string h, row;
  std::getline(lines, h);
  std::getline(lines, row);
  const auto names = csv_fields(h), values = csv_fields(row);
  ASSERT_EQ(names.size(), values.size());
  auto at = [&](const char* n) {
    return values[static_cast<std::size_t>(std::find(names.begin(), names.end(), n) -
                                           names.begin())];
  };
  const unsigned long long a0 = std::stoull(at("A0"));
  EXPECT_EQ(std::stoull(at("Bad")), a0 + 5);
  EXPECT_EQ(std::stoull(at("UsesBad")), 2 * (a0 + 5));
}

// --arithmetic: a percentage of "EU-ticks" on the embedded Haswell capture's
// totals, as metrics-discovery computes it (the default: A0 * 100 / (7 * T))
// and as IGT's C does (floor(A0 / 7) * 100 / T).
TEST_F(MetricsTool, ArithmeticOptionChoosesTheQuotient) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml";
#endif
  const std::string xml = (dir_ / "pct.xml").string();
  std::ofstream(xml) << R"(<?xml version="1.0"?>
<metrics>
  <set name="P" symbol_name="P" chipset="HSW" hw_config_guid="x">
    <counter name="Pct" symbol_name="Pct" data_type="float"
             equation="A 0 READ $Eus UDIV 100 UMUL GPU_TIME 0 READ FDIV"/>
  </set>
</metrics>
)";
  auto value_of = [&](const std::string& extra) {
    auto r = run("decode --metrics " + xml + " --set P --summary --device-var Eus=7" + extra, true);
    EXPECT_EQ(r.status, 0) << r.out;
    std::stringstream lines(r.out);
    std::string h, row;
    std::getline(lines, h);
    std::getline(lines, row);
    const auto names = csv_fields(h), values = csv_fields(row);
    auto at = [&](const char* n) {
      const auto k =
          static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
      return k < values.size() ? values[k] : std::string("0");
    };
    return std::tuple{std::stoull(at("A0")), std::stoull(at("elapsed_ticks")),
                      std::stod(at("Pct"))};
  };
  const auto [a0, t, mdapi] = value_of("");
  ASSERT_GT(t, 0u);
  ASSERT_NE(a0 % 7, 0u) << "the capture's A0 total must not divide evenly for this test";
  EXPECT_DOUBLE_EQ(mdapi, static_cast<double>(a0) * 100.0 / (7.0 * static_cast<double>(t)));
  EXPECT_DOUBLE_EQ(std::get<2>(value_of(" --arithmetic mdapi")), mdapi);
  const double igt = std::get<2>(value_of(" --arithmetic igt"));
  EXPECT_DOUBLE_EQ(igt, static_cast<double>(a0 / 7 * 100) / static_cast<double>(t));
  EXPECT_NE(igt, mdapi);
  auto bad = run("decode --metrics " + xml + " --set P --arithmetic exact");
  EXPECT_NE(bad.status, 0);
  // A typed choice of the tool's parser (cli.hpp), worded as for hwpc eval --arithmetic.
  EXPECT_NE(bad.out.find("--arithmetic: expected mdapi or igt, not 'exact'"), std::string::npos)
      << bad.out;
}

// --definitions on an Xe2 set metrics-discovery also defines (docs/expressions.md, "Where
// metrics-discovery and the metric files disagree"): XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION is
// the file's formula under file and mdapi (the default) and MDAPI's, twice it, under newer,
// which also appends the two metrics only MDAPI defines in ComputeBasic.
TEST_F(MetricsTool, DefinitionsNewerFollowsMdapiOnXe2) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml";
#else
  const auto xe = std::filesystem::path(HWPC_SHARED_DIR) / "data" / "intel-metrics-xe";
  for (const std::string platform : {"lnl", "bmg"}) {
    const std::string xml = (xe / ("oa-" + platform + ".xml")).string();
    if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
    const std::string rec = (dir_ / (platform + "-compute.rec")).string();
    const std::string common = " --metrics " + xml + " --set ComputeBasic --summary";
    auto e = run("emulate --platform " + platform + " --metrics " + xml +
                 " --set ComputeBasic --output-kind xe-recording --reports 16 --out " + rec);
    ASSERT_EQ(e.status, 0) << e.out;
    std::map<std::string, std::vector<std::string> > header, totals;
    for (const std::string d : {"file", "mdapi", "newer"}) {
      auto r = run("decode " + rec + common + " --definitions " + d, true);
      ASSERT_EQ(r.status, 0) << r.out;
      std::stringstream lines(r.out);
      std::string h, row;
      std::getline(lines, h);
      std::getline(lines, row);
      header[d] = csv_fields(h);
      totals[d] = csv_fields(row);
      ASSERT_EQ(header[d].size(), totals[d].size()) << h;
      if (d == "mdapi") {
        EXPECT_EQ(run("decode " + rec + common, true).out, r.out) << "mdapi is the default";
      }
    }
    auto at = [&](const std::string& d, const std::string& name) {
      const auto& n = header[d];
      const auto it = std::find(n.begin(), n.end(), name);
      EXPECT_NE(it, n.end()) << name << " under " << d;
      return it == n.end() ? 0.0 : std::stod(totals[d][static_cast<std::size_t>(it - n.begin())]);
    };
    const std::string alu2 = "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION";
    const double file = at("file", alu2), mdapi = at("mdapi", alu2), newer = at("newer", alu2);
    EXPECT_GT(mdapi, 0.0) << platform;
    EXPECT_EQ(file, mdapi) << platform;
    EXPECT_NEAR(newer, 2 * mdapi, 1e-12 * mdapi) << platform;
    EXPECT_EQ(header["file"], header["mdapi"]) << platform;
    std::vector<std::string> more = header["mdapi"];
    more.emplace_back("AvgGpuCoreFrequencyMHz");
    more.emplace_back("ResultUncertainty");
    EXPECT_EQ(header["newer"], more) << platform;
  }
#endif
}

TEST_F(MetricsTool, MediaSetsReadMpecCountersAsA) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml";
#endif
  const std::string xml = (dir_ / "oam.xml").string();
  std::ofstream(xml) << R"(<metrics><set name="M" symbol_name="Media" chipset="MTL"
      oa_format="MPEC8u32_B8_C8" hw_config_guid="5e1d6c1f-0000-4000-8000-00000000a11a">
    <counter symbol_name="Mpec0" data_type="uint64" equation="A 0 READ"/>
    <counter symbol_name="Mpec7B1" data_type="uint64" equation="A 7 READ B 1 READ UADD"/>
  </set></metrics>)";
  const std::string rec = (dir_ / "mtl.rec").string();
  // No --format: the set's oa_format; the recording names the set.
  ASSERT_EQ(run("emulate --platform mtl --metrics " + xml +
                " --set Media --output-kind recording --reports 16 --out " + rec)
                .status,
            0);
  {
    std::ifstream in(rec, std::ios::binary);
    const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto r = hwpc::intel::recording::make({reinterpret_cast<const std::byte*>(b.data()), b.size()});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->device().metric_set_name, "Media");
    EXPECT_EQ(r->device().metric_set_uuid, "5e1d6c1f-0000-4000-8000-00000000a11a");
    EXPECT_EQ(r->format().name, "MPEC8u32_B8_C8");
  }
  auto r = run("decode " + rec + " --metrics " + xml + " --set Media --summary", true);
  ASSERT_EQ(r.status, 0) << r.out;
  std::stringstream lines(r.out);
  std::string h, row;
  std::getline(lines, h);
  std::getline(lines, row);
  const auto names = csv_fields(h), values = csv_fields(row);
  ASSERT_EQ(names.size(), values.size()) << h;
  auto at = [&](const char* n) {
    const auto it = std::find(names.begin(), names.end(), n);
    EXPECT_NE(it, names.end()) << n << " in " << h;
    return it == names.end() ? 0ull
                             : std::stoull(values[static_cast<std::size_t>(it - names.begin())]);
  };
  EXPECT_EQ(at("Mpec0"), at("MPEC0"));
  EXPECT_EQ(at("Mpec7B1"), at("MPEC7") + at("B1"));
  EXPECT_GT(at("MPEC0"), 0ull);
}

#ifdef HWPC_HAVE_PUGIXML
std::string platform_of(const std::filesystem::path& xml) {
  // oa-sklgt2.xml -> skl, oa-cnl.xml -> cnl.
  return std::regex_replace(xml.stem().string().substr(3), std::regex("gt[0-9]$"), "");
}
#endif

std::string emulate(const std::filesystem::path& dir, const std::string& platform) {
  const std::string rec = (dir / (platform + ".rec")).string();
  const std::string format = platform == "hsw" ? "A45_B8_C8" : "A32u40_A4u32_B8_C8";
  auto r = run("emulate --platform " + platform + " --format " + format +
               " --output-kind recording --reports 16 --out " + rec);
  EXPECT_EQ(r.status, 0) << r.out;
  return rec;
}

TEST_F(MetricsTool, CannonLakeSamplersBusyReadsTheFusedOffSampler) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml";
#endif
  const auto xml = metrics_dir / "oa-cnl.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  // With subslices 0..2 of one slice (SubsliceMask 0x7, given here so the
  // test does not depend on the emulated part's fusing): SamplersBusy
  // ($SubsliceMask 9 AND) is available, Sampler10Busy ($SubsliceMask 8 AND)
  // is not, and SamplersBusy's equation reads it. IGT computes it anyway.
  const std::string rec = emulate(dir_, "cnl");
  auto r = run("decode " + rec + " --metrics " + xml.string() +
               " --set RenderBasic --summary --device-var SubsliceMask=0x7");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto names = csv_fields(r.out.substr(0, r.out.find('\n')));
  EXPECT_NE(std::find(names.begin(), names.end(), "SamplersBusy"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "Sampler00Busy"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "Sampler10Busy"), names.end());
  EXPECT_EQ(r.out.find("dropped"), std::string::npos) << r.out;
}

TEST_F(MetricsTool, EverySetOfEverySharedFileRunsOnItsPlatform) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml";
#else
  if (!std::filesystem::exists(metrics_dir)) GTEST_SKIP() << "../shared is absent";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(metrics_dir)) {
    if (e.path().extension() == ".xml" && e.path().stem().string().rfind("oa-", 0) == 0) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::size_t sets = 0, metrics = 0, columns = 0, failed = 0;
  for (const auto& xml : files) {
    auto loaded = hm::load_xml_file(xml.string());
    ASSERT_TRUE(loaded) << xml;
    const std::string rec = emulate(dir_, platform_of(xml));
    // The metrics the tool should show: those available on the recording's
    // device, as the library decides it.
    std::ifstream in(rec, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto recording = hwpc::intel::recording::make(
        {reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()});
    ASSERT_TRUE(recording) << rec;
    const hm::device_values device = hm::to_device_values(hm::device_of(*recording));
    for (const auto& set : *loaded) {
      ++sets;
      auto compiled = hm::compile(set);
      ASSERT_TRUE(compiled) << set.symbol_name;
      EXPECT_TRUE(compiled->dropped().empty()) << set.symbol_name;
      metrics += compiled->size();
      auto bound = compiled->bind(device);
      ASSERT_TRUE(bound) << set.symbol_name << ": " << bound.error_value().describe();
      std::size_t available = 0;
      for (std::size_t i = 0; i < bound->size(); ++i) available += bound->available(i) ? 1 : 0;
      auto r = run("decode " + rec + " --metrics " + xml.string() + " --set " + set.symbol_name +
                   " --summary");
      const bool clean = r.status == 0 && r.out.find("dropped") == std::string::npos;
      if (!clean) {
        ++failed;
        ADD_FAILURE() << xml.filename() << " " << set.symbol_name << ": " << r.out.substr(0, 400);
        continue;
      }
      // Metric columns follow "discontinuities", a recording's last column.
      const auto names = csv_fields(r.out.substr(0, r.out.find('\n')));
      const auto d = std::find(names.begin(), names.end(), "discontinuities");
      ASSERT_NE(d, names.end());
      const auto shown = static_cast<std::size_t>(names.end() - d - 1);
      EXPECT_GT(shown, 0u) << set.symbol_name;
      EXPECT_EQ(shown, available) << xml.filename() << " " << set.symbol_name;
      columns += shown;
    }
  }
  EXPECT_EQ(failed, 0u);
  // 18 files, 357 sets, 11,276 metrics (FACTS-derived corpus counts in
  // docs/expressions.md); every one compiles, and each set shows what is
  // available on the emulated topology of its platform.
  EXPECT_EQ(files.size(), 18u);
  EXPECT_EQ(sets, 357u);
  EXPECT_EQ(metrics, 11276u);
  EXPECT_GT(columns, sets);
  std::printf("%zu sets, %zu metrics, %zu shown on the emulated topologies\n", sets, metrics,
              columns);
#endif
}

}  // namespace

namespace {

#ifdef HWPC_HAVE_PUGIXML
// The library's per-row path: every row's metrics from row_metrics::evaluate,
// written by csv_writer, as a library user without blocks would.
std::string per_row_csv(const std::string& bytes, const hm::metric_set& set) {
  namespace hi = hwpc::intel;
  auto rec = hi::recording::make({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()});
  EXPECT_TRUE(rec);
  if (!rec) return {};
  hwpc::row_schema schema =
      hi::schema_of(rec->format(), rec->device_platform(), true, rec->timestamp_frequency());
  hm::intel_device dev = hm::device_of(*rec);
  if (dev.timestamp_frequency_hz == 0) dev.timestamp_frequency_hz = rec->timestamp_frequency();
  auto m = hm::row_metrics::make(set, hm::to_device_values(dev), schema);
  EXPECT_TRUE(m);
  if (!m) return {};
  schema.metrics = m->columns();
  hwpc::output::text_buffer out;
  hwpc::output::csv_writer w(out, schema);
  std::vector<hwpc::cell> cells(m->size());
  hi::row_options opt;
  opt.unknown_records = rec->unknown_records();
  const hwpc::accounting acc = hi::for_each_row(
      *rec, hi::generation_of(rec->device_platform()), opt,
      [&](hwpc::row& r) {
        if (!r.lost) {
          m->evaluate(r.counters, r.end - r.begin, cells);
          r.metrics = cells;
        }
        w.write(r);
      },
      [](std::size_t) {});
  w.end(acc);
  return out.str();
}
#endif

}  // namespace

// hwpc decode evaluates metrics a block of rows at a time (the batch
// evaluator); its CSV must be the per-row path's, byte for byte, across
// blocks, loss rows inside a block and counter wraps.
TEST_F(MetricsTool, BlockEvaluatedCsvIsThePerRowCsv) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "built without pugixml";
#else
  const auto xml = metrics_dir / "oa-sklgt2.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  auto loaded = hm::load_xml_file(xml.string());
  ASSERT_TRUE(loaded);
  for (const std::string name : {"RenderBasic", "ComputeBasic"}) {
    const hm::metric_set* set = nullptr;
    for (const auto& s : *loaded) {
      if (s.symbol_name == name) set = &s;
    }
    ASSERT_NE(set, nullptr) << name;
    const std::string rec = (dir_ / (name + ".rec")).string();
    auto e = run("emulate --platform skl --format A32u40_A4u32_B8_C8 --metrics " + xml.string() +
                 " --set " + name +
                 " --reports 1300 --seed 11 --faults report-lost,wrap --output-kind recording "
                 "--out " +
                 rec);
    ASSERT_EQ(e.status, 0) << e.out;
    auto tool = run("decode " + rec + " --metrics " + xml.string(), true);
    ASSERT_EQ(tool.status, 0) << tool.out;
    std::ifstream in(rec, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string expected = per_row_csv(bytes, *set);
    EXPECT_GT(std::count(expected.begin(), expected.end(), '\n'), 1000) << name;
    EXPECT_NE(expected.find(",1\n"), std::string::npos) << name << ": no loss row";
    EXPECT_EQ(tool.out, expected) << name;
  }
#endif
}
