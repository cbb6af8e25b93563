// Adreno generations: the device table (FACTS-adreno6 section 1), the names of
// each generation (sections 2.2, 3, 4.1, 5) and the same packet stream read as
// A5XX, A6XX and A7XX. Expected values are typed from the facts sheet, not
// taken from the tables under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "hwpc/adreno/fields.hpp"
#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/generation_names.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "tool_runner.hpp"

namespace {

using namespace hwpc::adreno;

const char* gen_of_chip(std::uint64_t chip) {
  const device* d = find_device_by_chip_id(chip);
  return d == nullptr ? "none" : to_string(d->gen).data();
}

TEST(AdrenoGeneration, ChipIdsResolveThroughTheTable) {
  // Kernel chip ids [K-cat] against Mesa's table ids [M-dev].
  EXPECT_EQ(find_device_by_chip_id(0x06030001)->name, "A630");  // patch wildcard of gpu_id 630
  EXPECT_EQ(find_device_by_chip_id(0x06030002)->name, "A630");
  EXPECT_EQ(find_device_by_chip_id(0x06040001)->name, "A640");
  EXPECT_EQ(find_device_by_chip_id(0x06050002)->name, "A650");
  // Fuse bits set by the kernel when the entry has no revn: the 0xffff rows match.
  EXPECT_EQ(find_device_by_chip_id(0x0001'06030500)->name, "A635");
  EXPECT_EQ(find_device_by_chip_id(0x00be'06030500)->name, "A635");
  EXPECT_EQ(find_device_by_chip_id(0x0003'43050a01)->name, "A740");
  EXPECT_EQ(find_device_by_chip_id(0x0000'43050c01)->name, "X1-85");
  EXPECT_EQ(find_device_by_chip_id(0x0002'43051401)->name, "A750");
  EXPECT_EQ(find_device_by_chip_id(0x07030001)->name, "A730");
  // Generation from the table, never from the core byte: A702 is an A6XX part.
  EXPECT_STREQ(gen_of_chip(0x07000200), "A6XX");
  EXPECT_STREQ(gen_of_chip(0x0000'b207002000), "A6XX");
  EXPECT_STREQ(gen_of_chip(0x07030002), "A7XX");
  EXPECT_STREQ(gen_of_chip(0x43030b00), "A7XX");
  EXPECT_STREQ(gen_of_chip(0x05030002), "A5XX");
  // Unknown ids resolve to nothing (no name is guessed).
  EXPECT_STREQ(gen_of_chip(0x06070001), "none");
  EXPECT_STREQ(gen_of_chip(0x08000000), "none");
  EXPECT_STREQ(gen_of_chip(0), "none");
}

TEST(AdrenoGeneration, ChipIdDecidesAndAZeroGpuIdIsNoId) {
  // Kernel-made A7xx captures: RD_GPU_ID 0, RD_CHIP_ID with the fuse.
  EXPECT_EQ(resolve_device(0, 0x0003'43051401)->name, "A750");
  EXPECT_EQ(resolve_device(0, std::nullopt), nullptr);
  // Mesa's test captures carry only RD_GPU_ID.
  EXPECT_EQ(resolve_device(630, std::nullopt)->gen, generation::a6xx);
  EXPECT_EQ(resolve_device(530, std::nullopt)->gen, generation::a5xx);
  // The chip id wins over the GPU id; the GPU id is used when the chip id is unknown.
  EXPECT_EQ(resolve_device(530, 0x06040001)->name, "A640");
  EXPECT_EQ(resolve_device(640, 0x0a000000)->name, "A640");
  // 0x43050a01 read as core*100+major*10+minor would be 6760: no such id.
  EXPECT_EQ(resolve_device(6760, std::nullopt), nullptr);
}

TEST(AdrenoGeneration, GpuOption) {
  EXPECT_EQ(parse_device("a630")->name, "A630");
  EXPECT_EQ(parse_device("A530")->gen, generation::a5xx);
  EXPECT_EQ(parse_device("x1-85")->gen, generation::a7xx);
  EXPECT_EQ(parse_device("640")->name, "A640");
  EXPECT_EQ(parse_device("0x43050A01")->name, "A740");
  EXPECT_EQ(parse_device("0x000343051401")->name, "A750");
  for (const char* bad : {"", "a999", "0x", "0xzz", "63o", "12345678901", "0x12345678901234567"}) {
    EXPECT_EQ(parse_device(bad), nullptr) << bad;
  }
}

// The same values named per generation (FACTS-adreno6 sections 2.2, 3).
TEST(AdrenoGeneration, OpcodesAndEventsPerGeneration) {
  struct row {
    std::uint32_t v;
    const char *a5, *a6, *a7;
  };
  for (const row& r :
       {row{0x50, "CP_PERFCOUNTER_ACTION", "CP_START_BIN", "CP_START_BIN"},
        row{0x6c, "CP_SET_RENDER_MODE", "CP_PREEMPT_DISABLE", "CP_SCOPE_CNTL"},
        row{0x46, "CP_EVENT_WRITE", "CP_EVENT_WRITE", "CP_EVENT_WRITE7"},
        row{0x14, "", "CP_WAIT_MEM_GTE", "CP_WAIT_TIMESTAMP"},
        row{0x17, "", "", "CP_THREAD_CONTROL"},
        row{0x3a, "CP_COND_INDIRECT_BUFFER_PFE", "", "CP_CCHE_INVALIDATE"},
        row{0x30, "CP_LOAD_STATE4", "", ""}, row{0x36, "", "CP_LOAD_STATE6", "CP_LOAD_STATE6"},
        row{0x6d, "", "CP_REG_WRITE", ""},
        row{0x43, "CP_SET_DRAW_STATE", "CP_SET_DRAW_STATE", "CP_SET_DRAW_STATE"}}) {
    EXPECT_EQ(opcode_name(generation::a5xx, r.v), r.a5) << r.v;
    EXPECT_EQ(opcode_name(generation::a6xx, r.v), r.a6) << r.v;
    EXPECT_EQ(opcode_name(generation::a7xx, r.v), r.a7) << r.v;
    EXPECT_EQ(opcode_name(generation::unknown, r.v), "") << r.v;
  }
  for (const row& r :
       {row{0x01, "PS_DEALLOC", "PS_DEALLOC", "DUMMY_EVENT"},
        row{0x09, "", "WRITE_PRIMITIVE_COUNTS", "WRITE_PRIMITIVE_COUNTS"},
        row{0x1a, "", "PC_CCU_RESOLVE_TS", "CCU_RESOLVE_CLEAN"},
        row{0x28, "BLIT_OP_COPY_2D", "BLIT_OP_COPY_2D", "LRZ_CACHE_INVALIDATE"},
        row{0x31, "", "CACHE_INVALIDATE", "CACHE_CLEAN"}, row{0x33, "", "", "CACHE_INVALIDATE7"},
        row{0x15, "ZPASS_DONE", "ZPASS_DONE", "ZPASS_DONE"}}) {
    EXPECT_EQ(event_name(generation::a5xx, r.v), r.a5) << r.v;
    EXPECT_EQ(event_name(generation::a6xx, r.v), r.a6) << r.v;
    EXPECT_EQ(event_name(generation::a7xx, r.v), r.a7) << r.v;
  }
  // Table sizes: every value the sheet names on that generation.
  std::size_t n6 = 0, n7 = 0;
  for (std::uint32_t o = 0; o < 0x80; ++o) {
    n6 += !opcode_name(generation::a6xx, o).empty();
    n7 += !opcode_name(generation::a7xx, o).empty();
  }
  EXPECT_EQ(n6, 85u);
  EXPECT_EQ(n7, 94u);
}

TEST(AdrenoGeneration, RegistersPerGeneration) {
  // The sample-count control: A5XX 0xe1d1, A6XX/A7XX 0x8891 (sections 4.1 / FACTS-adreno).
  EXPECT_EQ(register_label(generation::a5xx, 0xe1d1), "RB_SAMPLE_COUNT_CONTROL");
  EXPECT_EQ(register_label(generation::a6xx, 0xe1d1), "");
  EXPECT_EQ(register_label(generation::a6xx, 0x8891), "RB_SAMPLE_COUNTER_CNTL");
  EXPECT_EQ(register_label(generation::a7xx, 0x8928), "RB_SAMPLE_COUNTER_BASE_HI");
  EXPECT_EQ(register_label(generation::a7xx, 0x0981), "CP_ALWAYS_ON_COUNTER_HI");
  EXPECT_EQ(register_label(generation::a6xx, 0x054e), "RBBM_PIPESTAT_CINVOCATIONS_LO");
  EXPECT_EQ(register_label(generation::a6xx, 0x9219), "VPC_SO_QUERY_BASE_HI");
  // 0x0400: A5XX RAS counter 0, A6XX CP counter 0, A7XX UFC counter 3 (0x03fa + 2*3);
  // 0x0402 is A6XX CP counter 1 and no A7XX counter (UFC has 4, BV_HLSQ starts at 0x0410).
  EXPECT_EQ(register_label(generation::a5xx, 0x0400), "RBBM_PERFCTR_RAS_0_LO");
  EXPECT_EQ(register_label(generation::a6xx, 0x0400), "RBBM_PERFCTR_CP_0_LO");
  EXPECT_EQ(register_label(generation::a7xx, 0x0400), "RBBM_PERFCTR_UFC_3_LO");
  EXPECT_EQ(register_label(generation::a6xx, 0x0402), "RBBM_PERFCTR_CP_1_LO");
  EXPECT_EQ(register_label(generation::a7xx, 0x0402), "");
  // SELECT registers that moved from A6XX to A7XX (section 5.1).
  EXPECT_EQ(register_label(generation::a6xx, 0xbe10), "HLSQ_PERFCTR_SEL_0");
  EXPECT_EQ(register_label(generation::a7xx, 0xbe10), "");
  EXPECT_EQ(register_label(generation::a7xx, 0xae60), "HLSQ_PERFCTR_SEL_0");
  EXPECT_EQ(register_label(generation::a6xx, 0x0501), "RBBM_PERFCTR_LOAD_CMD0");
  EXPECT_EQ(register_label(generation::a7xx, 0x0501), "");
  EXPECT_EQ(register_label(generation::unknown, 0x8891), "");
}

TEST(AdrenoGeneration, CounterGroups) {
  // 14 groups Mesa exposes on A6XX, plus the kernel's RBBM; 28 on A7XX.
  EXPECT_EQ(counter_groups(generation::a6xx).size(), 15u);
  EXPECT_EQ(counter_groups(generation::a7xx).size(), 28u);
  EXPECT_EQ(counter_groups(generation::unknown).size(), 0u);
  const auto group = [](generation g, std::string_view name) -> const counter_group* {
    for (const auto& c : counter_groups(g)) {
      if (c.name == name) return &c;
    }
    return nullptr;
  };
  // A6XX CP: SEL 0x08d1..0x08dd for counters 1..13, counter 0 reserved.
  const counter_group* cp6 = group(generation::a6xx, "CP");
  ASSERT_NE(cp6, nullptr);
  EXPECT_EQ(cp6->select_reg(1), 0x08d1u);
  EXPECT_EQ(cp6->lo_reg(13), 0x041au);
  EXPECT_EQ(cp6->first_user, 1u);
  EXPECT_EQ(cp6->countables.size(), 50u);
  EXPECT_EQ(cp6->countable(49), "SQE_INSTR_COUNTER");
  const counter_group* sp7 = group(generation::a7xx, "SP");
  ASSERT_NE(sp7, nullptr);
  EXPECT_EQ(sp7->select_reg(23), 0xae97u);
  EXPECT_EQ(sp7->countables.size(), 151u);
  EXPECT_EQ(sp7->countable(150), "SCH_STALL_CYCLES_RTU");
  const counter_group* bvsp = group(generation::a7xx, "BV_SP");
  ASSERT_NE(bvsp, nullptr);
  EXPECT_EQ(bvsp->select_reg(0), 0xae98u);
  EXPECT_EQ(bvsp->lo_reg(11), 0x0440u);
  EXPECT_EQ(bvsp->countables.size(), 151u);  // BR twin's list
  // A reserved placeholder stays empty: A7XX PC countable 3.
  EXPECT_EQ(group(generation::a7xx, "PC")->countable(3), "");
  // Shared SELECT registers (A7XX TSE/RAS/LRZ/HLSQ): the thread decides.
  EXPECT_EQ(find_select(generation::a7xx, 0x8611, cp_thread::br)->group->name, "TSE");
  EXPECT_EQ(find_select(generation::a7xx, 0x8611, cp_thread::bv)->group->name, "BV_TSE");
  EXPECT_EQ(find_select(generation::a7xx, 0x8611, cp_thread::bv)->counter, 1u);
  EXPECT_EQ(find_select(generation::a7xx, 0x9e4a, cp_thread::br)->group->name, "BV_PC");
  EXPECT_EQ(find_counter(generation::a7xx, 0x0493)->group->name, "BV_TSE");
  EXPECT_TRUE(find_counter(generation::a7xx, 0x0493)->high);
}

// One stream, three readings: fields and names follow the generation.
TEST(AdrenoGeneration, SameStreamThreeGenerations) {
  using adreno_rd::pkt7;
  const std::vector<std::uint32_t> payload = {0x08300016, 0x1000, 0};
  std::vector<std::byte> bytes;
  for (auto v : payload) adreno_rd::put32(bytes, v);
  const packet p{header{packet_type::type7, 0x46, 3}, 0, bytes};
  EXPECT_EQ(describe_fields(p, generation::a5xx), "event=RB_DONE_TS addr=0x1000");
  EXPECT_EQ(describe_fields(p, generation::a6xx), "event=RB_DONE_TS (22) addr=0x1000");
  EXPECT_EQ(describe_fields(p, generation::a7xx),
            "event=RB_DONE_TS (22) WRITE_ENABLED src=always-on dst=memory addr=0x1000");
  EXPECT_EQ(describe_fields(p, generation::unknown), "");
}

// An .rd capture names its GPU: the kernel's A7xx form (GPU id 0, chip id
// with fuse) gives A7XX names in the tool's listing; Mesa's A6xx form (GPU id
// only) A6XX names; no id at all gives numbers, and --gpu chooses.
class AdrenoGenerationTool : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::vector<std::byte>& b) {
    const std::string path = ::testing::TempDir() + "/hwpc_gen_" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(b.data(), 1, b.size(), f);
    std::fclose(f);
    return path;
  }
  std::vector<std::byte> capture(std::optional<std::uint32_t> gpu_id,
                                 std::optional<std::uint64_t> chip_id) {
    using namespace adreno_rd;
    writer w;
    if (gpu_id) w.gpu_id(*gpu_id);
    if (chip_id) w.chip_id(*chip_id);
    const dwords ib = {pkt7(0x46, 3),   0x08300016, 0x1000, 0, pkt7(0x50, 5), 2, 0, 0, 0, 0,
                       pkt4(0x0400, 1), 7};
    w.buffer(0x10000, ib);
    w.cmdstream(0x10000, static_cast<std::uint32_t>(ib.size()));
    return w.bytes;
  }
};

TEST_F(AdrenoGenerationTool, ListingNamesFollowTheCapture) {
  using hwpc::testing::run_tool;
  auto a7 = run_tool("adreno " + write("a7.rd", capture(0, 0x0003'43051401)));
  EXPECT_EQ(a7.status, 0) << a7.out;
  EXPECT_NE(a7.out.find("GPU A750 (A7XX)"), std::string::npos) << a7.out;
  EXPECT_NE(a7.out.find("pkt7 CP_EVENT_WRITE7"), std::string::npos) << a7.out;
  EXPECT_NE(a7.out.find("WRITE_ENABLED src=always-on"), std::string::npos) << a7.out;
  EXPECT_NE(a7.out.find("pkt4 write RBBM_PERFCTR_UFC_3_LO"), std::string::npos) << a7.out;
  // CP_EVENT_WRITE7 RB_DONE_TS with WRITE_SRC always-on: a timestamp to 0x1000; the
  // same dwords on A6XX have no TIMESTAMP bit (bit 30), so no event there.
  EXPECT_NE(a7.out.find("=> timestamp (always-on counter, 19.2 MHz) -> 0x1000"), std::string::npos)
      << a7.out;

  auto a6 = run_tool("adreno " + write("a6.rd", capture(630, std::nullopt)), true);
  EXPECT_EQ(a6.status, 0) << a6.out;
  EXPECT_NE(a6.out.find("GPU A630 (A6XX)"), std::string::npos) << a6.out;
  EXPECT_NE(a6.out.find("pkt7 CP_EVENT_WRITE  "), std::string::npos) << a6.out;
  EXPECT_NE(a6.out.find("pkt7 CP_START_BIN"), std::string::npos) << a6.out;
  EXPECT_NE(a6.out.find("pkt4 write RBBM_PERFCTR_CP_0_LO"), std::string::npos) << a6.out;
  EXPECT_EQ(a6.out.find("PERFCOUNTER_ACTION"), std::string::npos) << a6.out;
  EXPECT_EQ(a6.out.find("=> timestamp"), std::string::npos) << a6.out;

  auto a5 = run_tool("adreno " + write("a5.rd", capture(530, std::nullopt)), true);
  EXPECT_NE(a5.out.find("pkt7 CP_PERFCOUNTER_ACTION"), std::string::npos) << a5.out;
  EXPECT_NE(a5.out.find("pkt4 write RBBM_PERFCTR_RAS_0_LO"), std::string::npos) << a5.out;

  const std::string none = write("none.rd", capture(std::nullopt, std::nullopt));
  auto n = run_tool("adreno " + none, true);
  EXPECT_EQ(n.status, 0) << n.out;
  EXPECT_NE(n.out.find("GPU unknown: numbers only (names need a GPU"), std::string::npos);
  EXPECT_NE(n.out.find("pkt7 opcode 0x46"), std::string::npos) << n.out;
  EXPECT_NE(n.out.find("pkt4 write 0x00400"), std::string::npos) << n.out;
  EXPECT_EQ(n.out.find("CP_"), std::string::npos) << n.out;
  auto forced = run_tool("adreno --gpu a640 " + none, true);
  EXPECT_NE(forced.out.find("GPU A640 (A6XX) (--gpu)"), std::string::npos) << forced.out;
  EXPECT_NE(forced.out.find("pkt7 CP_START_BIN"), std::string::npos) << forced.out;
  // Queries and rows need a GPU; an unknown --gpu is a usage error.
  EXPECT_EQ(run_tool("adreno --queries " + none).status, 1);
  EXPECT_EQ(run_tool("adreno --output csv " + none).status, 1);
  auto bad = run_tool("adreno --gpu a999 " + none);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("--gpu: 'a999' is no Adreno"), std::string::npos) << bad.out;
  // The help no longer offers cffdump's listing as input.
  EXPECT_EQ(run_tool("adreno --help").out.find("cffdump"), std::string::npos);
}

TEST(AdrenoGenerationCapture, ReaderResolvesAndForces) {
  struct sink : rd::capture_sink {
    std::vector<std::uint32_t> ops;
    void on_packet(const walked_packet& w) override { ops.push_back(w.pkt.hdr.id); }
    void on_issue(const hwpc::error&) override {}
  } s;
  adreno_rd::writer w;
  w.gpu_id(0);
  w.chip_id(0x0001'43050a01);
  const std::vector<std::byte> bytes = w.bytes;
  rd::capture_reader r(s);
  ASSERT_TRUE(r.read(bytes));
  ASSERT_NE(r.gpu(), nullptr);
  EXPECT_EQ(r.gpu()->name, "A740");
  EXPECT_EQ(r.stats().chip_id, 0x0001'43050a01u);
  EXPECT_EQ(rd::capture_device(bytes)->gen, generation::a7xx);
  r.force_device(parse_device("a530"));
  EXPECT_EQ(r.gpu()->gen, generation::a5xx);
}

}  // namespace
