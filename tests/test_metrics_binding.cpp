// Metric values per interval with nothing but the library: an emulated
// Intel recording is read (intel/recording.hpp), turned into rows
// (intel/rows.hpp) and a metric set is bound to the rows' columns
// (metrics/binding.hpp). Values are checked against the emulator's truth;
// scalar and batch evaluation give the same bits; availability pruning,
// missing columns and duplicate symbol names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/metrics/binding.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"
#ifdef HWPC_HAVE_PUGIXML
#include "hwpc/metrics/xml_loader.hpp"
#endif

namespace {

using namespace hwpc;
namespace hm = hwpc::metrics;

hm::metric_set hand_set(std::vector<std::vector<std::string>> ms) {
  hm::metric_set s;
  s.symbol_name = "Hand";
  for (auto& m : ms) {
    hm::metric x;
    x.symbol_name = m[0];
    x.equation = m[1];
    x.units = "u";
    if (m.size() > 2) x.availability = m[2];
    s.metrics.push_back(x);
  }
  return s;
}

struct recording_capture {
  emu::capture cap;
  std::vector<std::byte> bytes;
  emu::truth_table truth;
};

recording_capture skl_recording(const char* faults = "") {
  emu::config c;
  c.platform = intel::platform::skl;
  c.format = "A36_B8_C8";
  c.reports = 60;
  c.seed = 11;
  if (*faults != '\0') c.faults = emu::parse_faults(faults).value();
  recording_capture r{emu::emulate(c).value(), {}, {}};
  r.bytes = emu::output_bytes(r.cap, emu::output_kind::recording).value();
  r.truth = emu::truth_for(r.cap, emu::output_kind::recording).value();
  return r;
}

TEST(MetricsBinding, PerIntervalValuesOfAnIntelRecordingFromTheLibraryAlone) {
  const recording_capture rc = skl_recording("report-lost");
  auto rec = intel::recording::make(rc.bytes).value();
  row_schema schema =
      intel::schema_of(rec.format(), rec.device_platform(), true, rec.timestamp_frequency());
  hm::metric_set set = hand_set({{"GpuTime",
                                  "GPU_TIME 0 READ 1000000000 UMUL "
                                  "$GpuTimestampFrequency UDIV"},
                                 {"Clocks", "GPU_CLOCK 0 READ"},
                                 {"Twice", "A 7 READ 2 UMUL"},
                                 {"Ratio", "A 3 READ GPU_CLOCK 0 READ FDIV"}});
  // A metric is uint64 unless its file says otherwise, and a uint64 metric
  // truncates a double result as IGT's generated C does: Ratio is a double.
  set.metrics[3].type = hm::data_type::float64;
  const hm::device_values dev = hm::to_device_values(hm::device_of(rec));
  auto m = hm::row_metrics::make(set, dev, schema);
  ASSERT_TRUE(m) << m.error_value().describe();
  schema.metrics = m->columns();
  ASSERT_EQ(schema.metrics.size(), 4u);
  EXPECT_EQ(schema.metrics[2].name, "Twice");
  EXPECT_EQ(schema.metrics[2].kind, column_kind::metric);

  const std::size_t gpu_ticks = 0, a7 = 1 + 7, a3 = 1 + 3;
  ASSERT_EQ(schema.counters[a7].name, "A7");
  ASSERT_EQ(schema.counters[a3].name, "A3");
  const std::uint64_t hz = rec.timestamp_frequency();
  std::vector<cell> cells(m->size());
  std::size_t i = 0, ratios = 0;
  const accounting acc =
      intel::for_each_row(rec, intel::generation_of(rec.device_platform()), {}, [&](row& r) {
        if (r.lost) return;
        m->evaluate(r.counters, r.end - r.begin, cells);
        ASSERT_LT(i, rc.truth.rows.size());
        const emu::truth_row& t = rc.truth.rows[i];
        EXPECT_EQ(r.report, t.report);
        EXPECT_EQ(r.end, t.timestamp);
        const std::uint64_t prev_ts = i == 0 || rc.truth.rows[i - 1].report + 1 != t.report
                                          ? r.begin
                                          : rc.truth.rows[i - 1].timestamp;
        EXPECT_EQ(r.begin, prev_ts);
        EXPECT_EQ(cells[0], cell::u((r.end - r.begin) * 1'000'000'000 / hz));
        EXPECT_EQ(cells[1], cell::u(t.deltas[gpu_ticks]));
        EXPECT_EQ(cells[2], cell::u(2 * t.deltas[a7]));
        EXPECT_TRUE(cells[3].is_f64());
        // (Two reports at one instant, e.g. an MI_RPC next to a timer report,
        // have no clocks between them: division by zero is another matter.)
        if (t.deltas[gpu_ticks] != 0) {
          ++ratios;
          EXPECT_EQ(cells[3].as_double(),
                    static_cast<double>(t.deltas[a3]) / static_cast<double>(t.deltas[gpu_ticks]));
        }
        ++i;
      });
  EXPECT_EQ(i, rc.truth.rows.size());
  EXPECT_GT(i, 40u);
  EXPECT_GT(ratios, 40u);
  EXPECT_TRUE(acc.balanced());
  EXPECT_EQ(acc.intervals, i);
  EXPECT_GT(acc.report_lost, 0u);
}

TEST(MetricsBinding, ScalarAndBatchGiveTheSameBits) {
  const recording_capture rc = skl_recording("wrap");
  auto rec = intel::recording::make(rc.bytes).value();
  const row_schema schema =
      intel::schema_of(rec.format(), rec.device_platform(), true, rec.timestamp_frequency());
  const hm::metric_set set =
      hand_set({{"GpuTime", "GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV"},
                {"Busy", "A 7 READ 100 UMUL GPU_CLOCK 0 READ FDIV"},
                {"Sum", "$Busy $GpuTime FADD"},
                {"Shift", "B 0 READ 3 UMUL C 1 READ UADD"}});
  auto m = hm::row_metrics::make(set, hm::to_device_values(hm::device_of(rec)), schema);
  ASSERT_TRUE(m) << m.error_value().describe();
  // Collect the rows as columns (structure of arrays) and as scalar results.
  std::vector<std::vector<std::uint64_t>> cols(schema.counters.size());
  std::vector<std::uint64_t> elapsed;
  std::vector<std::vector<cell>> scalar;
  std::vector<cell> cells(m->size());
  intel::for_each_row(rec, intel::generation_of(rec.device_platform()), {}, [&](row& r) {
    if (r.lost) return;
    for (std::size_t c = 0; c < cols.size(); ++c) cols[c].push_back(r.counters[c]);
    elapsed.push_back(r.end - r.begin);
    m->evaluate(r.counters, r.end - r.begin, cells);
    scalar.push_back(cells);
  });
  const std::size_t n = elapsed.size();
  ASSERT_GT(n, 40u);
  std::vector<const std::uint64_t*> in;
  for (auto& c : cols) in.push_back(c.data());
  std::vector<std::vector<cell>> out(m->size(), std::vector<cell>(n));
  std::vector<cell*> outp;
  for (auto& o : out) outp.push_back(o.data());
  ASSERT_TRUE(m->evaluate_block(in, elapsed.data(), n, outp));
  auto same_as_scalar = [&](const char* how) {
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t j = 0; j < m->size(); ++j) {
        EXPECT_TRUE(out[j][r] == scalar[r][j]) << how << ": row " << r << " metric " << j;
        out[j][r] = cell{};
      }
    }
  };
  same_as_scalar("one call");
  // In calls of 1, 7 and the rest of the rows: the first call sizes the
  // evaluator's output columns for one row, the later ones grow them.
  auto in_pieces = [&](hm::row_metrics& rm) {
    for (std::size_t at = 0, k = 0; at < n; ++k) {
      const std::size_t len = std::min(n - at, k == 0 ? std::size_t{1} : k == 1 ? 7 : n);
      std::vector<const std::uint64_t*> piece_in;
      for (auto* c : in) piece_in.push_back(c + at);
      std::vector<cell*> piece_out;
      for (auto* o : outp) piece_out.push_back(o + at);
      ASSERT_TRUE(rm.evaluate_block(piece_in, elapsed.data() + at, len, piece_out));
      at += len;
    }
  };
  in_pieces(*m);
  same_as_scalar("pieces");
  // A copy and a move of a row_metrics that has evaluated blocks make their
  // own evaluator (the old one points into the original).
  // The original is freed first, so a pointer left into it would be read
  // after its end (the sanitizer builds report that).
  auto original = std::make_unique<hm::row_metrics>(std::move(*m));
  in_pieces(*original);
  same_as_scalar("moved to the heap");
  hm::row_metrics copied = *original;
  hm::row_metrics moved = std::move(*original);
  original.reset();
  in_pieces(copied);
  same_as_scalar("copied");
  in_pieces(moved);
  same_as_scalar("moved");
}

TEST(MetricsBinding, UnavailableMetricsAreDroppedAndTheirCountersNeedNotExist) {
  row_schema s;
  s.source = "hand";
  s.counters = {{"A0", "", column_kind::counter}};
  // Z0 exists in no schema; its metric is unavailable on this device.
  const hm::metric_set set =
      hand_set({{"Kept", "A 0 READ 3 UMUL"}, {"Gone", "PERFCNT 0 READ", "$QueryMode"}});
  auto m = hm::row_metrics::make(set, {{"QueryMode", expr::value::u(0)}}, s);
  ASSERT_TRUE(m) << m.error_value().describe();
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ(m->columns()[0].name, "Kept");
  const std::uint64_t a0[] = {14};
  cell c[1];
  m->evaluate(a0, 0, c);
  EXPECT_TRUE(c[0] == cell::u(42));
}

TEST(MetricsBinding, AnInputWithoutAColumnIsAnErrorNamingIt) {
  row_schema s;
  s.source = "hsw C4_B8";
  s.counters = {{"C0", "", column_kind::counter}};
  auto m = hm::row_metrics::make(hand_set({{"X", "A 5 READ"}}), {}, s);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error_value().code, errc::unknown_name);
  EXPECT_NE(m.error_value().message.find("reads A5, but hsw C4_B8 rows have no A5 counter"),
            std::string::npos)
      << m.error_value().message;
  auto clk = hm::row_metrics::make(hand_set({{"X", "GPU_CLOCK 0 READ"}}), {}, s);
  ASSERT_FALSE(clk);
  EXPECT_NE(clk.error_value().message.find("no GPU_TICKS counter"), std::string::npos);
}

