#include <gtest/gtest.h>

#include <array>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"

namespace {

TEST(Bytes, LittleEndianLoadsAtAnyAlignment) {
  std::array<std::byte, 16> buf{};
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = std::byte(i + 1);
  // Offset 1 is misaligned for every width; memcpy-based loads must still work.
  EXPECT_EQ(hwpc::load_le16(buf.data() + 1), 0x0302u);
  EXPECT_EQ(hwpc::load_le32(buf.data() + 1), 0x05040302u);
  EXPECT_EQ(hwpc::load_le64(buf.data() + 1), 0x0908070605040302ull);
}

TEST(Bytes, LoadsAreConstexpr) {
  constexpr std::array<std::byte, 4> buf{std::byte{0x78}, std::byte{0x56}, std::byte{0x34},
                                         std::byte{0x12}};
  static_assert(hwpc::load_le32(buf.data()) == 0x12345678u);
  SUCCEED();
}

TEST(Bytes, StoreThenLoadRoundTrips) {
  std::array<std::byte, 11> buf{};
  hwpc::store_le64(buf.data() + 3, 0x1122334455667788ull);
  EXPECT_EQ(std::to_integer<int>(buf[3]), 0x88);
  EXPECT_EQ(std::to_integer<int>(buf[10]), 0x11);
  EXPECT_EQ(hwpc::load_le64(buf.data() + 3), 0x1122334455667788ull);
}

TEST(Bytes, BitFieldsUsePrmHiLoOrder) {
  EXPECT_EQ(hwpc::bits(0xff000000u, 31, 25), 0x7fu);
  EXPECT_EQ(hwpc::bits(0xffffffffu, 31, 0), 0xffffffffu);
  EXPECT_TRUE(hwpc::bit(1u << 16, 16));
  EXPECT_FALSE(hwpc::bit(1u << 16, 15));
}

TEST(Error, DescribeNamesTheOffset) {
  auto e = hwpc::make_error(hwpc::errc::truncated, 192, "report needs 256 bytes, 64 remain");
  EXPECT_EQ(e.describe(), "truncated at byte offset 192: report needs 256 bytes, 64 remain");
  hwpc::result<int> r = e;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().offset, 192u);
  hwpc::result<int> ok = 7;
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 7);
}

}  // namespace
