// The GPU counter writer (output/perfetto/gpu_counter_writer.hpp) read back
// by the import-rules checker (perfetto_import_rules.hpp, written apart from
// the writer): the rules hold, every value lands on the interval it belongs
// to (the counter row at the interval's begin, followed by a row at its
// end), losses and missing metric values are gaps (NaN), units and groups
// are those of the columns, correlated captures convert through clock
// snapshots, and the captures of a fleet are GPUs of their own. The checker
// itself is shown to catch broken traces.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hwpc/output/perfetto/fleet_writer.hpp"
#include "hwpc/output/perfetto/gpu_counter_writer.hpp"
#include "hwpc/output/perfetto/make_trace.hpp"
#include "perfetto_import_rules.hpp"

namespace {

using namespace hwpc;
namespace pf = output::perfetto;
using hwpc::testing::import::check;

row_schema test_schema() {
  row_schema s;
  s.source = "test";
  s.counters = {{"GPU_TICKS", "cycles", column_kind::counter},
                {"A0", "events", column_kind::counter}};
  s.metrics = {{"GpuTime", "ns", column_kind::metric},
               {"GpuBusy", "percent", column_kind::metric},
               {"Bytes", "bytes", column_kind::metric},
               {"PsDuration", "us", column_kind::metric},
               {"Bandwidth", "gbps", column_kind::metric},
               {"A0", "events", column_kind::metric}};  // a metric named like a counter
  s.ticks_per_second = 1'000'000;                       // 1 us per tick
  s.has_losses = true;
  return s;
}

// Rows: (100, 110], a loss, (200, 220], (220, 230].
void write_rows(output::row_writer& w) {
  const std::uint64_t c1[] = {10, 5};
  const cell m1[] = {cell::u(10'000), cell::f(12.5), cell::none(),
                     cell::f(2.0),    cell::f(1.5),  cell::u(1)};
  row r{};
  r.begin = 100;
  r.end = 110;
  r.counters = c1;
  r.metrics = m1;
  w.write(r);
  row lost{};
  lost.lost = true;
  lost.reason = "report-lost";
  w.write(lost);
  const std::uint64_t c2[] = {std::numeric_limits<std::uint64_t>::max(), 0};
  const cell m2[] = {cell::f(std::nan("")), cell::f(100.0), cell::u(64),
                     cell::f(0.5),          cell::f(3.0),   cell::u(2)};
  r.begin = 200;
  r.end = 220;
  r.counters = c2;
  r.metrics = m2;
  w.write(r);
  const std::uint64_t c3[] = {7, 8};
  const cell m3[] = {cell::u(3),    cell::f(50.0), cell::u(65),
                     cell::f(0.25), cell::f(4.0),  cell::u(3)};
  r.begin = 220;
  r.end = 230;
  r.counters = c3;
  r.metrics = m3;
  w.write(r);
  w.end(accounting{});
}

// The (ts, value) rows of a track, NaN as a marker.
std::vector<std::pair<std::int64_t, double>> rows_of(const hwpc::testing::import::track& t) {
  std::vector<std::pair<std::int64_t, double>> out;
  for (const auto& r : t.rows) out.emplace_back(r.ts, r.value);
  return out;
}

bool same(const std::vector<std::pair<std::int64_t, double>>& a,
          const std::vector<std::pair<std::int64_t, double>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first) return false;
    if (std::isnan(a[i].second) != std::isnan(b[i].second)) return false;
    if (!std::isnan(a[i].second) && a[i].second != b[i].second) return false;
  }
  return true;
}

std::string show(const std::vector<std::pair<std::int64_t, double>>& v) {
  std::string s;
  for (const auto& [t, x] : v) s += "(" + std::to_string(t) + ", " + std::to_string(x) + ") ";
  return s;
}

