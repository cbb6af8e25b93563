// Adreno input forms: hex dword text (the seed's and cffdump's listings) and
// gzip through the optional zlib (tested both with and without it).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "adreno_gzip_writer.hpp"
#include "adreno_seed.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/recognise.hpp"

namespace {

using namespace hwpc::adreno;

std::vector<std::uint32_t> dwords_of(const hex_dwords& h) {
  std::vector<std::uint32_t> d;
  for (std::size_t i = 0; i + 4 <= h.bytes.size(); i += 4)
    d.push_back(hwpc::load_le32(h.bytes.data() + i));
  return d;
}

TEST(AdrenoHexText, PlainDwordsWithTheirTextOffsets) {
  auto h = parse_hex_text("70460004 40000016 c0456000 00000000 0000dead\n");
  ASSERT_TRUE(h);
  EXPECT_EQ(dwords_of(*h),
            (std::vector<std::uint32_t>{0x70460004, 0x40000016, 0xc0456000, 0, 0xdead}));
  EXPECT_EQ(h->offsets, (std::vector<std::size_t>{0, 9, 18, 27, 36}));
  EXPECT_EQ(h->text_offset(8, 46), 18u);
  EXPECT_EQ(h->text_offset(20, 46), 46u);
}

TEST(AdrenoHexText, SeedListingLabelsPrefixesCommasAndProse) {
  const std::string text =
      "    opcode: CP_WAIT_REG_MEM (3c) (7 dwords)\r\n"
      "        0000: 70bc8006 00000014 c0456014\r\n"
      "0x70268000, 0X10,\n"
      "\n"
      "        XXX why c0456014 instead of c0456010 ??\n";
  auto h = parse_hex_text(text);
  ASSERT_TRUE(h) << h.error_value().describe();
  EXPECT_EQ(dwords_of(*h),
            (std::vector<std::uint32_t>{0x70bc8006, 0x14, 0xc0456014, 0x70268000, 0x10}));
  EXPECT_EQ(h->offsets[0], text.find("70bc8006"));
  EXPECT_EQ(h->offsets[3], text.find("0x70268000"));
  EXPECT_EQ(h->prose_lines, 2u);
}

TEST(AdrenoHexText, ErrorsNameTheTokenOffset) {
  auto a = parse_hex_text("0000: 70bc8006 zz\n");
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error_value().code, hwpc::errc::syntax);
  EXPECT_EQ(a.error_value().offset, 15u);
  auto b = parse_hex_text("70bc8006\n70bc8006 123456789\n");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error_value().offset, 18u);  // nine digits: not a dword
  auto c = parse_hex_text("1234 \x1b[31mred\n");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error_value().offset, 5u);
  EXPECT_EQ(c.error_value().message.find('\x1b'), std::string::npos);  // escaped
  auto d = parse_hex_text("just some prose\nand more\n");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error_value().code, hwpc::errc::empty_input);
  EXPECT_FALSE(parse_hex_text(""));
}

TEST(AdrenoHexText, TheSeedPagePastesStraightIn) {
  std::ifstream f(std::string(HWPC_SHARED_DIR) + "/seeds/adreno-a5xx-queries.txt",
                  std::ios::binary);
  if (!f) GTEST_SKIP() << "../shared is absent";
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  ASSERT_TRUE(looks_like_text(
      hwpc::byte_span(reinterpret_cast<const std::byte*>(text.data()), text.size())));
  auto h = parse_hex_text(text);
  ASSERT_TRUE(h) << h.error_value().describe();
  // The three raw dumps (CP_WAIT_REG_MEM, two CP_EVENT_WRITEs) and the lines
  // that are only hex ("ffffffff ffffffff", "0xdead" twice).
  const std::vector<std::uint32_t> want = {
      0xffffffff, 0xffffffff,                                                        // seed:28
      0x70bc8006, 0x14,       0xc0456014, 0,          0xffffffff, 0xffffffff, 0x10,  // seed:38
      0xdead,     0x70460004, 0x40000016, 0xc0456000, 0,          0xdead,            // seed:57-58
      0xdead,     0x70460004, 0x40000016, 0xc0456008, 0,          0xdead};           // seed:73-74
  EXPECT_EQ(dwords_of(*h), want);
  EXPECT_FALSE(looks_like_text(adreno_seed::bytes_of(adreno_seed::occlusion_begin)));
}

std::vector<std::byte> some_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> d(n);
  for (auto& b : d) b = static_cast<std::byte>(rng() % 7);  // compressible
  return d;
}

TEST(AdrenoGzip, HandBuiltMemberIsRecognised) {
  const auto gz = adreno_gz::gzip_stored(some_bytes(10, 1));
  EXPECT_TRUE(is_gzip(gz));
  EXPECT_EQ(gz.size(), 10u + 5 + 10 + 8);
  EXPECT_FALSE(is_gzip(adreno_seed::bytes_of(adreno_seed::occlusion_begin)));
  // The CRC-32 check value of "123456789".
  const std::string nine = "123456789";
  std::vector<std::byte> v(reinterpret_cast<const std::byte*>(nine.data()),
                           reinterpret_cast<const std::byte*>(nine.data()) + 9);
  EXPECT_EQ(adreno_gz::crc32(v), 0xcbf43926u);
}

#ifdef HWPC_HAVE_ZLIB
TEST(AdrenoGzip, Gunzip) {
  ASSERT_TRUE(have_gzip);
  const auto data = some_bytes(200000, 2);  // four stored blocks
  auto out = gunzip(adreno_gz::gzip_stored(data));
  ASSERT_TRUE(out) << out.error_value().describe();
  EXPECT_EQ(*out, data);
  // Two members are one stream.
  auto two = adreno_gz::gzip_stored(some_bytes(5, 3));
  const auto second = adreno_gz::gzip_stored(some_bytes(7, 4));
  two.insert(two.end(), second.begin(), second.end());
  auto t = gunzip(two);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->size(), 12u);
  // A compressed member from zlib itself.
  std::vector<std::byte> z(compressBound(static_cast<uLong>(data.size())) + 32);
  z_stream zs{};
  ASSERT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(z.data());
  zs.avail_out = static_cast<uInt>(z.size());
  ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  z.resize(zs.total_out);
  deflateEnd(&zs);
  auto d = gunzip(z);
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, data);
}

TEST(AdrenoGzip, BadStreamsNameTheirOffset) {
  auto gz = adreno_gz::gzip_stored(some_bytes(100, 5));
  auto crc = gz;
  crc[crc.size() - 8] ^= std::byte{1};
  auto c = gunzip(crc);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error_value().code, hwpc::errc::inconsistent);
  EXPECT_LE(c.error_value().offset, crc.size());
  auto cut = gz;
  cut.resize(cut.size() - 4);
  auto t = gunzip(cut);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(t.error_value().offset, cut.size());
  auto tail = gz;
  tail.push_back(std::byte{0x42});
  auto g = gunzip(tail);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error_value().code, hwpc::errc::inconsistent);
  EXPECT_EQ(g.error_value().offset, gz.size());
  auto big = gunzip(gz, 50);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error_value().code, hwpc::errc::oversized);
}
#else
TEST(AdrenoGzip, WithoutZlibGzipIsOnlyDetected) {
  EXPECT_FALSE(have_gzip);
  EXPECT_TRUE(is_gzip(adreno_gz::gzip_stored(some_bytes(3, 6))));
}
#endif

}  // namespace
