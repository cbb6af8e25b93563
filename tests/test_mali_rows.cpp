// Mali samples as rows (hwpc/mali/rows.hpp), library only: emulated captures
// of both readers become one row per sample equal to the emulator's truth
// (report, offset, time, every counter, derived counters); the CSV row is the
// truth row, the JSON parses (a small strict parser here, hostile names
// included) to the same values, and the summary's totals are the sums of the
// rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/json.hpp"
#include "hwpc/output/summary.hpp"
#include "mali_test_util.hpp"

namespace {

using namespace hwpc;

// A strict JSON reader for what the writers print: objects, arrays, strings
// (with escapes), numbers, true/false/null. A syntax error fails the test.
struct jvalue {
  enum kind { null, boolean, number, string, array, object } k = null;
  std::string text;  // number text or string value
  std::string key;   // a member's key, in its object's `members`
  std::vector<jvalue> items;
  std::vector<jvalue> members;  // in order; a pair<string, jvalue> would name an incomplete type
  const jvalue& operator[](const std::string& name) const {
    for (const jvalue& v : members) {
      if (v.key == name) return v;
    }
    ADD_FAILURE() << "no key " << name;
    static const jvalue none;
    return none;
  }
};

class jparser {
 public:
  explicit jparser(const std::string& s) : s_(s) {}
  jvalue document() {
    jvalue v = value();
    ws();
    EXPECT_EQ(i_, s_.size()) << "trailing text at " << i_;
    return v;
  }

