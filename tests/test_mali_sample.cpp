// Mali hardware-counter samples (kbase vinstr, non-v4 layout): block positions
// with core-mask gaps, zero-copy views, sums per block type, every error with
// its byte offset.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "hwpc/mali/sample.hpp"
#include "mali_test_util.hpp"

namespace {

using hwpc::errc;
using hwpc::mali::block_type;
using hwpc::mali::counter_id;
using hwpc::mali::sample;
using hwpc::mali::sample_layout;

// Two L2 slices, cores 0, 1 and 3 (bit 2 clear): eight blocks,
//   0 front-end @0, 1 tiler @256, 2 memory 0 @512, 3 memory 1 @768,
//   4 core 0 @1024, 5 core 1 @1280, 6 gap @1536, 7 core 3 @1792.
constexpr sample_layout gapped{.l2_slices = 2, .core_mask = 0b1011};

TEST(MaliSample, LayoutArithmetic) {
  static_assert(gapped.block_count() == 8);
  static_assert(gapped.size_bytes() == 2048);
  static_assert(gapped.shader_core_count() == 3);
  static_assert(gapped.core_blocks() == 4);
  static_assert(gapped.memory_offset(1) == 768);
  static_assert(gapped.core_offset(3) == 1792);
  EXPECT_EQ(gapped.describe_block(3), "memory 1");
  EXPECT_EQ(gapped.describe_block(6), "gap (core 2 absent)");
  EXPECT_EQ(gapped.describe_block(7), "shader core 3");
  constexpr sample_layout one{.l2_slices = 1, .core_mask = 1};
  static_assert(one.size_bytes() == 4 * 256);
  constexpr sample_layout high{.l2_slices = 1, .core_mask = 1ull << 63};
  static_assert(high.block_count() == 3 + 64);
}

TEST(MaliSample, ViewsPointIntoTheBytes) {
  mali_test::sample_bytes b(gapped);
  b.front_end(6, 1000);       // GPU_ACTIVE
  b.tiler(4, 0x01020304);     // TILER_ACTIVE
  b.memory(1, 32, 77);        // L2_EXT_READ_BEATS, slice 1
  b.core(3, 12, 0xfffffffe);  // FRAG_QUADS_EZS_TEST, core 3
  // Raw bytes of that last one: block 7, counter 12 -> 1792 + 48.
  EXPECT_EQ(b.bytes[1840], std::byte{0xfe});
  EXPECT_EQ(b.bytes[1843], std::byte{0xff});

  auto s = sample::parse(gapped, b.bytes);
  ASSERT_TRUE(s) << s.error_value().describe();
  EXPECT_EQ(s->front_end().counter(6), 1000u);
  EXPECT_EQ(s->tiler()[4], 0x01020304u);
  EXPECT_EQ(s->tiler().offset(), 256u);
  ASSERT_TRUE(s->memory(1));
  EXPECT_EQ(s->memory(1)->counter(32), 77u);
  EXPECT_EQ(s->memory(1)->instance(), 1u);
  EXPECT_FALSE(s->memory(2)) << "only two slices";
  ASSERT_TRUE(s->shader_core(3));
  EXPECT_EQ(s->shader_core(3)->offset(), 1792u);
  EXPECT_EQ(s->shader_core(3)->counter(12), 0xfffffffeu);
  EXPECT_EQ(s->shader_core(3)->bytes().data(), b.bytes.data() + 1792) << "zero-copy";
  EXPECT_FALSE(s->shader_core(2)) << "bit 2 is clear: a gap, not a core";
  EXPECT_FALSE(s->shader_core(4));
  EXPECT_FALSE(s->shader_core(64));

  std::vector<std::size_t> offsets;
  s->for_each_block([&](const hwpc::mali::block_view& v) { offsets.push_back(v.offset()); });
  EXPECT_EQ(offsets, (std::vector<std::size_t>{0, 256, 512, 768, 1024, 1280, 1792}));
}

TEST(MaliSample, SumsPerBlockTypeSkipGapsAndHeaders) {
  mali_test::sample_bytes b(gapped);
  // Garbage everywhere it must not be read: every header word and the gap.
  for (std::size_t pos = 0; pos < 8; ++pos) {
    for (std::size_t i = 0; i < 4; ++i) b.put(pos, i, 0xdeadbeef);
  }
  b.fill(6, 0xdeadbeef);
  b.front_end(6, 1000);
  b.tiler(4, 400);
  b.memory(0, 33, 100);  // L2_EXT_AR_STALL
  b.memory(1, 33, 300);
  b.core(0, 4, 600);  // FRAG_ACTIVE
  b.core(1, 4, 900);
  b.core(3, 4, 300);
  b.core(0, 12, 0xffffffff);  // sums are 64-bit: no wrap
  b.core(1, 12, 0xffffffff);
  b.core(3, 12, 2);  // 2 * 0xffffffff + 2 = 0x2_0000_0000

  auto s = sample::parse(gapped, b.bytes);
  ASSERT_TRUE(s) << s.error_value().describe();
  const hwpc::mali::block_sums t = s->sums();
  EXPECT_EQ((t[{block_type::front_end, 6}]), 1000u);
  EXPECT_EQ((t[{block_type::tiler, 4}]), 400u);
  EXPECT_EQ((t[{block_type::memory, 33}]), 400u);
  EXPECT_EQ((t[{block_type::shader_core, 4}]), 1800u) << "600 + 900 + 300; the gap is skipped";
  EXPECT_EQ((t[{block_type::shader_core, 12}]), 0x2'0000'0000ull);
  EXPECT_EQ((t[{block_type::shader_core, 5}]), 0u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.at(block_type::front_end, i), 0u) << "header word " << i;
    EXPECT_EQ(t.at(block_type::shader_core, i), 0u) << "header word " << i;
  }
  EXPECT_EQ(s->sum({block_type::shader_core, 4}), 1800u);
  EXPECT_EQ(s->sum({block_type::memory, 33}), 400u);
  EXPECT_EQ(s->sum({block_type::memory, 2}), 0u) << "header";
  EXPECT_EQ(s->sum({block_type::memory, 64}), 0u) << "no such index";
}

