// The Xe2 metric files (oa-lnl.xml, oa-bmg.xml): the `PEC n READ` counter
// class bound to the PEC counters of the Xe2 formats, the Xe2 device
// variables, metrics reading a device variable with no value (dropped alone,
// with the column), the report type each set names, and every set of both
// files evaluated on PEC64u64 / MPEC8u32_B8_C8 reports this test packs with
// its own code from ../shared/docs/FACTS-xe.md section 3 (64-bit header:
// RPT_ID u64 at 0, TIME_STAMP u64 at 8, CTX_ID u32 at 16, GPU_TICKS u64 at
// 24; PEC n u64 at 32 + 8n; MPEC n u32 at 32 + 4n, B n at 64 + 4n, C n at
// 96 + 4n), with every bounded metric checked against its max_equation;
// then `hwpc decode --metrics --set` on an emulated Xe OA stream of each
// set's platform and report format, with and without the unit counts, and
// the Xe driver's platform names on the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "capture_test_util.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/emu/sku.hpp"
#include "hwpc/expr/symbols.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/metrics/binding.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/report_type.hpp"
#include "tool_runner.hpp"
#ifdef HWPC_HAVE_PUGIXML
#include "hwpc/metrics/xml_loader.hpp"
#endif

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

namespace {

namespace hm = hwpc::metrics;
namespace hi = hwpc::intel;
using hwpc::expr::value;
using hwpc::testing::run_tool;

// ---------------------------------------------------------------------------
// The test's own report packing (FACTS-xe §3.1, §3.3, §3.2 for MPEC8u32).

struct xe_report {
  std::uint64_t rpt_id = (1u << 19) | (1u << 16);  // timer reason, context valid
  std::uint64_t timestamp = 0;
  std::uint32_t ctx_id = 0;
  std::uint64_t ticks = 0;
  // PEC64u64: PEC0..63. MPEC8u32_B8_C8: [0..7] MPEC, [8..15] B, [16..23] C.
  std::array<std::uint64_t, 64> counters{};
};

void put64(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<std::byte>(v >> (8 * i));
}
void put32(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::byte>(v >> (8 * i));
}

void pack_header(std::vector<std::byte>& b, const xe_report& r) {
  put64(b, 0, r.rpt_id);
  put64(b, 8, r.timestamp);
  put32(b, 16, r.ctx_id);
  put64(b, 24, r.ticks);
}

void append_pec64u64(std::vector<std::byte>& out, const xe_report& r) {
  std::vector<std::byte> b(576);
  pack_header(b, r);
  for (std::size_t i = 0; i < 64; ++i) put64(b, 32 + 8 * i, r.counters[i]);
  out.insert(out.end(), b.begin(), b.end());
}

hm::metric_set hand_set(std::vector<std::vector<std::string>> ms) {
  hm::metric_set s;
  s.symbol_name = "Hand";
  for (auto& m : ms) {
    hm::metric x;
    x.symbol_name = m[0];
    x.equation = m[1];
    if (m.size() > 2) x.max_equation = m[2];
    if (m.size() > 3) x.availability = m[3];
    s.metrics.push_back(x);
  }
  return s;
}

// ---------------------------------------------------------------------------

TEST(MetricsXe, PecIsACounterBank) {
  static_assert(hwpc::expr::is_counter_bank("PEC"));
  static_assert(hwpc::expr::is_raw_counter_name("PEC63"));
  static_assert(!hwpc::expr::is_raw_counter_name("PEC"));
  auto c = hm::compile(hand_set({{"Last", "PEC 63 READ"}, {"Twice", "PEC 0 READ 2 UMUL"}}));
  ASSERT_TRUE(c) << c.error_value().describe();
  EXPECT_EQ(c->counters(), (std::vector<std::string>{"PEC63", "PEC0"}));
  // A READ needs its bank: "PEC READ" and a bare PEC are syntax errors.
  EXPECT_FALSE(hm::compile(hand_set({{"X", "PEC READ"}})));
  EXPECT_FALSE(hm::compile(hand_set({{"X", "PEC 1 2 UADD"}})));
}

// PEC n READ is the delta of PEC counter n of a PEC64u64 report: two reports
// packed by hand, decoded by the library and bound through the row schema.
TEST(MetricsXe, PecReadIsThePecCounterOfPec64u64Reports) {
  const hi::xe_format* x = hi::find_xe_format(hi::platform::lnl, "PEC64u64");
  ASSERT_NE(x, nullptr);
  xe_report a, b;
  a.timestamp = 0x1'0000'0000ull - 100;  // crosses 2^32: a 64-bit field
  a.ticks = 7;
  b.timestamp = a.timestamp + 1920;  // 100 us at 19.2 MHz
  b.ticks = a.ticks + 150'000;       // 1.5 GHz
  for (std::size_t i = 0; i < 64; ++i) {
    a.counters[i] = 0xffff'ffff'ffff'ff00ull + i;  // wraps at 2^64
    b.counters[i] = a.counters[i] + 1000 * i + 3;
  }
  std::vector<std::byte> bytes;
  append_pec64u64(bytes, a);
  append_pec64u64(bytes, b);
  auto set = hand_set({{"GpuCoreClocks", "GPU_CLOCK 0 READ"},
                       {"Pec0", "PEC 0 READ"},
                       {"Pec63", "PEC 63 READ"},
                       {"Busy", "PEC 32 READ 100 UMUL $GpuCoreClocks FDIV"},
                       {"PerXeCore", "PEC 2 READ $XeCoreTotalCount UDIV"}});
  hm::intel_device dev = hm::with_topology(hm::device_of(hi::platform::lnl), 1, 8, 8);
  const auto schema = hi::schema_of(x->layout, hi::platform::lnl, false, 19'200'000);
  auto m = hm::row_metrics::make(set, hm::to_device_values(dev), schema);
  ASSERT_TRUE(m) << m.error_value().describe();
  ASSERT_EQ(m->size(), 5u);
  auto buf = hi::report_buffer::make({bytes.data(), bytes.size()}, x->layout);
  ASSERT_TRUE(buf) << buf.error_value().describe();
  std::vector<hwpc::cell> cells(m->size());
  std::size_t rows = 0;
  hi::for_each_interval(*buf, hi::generation::xe2, [&](const hi::interval& iv) {
    ++rows;
    EXPECT_EQ(iv.elapsed_ticks, 1920u);
    m->evaluate(iv.deltas, iv.elapsed_ticks, cells);
  });
  ASSERT_EQ(rows, 1u);
  EXPECT_EQ(cells[0], hwpc::cell::u(150'000));
  EXPECT_EQ(cells[1], hwpc::cell::u(3));
  EXPECT_EQ(cells[2], hwpc::cell::u(63'003));
  // 3,200,300 / 150,000 in double, truncated: a uint64 metric (the default).
  EXPECT_EQ(cells[3], hwpc::cell::u(21));
  EXPECT_EQ(cells[4], hwpc::cell::u(2'003 / 8));
}

// An Xe2 part: one slice of 8 XeCore slots, XeCore 5 fused off, 8 vector
// engines (XVEs) each.
hm::intel_device lnl_fused() {
  hm::intel_device d = hm::with_topology(hm::device_of(hi::platform::lnl), 1, 8, 8);
  d.subslice_mask &= ~(1ull << 5);
  d.eu_count = 56;
  d.gt_max_frequency_hz = 2'050'000'000;
  return d;
}

TEST(MetricsXe, Xe2DeviceVariables) {
  const hm::device_values v = hm::to_device_values(lnl_fused());
  auto at = [&](const std::string& n) {
    auto it = v.find(n);
    EXPECT_NE(it, v.end()) << n;
    return it == v.end() ? value{} : it->second;
  };
  EXPECT_EQ(at("XeCoreTotalCount"), value::u(7));
  // Not halved (Mesa halves on Xe2; IGT and metrics-discovery do not).
  EXPECT_EQ(at("VectorEngineTotalCount"), value::u(56));
  EXPECT_EQ(at("EuCoresTotalCount"), value::u(56));
  EXPECT_EQ(at("VectorEnginePerXeCoreCount"), value::u(8));
  EXPECT_EQ(at("VectorEngineThreadsCount"), value::u(8));
  // Slices are groups of 4 XeCores on Xe2 (metrics-discovery): XeCores 0-3
  // and 4-7 (5 fused off) make 2.
  EXPECT_EQ(at("SliceTotalCount"), value::u(2));
  EXPECT_EQ(at("SliceMask"), value::u(3));
  EXPECT_EQ(at("GtSlice1"), value::u(1));
  EXPECT_EQ(at("GtSlice1XeCore0"), value::u(1));  // XeCore 4
  EXPECT_EQ(at("GtSlice1XeCore1"), value::u(0));  // XeCore 5, fused off
  EXPECT_EQ(at("GpuMaxFrequency"), value::u(2'050'000'000));
  for (unsigned x = 0; x < hm::max_named_xecores; ++x) {
    EXPECT_EQ(at("GtXeCore" + std::to_string(x)), value::u(x < 8 && x != 5 ? 1 : 0)) << x;
  }
  // The unit counts of LNL's full part (2 L3 nodes of 4 banks), the pipes
  // from the 2 slices.
  EXPECT_EQ(at("L3BankTotalCount"), value::u(8));
  EXPECT_EQ(at("L3NodeTotalCount"), value::u(2));
  EXPECT_EQ(at("SqidiTotalCount"), value::u(2));
  EXPECT_EQ(at("CopyEngineTotalCount"), value::u(1));
  EXPECT_EQ(at("ComputeEngineTotalCount"), value::u(1));  // the default CCS mode
  EXPECT_EQ(at("GeometryPipeTotalCount"), value::u(2));
  EXPECT_EQ(at("DepthPipeTotalCount"), value::u(4));
  EXPECT_EQ(at("ColorPipeTotalCount"), value::u(4));
  // What DEVICE_INFO does not tell has no value.
  EXPECT_EQ(v.count("GpuMinFrequency"), 0u);
  // A count the caller knows wins over the derived one.
  hm::intel_device d = lnl_fused();
  d.l3_bank_count = 4;
  d.sqidi_count = 1;
  const hm::device_values w = hm::to_device_values(d);
  EXPECT_EQ(w.at("L3BankTotalCount"), value::u(4));
  EXPECT_EQ(w.at("SqidiTotalCount"), value::u(1));
  EXPECT_EQ(w.at("L3NodeTotalCount"), value::u(2));
  // Without a topology the pipes (which need the slices) have no value; the
  // rest is the platform's.
  const hm::device_values bare = hm::to_device_values(hm::device_of(hi::platform::lnl));
  EXPECT_EQ(bare.count("GeometryPipeTotalCount"), 0u);
  EXPECT_EQ(bare.at("L3BankTotalCount"), value::u(8));
  // Threads per EU are a platform fact, known without a topology.
  EXPECT_EQ(hm::to_device_values(hm::device_of(hi::platform::bmg)).at("VectorEngineThreadsCount"),
            value::u(8));
  EXPECT_EQ(hm::device_of(hi::platform::tgl).threads_per_eu, 7u);
}

// metrics-discovery's threads per EU (threadsPerEuMap): 10 on Xe3, 6 on
// Broxton and Gemini Lake.
TEST(MetricsXe, ThreadsPerEuFromMetricsDiscovery) {
  EXPECT_EQ(hm::device_of(hi::platform::ptl).threads_per_eu, 10u);
  EXPECT_EQ(hm::to_device_values(hm::device_of(hi::platform::ptl)).at("VectorEngineThreadsCount"),
            value::u(10));
  EXPECT_EQ(hm::device_of(hi::platform::lnl).threads_per_eu, 8u);
  EXPECT_EQ(hm::device_of(hi::platform::bxt).threads_per_eu, 6u);
  EXPECT_EQ(hm::device_of(hi::platform::glk).threads_per_eu, 6u);
  EXPECT_EQ(hm::to_device_values(hm::device_of(hi::platform::glk)).at("EuThreadsCount"),
            value::u(6));
  EXPECT_EQ(hm::device_of(hi::platform::skl).threads_per_eu, 7u);
  EXPECT_EQ(hm::device_of(hi::platform::kbl).threads_per_eu, 7u);
}

// Slices on the Xe driver: groups of 4 XeCores on Xe2, 6 on Xe3.
TEST(MetricsXe, XeSlicesAreXeCoreGroups) {
  auto slices = [](hi::platform p, unsigned xecores) {
    return hm::to_device_values(hm::with_topology(hm::device_of(p), 1, xecores, 8))
        .at("SliceTotalCount");
  };
  EXPECT_EQ(slices(hi::platform::lnl, 8), value::u(2));
  EXPECT_EQ(slices(hi::platform::bmg, 20), value::u(5));  // B580
  EXPECT_EQ(slices(hi::platform::ptl, 12), value::u(2));  // PTL-H
  EXPECT_EQ(slices(hi::platform::ptl, 4), value::u(1));
  // A group with every XeCore fused off is no slice.
  hm::intel_device d = hm::with_topology(hm::device_of(hi::platform::bmg), 1, 20, 8);
  d.subslice_mask &= ~0xf0ull;  // XeCores 4-7
  EXPECT_EQ(hm::to_device_values(d).at("SliceTotalCount"), value::u(4));
  EXPECT_EQ(hm::to_device_values(d).at("SliceMask"), value::u(0b11101));
  // i915 platforms keep the topology's slices.
  EXPECT_EQ(hm::to_device_values(hm::with_topology(hm::device_of(hi::platform::tgl), 1, 6, 16))
                .at("SliceTotalCount"),
            value::u(1));
}

// metrics-discovery's rules from the L3-bank mask: nodes of 4 banks, SQIDIs
// = nodes, copy engines = node pairs; pipes from slices.
TEST(MetricsXe, UnitCountsFromL3BankMask) {
  hm::intel_device d = hm::with_topology(hm::device_of(hi::platform::bmg), 1, 20, 8);
  d.l3_bank_mask = 0xf0f0f0;  // banks 4-7, 12-15, 20-23: nodes 1, 3, 5
  hm::intel_device u = hm::unit_counts(d, 5);
  EXPECT_EQ(u.l3_bank_count, 12u);
  EXPECT_EQ(u.l3_node_count, 3u);
  EXPECT_EQ(u.sqidi_count, 3u);
  EXPECT_EQ(u.copy_engine_count, 3u);  // pairs (0,1), (2,3), (4,5)
  EXPECT_EQ(u.geometry_pipe_count, 5u);
  EXPECT_EQ(u.depth_pipe_count, 10u);
  EXPECT_EQ(u.color_pipe_count, 10u);
  d.l3_bank_mask = 0x1;  // one bank: one node, one SQIDI, one copy engine
  u = hm::unit_counts(d, 0);
  EXPECT_EQ(u.l3_bank_count, 1u);
  EXPECT_EQ(u.l3_node_count, 1u);
  EXPECT_EQ(u.copy_engine_count, 1u);
  EXPECT_EQ(u.geometry_pipe_count, 0u) << "no slices: no pipes";
  d.l3_bank_mask = 0xff00;  // nodes 2 and 3: one pair
  EXPECT_EQ(hm::unit_counts(d, 0).copy_engine_count, 1u);
  // The platforms' full parts: BMG G21 6 nodes, PTL-H 2.
  const hm::device_values bmg =
      hm::to_device_values(hm::with_topology(hm::device_of(hi::platform::bmg), 1, 20, 8));
  EXPECT_EQ(bmg.at("L3BankTotalCount"), value::u(24));
  EXPECT_EQ(bmg.at("L3NodeTotalCount"), value::u(6));
  EXPECT_EQ(bmg.at("SqidiTotalCount"), value::u(6));
  EXPECT_EQ(bmg.at("CopyEngineTotalCount"), value::u(3));
  EXPECT_EQ(bmg.at("GeometryPipeTotalCount"), value::u(5));
  EXPECT_EQ(bmg.at("ColorPipeTotalCount"), value::u(10));
  const hm::device_values ptl =
      hm::to_device_values(hm::with_topology(hm::device_of(hi::platform::ptl), 1, 12, 8));
  EXPECT_EQ(ptl.at("L3NodeTotalCount"), value::u(2));
  EXPECT_EQ(ptl.at("DepthPipeTotalCount"), value::u(4));
  // i915 platforms have none.
  EXPECT_EQ(hm::to_device_values(hm::with_topology(hm::device_of(hi::platform::tgl), 1, 6, 16))
                .count("L3BankTotalCount"),
            0u);
}

TEST(MetricsXe, XeCoreNamesAreDeviceVariables) {
  static_assert(hm::is_intel_topology_variable("GtXeCore0"));
  static_assert(hm::is_intel_topology_variable("GtXeCore27"));
  static_assert(hm::is_intel_topology_variable("GtXeCore63"));
  static_assert(!hm::is_intel_topology_variable("GtXeCore64"));
  static_assert(!hm::is_intel_topology_variable("GtXeCore"));
  static_assert(!hm::is_intel_topology_variable("GtXeCore01"));
  static_assert(!hm::is_intel_topology_variable("GtXeCoreMask"));
}

// The Xe recorder writes one slice, the XeCore mask, and the same EU mask for
// every XeCore slot, fused-off ones included (FACTS-xe §7): only the EUs of
// present XeCores count, as IGT counts them. Written as an i915-style
// recording of a TGL part (the reader of Xe recordings is separate).
TEST(MetricsXe, RecordingTopologyCountsEusOfPresentXeCoresOnly) {
  using captest::append;
  using captest::put16;
  using captest::record;
  captest::bytes rec;
  append(rec, captest::version_record());
  captest::device_spec d;
  d.freq = 19'200'000;
  d.device_id = 0x9a49;  // TGL
  d.oa_format = 10;      // A32u40_A4u32_B8_C8
  append(rec, captest::device_info_record(d));
  captest::bytes topo(16 + 1 + 1 + 6 * 2);
  put16(topo.data() + 2, 1);   // max_slices
  put16(topo.data() + 4, 6);   // max_subslices
  put16(topo.data() + 6, 16);  // max_eus_per_subslice
  put16(topo.data() + 8, 1);   // subslice_offset
  put16(topo.data() + 10, 1);  // subslice_stride
  put16(topo.data() + 12, 2);  // eu_offset
  put16(topo.data() + 14, 2);  // eu_stride
  topo[16] = std::byte{0x01};  // slice 0
  topo[17] = std::byte{0x2d};  // XeCores 0, 2, 3, 5
  for (int ss = 0; ss < 6; ++ss) {
    topo[18 + 2 * ss] = std::byte{0xff};  // EUs 0..7 everywhere, fused slots too
    topo[19 + 2 * ss] = std::byte{0x00};
  }
  while (topo.size() % 8 != 0) topo.push_back(std::byte{0});
  append(rec, record(hi::record_type::device_topology, topo));
  append(rec, captest::correlation_record(1000, 0));
  auto r = hi::recording::make(captest::span(rec));
  ASSERT_TRUE(r) << r.error_value().describe();
  const hm::intel_device dev = hm::device_of(*r);
  EXPECT_EQ(dev.subslice_mask, 0x2du);
  EXPECT_EQ(dev.eu_count, 32u) << "4 present XeCores x 8 EUs, not 6 x 8";
  const hm::device_values v = hm::to_device_values(dev);
  EXPECT_EQ(v.at("XeCoreTotalCount"), value::u(4));
  EXPECT_EQ(v.at("GtXeCore3"), value::u(1));
  EXPECT_EQ(v.at("GtXeCore4"), value::u(0));
}

// A recognised device variable with no value fails only the metrics that
// read it (and those referring to them), each with the column of the name;
// a max_equation that reads one leaves its metric without a maximum; a
// register_config condition that reads one counts as applying.
TEST(MetricsXe, DeviceVariableWithNoValueDropsOnlyItsMetrics) {
  auto set = hand_set({
      {"GpuTime", "GPU_TIME 0 READ"},
      {"AboveMin", "GPU_CLOCK 0 READ $GpuMinFrequency USUB"},
      {"UsesAboveMin", "$AboveMin 2 UMUL"},
      {"Capped", "GPU_CLOCK 0 READ", "$GpuMaxFrequency"},
      {"PerBank", "PEC 40 READ $L3BankTotalCount UDIV"},
      {"Core3", "PEC 2 READ", "", "$GtXeCore3"},
  });
  set.register_configs.push_back({"OA", "$SliceMask 1 AND"});
  hm::device_values dev;  // what a raw Xe2 file tells: no topology, no GT range
  dev["GpuTimestampFrequency"] = value::u(19'200'000);

  // Without options_for(), compile takes every listed name and bind names
  // the first one without a value (the whole set fails).
  auto plain = hm::compile(set);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->dropped().empty());
  auto unbound = plain->bind(dev);
  ASSERT_FALSE(unbound);
  EXPECT_NE(unbound.error_value().message.find("has no value"), std::string::npos);

  auto c = hm::compile(set, hm::options_for(dev));
  ASSERT_TRUE(c) << c.error_value().describe();
  std::map<std::string, std::string> dropped;
  for (const auto& d : c->dropped()) dropped[d.symbol_name] = d.reason.describe();
  ASSERT_EQ(dropped.size(), 4u);
  EXPECT_EQ(c->dropped()[0].reason.code, hwpc::errc::unknown_name);
  EXPECT_NE(dropped["AboveMin"].find("column 18"), std::string::npos) << dropped["AboveMin"];
  EXPECT_NE(dropped["AboveMin"].find("'$GpuMinFrequency': a device variable with no value"),
            std::string::npos)
      << dropped["AboveMin"];
  EXPECT_NE(dropped["UsesAboveMin"].find("refers to metric AboveMin, which is dropped"),
            std::string::npos)
      << dropped["UsesAboveMin"];
  EXPECT_NE(dropped["PerBank"].find("column 13"), std::string::npos) << dropped["PerBank"];
  EXPECT_NE(dropped["PerBank"].find("$L3BankTotalCount"), std::string::npos);
  EXPECT_NE(dropped["Core3"].find("availability"), std::string::npos) << dropped["Core3"];
  EXPECT_NE(dropped["Core3"].find("column 1"), std::string::npos) << dropped["Core3"];
  ASSERT_EQ(c->size(), 2u);
  auto b = c->bind(dev);
  ASSERT_TRUE(b) << b.error_value().describe();
  EXPECT_EQ((*b)[0].symbol_name, "GpuTime");
  EXPECT_EQ((*b)[1].symbol_name, "Capped");
  EXPECT_FALSE(b->has_max(1)) << "GpuMaxFrequency is unknown: no maximum, the metric stays";
  EXPECT_TRUE(b->register_config_applies(0)) << "undecided without a slice mask";

  // Given the values, nothing is dropped and the maximum is there.
  dev["GpuMinFrequency"] = value::u(400'000'000);
  dev["GpuMaxFrequency"] = value::u(2'000'000'000);
  dev["L3BankTotalCount"] = value::u(4);
  dev["GtXeCore3"] = value::u(1);
  dev["SliceMask"] = value::u(2);
  auto all = hm::compile(set, hm::options_for(dev));
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->dropped().empty());
  auto ball = all->bind(dev);
  ASSERT_TRUE(ball) << ball.error_value().describe();
  EXPECT_TRUE(ball->has_max(3));
  EXPECT_FALSE(ball->register_config_applies(0)) << "slice 0 is not in mask 2";
}

// row_metrics (what `hwpc decode --metrics` uses) drops them the same way.
TEST(MetricsXe, RowMetricsDropsMetricsReadingVariablesWithoutValue) {
  const hi::xe_format* x = hi::find_xe_format(hi::platform::bmg, "PEC64u64");
  ASSERT_NE(x, nullptr);
  const auto schema = hi::schema_of(x->layout, hi::platform::bmg, false, 19'200'000);
  auto set = hand_set({{"Clocks", "GPU_CLOCK 0 READ"},
                       {"Sqidi", "PEC 54 READ $SqidiTotalCount UDIV"},
                       {"Pipes", "PEC 55 READ $GeometryPipeTotalCount UDIV"},
                       {"Eus", "PEC 1 READ $VectorEngineTotalCount UDIV"}});
  auto m =
      hm::row_metrics::make(set, hm::to_device_values(hm::device_of(hi::platform::bmg)), schema);
  ASSERT_TRUE(m) << m.error_value().describe();
  // The SQIDIs are the platform's (6 on BMG G21); the pipes need the
  // slices, which a platform alone does not tell.
  EXPECT_EQ(m->size(), 2u);
  ASSERT_EQ(m->dropped().size(), 2u);
  EXPECT_EQ(m->dropped()[0].symbol_name, "Pipes");
  EXPECT_EQ(m->dropped()[1].symbol_name, "Eus");
  EXPECT_NE(hm::describe(m->dropped()[1]).find("$VectorEngineTotalCount"), std::string::npos);
}

// Metrics-discovery's arithmetic in a metric set: a percentage of a
// per-XeCore count is exact; a metric another formula refers to is read as
// its value (GpuTime in whole nanoseconds), in both arithmetics.
TEST(MetricsXe, ArithmeticStopsAtReferencedMetrics) {
  auto set = hand_set({{"GpuTime", "GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV"},
                       {"Rate", "PEC 57 READ $GpuTime FDIV"},
                       {"PerCore", "PEC 2 READ $XeCoreTotalCount UDIV"},
                       {"PerCorePct",
                        "PEC 2 READ $XeCoreTotalCount UDIV 100 UMUL GPU_CLOCK 0 READ "
                        "FDIV"}});
  set.metrics[1].type = hm::data_type::float32;  // Rate and PerCorePct are float metrics
  set.metrics[3].type = hm::data_type::float32;
  const hm::device_values dv = {{"GpuTimestampFrequency", value::u(19'200'000)},
                                {"XeCoreTotalCount", value::u(8)}};
  for (const auto a : {hwpc::expr::arithmetic::mdapi, hwpc::expr::arithmetic::igt}) {
    hm::compile_options opt;
    opt.arithmetic = a;
    auto c = hm::compile(set, opt);
    ASSERT_TRUE(c) << c.error_value().describe();
    auto b = c->bind(dv);
    ASSERT_TRUE(b) << b.error_value().describe();
    std::vector<std::uint64_t> raw(b->inputs().size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const std::string& n = b->inputs()[i].name;
      raw[i] = n == "GPU_TIME" ? 7 : n == "PEC57" ? 1000 : n == "PEC2" ? 13 : 10;  // GPU_CLOCK
    }
    std::vector<value> out(b->size());
    ASSERT_TRUE(b->evaluate(raw, out));
    EXPECT_EQ(out[*b->find("GpuTime")], value::u(364));  // 7e9 / 19.2e6 = 364.58
    EXPECT_EQ(out[*b->find("Rate")], value::f(1000.0 / 364.0));
    EXPECT_EQ(out[*b->find("PerCore")], value::u(1));
    // 13 / 8 XeCores x 100 / 10 clocks: exact 16.25, or IGT's 1 x 100 / 10.
    EXPECT_EQ(out[*b->find("PerCorePct")],
              value::f(a == hwpc::expr::arithmetic::mdapi ? 16.25 : 10.0));
  }
}

TEST(MetricsXe, ReportTypeOfASet) {
  hm::metric_set s;
  s.oa_format = "576B_PEC64LL";
  const hi::report_format* f = hm::format_for(s, hi::platform::lnl);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "PEC64u64");
  EXPECT_EQ(f->size, 576u);
  s.oa_format = "128B_MPEC8_NOA16";
  f = hm::format_for(s, hi::platform::bmg);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "MPEC8u32_B8_C8");
  EXPECT_EQ(f->size, 128u);
  s.oa_format = "256B_GENERIC_NOA16";
  f = hm::format_for(s, hi::platform::dg2);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "A24u40_A14u32_B8_C8");
  EXPECT_EQ(hm::format_for(s, hi::platform::lnl), nullptr) << "no A-counter formats on Xe2";
  s.oa_format = "";
  EXPECT_EQ(hm::format_for(s, hi::platform::lnl), nullptr);
  s.oa_format = "999B_NOPE";
  EXPECT_EQ(hm::format_for(s, hi::platform::lnl), nullptr);
}

TEST(MetricsXe, XeDriverPlatformNames) {
  EXPECT_EQ(hi::platform_from_name("acm"), hi::platform::dg2);
  EXPECT_EQ(hi::platform_from_name("acmgt1"), hi::platform::dg2);
  EXPECT_EQ(hi::platform_from_name("acmgt3"), hi::platform::dg2);
  EXPECT_EQ(hi::platform_from_name("mtlgt2"), hi::platform::mtl);
  EXPECT_EQ(hi::platform_from_name("arl"), hi::platform::mtl);
  EXPECT_EQ(hi::platform_from_name("wcl"), hi::platform::ptl);
  EXPECT_EQ(hi::platform_from_name("tglgt1"), hi::platform::tgl);
  EXPECT_EQ(hi::platform_from_name("lnl"), hi::platform::lnl);
  EXPECT_FALSE(hi::platform_from_name("pvc").has_value()) << "no Ponte Vecchio platform";
  EXPECT_FALSE(hi::platform_from_name("ACM").has_value());
}

class MetricsXeTool : public hwpc::testing::tool_test {};

// The Xe driver's platform names on the command line.
TEST_F(MetricsXeTool, PlatformAcceptsXeDriverNames) {
  auto acm = run_tool("formats --platform acmgt2");
  ASSERT_EQ(acm.status, 0) << acm.out;
  EXPECT_EQ(acm.out, run_tool("formats --platform dg2").out);
  EXPECT_EQ(run_tool("formats --platform wcl").out, run_tool("formats --platform ptl").out);
}

#ifdef HWPC_HAVE_PUGIXML

// MPEC8u32_B8_C8 (FACTS-xe §3.2): the media sets' reports.
void append_mpec8u32(std::vector<std::byte>& out, const xe_report& r) {
  std::vector<std::byte> b(128);
  pack_header(b, r);
  for (std::size_t i = 0; i < 24; ++i) put32(b, 32 + 4 * i, r.counters[i]);
  out.insert(out.end(), b.begin(), b.end());
}

const std::filesystem::path xe_dir =
    std::filesystem::path(HWPC_SHARED_DIR) / "data" / "intel-metrics-xe";

// The variables of the eight units no capture describes.
const std::set<std::string> unit_variables = {"L3BankTotalCount",     "L3NodeTotalCount",
                                              "SqidiTotalCount",      "ComputeEngineTotalCount",
                                              "CopyEngineTotalCount", "GeometryPipeTotalCount",
                                              "DepthPipeTotalCount",  "ColorPipeTotalCount"};

// The device the corpus runs on: what a recording of the part tells
// (topology, GT range; the unit counts then follow from the platform), and
// without `units` a device that tells no unit count (no L3-bank mask, no
// compute engines, no XeCore groups for the pipes).
hm::intel_device part(hi::platform p, bool units) {
  // LNL: 8 XeCores of 8 XVEs; BMG: 20 of 32 XeCore slots (the file names
  // GtXeCore0..27) of 8 XVEs.
  const bool lnl = p == hi::platform::lnl;
  hm::intel_device d = hm::with_topology(hm::device_of(p), 1, lnl ? 8 : 32, 8);
  if (!lnl) {
    d.subslice_mask = (1ull << 20) - 1;
    d.eu_count = 20 * 8;
  }
  d.gt_min_frequency_hz = 400'000'000;
  d.gt_max_frequency_hz = lnl ? 2'050'000'000 : 2'850'000'000;
  if (!units) {
    d.l3_bank_mask = 0;
    d.compute_engine_count = 0;
    d.xecores_per_slice = 0;
  }
  return d;
}

// Names after '$' in a formula.
std::set<std::string> dollar_names(const std::string& f) {
  std::set<std::string> out;
  for (std::size_t k = f.find('$'); k != std::string::npos; k = f.find('$', k + 1)) {
    std::size_t e = k + 1;
    while (e < f.size() && (std::isalnum(static_cast<unsigned char>(f[e])) || f[e] == '_')) ++e;
    out.insert(f.substr(k + 1, e - k - 1));
  }
  return out;
}

// Metrics a device without the `missing` variables must drop, worked out from
// the text: those whose equation or availability reads one, then
// (to a fixed point) those whose equation, max or availability names one of
// them.
std::set<std::string> expected_drops(const hm::metric_set& s,
                                     const std::set<std::string>& missing = unit_variables) {
  std::set<std::string> out;
  for (const auto& m : s.metrics) {
    for (const auto* f : {&m.equation, &m.availability}) {
      for (const auto& n : dollar_names(*f)) {
        if (missing.contains(n)) out.insert(m.symbol_name);
      }
    }
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& m : s.metrics) {
      if (out.contains(m.symbol_name)) continue;
      for (const auto* f : {&m.equation, &m.max_equation, &m.availability}) {
        for (const auto& n : dollar_names(*f)) {
          if (out.contains(n) && out.insert(m.symbol_name).second) grew = true;
        }
      }
    }
  }
  return out;
}

struct corpus_counts {
  std::size_t sets = 0, metrics = 0, formulas = 0, pec_reads = 0, dropped = 0, available = 0,
              dropped_by_default = 0;
};

TEST(MetricsXeCorpus, EverySetCompilesAndBinds) {
  if (!std::filesystem::exists(xe_dir)) GTEST_SKIP() << "../shared is absent: " << xe_dir;
  std::map<std::string, corpus_counts> per_file;
  for (const auto& [stem, p] :
       {std::pair{"oa-lnl", hi::platform::lnl}, std::pair{"oa-bmg", hi::platform::bmg}}) {
    auto loaded = hm::load_xml_file((xe_dir / (std::string(stem) + ".xml")).string());
    ASSERT_TRUE(loaded) << loaded.error_value().describe();
    corpus_counts& n = per_file[stem];
    const hm::device_values full = hm::to_device_values(part(p, true));
    const hm::device_values captured = hm::to_device_values(part(p, false));
    for (const auto& set : *loaded) {
      ++n.sets;
      // Every name of every formula is known: nothing dropped by default.
      auto c = hm::compile(set);
      ASSERT_TRUE(c) << stem << " " << set.symbol_name << ": " << c.error_value().describe();
      EXPECT_TRUE(c->dropped().empty()) << set.symbol_name;
      n.metrics += c->size();
      n.formulas += c->formula_count();
      for (const auto& in : c->counters()) n.pec_reads += in.starts_with("PEC") ? 1 : 0;
      EXPECT_NE(hm::format_for(set, p), nullptr) << set.symbol_name << " " << set.oa_format;
      // With what a recording tells (the unit counts following from the
      // platform), nothing is dropped and the whole set binds.
      auto cf = hm::compile(set, hm::options_for(full));
      ASSERT_TRUE(cf) << cf.error_value().describe();
      EXPECT_TRUE(cf->dropped().empty()) << stem << " " << set.symbol_name;
      n.dropped_by_default += cf->dropped().size();
      auto b = c->bind(full);
      ASSERT_TRUE(b) << stem << " " << set.symbol_name << ": " << b.error_value().describe();
      for (std::size_t i = 0; i < b->size(); ++i) n.available += b->available(i) ? 1 : 0;
      // With no unit count, exactly the metrics reading one (or referring
      // to one that does) are dropped, and the rest binds.
      auto cc = hm::compile(set, hm::options_for(captured));
      ASSERT_TRUE(cc) << cc.error_value().describe();
      std::set<std::string> got;
      for (const auto& d : cc->dropped()) got.insert(d.symbol_name);
      EXPECT_EQ(got, expected_drops(set)) << stem << " " << set.symbol_name;
      n.dropped += got.size();
      auto bc = cc->bind(captured);
      EXPECT_TRUE(bc) << stem << " " << set.symbol_name << ": " << bc.error_value().describe();
    }
  }
  for (const auto& [stem, n] : per_file) {
    std::printf(
        "[ xe2 ] %s: %zu sets, %zu metrics, %zu formulas, %zu PEC counters read, "
        "%zu available on the test's part, %zu dropped by default, %zu without unit counts\n",
        stem.c_str(), n.sets, n.metrics, n.formulas, n.pec_reads, n.available, n.dropped_by_default,
        n.dropped);
  }
  // FACTS-xe §8: 14 sets in each file, 524 and 556 counters.
  EXPECT_EQ(per_file["oa-lnl"].sets, 14u);
  EXPECT_EQ(per_file["oa-bmg"].sets, 14u);
  EXPECT_EQ(per_file["oa-lnl"].metrics, 524u);
  EXPECT_EQ(per_file["oa-bmg"].metrics, 556u);
  EXPECT_EQ(per_file["oa-lnl"].dropped, 39u);
  EXPECT_EQ(per_file["oa-bmg"].dropped, 39u);
  EXPECT_EQ(per_file["oa-lnl"].dropped_by_default, 0u);
  EXPECT_EQ(per_file["oa-bmg"].dropped_by_default, 0u);
}

// A GPU-like workload for the packed reports: each interval lasts T
// timestamp ticks, the GT runs at a frequency between its minimum and
// maximum, and each counter counts at most once per GT clock (so a
// percentage of one unit's busy cycles stays within 100 % too).
struct workload {
  std::mt19937_64 rng;
  std::uint64_t ts_hz = 19'200'000;
  std::uint64_t min_hz, max_hz;
  workload(std::uint64_t seed, std::uint64_t min, std::uint64_t max)
      : rng(seed), min_hz(min), max_hz(max) {}
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  }
  // Fills `next` from `prev`; at_max: the GT at its maximum clock.
  void step(const xe_report& prev, xe_report& next, bool at_max) {
    const std::uint64_t t = uniform(1u << 8, 1u << 15);
    const std::uint64_t f = at_max ? max_hz : uniform(min_hz, max_hz);
    const std::uint64_t clocks = t * f / ts_hz;
    next = prev;
    next.timestamp = prev.timestamp + t;
    next.ticks = prev.ticks + clocks;
    for (auto& c : next.counters) c += uniform(0, clocks);
  }
};

bool within(double x, double max) { return std::isfinite(x) && x >= 0.0 && x <= max * (1 + 1e-12); }

// AvgGpuCoreFrequency = clocks * 1e9 / GpuTime, GpuTime truncated to whole
// ns: a GT at its maximum f may read up to one truncated ns high
// (test_emu_bounds.cpp, docs/emulator.md).
bool avg_frequency_within(double x, double f, std::uint64_t ticks, std::uint64_t ts_hz) {
  const double t = static_cast<double>(ticks) * 1e9 / static_cast<double>(ts_hz);
  return t > 1.0 && std::isfinite(x) && x >= 0.0 && x <= (f * t + 1e9) / (t - 1.0) + 1.0;
}

TEST(MetricsXeCorpus, EverySetWithinItsMaxOnPackedReports) {
  if (!std::filesystem::exists(xe_dir)) GTEST_SKIP() << "../shared is absent: " << xe_dir;
  std::size_t sets = 0, bounded = 0, checks = 0, values = 0, rounding = 0;
  std::uint64_t seed = 5;
  for (const auto& file_and_platform :
       {std::pair{"oa-lnl", hi::platform::lnl}, std::pair{"oa-bmg", hi::platform::bmg}}) {
    // Named copies, not a structured binding: the lambda below uses the
    // name, and clang 14 cannot capture bindings.
    const char* const stem = file_and_platform.first;
    const hi::platform p = file_and_platform.second;
    auto loaded = hm::load_xml_file((xe_dir / (std::string(stem) + ".xml")).string());
    ASSERT_TRUE(loaded);
    const hm::intel_device dev = part(p, true);
    const hm::device_values dv = hm::to_device_values(dev);
    for (const auto& set : *loaded) {
      const hi::report_format* f = hm::format_for(set, p);
      ASSERT_NE(f, nullptr) << set.symbol_name;
      const bool pec = f->size == 576;
      // Reports: the test's own packing, with a run at the maximum clock.
      workload w(seed++, dev.gt_min_frequency_hz, dev.gt_max_frequency_hz);
      std::vector<std::byte> bytes;
      xe_report r;
      r.timestamp = w.uniform(0, 1ull << 40);
      r.ticks = w.uniform(0, 1ull << 40);
      for (auto& c : r.counters) c = pec ? w.uniform(0, ~0ull) : w.uniform(0, 0xffff'ffffu);
      for (int k = 0; k < 64; ++k) {
        (pec ? append_pec64u64 : append_mpec8u32)(bytes, r);
        xe_report next;
        w.step(r, next, k % 4 == 0);
        if (!pec) {
          for (auto& c : next.counters) c &= 0xffff'ffffu;  // 32-bit fields wrap
        }
        r = next;
      }
      // Compile, drop what this device does not offer, bind.
      auto c = hm::compile(set, hm::options_for(dv));
      ASSERT_TRUE(c);
      auto b = c->bind(dv);
      ASSERT_TRUE(b) << b.error_value().describe();
      c = hm::compile(hm::available_with_dependencies(*b), hm::options_for(dv));
      ASSERT_TRUE(c);
      b = c->bind(dv);
      ASSERT_TRUE(b) << b.error_value().describe();
      std::vector<std::size_t> source;
      const hi::counter_list counters(*f);
      constexpr std::size_t elapsed = ~std::size_t{0};
      for (const auto& in : b->inputs()) {
        if (in.name == "GPU_TIME") {
          source.push_back(elapsed);
          continue;
        }
        const std::string name =
            in.name == "GPU_CLOCK" ? "GPU_TICKS" : hm::counter_for_input(in.name, *f);
        const std::size_t k = counters.index_of(name);
        ASSERT_NE(k, counters.size()) << set.symbol_name << " reads " << in.name;
        source.push_back(k);
      }
      ++sets;
      for (std::size_t i = 0; i < b->size(); ++i) bounded += b->has_max(i) ? 1 : 0;
      std::vector<std::uint64_t> raw(source.size()), totals(counters.size(), 0);
      std::vector<value> out(b->size());
      std::vector<std::optional<value>> maxima(b->size());
      std::uint64_t total_ticks = 0;
      auto check = [&](std::span<const std::uint64_t> deltas, std::uint64_t ticks) {
        for (std::size_t k = 0; k < source.size(); ++k) {
          raw[k] = source[k] == elapsed ? ticks : deltas[source[k]];
        }
        ASSERT_TRUE(b->evaluate(raw, out));
        ASSERT_TRUE(b->evaluate_max(raw, maxima));
        for (std::size_t i = 0; i < b->size(); ++i) {
          const double x = out[i].as_double();
          ++values;
          EXPECT_TRUE(std::isfinite(x) && x >= 0.0)
              << set.symbol_name << " " << (*b)[i].symbol_name;
          if (!maxima[i]) continue;
          ++checks;
          const double m = maxima[i]->as_double();
          if (within(x, m)) continue;
          if ((*b)[i].symbol_name == "AvgGpuCoreFrequency" &&
              avg_frequency_within(x, m, ticks, w.ts_hz)) {
            ++rounding;
            continue;
          }
          ADD_FAILURE() << stem << " " << set.symbol_name << " " << (*b)[i].symbol_name << " = "
                        << x << " > max " << m;
        }
      };
      auto buf = hi::report_buffer::make({bytes.data(), bytes.size()}, *f);
      ASSERT_TRUE(buf) << buf.error_value().describe();
      const auto st =
          hi::for_each_interval(*buf, hi::generation_of(p), [&](const hi::interval& iv) {
            for (std::size_t k = 0; k < counters.size(); ++k) totals[k] += iv.deltas[k];
            total_ticks += iv.elapsed_ticks;
            check(iv.deltas, iv.elapsed_ticks);
          });
      EXPECT_EQ(st.intervals, 63u);
      check(totals, total_ticks);
    }
  }
  std::printf(
      "[ xe2 bounds ] %zu sets run, %zu bounded metrics, %zu value/max checks, %zu values, "
      "%zu AvgGpuCoreFrequency past its max by truncation only\n",
      sets, bounded, checks, values, rounding);
  EXPECT_EQ(sets, 28u);
  EXPECT_EQ(bounded, 28u) << "AvgGpuCoreFrequency of each set";
  EXPECT_GT(rounding, 0u) << "the runs at the maximum clock reach the documented truncation";
}

// ---------------------------------------------------------------------------
// `hwpc decode --metrics FILE --set SYMBOL` on emulated captures: every set
// of both files on an Xe OA stream of its platform's emulated part
// (`hwpc emulate --output-kind xe-stream`, in the set's report format).

// An xe-stream carries no topology: the emulated part's, as --device-var
// arguments. VectorEngineTotalCount is the part's vector engines (XVEs), the
// count a kernel with the SIMD16 topology query reports (docs/expressions.md).
std::string part_arguments(hi::platform p, bool units) {
  const hwpc::emu::sku& s = hwpc::emu::sku_of(p);
  const unsigned xecores = static_cast<unsigned>(std::popcount(s.subslice_mask));
  std::string a = " --device-var XeCoreTotalCount=" + std::to_string(xecores) +
                  " --device-var SliceTotalCount=1" +
                  " --device-var VectorEngineTotalCount=" + std::to_string(s.model_eus()) +
                  " --device-var EuCoresTotalCount=" + std::to_string(s.model_eus()) +
                  " --device-var GpuMaxFrequency=" + std::to_string(s.max_mhz * 1'000'000ull);
  for (unsigned x = 0; x < s.max_slices * s.max_subslices && x < 64; ++x) {
    a += " --device-var GtXeCore" + std::to_string(x) + "=" +
         std::to_string((s.subslice_mask >> x) & 1);
  }
  if (units) {
    for (const auto& n : unit_variables) a += " --device-var " + n + "=2";
  }
  return a;
}

std::vector<std::string> split_csv(const std::string& line) {
  return hwpc::testing::split(line.substr(0, line.find_last_not_of("\r\n") + 1));
}

TEST_F(MetricsXeTool, EverySetRunsOnAnEmulatedStreamWithinItsMax) {
  if (!std::filesystem::exists(xe_dir)) GTEST_SKIP() << "../shared is absent: " << xe_dir;
  std::size_t sets = 0, rows = 0, bounded_rows = 0, rounding = 0, shown_total = 0;
  std::size_t dropped_without_units = 0;
  int seed = 1;
  for (const auto& [stem, p] :
       {std::pair{"oa-lnl", hi::platform::lnl}, std::pair{"oa-bmg", hi::platform::bmg}}) {
    const std::string xml = (xe_dir / (std::string(stem) + ".xml")).string();
    auto loaded = hm::load_xml_file(xml);
    ASSERT_TRUE(loaded);
    const std::string plat(hi::name_of(p));
    const hwpc::emu::sku& part = hwpc::emu::sku_of(p);
    for (const auto& set : *loaded) {
      const std::string format(hm::format_name_of(set.oa_format));
      ASSERT_FALSE(format.empty()) << set.symbol_name;
      const std::string stream = (dir_ / (plat + "-" + set.symbol_name + ".xs")).string();
      auto e = run_tool("emulate --platform " + plat + " --format " + format +
                        " --output-kind xe-stream --reports 40 --exponent 9 --seed " +
                        std::to_string(seed++) + " --out " + stream);
      ASSERT_EQ(e.status, 0) << e.out;
      const std::string decode = "decode " + stream + " --input-kind xe-stream --platform " + plat +
                                 " --format " + format + " --metrics " + xml + " --set " +
                                 set.symbol_name;
      // With every device variable: no metric dropped, one column per
      // metric available on the part, AvgGpuCoreFrequency within its max.
      auto r = run_tool(decode + part_arguments(p, true), true);
      ASSERT_EQ(r.status, 0) << set.symbol_name << ": " << r.out.substr(0, 400);
      auto all = run_tool(decode + part_arguments(p, true) + " --summary");
      EXPECT_EQ(all.out.find("dropped"), std::string::npos) << set.symbol_name << all.out;
      ++sets;
      std::vector<std::string> lines;
      for (std::size_t at = 0; at < r.out.size();) {
        const std::size_t nl = r.out.find('\n', at);
        lines.push_back(r.out.substr(at, nl - at));
        at = nl == std::string::npos ? r.out.size() : nl + 1;
      }
      ASSERT_GT(lines.size(), 30u) << set.symbol_name;
      const auto header = split_csv(lines[0]);
      const auto first = std::find(header.begin(), header.end(), "ctx_id");
      const auto last = std::find(header.begin(), header.end(), "lost");
      ASSERT_TRUE(first != header.end() && last != header.end());
      // The metrics the library finds available on this part.
      hm::device_values dv;
      for (const auto& n : unit_variables) dv[n] = value::u(2);
      {
        hm::intel_device d = hm::device_of(p);
        d.slice_mask = 1;
        d.subslice_mask = part.subslice_mask;
        d.subslice_stride = part.max_subslices;
        d.eu_count = part.model_eus();
        d.gt_max_frequency_hz = part.max_mhz * 1'000'000ull;
        for (const auto& [k, v] : hm::to_device_values(d)) dv[k] = v;
      }
      auto c = hm::compile(set, hm::options_for(dv));
      ASSERT_TRUE(c);
      auto b = c->bind(dv);
      ASSERT_TRUE(b) << b.error_value().describe();
      std::size_t available = 0;
      for (std::size_t i = 0; i < b->size(); ++i) available += b->available(i) ? 1 : 0;
      const auto shown = static_cast<std::size_t>(last - first - 1);
      EXPECT_EQ(shown, available) << stem << " " << set.symbol_name;
      shown_total += shown;
      const auto col = [&](const char* n) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), n) -
                                        header.begin());
      };
      const std::size_t freq = col("AvgGpuCoreFrequency"), ns = col("GpuTime");
      ASSERT_LT(freq, header.size()) << set.symbol_name;
      const double max = static_cast<double>(part.max_mhz) * 1e6;
      for (std::size_t k = 1; k < lines.size(); ++k) {
        const auto f = split_csv(lines[k]);
        if (f.size() != header.size() || f[freq].empty()) continue;
        ++rows;
        const double x = std::stod(f[freq]);
        const double t = std::stod(f[ns]);
        ++bounded_rows;
        if (x <= max) continue;
        // One truncated nanosecond (test_emu_bounds.cpp, docs/emulator.md).
        if (t > 1.0 && x <= (max * t + 1e9) / (t - 1.0) + 1.0) {
          ++rounding;
          continue;
        }
        ADD_FAILURE() << stem << " " << set.symbol_name << " row " << k << ": AvgGpuCoreFrequency "
                      << x << " > " << max;
      }
      // With what the stream and the part's topology tell as --device-vars
      // (no slices: the stream has no topology), the L3, SQIDI and engine
      // counts are the platform's and exactly the metrics reading a pipe
      // count are dropped, each named on stderr, and the set still runs.
      auto some = run_tool(decode + part_arguments(p, false) + " --summary");
      ASSERT_EQ(some.status, 0) << some.out.substr(0, 400);
      std::set<std::string> named;
      const std::string tag = "hwpc decode: --metrics: metric ";
      for (std::size_t at = some.out.find(tag); at != std::string::npos;
           at = some.out.find(tag, at + 1)) {
        const std::size_t b0 = at + tag.size();
        named.insert(some.out.substr(b0, some.out.find(' ', b0) - b0));
      }
      EXPECT_EQ(named, expected_drops(set, {"GeometryPipeTotalCount", "DepthPipeTotalCount",
                                            "ColorPipeTotalCount"}))
          << stem << " " << set.symbol_name;
      dropped_without_units += named.size();
    }
  }
  std::printf(
      "[ xe2 tool ] %zu sets run on emulated xe-streams, %zu metric columns, %zu rows, "
      "%zu AvgGpuCoreFrequency/GpuMaxFrequency checks (%zu past by truncation only), "
      "%zu metrics dropped without unit counts\n",
      sets, shown_total, rows, bounded_rows, rounding, dropped_without_units);
  EXPECT_EQ(sets, 28u);
  EXPECT_GT(bounded_rows, 28u * 30);
}

