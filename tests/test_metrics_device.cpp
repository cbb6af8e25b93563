// Intel device variables: every name the reference code generator maps, with
// values worked out by hand from a topology with fused-off subslices.
#include <gtest/gtest.h>

#include <string>

#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace {

namespace hm = hwpc::metrics;
using hwpc::expr::value;

// Two slices of four subslice slots; slice 0 has subslices 0, 1 and 3,
// slice 1 only subslice 0 (bit 4); 8 EUs each: 4 subslices, 32 EUs.
hm::intel_device fused() {
  hm::intel_device d = hm::device_of(hwpc::intel::platform::tgl);
  d.slice_mask = 0b11;
  d.subslice_mask = 0b1'1011;
  d.subslice_stride = 4;
  d.eu_count = 32;
  d.gt_max_frequency_hz = 1'300'000'000;
  return d;
}

TEST(MetricsDevice, EveryCodegenVariableFromAFusedTopology) {
  const hm::device_values v = hm::to_device_values(fused());
  auto at = [&](const char* n) {
    auto it = v.find(n);
    EXPECT_NE(it, v.end()) << n;
    return it == v.end() ? value{} : it->second;
  };
  EXPECT_EQ(at("EuCoresTotalCount"), value::u(32));
  EXPECT_EQ(at("VectorEngineTotalCount"), value::u(32));
  EXPECT_EQ(at("EuSlicesTotalCount"), value::u(2));
  EXPECT_EQ(at("SliceTotalCount"), value::u(2));
  EXPECT_EQ(at("EuSubslicesTotalCount"), value::u(4));
  EXPECT_EQ(at("EuDualSubslicesTotalCount"), value::u(4));
  EXPECT_EQ(at("XeCoreTotalCount"), value::u(4));
  EXPECT_EQ(at("VectorEnginePerXeCoreCount"), value::u(8));
  EXPECT_EQ(at("EuThreadsCount"), value::u(7));  // Gen12
  EXPECT_EQ(at("VectorEngineThreadsCount"), value::u(7));
  EXPECT_EQ(at("SliceMask"), value::u(3));
  EXPECT_EQ(at("GtSliceMask"), value::u(3));
  for (const char* n : {"SubsliceMask", "DualSubsliceMask", "GtSubsliceMask", "GtDualSubsliceMask",
                        "XeCoreMask", "GtXeCoreMask"}) {
    EXPECT_EQ(at(n), value::u(0x1b)) << n;
  }
  EXPECT_EQ(at("EuDualSubslicesSlice0123Count"), value::u(4));
  EXPECT_EQ(at("GpuTimestampFrequency"), value::u(19'200'000));
  EXPECT_EQ(at("GpuMaxFrequency"), value::u(1'300'000'000));
  EXPECT_EQ(at("QueryMode"), value::u(0));
  EXPECT_EQ(at("SkuRevisionId"), value::u(0));
  EXPECT_EQ(v.count("GpuMinFrequency"), 0u) << "unknown, so left for --device-var";
  // Per slice and per XeCore / dual subslice.
  EXPECT_EQ(at("GtSlice0"), value::u(1));
  EXPECT_EQ(at("GtSlice1"), value::u(1));
  EXPECT_EQ(at("GtSlice2"), value::u(0));
  EXPECT_EQ(at("GtSlice7"), value::u(0));
  const int s0[] = {1, 1, 0, 1}, s1[] = {1, 0, 0, 0};
  for (int x = 0; x < 4; ++x) {
    const std::string i = std::to_string(x);
    EXPECT_EQ(at(("GtSlice0XeCore" + i).c_str()), value::u(s0[x])) << x;
    EXPECT_EQ(at(("GtSlice0DualSubslice" + i).c_str()), value::u(s0[x])) << x;
    EXPECT_EQ(at(("GtSlice1XeCore" + i).c_str()), value::u(s1[x])) << x;
  }
  EXPECT_EQ(at("GtSlice0XeCore4"), value::u(0)) << "past the stride: not slice 1's bit 4";
  EXPECT_EQ(at("GtSlice7XeCore15"), value::u(0));
}

TEST(MetricsDevice, XeHpgHasEightThreadsPerEu) {
  EXPECT_EQ(hm::device_of(hwpc::intel::platform::dg2).threads_per_eu, 8u);
  EXPECT_EQ(hm::device_of(hwpc::intel::platform::mtl).threads_per_eu, 8u);
  EXPECT_EQ(hm::device_of(hwpc::intel::platform::skl).threads_per_eu, 7u);
}

TEST(MetricsDevice, TopologyNamesAreDeviceVariables) {
  static_assert(hm::is_intel_topology_variable("GtSlice0"));
  static_assert(hm::is_intel_topology_variable("GtSlice1XeCore3"));
  static_assert(hm::is_intel_topology_variable("GtSlice7DualSubslice15"));
  static_assert(!hm::is_intel_topology_variable("GtSlice8"));
  static_assert(!hm::is_intel_topology_variable("GtSlice0XeCore16"));
  static_assert(!hm::is_intel_topology_variable("GtSlice01"));
  static_assert(!hm::is_intel_topology_variable("GtSlice"));
  static_assert(!hm::is_intel_topology_variable("GtSlice0XeCore"));
  static_assert(!hm::is_intel_topology_variable("GtSlice0Foo1"));
  static_assert(!hm::is_intel_topology_variable("GtSliceMask"));
}

TEST(MetricsDevice, MeteorLakeStyleFormulasCompileBindAndFold) {
  hm::metric_set s;
  s.symbol_name = "Xe";
  hm::metric m;
  m.symbol_name = "Occupancy";
  m.equation = "A 0 READ $VectorEngineThreadsCount $VectorEngineTotalCount UMUL UDIV";
  m.availability = "$GtSlice1XeCore3 $GtSlice0XeCore1 &&";
  s.metrics.push_back(m);
  m.symbol_name = "Slice1";
  m.equation = "A 1 READ";
  m.availability = "$GtSlice1XeCore0";
  s.metrics.push_back(m);
  auto c = hm::compile(s);
  ASSERT_TRUE(c) << c.error_value().describe();
  auto b = c->bind(hm::to_device_values(fused()));
  ASSERT_TRUE(b) << b.error_value().describe();
  EXPECT_FALSE(b->available(0)) << "slice 1 has no XeCore 3";
  EXPECT_TRUE(b->available(1));
  std::vector<std::uint64_t> raw(b->inputs().size(), 0);
  raw[*b->input_index("A0")] = 224 * 5;
  raw[*b->input_index("A1")] = 9;
  std::vector<value> out(2);
  ASSERT_TRUE(b->evaluate(raw, out));
  EXPECT_EQ(out[0], value::u(5));  // 1120 / (7 * 32)
  EXPECT_EQ(out[1], value::u(9));
}

}  // namespace

namespace {

TEST(MetricsDevice, UnavailableMetricsThatAvailableOnesReadStay) {
  // Cannon Lake RenderBasic's shape: SamplersBusy (slice 0 or subslice 3)
  // reads Sampler10Busy (subslice 3 only). With subslice mask 0b111 both
  // Sampler00Busy and SamplersBusy are available; Sampler10Busy is not, but
  // is kept for SamplersBusy (as IGT computes it); Lonely is not needed.
  hm::metric_set s;
  s.symbol_name = "RenderBasic";
  auto add = [&](const char* sym, const char* eq, const char* avail) {
    hm::metric m;
    m.symbol_name = sym;
    m.equation = eq;
    m.availability = avail;
    s.metrics.push_back(m);
  };
  add("Sampler00Busy", "B 0 READ", "$SubsliceMask 1 AND");
  add("Sampler10Busy", "B 1 READ", "$SubsliceMask 8 AND");
  add("SamplersBusy", "$Sampler00Busy $Sampler10Busy FMAX", "$SubsliceMask 9 AND");
  add("Lonely", "B 2 READ", "$SubsliceMask 16 AND");
  auto c = hm::compile(s);
  ASSERT_TRUE(c);
  auto b = c->bind({{"SubsliceMask", value::u(0b111)}});
  ASSERT_TRUE(b);
  const hm::metric_set kept = hm::available_with_dependencies(*b);
  std::vector<std::string> names;
  for (const auto& m : kept.metrics) names.push_back(m.symbol_name);
  EXPECT_EQ(names, (std::vector<std::string>{"Sampler00Busy", "Sampler10Busy", "SamplersBusy"}));
  auto again = hm::compile(kept);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->dropped().empty());
  auto b2 = again->bind({{"SubsliceMask", value::u(0b111)}});
  ASSERT_TRUE(b2);
  EXPECT_FALSE(b2->available(1));
  std::vector<std::uint64_t> raw(b2->inputs().size());
  raw[*b2->input_index("B0")] = 3;
  raw[*b2->input_index("B1")] = 7;
  std::vector<value> out(3);
  ASSERT_TRUE(b2->evaluate(raw, out));
  EXPECT_EQ(out[2], value::u(7)) << "(uint64 metric) the unavailable sampler's counter is read";
}

}  // namespace

namespace {

TEST(MetricsDevice, MediaReportsReadMpecCountersAsA) {
  const auto* mpec = hwpc::intel::find_format(hwpc::intel::platform::mtl, "MPEC8u32_B8_C8");
  const auto* oag = hwpc::intel::find_format(hwpc::intel::platform::mtl, "A24u40_A14u32_B8_C8");
  ASSERT_NE(mpec, nullptr);
  ASSERT_NE(oag, nullptr);
  EXPECT_EQ(hm::counter_for_input("A0", *mpec), "MPEC0");
  EXPECT_EQ(hm::counter_for_input("A7", *mpec), "MPEC7");
  EXPECT_EQ(hm::counter_for_input("A8", *mpec), "A8") << "no MPEC8: left for the caller to reject";
  EXPECT_EQ(hm::counter_for_input("B2", *mpec), "B2");
  EXPECT_EQ(hm::counter_for_input("GPU_TIME", *mpec), "GPU_TIME");
  EXPECT_EQ(hm::counter_for_input("A0", *oag), "A0");
}

}  // namespace
