// hwpc's walk of Mesa's freedreno CI captures, and of phone captures, against
// the listings Mesa's own decoder (cffdump) prints for them
// (tests/data/mesa-freedreno/README.md, tests/data/dive/README.md): every
// packet cffdump lists is listed by hwpc at the same GPU address with the
// same header dword, the same count and the same IB depth.
//
// The log is read for its packets only. A packet's title ("opcode: NAME" for
// type 7, "write REG" for type 4; logs of 2021 put "t7"/"t4" before it) is
// indented by its level, and its hex line ("ADDRESS:<tabs>0000: HEADER ...")
// comes at the same indentation, after whatever cffdump prints for the
// buffers the packet names (an IB's packets, a CP_SET_RENDER_MODE's buffer)
// at deeper levels. cffdump also dumps data buffers in the same hex form (a
// register's target, shaders, the buffer just walked); those have no title at
// their indentation, and a title is matched only by a valid header of its
// type, so they are not taken for packets. Every title must find its packet.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/pipeline/adreno_input.hpp"
#include "hwpc/pipeline/adreno_packets.hpp"

#ifndef HWPC_TEST_DATA_DIR
#define HWPC_TEST_DATA_DIR ""
#endif

namespace {

using namespace hwpc::adreno;

[[maybe_unused]] std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = static_cast<std::byte>(s[i]);
  return out;
}

struct log_packet {
  std::uint64_t address;
  unsigned tabs;  // cffdump's indentation of the packet
  std::uint32_t header;
};

struct log_listing {
  std::vector<log_packet> packets;  // in the log's order
  std::size_t titles = 0;
  std::size_t unmatched = 0;  // titles whose packet line was not found
};

[[maybe_unused]] std::uint32_t hex32(const std::string& s, std::size_t at) {
  return static_cast<std::uint32_t>(std::stoul(s.substr(at, 8), nullptr, 16));
}

// The packets of a cffdump log.
[[maybe_unused]] log_listing log_packets(const std::string& text) {
  log_listing out;
  // The packet type whose title waits at each indentation, or -1.
  std::vector<int> waiting(32, -1);
  const auto forget_deeper = [&](std::size_t tabs) {
    for (std::size_t i = tabs + 1; i < waiting.size(); ++i) {
      if (waiting[i] >= 0) ++out.unmatched;
      waiting[i] = -1;
    }
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    // A title: ["t4"|"t7"] tabs ("opcode: " | "write ").
    std::size_t t = 0;
    if (line.size() > 2 && line[0] == 't' && (line[1] == '4' || line[1] == '7') &&
        line[2] == '\t') {
      t = 2;
    }
    const std::size_t tabs_at = t;
    while (t < line.size() && line[t] == '\t') ++t;
    if (t > tabs_at && t - tabs_at < waiting.size()) {
      const std::size_t tabs = t - tabs_at;
      const int type = line.compare(t, 8, "opcode: ") == 0 ? 7
                       : line.compare(t, 6, "write ") == 0 ? 4
                                                           : -1;
      if (type >= 0) {
        ++out.titles;
        forget_deeper(tabs - 1);
        waiting[tabs] = type;
        continue;
      }
    }
    // A hex line: ADDRESS ':' tabs "0000: " dwords.
    const std::size_t colon = line.find(':');
    if (colon < 8 || colon > 16) continue;
    if (line.find_first_not_of("0123456789abcdef") != colon) continue;
    t = colon + 1;
    while (t < line.size() && line[t] == '\t') ++t;
    const std::size_t tabs = t - colon - 1;
    if (tabs >= waiting.size() || waiting[tabs] < 0) continue;
    if (line.compare(t, 6, "0000: ") != 0 || line.size() < t + 14) continue;
    const std::uint32_t h = hex32(line, t + 6);
    const decoded_header d = decode_header(h);
    if (d.status != header_status::ok || static_cast<int>(h >> 28) != waiting[tabs]) continue;
    out.packets.push_back(
        {std::stoull(line.substr(0, colon), nullptr, 16), static_cast<unsigned>(tabs), h});
    waiting[tabs] = -1;
    forget_deeper(tabs);
  }
  forget_deeper(0);
  return out;
}

struct listed {
  std::uint32_t header;
  unsigned tabs;  // the indentation cffdump gives this packet
  bool in_group;
};

