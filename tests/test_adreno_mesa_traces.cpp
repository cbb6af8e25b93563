// hwpc's walk of Mesa's freedreno CI captures against the listings Mesa's own
// decoder (cffdump) prints for them (tests/data/mesa-freedreno/README.md):
// every packet cffdump lists is listed by hwpc at the same GPU address with
// the same header dword, the same count and the same IB depth. The log is
// read for its packets only: a line "t4"/"t7" names a packet, and the first
// hex line after it whose first dword is a valid header of that type is the
// packet (cffdump also dumps buffers a register points to, shaders and
// indirect-draw parameters, in the same hex form).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/rd_capture.hpp"

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
  unsigned tabs;  // cffdump's indentation of the hex line
  std::uint32_t header;
};

[[maybe_unused]] std::uint32_t hex32(const std::string& s, std::size_t at) {
  return static_cast<std::uint32_t>(std::stoul(s.substr(at, 8), nullptr, 16));
}

// The packets of a cffdump log, in its order.
[[maybe_unused]] std::vector<log_packet> log_packets(const std::string& text) {
  std::vector<log_packet> out;
  int title = -1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() > 2 && line[0] == 't' && line[1] >= '0' && line[1] <= '9' && line[2] == '\t') {
      title = line[1] - '0';
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon < 8 || colon > 16 || title < 0) continue;
    if (line.find_first_not_of("0123456789abcdef") != colon) continue;
    std::size_t t = colon + 1;
    while (t < line.size() && line[t] == '\t') ++t;
    if (line.compare(t, 6, "0000: ") != 0 || line.size() < t + 14) continue;
    const std::uint32_t h = hex32(line, t + 6);
    const decoded_header d = decode_header(h);
    if (d.status != header_status::ok || static_cast<int>(h >> 28) != title) continue;
    out.push_back(
        {std::stoull(line.substr(0, colon), nullptr, 16), static_cast<unsigned>(t - colon - 1), h});
    title = -1;
  }
  return out;
}

struct listed {
  std::uint32_t header;
  std::uint32_t count;
  unsigned depth;
  bool in_group;
};

struct lister : rd::capture_sink {
  explicit lister(hwpc::byte_span d) : data(d) {}
  hwpc::byte_span data;
  std::multimap<std::uint64_t, listed> by_address;
  std::size_t packets = 0, issues = 0;
  void on_packet(const walked_packet& p) override {
    by_address.insert(
        {p.gpu_addr,
         {hwpc::load_le32(data.data() + p.pkt.offset), p.pkt.hdr.count, p.depth, p.group >= 0}});
    ++packets;
  }
  void on_issue(const hwpc::error&) override { ++issues; }
};

void compare(const std::string& name, std::string_view gpu, std::size_t want_log_packets,
             std::size_t want_missing_issues) {
#ifndef HWPC_HAVE_ZLIB
  (void)name;
  (void)gpu;
  (void)want_log_packets;
  (void)want_missing_issues;
  GTEST_SKIP() << "built without zlib: the Mesa captures are gzip-compressed";
#else
  {
    const std::string dir = std::string(HWPC_TEST_DATA_DIR) + "/mesa-freedreno/";
    const auto rd_gz = read_bytes(dir + name + ".rd.gz");
    const auto log_gz = read_bytes(dir + name + ".log.gz");
    ASSERT_FALSE(rd_gz.empty()) << dir + name + ".rd.gz";
    ASSERT_FALSE(log_gz.empty()) << dir + name + ".log.gz";
    auto rd = gunzip(rd_gz);
    auto log = gunzip(log_gz);
    ASSERT_TRUE(rd && log);
    const std::string text(reinterpret_cast<const char*>(log->data()), log->size());
    const std::vector<log_packet> want = log_packets(text);
    ASSERT_EQ(want.size(), want_log_packets);

    lister l(*rd);
    rd::capture_reader reader(l);
    ASSERT_TRUE(reader.read(*rd));
    ASSERT_NE(reader.gpu(), nullptr);
    EXPECT_EQ(reader.gpu()->name, gpu);
    // fd-clouds' command streams call a buffer the capture does not hold: normal (F6 6.3).
    EXPECT_EQ(l.issues, want_missing_issues);

    std::size_t found = 0, in_groups = 0;
    for (const log_packet& w : want) {
      const decoded_header d = decode_header(w.header);
      // cffdump indents IB level n by 2 + n tabs, and the packets of a draw-state
      // group two levels under its CP_SET_DRAW_STATE; hwpc counts a group one level.
      bool ok = false;
      const auto [b, e] = l.by_address.equal_range(w.address);
      for (auto it = b; it != e; ++it) {
        const listed& h = it->second;
        const unsigned tabs = 2 + h.depth + (h.in_group ? 1 : 0);
        if (h.header == w.header && h.count == d.hdr.count && tabs == w.tabs) {
          ok = true;
          in_groups += h.in_group ? 1 : 0;
          break;
        }
      }
      EXPECT_TRUE(ok) << name << ": cffdump's packet at 0x" << std::hex << w.address << " header 0x"
                      << w.header << " (" << std::dec << w.tabs
                      << " tabs) is not in hwpc's listing with that header, count and depth";
      found += ok ? 1 : 0;
    }
    EXPECT_EQ(found, want.size());
    EXPECT_GT(in_groups, 0u) << "draw-state group packets are compared too";
  }
#endif
}

TEST(AdrenoMesaTraces, FdCloudsA630ListsEveryPacketCffdumpLists) {
  compare("fd-clouds", "A630", 569, 3);
}

TEST(AdrenoMesaTraces, TurnipIndirectDrawCountA640ListsEveryPacketCffdumpLists) {
  compare("vk-indirect-draw-count", "A640", 242, 0);
}

}  // namespace