// The same on IGT xe-perf recordings the emulator writes: the recording
// names its set (decode --metrics FILE needs no --set) and gives platform,
// format, GT range and topology, and the unit counts follow from the
// platform and the topology: nothing is passed and nothing dropped.
TEST_F(MetricsXeTool, EverySetRunsOnAnEmulatedRecording) {
  if (!std::filesystem::exists(xe_dir)) GTEST_SKIP() << "../shared is absent: " << xe_dir;
  std::size_t sets = 0, rows = 0, columns = 0;
  int seed = 100;
  for (const auto& [stem, p] :
       {std::pair{"oa-lnl", hi::platform::lnl}, std::pair{"oa-bmg", hi::platform::bmg}}) {
    const std::string xml = (xe_dir / (std::string(stem) + ".xml")).string();
    auto loaded = hm::load_xml_file(xml);
    ASSERT_TRUE(loaded);
    const std::string plat(hi::name_of(p));
    for (const auto& set : *loaded) {
      const std::string rec = (dir_ / (plat + "-" + set.symbol_name + ".rec")).string();
      auto e = run_tool("emulate --platform " + plat + " --output-kind xe-recording --metrics " +
                        xml + " --set " + set.symbol_name + " --reports 40 --exponent 9 --seed " +
                        std::to_string(seed++) + " --out " + rec);
      ASSERT_EQ(e.status, 0) << e.out;
      // The library's view of the recording: device variables and the
      // metrics available on its topology.
      std::vector<std::byte> bytes;
      {
        std::FILE* f = std::fopen(rec.c_str(), "rb");
        ASSERT_NE(f, nullptr);
        std::byte buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
          bytes.insert(bytes.end(), buf, buf + n);
        }
        std::fclose(f);
      }
      auto xr = hi::xe_recording::make(hwpc::byte_span(bytes.data(), bytes.size()));
      ASSERT_TRUE(xr) << xr.error_value().describe();
      EXPECT_EQ(xr->metric_set_name(), set.symbol_name);
      EXPECT_EQ(xr->format().name, hm::format_name_of(set.oa_format));
      const hm::intel_device dev = hm::device_of(*xr);
      EXPECT_EQ(dev.subslice_mask, hwpc::emu::sku_of(p).subslice_mask);
      hm::device_values dv = hm::to_device_values(dev);
      for (const auto& n : unit_variables) EXPECT_EQ(dv.count(n), 1u) << n;
      auto c = hm::compile(set, hm::options_for(dv));
      ASSERT_TRUE(c);
      EXPECT_TRUE(c->dropped().empty()) << set.symbol_name;
      auto b = c->bind(dv);
      ASSERT_TRUE(b) << b.error_value().describe();
      std::size_t available = 0;
      for (std::size_t i = 0; i < b->size(); ++i) available += b->available(i) ? 1 : 0;

      auto r = run_tool("decode " + rec + " --metrics " + xml);
      ASSERT_EQ(r.status, 0) << set.symbol_name << ": " << r.out.substr(0, 400);
      EXPECT_EQ(r.out.find("dropped"), std::string::npos) << set.symbol_name;
      const auto header = split_csv(r.out.substr(0, r.out.find('\n')));
      const auto first = std::find(header.begin(), header.end(), "ctx_id");
      const auto last = std::find(header.begin(), header.end(), "lost");
      ASSERT_TRUE(first != header.end() && last != header.end()) << r.out.substr(0, 400);
      EXPECT_EQ(static_cast<std::size_t>(last - first - 1), available) << set.symbol_name;
      columns += available;
      const auto freq = static_cast<std::size_t>(
          std::find(header.begin(), header.end(), "AvgGpuCoreFrequency") - header.begin());
      const auto ns = static_cast<std::size_t>(std::find(header.begin(), header.end(), "GpuTime") -
                                               header.begin());
      ASSERT_LT(freq, header.size());
      const double max = static_cast<double>(dev.gt_max_frequency_hz);
      ASSERT_GT(max, 0.0);
      std::size_t at = r.out.find('\n') + 1, set_rows = 0;
      while (at < r.out.size()) {
        const std::size_t nl = r.out.find('\n', at);
        const auto f = split_csv(r.out.substr(at, nl - at));
        at = nl == std::string::npos ? r.out.size() : nl + 1;
        if (f.size() != header.size() || f[freq].empty()) continue;
        ++set_rows;
        const double x = std::stod(f[freq]), t = std::stod(f[ns]);
        EXPECT_TRUE(x <= max || (t > 1.0 && x <= (max * t + 1e9) / (t - 1.0) + 1.0))
            << stem << " " << set.symbol_name << ": " << x << " > " << max;
      }
      EXPECT_GT(set_rows, 30u) << set.symbol_name;
      rows += set_rows;
      ++sets;
    }
  }
  std::printf(
      "[ xe2 recordings ] %zu sets run on emulated xe-perf recordings, %zu metric "
      "columns, %zu rows within GpuMaxFrequency\n",
      sets, columns, rows);
  EXPECT_EQ(sets, 28u);
}