 private:
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  std::string str() {
    EXPECT_TRUE(eat('"')) << "string expected at " << i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      const char c = s_[i_++];
      EXPECT_GE(static_cast<unsigned char>(c), 0x20u) << "raw control character at " << i_;
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = s_.at(i_++);
      const std::string plain = "\"\\/bfnrt", meant = "\"\\/\b\f\n\r\t";
      if (e == 'u') {
        out += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16));  // ASCII here
        i_ += 4;
      } else {
        const auto at = plain.find(e);
        EXPECT_NE(at, std::string::npos) << "bad escape at " << i_;
        if (at != std::string::npos) out += meant[at];
      }
    }
    ++i_;
    return out;
  }
  jvalue value() {
    ws();
    jvalue v;
    if (i_ >= s_.size()) {
      ADD_FAILURE() << "value expected at end";
      return v;
    }
    const char c = s_[i_];
    if (c == '{') {
      v.k = jvalue::object;
      ++i_;
      if (eat('}')) return v;
      do {
        std::string key = str();
        EXPECT_TRUE(eat(':')) << "':' expected at " << i_;
        v.members.push_back(value());
        v.members.back().key = std::move(key);
      } while (eat(','));
      EXPECT_TRUE(eat('}')) << "'}' expected at " << i_;
    } else if (c == '[') {
      v.k = jvalue::array;
      ++i_;
      if (eat(']')) return v;
      do v.items.push_back(value());
      while (eat(','));
      EXPECT_TRUE(eat(']')) << "']' expected at " << i_;
    } else if (c == '"') {
      v.k = jvalue::string;
      v.text = str();
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else if (s_.compare(i_, 4, "true") == 0 || s_.compare(i_, 5, "false") == 0) {
      v.k = jvalue::boolean;
      i_ += c == 't' ? 4 : 5;
    } else {
      v.k = jvalue::number;
      const std::size_t from = i_;
      while (i_ < s_.size() &&
             std::string_view("+-.eE0123456789").find(s_[i_]) != std::string::npos)
        ++i_;
      v.text = s_.substr(from, i_ - from);
      EXPECT_FALSE(v.text.empty()) << "value expected at " << from;
      if (v.text.empty()) ++i_;
    }
    return v;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

struct decoded {
  row_schema schema;
  std::vector<row> rows;  // spans point into `counters` and `metrics`
  std::vector<std::vector<std::uint64_t>> counters;
  std::vector<std::vector<cell>> metrics;
  std::vector<std::string> reasons;
  accounting acc;
};

struct emu_case {
  const char* gpu;
  bool kinstr;
};

// Emulates, then decodes through the library: header, reader, row builder.
decoded decode(const mali::gpu_product& gpu, const mali::emulation& e, const mali::evaluator* ev) {
  decoded d;
  auto h = mali::capture_header::parse(e.file);
  EXPECT_TRUE(h.has_value());
  const auto payload = h->payload(e.file);
  mali::row_builder b(gpu, ev, true);
  d.schema = b.schema();
  auto keep = [&](const row& r) {
    d.rows.push_back(r);
    d.counters.emplace_back(r.counters.begin(), r.counters.end());
    d.metrics.emplace_back(r.metrics.begin(), r.metrics.end());
    d.reasons.emplace_back(r.reason);
  };
  result<accounting> acc = accounting{};
  if (h->reader == mali::reader_kind::vinstr) {
    auto cap = mali::vinstr_capture::make(*gpu.table, h->layout, payload,
                                          mali::capture_header_bytes, true);
    EXPECT_TRUE(cap.has_value());
    acc = mali::for_each_row(*cap, b, keep);
  } else {
    auto rd = mali::kinstr_reader::make(*gpu.table, h->layout, payload, mali::capture_header_bytes);
    EXPECT_TRUE(rd.has_value());
    acc = mali::for_each_row(*rd, b, keep);
  }
  EXPECT_TRUE(acc.has_value()) << (acc ? "" : acc.error_value().describe());
  if (acc) d.acc = *acc;
  for (std::size_t k = 0; k < d.rows.size(); ++k) {
    d.rows[k].counters = d.counters[k];
    d.rows[k].metrics = d.metrics[k];
    d.rows[k].reason = d.reasons[k];
  }
  return d;
}

mali::emulation emulate(const mali::gpu_product& gpu, bool kinstr, std::size_t samples) {
  mali::emulate_options o;
  o.gpu_id = mali::gpu_id_of_product(gpu.product_id);
  o.csf = mali::is_csf_product(gpu.product_id);
  o.values_per_block = gpu.table->values_per_block;
  o.kinstr = kinstr;
  o.l2_slices = 2;
  o.core_mask = 0x2d;  // cores 0, 2, 3, 5
  o.samples = samples;
  o.seed = 11;
  o.period_ns = 250'000;
  return mali::emulate(o);
}

const mali::gpu_product& gpu_named(const char* name) {
  auto g = mali::find_gpu(name);
  EXPECT_TRUE(g.has_value()) << name;
  return **g;
}

TEST(MaliRows, EverySampleIsOneRowEqualToTheEmulatorsTruth) {
  for (const emu_case c : {emu_case{"mali-g72", false}, emu_case{"G57", false},
                           emu_case{"g710", true}, emu_case{"immortalis-g925", true}}) {
    const mali::gpu_product& gpu = gpu_named(c.gpu);
    const mali::emulation e = emulate(gpu, c.kinstr, 5);
    const decoded d = decode(gpu, e, nullptr);
    ASSERT_EQ(d.rows.size(), 5u) << c.gpu;
    EXPECT_TRUE(d.acc.balanced());
    EXPECT_EQ(d.acc.reports, 5u);
    EXPECT_EQ(d.acc.intervals, 5u);
    EXPECT_FALSE(d.acc.anything_dropped());
    EXPECT_EQ(d.schema.clock, clock_kind::cpu_ns);
    EXPECT_EQ(d.schema.ticks_per_second, 1'000'000'000u);
    ASSERT_EQ(d.schema.counters.size(), gpu.table->counters.size());
    EXPECT_TRUE(d.schema.metrics.empty());
    // vinstr records: 32 metadata bytes, then 10 blocks of 64 u32 (front-end,
    // tiler, 2 L2 slices, cores 0..5 with gaps at 1 and 4).
    const std::size_t vinstr_record = 32 + 10 * 256;
    for (std::size_t k = 0; k < 5; ++k) {
      const row& r = d.rows[k];
      EXPECT_EQ(r.report, k);
      if (c.kinstr) {
        // The offset names the SAMPLE item (type 0x2000) in the file.
        ASSERT_LT(r.offset + 2, e.file.size());
        EXPECT_EQ(load_le16(e.file.data() + r.offset), 0x2000u) << c.gpu << " " << k;
        EXPECT_EQ(r.begin, e.end_ns[k] - 250'000);
        EXPECT_EQ(r.reason, "");
      } else {
        EXPECT_EQ(r.offset, mali::capture_header_bytes + k * vinstr_record);
        EXPECT_EQ(r.begin, k == 0 ? e.end_ns[0] : e.end_ns[k - 1]);
        EXPECT_EQ(r.reason, "periodic");
      }
      EXPECT_EQ(r.end, e.end_ns[k]);
      EXPECT_FALSE(r.lost);
      EXPECT_FALSE(r.has_context);
      ASSERT_EQ(r.counters.size(), gpu.table->counters.size());
      for (std::size_t i = 0; i < r.counters.size(); ++i) {
        // Columns are scaled by the counter's shift (FACTS-mali section 6).
        const auto& hc = gpu.table->counters[i];
        ASSERT_EQ(r.counters[i], mali::scale_counter(e.truth[k][hc.id], hc.shift))
            << c.gpu << " sample " << k << " " << gpu.table->counters[i].name;
      }
    }
  }
}

// The value of metric `name` in `r`, as a double; fails when the schema lacks it.
double metric_value(const decoded& d, const row& r, std::string_view name) {
  for (std::size_t j = 0; j < d.schema.metrics.size(); ++j) {
    if (d.schema.metrics[j].name == name) {
      EXPECT_FALSE(r.metrics[j].is_none()) << name;
      return r.metrics[j].as_double();
    }
  }
  ADD_FAILURE() << "no metric " << name;
  return -1;
}

// Arm's derived counters for the Mali-G78, computed here by hand from the
// emulator's truth, never through the evaluator: each formula as Arm's counter
// database writes it for the G78 (Mali-CounterInfo-*.xml, the <Equation> whose
// <SupportedGPUs> lists Mali-G78), each machine name resolved by hand through
// its <SourceName> to a hardware counter and through hardwarelayout/Mali-G78.xml
// to a block and index. Infix + - * / and max() are double operations
// (docs/expressions.md); the configuration: 2 L2 slices, cores 0, 2, 3, 5, a
// 128-bit external bus.
TEST(MaliRows, DerivedCountersEqualArmsFormulasComputedByHand) {
  using mali::block_type;
  const mali::gpu_product& gpu = gpu_named("G78");
  const mali::emulation e = emulate(gpu, false, 3);
  auto ev = mali::evaluator::database(*gpu.table, {.l2_slices = 2, .core_mask = 0x2d}, 128);
  ASSERT_TRUE(ev.has_value()) << ev.error_value().describe();
  const decoded d = decode(gpu, e, &*ev);
  ASSERT_EQ(d.schema.metrics.size(), ev->size());
  ASSERT_GT(ev->size(), 10u);
  EXPECT_EQ(d.schema.metrics[0].kind, column_kind::metric);
  ASSERT_EQ(d.rows.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const mali::block_sums& t = e.truth[k];
    const row& r = d.rows[k];
    ASSERT_EQ(r.metrics.size(), d.schema.metrics.size());
    // Every counter read here has no shift on the G78 (no shift= attribute).
    auto fe = [&](std::size_t i) { return double(t.at(block_type::front_end, i)); };
    auto tiler = [&](std::size_t i) { return double(t.at(block_type::tiler, i)); };
    auto l2 = [&](std::size_t i) { return double(t.at(block_type::memory, i)); };
    auto core = [&](std::size_t i) { return double(t.at(block_type::shader_core, i)); };
    const double gpu_active = fe(6);     // MaliGPUActiveCy: GPU_ACTIVE
    const double irq_active = fe(7);     // MaliGPUIRQActiveCy: IRQ_ACTIVE
    const double js0_active = fe(10);    // MaliFragQueueActiveCy: JS0_ACTIVE
    const double visible = tiler(11);    // MaliGeomVisiblePrim: PRIM_VISIBLE
    const double culled = tiler(12);     // MaliGeomFaceXYPlaneCullPrim: PRIM_CULLED
    const double clipped = tiler(13);    // MaliGeomZPlaneCullPrim: PRIM_CLIPPED
    const double sat = tiler(14);        // MaliGeomSampleCullPrim: PRIM_SAT_CULLED
    const double rd_lookup = l2(26);     // MaliL2CacheRdLookup: L2_READ_LOOKUP
    const double ext_rd = l2(29);        // MaliExtBusRd: L2_EXT_READ
    const double ext_rd_bt = l2(32);     // MaliExtBusRdBt: L2_EXT_READ_BEATS
    const double ext_ar_stall = l2(33);  // MaliExtBusRdStallCy: L2_EXT_AR_STALL
    const double fma = core(27);         // MaliEngFMAInstr: EXEC_INSTR_FMA
    const double cvt = core(28);         // MaliEngCVTInstr: EXEC_INSTR_CVT
    const double sfu = core(29);         // MaliEngSFUInstr: EXEC_INSTR_SFU
    const double lsc_bt = core(56);      // MaliSCBusLSL2RdBt: BEATS_RD_LSC
    // The inputs are not degenerate: every division below has a divisor.
    for (double v : {gpu_active, rd_lookup, visible + culled + clipped + sat}) ASSERT_GT(v, 0);
    const double total_cull = culled + clipped + sat;
    const double total_prim = total_cull + visible;
    const std::pair<std::string_view, double> want[] = {
        {"MaliConfigCoreCount", 4},        // MALI_CONFIG_SHADER_CORE_COUNT: 0x2d has 4 bits
        {"MaliConfigL2CacheCount", 2},     // MALI_CONFIG_L2_CACHE_COUNT
        {"MaliConfigExtBusBeatSize", 16},  // MALI_CONFIG_EXT_BUS_BYTE_SIZE: 128 bits
        {"MaliFragQueueTaskSize", 32},     // 32
        {"MaliTexCyPerSample", 0.25},      // 0.25
        {"MaliGPUIRQUtil", (irq_active / gpu_active) * 100},
        {"MaliFragQueueUtil", (js0_active / gpu_active) * 100},
        {"MaliL2CacheRdMissRate", (ext_rd / rd_lookup) * 100},
        {"MaliExtBusRdBy", ext_rd_bt * 16},  // MaliExtBusRdBt * MaliConfigExtBusBeatSize
        {"MaliExtBusRdStallRate", (ext_ar_stall / 2 / gpu_active) * 100},
        {"MaliGeomTotalCullPrim", total_cull},  // FaceXYPlane + ZPlane + Sample
        {"MaliGeomTotalPrim", total_prim},      // MaliGeomTotalCullPrim + MaliGeomVisiblePrim
        {"MaliGeomVisibleRate", (visible / total_prim) * 100},
        {"MaliEngArithInstr", fma + cvt + sfu},
        {"MaliALUIssueCy", std::max({fma, cvt, sfu * 4})},
        {"MaliSCBusLSL2RdBy", lsc_bt * 16},  // MaliSCBusLSL2RdBt * MaliSCBusBeatSize (16)
    };
    for (const auto& [name, value] : want) {
      EXPECT_DOUBLE_EQ(metric_value(d, r, name), value) << name << " sample " << k;
    }
    // Bare integer constants stay integers (docs/expressions.md: an integer literal is a u64).
    for (std::size_t j = 0; j < d.schema.metrics.size(); ++j) {
      if (d.schema.metrics[j].name == "MaliConfigCoreCount") {
        EXPECT_EQ(r.metrics[j], cell::u(4));
      }
      if (d.schema.metrics[j].name == "MaliTexCyPerSample") {
        EXPECT_EQ(r.metrics[j], cell::f(0.25));
      }
    }
  }
  // The sample's time span is per sample, so formulas that read it are left out
  // (docs/mali.md), and so is every formula reading one of those.
  for (const auto& m : d.schema.metrics) {
    EXPECT_NE(m.name, "MaliExtBusRdBPS");
    EXPECT_NE(m.name, "MaliExtBusWrBPS");
  }
}

std::vector<std::vector<std::string>> csv_lines(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string c;
    std::istringstream ls(line);
    while (std::getline(ls, c, ',')) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    out.push_back(cells);
  }
  return out;
}

TEST(MaliRows, CsvRowIsTheTruthRowAndSummaryTotalsAreTheRowSums) {
  const mali::gpu_product& gpu = gpu_named("g720");
  const mali::emulation e = emulate(gpu, true, 4);
  const decoded d = decode(gpu, e, nullptr);
  output::text_buffer out;
  {
    output::csv_writer w(out, d.schema);
    for (const row& r : d.rows) w.write(r);
    w.end(d.acc);
  }
  const auto lines = csv_lines(out.str());
  ASSERT_EQ(lines.size(), 5u);
  const auto& head = lines[0];
  const std::size_t n = gpu.table->counters.size();
  ASSERT_EQ(head.size(), 3 + n + 2) << "report,offset,timestamp,counters,reason,ctx_id";
  EXPECT_EQ(head[0], "report");
  EXPECT_EQ(head[1], "offset");
  EXPECT_EQ(head[2], "timestamp");
  EXPECT_EQ(head[3 + n], "reason");
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& cells = lines[k + 1];
    ASSERT_EQ(cells.size(), head.size());
    EXPECT_EQ(cells[0], std::to_string(k));
    EXPECT_EQ(cells[2], std::to_string(e.end_ns[k]));
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(head[3 + i], gpu.table->counters[i].name);
      const auto& hc = gpu.table->counters[i];  // scaled by its shift (FRAG_SHADER_THREADS x4)
      ASSERT_EQ(cells[3 + i], std::to_string(mali::scale_counter(e.truth[k][hc.id], hc.shift)))
          << "sample " << k << " " << head[3 + i];
    }
  }

  // The summary: every total is the sum of the rows; the elapsed time is four periods.
  output::text_buffer sum_out;
  output::summary_writer s(sum_out, d.schema, false);
  for (const row& r : d.rows) s.write(r);
  s.end(d.acc);
  const auto& t = s.result();
  EXPECT_EQ(t.intervals, 4u);
  EXPECT_EQ(t.reports, 4u);
  EXPECT_EQ(t.elapsed, 4u * 250'000u);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t want = 0;
    const auto& hc = gpu.table->counters[i];
    for (std::size_t k = 0; k < 4; ++k) want += mali::scale_counter(e.truth[k][hc.id], hc.shift);
    ASSERT_EQ(t.counters[i], want) << gpu.table->counters[i].name;
  }
  const auto sl = csv_lines(sum_out.str());
  ASSERT_EQ(sl.size(), 2u);
  EXPECT_EQ(sl[1][2], std::to_string(t.counters[0]));
}

TEST(MaliRows, SummaryMetricsAreTheFormulasOverTheTotals) {
  const mali::gpu_product& gpu = gpu_named("mali-g72");
  const mali::emulation e = emulate(gpu, false, 3);
  const mali::sample_layout layout{.l2_slices = 2, .core_mask = 0x2d};
  auto ev = mali::evaluator::create(*gpu.table, mali::g72_metric_set(),
                                    mali::g72_streamline_counters, layout, 128);
  ASSERT_TRUE(ev.has_value());
  const decoded d = decode(gpu, e, &*ev);
  mali::row_builder b(gpu, &*ev, true);
  std::vector<std::uint64_t> totals(d.schema.counters.size());
  mali::block_sums all;
  for (std::size_t k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < totals.size(); ++i) totals[i] += d.rows[k].counters[i];
    for (std::size_t t = 0; t < all.values.size(); ++t) {
      for (std::size_t i = 0; i < all.values[t].size(); ++i)
        all.values[t][i] += e.truth[k].values[t][i];
    }
  }
  std::vector<cell> got;
  ASSERT_TRUE(b.metrics_of(totals, got).has_value());
  std::vector<expr::value> want(ev->size());
  ASSERT_TRUE(ev->evaluate(all, want).has_value());
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t j = 0; j < want.size(); ++j) {
    EXPECT_DOUBLE_EQ(got[j].as_double(), want[j].as_double()) << d.schema.metrics[j].name;
  }
}