TEST(PerfettoGpuWriter, ValuesLandOnTheirIntervalsAndLossesAreGaps) {
  const row_schema s = test_schema();
  output::text_buffer out;
  {
    pf::gpu_capture c;
    c.gpu.name = "test \"gpu\"";
    c.layout = pf::default_layout(s, "RenderBasic");
    pf::gpu_counter_writer w(out, s, c);
    write_rows(w);
  }
  const auto r = check(out.str());
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.gpu_names.at(0), "test \"gpu\"");
  EXPECT_FALSE(r.has_snapshot);
  const double nan = std::nan("");
  // Counter rows: the opening NaN at 100 us takes row 1's value; the loss
  // makes a gap from 110 to 200 us; row 2 at 200, row 3 at 220, and the
  // placeholder 0 at the last end.
  const auto* ticks = r.find(0, "GPU_TICKS");
  ASSERT_NE(ticks, nullptr);
  EXPECT_TRUE(same(rows_of(*ticks), {{100'000, 10},
                                     {110'000, nan},
                                     {200'000, 18446744073709551616.0},
                                     {220'000, 7},
                                     {230'000, 0}}))
      << show(rows_of(*ticks));
  // GpuTime is NaN in row 2: a gap over (200, 220].
  const auto* gpu_time = r.find(0, "GpuTime");
  ASSERT_NE(gpu_time, nullptr);
  EXPECT_TRUE(
      same(rows_of(*gpu_time), {{100'000, 10'000}, {110'000, nan}, {220'000, 3}, {230'000, 0}}))
      << show(rows_of(*gpu_time));
  // Bytes has no value in row 1: it opens at row 2's begin.
  const auto* bytes = r.find(0, "Bytes");
  ASSERT_NE(bytes, nullptr);
  EXPECT_TRUE(same(rows_of(*bytes), {{200'000, 64}, {220'000, 65}, {230'000, 0}}))
      << show(rows_of(*bytes));
  // Units as trace_processor formats them; none for cycles and events.
  EXPECT_FALSE(ticks->unit.has_value());
  EXPECT_EQ(gpu_time->unit, "ns");
  EXPECT_EQ(r.find(0, "GpuBusy")->unit, "%");
  EXPECT_EQ(bytes->unit, "B");
  EXPECT_EQ(r.find(0, "PsDuration")->unit, "us");
  EXPECT_EQ(r.find(0, "Bandwidth")->unit, "GB/s");
  EXPECT_EQ(ticks->description, "raw counters: increment over the interval, in cycles");
  // Groups: the raw counters and the metric set.
  EXPECT_EQ(ticks->groups, std::vector<std::string>{"raw counters"});
  EXPECT_EQ(gpu_time->groups, std::vector<std::string>{"RenderBasic"});
  // Two columns named A0: two tracks.
  ASSERT_NE(r.find(0, "A0"), nullptr);
  ASSERT_NE(r.find(0, "A0 (metric)"), nullptr);
  EXPECT_EQ(r.find(0, "A0 (metric)")->rows.front().value, 1);
}

// A capture with CPU/GPU correlation points: samples on the sequence's
// clock 64 (GPU ns), converted to CLOCK_MONOTONIC by the latest snapshot.
TEST(PerfettoGpuWriter, CorrelatedTimesConvertThroughSnapshots) {
  const row_schema s = test_schema();
  output::text_buffer out;
  {
    pf::gpu_capture c;
    c.correlation = {{5'000'000, 50'000}, {5'200'000, 215'000}};
    pf::gpu_counter_writer w(out, s, c);
    write_rows(w);
  }
  const auto r = check(out.str());
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_TRUE(r.has_snapshot);
  const auto* ticks = r.find(0, "GPU_TICKS");
  ASSERT_NE(ticks, nullptr);
  ASSERT_EQ(ticks->rows.size(), 5u);
  // Before the second point: offset of the first; from it on, the second's.
  EXPECT_EQ(ticks->rows[0].raw_ts, 100'000u);
  EXPECT_EQ(ticks->rows[0].ts, 5'000'000 + 50'000);
  EXPECT_EQ(ticks->rows[2].ts, 5'000'000 + 150'000);
  EXPECT_EQ(ticks->rows[3].ts, 5'200'000 + 5'000);
  EXPECT_EQ(ticks->rows[3].value, 7);
}

// Raw Mali vinstr samples carry no time: sample k is placed over (k+1, k+2] ns.
TEST(PerfettoGpuWriter, UntimedRowsArePlacedByPosition) {
  row_schema s;
  s.counters = {{"GPU_ACTIVE", "cycles", column_kind::counter}};
  s.clock = clock_kind::cpu_ns;
  s.ticks_per_second = 0;
  output::text_buffer out;
  {
    pf::gpu_counter_writer w(out, s, {});
    const std::uint64_t v[] = {5};
    row r{};
    r.counters = v;
    w.write(r);
    w.write(r);
    w.end(accounting{});
  }
  const auto r = check(out.str());
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_TRUE(same(rows_of(*r.find(0, "GPU_ACTIVE")), {{1, 5}, {2, 5}, {3, 0}}));
}

// Two captures with the same columns: two GPUs, two sequences, tracks apart.
TEST(PerfettoGpuWriter, FleetCapturesAreGpusOfTheirOwn) {
  const row_schema s = test_schema();
  output::text_buffer out;
  std::vector<pf::capture_stream> streams(3);
  for (std::size_t k = 0; k < streams.size(); ++k) {
    streams[k].schema = &s;
    streams[k].capture.gpu.name = "capture " + std::to_string(k);
    if (k == 1) streams[k].capture.correlation = {{7'000'000, 90'000}};
    streams[k].rows = [](output::row_writer& w) { write_rows(w); };
  }
  pf::write_fleet(out, streams);
  const auto r = check(out.str());
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.sequences, (std::set<std::uint32_t>{1, 2, 3}));
  for (std::int32_t g = 0; g < 3; ++g) {
    EXPECT_EQ(r.gpu_names.at(g), "capture " + std::to_string(g));
    const auto* t = r.find(g, "A0");
    ASSERT_NE(t, nullptr) << g;
    EXPECT_EQ(t->rows.size(), 5u) << g;
  }
  EXPECT_EQ(r.find(1, "A0")->rows[0].ts, 7'000'000 + 10'000);
  EXPECT_EQ(r.find(2, "A0")->rows[0].ts, 100'000);
}

// Size: a row of 61 HSW-sized counters takes well under 10 bytes a value.
TEST(PerfettoGpuWriter, AValueTakesUnderTenBytes) {
  row_schema s;
  for (int i = 0; i < 61; ++i) s.counters.push_back({"C" + std::to_string(i), "events", {}});
  s.ticks_per_second = 12'500'000;
  output::text_buffer out;
  constexpr std::size_t rows = 1000;
  {
    pf::gpu_counter_writer w(out, s, {});
    std::vector<std::uint64_t> v(61);
    row r{};
    r.counters = v;
    for (std::size_t k = 0; k < rows; ++k) {
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = (k * 7919 + i * 104729) % 600'000;
      r.begin = 1000 + k * 2048;
      r.end = r.begin + 2048;
      w.write(r);
    }
    w.end(accounting{});
  }
  const double per_value = static_cast<double>(out.str().size()) / (rows * 61);
  EXPECT_LT(per_value, 10.0);
  EXPECT_TRUE(check(out.str()).errors.empty());
}

// The factory: track-event keeps the older writer, gpu-counters the new one.
TEST(PerfettoGpuWriter, LayoutOptionChoosesTheWriter) {
  EXPECT_EQ(pf::parse_trace_layout("gpu-counters"), pf::trace_layout::gpu_counters);
  EXPECT_EQ(pf::parse_trace_layout("track-event"), pf::trace_layout::track_event);
  EXPECT_FALSE(pf::parse_trace_layout("counters").has_value());
  const row_schema s = test_schema();
  pf::trace_options o;
  o.layout = pf::trace_layout::track_event;
  output::text_buffer out;
  auto w = pf::make_trace_writer(out, s, o);
  EXPECT_NE(dynamic_cast<pf::trace_writer*>(w.get()), nullptr);
  auto g = pf::make_trace_writer(out, s, pf::trace_options{});
  EXPECT_NE(dynamic_cast<pf::gpu_counter_writer*>(g.get()), nullptr);
}

// The checker catches what trace_processor would drop or misread.
TEST(PerfettoImportRules, CheckerCatchesBrokenTraces) {
  using output::proto::writer;
  auto packet = [](writer& w, bool ts, std::uint32_t seq, std::uint32_t flags, auto&& body) {
    auto p = w.begin(1);
    if (ts) w.varint(8, 1000);
    if (seq != 0) w.varint(10, seq);
    if (flags != 0) w.varint(13, flags);
    body();
    w.end(p);
  };
  auto samples = [](writer& w, std::uint32_t id) {
    auto e = w.begin(52);
    w.varint(4, 1);
    auto c = w.begin(2);
    w.varint(1, id);
    w.varint(2, 5);
    w.end(c);
    w.end(e);
  };
  auto descriptor = [](writer& w, std::int32_t gpu) {
    auto in = w.begin(12);
    auto d = w.begin(47);
    w.varint(1, 1);
    w.varint(3, static_cast<std::uint64_t>(gpu));
    auto cd = w.begin(2);
    auto sp = w.begin(1);
    w.varint(1, 1);
    w.string(2, "C");
    w.end(sp);
    w.end(cd);
    w.end(d);
    w.end(in);
  };
  auto errors = [](const writer& w) { return check(w.data()).errors; };
  {  // fine
    writer w;
    packet(w, true, 1, 1, [&] { descriptor(w, 0); });
    packet(w, true, 1, 2, [&] { samples(w, 1); });
    EXPECT_TRUE(errors(w).empty());
  }
  {  // samples before their descriptor
    writer w;
    packet(w, true, 1, 1, [&] { samples(w, 1); });
    packet(w, true, 1, 2, [&] { descriptor(w, 0); });
    EXPECT_FALSE(errors(w).empty());
  }
  {  // a counter id without a spec; a packet without a timestamp
    writer w;
    packet(w, true, 1, 1, [&] { descriptor(w, 0); });
    packet(w, true, 1, 2, [&] { samples(w, 2); });
    EXPECT_EQ(errors(w).size(), 1u);
    packet(w, false, 1, 2, [&] { samples(w, 1); });
    EXPECT_EQ(errors(w).size(), 2u);
  }
  {  // one GPU id on two sequences; a sequence whose state was never cleared
    writer w;
    packet(w, true, 1, 1, [&] { descriptor(w, 0); });
    packet(w, true, 2, 1, [&] { descriptor(w, 0); });
    packet(w, true, 3, 2, [&] { descriptor(w, 1); });
    EXPECT_GE(errors(w).size(), 2u);
  }
  {  // a sequence clock without a snapshot
    writer w;
    packet(w, true, 1, 1, [&] {
      w.varint(58, 64);
      descriptor(w, 0);
    });
    EXPECT_FALSE(errors(w).empty());
  }
}

}  // namespace
