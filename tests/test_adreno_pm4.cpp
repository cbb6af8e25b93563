// Adreno PM4 headers: FACTS check values, parity, round trips, error cases.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>

#include "adreno_seed.hpp"
#include "hwpc/adreno/pm4.hpp"

namespace {

using namespace hwpc::adreno;

TEST(AdrenoPm4, FactsCheckValues) {
  static_assert(pkt7_header(0x46, 4) == 0x70460004u);
  static_assert(pkt7_header(0x3c, 6) == 0x70bc8006u);
  EXPECT_EQ(pkt7_header(op::cp_event_write, 4), 0x70460004u);
  EXPECT_EQ(pkt7_header(op::cp_wait_reg_mem, 6), 0x70bc8006u);
}

TEST(AdrenoPm4, ConstantsMatchFacts) {
  EXPECT_EQ(op::cp_wait_mem_writes, 0x12u);
  EXPECT_EQ(op::cp_wait_for_idle, 0x26u);
  EXPECT_EQ(op::cp_wait_reg_mem, 0x3cu);
  EXPECT_EQ(op::cp_mem_write, 0x3du);
  EXPECT_EQ(op::cp_event_write, 0x46u);
  EXPECT_EQ(op::cp_mem_to_mem, 0x73u);
  EXPECT_EQ(reg::rb_sample_count_control, 0xe1d1u);
  EXPECT_EQ(reg::rb_sample_count_addr_lo, 0xe267u);
  EXPECT_EQ(reg::rb_sample_count_addr_hi, 0xe268u);
  EXPECT_EQ(opcode_name(0x73), "CP_MEM_TO_MEM");
  EXPECT_EQ(register_name(0xe268), "RB_SAMPLE_COUNT_ADDR_HI");
  EXPECT_TRUE(opcode_name(0x01).empty());
}

TEST(AdrenoPm4, ParityBitMakesFieldOdd) {
  EXPECT_EQ(odd_parity_bit(0), 1u);
  EXPECT_EQ(odd_parity_bit(1), 0u);
  EXPECT_EQ(odd_parity_bit(3), 1u);
  EXPECT_EQ(odd_parity_bit(0x46), 0u);  // three bits set
  EXPECT_EQ(odd_parity_bit(0x3c), 1u);  // four bits set
  for (std::uint32_t x = 0; x < 4096; ++x) {
    EXPECT_EQ((std::popcount(x) + odd_parity_bit(x)) % 2, 1);
  }
}

// The headers of the seed's sequences, written out by hand in adreno_seed.hpp.
TEST(AdrenoPm4, SeedHeadersMatchEncoder) {
  EXPECT_EQ(pkt4_header(reg::rb_sample_count_control, 1), 0x48e1d101u);
  EXPECT_EQ(pkt4_header(reg::rb_sample_count_addr_lo, 2), 0x40e26702u);
  EXPECT_EQ(pkt7_header(op::cp_event_write, 1), 0x70460001u);
  EXPECT_EQ(pkt7_header(op::cp_mem_write, 4), 0x703d0004u);
  EXPECT_EQ(pkt7_header(op::cp_wait_mem_writes, 0), 0x70928000u);
  EXPECT_EQ(pkt7_header(op::cp_mem_to_mem, 9), 0x70738009u);
  EXPECT_EQ(pkt7_header(op::cp_wait_for_idle, 0), 0x70268000u);
}

TEST(AdrenoPm4, DecodeSeedHeaders) {
  auto d = decode_header(0x70bc8006u);
  EXPECT_EQ(d.status, header_status::ok);
  EXPECT_EQ(d.hdr.type, packet_type::type7);
  EXPECT_EQ(d.hdr.id, 0x3cu);
  EXPECT_EQ(d.hdr.count, 6u);
  d = decode_header(0x48e1d101u);
  EXPECT_EQ(d.status, header_status::ok);
  EXPECT_EQ(d.hdr.type, packet_type::type4);
  EXPECT_EQ(d.hdr.id, 0xe1d1u);
  EXPECT_EQ(d.hdr.count, 1u);
}

TEST(AdrenoPm4, RoundTripType7) {
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t opc = rng() & pkt7_max_opcode;
    const std::uint32_t cnt = rng() & pkt7_max_count;
    const std::uint32_t h = pkt7_header(opc, cnt);
    const auto d = decode_header(h);
    ASSERT_EQ(d.status, header_status::ok) << std::hex << h;
    ASSERT_EQ(d.hdr, (header{packet_type::type7, opc, cnt}));
    ASSERT_EQ(encode(d.hdr), h);
  }
  // Every opcode and the boundary counts, exhaustively.
  for (std::uint32_t opc = 0; opc <= pkt7_max_opcode; ++opc) {
    for (std::uint32_t cnt : {0u, 1u, 2u, 0x7ffeu, 0x7fffu}) {
      ASSERT_EQ(decode_header(pkt7_header(opc, cnt)).hdr, (header{packet_type::type7, opc, cnt}));
    }
  }
}