TEST(MaliRows, JsonParsesWithEveryNameEscaped) {
  const mali::gpu_product& gpu = gpu_named("g710");
  const mali::emulation e = emulate(gpu, true, 2);
  decoded d = decode(gpu, e, nullptr);
  // Hostile names: a quote, a backslash, a newline, a control character.
  d.schema.counters[0].name = "GPU\"ACTIVE\\\n\x01";
  output::text_buffer out;
  {
    output::json_writer w(out, d.schema);
    for (const row& r : d.rows) w.write(r);
    w.end(d.acc);
  }
  const jvalue doc = jparser(out.str()).document();
  ASSERT_EQ(doc.k, jvalue::array);
  ASSERT_EQ(doc.items.size(), 2u) << "no accounting trailer: nothing dropped";
  for (std::size_t k = 0; k < 2; ++k) {
    const jvalue& o = doc.items[k];
    ASSERT_EQ(o.k, jvalue::object);
    EXPECT_EQ(o["report"].text, std::to_string(k));
    EXPECT_EQ(o["offset"].text, std::to_string(d.rows[k].offset));
    EXPECT_EQ(o["timestamp"].text, std::to_string(e.end_ns[k]));
    EXPECT_EQ(o["reason"].k, jvalue::string);
    EXPECT_EQ(o["ctx_id"].k, jvalue::null);
    ASSERT_EQ(o.members.size(), 3 + gpu.table->counters.size() + 2);
    EXPECT_EQ(o.members[3].key, d.schema.counters[0].name);
    for (std::size_t i = 0; i < gpu.table->counters.size(); ++i) {
      ASSERT_EQ(o[d.schema.counters[i].name].text,
                std::to_string(e.truth[k][gpu.table->counters[i].id]));
    }
  }
}

