// The tool under hostile inputs: a FIFO, a directory or a missing file is
// refused as bad input (status 2) before anything can block, a capture of
// only never-written reports is an error rather than an empty table, and a
// metric file that is wrong in itself (a reference cycle, a counter without
// a symbol name) is bad input, not a usage error.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"
#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_result;

// Runs the tool with a time limit, so that a blocking open fails the test
// instead of hanging it (status 124 from timeout(1)).
run_result run(const std::string& args) {
  return hwpc::testing::run_command(std::string("timeout 20 ") + HWPC_TOOL_PATH + " " + args +
                                    " 2>&1");
}

class RobustnessTool : public hwpc::testing::tool_test {
 protected:
  std::string fifo() {
    const auto p = dir_ / "pipe";
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    return p.string();
  }
  // HSW A13 reports (64 bytes each) with the given RPT_IDs.
  std::string write_a13(const std::vector<std::uint32_t>& rpt_ids) {
    const auto path = dir_ / "capture.raw";
    std::ofstream f(path, std::ios::binary);
    for (std::size_t i = 0; i < rpt_ids.size(); ++i) {
      std::uint32_t r[16] = {rpt_ids[i], static_cast<std::uint32_t>(1000 * (i + 1))};
      f.write(reinterpret_cast<const char*>(r), sizeof r);
    }
    return path.string();
  }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
};

TEST_F(RobustnessTool, FifosAreRefusedWithoutBlocking) {
  const std::string p = fifo();
  for (const std::string cmd :
       {"decode ", "decode --platform hsw --format A13 ",
        "mali --l2-slices 1 --core-mask 1 --bus-width-bits 128 ", "adreno "}) {
    auto r = run(cmd + p);
    EXPECT_EQ(r.status, 2) << cmd << r.out;
    EXPECT_NE(r.out.find("a FIFO, not a regular file"), std::string::npos) << cmd << r.out;
  }
  auto m = run("decode --metrics " + p + " --set X");
  EXPECT_EQ(m.status, 2) << m.out;
#ifdef HWPC_HAVE_PUGIXML
  EXPECT_NE(m.out.find("not a regular file"), std::string::npos) << m.out;
#else
  // Without the loader the file is never opened, so it cannot block either.
  EXPECT_NE(m.out.find("needs pugixml"), std::string::npos) << m.out;
#endif
}

TEST_F(RobustnessTool, ADirectoryIsReportedAsTheInputNotAsMissingOptions) {
  auto r = run("decode " + dir_.string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("a directory, not a regular file"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("--platform"), std::string::npos) << r.out;
  auto missing = run("decode " + (dir_ / "nope.raw").string());
  EXPECT_EQ(missing.status, 2) << missing.out;
  EXPECT_NE(missing.out.find("No such file"), std::string::npos) << missing.out;
  // Half of --platform/--format stays a usage error.
  EXPECT_EQ(run("decode --format A13 " + (dir_ / "nope.raw").string()).status, 1);
}

TEST_F(RobustnessTool, OnlyZeroRptIdReportsIsAnError) {
  const std::string f = write_a13({0, 0, 0, 0});
  for (const std::string extra : {"", "--summary ", "--output json "}) {
    auto r = run("decode --platform hsw --format A13 " + extra + f);
    EXPECT_EQ(r.status, 2) << extra << r.out;
    EXPECT_NE(r.out.find("all 4 reports have RPT_ID 0"), std::string::npos) << extra << r.out;
  }
  // One valid report among them is data (no delta, but not an error).
  EXPECT_EQ(run("decode --platform hsw --format A13 " + write_a13({0, 7, 0})).status, 0);
}

#ifdef HWPC_HAVE_PUGIXML
TEST_F(RobustnessTool, MetricFileErrorsAreBadInput) {
  const std::string raw = write_a13({1, 2, 3});
  const std::string cycle = write("cycle.xml",
                                  "<metrics><set symbol_name='S'>"
                                  "<counter symbol_name='A' equation='$B' data_type='uint64'/>"
                                  "<counter symbol_name='B' equation='$A' data_type='uint64'/>"
                                  "</set></metrics>");
  auto c = run("decode --platform hsw --format A13 --metrics " + cycle + " --set S " + raw);
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("cycle"), std::string::npos) << c.out;
  const std::string doc = "<metrics><set symbol_name='S'><counter equation='1'/></set></metrics>";
  const std::string nosym = write("nosym.xml", doc);
  auto n = run("decode --platform hsw --format A13 --metrics " + nosym + " --set S " + raw);
  EXPECT_EQ(n.status, 2) << n.out;
  EXPECT_NE(n.out.find("byte offset " + std::to_string(doc.find("<counter") + 1)),
            std::string::npos)
      << n.out;
  // A set the file does not have stays a usage error.
  EXPECT_EQ(run("decode --platform hsw --format A13 --metrics " + cycle + " --set T " + raw).status,
            1);
}
#endif

// Records of unknown types are skipped but counted, with the first one's place.
TEST(RobustnessRecords, UnknownRecordTypesAreCountedWithTheFirstOffset) {
  using namespace hwpc::intel;
  const report_format& f = *find_format(platform::hsw, "A45_B8_C8");
  captest::bytes s;
  captest::append(s, captest::sample(f, {1, 100, 0, 0}));         // 0, 8 + 256
  captest::append(s, captest::record(42, captest::bytes(24)));    // 264
  captest::append(s, captest::sample(f, {2, 200, 0, 5}));         // 296
  captest::append(s, captest::record(70000, captest::bytes(8)));  // 560
  auto st = i915_stream::make(captest::span(s), f, 4096);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->records(), 4u);
  EXPECT_EQ(st->samples(), 2u);
  EXPECT_EQ(st->unknown_records(), 2u);
  EXPECT_EQ(st->first_unknown().type, 42u);
  EXPECT_EQ(st->first_unknown().offset, 4096u + 264);
  // records = samples + losses + unknown: nothing is dropped unreported.
  std::size_t yielded = 0;
  for (const auto& e : *st) yielded += e.kind == event_kind::report ? 1 : 0;
  EXPECT_EQ(yielded + st->unknown_records(), st->records());

  captest::bytes r = captest::version_record();
  captest::append(r, captest::device_info_record({}));             // 16
  captest::append(r, captest::record(99999, captest::bytes(16)));  // 360
  captest::append(r, captest::sample(f, {1, 100, 0, 0}));
  auto rec = recording::make(captest::span(r));
  ASSERT_TRUE(rec) << rec.error_value().describe();
  EXPECT_EQ(rec->unknown_records(), 1u);
  EXPECT_EQ(rec->first_unknown().type, 99999u);
  EXPECT_EQ(rec->first_unknown().offset, 360u);
}

}  // namespace
