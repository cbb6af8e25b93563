// Error offsets are offsets into the input as the caller gave it: the OA
// ring's register errors name no place in the ring (they are register
// values), misaligned pointers name their offset in the ring, and metric XML
// errors name a byte of the file itself — never one past its end, never an
// offset into the UTF-8 copy that the XML parser makes of a UTF-16 file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/oa_ring.hpp"
#ifdef HWPC_HAVE_PUGIXML
#include "hwpc/metrics/xml_loader.hpp"
#endif

namespace {

using namespace hwpc;
using namespace hwpc::intel;

TEST(RobustnessOffsets, OaRingRegisterErrorsNameNoByteOfTheRing) {
  const report_format& f = *find_format(platform::hsw, "A45_B8_C8");
  std::vector<std::byte> ring(oa_ring_min_size);
  const byte_span s(ring.data(), ring.size());
  struct bad_case {
    const char* name;
    byte_span ring;
    oa_ring_registers regs;
    const char* says;
  } cases[] = {
      {"head past the end", s, oa_ring_registers::offsets(ring.size() + 64, 0), "head pointer"},
      {"tail past the end", s, oa_ring_registers::offsets(0, 4 * ring.size()), "tail pointer"},
      {"head below the base", s, oa_ring_registers::gen8(0x10000, 0x40, 0x10000, 0),
       "head pointer 0x40"},
      {"tail below the base", s, oa_ring_registers::gen8(0x10000, 0x10000, 0xffc0, 0),
       "tail pointer 0xffc0"},
      {"size not a power of two", s.first(ring.size() - 64), oa_ring_registers::offsets(0, 0),
       "OA buffer size 131008"},
  };
  for (const auto& c : cases) {
    auto r = oa_ring::make(c.ring, f, c.regs);
    ASSERT_FALSE(r) << c.name;
    const error& e = r.error_value();
    EXPECT_EQ(e.code, errc::inconsistent) << c.name;
    EXPECT_EQ(e.anchor, error_anchor::none) << c.name;
    EXPECT_EQ(e.offset, 0u) << c.name;
    EXPECT_NE(e.message.find(c.says), std::string::npos) << c.name << ": " << e.message;
    EXPECT_EQ(e.describe().find("byte offset"), std::string::npos) << e.describe();
  }
  // A pointer at the very end is the same place as offset 0 (the driver
  // accepts it); a misaligned one inside names its offset in the ring.
  EXPECT_TRUE(oa_ring::make(s, f, oa_ring_registers::offsets(ring.size(), ring.size())));
  auto mis = oa_ring::make(s, f, oa_ring_registers::offsets(4 * 256 + 64, 0));
  ASSERT_FALSE(mis);
  EXPECT_EQ(mis.error_value().code, errc::misaligned);
  EXPECT_EQ(mis.error_value().offset, 4u * 256 + 64);
  EXPECT_LT(mis.error_value().offset, ring.size());
}

#ifdef HWPC_HAVE_PUGIXML

std::string utf16le(const std::string& ascii, bool bom) {
  std::string out = bom ? std::string("\xff\xfe", 2) : std::string();
  for (char c : ascii) {
    out += c;
    out += '\0';
  }
  return out;
}

std::string utf16be(const std::u16string& text) {
  std::string out("\xfe\xff", 2);
  for (char16_t c : text) {
    out += static_cast<char>(c >> 8);
    out += static_cast<char>(c & 0xff);
  }
  return out;
}

TEST(RobustnessOffsets, XmlErrorAtTheEndNamesTheLastByte) {
  // pugixml says offset 5 for this 4-byte text.
  auto r = metrics::load_xml("<a b");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, errc::syntax);
  EXPECT_EQ(r.error_value().offset, 3u);
  auto ws = metrics::load_xml("   ");
  ASSERT_FALSE(ws);
  EXPECT_EQ(ws.error_value().offset, 2u);
  auto empty = metrics::load_xml("");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error_value().offset, 0u);
}

TEST(RobustnessOffsets, XmlErrorsInUtf16NameBytesOfTheFile) {
  // pugixml puts this error on the character after the '!' (character 19):
  // byte 19 of the UTF-8 text, so byte 2 + 2 * 19 of the UTF-16LE file with
  // its BOM (the parser's UTF-8 copy has it at 3 + 19) and 2 * 19 without.
  const std::string doc = "<metrics><set><cou!nter/></set></metrics>";
  auto u8 = metrics::load_xml(doc);
  ASSERT_FALSE(u8);
  EXPECT_EQ(u8.error_value().offset, 19u);
  auto r = metrics::load_xml(utf16le(doc, true));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, errc::syntax);
  EXPECT_EQ(r.error_value().offset, 2u + 2 * 19);
  auto nb = metrics::load_xml(utf16le(doc, false));
  ASSERT_FALSE(nb);
  EXPECT_EQ(nb.error_value().offset, 2u * 19);
  // Big-endian, with U+20AC (3 bytes of UTF-8) and a surrogate pair (U+1F600,
  // 4 bytes of UTF-8) in an attribute before the error: in the file the
  // character after the '!' is at 2 + 2 * its UTF-16 index.
  const std::u16string text = u"<metrics><set name='\u20ac\U0001F600'><cou!nter/></set></metrics>";
  auto be = metrics::load_xml(utf16be(text));
  ASSERT_FALSE(be);
  EXPECT_EQ(be.error_value().offset, 2 + 2 * (text.find(u'!') + 1));
}

TEST(RobustnessOffsets, CounterWithoutSymbolNameInUtf16NamesItsElement) {
  const std::string doc = "<metrics><set symbol_name='S'><counter name='x'/></set></metrics>";
  const std::size_t at = doc.find("<counter");
  // pugixml's offset_debug() is the element name, just past the '<'.
  auto u8 = metrics::load_xml(doc);
  ASSERT_FALSE(u8);
  EXPECT_EQ(u8.error_value().code, errc::inconsistent);
  EXPECT_EQ(u8.error_value().offset, at + 1);
  auto u16 = metrics::load_xml(utf16le(doc, true));
  ASSERT_FALSE(u16);
  EXPECT_EQ(u16.error_value().code, errc::inconsistent);
  EXPECT_EQ(u16.error_value().offset, 2 + 2 * (at + 1));
}

TEST(RobustnessOffsets, SourceOffsetMapsLatin1AndLoneSurrogates) {
  // Latin-1: 0xe9 is two bytes in the copy.
  const std::string latin = "a\xe9z";
  EXPECT_EQ(metrics::detail::source_offset(latin, pugi::encoding_latin1, 3), 2u);
  EXPECT_EQ(metrics::detail::source_offset(latin, pugi::encoding_latin1, 99), 2u);
  // UTF-16LE: a lone high surrogate converts to nothing.
  const std::string lone(
      "\x00\xd8"
      "a\x00",
      4);
  EXPECT_EQ(metrics::detail::source_offset(lone, pugi::encoding_utf16_le, 0), 2u);
  // UTF-32BE: U+00E9 is 2 bytes of UTF-8.
  const std::string u32("\x00\x00\x00\xe9\x00\x00\x00z", 8);
  EXPECT_EQ(metrics::detail::source_offset(u32, pugi::encoding_utf32_be, 2), 4u);
}

#endif

}  // namespace
