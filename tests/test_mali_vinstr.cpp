// vinstr captures for any GPU with 64-value blocks: hand-built sequences of
// samples, size errors with the offsets, GPUs vinstr cannot deliver, and a
// seeded random round trip for every 64-value GPU of the database (packed by
// the test's own code from FACTS-mali.md section 4).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/vinstr.hpp"
#include "mali_test_util.hpp"

namespace {

using hwpc::errc;
using hwpc::mali::block_type;
using hwpc::mali::sample_layout;
using hwpc::mali::vinstr_capture;
namespace gpus = hwpc::mali::gpus;

constexpr sample_layout gapped{.l2_slices = 2, .core_mask = 0b1011};  // 8 blocks, 2048 bytes

std::vector<std::byte> three_g78_samples() {
  std::vector<std::byte> all;
  for (std::uint32_t k = 0; k < 3; ++k) {
    mali_test::sample_bytes b(gapped);
    b.front_end(6, 1000 + k);  // G78 front-end 6: GPU_ACTIVE
    b.memory(0, 7, 10 * k);    // memory 7 on both slices
    b.memory(1, 7, 5);
    b.core(0, 4, 1);  // shader core 4 on cores 0, 1, 3
    b.core(1, 4, 2);
    b.core(2, 4, 9999);  // the gap (bit 2): never read
    b.core(3, 4, 4 + k);
    all.insert(all.end(), b.bytes.begin(), b.bytes.end());
  }
  return all;
}

TEST(MaliVinstr, ASequenceOfSamplesOneByOne) {
  const auto bytes = three_g78_samples();
  ASSERT_EQ(bytes.size(), 3u * 2048u);
  auto cap = vinstr_capture::make(gpus::g78, gapped, bytes, 64);
  ASSERT_TRUE(cap) << cap.error_value().describe();
  ASSERT_EQ(cap->size(), 3u);
  EXPECT_EQ(cap->sample_bytes(), 2048u);
  const auto active = gpus::g78.find("GPU_ACTIVE");
  ASSERT_TRUE(active);
  ASSERT_EQ(active->id, (hwpc::mali::counter_id{block_type::front_end, 6}));
  const std::string_view mem7 = gpus::g78.name_of(block_type::memory, 7);
  const std::string_view sc4 = gpus::g78.name_of(block_type::shader_core, 4);
  ASSERT_FALSE(mem7.empty());
  ASSERT_FALSE(sc4.empty());
  for (std::uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(cap->offset(k), 64u + k * 2048u);
    const auto sums = cap->at(k).sums();
    EXPECT_EQ(sums[active->id], 1000u + k);
    EXPECT_EQ(sums[gpus::g78.find(mem7)->id], 10u * k + 5u);
    EXPECT_EQ(sums[gpus::g78.find(sc4)->id], 1u + 2u + 4u + k) << "gap excluded";
  }
}

TEST(MaliVinstr, SizeErrorsNameTheOffset) {
  auto bytes = three_g78_samples();
  // Two samples and seven blocks of the third: its shader core 3 block is missing.
  auto cap = vinstr_capture::make(gpus::g78, gapped, std::span(bytes).first(2 * 2048 + 1792), 16);
  ASSERT_FALSE(cap);
  EXPECT_EQ(cap.error_value().code, errc::truncated);
  EXPECT_EQ(cap.error_value().offset, 16u + 2 * 2048 + 1792);
  EXPECT_NE(cap.error_value().message.find("sample 2 (at offset 4112)"), std::string::npos)
      << cap.error_value().message;
  EXPECT_NE(cap.error_value().message.find("shader core 3 block is missing"), std::string::npos);
  EXPECT_NE(cap.error_value().message.find("Mali-G78"), std::string::npos);

  cap = vinstr_capture::make(gpus::g78, gapped, std::span(bytes).first(2048 + 300));
  ASSERT_FALSE(cap);
  EXPECT_EQ(cap.error_value().code, errc::misaligned);
  EXPECT_EQ(cap.error_value().offset, 2048u + 256u);

  cap = vinstr_capture::make(gpus::g78, gapped, std::span(bytes).first(0), 7);
  ASSERT_FALSE(cap);
  EXPECT_EQ(cap.error_value().code, errc::empty_input);
  EXPECT_EQ(cap.error_value().offset, 7u);

  // The same bytes read with a configuration of one core more: 2304-byte
  // samples do not divide 6144 bytes.
  cap = vinstr_capture::make(gpus::g78, {.l2_slices = 2, .core_mask = 0b11011}, bytes);
  ASSERT_FALSE(cap);
  EXPECT_EQ(cap.error_value().code, errc::truncated);
}

TEST(MaliVinstr, GpusWith128ValueBlocksHaveNoVinstrSamples) {
  const auto bytes = three_g78_samples();
  for (const auto* t : {&gpus::g715, &gpus::g720, &gpus::g725, &gpus::g1}) {
    auto cap = vinstr_capture::make(*t, gapped, bytes);
    ASSERT_FALSE(cap) << t->key;
    EXPECT_EQ(cap.error_value().code, errc::inconsistent);
    EXPECT_EQ(cap.error_value().anchor, hwpc::error_anchor::none);
    EXPECT_NE(cap.error_value().message.find("128-value blocks"), std::string::npos);
  }
}

// Seeded random round trip: for every 64-value layout, random configurations
// and sample counts; the test packs each value at 256 * position + 4 * index
// and keeps its own expected sums per counter name.
TEST(MaliVinstr, SeededRandomRoundTripEveryGpu) {
  std::mt19937_64 rng(0x3a11'7a11);
  std::size_t checked = 0;
  for (const auto* t : gpus::tables) {
    if (t->values_per_block != 64) continue;
    for (int round = 0; round < 4; ++round) {
      const std::uint32_t slices = 1 + static_cast<std::uint32_t>(rng() % 4);
      std::uint64_t mask = rng() & 0xffff;
      if (mask == 0) mask = 0x10;
      const sample_layout layout{.l2_slices = slices, .core_mask = mask};
      const std::size_t samples = 1 + rng() % 5;
      std::vector<std::byte> bytes;
      std::vector<std::map<std::string_view, std::uint64_t>> expected(samples);
      for (std::size_t k = 0; k < samples; ++k) {
        mali_test::sample_bytes b(layout);
        for (std::size_t pos = 0; pos < layout.block_count(); ++pos) {
          // Which block type and whether it is a gap, by FACTS' non-v4 order.
          block_type type = block_type::shader_core;
          bool gap = false;
          if (pos == 0) {
            type = block_type::front_end;
          } else if (pos == 1) {
            type = block_type::tiler;
          } else if (pos < 2 + slices) {
            type = block_type::memory;
          } else {
            gap = ((mask >> (pos - 2 - slices)) & 1u) == 0;
          }
          for (std::size_t i = 0; i < 64; ++i) {
            const auto v = static_cast<std::uint32_t>(rng());
            b.put(pos, i, v);
            const std::string_view name = t->name_of(type, i);
            if (!gap && i >= 4 && !name.empty()) expected[k][name] += v;
          }
        }
        bytes.insert(bytes.end(), b.bytes.begin(), b.bytes.end());
      }
      auto cap = vinstr_capture::make(*t, layout, bytes);
      ASSERT_TRUE(cap) << t->key << " " << cap.error_value().describe();
      ASSERT_EQ(cap->size(), samples);
      for (std::size_t k = 0; k < samples; ++k) {
        const auto sums = cap->at(k).sums();
        for (const auto& c : t->counters) {
          ASSERT_EQ(sums[c.id], expected[k][c.name]) << t->key << " " << c.name;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 10000u);
}

}  // namespace

namespace {

// Views of temporaries do not compile: a capture, reader, sample or evaluator
// over a temporary vector or table would dangle (issue of the API's lifetime).
template <class Bytes>
concept vinstr_from = requires(Bytes&& b) {
  vinstr_capture::make(gpus::g78, gapped, std::forward<Bytes>(b));
};
template <class Bytes>
concept kinstr_from = requires(Bytes&& b) {
  hwpc::mali::kinstr_reader::make(gpus::g78, gapped, std::forward<Bytes>(b));
};
template <class Bytes>
concept sample_from = requires(Bytes&& b) {
  hwpc::mali::sample::parse(gapped, std::forward<Bytes>(b));
};
template <class Table>
concept vinstr_over = requires(Table&& t, std::span<const std::byte> b) {
  vinstr_capture::make(std::forward<Table>(t), gapped, b);
};
static_assert(vinstr_from<std::vector<std::byte>&>);
static_assert(!vinstr_from<std::vector<std::byte>>);
static_assert(kinstr_from<const std::vector<std::byte>&>);
static_assert(!kinstr_from<std::vector<std::byte>>);
static_assert(sample_from<std::vector<std::byte>&>);
static_assert(!sample_from<std::vector<std::byte>>);
static_assert(vinstr_over<const hwpc::mali::gpu_table&>);
static_assert(!vinstr_over<hwpc::mali::gpu_table>);

}  // namespace
