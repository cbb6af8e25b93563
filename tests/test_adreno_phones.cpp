// What a user sees on captures from Android phones (tests/data/dive/README.md,
// tests/data/mesa-freedreno/README.md): the A540 compute job libwrap wrote for
// Mesa's CI, and Dive's A640 frame, both in libwrap's
// marker dialect. Through the library: the GPU named from the capture with its
// generation, and query rows as for a Linux capture: these captures run no
// query (cffdump's logs hold no counter select or sample, no ZPASS_DONE and no
// RB_DONE_TS timestamp, only cache-flush fences and the binning visibility
// copy), so the CSV is its header alone and the accounting is balanced.
// Through the tool: the same, and the listing's exit status 0 (no issue).
// tests/test_adreno_mesa_traces.cpp compares the packet listing with cffdump.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_input.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_TEST_DATA_DIR
#define HWPC_TEST_DATA_DIR ""
#endif

namespace {

namespace a = hwpc::adreno;

struct phone {
  const char* file;  // under tests/data
  std::string_view gpu;
  a::generation gen;
};

constexpr phone a540{"mesa-freedreno/compute-a540.rd.gz", "A540", a::generation::a5xx};
constexpr phone a640{"dive/bloom-frame-0080-compressed.rd", "A640", a::generation::a6xx};

// The columns of an Adreno capture whose queries sample no counter.
constexpr std::string_view csv_header =
    "report,offset,timestamp,reason,ctx_id,samples_passed,time_elapsed,gpu_time\n";

std::string path_of(const phone& p) { return std::string(HWPC_TEST_DATA_DIR) + "/" + p.file; }

// One pass over the capture: open, name the GPU, write the rows as CSV.
void library_reads(const phone& p) {
  if (!a::have_gzip) GTEST_SKIP() << "built without zlib: the captures are gzip-compressed";
  const std::string path = path_of(p);
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  auto c = a::open_capture(hwpc::capture_source::map(path).value(), {}, {});
  ASSERT_TRUE(c) << c.error_value().describe();
  const auto* q = dynamic_cast<const a::query_capture*>(c->get());
  ASSERT_NE(q, nullptr);
  ASSERT_NE(q->gpu(), nullptr) << "the GPU is named by the capture's own ids";
  EXPECT_EQ(q->gpu()->name, p.gpu);
  EXPECT_EQ(q->gpu()->gen, p.gen);
  // The model a Perfetto trace of the rows names.
  EXPECT_EQ((*c)->writer_parts({hwpc::output::writer_kind::perfetto}).model, p.gpu);
  EXPECT_TRUE((*c)->warnings().empty()) << (*c)->warnings().front();

  hwpc::output::text_buffer csv;
  auto acc = (*c)->write({hwpc::output::output_choice{}}, csv);
  ASSERT_TRUE(acc) << acc.error_value().describe();
  EXPECT_EQ(csv.str(), csv_header);
  EXPECT_TRUE(acc->balanced());
  EXPECT_EQ(acc->intervals, 0u);
  EXPECT_FALSE(acc->anything_dropped());
}

TEST(AdrenoPhones, A540ComputeJobNamesItsGpuAndHasNoQueryRows) { library_reads(a540); }
TEST(AdrenoPhones, A640FrameNamesItsGpuAndHasNoQueryRows) { library_reads(a640); }

class AdrenoPhonesTool : public hwpc::testing::tool_test {};

// The tool on both captures: the listing names the GPU and exits 0,
// --output csv writes the header alone and exits 0.
TEST_F(AdrenoPhonesTool, ListingAndCsvAsAUserSeesThem) {
  if (!a::have_gzip) GTEST_SKIP() << "built without zlib: the captures are gzip-compressed";
  for (const phone& p : {a540, a640}) {
    SCOPED_TRACE(p.file);
    const auto list = hwpc::testing::run_tool("adreno " + path_of(p), true);
    EXPECT_EQ(list.status, 0) << "no issue in the listing";
    EXPECT_EQ(list.out.rfind("GPU " + std::string(p.gpu) +
                                 (p.gen == a::generation::a5xx ? " (A5XX)\n" : " (A6XX)\n"),
                             0),
              0u)
        << list.out.substr(0, 200);
    const auto csv = hwpc::testing::run_tool("adreno --output csv " + path_of(p), true);
    EXPECT_EQ(csv.status, 0);
    EXPECT_EQ(csv.out, csv_header);
  }
}

// The A5XX preemption buffers by hand (layouts from Mesa's decoder,
// docs/adreno.md "Captures from phones"): CP_SET_RENDER_MODE with 8 payload
// dwords walks the buffer of dw6-7 (dw5 dwords; dw1-2 is data, never walked),
// with 1 dword none; CP_COMPUTE_CHECKPOINT with 7 payload dwords takes its
// length from dw4, with 8 from dw7; each buffer one level down, right after
// its packet. On A6XX 0x6c is CP_PREEMPT_DISABLE: nothing is walked.
struct walked {
  std::uint32_t id;
  std::size_t offset;
  unsigned depth;
};
struct collect final : a::rd::capture_sink {
  std::vector<walked> packets;
  std::vector<hwpc::error> issues;
  void on_packet(const a::walked_packet& p) override {
    packets.push_back({p.pkt.hdr.id, p.pkt.offset, p.depth});
  }
  void on_issue(const hwpc::error& e) override { issues.push_back(e); }
};

TEST(AdrenoPhones, A5xxPreemptionBuffersAreWalkedWhereTheyAreSet) {
  using adreno_rd::pkt7;
  const adreno_rd::dwords main = {pkt7(0x6c, 8),
                                  1,
                                  0x50000,
                                  0,
                                  0,
                                  3,
                                  2,
                                  0x60000,
                                  0,  // render mode: 2 dwords at 0x60000
                                  pkt7(0x6e, 7),
                                  0x50000,
                                  0,
                                  0x18,
                                  3,
                                  1,
                                  0x70000,
                                  0,  // checkpoint: dw4 = 1 dword
                                  pkt7(0x6e, 8),
                                  0x50000,
                                  0,
                                  0x18,
                                  3,
                                  9,
                                  0x70000,
                                  0,
                                  1,  // checkpoint: dw7 = 1 dword
                                  pkt7(0x6c, 1),
                                  1,  // render mode alone: no buffer
                                  pkt7(0x26, 0)};
  std::size_t at_main = 0, at_render = 0, at_checkpoint = 0;
  const auto write = [&](bool a5) {
    adreno_rd::writer w;
    w.libwrap = true;
    w.gpu_id(a5 ? 540 : 630);
    at_main = w.buffer(0x10000, main);
    w.buffer(0x50000, {pkt7(0x10, 1), 0xdead});  // data: a NOP would show if it were walked
    at_render = w.buffer(0x60000, {pkt7(0x10, 1), 0xa});
    at_checkpoint = w.buffer(0x70000, {pkt7(0x26, 0)});
    w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
    return w.bytes;
  };
  const auto a5 = write(true);
  collect s;
  a::rd::capture_reader r(s);
  ASSERT_TRUE(r.read(a5));
  EXPECT_TRUE(s.issues.empty());
  const std::vector<std::pair<std::uint32_t, unsigned>> want = {
      {0x6c, 0}, {0x10, 1}, {0x6e, 0}, {0x26, 1}, {0x6e, 0}, {0x26, 1}, {0x6c, 0}, {0x26, 0}};
  ASSERT_EQ(s.packets.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(s.packets[i].id, want[i].first) << i;
    EXPECT_EQ(s.packets[i].depth, want[i].second) << i;
  }
  EXPECT_EQ(s.packets[0].offset, at_main);
  EXPECT_EQ(s.packets[1].offset, at_render);
  EXPECT_EQ(s.packets[2].offset, at_main + 9 * 4);
  EXPECT_EQ(s.packets[3].offset, at_checkpoint);
  EXPECT_EQ(s.packets[5].offset, at_checkpoint);
  EXPECT_EQ(r.walk().ibs_followed, 4u);  // the stream and the three buffers

  collect s6;
  a::rd::capture_reader r6(s6);
  const auto a6 = write(false);
  ASSERT_TRUE(r6.read(a6));
  EXPECT_TRUE(s6.issues.empty());
  EXPECT_EQ(s6.packets.size(), 5u) << "on A6XX no buffer is walked";
}

// A CP_COMPUTE_CHECKPOINT too short to name a buffer is an issue at its offset.
TEST(AdrenoPhones, ShortComputeCheckpointIsAnIssueAtItsOffset) {
  using adreno_rd::pkt7;
  const adreno_rd::dwords main = {pkt7(0x26, 0), pkt7(0x6e, 3), 0x70000, 0, 4, pkt7(0x26, 0)};
  adreno_rd::writer w;
  w.gpu_id(540);
  const std::size_t at = w.buffer(0x10000, main);
  w.buffer(0x70000, {pkt7(0x26, 0)});
  w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  collect s;
  a::rd::capture_reader r(s);
  ASSERT_TRUE(r.read(w.bytes));
  ASSERT_EQ(s.issues.size(), 1u);
  EXPECT_EQ(s.issues[0].offset, at + 4);
  EXPECT_NE(s.issues[0].message.find("CP_COMPUTE_CHECKPOINT needs 7 payload dwords, has 3"),
            std::string::npos)
      << s.issues[0].message;
  EXPECT_EQ(s.packets.size(), 3u);
}

}  // namespace
