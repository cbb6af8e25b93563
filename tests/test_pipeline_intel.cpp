// The library's Intel pipeline (pipeline/intel_capture.hpp): opening an
// emulated capture of each input kind gives the rows the readers and
// rows.hpp give directly; every usage refusal is errc::usage, worded in each
// door's spelling; bad input keeps its byte offset; the embedded default
// capture opens with the emulated device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/emu/default_capture.hpp"
#include "hwpc/emu/oa_unit.hpp"
#include "hwpc/emu/outputs.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "hwpc/pipeline/intel_default_capture.hpp"

namespace {

using hwpc::pipeline::door;

// A row as text: every field the row contract has.
std::string text_of(const hwpc::row& r) {
  std::string s = std::to_string(r.report) + "," + std::to_string(r.offset) + "," +
                  std::to_string(r.begin) + "," + std::to_string(r.end) + "," +
                  (r.lost ? "L" : "") + "," + std::string(r.reason) + "," +
                  (r.has_context ? std::to_string(r.context) : "-");
  for (const std::uint64_t v : r.counters) s += "," + std::to_string(v);
  return s;
}

class collect final : public hwpc::row_writer {
 public:
  void write(const hwpc::row& r) override { rows.push_back(text_of(r)); }
  void end(const hwpc::accounting& a) override {
    acc = a;
    ended = true;
  }
  std::vector<std::string> rows;
  hwpc::accounting acc;
  bool ended = false;
};

std::vector<std::byte> emulated(hwpc::intel::platform p, const char* format,
                                hwpc::emu::output_kind k, bool losses) {
  hwpc::emu::config c;
  c.platform = p;
  c.format = format;
  c.reports = 200;
  c.exponent = 9;
  c.seed = 11;
  c.faults.ctx_switch = true;
  c.faults.wrap = true;
  if (losses) c.faults.report_lost = true;
  auto cap = hwpc::emu::emulate(c);
  EXPECT_TRUE(cap.has_value());
  auto b = hwpc::emu::output_bytes(*cap, k);
  EXPECT_TRUE(b.has_value()) << (b ? "" : b.error_value().describe());
  return b ? *b : std::vector<std::byte>{};
}

// The rows of `src` the old way: the reader and rows.hpp, nothing else.
template <class Source>
std::vector<std::string> direct_rows(const Source& src, hwpc::intel::platform p,
                                     std::size_t unknown = 0) {
  std::vector<std::string> out;
  hwpc::intel::row_options o;
  o.unknown_records = unknown;
  hwpc::intel::for_each_row(src, hwpc::intel::generation_of(p), o,
                            [&](hwpc::row& r) { out.push_back(text_of(r)); });
  return out;
}

std::vector<std::string> library_rows(const std::vector<std::byte>& b,
                                      const hwpc::intel::open_options& o) {
  auto cap = hwpc::intel::open_capture(hwpc::capture_source::borrow(b, "cap"), o, {door::tool});
  EXPECT_TRUE(cap.has_value()) << (cap ? "" : cap.error_value().message);
  if (!cap) return {};
  collect c;
  auto acc = (*cap)->write_rows(c);
  EXPECT_TRUE(acc.has_value());
  EXPECT_TRUE(c.ended);
  EXPECT_EQ((*cap)->vendor(), hwpc::vendor::intel);
  return c.rows;
}

TEST(PipelineIntel, RawRowsAreTheReadersRows) {
  const auto p = hwpc::intel::platform::hsw;
  const auto b = emulated(p, "A45_B8_C8", hwpc::emu::output_kind::raw, false);
  auto buf = hwpc::intel::report_buffer::make(b, *hwpc::intel::find_format(p, "A45_B8_C8"));
  ASSERT_TRUE(buf.has_value());
  const auto want = direct_rows(hwpc::intel::raw_capture(*buf), p);
  hwpc::intel::open_options o;
  o.platform = "hsw";
  o.format = "A45_B8_C8";
  ASSERT_GT(want.size(), 100u);
  EXPECT_EQ(library_rows(b, o), want);
}

TEST(PipelineIntel, I915StreamRowsAreTheReadersRows) {
  const auto p = hwpc::intel::platform::skl;
  const auto b = emulated(p, "A32u40_A4u32_B8_C8", hwpc::emu::output_kind::i915_stream, true);
  auto st = hwpc::intel::i915_stream::make(b, *hwpc::intel::find_format(p, "A32u40_A4u32_B8_C8"));
  ASSERT_TRUE(st.has_value());
  const auto want = direct_rows(*st, p, st->unknown_records());
  hwpc::intel::open_options o;
  o.platform = "skl";
  o.format = "A32u40_A4u32_B8_C8";
  o.input_kind = "i915-stream";
  ASSERT_GT(want.size(), 100u);
  EXPECT_EQ(library_rows(b, o), want);
}

TEST(PipelineIntel, RecordingRowsAreTheReadersRows) {
  const auto b = emulated(hwpc::intel::platform::tgl, "A32u40_A4u32_B8_C8",
                          hwpc::emu::output_kind::recording, true);
  auto rec = hwpc::intel::recording::make(b, {});
  ASSERT_TRUE(rec.has_value());
  const auto want = direct_rows(*rec, rec->device_platform(), rec->unknown_records());
  ASSERT_GT(want.size(), 100u);
  EXPECT_EQ(library_rows(b, {}), want);  // the kind, platform and format from the bytes
}

TEST(PipelineIntel, XeRecordingRowsAreTheReadersRows) {
  const auto b =
      emulated(hwpc::intel::platform::lnl, "PEC64u64", hwpc::emu::output_kind::xe_recording, false);
  auto rec = hwpc::intel::xe_recording::make(b, {});
  ASSERT_TRUE(rec.has_value()) << rec.error_value().describe();
  const auto want = direct_rows(*rec, rec->device_platform(), rec->unknown_records());
  ASSERT_GT(want.size(), 100u);
  EXPECT_EQ(library_rows(b, {}), want);
}

// Each refusal: errc::usage, the tool's text, and Python's spelling of it.
struct refusal {
  const char* what;
  void (*set)(hwpc::intel::open_options&);
  const char* tool;
  const char* python;
};

const refusal refusals[] = {
    {"unknown platform", [](auto& o) { o.platform = "nope"; }, "unknown platform 'nope'",
     "unknown platform 'nope'"},
    {"unknown input kind", [](auto& o) { o.input_kind = "tape"; }, "unknown --input-kind 'tape'",
     "unknown input_kind 'tape'"},
    {"threads without summary",
     [](auto& o) {
       o.platform = "hsw";
       o.format = "A45_B8_C8";
       o.threads = 2;
     },
     "--threads splits the totals of --summary over raw reports (without --context): add "
     "--summary or drop --threads",
     "threads splits the totals of summary=True over raw reports (without context): add "
     "summary=True or drop threads"},
    {"set without metrics", [](auto& o) { o.set = "RenderBasic"; },
     "--set needs --metrics FILE.xml", "set needs metrics=FILE.xml"},
    {"device value without metrics", [](auto& o) { o.device_vars["X"] = hwpc::expr::value::u(1); },
     "--device-var gives a metric formula a value: it needs --metrics FILE.xml (and --set)",
     "device_vars gives a metric formula a value: it needs metrics=FILE.xml (and set)"},
    {"arithmetic without metrics", [](auto& o) { o.arithmetic = "igt"; },
     "--arithmetic chooses how metric formulas compute: it needs --metrics FILE.xml",
     "arithmetic chooses how metric formulas compute: it needs metrics=FILE.xml"},
    {"arithmetic unknown",
     [](auto& o) {
       o.metrics = "m.xml";
       o.arithmetic = "exact";
     },
     "--arithmetic must be mdapi or igt, not 'exact'", "arithmetic must be mdapi or igt"},
    {"definitions without metrics", [](auto& o) { o.definitions = "file"; },
     "--definitions chooses which formulas a metric set computes from: it needs --metrics",
     "definitions chooses which formulas a metric set computes from: it needs metrics="},
    {"xe loss without xe stream",
     [](auto& o) {
       o.xe_losses.push_back({0, 1});
     },
     "--xe-loss goes with --input-kind xe-stream", "xe_losses goes with input_kind='xe-stream'"},
    {"stream without format", [](auto& o) { o.input_kind = "i915-stream"; },
     "--platform and --format are required for raw and i915-stream input (see --help)",
     "platform and format are required for raw and stream input"},
    {"no such format",
     [](auto& o) {
       o.platform = "hsw";
       o.format = "NOPE";
     },
     "platform hsw has no report format 'NOPE' (see hwpc formats --platform hsw)",
     "platform hsw has no report format 'NOPE'"},
};

TEST(PipelineIntel, EveryOptionRefusalIsAUsageErrorInEachSpelling) {
  for (const refusal& r : refusals) {
    hwpc::intel::open_options o;
    r.set(o);
    auto tool = hwpc::intel::check(o, {door::tool});
    auto py = hwpc::intel::check(o, {door::python});
    ASSERT_FALSE(tool.has_value()) << r.what;
    ASSERT_FALSE(py.has_value()) << r.what;
    EXPECT_TRUE(hwpc::is_usage(tool.error_value())) << r.what;
    EXPECT_TRUE(hwpc::is_usage(py.error_value())) << r.what;
    EXPECT_EQ(tool.error_value().message.rfind(r.tool, 0), 0u)
        << r.what << ": " << tool.error_value().message;
    EXPECT_EQ(py.error_value().message.rfind(r.python, 0), 0u)
        << r.what << ": " << py.error_value().message;
    // open_capture refuses the same, before reading a byte.
    auto opened = hwpc::intel::open_capture(hwpc::capture_source::borrow({}, "x"), o, {door::tool});
    ASSERT_FALSE(opened.has_value()) << r.what;
    EXPECT_EQ(opened.error_value().message, tool.error_value().message);
  }
}

TEST(PipelineIntel, RefusalsThatNeedTheInput) {
  // A Gen7 platform has no context id in its reports.
  const auto hsw =
      emulated(hwpc::intel::platform::hsw, "A45_B8_C8", hwpc::emu::output_kind::raw, false);
  hwpc::intel::open_options o;
  o.platform = "hsw";
  o.format = "A45_B8_C8";
  o.context = 7;
  for (const door d : {door::tool, door::python}) {
    auto c = hwpc::intel::open_capture(hwpc::capture_source::borrow(hsw, "h.raw"), o, {d});
    ASSERT_FALSE(c.has_value());
    EXPECT_TRUE(hwpc::is_usage(c.error_value()));
    EXPECT_EQ(c.error_value().message.rfind(d == door::tool ? "--context: hsw reports carry no"
                                                            : "context: hsw reports carry no",
                                            0),
              0u)
        << c.error_value().message;
  }
  // A recording's DEVICE_INFO names the format; another one is refused.
  const auto rec = emulated(hwpc::intel::platform::tgl, "A32u40_A4u32_B8_C8",
                            hwpc::emu::output_kind::recording, false);
  hwpc::intel::open_options f;
  f.format = "A24u40_A14u32_B8_C8";
  for (const door d : {door::tool, door::python}) {
    auto c = hwpc::intel::open_capture(hwpc::capture_source::borrow(rec, "r.rec"), f, {d});
    ASSERT_FALSE(c.has_value());
    EXPECT_TRUE(hwpc::is_usage(c.error_value()));
    EXPECT_EQ(c.error_value().message.rfind(d == door::tool ? "--format A24u40_A14u32_B8_C8 does"
                                                            : "format A24u40_A14u32_B8_C8 does",
                                            0),
              0u)
        << c.error_value().message;
  }
  // --metrics without a set on raw input, which names none.
  hwpc::intel::open_options m;
  m.platform = "hsw";
  m.format = "A45_B8_C8";
  m.metrics = "m.xml";
  auto tool = hwpc::intel::open_capture(hwpc::capture_source::borrow(hsw, "h"), m, {door::tool});
  auto py = hwpc::intel::open_capture(hwpc::capture_source::borrow(hsw, "h"), m, {door::python});
  ASSERT_FALSE(tool.has_value());
  ASSERT_FALSE(py.has_value());
  EXPECT_EQ(tool.error_value().message,
            "--metrics needs --set SYMBOL: the input names no metric set");
  EXPECT_EQ(py.error_value().message, "metrics needs set=SYMBOL: the input names no metric set");
  // --threads on input read in order.
  hwpc::intel::open_options t;
  t.summary = true;
  t.threads = 2;
  auto th = hwpc::intel::open_capture(hwpc::capture_source::borrow(rec, "r"), t, {door::tool});
  ASSERT_FALSE(th.has_value());
  EXPECT_TRUE(hwpc::is_usage(th.error_value()));
  EXPECT_NE(th.error_value().message.find("this input is read in order: drop --threads"),
            std::string::npos);
}

TEST(PipelineIntel, BadInputKeepsItsOffsetAndNamesTheInput) {
  auto b = emulated(hwpc::intel::platform::hsw, "A45_B8_C8", hwpc::emu::output_kind::raw, false);
  b.resize(1000);  // not a whole number of 256-byte reports
  hwpc::intel::open_options o;
  o.platform = "hsw";
  o.format = "A45_B8_C8";
  auto c = hwpc::intel::open_capture(hwpc::capture_source::borrow(b, "odd.raw"), o, {door::tool});
  ASSERT_FALSE(c.has_value());
  const hwpc::error& e = c.error_value();
  EXPECT_FALSE(hwpc::is_usage(e));
  EXPECT_EQ(e.anchor, hwpc::error_anchor::byte_offset);
  EXPECT_EQ(e.message.rfind("odd.raw: ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("at byte offset " + std::to_string(e.offset)), std::string::npos)
      << e.message;
  // Every report with RPT_ID 0: rows written, then the error.
  std::vector<std::byte> zeros(4 * 256);
  auto z = hwpc::intel::open_capture(hwpc::capture_source::borrow(zeros, "z.raw"), o, {door::tool});
  ASSERT_TRUE(z.has_value());
  collect sink;
  auto acc = (*z)->write_rows(sink);
  ASSERT_FALSE(acc.has_value());
  EXPECT_EQ(acc.error_value().message,
            "z.raw: all 4 reports have RPT_ID 0 (slots the OA unit never wrote); nothing to "
            "decode");
}

// write() totals raw reports whole (pipeline/intel_totals.hpp); the summary
// writer fed every row gives the same text, and a context filter takes the
// row path.
TEST(PipelineIntel, RawTotalsWrittenWholeEqualTheRowsTotals) {
  const auto b = emulated(hwpc::intel::platform::bdw, "A32u40_A4u32_B8_C8",
                          hwpc::emu::output_kind::raw, false);
  hwpc::intel::open_options o;
  o.platform = "bdw";
  o.format = "A32u40_A4u32_B8_C8";
  o.summary = true;
  o.threads = 3;
  const hwpc::output::output_choice csv_totals{hwpc::output::writer_kind::csv, true};
  auto whole = hwpc::intel::open(hwpc::capture_source::borrow(b, "b.raw"), o, {door::tool});
  ASSERT_TRUE(whole.has_value()) << whole.error_value().message;
  ASSERT_TRUE((*whole)->totals_whole());
  hwpc::output::text_buffer fast;
  ASSERT_TRUE((*whole)->write({csv_totals}, fast).has_value());

  o.threads = 0;
  auto rows = hwpc::intel::open(hwpc::capture_source::borrow(b, "b.raw"), o, {door::tool});
  ASSERT_TRUE(rows.has_value());
  hwpc::output::text_buffer slow;
  auto writer = hwpc::output::make_writer(csv_totals, slow, (*rows)->schema(),
                                          (*rows)->writer_parts(csv_totals));
  ASSERT_TRUE((*rows)->write_rows_for_totals(*writer.writer).has_value());
  EXPECT_EQ(fast.str(), slow.str());
  EXPECT_GT(fast.str().size(), 100u);

  // capture::totals(), what Python's summary holds, is the same numbers on
  // the whole path and on the rows' path.
  auto text_of_totals = [&](hwpc::capture& c) {
    auto t = c.totals();
    EXPECT_TRUE(t.has_value()) << (t ? "" : t.error_value().message);
    hwpc::output::text_buffer out;
    if (t) {
      hwpc::output::write_totals(out, c.schema(), false, t->totals,
                                 t->acc.anything_dropped() ? &t->acc : nullptr);
    }
    return out.str();
  };
  EXPECT_EQ(text_of_totals(**whole), fast.str());
  auto again = hwpc::intel::open(hwpc::capture_source::borrow(b, "b.raw"), o, {door::tool});
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(text_of_totals(**again), fast.str());

  o.context = 0x20;
  auto filtered = hwpc::intel::open(hwpc::capture_source::borrow(b, "b.raw"), o, {door::tool});
  ASSERT_TRUE(filtered.has_value());
  EXPECT_FALSE((*filtered)->totals_whole());
  hwpc::output::text_buffer filtered_rows;
  auto fw = hwpc::output::make_writer(csv_totals, filtered_rows, (*filtered)->schema(),
                                      (*filtered)->writer_parts(csv_totals));
  ASSERT_TRUE((*filtered)->write_rows_for_totals(*fw.writer).has_value());
  EXPECT_EQ(text_of_totals(**filtered), filtered_rows.str());

  // What the capture says of itself, for a door that hands it on as data.
  const hwpc::capture_facts f = (*whole)->facts();
  EXPECT_EQ(f.platform, "bdw");
  EXPECT_EQ(f.format, std::string((*whole)->format().name));
  EXPECT_EQ(f.metric_set, "");
  EXPECT_TRUE(f.dropped_metrics.empty());
  EXPECT_FALSE(f.gpu_id.has_value());
  EXPECT_EQ((*whole)->rows_at_most(), b.size() / (*whole)->format().size + 1);
}

// Reports that were never written are refused by totals() as by write().
TEST(PipelineIntel, TotalsOfUnwrittenReportsAreRefused) {
  const std::vector<std::byte> zeros(4 * 256);
  hwpc::intel::open_options o;
  o.platform = "bdw";
  o.format = "A32u40_A4u32_B8_C8";
  o.summary = true;
  auto z = hwpc::intel::open(hwpc::capture_source::borrow(zeros, "z.raw"), o, {door::tool});
  ASSERT_TRUE(z.has_value()) << z.error_value().message;
  auto t = (*z)->totals();
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error_value().message,
            "z.raw: all 4 reports have RPT_ID 0 (slots the OA unit never wrote); nothing to "
            "decode");
}

TEST(PipelineIntel, TheDefaultCaptureIsTheEmulatorsWithItsDevice) {
  hwpc::intel::open_options given;
  given.platform = "hsw";
  auto refused = hwpc::intel::make_default_capture(given, {door::tool});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error_value().message,
            "--platform, --format and --input-kind describe a FILE; give one");
  EXPECT_TRUE(hwpc::is_usage(refused.error_value()));

  auto d = hwpc::intel::make_default_capture({}, {door::tool});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->source.name(), "(default capture)");
  const hwpc::emu::default_capture_data want = hwpc::emu::default_capture();
  ASSERT_EQ(d->source.bytes().size(), want.raw.size());
  EXPECT_TRUE(std::equal(want.raw.begin(), want.raw.end(), d->source.bytes().begin()));
  ASSERT_TRUE(d->options.emulated_device.has_value());
  EXPECT_EQ(d->options.emulated_device->eu_count, 20u);

  auto cap = hwpc::intel::open(std::move(d->source), d->options, {door::tool});
  ASSERT_TRUE(cap.has_value()) << cap.error_value().message;
  EXPECT_EQ((*cap)->plat(), hwpc::intel::platform::hsw);
  EXPECT_EQ(std::string((*cap)->format().name), "A45_B8_C8");
  // Its rows are the emulator's truth, interval for interval.
  collect sink;
  ASSERT_TRUE((*cap)->write_rows(sink).has_value());
  EXPECT_EQ(sink.rows.size(), want.truth.rows.size());
  // The HTML report says the device is emulated.
  const auto parts = (*cap)->writer_parts({hwpc::output::writer_kind::html, false});
  bool emulated_fact = false;
  for (const auto& f : parts.report.facts) {
    emulated_fact = emulated_fact || f.value.find("emulated") != std::string::npos;
  }
  EXPECT_TRUE(emulated_fact);
  EXPECT_EQ(parts.title, "hwpc hsw A45_B8_C8: (default capture)");
}

}  // namespace