// A kinstr_prfcnt buffer cut inside its third sample: two rows, then an error
// naming a byte offset of the file past the second sample.
TEST(MaliRows, AMalformedSampleEndsTheRowsWithItsOffset) {
  const mali::gpu_product& gpu = gpu_named("g710");
  const mali::emulation e = emulate(gpu, true, 3);
  const decoded whole = decode(gpu, e, nullptr);
  ASSERT_EQ(whole.rows.size(), 3u);
  const std::size_t cut = whole.rows[2].offset + 100;
  auto h = mali::capture_header::parse(e.file);
  ASSERT_TRUE(h.has_value());
  const auto payload = h->payload(std::span(e.file).first(cut));
  auto rd = mali::kinstr_reader::make(*gpu.table, h->layout, payload, mali::capture_header_bytes);
  ASSERT_TRUE(rd.has_value());
  mali::row_builder b(gpu, nullptr, true);
  std::vector<std::uint64_t> reports;
  const auto acc = mali::for_each_row(*rd, b, [&](const row& r) { reports.push_back(r.report); });
  EXPECT_EQ(reports, (std::vector<std::uint64_t>{0, 1}));
  ASSERT_FALSE(acc.has_value());
  EXPECT_GE(acc.error_value().offset, whole.rows[2].offset) << acc.error_value().describe();
  EXPECT_NE(acc.error_value().describe().find("byte offset"), std::string::npos);
}

