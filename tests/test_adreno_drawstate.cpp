// A6XX/A7XX walking: CP_SET_DRAW_STATE group buffers (FACTS-adreno6 sections
// 2.3 and 6.2) and CP_START_BIN prefixes, entered with the IB guards, their
// packets tagged with group and pass (CP_SET_MARKER render mode). Captures
// are built by hand with tests/adreno_rd_writer.hpp; expected offsets are
// worked out from the bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "tool_runner.hpp"

namespace {

using namespace hwpc::adreno;
using adreno_rd::dwords;
using adreno_rd::pkt4;
using adreno_rd::pkt7;

struct seen {
  std::uint32_t id;
  std::size_t offset;
  unsigned depth;
  int group;
  unsigned pass;
};

struct collect : rd::capture_sink {
  std::vector<seen> packets;
  std::vector<hwpc::error> issues, notes;
  void on_packet(const walked_packet& w) override {
    packets.push_back({w.pkt.hdr.id, w.pkt.offset, w.depth, w.group, w.pass});
  }
  void on_issue(const hwpc::error& e) override { issues.push_back(e); }
  void on_note(const hwpc::error& e) override { notes.push_back(e); }
};

// dword 0 of a group record: COUNT, flags, GROUP_ID.
std::uint32_t record0(std::uint32_t group, std::uint32_t count, std::uint32_t flags = 0) {
  return (group << 24) | flags | count;
}
constexpr std::uint32_t binning = 1u << 20, gmem = 1u << 21, disable = 1u << 17;

struct built {
  std::vector<std::byte> bytes;
  std::size_t main_at = 0, g3_at = 0, g7_at = 0;
};

// Main buffer at 0x10000: CP_SET_MARKER (RM6_BIN_VISIBILITY), CP_SET_DRAW_STATE
// with three records (group 3: 2 dwords at 0x30000; group 5: disabled; group 7:
// 3 dwords at 0x40000), then CP_WAIT_FOR_IDLE.
built capture(std::optional<std::uint32_t> gpu_id, std::uint64_t g7_address = 0x40000) {
  adreno_rd::writer w;
  built b;
  if (gpu_id) w.gpu_id(*gpu_id);
  const dwords main = {pkt7(0x65, 1),
                       2,
                       pkt7(0x43, 9),
                       record0(3, 2, binning),
                       0x30000,
                       0,
                       record0(5, 0, disable),
                       0,
                       0,
                       record0(7, 3, binning | gmem),
                       static_cast<std::uint32_t>(g7_address),
                       static_cast<std::uint32_t>(g7_address >> 32),
                       pkt7(0x26, 0)};
  b.main_at = w.buffer(0x10000, main);
  b.g3_at = w.buffer(0x30000, {pkt4(0x8891, 1), 2});
  b.g7_at = w.buffer(0x40000, {pkt7(0x10, 2), 0xaa, 0xbb});
  w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  b.bytes = w.bytes;
  return b;
}

TEST(AdrenoDrawState, GroupsAreWalkedWithGroupAndPass) {
  const built b = capture(630);
  collect s;
  rd::capture_reader r(s);
  ASSERT_TRUE(r.read(b.bytes));
  EXPECT_TRUE(s.issues.empty()) << s.issues.front().describe();
  ASSERT_EQ(s.packets.size(), 5u);
  // marker, draw state, group 3's write, group 7's NOP, then the main buffer goes on.
  EXPECT_EQ(s.packets[0].id, 0x65u);
  EXPECT_EQ(s.packets[0].pass, 2u);  // the marker's own mode
  EXPECT_EQ(s.packets[1].id, 0x43u);
  EXPECT_EQ(s.packets[1].offset, b.main_at + 8);
  EXPECT_EQ(s.packets[2].id, 0x8891u);
  EXPECT_EQ(s.packets[2].offset, b.g3_at);
  EXPECT_EQ(s.packets[2].depth, 1u);
  EXPECT_EQ(s.packets[2].group, 3);
  EXPECT_EQ(s.packets[2].pass, 2u);
  EXPECT_EQ(s.packets[3].id, 0x10u);
  EXPECT_EQ(s.packets[3].offset, b.g7_at);
  EXPECT_EQ(s.packets[3].group, 7);
  EXPECT_EQ(s.packets[4].id, 0x26u);
  EXPECT_EQ(s.packets[4].offset, b.main_at + 4 * 12);
  EXPECT_EQ(s.packets[4].group, -1);
  EXPECT_EQ(s.packets[4].depth, 0u);
  EXPECT_EQ(r.walk().ibs_followed, 3u);  // the cmdstream and two groups
}

TEST(AdrenoDrawState, NotWalkedOnA5xxNorWithoutAGpu) {
  for (std::optional<std::uint32_t> id :
       {std::optional<std::uint32_t>(530), std::optional<std::uint32_t>()}) {
    collect s;
    rd::capture_reader r(s);
    const built b = capture(id);
    ASSERT_TRUE(r.read(b.bytes));
    EXPECT_EQ(s.packets.size(), 3u);
    EXPECT_TRUE(s.issues.empty());
  }
}

TEST(AdrenoDrawState, MissingCycleDepthAndBudget) {
  {  // A group address no dumped buffer covers: a missing command stream.
    collect s;
    rd::capture_reader r(s);
    const built b = capture(640, 0x90000);
    ASSERT_TRUE(r.read(b.bytes));
    ASSERT_EQ(s.issues.size(), 1u);
    EXPECT_EQ(s.issues[0].offset, b.main_at + 8);
    EXPECT_NE(s.issues[0].message.find("missing command stream: 0x90000 (3 dwords)"),
              std::string::npos)
        << s.issues[0].message;
    EXPECT_EQ(s.packets.size(), 4u);  // group 3's packet and the rest are still there
  }
  {  // A group whose buffer is the one being executed: a cycle, not followed.
    collect s;
    rd::capture_reader r(s);
    const built b = capture(640, 0x10000);
    ASSERT_TRUE(r.read(b.bytes));
    ASSERT_EQ(s.issues.size(), 1u);
    EXPECT_NE(s.issues[0].message.find("cycle"), std::string::npos) << s.issues[0].message;
  }
  {  // Group buffers that set the next group, deeper than max_depth.
    adreno_rd::writer w;
    w.gpu_id(640);
    const unsigned levels = 10;
    for (unsigned i = 0; i < levels; ++i) {
      const std::uint64_t next = 0x100000 + 0x1000 * (i + 1);
      w.buffer(0x100000 + 0x1000 * i,
               {pkt7(0x43, 3), record0(i, 4), static_cast<std::uint32_t>(next), 0});
    }
    w.cmdstream(0x100000, 4);
    collect s;
    rd::capture_reader r(s, walk_options{.max_depth = 4});
    ASSERT_TRUE(r.read(w.bytes));
    ASSERT_EQ(s.issues.size(), 1u);
    EXPECT_NE(s.issues[0].message.find("nesting deeper than 4"), std::string::npos);
    EXPECT_EQ(s.packets.size(), 4u);
  }
  {  // CP_START_BIN with 2^32-1 bins over a missing prefix: one issue, and one note for
     // the other bins (they were 2^16 issues, up to the budget, before).
    adreno_rd::writer w;
    w.gpu_id(650);
    const dwords main = {pkt7(0x50, 5), 0xffffffff, 0x80000, 0, 4, 0, pkt7(0x26, 0)};
    const std::size_t at = w.buffer(0x10000, main);
    w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
    collect s;
    rd::capture_reader r(s, walk_options{.max_dwords = 1000});
    ASSERT_TRUE(r.read(w.bytes));
    EXPECT_FALSE(r.walk().budget_exhausted);
    ASSERT_EQ(s.issues.size(), 1u);
    EXPECT_EQ(s.issues[0].offset, at);
    EXPECT_NE(s.issues[0].message.find("missing command stream: 0x80000 (4 dwords)"),
              std::string::npos);
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_NE(s.notes[0].message.find("the other 4294967294 bin prefix buffers"), std::string::npos)
        << s.notes[0].message;
    EXPECT_EQ(s.packets.size(), 2u);  // CP_START_BIN and the CP_WAIT_FOR_IDLE after it
  }
  {  // Bins whose prefixes all exist: the budget still bounds 2^32 of them.
    adreno_rd::writer w;
    w.gpu_id(650);
    const dwords main = {pkt7(0x50, 5), 0xffffffff, 0x80000, 0, 1, 0};
    w.buffer(0x10000, main);
    w.buffer(0x80000, dwords(1 << 16, pkt7(0x26, 0)));  // 65536 one-dword prefixes
    w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
    collect s;
    rd::capture_reader r(s, walk_options{.max_dwords = 1000});
    ASSERT_TRUE(r.read(w.bytes));
    EXPECT_TRUE(r.walk().budget_exhausted);
    ASSERT_EQ(s.issues.size(), 1u);
    EXPECT_NE(s.issues[0].message.find("walk stopped"), std::string::npos);
    EXPECT_LE(s.packets.size(), 1000u);
  }
}

TEST(AdrenoDrawState, BinPrefixesOnePerBin) {
  adreno_rd::writer w;
  w.gpu_id(650);
  // Two bins, prefix 2 dwords each at 0x50000 and 0x50008.
  const dwords main = {pkt7(0x50, 5), 2, 0x50000, 0, 2, 2, pkt7(0x26, 0), pkt7(0x51, 0)};
  const std::size_t at = w.buffer(0x10000, main);
  const std::size_t pre = w.buffer(0x50000, {pkt7(0x10, 1), 1, pkt7(0x10, 1), 2});
  w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  collect s;
  rd::capture_reader r(s);
  ASSERT_TRUE(r.read(w.bytes));
  EXPECT_TRUE(s.issues.empty());
  ASSERT_EQ(s.packets.size(), 5u);
  EXPECT_EQ(s.packets[1].offset, pre);
  EXPECT_EQ(s.packets[2].offset, pre + 8);
  EXPECT_EQ(s.packets[2].depth, 1u);
  EXPECT_EQ(s.packets[3].offset, at + 24);
  EXPECT_EQ(s.packets[4].id, 0x51u);
}

// CP_SET_AMBLE (A6XX/A7XX): its IB (dw2 bits 19:0 dwords, bits 21:20 the
// amble's type) is listed where it is set, one level down; CP_FIXED_STRIDE_DRAW_TABLE
// (A7XX): COUNT entries of STRIDE dwords (dw2 bits 31:20), one after the other.
TEST(AdrenoDrawState, AmbleAndDrawTableBuffersAreWalked) {
  adreno_rd::writer w;
  w.chip_id(0x0002'43051401);                                             // A750
  const dwords main = {pkt7(0x55, 3), 0x60000, 0, (2u << 20) | 2,         // postamble, 2 dwords
                       pkt7(0x7f, 4), 0x70000, 0, (2u << 20) | 0x123, 3,  // 3 entries of 2 dwords
                       pkt7(0x26, 0)};
  const std::size_t at = w.buffer(0x10000, main);
  const std::size_t amble = w.buffer(0x60000, {pkt7(0x10, 1), 0xa});
  const std::size_t table =
      w.buffer(0x70000, {pkt7(0x10, 1), 1, pkt7(0x10, 1), 2, pkt7(0x10, 1), 3});
  w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  collect s;
  rd::capture_reader r(s);
  ASSERT_TRUE(r.read(w.bytes));
  EXPECT_TRUE(s.issues.empty());
  ASSERT_EQ(s.packets.size(), 7u);
  EXPECT_EQ(s.packets[0].id, 0x55u);
  EXPECT_EQ(s.packets[1].offset, amble);
  EXPECT_EQ(s.packets[1].depth, 1u);
  EXPECT_EQ(s.packets[2].id, 0x7fu);
  EXPECT_EQ(s.packets[2].offset, at + 16);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(s.packets[3 + i].offset, table + 8 * i);
    EXPECT_EQ(s.packets[3 + i].depth, 1u);
  }
  EXPECT_EQ(s.packets[6].id, 0x26u);
  EXPECT_EQ(s.packets[6].depth, 0u);
  EXPECT_EQ(r.walk().ibs_followed, 5u);  // the cmdstream, the amble and three entries

  // The same stream as A6XX: the amble is walked, 0x7f is no draw table there.
  adreno_rd::writer w6;
  w6.gpu_id(630);
  w6.buffer(0x10000, main);
  w6.buffer(0x60000, {pkt7(0x10, 1), 0xa});
  w6.buffer(0x70000, {pkt7(0x10, 1), 1, pkt7(0x10, 1), 2, pkt7(0x10, 1), 3});
  w6.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  collect s6;
  rd::capture_reader r6(s6);
  ASSERT_TRUE(r6.read(w6.bytes));
  EXPECT_EQ(s6.packets.size(), 4u);
}

// A draw table whose buffer was not dumped says so once for all its entries.
TEST(AdrenoDrawState, DrawTableNotDumpedIsOneNote) {
  adreno_rd::writer w;
  w.chip_id(0x0002'43051401);
  const dwords main = {pkt7(0x7f, 4), 0x90000, 0, (2u << 20), 1000, pkt7(0x26, 0)};
  w.buffer(0x10000, main);
  w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  collect s;
  rd::capture_reader r(s);
  ASSERT_TRUE(r.read(w.bytes));
  EXPECT_EQ(s.packets.size(), 2u);
  EXPECT_LE(s.issues.size() + s.notes.size(), 2u);
  bool said = false;
  for (const hwpc::error& e : s.notes)
    said |= e.message.find("the other 999 draw-table entry buffers") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(AdrenoDrawState, ToolListsGroupAndPass) {
  const built b = capture(630);
  const std::string path = ::testing::TempDir() + "/hwpc_drawstate.rd";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(b.bytes.data(), 1, b.bytes.size(), f);
  std::fclose(f);
  auto r = hwpc::testing::run_tool("adreno " + path, true);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("pkt4 write RB_SAMPLE_COUNTER_CNTL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[draw-state group 3, RM6_BIN_VISIBILITY]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[group 3 count=2 BINNING addr=0x30000]"), std::string::npos) << r.out;
}

}  // namespace

namespace {

std::string write_file(const std::string& name, const std::vector<std::byte>& b) {
  const std::string path = ::testing::TempDir() + "/hwpc_drawstate_" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(b.data(), 1, b.size(), f);
  std::fclose(f);
  return path;
}

// --packets --output csv|json: the listing as records, numbers beside names.
TEST(AdrenoDrawState, PacketListingAsRecords) {
  using hwpc::testing::run_tool;
  const built b = capture(630);
  const std::string rd = write_file("records.rd", b.bytes);
  auto csv = run_tool("adreno --packets --output csv " + rd);
  EXPECT_EQ(csv.status, 0) << csv.out;
  EXPECT_EQ(csv.out.rfind("offset,gpu_address,depth,group,pass,type,id,name,count,payload,event,"
                          "event_name\n",
                          0),
            0u)
      << csv.out;
  EXPECT_NE(csv.out.find("\n" + std::to_string(b.g3_at) +
                         ",0x30000,1,3,RM6_BIN_VISIBILITY,4,0x8891,RB_SAMPLE_COUNTER_CNTL,1,"
                         "00000002,,\n"),
            std::string::npos)
      << csv.out;
  EXPECT_NE(csv.out.find("\n" + std::to_string(b.main_at) +
                         ",0x10000,0,,RM6_BIN_VISIBILITY,7,0x65,CP_SET_MARKER,1,00000002,,\n"),
            std::string::npos)
      << csv.out;
  std::size_t lines = 0;
  for (char c : csv.out) lines += c == '\n';
  EXPECT_EQ(lines, 6u);  // header + 5 packets, nothing else on stdout
  auto js = run_tool("adreno --packets --output json " + rd);
  EXPECT_EQ(js.status, 0) << js.out;
  EXPECT_NE(js.out.find("{\"offset\":" + std::to_string(b.g7_at) +
                        ",\"gpu_address\":\"0x40000\",\"depth\":1,\"group\":7,\"pass\":"
                        "\"RM6_BIN_VISIBILITY\",\"type\":7,\"id\":\"0x10\",\"name\":\"CP_NOP\","
                        "\"count\":2,\"payload\":\"000000aa 000000bb\",\"event\":null,"
                        "\"event_name\":null}"),
            std::string::npos)
      << js.out;
  EXPECT_EQ(js.out.front(), '[');
  EXPECT_EQ(js.out.substr(js.out.size() - 3), "\n]\n");

  // An event, named per generation, its number always there.
  std::vector<std::byte> ev;
  adreno_rd::put32(ev, pkt7(0x46, 1));
  adreno_rd::put32(ev, 0x31);
  const std::string bin = write_file("event.bin", ev);
  EXPECT_NE(run_tool("adreno --packets --output csv --gpu a630 " + bin)
                .out.find("0,0x0,0,,,7,0x46,CP_EVENT_WRITE,1,00000031,49,CACHE_INVALIDATE\n"),
            std::string::npos);
  EXPECT_NE(run_tool("adreno --packets --output csv --gpu a740 " + bin)
                .out.find("0,0x0,0,,,7,0x46,CP_EVENT_WRITE7,1,00000031,49,CACHE_CLEAN\n"),
            std::string::npos);
  auto none = run_tool("adreno --packets --output csv " + bin);
  EXPECT_NE(none.out.find("0,0x0,0,,,7,0x46,,1,00000031,49,\n"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("note: the input names no GPU"), std::string::npos) << none.out;
  // --packets belongs with --output csv or json only.
  EXPECT_EQ(run_tool("adreno --packets " + bin).status, 1);
  EXPECT_EQ(run_tool("adreno --packets --output perfetto " + bin + " > /dev/null").status, 1);
  EXPECT_EQ(run_tool("adreno --packets --output csv --summary " + bin).status, 1);
}

}  // namespace
