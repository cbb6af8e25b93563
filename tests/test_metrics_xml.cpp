// Metric sets: the whole Intel corpus compiles, real SKL GT2 metrics evaluate
// to hand-computed values, dependency order and cycles, binding, batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "hwpc/expr.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/xml_loader.hpp"
#include "xorshift.hpp"

namespace {

using hwpc::errc;
using hwpc::expr::value;
namespace hm = hwpc::metrics;

const std::filesystem::path metrics_dir =
    std::filesystem::path(HWPC_SHARED_DIR) / "data" / "intel-metrics";

hm::metric_set hand_set(std::vector<std::pair<std::string, std::string>> equations,
                        hwpc::expr::syntax syn = hwpc::expr::syntax::rpn) {
  hm::metric_set s;
  s.symbol_name = "Test";
  s.syntax = syn;
  for (auto& [name, eq] : equations) {
    hm::metric m;
    m.symbol_name = name;
    m.equation = eq;
    s.metrics.push_back(m);
  }
  return s;
}

TEST(MetricSet, ReferencesCompileInDependencyOrder) {
  // B is used before it is defined; both share A's node.
  auto set = hand_set({{"Sum", "$B $A UADD"}, {"A", "A 0 READ 2 UMUL"}, {"B", "$A 1 UADD"}});
  auto c = hm::compile(set);
  ASSERT_TRUE(c) << c.error_value().describe();
  EXPECT_EQ(c->counters(), std::vector<std::string>{"A0"});
  std::size_t umul = 0;
  for (const auto& n : c->ir().nodes) umul += n.code == hwpc::expr::op::umul;
  EXPECT_EQ(umul, 1u) << "A's formula is compiled once and shared";
  auto b = c->bind({});
  ASSERT_TRUE(b);
  std::vector<value> out(3);
  const std::uint64_t raw[] = {5};
  ASSERT_TRUE(b->evaluate(raw, out));
  EXPECT_EQ(out[0], value::u(21));  // (10 + 1) + 10
  EXPECT_EQ(out[1], value::u(10));
  EXPECT_EQ(out[2], value::u(11));
}

TEST(MetricSet, CyclesAreErrorsNamingTheCycle) {
  auto set = hand_set({{"X", "$Y 1 UADD"}, {"Y", "2 $Z UMUL"}, {"Z", "A 0 READ $X UADD"}});
  auto c = hm::compile(set);
  ASSERT_FALSE(c);
  const auto& e = c.error_value();
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.anchor, hwpc::error_anchor::column);
  EXPECT_EQ(e.offset, 10u) << "at $X in Z's equation";
  EXPECT_NE(e.message.find("dependency cycle: X -> Y -> Z -> X"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("metric Z, equation"), std::string::npos) << e.message;
  auto self = hm::compile(hand_set({{"S", "$S 1 UADD"}}));
  ASSERT_FALSE(self);
  EXPECT_NE(self.error_value().message.find("dependency cycle: S -> S"), std::string::npos);
}

TEST(MetricSet, ErrorsNameTheSetMetricAndFormula) {
  auto set = hand_set({{"Ok", "A 0 READ"}, {"Bad", "$Ok $NoSuchVariable UDIV"}});
  hm::compile_options strict;
  strict.drop_metrics_with_unknown_names = false;
  auto c = hm::compile(set, strict);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error_value().code, errc::unknown_name);
  EXPECT_EQ(c.error_value().offset, 5u);
  EXPECT_NE(c.error_value().message.find("set Test, metric Bad, equation: '$NoSuchVariable'"),
            std::string::npos)
      << c.error_value().message;
  // By default the metric is dropped with that error and the rest compiles.
  auto d = hm::compile(set);
  ASSERT_TRUE(d) << d.error_value().describe();
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ(d->definition().metrics[0].symbol_name, "Ok");
  ASSERT_EQ(d->dropped().size(), 1u);
  EXPECT_EQ(d->dropped()[0].symbol_name, "Bad");
  EXPECT_EQ(d->dropped()[0].reason.offset, 5u);
  EXPECT_EQ(d->dropped()[0].reason.message, c.error_value().message);
  // An error inside a referenced metric is reported where it is.
  auto nested = hm::compile(hand_set({{"Outer", "$Inner 2 UMUL"}, {"Inner", "1 UADD"}}));
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error_value().message.find("metric Inner, equation"), std::string::npos);
  EXPECT_EQ(nested.error_value().offset, 3u);
}

