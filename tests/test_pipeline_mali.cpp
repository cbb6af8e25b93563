// mali::open_capture (pipeline/mali_capture.hpp), the capture object every
// Mali door holds: over vinstr and kinstr_prfcnt captures of a 64-value and
// a 128-value GPU it gives the rows of the lower steps (mali::open and
// mali::for_each_row), which hold the counters the emulator put in (its own
// truth, not the decoder's); its usage errors are worded in each door's
// spelling; and the writers it feeds say what the tool prints.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/mali_capture.hpp"
#include "hwpc/pipeline/mali_open.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace {

using hwpc::pipeline::door;
namespace mali = hwpc::mali;

// A row kept whole (a row's spans are valid only during write()).
struct kept_row {
  std::uint64_t report = 0, offset = 0, begin = 0, end = 0;
  std::vector<std::uint64_t> counters;
  std::vector<hwpc::cell> metrics;
  std::string reason;
  bool lost = false;

  explicit kept_row(const hwpc::row& r)
      : report(r.report),
        offset(r.offset),
        begin(r.begin),
        end(r.end),
        counters(r.counters.begin(), r.counters.end()),
        metrics(r.metrics.begin(), r.metrics.end()),
        reason(r.reason),
        lost(r.lost) {}
  bool operator==(const kept_row& o) const {
    if (metrics.size() != o.metrics.size()) return false;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      if (metrics[i].k != o.metrics[i].k || metrics[i].bits != o.metrics[i].bits) return false;
    }
    return report == o.report && offset == o.offset && begin == o.begin && end == o.end &&
           counters == o.counters && reason == o.reason && lost == o.lost;
  }
};

struct keeper final : hwpc::row_writer {
  std::vector<kept_row> rows;
  std::optional<hwpc::accounting> ended;
  void write(const hwpc::row& r) override { rows.emplace_back(r); }
  void end(const hwpc::accounting& acc) override { ended = acc; }
};

const mali::gpu_product* gpu(const char* name) {
  auto g = mali::find_gpu(name);
  EXPECT_TRUE(g) << name;
  return g ? *g : nullptr;
}

// An hwpc Mali capture file of `samples` emulated samples (its header names
// the GPU, reader, L2 slices and core mask).
mali::emulation emulate(const mali::gpu_product& g, bool kinstr, std::size_t samples) {
  mali::emulate_options o;
  o.gpu_id = mali::gpu_id_of_product(g.product_id);
  o.csf = mali::is_csf_product(g.product_id);
  o.values_per_block = g.table->values_per_block;
  o.table = g.table;
  o.kinstr = kinstr;
  o.l2_slices = 2;
  o.core_mask = 0xb;  // cores 0, 1 and 3: a gap in the mask
  o.samples = samples;
  o.seed = 7;
  return mali::emulate(o);
}

// The rows the lower steps give for the same bytes and options.
std::vector<kept_row> rows_of_the_steps(hwpc::byte_span bytes, const mali::open_options& o) {
  auto c = mali::open(bytes, o, {door::tool});
  EXPECT_TRUE(c) << c.error_value().describe();
  if (!c) return {};
  mali::row_builder b(*c->gpu, c->metrics ? &*c->metrics : nullptr, c->rows);
  std::vector<kept_row> rows;
  auto acc = mali::for_each_row(*c, b, [&](const hwpc::row& r) { rows.emplace_back(r); });
  EXPECT_TRUE(acc) << acc.error_value().describe();
  return rows;
}

struct capture_case {
  const char* gpu;
  bool kinstr;
  std::optional<std::uint64_t> bus_width_bits;  // with it, the derived counters
};

void PrintTo(const capture_case& c, std::ostream* os) {
  *os << c.gpu << (c.kinstr ? " kinstr" : " vinstr");
  if (c.bus_width_bits) *os << " bus " << *c.bus_width_bits;
}

class PipelineMaliRows : public ::testing::TestWithParam<capture_case> {};

