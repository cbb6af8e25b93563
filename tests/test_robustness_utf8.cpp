// Strings from input reach every output as valid UTF-8 (output/utf8.hpp):
// invalid sequences replaced by U+FFFD, one per maximal subpart, through the
// JSON, CSV and HTML escapes and Perfetto's string fields; and through the
// tool, a metric file whose symbol_name holds byte 0xff
// (../shared/data/hostile/metric-name-invalid-utf8.xml).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/strict_formats.hpp"
#include "hwpc/output/perfetto/proto_writer.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/output/utf8.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

namespace {

using hwpc::output::is_valid_utf8;
using hwpc::output::text_buffer;
using hwpc::output::to_valid_utf8;
using hwpc::output::utf8_next;

const std::string fffd = "\xEF\xBF\xBD";

// Table 3-7's boundaries: the first and last of each well-formed range pass,
// the bytes just outside do not.
TEST(RobustnessUtf8, WellFormedRangesOfTable3_7) {
  for (const char* ok :
       {"\x7f", "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xE0\xBF\xBF", "\xE1\x80\x80",
        "\xEC\xBF\xBF", "\xED\x80\x80", "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF",
        "\xF0\x90\x80\x80", "\xF0\xBF\xBF\xBF", "\xF1\x80\x80\x80", "\xF3\xBF\xBF\xBF",
        "\xF4\x80\x80\x80", "\xF4\x8F\xBF\xBF"}) {
    const std::string s(ok);
    EXPECT_TRUE(is_valid_utf8(s)) << testing::PrintToString(s);
    EXPECT_EQ(utf8_next(s, 0).length, s.size());
    EXPECT_TRUE(strict::utf8(s));
  }
  // Continuation bytes alone, C0/C1 (overlong two-byte leads), F5..FF; an
  // overlong three-byte form, a surrogate, a four-byte overlong, past U+10FFFF.
  for (const char* bad : {"\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xF5\x80\x80\x80", "\xFF",
                          "\xE0\x9F\xBF", "\xED\xA0\x80", "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80"}) {
    const std::string s(bad);
    EXPECT_FALSE(is_valid_utf8(s)) << testing::PrintToString(s);
    EXPECT_FALSE(strict::utf8(s)) << testing::PrintToString(s);
  }
}

// The Unicode Standard's own example of maximal subparts (chapter 3, "U+FFFD
// Substitution of Maximal Subparts"): 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64
// becomes a, three U+FFFD, b, U+FFFD, c, two U+FFFD, d.
TEST(RobustnessUtf8, MaximalSubpartsBecomeOneReplacementEach) {
  const std::string in = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
  EXPECT_EQ(to_valid_utf8(in), "a" + fffd + fffd + fffd + "b" + fffd + "c" + fffd + fffd + "d");
  // A sequence cut short by the end of the string is one subpart.
  EXPECT_EQ(to_valid_utf8("x\xF0\x9F\x98"), "x" + fffd);
  // Valid text, multi-byte included, passes unchanged.
  const std::string ok = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
  EXPECT_EQ(to_valid_utf8(ok), ok);
}

// Each escape: its own rules for ASCII, U+FFFD for what is not UTF-8.
TEST(RobustnessUtf8, EveryEscapeReplacesInvalidBytes) {
  const std::string name = "Bad\xFFGpu\"Time\xC3";
  text_buffer j;
  j.json_string(name);
  EXPECT_EQ(j.str(), "\"Bad" + fffd + "Gpu\\\"Time" + fffd + "\"");
  EXPECT_TRUE(strict::json::valid(j.str()));

  text_buffer c;
  c.csv_field(name);
  EXPECT_EQ(c.str(), "\"Bad" + fffd + "Gpu\"\"Time" + fffd + "\"");
  text_buffer c2;
  c2.csv_field_after_comma("a\x80");  // no quoting needed, still replaced
  EXPECT_EQ(c2.str(), ",a" + fffd);

  text_buffer h;
  h.html("<b>\xFE\x01\xE2\x82\xAC");
  EXPECT_EQ(h.str(), "&lt;b&gt;" + fffd + "&#xFFFD;\xE2\x82\xAC");

  // Worst case of growth: every byte invalid, the CSV field quoted.
  const std::string all_bad(1000, '\xFF');
  text_buffer w;
  w.csv_field("," + all_bad);
  EXPECT_EQ(w.str().size(), 2 + 1 + 3 * all_bad.size());  // quotes, comma, U+FFFDs
  EXPECT_TRUE(strict::utf8(w.str()));

  hwpc::output::proto::writer pw;
  pw.string(2, "n\xFF");
  EXPECT_EQ(pw.data(), "\x12\x04n" + fffd);
  pw.clear();
  pw.bytes(2, "n\xFF");  // bytes fields are bytes
  EXPECT_EQ(pw.data(), std::string("\x12\x02n\xFF"));
}

class HostileUtf8Tool : public hwpc::testing::tool_test {
 protected:
  void SetUp() override {
    tool_test::SetUp();
    if (IsSkipped()) return;
#ifndef HWPC_HAVE_PUGIXML
    GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
    xml_ = std::string(HWPC_SHARED_DIR) + "/data/hostile/metric-name-invalid-utf8.xml";
    if (!std::filesystem::exists(xml_)) GTEST_SKIP() << xml_ << " is absent (../shared)";
  }
  std::string xml_;
};

// Before: the 0xff byte went raw into JSON keys, Chrome trace names, the
// HTML page and Perfetto track names. Now every output is UTF-8 and the
// name reads "Bad<U+FFFD>GpuTime".
TEST_F(HostileUtf8Tool, EveryOutputOfTheMetricFileIsUtf8) {
  using hwpc::testing::run_tool;
  const std::string args = "decode --metrics " + xml_ + " --set RenderBasic ";
  const std::string name = "Bad" + fffd + "GpuTime";
  for (const char* fmt : {"json", "chrome-json"}) {
    auto r = run_tool(args + "--output " + fmt, true);
    ASSERT_EQ(r.status, 0) << fmt;
    std::string why;
    EXPECT_TRUE(strict::json::valid(r.out, &why)) << fmt << ": " << why;
    EXPECT_NE(r.out.find("\"" + name + "\""), std::string::npos) << fmt;
  }
  auto csv = run_tool(args, true);
  ASSERT_EQ(csv.status, 0);
  std::vector<std::vector<std::string>> records;
  std::string why;
  ASSERT_TRUE(strict::csv(csv.out, records, &why)) << why;
  EXPECT_TRUE(strict::utf8(csv.out));
  ASSERT_GT(records.size(), 1u);
  EXPECT_NE(std::find(records[0].begin(), records[0].end(), name), records[0].end());
  for (const auto& rec : records) EXPECT_EQ(rec.size(), records[0].size());

  // The track-event layout: the name is a track's.
  const std::string trace = (dir_ / "t.pftrace").string();
  ASSERT_EQ(
      run_tool(args + "--output perfetto --perfetto-layout track-event > " + trace, true).status,
      0);
  std::ifstream f(trace, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  strict::perfetto_summary sum;
  ASSERT_TRUE(strict::perfetto_trace(ss.str(), sum, &why)) << why;
  bool found = false;
  for (const auto& [uuid, track] : sum.tracks) found = found || track == name;
  EXPECT_TRUE(found);
  // The GPU counter layout (default): the name is a counter spec's string,
  // written as UTF-8, and the raw byte appears nowhere.
  const std::string gpu_trace = (dir_ / "g.pftrace").string();
  ASSERT_EQ(run_tool(args + "--output perfetto > " + gpu_trace, true).status, 0);
  std::ifstream g(gpu_trace, std::ios::binary);
  std::stringstream gs;
  gs << g.rdbuf();
  EXPECT_NE(gs.str().find(name), std::string::npos);
  EXPECT_EQ(gs.str().find("Bad\xFFGpuTime"), std::string::npos);

  const std::string page = (dir_ / "r.html").string();
  ASSERT_EQ(run_tool("report --metrics " + xml_ + " --set RenderBasic -o " + page, true).status, 0);
  std::ifstream h(page, std::ios::binary);
  std::stringstream hs;
  hs << h.rdbuf();
  EXPECT_TRUE(strict::utf8(hs.str()));
  EXPECT_NE(hs.str().find(name), std::string::npos);
}

}  // namespace