TEST(MetricSet, UnknownNameDropsTheMetricsThatUseItNotTheSet) {
  // Uses refers to Missing (unknown $Nope at column 10); Uses is dropped too,
  // at the column of its reference; Fine and Later still compile and run.
  auto set = hand_set({{"Fine", "A 0 READ"},
                       {"Uses", "A 1 READ $Missing UADD"},
                       {"Missing", "A 2 READ $Nope UADD"},
                       {"Later", "$Fine 2 UMUL"}});
  auto c = hm::compile(set);
  ASSERT_TRUE(c) << c.error_value().describe();
  ASSERT_EQ(c->dropped().size(), 2u);
  EXPECT_EQ(c->dropped()[0].symbol_name, "Missing");
  EXPECT_EQ(c->dropped()[0].reason.offset, 10u);
  EXPECT_EQ(c->dropped()[1].symbol_name, "Uses");
  EXPECT_EQ(c->dropped()[1].reason.code, errc::unknown_name);
  EXPECT_EQ(c->dropped()[1].reason.offset, 10u);
  EXPECT_NE(c->dropped()[1].reason.message.find("refers to metric Missing, which is dropped"),
            std::string::npos)
      << c->dropped()[1].reason.message;
  auto b = c->bind({});
  ASSERT_TRUE(b) << b.error_value().describe();
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[1].symbol_name, "Later");
  EXPECT_EQ(b->dropped().size(), 2u);
  const std::uint64_t raw[] = {21};
  std::vector<value> out(2);
  ASSERT_TRUE(b->evaluate(raw, out));
  EXPECT_EQ(out[0], value::u(21));
  EXPECT_EQ(out[1], value::u(42));
  EXPECT_EQ(
      hm::describe(c->dropped()[0]).rfind("metric Missing dropped: unknown name at column 10: ", 0),
      0u);
  // Control bytes from the file are escaped; the caret line break stays.
  hm::dropped_metric odd{"A\x1b[31m", c->dropped()[0].reason};
  const std::string text = hm::describe(odd);
  EXPECT_EQ(text.rfind("metric A\\x1b[31m dropped: ", 0), 0u) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("\n  A 2 READ $Nope UADD\n"), std::string::npos) << text;
  // A name is known once a device variable of that name is declared.
  hm::compile_options with_var;
  with_var.device_variables.push_back("Nope");
  auto all = hm::compile(set, with_var);
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->dropped().empty());
  EXPECT_EQ(all->size(), 4u);
}

TEST(MetricSet, BindNeedsEveryDeviceVariable) {
  auto c = hm::compile(hand_set({{"M", "A 0 READ $EuCoresTotalCount UDIV"}}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->variables(), std::vector<std::string>{"EuCoresTotalCount"});
  auto b = c->bind({});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error_value().code, errc::unknown_name);
  EXPECT_NE(b.error_value().message.find("EuCoresTotalCount"), std::string::npos);
}

TEST(MetricSet, InfixSetsWithNamedCounters) {
  auto set =
      hand_set({{"ReadBytes", "$MaliExternalBusBeatsReadBeats * ($MaliConstantsBusWidthBits / 8)"},
                {"Twice", "ReadBytes * 2"}},
               hwpc::expr::syntax::infix);
  hm::compile_options opt;
  opt.device_variables = {"MaliConstantsBusWidthBits"};
  opt.counter_names = {"MaliExternalBusBeatsReadBeats"};
  opt.raw_counters = false;
  auto c = hm::compile(set, opt);
  ASSERT_TRUE(c) << c.error_value().describe();
  auto b = c->bind({{"MaliConstantsBusWidthBits", value::u(128)}});
  ASSERT_TRUE(b);
  std::vector<value> out(2);
  const std::uint64_t raw[] = {1000};
  ASSERT_TRUE(b->evaluate(raw, out));
  EXPECT_EQ(out[0], value::f(16000.0));
  EXPECT_EQ(out[1], value::f(32000.0));
}