TEST(AdrenoPm4, RoundTripType4) {
  std::mt19937 rng(4);
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t r = rng() & pkt4_max_reg;
    const std::uint32_t cnt = rng() & pkt4_max_count;
    const std::uint32_t h = pkt4_header(r, cnt);
    const auto d = decode_header(h);
    ASSERT_EQ(d.status, header_status::ok) << std::hex << h;
    ASSERT_EQ(d.hdr, (header{packet_type::type4, r, cnt}));
    ASSERT_EQ(encode(d.hdr), h);
  }
  for (std::uint32_t cnt = 0; cnt <= pkt4_max_count; ++cnt) {
    ASSERT_EQ(decode_header(pkt4_header(0x7ffff, cnt)).hdr,
              (header{packet_type::type4, 0x7ffff, cnt}));
  }
}

TEST(AdrenoPm4, EncoderMasksOversizedFields) {
  EXPECT_EQ(pkt7_header(0x80 | 0x46, 0x8000 | 4), 0x70460004u);
  EXPECT_EQ(pkt4_header(0x80000 | 0xe1d1, 0x80 | 1), 0x48e1d101u);
}

TEST(AdrenoPm4, EveryFlippedParityBitIsDetected) {
  std::mt19937 rng(11);
  for (int i = 0; i < 5000; ++i) {
    const std::uint32_t h7 = pkt7_header(rng() & 0x7f, rng() & 0x7fff);
    EXPECT_EQ(decode_header(h7 ^ (1u << 15)).status, header_status::bad_count_parity);
    EXPECT_EQ(decode_header(h7 ^ (1u << 23)).status, header_status::bad_id_parity);
    // Flipping one count or opcode bit breaks that field's parity.
    EXPECT_EQ(decode_header(h7 ^ (1u << (rng() % 15))).status, header_status::bad_count_parity);
    EXPECT_EQ(decode_header(h7 ^ (1u << (16 + rng() % 7))).status, header_status::bad_id_parity);
    EXPECT_EQ(decode_header(h7 | (1u << (24 + rng() % 4))).status,
              header_status::reserved_bits_set);
    const std::uint32_t h4 = pkt4_header(rng() & 0x7ffff, rng() & 0x7f);
    EXPECT_EQ(decode_header(h4 ^ (1u << 7)).status, header_status::bad_count_parity);
    EXPECT_EQ(decode_header(h4 ^ (1u << 27)).status, header_status::bad_id_parity);
    EXPECT_EQ(decode_header(h4 ^ (1u << (8 + rng() % 19))).status, header_status::bad_id_parity);
  }
}

TEST(AdrenoPm4, UnknownTypes) {
  for (std::uint32_t t = 0; t < 16; ++t) {
    if (t == 4 || t == 7) continue;
    EXPECT_EQ(decode_header(t << 28).status, header_status::unknown_type) << t;
  }
}

TEST(AdrenoPm4, ParseHeaderErrorsNameOffsetAndHeader) {
  auto r = parse_header(0x70bc0006u, 40);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, hwpc::errc::inconsistent);
  EXPECT_EQ(r.error_value().offset, 40u);
  EXPECT_EQ(r.error_value().describe(),
            "inconsistent at byte offset 40: bad count parity in PM4 header 0x70bc0006");
  auto u = parse_header(0x30000000u, 8);
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error_value().code, hwpc::errc::unknown_format);
  EXPECT_EQ(u.error_value().offset, 8u);
  auto ok = parse_header(0x70460004u, 0);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->id, 0x46u);
}

}  // namespace

// header_ok() is decode_header() as a yes or no, for the walker's plain loop:
// they must agree on every dword. Every type-4 and type-7 dword whose fields
// are all zero or all set, every header the encoders make, each with every
// single bit flipped, and a million seeded random dwords.
TEST(AdrenoPm4, HeaderOkAgreesWithDecodeHeader) {
  const auto agree = [](std::uint32_t dw) {
    hwpc::adreno::header h;
    const bool ok = hwpc::adreno::header_ok(dw, h);
    const hwpc::adreno::decoded_header d = hwpc::adreno::decode_header(dw);
    EXPECT_EQ(ok, d.status == hwpc::adreno::header_status::ok) << std::hex << dw;
    if (ok) {
      EXPECT_EQ(h, d.hdr) << std::hex << dw;
    }
    return ok;
  };
  std::size_t valid = 0;
  for (std::uint32_t op = 0; op <= hwpc::adreno::pkt7_max_opcode; ++op) {
    for (std::uint32_t count : {0u, 1u, 2u, 3u, 0x7fu, 0x80u, 0x3fffu, 0x7fffu}) {
      for (std::uint32_t dw : {hwpc::adreno::pkt7_header(op, count),
                               hwpc::adreno::pkt4_header(op * 0x1003u, count & 0x7fu)}) {
        valid += agree(dw) ? 1 : 0;
        for (int bit = 0; bit < 32; ++bit) agree(dw ^ (1u << bit));
      }
    }
  }
  EXPECT_EQ(valid, 2u * 128 * 8);  // every encoder's header is well formed
  std::mt19937 rng(20261128);
  for (int i = 0; i < 1'000'000; ++i) agree(static_cast<std::uint32_t>(rng()));
  for (std::uint32_t hi : {0x4u, 0x7u}) {
    for (std::uint32_t low = 0; low < 0x10000u; ++low) agree(hi << 28 | low);
  }
}