hwpc::error parse_error(const sample_layout& l, std::size_t size) {
  std::vector<std::byte> bytes(size);
  auto s = sample::parse(l, bytes);
  EXPECT_FALSE(s) << size << " bytes";
  return s ? hwpc::error{} : s.error_value();
}

TEST(MaliSample, SizeErrorsNameTheOffset) {
  auto e = parse_error(gapped, 0);
  EXPECT_EQ(e.code, errc::empty_input);
  EXPECT_EQ(e.offset, 0u);

  // 1000 bytes: three whole blocks and 232 bytes of a fourth (memory 1 @768).
  e = parse_error(gapped, 1000);
  EXPECT_EQ(e.code, errc::misaligned);
  EXPECT_EQ(e.offset, 768u);
  EXPECT_NE(e.message.find("has 232 bytes"), std::string::npos) << e.message;

  // An oversized size that is also misaligned is misaligned first.
  e = parse_error(gapped, 2048 + 4);
  EXPECT_EQ(e.code, errc::misaligned);
  EXPECT_EQ(e.offset, 2048u);

  // Seven whole blocks: the last core (bit 3 @1792) is missing.
  e = parse_error(gapped, 1792);
  EXPECT_EQ(e.code, errc::truncated);
  EXPECT_EQ(e.offset, 1792u);
  EXPECT_NE(e.message.find("shader core 3 block is missing"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("core mask 0xb needs 2048 bytes"), std::string::npos) << e.message;
  EXPECT_EQ(e.describe().rfind("truncated at byte offset 1792: ", 0), 0u) << e.describe();

  // Six: the gap block is part of the layout too.
  e = parse_error(gapped, 1536);
  EXPECT_EQ(e.code, errc::truncated);
  EXPECT_EQ(e.offset, 1536u);
  EXPECT_NE(e.message.find("gap (core 2 absent) block is missing"), std::string::npos);

  e = parse_error(gapped, 256);
  EXPECT_EQ(e.code, errc::truncated);
  EXPECT_EQ(e.offset, 256u);
  EXPECT_NE(e.message.find("tiler block is missing"), std::string::npos);

  e = parse_error(gapped, 2048 + 512);
  EXPECT_EQ(e.code, errc::oversized);
  EXPECT_EQ(e.offset, 2048u);
  EXPECT_NE(e.message.find("512 bytes past the last block"), std::string::npos) << e.message;
}

TEST(MaliSample, LayoutErrors) {
  std::vector<std::byte> bytes(4096);
  auto s = sample::parse({.l2_slices = 0, .core_mask = 1}, bytes);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error_value().code, errc::inconsistent);
  EXPECT_EQ(s.error_value().anchor, hwpc::error_anchor::none);
  s = sample::parse({.l2_slices = 1, .core_mask = 0}, bytes);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error_value().code, errc::inconsistent);
  s = sample::parse({.l2_slices = 65, .core_mask = 1}, bytes);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error_value().code, errc::out_of_range);
}

TEST(MaliSample, EveryTruncationIsAnErrorNotAViewPastTheEnd) {
  mali_test::sample_bytes b(gapped);
  for (std::size_t n = 0; n < b.bytes.size(); ++n) {
    auto s = sample::parse(gapped, std::span(b.bytes).first(n));
    ASSERT_FALSE(s) << n;
    EXPECT_LE(s.error_value().offset, n);
  }
  EXPECT_TRUE(sample::parse(gapped, b.bytes));
}

}  // namespace