TEST_P(PipelineMaliRows, AreTheRowsOfForEachRowAndTheEmulatorsCounters) {
  const capture_case& k = GetParam();
  const mali::gpu_product* g = gpu(k.gpu);
  ASSERT_NE(g, nullptr);
  constexpr std::size_t samples = 6;
  const mali::emulation e = emulate(*g, k.kinstr, samples);
  mali::open_options o;  // the header names the rest
  o.bus_width_bits = k.bus_width_bits;

  auto cap = mali::open_capture(hwpc::capture_source::borrow(e.file, "emulated"), o, {door::tool});
  ASSERT_TRUE(cap) << cap.error_value().describe();
  EXPECT_EQ((*cap)->vendor(), hwpc::vendor::mali);
  EXPECT_TRUE((*cap)->warnings().empty());
  keeper got;
  auto acc = (*cap)->write_rows(got);
  ASSERT_TRUE(acc) << acc.error_value().describe();
  ASSERT_TRUE(got.ended.has_value()) << "write_rows ends the writer";
  EXPECT_EQ(*got.ended, *acc);
  EXPECT_EQ(acc->intervals, samples);

  const std::vector<kept_row> want = rows_of_the_steps(e.file, o);
  ASSERT_EQ(got.rows.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(got.rows[i] == want[i]) << "row " << i;

  // The counters are the emulator's (summed over the block instances and
  // scaled as the table says), its timestamps the sample ends.
  const mali::sample_capture* side = mali::mali_side(**cap);
  ASSERT_NE(side, nullptr);
  EXPECT_EQ(side->opened().reader, k.kinstr ? "kinstr" : "vinstr");
  EXPECT_EQ(side->opened().gpu, g);
  const hwpc::row_schema& s = (*cap)->schema();
  ASSERT_GE(s.counters.size(), g->table->counters.size());
  EXPECT_EQ(s.metrics.size(), k.bus_width_bits ? side->opened().metrics->size() : 0u);
  ASSERT_EQ(got.rows.size(), e.truth.size());
  for (std::size_t r = 0; r < got.rows.size(); ++r) {
    EXPECT_EQ(got.rows[r].end, e.end_ns[r]) << "sample " << r;
    for (std::size_t i = 0; i < g->table->counters.size(); ++i) {
      const mali::hw_counter& c = g->table->counters[i];
      ASSERT_EQ(got.rows[r].counters[i], mali::scale_counter(e.truth[r][c.id], c.shift))
          << k.gpu << " sample " << r << " " << c.name;
    }
  }
  // The emulator keeps the GPU's physics: no finding.
  ASSERT_NE(side->plausibility(), nullptr);
  EXPECT_EQ(side->plausibility()->total_findings(), 0u);
  EXPECT_TRUE(mali::plausibility_lines(*side, 20, {door::tool}).empty());

  EXPECT_TRUE((*cap)->facts().findings.empty());
  EXPECT_EQ((*cap)->facts().findings_total, 0u);

  // Its totals are the summary writer's, fed every row.
  const hwpc::output::output_choice csv_totals{hwpc::output::writer_kind::csv, true};
  hwpc::output::text_buffer summed;
  auto w = hwpc::output::make_writer(csv_totals, summed, (*cap)->schema(),
                                     (*cap)->writer_parts(csv_totals));
  ASSERT_TRUE((*cap)->write_rows(*w.writer));
  auto t = (*cap)->totals();
  ASSERT_TRUE(t) << t.error_value().describe();
  hwpc::output::text_buffer whole;
  hwpc::output::write_totals(whole, (*cap)->schema(), false, t->totals);
  EXPECT_EQ(whole.str(), summed.str());
  EXPECT_EQ(t->acc, *acc);

  // A clock far below the GPU's: the cycle counters break its bounds, and
  // the capture's facts carry the findings as plausibility() holds them.
  mali::open_options slow = o;
  slow.max_clock_mhz = 1;
  auto slow_cap =
      mali::open_capture(hwpc::capture_source::borrow(e.file, "emulated"), slow, {door::tool});
  ASSERT_TRUE(slow_cap) << slow_cap.error_value().describe();
  EXPECT_EQ((*slow_cap)->facts().findings_total, 0u);  // nothing written yet
  keeper slow_rows;
  ASSERT_TRUE((*slow_cap)->write_rows(slow_rows));
  const mali::plausibility_checker* pc = mali::mali_side(**slow_cap)->plausibility();
  ASSERT_NE(pc, nullptr);
  ASSERT_GT(pc->total_findings(), 0u);
  const hwpc::capture_facts f = (*slow_cap)->facts();
  EXPECT_EQ(f.findings_total, pc->total_findings());
  ASSERT_EQ(f.findings.size(), pc->findings().size());
  for (std::size_t i = 0; i < f.findings.size(); ++i) {
    EXPECT_EQ(f.findings[i], pc->findings()[i].describe());
  }

  // A second pass gives the same rows (the capture can be written twice).
  keeper again;
  ASSERT_TRUE((*cap)->write_rows(again));
  ASSERT_EQ(again.rows.size(), got.rows.size());
  for (std::size_t i = 0; i < got.rows.size(); ++i) EXPECT_TRUE(again.rows[i] == got.rows[i]);
}

INSTANTIATE_TEST_SUITE_P(
    VinstrKinstr64And128, PipelineMaliRows,
    ::testing::Values(capture_case{"Mali-G72", false, std::nullopt},  // 64 values, vinstr
                      capture_case{"Mali-G72", true, 128},            // 64 values, kinstr
                      capture_case{"Mali-G78", false, 128},           // 64 values, vinstr
                      capture_case{"Immortalis-G720", true, 128},     // 128 values, kinstr
                      capture_case{"Immortalis-G720", true, std::nullopt}),
    [](const auto& info) {
      std::string n = std::string(info.param.gpu) + (info.param.kinstr ? "_kinstr" : "_vinstr") +
                      (info.param.bus_width_bits ? "_derived" : "");
      for (char& c : n) c = c == '-' ? '_' : c;
      return n;
    });

// A 128-value GPU has no vinstr capture: the reader cannot deliver its blocks.
TEST(PipelineMali, A128ValueGpuOnVinstrIsRefusedInEachSpelling) {
  const std::vector<std::byte> samples(8192);  // bare samples: the options say everything
  mali::open_options o;
  o.gpu = gpu("Immortalis-G720");
  ASSERT_NE(o.gpu, nullptr);
  o.l2_slices = 1;
  o.core_mask = 1;
  for (const door d : {door::tool, door::python}) {
    auto cap = mali::open_capture(hwpc::capture_source::borrow(samples, "bare"), o, {d});
    ASSERT_FALSE(cap);
    EXPECT_TRUE(hwpc::is_usage(cap.error_value()));
    EXPECT_NE(cap.error_value().message.find(d == door::tool ? "use --reader kinstr"
                                                             : "use reader='kinstr'"),
              std::string::npos)
        << cap.error_value().message;
  }
  // And kinstr reads the same bytes as a buffer (here without a sample: bad input, no usage).
  o.reader = "kinstr";
  auto cap = mali::open_capture(hwpc::capture_source::borrow(samples, "bare"), o, {door::tool});
  ASSERT_TRUE(cap) << cap.error_value().describe();
  keeper k;
  auto acc = (*cap)->write_rows(k);
  ASSERT_FALSE(acc);
  EXPECT_FALSE(hwpc::is_usage(acc.error_value()));
  EXPECT_FALSE(k.ended.has_value()) << "no end() after an error";
}

// The options the library refuses, worded for the tool and for Python, with
// errc::usage; refused before the bytes are read.
TEST(PipelineMali, UsageRefusalsInBothSpellings) {
  const mali::emulation e = emulate(*gpu("Mali-G72"), false, 2);
  struct refusal {
    mali::open_options o;
    const char* tool;
    const char* python;
  };
  std::vector<refusal> refusals;
  {
    refusal r{{}, "--derived needs --bus-width-bits:", "derived needs bus_width_bits:"};
    r.o.derived = "database";
    refusals.push_back(r);
  }
  {
    refusal r{{}, "--counters-only leaves out", "counters_only leaves out"};
    r.o.bus_width_bits = 128;
    r.o.counters_only = true;
    refusals.push_back(r);
  }
  {
    refusal r{{}, "--reader: expected vinstr or kinstr", "reader: expected vinstr or kinstr"};
    r.o.reader = "perf";
    refusals.push_back(r);
  }
  {
    refusal r{{}, "--max-clock-mhz: expected 1..4000", "max_clock_mhz: expected 1..4000"};
    r.o.max_clock_mhz = 0;
    refusals.push_back(r);
  }
  {
    // The header says vinstr.
    refusal r{{},
              "--reader kinstr contradicts the capture (vinstr)",
              "reader='kinstr' contradicts the capture (vinstr)"};
    r.o.reader = "kinstr";
    refusals.push_back(r);
  }
  {
    // The header says Mali-G72.
    refusal r{{},
              "--gpu Mali-G78 contradicts the capture's GPU_ID",
              "gpu Mali-G78 contradicts the capture's GPU_ID"};
    r.o.gpu = gpu("Mali-G78");
    refusals.push_back(r);
  }
  for (const refusal& r : refusals) {
    for (const door d : {door::tool, door::python}) {
      const char* want = d == door::tool ? r.tool : r.python;
      auto cap = mali::open_capture(hwpc::capture_source::borrow(e.file, "c"), r.o, {d});
      ASSERT_FALSE(cap) << want;
      EXPECT_TRUE(hwpc::is_usage(cap.error_value())) << want;
      EXPECT_EQ(cap.error_value().message.rfind(want, 0), 0u)
          << "want: " << want << "\ngot:  " << cap.error_value().message;
    }
  }
}

// --core-index numbers kinstr blocks: on a vinstr capture (the header's
// reader or the default for bare samples) it is refused, not ignored.
TEST(PipelineMali, CoreIndexOnVinstrIsRefused) {
  const mali::emulation e = emulate(*gpu("Mali-G72"), false, 2);
  mali::open_options o;
  o.core_index = "sparse";
  for (const door d : {door::tool, door::python}) {
    auto cap = mali::open_capture(hwpc::capture_source::borrow(e.file, "c"), o, {d});
    ASSERT_FALSE(cap);
    EXPECT_TRUE(hwpc::is_usage(cap.error_value()));
    const std::string& m = cap.error_value().message;
    if (d == door::tool) {
      EXPECT_EQ(m.rfind("--core-index numbers kinstr_prfcnt blocks", 0), 0u) << m;
      EXPECT_NE(m.find("drop --core-index or give --reader kinstr"), std::string::npos) << m;
    } else {
      EXPECT_EQ(m.rfind("core_index numbers kinstr_prfcnt blocks", 0), 0u) << m;
      EXPECT_NE(m.find("drop core_index or give reader='kinstr'"), std::string::npos) << m;
    }
  }
  // On the same GPU's kinstr capture it is taken.
  const mali::emulation k = emulate(*gpu("Mali-G72"), true, 2);
  o.core_index = "dense";
  auto cap = mali::open_capture(hwpc::capture_source::borrow(k.file, "k"), o, {door::python});
  ASSERT_TRUE(cap) << cap.error_value().describe();
}

// A missing file is bad input naming the path, not a usage error.
TEST(PipelineMali, AMissingFileNamesItsPath) {
  auto src = hwpc::capture_source::map("/nonexistent/c.hwpcmali");
  ASSERT_FALSE(src);
  EXPECT_FALSE(hwpc::is_usage(src.error_value()));
  EXPECT_NE(src.error_value().message.find("/nonexistent/c.hwpcmali"), std::string::npos);
}

// write() with the writer a door names: the CSV's header and one line per
// sample; a summary's derived counters computed from the totals; the HTML
// report's facts from writer_parts.
TEST(PipelineMali, WritesThroughTheWriterTheChoiceNames) {
  const mali::emulation e = emulate(*gpu("Mali-G72"), false, 3);
  mali::open_options o;
  o.bus_width_bits = 128;
  auto cap = mali::open_capture(hwpc::capture_source::own(e.file, "c.hwpcmali"), o, {door::tool});
  ASSERT_TRUE(cap) << cap.error_value().describe();

  hwpc::output::text_buffer csv;
  ASSERT_TRUE((*cap)->write({hwpc::output::output_choice{}}, csv));
  const std::string text = csv.str();
  EXPECT_EQ(text.rfind("report,offset,timestamp,", 0), 0u) << text.substr(0, 200);
  std::size_t lines = 0;
  for (const char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 4u) << "a header and a line per sample";

  hwpc::output::text_buffer summary;
  const hwpc::output::output_choice totals{hwpc::output::writer_kind::csv, true};
  ASSERT_TRUE((*cap)->write({totals}, summary));
  // The G72 guide's first derived counter names a column of the summary too.
  const std::string& first_metric = (*cap)->schema().metrics.at(0).name;
  EXPECT_NE(summary.str().find(first_metric), std::string::npos) << summary.str();

  const hwpc::output::writer_parts html =
      (*cap)->writer_parts({hwpc::output::writer_kind::html, false});
  EXPECT_EQ(html.report.title, "hwpc report: c.hwpcmali");
  bool gpu_fact = false, format_fact = false;
  for (const auto& f : html.report.facts) {
    gpu_fact |= f.name == "GPU" && f.value.rfind("Mali-G72 (", 0) == 0;
    format_fact |= f.name == "format" && f.value == "vinstr samples";
  }
  EXPECT_TRUE(gpu_fact);
  EXPECT_TRUE(format_fact);
  EXPECT_EQ(html.report.metric_group, "Mali-G72 counter guide");
  const hwpc::output::writer_parts trace =
      (*cap)->writer_parts({hwpc::output::writer_kind::perfetto, false});
  EXPECT_EQ(trace.vendor, "Arm");
  EXPECT_EQ(trace.model, "Mali-G72");
  EXPECT_TRUE(trace.tracks.has_value());
}

}  // namespace
