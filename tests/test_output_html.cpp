// The HTML report's parts without the tool: HTML escaping, the min/max
// downsampler against buckets worked out by hand, one chart's SVG path
// computed by hand, the page's structure, its totals against the summary
// writer's, and the size of a 10^6-interval report.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/html_report.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/output/text.hpp"
#include "xorshift.hpp"

namespace {

using hwpc::cell;
using hwpc::row;
using hwpc::row_schema;
using hwpc::output::text_buffer;
namespace html = hwpc::output::html;

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

TEST(HtmlEscape, EveryMarkupCharacterBecomesAReference) {
  text_buffer b;
  b.html("<script>alert('x')</script> & \"q\"");
  EXPECT_EQ(b.str(), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
}

TEST(HtmlEscape, ControlsBecomeReplacementCharactersWhitespaceAndUtf8Stay) {
  text_buffer b;
  b.html(
      std::string("a\x01"
                  "b\tc\nd\re\x7f"
                  "f\xc3\xa9",
                  13));
  EXPECT_EQ(b.str(), "a&#xFFFD;b\tc\nd\re&#xFFFD;f\xc3\xa9");
  text_buffer z;
  z.html(std::string("\0", 1));
  EXPECT_EQ(z.str(), "&#xFFFD;");
}

// Capacity 4, one series, origin 100. Worked by hand:
//   keys 100, 101, 103 (w = 1): [5] [7] [] [1]
//   key 104: 4 / 1 >= 4, fold: [5,7] [1] [] [], w = 2; 4 / 2 = 2: [5,7] [1] [9] []
//   key 115: 15 / 2 >= 4, fold: [1,7] [9] [] [], w = 4; 15 / 4 = 3: [1,7] [9] [] [3]
TEST(HtmlBands, FoldsPairsAndDoublesTheWidth) {
  html::band_grid g(1, 4);
  g.start(100);
  g.add_loss(101);
  g.add(0, g.place(100), 5);
  g.add(0, g.place(101), 7);
  g.add(0, g.place(103), 1);
  EXPECT_EQ(g.width(), 1u);
  EXPECT_EQ(g.used(), 4u);
  EXPECT_TRUE(g.at(0, 2).empty());
  g.add(0, g.place(104), 9);
  EXPECT_EQ(g.width(), 2u);
  EXPECT_EQ(g.used(), 3u);
  EXPECT_EQ(g.at(0, 0).lo, 5);
  EXPECT_EQ(g.at(0, 0).hi, 7);
  EXPECT_EQ(g.at(0, 1).lo, 1);
  EXPECT_EQ(g.at(0, 2).hi, 9);
  g.add(0, g.place(115), 3);
  EXPECT_EQ(g.width(), 4u);
  EXPECT_EQ(g.used(), 4u);
  const double want[4][2] = {{1, 7}, {9, 9}, {0, 0}, {3, 3}};
  for (std::size_t b : {0u, 1u, 3u}) {
    EXPECT_EQ(g.at(0, b).lo, want[b][0]) << b;
    EXPECT_EQ(g.at(0, b).hi, want[b][1]) << b;
  }
  EXPECT_TRUE(g.at(0, 2).empty());
  const std::uint64_t rows[4] = {3, 1, 0, 1};
  for (std::size_t b = 0; b < 4; ++b) EXPECT_EQ(g.rows(b), rows[b]) << b;
  EXPECT_EQ(g.losses(0), 1u);  // key 101 lies in [100, 104)
  EXPECT_EQ(g.losses(3), 0u);
  // A key before the origin is clamped into bucket 0 and counted; NaN is skipped.
  const std::size_t b = g.place(99);
  EXPECT_EQ(b, 0u);
  g.add(0, b, 8);
  g.add(0, b, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(g.clamped(), 1u);
  EXPECT_EQ(g.at(0, 0).lo, 1);
  EXPECT_EQ(g.at(0, 0).hi, 8);
  EXPECT_EQ(g.at(0, 0).n, 4u);  // 5, 7, 1 folded together, then 8
  EXPECT_EQ(g.at(0, 0).mean(), (5 + 7 + 1 + 8) / 4.0);
  EXPECT_EQ(g.range(0).lo, 1);
  EXPECT_EQ(g.range(0).hi, 9);
}

// Capacity 3: the last bucket folds alone. Keys 0, 1, 2 -> [1] [2] [3];
// key 3 folds to [1,2] [3], w = 2, then 3 / 2 = 1: [1,2] [3,4].
TEST(HtmlBands, OddCapacityFoldsTheLastBucketAlone) {
  html::band_grid g(1, 3);
  for (std::uint64_t k = 0; k < 4; ++k) g.add(0, g.place(k), static_cast<double>(k + 1));
  EXPECT_EQ(g.width(), 2u);
  EXPECT_EQ(g.used(), 2u);
  EXPECT_EQ(g.at(0, 0).lo, 1);
  EXPECT_EQ(g.at(0, 0).hi, 2);
  EXPECT_EQ(g.at(0, 1).lo, 3);
  EXPECT_EQ(g.at(0, 1).hi, 4);
}

// Capacity 8, origin 0, intervals [0,2) [2,5) [6,7) [12,14), values 1..4.
// Worked by hand (w = 1): [0,2) fills buckets 0..2; [2,5) the buckets after
// the last end (2) up to 5: 3..5; [6,7) 6..7 (bucket 6 is inside it).
// End 14 folds: [1] [1,2] [2] [3] at w = 2; [12,14) fills the buckets of
// 12..14 after the last end's (7 -> bucket 3): 6..7; 4 and 5 (time 8..12,
// which no interval covers) stay empty.
TEST(HtmlBands, IntervalsFillTheBucketsTheySpanButNotTheGaps) {
  html::band_grid g(1, 8);
  g.start(0);
  auto r = g.place(0, 2);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 2u);
  g.add(0, r, 1);
  r = g.place(2, 5);
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(r.last, 5u);
  g.add(0, r, 2);
  r = g.place(6, 7);
  EXPECT_EQ(r.first, 6u);
  EXPECT_EQ(r.last, 7u);
  g.add(0, r, 3);
  r = g.place(12, 14);
  EXPECT_EQ(g.width(), 2u);
  EXPECT_EQ(r.first, 6u);
  EXPECT_EQ(r.last, 7u);
  g.add(0, r, 4);
  const double want[8][2] = {{1, 1}, {1, 2}, {2, 2}, {3, 3}, {0, 0}, {0, 0}, {4, 4}, {4, 4}};
  for (std::size_t b = 0; b < 8; ++b) {
    if (b == 4 || b == 5) {
      EXPECT_TRUE(g.at(0, b).empty()) << b;
      continue;
    }
    EXPECT_EQ(g.at(0, b).lo, want[b][0]) << b;
    EXPECT_EQ(g.at(0, b).hi, want[b][1]) << b;
  }
  const std::uint64_t rows[8] = {0, 1, 1, 1, 0, 0, 0, 1};
  for (std::size_t b = 0; b < 8; ++b) EXPECT_EQ(g.rows(b), rows[b]) << b;
  // Backwards or overlapping intervals fill nothing before the latest end.
  r = g.place(15, 3);
  EXPECT_EQ(r.first, r.last);
  r = g.place(0, 15);
  EXPECT_EQ(r.first, 7u);
  EXPECT_EQ(r.last, 7u);
}

TEST(HtmlBands, TheLargestKeyNeitherOverflowsNorHangs) {
  html::band_grid g(2, 2);
  g.place(0);
  EXPECT_EQ(g.place(std::numeric_limits<std::uint64_t>::max()), 1u);
  EXPECT_EQ(g.width(), std::uint64_t{1} << 63);
}

TEST(HtmlBands, SeriesFoldIndependently) {
  html::band_grid g(2, 2);
  for (std::uint64_t k = 0; k < 4; ++k) {
    const std::size_t b = g.place(k);
    g.add(0, b, static_cast<double>(k));
    g.add(1, b, -static_cast<double>(k));
  }
  // w = 2: series 0 [0,1] [2,3]; series 1 [-1,0] [-3,-2].
  EXPECT_EQ(g.at(0, 1).lo, 2);
  EXPECT_EQ(g.at(0, 1).hi, 3);
  EXPECT_EQ(g.at(1, 0).lo, -1);
  EXPECT_EQ(g.at(1, 1).lo, -3);
  EXPECT_EQ(g.at(1, 1).hi, -2);
}

// The grid of FoldsPairsAndDoublesTheWidth drawn: 4 buckets of 90 px
// (centres 45, 135, 225, 315); values 1..9 on an axis from 0 to 9, so
// y(v) = 2 + 64 * (9 - v) / 9: y(8) = 9.11, y(1) = 58.89, y(9) = 2, y(3) = 44.67;
// each bar runs from y(max) - 0.5 to y(min) + 0.5.
TEST(HtmlChart, BarsPerBucketComputedByHand) {
  html::band_grid g(1, 4);
  g.start(100);
  g.add_loss(101);
  g.add(0, g.place(100), 8);
  g.add(0, g.place(101), 1);
  g.add(0, g.place(105), 9);
  g.add(0, g.place(115), 3);
  ASSERT_EQ(g.used(), 4u);
  text_buffer b;
  html::write_chart(b, g, 0, "A<1>", "events", "counter", {"0", "+1 s"});
  const std::string& s = b.str();
  EXPECT_NE(s.find("stroke-width=\"90\" d=\"M45 8.6V59.4M135 1.5V2.5M315 44.2V45.2\""),
            std::string::npos)
      << s;
  // Means: (8 + 1) / 2 = 4.5 -> y 34; 9 -> 2; bucket 2 empty breaks the line; 3 -> 44.7,
  // alone: a tick across its bucket, 270 to 360.
  EXPECT_NE(s.find("<path class=\"mean\" d=\"M45 34L135 2M270 44.7H360\"/>"), std::string::npos)
      << s;
  EXPECT_NE(s.find("<path class=\"loss\" d=\"M45 2V66\"/>"), std::string::npos) << s;
  EXPECT_NE(s.find("data-name=\"A&lt;1&gt;\""), std::string::npos);
  EXPECT_NE(s.find("<b>A&lt;1&gt;</b>"), std::string::npos);
  EXPECT_NE(s.find(">1 &#8230; 9<"), std::string::npos) << s;
  EXPECT_EQ(s.find("A<1>"), std::string::npos);
}

TEST(HtmlChart, AnEmptySeriesSaysSoAndDrawsNoBand) {
  html::band_grid g(2, 4);
  g.add(0, g.place(0), 1);
  text_buffer b;
  html::write_chart(b, g, 1, "m", "", "metric", {"0", "1"});
  EXPECT_NE(b.str().find("no value"), std::string::npos);
  EXPECT_EQ(b.str().find("class=\"band\""), std::string::npos);
}

row_schema small_schema() {
  row_schema s;
  s.source = "test <src>";
  for (int c = 0; c < 10; ++c) s.counters.push_back({"C" + std::to_string(c), "events", {}});
  s.counters[3].name = "<script>alert(1)</script>";
  s.metrics.push_back({"Busy\"%", "percent", hwpc::column_kind::metric});
  s.metrics.push_back({"Never", "", hwpc::column_kind::metric});
  s.ticks_per_second = 1'000'000;
  s.has_losses = true;
  return s;
}

// Feeds `n` rows (a loss after every 7th) to a writer; returns the accounting.
template <class Writer>
hwpc::accounting feed(Writer& w, const row_schema& s, std::uint64_t n) {
  std::vector<std::uint64_t> counters(s.counters.size());
  std::vector<cell> metrics(s.metrics.size());
  hwpc::accounting acc;
  std::uint64_t t = 1000;
  for (std::uint64_t k = 0; k < n; ++k) {
    for (std::size_t c = 0; c < counters.size(); ++c) counters[c] = (k * 31 + c * 7) % 97 * c;
    metrics[0] = cell::f(static_cast<double>(k % 50) / 2);
    row r;
    r.report = k + 1;
    r.offset = k * 256;
    r.begin = t;
    r.end = t += 100;
    r.counters = counters;
    r.metrics = metrics;
    w.write(r);
    ++acc.intervals;
    if (k % 7 == 6) {
      row l;
      l.lost = true;
      l.reason = "report-lost";
      w.write(l);
      ++acc.report_lost;
      ++acc.stretch_starts;
    }
  }
  acc.reports = acc.intervals + acc.stretch_starts;
  acc.records = acc.reports + acc.lost();
  w.end(acc);
  return acc;
}

TEST(HtmlReport, PageHoldsFactsChartsAndTheSummarysTotals) {
  const row_schema s = small_schema();
  auto metrics_of = [](std::span<const std::uint64_t> t, std::uint64_t elapsed,
                       std::vector<cell>& out) {
    out = {cell::u(t[1] + elapsed), cell::none()};
  };
  text_buffer page;
  html::report_options o;
  o.title = "report <of> \"x\"";
  o.facts = {{"vendor", "Test & Co"}, {"file", "a<b>.bin"}};
  o.metric_group = "Set<1>";
  o.busiest_counters = 4;
  html::report_writer w(page, s, o, metrics_of);
  feed(w, s, 100);
  text_buffer summary_text;
  hwpc::output::summary_writer sw(summary_text, s, false, metrics_of);
  feed(sw, s, 100);
  EXPECT_EQ(w.result().counters, sw.result().counters);
  EXPECT_EQ(w.result().elapsed, sw.result().elapsed);
  EXPECT_EQ(w.result().metrics, sw.result().metrics);
  EXPECT_EQ(w.result().discontinuities, sw.result().discontinuities);

  const std::string& h = page.str();
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  for (const char* ref : {"http:", "https:", "src=", "href=", "url(", "<link", "@import"}) {
    EXPECT_EQ(h.find(ref), std::string::npos) << ref;  // nothing to fetch, no link out
  }
  EXPECT_NE(h.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(h.find("<title>report &lt;of&gt; &quot;x&quot;</title>"), std::string::npos);
  EXPECT_NE(h.find("<th>vendor</th><td>Test &amp; Co</td>"), std::string::npos);
  EXPECT_NE(h.find("<th>source</th><td>test &lt;src&gt;</td>"), std::string::npos);
  EXPECT_NE(h.find("<th>losses</th><td>14 (14 report-lost"), std::string::npos);
  EXPECT_NE(h.find("<th>duration</th><td>10 ms"), std::string::npos) << h;
  EXPECT_NE(h.find("Metrics: Set&lt;1&gt; (2 of 2)"), std::string::npos);
  EXPECT_EQ(count(h, "class=\"chart\" data-kind=\"metric\""), 2u);
  EXPECT_EQ(count(h, "class=\"chart\" data-kind=\"counter\""), 4u);
  // The busiest four: C9, C8, C7, C6 have the largest multipliers.
  EXPECT_LT(h.find("data-name=\"C9\""), h.find("data-name=\"C8\""));
  EXPECT_EQ(h.find("data-name=\"C1\""), std::string::npos);
  EXPECT_EQ(count(h, "<path class=\"loss\""), 6u);  // every chart marks the losses
  // Totals, as --summary prints them.
  const auto& t = w.result();
  EXPECT_NE(h.find("<td>C9</td><td>counter</td><td class=\"n\">" + std::to_string(t.counters[9]) +
                   "</td>"),
            std::string::npos);
  EXPECT_NE(h.find("<td>Busy&quot;%</td><td>metric</td><td class=\"n\">" +
                   std::to_string(t.counters[1] + t.elapsed) + "</td>"),
            std::string::npos);
  EXPECT_NE(h.find("<td>Never</td><td>metric</td><td class=\"n\"></td>"), std::string::npos);
  EXPECT_NE(h.find("<td>discontinuities</td><td>summary</td><td class=\"n\">14</td>"),
            std::string::npos);
}

TEST(HtmlReport, WithoutAClockTheAxisIsTheReportIndex) {
  row_schema s = small_schema();
  s.ticks_per_second = 0;
  text_buffer page;
  html::report_writer w(page, s, {});
  feed(w, s, 10);
  EXPECT_NE(page.str().find(">report 1</text>"), std::string::npos) << page.str();
  EXPECT_NE(page.str().find("the charts' x axis is the report index"), std::string::npos);
}

TEST(HtmlReport, NoIntervalNoChart) {
  const row_schema s = small_schema();
  text_buffer page;
  html::report_writer w(page, s, {});
  row l;
  l.lost = true;
  w.write(l);
  hwpc::accounting acc;
  acc.records = 1;
  acc.report_lost = 1;
  w.end(acc);
  EXPECT_NE(page.str().find("id=\"no-charts\""), std::string::npos);
  EXPECT_EQ(page.str().find("class=\"chart\""), std::string::npos);
}

// 10^6 intervals of an Intel-sized schema (62 counters) with a 70-metric set
// (HSW RenderBasic's count), a loss every 7 intervals: the page is bounded by
// the charts' pixel width, not by the rows. The stated bound: 1 MiB.
TEST(HtmlReport, AMillionIntervalsStayBelowOneMebibyte) {
  row_schema s;
  s.source = "big";
  for (int c = 0; c < 62; ++c) s.counters.push_back({"A" + std::to_string(c), "events", {}});
  for (int m = 0; m < 70; ++m) {
    s.metrics.push_back({"Metric" + std::to_string(m), "percent", hwpc::column_kind::metric});
  }
  s.ticks_per_second = 12'500'000;
  s.has_losses = true;
  text_buffer page;
  html::report_options o;
  o.title = "big";
  html::report_writer w(page, s, o);
  std::vector<std::uint64_t> counters(s.counters.size());
  std::vector<cell> metrics(s.metrics.size());
  hwpc::testing::xorshift64 g{0x9e3779b97f4a7c15u};  // values of every size
  std::uint64_t x = 0, t = 0;
  hwpc::accounting acc;
  for (std::uint64_t k = 0; k < 1'000'000; ++k) {
    for (auto& c : counters) {
      x = g.next();
      c = x >> 20;
    }
    for (auto& m : metrics) m = cell::f(static_cast<double>(x % 10'000) / 100);
    row r;
    r.report = k;
    r.begin = t;
    r.end = t += 640 + x % 64;
    r.counters = counters;
    r.metrics = metrics;
    w.write(r);
    if (k % 7 == 6) {
      row l;
      l.lost = true;
      w.write(l);
      ++acc.report_lost;
    }
  }
  acc.intervals = 1'000'000;
  w.end(acc);
  const std::string& h = page.str();
  EXPECT_LT(h.size(), std::size_t{1} << 20);
  std::printf("a 10^6-interval page: %zu bytes\n", h.size());
  EXPECT_EQ(count(h, "class=\"chart\""), 78u);
  EXPECT_EQ(w.result().intervals, 1'000'000u);
  RecordProperty("bytes", static_cast<int>(h.size()));
}

}  // namespace