// kinstr_prfcnt numbers its samples (SAMPLE seq). Sequence 4, 5, 9, 10, 12:
// two gaps, each a lost row before the sample after it (same report and
// offset), counted in `gaps`; the accounting balances. Without losses in
// the schema the gaps are counted but make no row.
TEST(MaliRows, KinstrSequenceGapsAreLostRows) {
  const mali::gpu_product& gpu = gpu_named("g720");
  mali_test::kinstr_buffer buf(128);
  const std::uint64_t seqs[] = {4, 5, 9, 10, 12};
  for (std::uint64_t q : seqs) {
    mali_test::kinstr_sample_spec s;
    s.ts_start = 1000 * q;
    s.ts_end = 1000 * q + 500;
    s.seq = q;
    std::vector<std::uint64_t> fe(128);
    fe[4] = q;  // G720 front-end 4: GPU_ACTIVE
    s.blocks = {{0, 0, 0, 0x15, fe}, {3, 0, 0, 0x15, {}}};
    buf.add(s);
  }
  const mali::sample_layout layout{.l2_slices = 1, .core_mask = 1};
  for (const bool losses : {true, false}) {
    auto rd = mali::kinstr_reader::make(*gpu.table, layout, buf.bytes);
    ASSERT_TRUE(rd.has_value()) << rd.error_value().describe();
    mali::row_builder b(gpu, nullptr, mali::row_options{true, losses, std::nullopt});
    EXPECT_EQ(b.schema().has_losses, losses);
    std::vector<std::uint64_t> reports, offsets;
    std::vector<bool> lost;
    std::vector<std::string> reasons;
    auto acc = mali::for_each_row(*rd, b, [&](const row& r) {
      reports.push_back(r.report);
      offsets.push_back(r.offset);
      lost.push_back(r.lost);
      reasons.emplace_back(r.reason);
      if (r.lost) {
        EXPECT_TRUE(r.counters.empty());
      }
    });
    ASSERT_TRUE(acc.has_value()) << acc.error_value().describe();
    EXPECT_EQ(acc->gaps, 2u);
    EXPECT_EQ(acc->reports, 5u);
    EXPECT_EQ(acc->intervals, 5u);
    EXPECT_EQ(acc->records, 7u);
    EXPECT_TRUE(acc->balanced());
    if (!losses) {
      EXPECT_EQ(reports, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
      continue;
    }
    EXPECT_EQ(reports, (std::vector<std::uint64_t>{0, 1, 2, 2, 3, 4, 4}));
    EXPECT_EQ(lost, (std::vector<bool>{false, false, true, false, false, true, false}));
    EXPECT_EQ(reasons[2], "sequence-gap");
    EXPECT_EQ(reasons[5], "sequence-gap");
    EXPECT_EQ(offsets[2], buf.sample_offsets[2]);
    EXPECT_EQ(offsets[3], buf.sample_offsets[2]);
    EXPECT_EQ(offsets[5], buf.sample_offsets[4]);
  }
}

// --per-instance: after the sums, each L2 slice's and shader core's counters,
// named by instance (cores by their core-mask bit), holding that instance's
// values; a protected core's are 0, as it is not summed either.
TEST(MaliRows, PerInstanceColumnsHoldEachCoresValues) {
  const mali::gpu_product& gpu = gpu_named("g720");
  // The table's first memory counter and last shader-core counter.
  const mali::hw_counter *mem = nullptr, *core = nullptr;
  std::size_t multi = 0;  // counters of blocks with several instances
  for (const auto& c : gpu.table->counters) {
    if (c.id.block == mali::block_type::memory && mem == nullptr) mem = &c;
    if (c.id.block == mali::block_type::shader_core) core = &c;
    if (c.id.block == mali::block_type::memory || c.id.block == mali::block_type::shader_core) {
      ++multi;
    }
  }
  ASSERT_NE(mem, nullptr);
  ASSERT_NE(core, nullptr);
  mali_test::kinstr_buffer buf(128);
  mali_test::kinstr_sample_spec s;
  s.ts_end = 10;
  s.seq = 1;
  std::vector<std::uint64_t> c0(128), c1(128), m0(128), m1(128);
  c0[core->id.index] = 11;
  c1[core->id.index] = 22;
  m0[mem->id.index] = 3;
  m1[mem->id.index] = 4;
  // Cores of mask 0b1010 (bits 1 and 3) in dense numbering 0 and 1; two L2 slices.
  s.blocks = {{0, 0, 0, 0x15, {}}, {1, 0, 0, 0x15, {}}, {2, 0, 0, 0x15, m0},
              {2, 1, 0, 0x15, m1}, {3, 0, 0, 0x15, c0}, {3, 1, 0, 0x15, c1}};
  buf.add(s);
  const mali::sample_layout layout{.l2_slices = 2, .core_mask = 0b1010};
  auto rd = mali::kinstr_reader::make(*gpu.table, layout, buf.bytes);
  ASSERT_TRUE(rd.has_value()) << rd.error_value().describe();
  mali::row_builder b(gpu, nullptr, mali::row_options{true, true, layout});
  const row_schema& sc = b.schema();
  EXPECT_EQ(sc.counters.size(), gpu.table->counters.size() + 2 * multi);
  std::map<std::string, std::uint64_t> got;
  auto acc = mali::for_each_row(*rd, b, [&](const row& r) {
    for (std::size_t i = 0; i < r.counters.size(); ++i) got[sc.counters[i].name] = r.counters[i];
  });
  ASSERT_TRUE(acc.has_value());
  const std::string cn(core->name), mn(mem->name);
  EXPECT_EQ(got.at(cn), 33u);
  EXPECT_EQ(got.at("core1." + cn), 11u);
  EXPECT_EQ(got.at("core3." + cn), 22u);
  EXPECT_EQ(got.count("core0." + cn), 0u);
  EXPECT_EQ(got.at(mn), 7u);
  EXPECT_EQ(got.at("l2slice0." + mn), 3u);
  EXPECT_EQ(got.at("l2slice1." + mn), 4u);
}

}  // namespace
