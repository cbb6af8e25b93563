// A5xx names: opcodes, CP_EVENT_WRITE events (8-bit field), performance-counter
// groups, their registers and countables. Expected values typed from
// FACTS-adreno sections 3-5, not from the tables under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "adreno_seed.hpp"
#include "hwpc/adreno/fields.hpp"
#include "hwpc/adreno/interp.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/recognise.hpp"

namespace {

using namespace hwpc::adreno;

TEST(AdrenoNames, OpcodesFromTheFacts) {
  EXPECT_EQ(opcode_name(0x10), "CP_NOP");
  EXPECT_EQ(opcode_name(0x37), "CP_INDIRECT_BUFFER_PFD");
  EXPECT_EQ(opcode_name(0x3a), "CP_COND_INDIRECT_BUFFER_PFE");
  EXPECT_EQ(opcode_name(0x3e), "CP_REG_TO_MEM");
  EXPECT_EQ(opcode_name(0x3f), "CP_INDIRECT_BUFFER");
  EXPECT_EQ(opcode_name(0x50), "CP_PERFCOUNTER_ACTION");
  EXPECT_EQ(opcode_name(0x57), "CP_INDIRECT_BUFFER_CHAIN");
  EXPECT_EQ(opcode_name(0x6c), "CP_SET_RENDER_MODE");
  EXPECT_EQ(opcode_name(0x78), "CP_REG_WR_NO_CTXT");
  std::size_t named = 0;
  for (std::uint32_t o = 0; o < 0x80; ++o) named += !opcode_name(o).empty();
  EXPECT_EQ(named, 66u);  // rows of the FACTS opcode table
  EXPECT_TRUE(opcode_name(0x27).empty());
  EXPECT_TRUE(opcode_name(0x7f).empty());
}

TEST(AdrenoNames, EventFieldIsEightBits) {
  EXPECT_EQ(event::type_of(0x00000015), 0x15u);
  EXPECT_EQ(event::type_of(0x40000016), 0x16u);
  // With a 6-bit field 0x55 and 0xd5 would both read as ZPASS_DONE (0x15).
  EXPECT_EQ(event::type_of(0x55), 0x55u);
  EXPECT_EQ(event::type_of(0xd5), 0xd5u);
  EXPECT_EQ(event_name(0x15), "ZPASS_DONE");
  EXPECT_EQ(event_name(0x16), "RB_DONE_TS");
  EXPECT_EQ(event_name(0x2d), "VSC_BINNING_END");
  EXPECT_TRUE(event_name(0x55).empty());
  EXPECT_TRUE(event_name(0xd5).empty());
  std::size_t named = 0;
  for (std::uint32_t e = 0; e < 0x100; ++e) named += !event_name(e).empty();
  EXPECT_EQ(named, 31u);
}

TEST(AdrenoNames, Event0x55IsNotZpassDone) {
  auto seq = adreno_seed::occlusion_begin;
  seq[6] = 0x55;  // the CP_EVENT_WRITE event dword
  const auto bytes = adreno_seed::bytes_of(seq);
  auto ev = recognise(bytes);
  ASSERT_TRUE(ev);
  EXPECT_TRUE(ev->empty());
  machine mc;
  mc.memory.map(0xc0456000, 24);
  mc.sample_count = 1234;
  ASSERT_TRUE(execute(mc, bytes));
  EXPECT_EQ(*mc.memory.read64(0xc0456000), 0u);  // nothing stored
  seq[6] = 0x15;
  ASSERT_TRUE(execute(mc, adreno_seed::bytes_of(seq)));
  EXPECT_EQ(*mc.memory.read64(0xc0456000), 1234u);
}

struct group_fact {
  const char* name;
  std::uint32_t sel0, lo0, first, last, countables;
};
// FACTS-adreno section 5 table and countable counts.
const group_fact facts[] = {
    {"CP", 0x0bb0, 0x03a0, 1, 6, 30},   {"CCU", 0x0cd8, 0x03f0, 0, 2, 25},
    {"TSE", 0x0c90, 0x03f8, 0, 2, 18},  {"RAS", 0x0c94, 0x0400, 0, 2, 9},
    {"LRZ", 0x0c98, 0x0454, 0, 2, 18},  {"HLSQ", 0x0e10, 0x03d8, 0, 6, 14},
    {"PC", 0x0d10, 0x03b8, 0, 6, 36},   {"RB", 0x0cd0, 0x0440, 0, 6, 29},
    {"RBBM", 0x046b, 0x03b0, 1, 2, 13}, {"SP", 0x0ed0, 0x0428, 1, 10, 64},
    {"TP", 0x0f10, 0x0418, 0, 6, 41},   {"UCHE", 0x0ea0, 0x0408, 0, 6, 30},
    {"VFD", 0x0e50, 0x03c8, 0, 6, 30},  {"VPC", 0x0e64, 0x03e8, 0, 2, 16},
    {"VSC", 0x0c60, 0x0450, 0, 0, 3},
};

TEST(AdrenoPerfCounters, FifteenGroupsAsTheFactsList) {
  ASSERT_EQ(a5xx_counter_groups.size(), 15u);
  for (const auto& f : facts) {
    SCOPED_TRACE(f.name);
    const counter_group* g = nullptr;
    for (const auto& c : a5xx_counter_groups) {
      if (c.name == f.name) g = &c;
    }
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->first_user, f.first);
    EXPECT_EQ(g->last_user, f.last);
    EXPECT_EQ(g->countables.size(), f.countables);
    for (std::uint32_t n = f.first; n <= f.last; ++n) {
      auto s = find_select(f.sel0 + n);
      ASSERT_TRUE(s);
      EXPECT_EQ(s->group, g);
      EXPECT_EQ(s->counter, n);
      auto lo = find_counter(f.lo0 + 2 * n);
      auto hi = find_counter(f.lo0 + 2 * n + 1);
      ASSERT_TRUE(lo && hi);
      EXPECT_EQ(lo->group, g);
      EXPECT_EQ(lo->counter, n);
      EXPECT_FALSE(lo->high);
      EXPECT_TRUE(hi->high);
      EXPECT_EQ(hi->counter, n);
    }
  }
}