#ifdef HWPC_HAVE_PUGIXML

TEST(MetricsXml, EveryFormulaOfEveryFileCompiles) {
  if (!std::filesystem::exists(metrics_dir)) GTEST_SKIP() << "../shared is absent: " << metrics_dir;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(metrics_dir)) {
    if (e.path().extension() == ".xml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::size_t sets = 0, equations = 0, maxima = 0, availability = 0, register_conditions = 0,
              nodes = 0;
  for (const auto& f : files) {
    auto loaded = hm::load_xml_file(f.string());
    ASSERT_TRUE(loaded) << f << ": " << loaded.error_value().describe();
    for (const auto& set : *loaded) {
      auto c = hm::compile(set);
      ASSERT_TRUE(c) << f << ": " << c.error_value().describe();
      ++sets;
      for (std::size_t i = 0; i < c->size(); ++i) {
        ++equations;
        maxima += c->outputs_of(i).max_equation.has_value();
        availability += c->outputs_of(i).availability.has_value();
      }
      register_conditions += set.register_configs.size();
      nodes += c->ir().nodes.size();
      EXPECT_EQ(
          c->formula_count(), c->size() + [&] {
            std::size_t n = set.register_configs.size();
            for (const auto& m : set.metrics)
              n += !m.max_equation.empty() + !m.availability.empty();
            return n;
          }());
    }
  }
  const std::size_t total = equations + maxima + availability + register_conditions;
  std::printf(
      "Intel metric XML: %zu files, %zu sets, %zu formulas compiled (%zu equations, %zu "
      "max_equations, %zu availability, %zu register_config availability), %zu IR nodes\n",
      files.size(), sets, total, equations, maxima, availability, register_conditions, nodes);
  EXPECT_EQ(files.size(), 18u);
  EXPECT_EQ(sets, 357u);
  EXPECT_EQ(equations, 11276u);
  EXPECT_EQ(total, 17586u);
}

class SklRenderBasic : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto file = metrics_dir / "oa-sklgt2.xml";
    if (!std::filesystem::exists(file)) GTEST_SKIP() << "../shared is absent: " << file;
    auto sets = hm::load_xml_file(file.string());
    ASSERT_TRUE(sets);
    for (auto& s : *sets) {
      if (s.symbol_name == "RenderBasic") set_ = s;
    }
    ASSERT_EQ(set_.symbol_name, "RenderBasic");
    EXPECT_EQ(set_.chipset, "SKLGT2");
    auto c = hm::compile(set_);
    ASSERT_TRUE(c) << c.error_value().describe();
    compiled_ = std::make_unique<hm::compiled_set>(std::move(*c));
  }

  // A GT2 part: 24 EUs in 3 subslices of 1 slice, 12 MHz timestamps.
  hm::device_values device(std::uint64_t subslice_mask = 0x7) const {
    return {{"GpuTimestampFrequency", value::u(12'000'000)},
            {"EuCoresTotalCount", value::u(24)},
            {"EuSubslicesTotalCount", value::u(3)},
            {"EuSlicesTotalCount", value::u(1)},
            {"EuThreadsCount", value::u(7)},
            {"SliceMask", value::u(0x1)},
            {"SubsliceMask", value::u(subslice_mask)},
            {"GpuMinFrequency", value::u(300'000'000)},
            {"GpuMaxFrequency", value::u(1'150'000'000)},
            {"SkuRevisionId", value::u(3)}};
  }

  hm::metric_set set_;
  std::unique_ptr<hm::compiled_set> compiled_;
};

TEST_F(SklRenderBasic, MetadataIsBound) {
  const auto& m = set_.metrics[0];
  EXPECT_EQ(m.symbol_name, "GpuTime");
  EXPECT_EQ(m.name, "GPU Time Elapsed");
  EXPECT_EQ(m.units, "ns");
  EXPECT_EQ(m.type, hm::data_type::uint64);
  EXPECT_EQ(m.semantic, hm::semantic_type::duration);
  ASSERT_EQ(set_.register_configs.size(), 1u);
  EXPECT_EQ(set_.register_configs[0].availability, "$SkuRevisionId 0x02 UGTE");
}

TEST_F(SklRenderBasic, HandComputedValues) {
  auto b = compiled_->bind(device());
  ASSERT_TRUE(b) << b.error_value().describe();
  std::vector<std::uint64_t> raw(b->inputs().size(), 0);
  auto set_raw = [&](const char* name, std::uint64_t v) {
    const auto i = b->input_index(name);
    ASSERT_TRUE(i) << name;
    raw[*i] = v;
  };
  set_raw("GPU_TIME", 12'000);      // timestamp ticks
  set_raw("GPU_CLOCK", 1'000'000);  // GPU_TICKS
  set_raw("A0", 750'000);
  set_raw("A7", 12'000'000);
  set_raw("A8", 2'400'000);
  set_raw("B0", 200'000);
  set_raw("B1", 300'000);
  set_raw("A30", 10);
  set_raw("A31", 20);
  set_raw("A32", 30);
  std::vector<value> out(b->size());
  ASSERT_TRUE(b->evaluate(raw, out));
  auto get = [&](const char* sym) { return out[*b->find(sym)]; };
  // GpuTime = GPU_TIME * 1e9 / 12 MHz = 12000 ticks * 1e9 / 12e6 = 1,000,000 ns (u64).
  EXPECT_EQ(get("GpuTime"), value::u(1'000'000));
  // GpuCoreClocks = GPU_CLOCK = 1,000,000.
  EXPECT_EQ(get("GpuCoreClocks"), value::u(1'000'000));
  // AvgGpuCoreFrequency = clocks * 1e9 / GpuTime = 1e6 * 1e9 / 1e6 = 1e9 Hz.
  EXPECT_EQ(get("AvgGpuCoreFrequency"), value::u(1'000'000'000));
  // GpuBusy = A0 * 100 / clocks (FDIV) = 75,000,000 / 1,000,000 = 75.0 %.
  EXPECT_EQ(get("GpuBusy"), value::f(75.0));
  // EuActive = (A7 / 24 EUs) * 100 / clocks = 500,000 * 100 / 1e6 = 50.0 %.
  EXPECT_EQ(get("EuActive"), value::f(50.0));
  // EuStall = (2,400,000 / 24) * 100 / 1e6 = 10.0 %.
  EXPECT_EQ(get("EuStall"), value::f(10.0));
  // SamplersBusy = FMAX(B0 * 100 / clocks, B1 * 100 / clocks) = max(20, 30) = 30.0 %.
  EXPECT_EQ(get("Sampler0Busy"), value::f(20.0));
  EXPECT_EQ(get("SamplersBusy"), value::f(30.0));
  // L3ShaderThroughput = (A30 + A31 + ShaderMemoryAccesses=A32) * 64 = 60 * 64 = 3840 bytes.
  EXPECT_EQ(get("L3ShaderThroughput"), value::u(3840));
  // max_equation: GpuBusy's is the constant 100; SlmBytesRead's is clocks * 64 * 3 subslices.
  EXPECT_EQ(b->max_value(*b->find("GpuBusy")), value::u(100));
  EXPECT_FALSE(b->max_value(*b->find("SlmBytesRead")).has_value());
  std::vector<std::optional<value>> maxima(b->size());
  ASSERT_TRUE(b->evaluate_max(raw, maxima));
  EXPECT_EQ(maxima[*b->find("SlmBytesRead")], value::u(192'000'000));
  EXPECT_FALSE(maxima[*b->find("GpuTime")].has_value());
  // An idle interval: no clocks, so every FDIV by clocks gives 0 rather than NaN.
  std::fill(raw.begin(), raw.end(), 0);
  ASSERT_TRUE(b->evaluate(raw, out));
  EXPECT_EQ(get("GpuBusy"), value::f(0.0));
  EXPECT_EQ(get("AvgGpuCoreFrequency"), value::u(0));
}

TEST_F(SklRenderBasic, AvailabilityIsDecidedAtBind) {
  // Sampler0Busy needs SubsliceMask & 0x09, Sampler1Busy SubsliceMask & 0x12.
  auto all = compiled_->bind(device(0x7));
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->available(*all->find("Sampler0Busy")));
  EXPECT_TRUE(all->available(*all->find("Sampler1Busy")));
  EXPECT_TRUE(all->available(*all->find("GpuTime")));
  EXPECT_TRUE(all->register_config_applies(0));  // SkuRevisionId 3 >= 2
  auto one = compiled_->bind(device(0x1));
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->available(*one->find("Sampler0Busy")));
  EXPECT_FALSE(one->available(*one->find("Sampler1Busy")));
  // Binding folded every device variable away: only raw counters remain.
  for (const auto& in : all->inputs())
    EXPECT_EQ(in.kind, hwpc::expr::input_kind::counter) << in.name;
}

TEST_F(SklRenderBasic, BatchEqualsScalarOverRandomDeltas) {
  auto b = compiled_->bind(device());
  ASSERT_TRUE(b);
  const std::size_t rows = 777;
  hwpc::testing::xorshift64 g{42};
  auto next = [&] { return g.next(); };
  std::vector<std::vector<std::uint64_t>> in(b->inputs().size(), std::vector<std::uint64_t>(rows));
  for (auto& c : in) {
    for (auto& v : c)
      v = (next() % 3 == 0) ? 0 : next() >> (next() % 64);  // zeros: division by zero
  }
  std::vector<const std::uint64_t*> in_cols;
  for (const auto& c : in) in_cols.push_back(c.data());
  std::vector<std::vector<std::uint64_t>> out(b->size(), std::vector<std::uint64_t>(rows));
  std::vector<std::uint64_t*> out_cols;
  for (auto& c : out) out_cols.push_back(c.data());
  auto ev = b->batch();
  ASSERT_TRUE(ev.evaluate(in_cols, rows, out_cols));
  std::vector<std::uint64_t> raw(in.size());
  std::vector<value> scalar(b->size());
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < in.size(); ++k) raw[k] = in[k][r];
    ASSERT_TRUE(b->evaluate(raw, scalar));
    for (std::size_t m = 0; m < b->size(); ++m) {
      ASSERT_EQ(out[m][r], scalar[m].bits) << (*b)[m].symbol_name << " row " << r;
    }
  }
}

TEST(MetricsXml, MalformedInputIsAnError) {
  auto r = hm::load_xml("<metrics><set symbol_name='S'><counter");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, errc::syntax);
  auto n = hm::load_xml("<other/>");
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error_value().code, errc::unknown_format);
  auto f = hm::load_xml_file("/nonexistent/oa-none.xml");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error_value().code, errc::io);
  auto ok = hm::load_xml(
      "<metrics><set symbol_name='S' oa_format='A32u40_A4u32_B8_C8'>"
      "<counter symbol_name='C' equation='1 2 &amp;&amp;' data_type='float' semantic_type='ratio'/>"
      "</set></metrics>");
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)[0].oa_format, "A32u40_A4u32_B8_C8");
  EXPECT_EQ((*ok)[0].metrics[0].equation, "1 2 &&");
  EXPECT_EQ((*ok)[0].metrics[0].type, hm::data_type::float32);
}

#else

TEST(MetricsXml, NeedsPugixml) { GTEST_SKIP() << "built without pugixml (HWPC_HAVE_PUGIXML)"; }

#endif

}  // namespace