// cffdump's indentation of a packet hwpc lists: 2 tabs for the stream a
// submit names, one more per IB level (an IB call, a bin prefix, a draw-table
// entry), and two more for the buffer of a CP_SET_DRAW_STATE group, a
// CP_SET_AMBLE and, on A5XX, a CP_SET_RENDER_MODE or CP_COMPUTE_CHECKPOINT:
// cffdump walks those from the packet's own level plus one. hwpc walks each
// of them one level under the packet that names it, so the packet's parent
// (the last packet listed one level up) says which.
struct lister : listing_sink {
  explicit lister(generation g) : gen(g) {}
  generation gen;
  std::multimap<std::uint64_t, listed> by_address;
  std::vector<std::uint32_t> parent_header;
  std::vector<unsigned> parent_tabs;
  std::size_t packets = 0, issues = 0;

  unsigned extra_level(std::uint32_t parent) const {
    const decoded_header d = decode_header(parent);
    if (d.hdr.type != packet_type::type7) return 0;
    switch (d.hdr.id) {
      case op::cp_set_draw_state:
        return 1;
      case op::cp_set_amble:
        return gen == generation::a6xx || gen == generation::a7xx ? 1 : 0;
      case op::cp_set_render_mode:
      case op::cp_compute_checkpoint:
        return gen == generation::a5xx ? 1 : 0;
      default:
        return 0;
    }
  }

  void on_packet(const walked_packet& p) override {
    // decode_header accepted the dword, and every bit of an accepted header
    // is a field or a parity of one: encode() gives the dword back.
    const std::uint32_t header = encode(p.pkt.hdr);
    unsigned tabs = 2;
    if (p.depth > 0) {
      tabs = parent_tabs.at(p.depth - 1) + 1 + extra_level(parent_header.at(p.depth - 1));
    }
    if (parent_header.size() <= p.depth) {
      parent_header.resize(p.depth + 1);
      parent_tabs.resize(p.depth + 1);
    }
    parent_header[p.depth] = header;
    parent_tabs[p.depth] = tabs;
    by_address.insert({p.gpu_addr, {header, tabs, p.group >= 0}});
    ++packets;
  }
  void on_issue(const hwpc::error&) override { ++issues; }
};

struct capture_case {
  std::string dir;  // under tests/data
  std::string rd;   // gzip-compressed capture
  std::string log;  // gzip-compressed cffdump log
  std::string_view gpu;
  std::size_t log_packets;
  std::size_t hwpc_packets;  // hwpc lists more: every draw-state group and tile
  std::size_t issues;        // buffers the capture calls but does not hold (F6 6.3)
  bool groups;               // draw-state group packets are among those compared
};

void compare(const capture_case& c) {
#ifndef HWPC_HAVE_ZLIB
  (void)c;
  GTEST_SKIP() << "built without zlib: the captures are gzip-compressed";
#else
  {
    const std::string dir = std::string(HWPC_TEST_DATA_DIR) + "/" + c.dir + "/";
    const auto rd_gz = read_bytes(dir + c.rd);
    const auto log_gz = read_bytes(dir + c.log);
    ASSERT_FALSE(rd_gz.empty()) << dir + c.rd;
    ASSERT_FALSE(log_gz.empty()) << dir + c.log;
    auto log = gunzip(log_gz);
    ASSERT_TRUE(log);
    const std::string text(reinterpret_cast<const char*>(log->data()), log->size());
    const log_listing want = log_packets(text);
    ASSERT_EQ(want.packets.size(), c.log_packets);
    EXPECT_EQ(want.unmatched, 0u) << "every title of the log has its packet line";
    EXPECT_EQ(want.titles, want.packets.size());

    // The capture is read as the tool lists it: opened from its path
    // (mapped, inflated a block at a time, never held whole) and walked with the generation of the
    // GPU its ids name.
    auto in = capture_input::open(hwpc::capture_source::map(dir + c.rd).value(), {}, {});
    ASSERT_TRUE(in) << in.error_value().describe();
    ASSERT_NE(in->gpu(), nullptr);
    EXPECT_EQ(in->gpu()->name, c.gpu);
    lister l(in->gpu()->gen);
    auto walked = walk_packets(*in, l);
    ASSERT_TRUE(walked) << walked.error_value().describe();
    EXPECT_EQ(l.issues, c.issues);
    EXPECT_EQ(walked->issues, c.issues);
    EXPECT_FALSE(walked->budget_exhausted);
    EXPECT_EQ(l.packets, c.hwpc_packets);

    std::size_t found = 0, in_groups = 0;
    for (const log_packet& w : want.packets) {
      bool ok = false;
      const auto [b, e] = l.by_address.equal_range(w.address);
      for (auto it = b; it != e; ++it) {
        const listed& h = it->second;
        if (h.header == w.header && h.tabs == w.tabs) {
          ok = true;
          in_groups += h.in_group ? 1 : 0;
          break;
        }
      }
      EXPECT_TRUE(ok) << c.rd << ": cffdump's packet at 0x" << std::hex << w.address << " header 0x"
                      << w.header << " (" << std::dec << w.tabs
                      << " tabs) is not in hwpc's listing with that header, count and depth";
      found += ok ? 1 : 0;
    }
    EXPECT_EQ(found, want.packets.size());
    if (c.groups) {
      EXPECT_GT(in_groups, 0u) << "draw-state group packets are compared too";
    }
  }
#endif
}

