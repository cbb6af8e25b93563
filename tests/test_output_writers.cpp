// The library's writers (output/): exact bytes for hand-built rows, RFC 8259
// and RFC 4180 escaping of hostile names, NaN and infinities as JSON null,
// the accounting trailer; and through the tool, a metric file whose symbol
// names try to inject JSON keys and CSV columns, and one with a duplicate.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/accounting.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/json.hpp"
#include "hwpc/output/summary.hpp"
#include "tool_runner.hpp"
#include "xorshift.hpp"

namespace {

using namespace hwpc;
using hwpc::testing::run_tool;
using output::text_buffer;

row_schema hostile_schema() {
  row_schema s;
  s.source = "test";
  s.counters = {{"A0", "events", column_kind::counter}, {"x,y", "events", column_kind::counter}};
  s.metrics = {{"m\"q", "", column_kind::metric},
               {"a\",\"b\":1,\"c", "", column_kind::metric},
               {"nl\nesc\x1b", "", column_kind::metric}};
  s.ticks_per_second = 1'000'000'000;
  s.has_context = true;
  s.has_losses = true;
  return s;
}

struct fixture_rows {
  std::uint64_t counters[2] = {5, 7};
  cell metrics[3] = {cell::f(std::numeric_limits<double>::quiet_NaN()),
                     cell::f(std::numeric_limits<double>::infinity()), cell::f(0.5)};
  row interval() const {
    row r;
    r.report = 3;
    r.offset = 264;
    r.begin = 1000;
    r.end = 3000;
    r.counters = counters;
    r.metrics = metrics;
    r.reason = "timer";
    r.has_context = true;
    r.context = 42;
    return r;
  }
  static row loss() {
    row r;
    r.report = 4;
    r.offset = 520;
    r.reason = "report-lost";
    r.lost = true;
    return r;
  }
};

accounting some_loss() {
  accounting a;
  a.records = 6;
  a.reports = 5;
  a.intervals = 1;
  a.stretch_starts = 2;
  a.skipped_zero = 2;
  a.report_lost = 1;
  return a;
}

TEST(OutputCsv, EscapesNamesAndWritesRowsAndLosses) {
  const row_schema s = hostile_schema();
  text_buffer out;
  output::csv_writer w(out, s);
  const fixture_rows f;
  w.write(f.interval());
  w.write(fixture_rows::loss());
  row no_ctx = f.interval();
  no_ctx.has_context = false;
  no_ctx.reason = "a,b";
  w.write(no_ctx);
  w.end(some_loss());
  EXPECT_EQ(out.str(),
            "report,offset,timestamp,A0,\"x,y\",reason,ctx_id,\"m\"\"q\","
            "\"a\"\",\"\"b\"\":1,\"\"c\",\"nl\nesc\x1b\",lost\n"
            "3,264,3000,5,7,timer,42,nan,inf,0.5,0\n"
            "4,520,,,,report-lost,,,,,1\n"
            "3,264,3000,5,7,\"a,b\",,nan,inf,0.5,0\n");
}

TEST(OutputJson, EscapesKeysNullsNonFiniteAndEndsWithTheAccounting) {
  const row_schema s = hostile_schema();
  text_buffer out;
  output::json_writer w(out, s);
  const fixture_rows f;
  w.write(f.interval());
  w.write(fixture_rows::loss());
  w.end(some_loss());
  EXPECT_EQ(
      out.str(),
      "[\n  {\"report\": 3, \"offset\": 264, \"timestamp\": 3000, \"A0\": 5, \"x,y\": 7, "
      "\"reason\": \"timer\", \"ctx_id\": 42, \"m\\\"q\": null, "
      "\"a\\\",\\\"b\\\":1,\\\"c\": null, \"nl\\nesc\\u001b\": 0.5},\n"
      "  {\"report\": 4, \"offset\": 520, \"lost\": true, \"reason\": \"report-lost\"},\n"
      "  {\"accounting\": {\"records\": 6, \"reports\": 5, \"intervals\": 1, \"across_loss\": 0, "
      "\"filtered\": 0, \"stretch_starts\": 2, \"unbridged\": 0, \"skipped_zero\": 2, "
      "\"report_lost\": 1, \"buffer_lost\": 0, "
      "\"overflow\": 0, \"gaps\": 0, \"unknown\": 0}}\n]\n");
}

TEST(OutputJson, NoTrailerWhenNothingWasDropped) {
  row_schema s;
  s.counters = {{"A0", "", column_kind::counter}};
  text_buffer out;
  output::json_writer w(out, s);
  accounting a;
  a.records = a.reports = 1;
  a.stretch_starts = 1;
  ASSERT_TRUE(a.balanced());
  w.end(a);
  EXPECT_EQ(out.str(), "[\n]\n");
}

TEST(OutputChromeJson, EscapesTrackNamesAndZeroesTracksAtALoss) {
  row_schema s = hostile_schema();
  s.metrics.resize(1);
  text_buffer out;
  output::chrome_json_writer w(out, s, "t\"itle");
  fixture_rows f;
  row r = f.interval();
  r.metrics = std::span<const cell>(f.metrics, 1);
  w.write(r);
  w.write(fixture_rows::loss());
  w.end(some_loss());
  EXPECT_EQ(
      out.str(),
      "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
      "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": "
      "\"t\\\"itle\"}},\n"
      "{\"name\": \"A0\", \"ph\": \"C\", \"pid\": 1, \"ts\": 1.000, \"args\": {\"value\": 5}},\n"
      "{\"name\": \"x,y\", \"ph\": \"C\", \"pid\": 1, \"ts\": 1.000, \"args\": {\"value\": 7}},\n"
      "{\"name\": \"m\\\"q\", \"ph\": \"C\", \"pid\": 1, \"ts\": 1.000, \"args\": {\"value\": "
      "null}},\n"
      "{\"name\": \"A0\", \"ph\": \"C\", \"pid\": 1, \"ts\": 3.000, \"args\": {\"value\": 0}},\n"
      "{\"name\": \"x,y\", \"ph\": \"C\", \"pid\": 1, \"ts\": 3.000, \"args\": {\"value\": 0}},\n"
      "{\"name\": \"report-lost\", \"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \"tid\": 1, \"ts\": "
      "3.000, \"args\": {\"offset\": 520}}\n]}\n");
}

TEST(OutputChromeJson, MicrosecondsOfNegativeTimesIncludingInt64Min) {
  text_buffer out;
  output::write_us(out, -1500);
  out << ' ';
  output::write_us(out, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(out.str(), "-1.500 -9223372036854775.808");
}

TEST(OutputSummary, SumsRowsAndWritesTotalsWithTrailer) {
  row_schema s = hostile_schema();
  s.metrics.resize(1);
  text_buffer out;
  output::summary_writer w(out, s, true,
                           [](std::span<const std::uint64_t> t, std::uint64_t elapsed,
                              std::vector<cell>& m) { m = {cell::u(t[0] * 1000 + elapsed)}; });
  const fixture_rows f;
  w.write(f.interval());
  w.write(fixture_rows::loss());
  w.write(f.interval());
  w.end(some_loss());
  EXPECT_EQ(out.str(),
            "{\"intervals\": 2, \"elapsed_ticks\": 4000, \"A0\": 10, \"x,y\": 14, \"reports\": 3, "
            "\"skipped_zero\": 2, \"discontinuities\": 1, \"m\\\"q\": 14000, \"accounting\": "
            "{\"records\": 6, \"reports\": 5, \"intervals\": 1, \"across_loss\": 0, "
            "\"filtered\": 0, \"stretch_starts\": 2, \"unbridged\": 0, \"skipped_zero\": 2, "
            "\"report_lost\": 1, \"buffer_lost\": 0, "
            "\"overflow\": 0, \"gaps\": 0, \"unknown\": 0}}\n");
  text_buffer csv;
  output::write_totals(csv, s, false, w.result());
  EXPECT_EQ(csv.str(),
            "intervals,elapsed_ticks,A0,\"x,y\",reports,skipped_zero,discontinuities,\"m\"\"q\"\n"
            "2,4000,10,14,3,2,1,14000\n");
}

TEST(Accounting, DescribesEveryBucketAndBalances) {
  const accounting a = some_loss();
  EXPECT_TRUE(a.balanced());
  EXPECT_TRUE(a.anything_dropped());
  EXPECT_EQ(output::describe(a),
            "6 records read = 5 reports (1 intervals decoded + 0 filtered by context + 2 stretch "
            "starts + 2 zero RPT_ID skipped) + 1 lost (1 report-lost, 0 buffer-lost, 0 "
            "counter-overflow, 0 gap) + 0 unknown records skipped");
  accounting b = a;
  b.records = 7;
  EXPECT_FALSE(b.balanced());
}

class ChromeJsonName : public hwpc::testing::tool_test {};

// --output chrome-json is the JSON writer's name; --output perfetto writes
// the native protobuf trace (test_output_perfetto*.cpp check its contents).
TEST_F(ChromeJsonName, ChromeJsonIsJsonAndPerfettoIsProtobuf) {
  auto a = run_tool("decode --output chrome-json", true);
  auto b = run_tool("decode --output perfetto", true);
  ASSERT_EQ(a.status, 0);
  ASSERT_EQ(b.status, 0);
  EXPECT_EQ(a.out.rfind("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n", 0), 0u);
  // Trace.packet (field 1, length-delimited) with a 4-byte length first.
  ASSERT_GT(b.out.size(), 5u);
  EXPECT_EQ(b.out[0], '\x0a');
  EXPECT_EQ(run_tool("decode --output protobuf").status, 1);
}

// Through the tool: a metric file anyone could have edited.
class HostileMetricFile : public hwpc::testing::tool_test {
 protected:
  std::string write_xml(const std::string& name, const std::string& counters) {
    const auto path = dir_ / name;
    std::ofstream f(path);
    f << "<?xml version=\"1.0\"?>\n<metrics version=\"1\">\n"
         "<set name=\"Evil\" chipset=\"HSW\" symbol_name=\"Evil\" underscore_name=\"evil\" "
         "hw_config_guid=\"00000000-0000-0000-0000-000000000000\">\n"
      << counters << "</set>\n</metrics>\n";
    return path.string();
  }
  static std::string counter(const std::string& symbol, const std::string& equation) {
    return "<counter name=\"n\" symbol_name=\"" + symbol +
           "\" underscore_name=\"n\" data_type=\"uint64\" units=\"events\" "
           "semantic_type=\"event\" equation=\"" +
           equation + "\"/>\n";
  }
};

TEST_F(HostileMetricFile, SymbolNamesCannotInjectKeysOrColumns) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
  const std::string xml =
      write_xml("evil.xml", counter("a&quot;,&quot;b&quot;:1,&quot;c", "A 0 READ") +
                                counter("d,e&#10;f", "A 1 READ"));
  auto js = run_tool("decode --output json --metrics " + xml + " --set Evil", true);
  ASSERT_EQ(js.status, 0) << js.out;
  EXPECT_NE(js.out.find(", \"a\\\",\\\"b\\\":1,\\\"c\": "), std::string::npos);
  EXPECT_NE(js.out.find(", \"d,e\\nf\": "), std::string::npos);
  EXPECT_EQ(js.out.find("\"b\":1"), std::string::npos);
  auto csv = run_tool("decode --metrics " + xml + " --set Evil", true);
  ASSERT_EQ(csv.status, 0);
  const std::string header = csv.out.substr(0, csv.out.find("\n1,"));
  const std::string tail = ",reason,ctx_id,\"a\"\",\"\"b\"\":1,\"\"c\",\"d,e\nf\"";
  ASSERT_GE(header.size(), tail.size());
  EXPECT_EQ(header.substr(header.size() - tail.size()), tail);
  auto chrome = run_tool("decode --output chrome-json --metrics " + xml + " --set Evil", true);
  ASSERT_EQ(chrome.status, 0);
  EXPECT_NE(chrome.out.find("{\"name\": \"a\\\",\\\"b\\\":1,\\\"c\", \"ph\": \"C\""),
            std::string::npos);
}

TEST_F(HostileMetricFile, TwoMetricsWithOneSymbolNameAreRefused) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
  const std::string xml =
      write_xml("dup.xml", counter("Dup", "A 0 READ") + counter("Dup", "A 1 READ") +
                               counter("User", "$Dup 2 UMUL"));
  auto r = run_tool("decode --metrics " + xml + " --set Evil");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("set Evil has two metrics named 'Dup'"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// Writes a mix of everything text_buffer offers, long enough to cross its
// 64 KiB flush point many times, with fields larger than its spare room.
void write_mix(text_buffer& out, std::uint64_t seed) {
  hwpc::testing::xorshift64 g{seed};
  auto next = [&g] { return g.next(); };
  const std::string big(70'000, 'q');
  for (int i = 0; i < 20'000; ++i) {
    const std::uint64_t v = next();
    out << v << ',';
    out.number(static_cast<double>(v >> 11) / 7.0) << ',';
    out.csv_cell(cell::u(v >> 40));
    out.csv_field_after_comma(i % 3 == 0 ? "a,\"b\"" : "timer");
    out.json_string("q\"\n\x01") << ' ';
    out.html("<&'>\x7f") << "\n";
    if (i % 5000 == 0) out << big;
  }
}

}  // namespace

// The buffer writes straight into its own storage (reserve/commit); what
// reaches a FILE in 64 KiB pieces must be the text kept in memory, byte for
// byte, and str() in between must not lose or repeat anything.
TEST(OutputText, FileAndStringBuffersHoldTheSameBytes) {
  text_buffer kept;
  write_mix(kept, 0x9e3779b97f4a7c15ull);
  const std::string in_memory = kept.str();
  ASSERT_GT(in_memory.size(), std::size_t{1} << 20);

  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    text_buffer to_file(f);
    write_mix(to_file, 0x9e3779b97f4a7c15ull);
  }
  std::string from_file(static_cast<std::size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  ASSERT_EQ(std::fread(from_file.data(), 1, from_file.size(), f), from_file.size());
  std::fclose(f);
  EXPECT_EQ(from_file, in_memory);

  // str() then more text: the second str() holds both, in order.
  text_buffer twice;
  twice << "first," << std::uint64_t{18446744073709551615ull};
  EXPECT_EQ(twice.str(), "first,18446744073709551615");
  twice.number(-2.2250738585072014e-308) << ",";
  twice.csv_cell(cell::none());
  twice.csv_cell(cell::f(0.1));
  EXPECT_EQ(twice.str(), "first,18446744073709551615-2.2250738585072014e-308,0.1");
}
