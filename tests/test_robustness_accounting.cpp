// The row contract between readers and writers: the same slots give the same
// accounting and rows from every reader that can take them (an OA ring and
// the same bytes as raw reports, a slot that never landed included), and
// every writer gives well-formed output for a lost row under a schema that
// said it cannot lose reports (CSV: the header's field count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "capture_test_util.hpp"
#include "fuzz/strict_formats.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/json.hpp"
#include "hwpc/output/perfetto/trace_writer.hpp"
#include "hwpc/output/summary.hpp"

namespace {

using namespace hwpc;
namespace hi = hwpc::intel;

struct seen {
  accounting acc;
  std::vector<std::uint64_t> reports, ends;
};

template <class Source>
seen rows_of(const Source& src) {
  seen s;
  s.acc = hi::for_each_row(src, hi::generation::gen7_5, {}, [&](const row& r) {
    s.reports.push_back(r.report);
    s.ends.push_back(r.end);
  });
  return s;
}

// Before: the ring's iterator skipped the unlanded slot, so for_each_row
// said records 2, skipped_zero 0 while the ring said skipped_zero 1; the
// same bytes as raw reports said records 3, skipped_zero 1.
TEST(RobustnessAccounting, RingAndRawCountAnUnlandedSlotAlike) {
  const hi::report_format& f = *hi::find_format(hi::platform::hsw, "A13");
  captest::bytes ring(128 * 1024);
  for (std::uint32_t k = 0; k < 3; ++k) {
    const captest::bytes r = captest::make_report(f, {k + 1, 1000u * (k + 1), 0, 100u * k});
    std::copy(r.begin(), r.end(), ring.begin() + k * f.size);
  }
  captest::put32(ring.data() + f.size, 0);  // slot 1 never landed
  auto oa =
      hi::oa_ring::make(captest::span(ring), f, hi::oa_ring_registers::offsets(0, 3 * f.size));
  ASSERT_TRUE(oa);
  EXPECT_EQ(oa->skipped_zero(), 1u);
  auto buf = hi::report_buffer::make(hwpc::byte_span(ring.data(), 3 * f.size), f);
  ASSERT_TRUE(buf);

  const seen from_ring = rows_of(*oa);
  const seen from_raw = rows_of(hi::raw_capture(*buf));
  EXPECT_EQ(from_ring.acc.records, 3u);
  EXPECT_EQ(from_ring.acc.skipped_zero, 1u);
  EXPECT_EQ(from_ring.acc.intervals, 1u);  // slot 0 to slot 2, bridging slot 1
  EXPECT_TRUE(from_ring.acc.balanced());
  EXPECT_EQ(from_ring.acc, from_raw.acc);
  EXPECT_EQ(from_ring.reports, from_raw.reports);
  EXPECT_EQ(from_ring.reports, (std::vector<std::uint64_t>{2}));
  EXPECT_EQ(from_ring.ends, from_raw.ends);
}

row_schema lossless_schema() {
  row_schema s;
  s.source = "test";
  s.counters = {{"A0", "events", column_kind::counter}, {"A1", "events", column_kind::counter}};
  s.metrics = {{"m", "", column_kind::metric}};
  s.ticks_per_second = 1'000'000'000;
  s.has_losses = false;  // says it cannot lose reports, and then does
  return s;
}

struct three_rows {
  std::uint64_t counters[2] = {5, 7};
  cell metrics[1] = {cell::u(3)};
  row interval(std::uint64_t report, std::uint64_t begin, std::uint64_t end) const {
    row r;
    r.report = report;
    r.offset = 64 * report;
    r.begin = begin;
    r.end = end;
    r.counters = counters;
    r.metrics = metrics;
    r.reason = "timer";
    return r;
  }
  static row loss() {
    row r;
    r.report = 2;
    r.offset = 128;
    r.reason = "report-lost";
    r.lost = true;
    return r;
  }
  void feed(output::row_writer& w) const {
    w.write(interval(1, 100, 200));
    w.write(loss());
    w.write(interval(3, 300, 400));
    accounting a;
    a.records = 5;
    a.reports = 4;
    a.intervals = 2;
    a.stretch_starts = 2;
    a.report_lost = 1;
    w.end(a);
  }
};

// Before: the CSV writer gave the loss a `lost` field the header lacks (7
// fields under a 6-field header).
TEST(RobustnessAccounting, ALossUnderALosslessSchemaKeepsEveryFormatWellFormed) {
  const row_schema s = lossless_schema();
  const three_rows rows;
  {
    output::text_buffer out;
    output::csv_writer w(out, s);
    rows.feed(w);
    std::vector<std::vector<std::string>> recs;
    std::string why;
    ASSERT_TRUE(strict::csv(out.str(), recs, &why)) << why;
    ASSERT_EQ(recs.size(), 4u);
    for (const auto& r : recs) EXPECT_EQ(r.size(), recs[0].size()) << out.str();
    EXPECT_EQ(out.str(),
              "report,offset,timestamp,A0,A1,reason,ctx_id,m\n"
              "1,64,200,5,7,timer,,3\n"
              "2,128,,,,report-lost,,\n"
              "3,192,400,5,7,timer,,3\n");
  }
  {
    output::text_buffer out;
    output::summary_writer w(out, s, false);
    rows.feed(w);
    std::vector<std::vector<std::string>> recs;
    ASSERT_TRUE(strict::csv(out.str(), recs));
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].size(), recs[1].size());
    // The loss is told, although the schema said there would be none.
    const auto at = std::find(recs[0].begin(), recs[0].end(), "discontinuities");
    ASSERT_NE(at, recs[0].end());
    EXPECT_EQ(recs[1][static_cast<std::size_t>(at - recs[0].begin())], "1");
  }
  for (int json_kind = 0; json_kind < 3; ++json_kind) {
    output::text_buffer out;
    if (json_kind == 0) {
      output::json_writer w(out, s);
      rows.feed(w);
    } else if (json_kind == 1) {
      output::chrome_json_writer w(out, s, "t");
      rows.feed(w);
    } else {
      output::summary_writer w(out, s, true);
      rows.feed(w);
    }
    std::string why;
    EXPECT_TRUE(strict::json::valid(out.str(), &why)) << json_kind << ": " << why;
    EXPECT_NE(out.str().find(json_kind == 2 ? "\"discontinuities\": 1" : "report-lost"),
              std::string::npos)
        << json_kind << out.str();
  }
  {
    output::text_buffer out;
    output::perfetto::trace_writer w(out, s, "t");
    rows.feed(w);
    strict::perfetto_summary sum;
    std::string why;
    ASSERT_TRUE(strict::perfetto_trace(out.str(), sum, &why)) << why;
    EXPECT_EQ(sum.instants, (std::vector<std::string>{"report-lost"}));
  }
  {
    output::text_buffer out;
    output::html::report_writer w(out, s, {});
    rows.feed(w);
    EXPECT_NE(out.str().find("1 (1 report-lost"), std::string::npos);
  }
}

}  // namespace