TEST(AdrenoMesaTraces, LogParserTakesTitledPacketsOnly) {
  // A title, a data dump at another indentation that looks like a packet, the
  // nested buffer's packet, then the titled packet's own line (cffdump's
  // order for CP_SET_RENDER_MODE); and the 2021 form with "t7".
  const std::string text =
      "\t\topcode: CP_SET_RENDER_MODE (6c) (9 dwords)\n"
      "0000000500015000:\t\t\t\t0000: 00000000 00000000\n"
      "\t\t\t\twrite GRAS_LRZ_CNTL (e100)\n"
      "000000050001f010:\t\t\t\t0000: 48e10001 00000008\n"
      "000000050001f010:\t\t\t0000: 48e10001 00000008\n"
      "0000000500190000:\t\t0000: 70ec0008 00000001\n"
      "t7\t\topcode: CP_WAIT_FOR_IDLE (26) (1 dwords)\n"
      "0000000500190024:\t\t0000: 70268000\n";
  const log_listing got = log_packets(text);
  ASSERT_EQ(got.packets.size(), 3u);
  EXPECT_EQ(got.unmatched, 0u);
  EXPECT_EQ(got.packets[0].address, 0x50001f010u);
  EXPECT_EQ(got.packets[0].tabs, 4u);
  EXPECT_EQ(got.packets[1].header, 0x70ec0008u);
  EXPECT_EQ(got.packets[1].tabs, 2u);
  EXPECT_EQ(got.packets[2].header, 0x70268000u);
  // A title whose packet line never comes is counted.
  EXPECT_EQ(log_packets("\t\topcode: CP_NOP (10) (1 dwords)\n\t\topcode: X (10)\n").unmatched, 2u);
}

TEST(AdrenoMesaTraces, FdCloudsA630ListsEveryPacketCffdumpLists) {
  compare({"mesa-freedreno", "fd-clouds.rd.gz", "fd-clouds.log.gz", "A630", 573, 3030, 3, true});
}

TEST(AdrenoMesaTraces, TurnipIndirectDrawCountA640ListsEveryPacketCffdumpLists) {
  compare({"mesa-freedreno", "vk-indirect-draw-count.rd.gz", "vk-indirect-draw-count.log.gz",
           "A640", 244, 530, 0, true});
}

// Written on an Android phone by libwrap (the marker dialect): a compute job
// whose stream starts with CP_SET_RENDER_MODE and CP_COMPUTE_CHECKPOINT, each
// naming a command buffer cffdump walks.
TEST(AdrenoMesaTraces, LibwrapComputeA540ListsEveryPacketCffdumpLists) {
  compare(
      {"mesa-freedreno", "compute-a540.rd.gz", "compute-a540.log.gz", "A540", 141, 141, 0, false});
}

// Dive's captures from Android phones (tests/data/dive/README.md), written
// with the libwrap markers, against the logs cffdump (Mesa 25.3.0-devel, as
// vendored in Dive) prints for them with `--unit-test --once`: every submit.
TEST(AdrenoMesaTraces, DiveBloomFrameA640ListsEveryPacketCffdumpLists) {
  compare({"dive", "bloom-frame-0080-compressed.rd", "bloom-frame-0080-compressed.log.gz", "A640",
           4882, 35050, 0, true});
}

}  // namespace