// A recognised device variable with no value (GpuMinFrequency of a raw
// file) fails only the metric that reads it: named on stderr with its
// column, the other metrics shown.
TEST_F(MetricsXeTool, VariableWithNoValueDropsOnlyItsMetric) {
  const std::string xml = (dir_ / "min.xml").string();
  {
    std::FILE* f = std::fopen(xml.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(R"(<?xml version="1.0"?>
<metrics>
  <set name="T" symbol_name="T" chipset="LNL" oa_format="576B_PEC64LL" hw_config_guid="x">
    <counter name="Clocks" symbol_name="Clocks" data_type="uint64" equation="GPU_CLOCK 0 READ"/>
    <counter name="AboveMin" symbol_name="AboveMin" data_type="uint64"
             equation="GPU_CLOCK 0 READ $GpuMinFrequency USUB"/>
    <counter name="Pec1" symbol_name="Pec1" data_type="uint64" equation="PEC 1 READ"
             max_equation="$GpuMaxFrequency"/>
  </set>
</metrics>
)",
               f);
    std::fclose(f);
  }
  const std::string raw = (dir_ / "lnl.raw").string();
  auto e = run_tool(
      "emulate --platform lnl --format PEC64u64 --output-kind raw --reports 8 --out " + raw);
  ASSERT_EQ(e.status, 0) << e.out;
  auto r = run_tool("decode " + raw + " --platform lnl --format PEC64u64 --metrics " + xml +
                    " --set T --summary");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("hwpc decode: --metrics: metric AboveMin dropped: unknown name at column "
                       "18: set T, metric AboveMin, equation: '$GpuMinFrequency': a device "
                       "variable with no value"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--device-var NAME=VALUE gives a device variable a value"),
            std::string::npos);
  EXPECT_EQ(r.out.find("metric Pec1 dropped"), std::string::npos) << "only its maximum is unknown";
  const auto stdout_only = run_tool(
      "decode " + raw + " --platform lnl --format PEC64u64 --metrics " + xml + " --set T --summary",
      true);
  const auto header = split_csv(stdout_only.out.substr(0, stdout_only.out.find('\n')));
  EXPECT_NE(std::find(header.begin(), header.end(), "Clocks"), header.end());
  EXPECT_NE(std::find(header.begin(), header.end(), "Pec1"), header.end());
  EXPECT_EQ(std::find(header.begin(), header.end(), "AboveMin"), header.end());
  // Given a value, the metric is back.
  auto given = run_tool("decode " + raw + " --platform lnl --format PEC64u64 --metrics " + xml +
                        " --set T --summary --device-var GpuMinFrequency=400000000");
  ASSERT_EQ(given.status, 0);
  EXPECT_EQ(given.out.find("dropped"), std::string::npos) << given.out;
  EXPECT_NE(given.out.find("AboveMin"), std::string::npos);
}

#else
TEST(MetricsXeCorpus, NeedsPugixml) { GTEST_SKIP() << "built without pugixml (HWPC_HAVE_PUGIXML)"; }
#endif

}  // namespace