TEST(AdrenoPerfCounters, WorkedExamplesFromTheFacts) {
  // "CP 1 = 0x0bb1 / 0x03a2 / 0x03a3, SP 10 = 0x0eda / 0x043c / 0x043d"
  EXPECT_EQ(perf_register_name(0x0bb1), "CP_PERFCTR_SEL_1");
  EXPECT_EQ(perf_register_name(0x03a2), "RBBM_PERFCTR_CP_1_LO");
  EXPECT_EQ(perf_register_name(0x03a3), "RBBM_PERFCTR_CP_1_HI");
  EXPECT_EQ(perf_register_name(0x0eda), "SP_PERFCTR_SEL_10");
  EXPECT_EQ(perf_register_name(0x043c), "RBBM_PERFCTR_SP_10_LO");
  EXPECT_EQ(perf_register_name(0x043d), "RBBM_PERFCTR_SP_10_HI");
  // envytools' SP 11 (0x0edb / 0x043e), unused by Mesa, still has a name.
  EXPECT_EQ(perf_register_name(0x0edb), "SP_PERFCTR_SEL_11");
  EXPECT_EQ(perf_register_name(0x043e), "RBBM_PERFCTR_SP_11_LO");
  EXPECT_EQ(perf_register_name(0x0c60), "VSC_PERFCTR_SEL_0");
  EXPECT_EQ(perf_register_name(0x0451), "RBBM_PERFCTR_VSC_0_HI");
  EXPECT_EQ(register_label(0x04d2), "RBBM_ALWAYSON_COUNTER_LO");
  EXPECT_EQ(register_label(0x0466), "RBBM_PERFCTR_LOAD_CMD1");
  EXPECT_EQ(register_label(0xe267), "RB_SAMPLE_COUNT_ADDR_LO");
  EXPECT_TRUE(register_label(0x0452).empty());
  EXPECT_TRUE(register_label(0x0bb8).empty());
  EXPECT_TRUE(find_select(0x0bb0)->reserved());
  EXPECT_FALSE(find_select(0x0bb1)->reserved());
}