TEST(MetricsBinding, DuplicateSymbolNamesAreRefused) {
  row_schema s;
  s.counters = {{"A0", "", column_kind::counter}, {"A1", "", column_kind::counter}};
  auto m = hm::row_metrics::make(
      hand_set({{"Dup", "A 0 READ"}, {"Dup", "A 1 READ"}, {"User", "$Dup 2 UMUL"}}), {}, s);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error_value().code, errc::inconsistent);
  EXPECT_EQ(m.error_value().message, "set Hand has two metrics named 'Dup'");
}

#ifdef HWPC_HAVE_PUGIXML
TEST(MetricsBinding, RenderBasicOfTheShippedFileOnAHaswellRecording) {
  const auto xml = std::filesystem::path(HWPC_SHARED_DIR) / "data" / "intel-metrics" / "oa-hsw.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "no " << xml << " (../shared absent)";
  auto sets = hm::load_xml_file(xml.string());
  ASSERT_TRUE(sets);
  const hm::metric_set* rb = nullptr;
  for (const auto& s : *sets) rb = s.symbol_name == "RenderBasic" ? &s : rb;
  ASSERT_NE(rb, nullptr);
  emu::config c;  // HSW A45_B8_C8
  c.reports = 30;
  const auto cap = emu::emulate(c).value();
  const auto bytes = emu::output_bytes(cap, emu::output_kind::recording).value();
  auto rec = intel::recording::make(bytes).value();
  row_schema schema =
      intel::schema_of(rec.format(), rec.device_platform(), true, rec.timestamp_frequency());
  auto m = hm::row_metrics::make(*rb, hm::to_device_values(hm::device_of(rec)), schema);
  ASSERT_TRUE(m) << m.error_value().describe();
  const auto gpu_time = m->bound().find("GpuTime");
  ASSERT_TRUE(gpu_time);
  std::vector<cell> cells(m->size());
  std::size_t rows = 0;
  intel::for_each_row(rec, intel::generation_of(rec.device_platform()), {}, [&](row& r) {
    if (r.lost) return;
    m->evaluate(r.counters, r.end - r.begin, cells);
    // GpuTime = ticks * 1e9 / frequency, in ns.
    EXPECT_TRUE(cells[*gpu_time] ==
                cell::u((r.end - r.begin) * 1'000'000'000 / rec.timestamp_frequency()));
    ++rows;
  });
  EXPECT_EQ(rows, 29u);
}
#endif

}  // namespace
