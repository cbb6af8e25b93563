// Adreno command-stream walker: the seed's sequences, every error with its
// byte offset, and random bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "adreno_seed.hpp"
#include "hwpc/adreno/cmdstream.hpp"

namespace {

using namespace hwpc::adreno;
using adreno_seed::bytes_of;

TEST(AdrenoCmdstream, WalksTheOcclusionEndSequence) {
  const auto bytes = bytes_of(adreno_seed::occlusion_end);
  auto r = read_packets(bytes);
  ASSERT_TRUE(r) << r.error_value().describe();
  const auto& p = *r;
  ASSERT_EQ(p.size(), 7u);
  // The seed's "(N dwords)" counts the header: N - 1 payload dwords.
  const std::uint32_t ids[] = {0x3d, 0x12, 0xe1d1, 0xe267, 0x46, 0x3c, 0x73};
  const std::uint32_t counts[] = {4, 0, 1, 2, 1, 6, 9};
  const std::size_t offsets[] = {0, 20, 24, 32, 44, 52, 80};
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(p[i].hdr.id, ids[i]) << i;
    EXPECT_EQ(p[i].hdr.count, counts[i]) << i;
    EXPECT_EQ(p[i].offset, offsets[i]) << i;
    // Zero-copy: the payload points into the caller's buffer.
    EXPECT_EQ(p[i].payload.data(), bytes.data() + offsets[i] + 4);
  }
  EXPECT_EQ(p[2].hdr.type, packet_type::type4);
  EXPECT_EQ(p[0].qword(0), 0xc0456010u);
  EXPECT_EQ(p[5].dword(1), 0xc0456014u);
  EXPECT_EQ(p[6].qword(7), 0xc0456000u);
}

TEST(AdrenoCmdstream, WalksAllSeedSequences) {
  const auto all = adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end,
                                        adreno_seed::timestamp_begin, adreno_seed::timestamp_end});
  const auto bytes = bytes_of(all);
  auto r = read_packets(bytes);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 3u + 7u + 3u + 3u);
  std::size_t total = 0;
  for (const auto& p : *r) total += p.size_bytes();
  EXPECT_EQ(total, bytes.size());
}

TEST(AdrenoCmdstream, EmptyStreamHasNoPackets) {
  auto r = read_packets(hwpc::byte_span{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
}

// Reading `dws` fails with `code` at byte `offset`.
template <class Dwords>
void expect_error_at(const Dwords& dws, hwpc::errc code, std::size_t offset) {
  const auto bytes = bytes_of(dws);
  auto r = read_packets(bytes);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, code);
  EXPECT_EQ(r.error_value().offset, offset);
}

TEST(AdrenoCmdstream, BadParityNamesTheHeaderOffset) {
  auto dws = adreno_seed::occlusion_end;
  dws[13] ^= 1u << 15;  // CP_WAIT_REG_MEM header, at byte 52
  expect_error_at(dws, hwpc::errc::inconsistent, 52);
}

TEST(AdrenoCmdstream, BadRegisterParityNamesTheHeaderOffset) {
  auto dws = adreno_seed::occlusion_begin;
  dws[2] ^= 1u << 27;  // RB_SAMPLE_COUNT_ADDR_LO header, at byte 8
  expect_error_at(dws, hwpc::errc::inconsistent, 8);
}

TEST(AdrenoCmdstream, UnknownTypeNamesTheHeaderOffset) {
  auto dws = adreno_seed::occlusion_begin;
  dws[5] = 0x00000000;  // where CP_EVENT_WRITE was, at byte 20
  expect_error_at(dws, hwpc::errc::unknown_format, 20);
}

TEST(AdrenoCmdstream, ReservedBitsNameTheHeaderOffset) {
  auto dws = adreno_seed::timestamp_begin;
  dws[5] |= 1u << 24;  // CP_WAIT_FOR_IDLE at byte 20
  expect_error_at(dws, hwpc::errc::inconsistent, 20);
}

TEST(AdrenoCmdstream, CountPastTheEndNamesTheHeaderOffset) {
  auto dws = adreno_seed::timestamp_begin;
  dws.pop_back();  // CP_MEM_TO_MEM at byte 24 loses its last dword
  expect_error_at(dws, hwpc::errc::truncated, 24);
  const auto bytes = bytes_of(dws);
  auto r = read_packets(bytes);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().describe(),
            "truncated at byte offset 24: packet needs 9 payload dwords, 8 remain");
  // A huge count on the last header.
  const auto big = bytes_of({pkt7_header(0x10, 0x7fff)});
  auto b = read_packets(big);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error_value().offset, 0u);
}

TEST(AdrenoCmdstream, PartialTrailingDwordNamesItsOffset) {
  auto bytes = bytes_of(adreno_seed::occlusion_begin);
  bytes.push_back(std::byte{0x70});
  bytes.push_back(std::byte{0x00});
  auto r = read_packets(bytes);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(r.error_value().offset, 28u);
}

TEST(AdrenoCmdstream, CursorStopsAfterAnError) {
  const auto bytes = bytes_of({0x70460004u, 1u, 2u, 3u, 4u, 0x10000000u, 0x70268000u});
  packet_cursor c(bytes);
  ASSERT_TRUE(c.next());
  EXPECT_FALSE(c.done());
  auto e = c.next();
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error_value().offset, 20u);
  EXPECT_TRUE(c.done());
}

TEST(AdrenoCmdstream, RandomBytesNeverCrashOrHang) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<std::byte> bytes(rng() % 256);
    for (auto& b : bytes) b = std::byte(rng() & 0xff);
    // Bias towards plausible headers half of the time.
    if (iter % 2 == 0) {
      for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4 * (1 + rng() % 4)) {
        const std::uint32_t h =
            (rng() & 1) ? pkt7_header(rng(), rng() % 8) : pkt4_header(rng(), rng() % 8);
        hwpc::store_le32(bytes.data() + i, h);
      }
    }
    packet_cursor c(bytes);
    std::size_t steps = 0;
    std::size_t last = 0;
    while (!c.done()) {
      auto p = c.next();
      ASSERT_LE(++steps, bytes.size() / 4 + 1);
      if (!p) {
        EXPECT_LE(p.error_value().offset, bytes.size());
        EXPECT_EQ(p.error_value().offset % 4, 0u);
        break;
      }
      EXPECT_EQ(p->offset, last);
      last = p->offset + p->size_bytes();
      EXPECT_LE(last, bytes.size());
    }
  }
}

// Mutating any single bit of a valid stream either still walks or fails at a
// header offset at or before the mutated dword's packet.
TEST(AdrenoCmdstream, SingleBitFlipsFailAtAHeader) {
  const auto all = adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end});
  for (std::size_t bit = 0; bit < all.size() * 32; ++bit) {
    auto dws = all;
    dws[bit / 32] ^= 1u << (bit % 32);
    const auto bytes = bytes_of(dws);
    auto r = read_packets(bytes);
    if (!r) {
      EXPECT_EQ(r.error_value().offset % 4, 0u);
      EXPECT_LE(r.error_value().offset, (bit / 32) * 4);
    }
  }
}

}  // namespace