TEST(AdrenoPerfCounters, CountableNamesByPosition) {
  const auto& cp = *find_select(0x0bb1)->group;
  EXPECT_EQ(countable_name(cp, 0), "PERF_CP_ALWAYS_COUNT");
  EXPECT_EQ(countable_name(cp, 2), "PERF_CP_BUSY_CYCLES");
  EXPECT_EQ(countable_name(cp, 29), "PERF_CP_CACHE_FLUSH");
  EXPECT_EQ(countable_name(cp, 30), "countable 30");
  const auto& pc = *find_select(0x0d10)->group;
  EXPECT_EQ(countable_name(pc, 33), "PERF_TESS_BUSY_CYCLES");
  const auto& rb = *find_select(0x0cd0)->group;
  EXPECT_EQ(countable_name(rb, 23), "PERF_RB_RESERVED");
  EXPECT_EQ(countable_name(rb, 24), "PERF_RB_2D_ALIVE_CYCLES");
  const auto& ccu = *find_select(0x0cd8)->group;
  EXPECT_EQ(countable_name(ccu, 11), "PERF_CCU_DEPTH_READ_FLAG0_COUNT");
  const auto& vfd = *find_select(0x0e50)->group;
  EXPECT_EQ(countable_name(vfd, 29), "PERF_VFDP_STARVE_CYCLES_PC");
  const auto& sp = *find_select(0x0ed1)->group;
  EXPECT_EQ(countable_name(sp, 63), "PERF_SP_LM_CH1_REQUESTS");
  // Every name is unique within its group.
  for (const auto& g : a5xx_counter_groups) {
    std::set<std::string_view> seen(g.countables.begin(), g.countables.end());
    EXPECT_EQ(seen.size(), g.countables.size()) << g.name;
  }
}

// The fields of every packet kind decoded by field, from the seed's raw dumps
// and hand-built payloads.
std::string fields_of(const std::vector<std::uint32_t>& dws) {
  const auto bytes = adreno_seed::bytes_of(dws);
  auto p = read_packets(bytes);
  EXPECT_TRUE(p);
  EXPECT_EQ(p->size(), 1u);
  return describe_fields(p->front());
}

TEST(AdrenoFields, EveryDecodedPacket) {
  // seed:38 and seed:58, as printed.
  EXPECT_EQ(fields_of({0x70bc8006, 0x14, 0xc0456014, 0, 0xffffffff, 0xffffffff, 0x10}),
            "function=!= poll=memory addr=0xc0456014 ref=0xffffffff mask=0xffffffff delay=16");
  EXPECT_EQ(fields_of({0x70460004, 0x40000016, 0xc0456000, 0, 0xdead}),
            "event=RB_DONE_TS TIMESTAMP addr=0xc0456000 value=0xdead");
  EXPECT_EQ(fields_of({0x70460001, 0x80000055}), "event=0x55 IRQ");
  EXPECT_EQ(fields_of({0x703d0004, 0xc0456010, 0, 0xffffffff, 0xffffffff}),
            "addr=0xc0456010 dwords=2");
  EXPECT_EQ(fields_of({0x70738009, 0x20000004, 0xc0456008, 0, 0xc0456008, 0, 0xc0456010, 0,
                       0xc0456000, 0}),
            "[0xc0456008] = [0xc0456008] + [0xc0456010] - [0xc0456000] (64-bit)");
  // CP_REG_TO_MEM: REG 0x3a2, CNT 2, 64B and ACCUMULATE set.
  EXPECT_EQ(fields_of({pkt7_header(0x3e, 3), 0xc00803a2, 0x9000, 1}),
            "reg=RBBM_PERFCTR_CP_1_LO cnt=2 dst=0x100009000 64B ACCUMULATE");
  // CP_INDIRECT_BUFFER: size is bits 19..0 of dword 2, the rest ignored.
  EXPECT_EQ(fields_of({pkt7_header(0x3f, 3), 0x2000, 0x1, 0xfff00010}), "ib=0x100002000 dwords=16");
  EXPECT_EQ(fields_of({pkt4_header(0x0bb1, 2), 2, 3}), "CP_PERFCTR_SEL_1 .. CP_PERFCTR_SEL_2");
  EXPECT_EQ(fields_of({pkt7_header(0x10, 0)}), "");
  EXPECT_EQ(fields_of({pkt7_header(0x3e, 2), 1, 2}), "");  // too short to decode
}

}  // namespace
