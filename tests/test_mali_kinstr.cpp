// kinstr_prfcnt buffers: hand-built samples (metadata items and u64 values at
// the positions FACTS-mali.md section 5 gives), block states, sequences,
// hostile structure with the offsets, a 64-value GPU's buffer read as a
// 128-value GPU's, and a seeded random round trip for every GPU.
#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "mali_test_util.hpp"

namespace {

using hwpc::errc;
using hwpc::mali::block_type;
using hwpc::mali::kinstr_reader;
using hwpc::mali::kinstr_sample;
using hwpc::mali::sample_layout;
using mali_test::kinstr_block_spec;
using mali_test::kinstr_buffer;
using mali_test::kinstr_sample_spec;
namespace gpus = hwpc::mali::gpus;

constexpr sample_layout two_cores{.l2_slices = 1, .core_mask = 0b101};

// One G720 sample: front-end, tiler, memory 0, shader cores 0 and 1 (the
// second protected).
kinstr_sample_spec g720_sample(std::uint64_t seq) {
  kinstr_sample_spec s;
  s.ts_start = 1'000'000 * seq;
  s.ts_end = 1'000'000 * seq + 999'000;
  s.seq = seq;
  s.user_data = 0xabcdef;
  s.flags = seq == 2 ? 1u : 0u;  // overflow on the third
  s.cycles = {5000 + seq, 7000};
  std::vector<std::uint64_t> fe(128), sc0(128), sc1(128), mem(128);
  fe[4] = 900 + seq;      // G720 front-end 4: GPU_ACTIVE
  fe[2] = 0xffffffff;     // PRFCNT_EN header: not a counter
  sc0[127] = 1ull << 40;  // the 128-value block's last value, beyond 32 bits
  sc1[127] = 12345;       // protected: never counted
  mem[10] = 77;
  s.blocks = {{0, 0, 0, 0x15, fe},
              {1, 0, 0, 0x15, {}},
              {2, 0, 0, 0x15, mem},
              {3, 0, 0, 0x15, sc0},
              {3, 1, 0, 0x21, sc1}};  // on | protected
  return s;
}

std::vector<kinstr_sample> read_all(kinstr_reader& r) {
  std::vector<kinstr_sample> out;
  while (true) {
    auto s = r.next();
    EXPECT_TRUE(s) << s.error_value().describe();
    if (!s || !*s) break;
    out.push_back(std::move(**s));
  }
  return out;
}

TEST(MaliKinstr, HandBuiltSamplesDecode) {
  kinstr_buffer b(128);
  for (std::uint64_t k = 0; k < 3; ++k) b.add(g720_sample(k));
  // The packer follows FACTS: the SAMPLE item type 0x2000 little-endian, the
  // first block's values right after its sample's NONE item.
  EXPECT_EQ(b.bytes[0], std::byte{0x00});
  EXPECT_EQ(b.bytes[1], std::byte{0x20});
  EXPECT_EQ(b.values_offsets[0], 48u * (1 + 1 + 5 + 1));
  b.bytes.resize(b.bytes.size() + 4096);  // unused buffer space: zeros
  auto r = kinstr_reader::make(gpus::g720, two_cores, b.bytes);
  ASSERT_TRUE(r);
  const auto samples = read_all(*r);
  ASSERT_EQ(samples.size(), 3u);
  const auto active = gpus::g720.find("GPU_ACTIVE");
  ASSERT_TRUE(active);
  const std::string_view sc127 = gpus::g720.name_of(block_type::shader_core, 127);
  for (std::uint64_t k = 0; k < 3; ++k) {
    const kinstr_sample& s = samples[k];
    EXPECT_EQ(s.offset, b.sample_offsets[k]);
    EXPECT_EQ(s.meta.timestamp_start, 1'000'000 * k);
    EXPECT_EQ(s.meta.timestamp_end, 1'000'000 * k + 999'000);
    EXPECT_EQ(s.meta.seq, k);
    EXPECT_EQ(s.meta.user_data, 0xabcdefu);
    EXPECT_EQ(s.meta.flags & hwpc::mali::kinstr::flag_overflow, k == 2 ? 1u : 0u);
    EXPECT_EQ(s.clock_domains, 2u);
    EXPECT_EQ(s.cycles[0], 5000 + k);
    EXPECT_EQ(s.cycles[1], 7000u);
    ASSERT_EQ(s.blocks.size(), 5u);
    EXPECT_EQ(s.blocks[4].type, block_type::shader_core);
    EXPECT_EQ(s.blocks[4].index, 1);
    EXPECT_FALSE(s.blocks[4].has_values());
    EXPECT_EQ(hwpc::mali::kinstr::describe_state(s.blocks[4].state), "on|protected");
    EXPECT_EQ(hwpc::mali::kinstr::describe_state(s.blocks[0].state), "on|available|normal");
    EXPECT_EQ(s.blocks_without_values(), 1u);
    EXPECT_EQ(s.value(s.blocks[0], 2), 0xffffffffu) << "header words readable raw";
    const auto sums = s.sums();
    EXPECT_EQ(sums[active->id], 900 + k);
    EXPECT_EQ(sums.at(block_type::front_end, 2), 0u) << "headers are not summed";
    if (!sc127.empty()) {
      EXPECT_EQ(sums[gpus::g720.find(sc127)->id], 1ull << 40);
    }
    EXPECT_EQ(sums.at(block_type::shader_core, 127), 1ull << 40) << "protected core excluded";
    EXPECT_EQ(sums.at(block_type::memory, 10), 77u);
  }
  auto again = r->next();
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again) << "stays at the end";
}

TEST(MaliKinstr, AnEmptyOrZeroBufferHasNoSample) {
  std::vector<std::byte> zeros(4096);
  auto r = kinstr_reader::make(gpus::g720, two_cores, zeros, 64);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, errc::empty_input);
  EXPECT_EQ(r.error_value().offset, 64u);
  r = kinstr_reader::make(gpus::g720, two_cores, std::span(zeros).first(0));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, errc::empty_input);
}

TEST(MaliKinstr, EmptySampleAndSixtyFourValueBlocks) {
  kinstr_buffer b(64);
  kinstr_sample_spec empty;  // a sample with no blocks (kbase's stop race)
  empty.seq = 1;
  b.add(empty);
  kinstr_sample_spec one;
  one.seq = 2;
  one.blocks = {{0, 0, 0, 0x15, std::vector<std::uint64_t>(64, 3)}};
  b.add(one);
  auto r = kinstr_reader::make(gpus::g710, two_cores, b.bytes);
  ASSERT_TRUE(r);
  const auto samples = read_all(*r);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_TRUE(samples[0].blocks.empty());
  EXPECT_EQ(samples[0].clock_domains, 0u);
  EXPECT_EQ(samples[1].offset, 96u);
  EXPECT_EQ(samples[1].sums()[gpus::g710.find("GPU_ACTIVE")->id], 3u);
}

// The first error reading the whole buffer (the test fails when there is none).
hwpc::error first_error(const hwpc::mali::gpu_table& t, const sample_layout& l,
                        const std::vector<std::byte>& bytes) {
  auto r = kinstr_reader::make(t, l, bytes);
  if (!r) return r.error_value();
  while (true) {
    auto s = r->next();
    if (!s) {
      auto again = r->next();  // an error sticks
      EXPECT_FALSE(again);
      return s.error_value();
    }
    if (!*s) break;
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(MaliKinstr, HostileStructureNamesTheOffset) {
  kinstr_buffer good(128);
  good.add(g720_sample(0));
  good.add(g720_sample(1));
  const std::size_t second = good.sample_offsets[1];
  const std::size_t sc1_item = good.block_item_offsets[4];

  auto b = good.bytes;  // the second sample starts with a CLOCK item
  b[second + 1] = std::byte{0x20};
  b[second] = std::byte{0x01};
  auto e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::unknown_format);
  EXPECT_EQ(e.offset, second);

  b = good.bytes;  // an unknown item type in the list
  b[sc1_item] = std::byte{0x07};
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::unknown_format);
  EXPECT_EQ(e.offset, sc1_item);
  EXPECT_NE(e.message.find("0x2007"), std::string::npos) << e.message;

  b = good.bytes;  // shader core 1 when the configuration has one core
  e = first_error(gpus::g720, {.l2_slices = 1, .core_mask = 0b100}, b);
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.offset, sc1_item);
  EXPECT_NE(e.message.find("shader core block 1"), std::string::npos) << e.message;

  b = good.bytes;  // a second shader core 0
  b[sc1_item + 9] = std::byte{0};
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.offset, sc1_item);

  b = good.bytes;  // values offset past the buffer
  mali_test::put_le(b, sc1_item + 16, 0xfffffff8u, 4);
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::truncated);
  EXPECT_EQ(e.offset, sc1_item);

  b = good.bytes;  // values offset not 8-byte aligned
  mali_test::put_le(b, sc1_item + 16, good.values_offsets[4] + 4, 4);
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::misaligned);
  EXPECT_EQ(e.offset, sc1_item);

  b = good.bytes;  // values pointing into the metadata list
  mali_test::put_le(b, sc1_item + 16, 48, 4);
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.offset, sc1_item);

  b = good.bytes;  // the second sample's values pointing into the first sample
  mali_test::put_le(b, good.block_item_offsets[5] + 16, good.values_offsets[0], 4);
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.offset, good.block_item_offsets[5]);
  EXPECT_NE(e.message.find("before their sample"), std::string::npos) << e.message;

  b = good.bytes;  // a secondary counter set; a CSF firmware block
  b[sc1_item + 10] = std::byte{1};
  EXPECT_EQ(first_error(gpus::g720, two_cores, b).code, errc::unknown_format);
  b = good.bytes;
  b[sc1_item + 8] = std::byte{4};
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::unknown_format);
  EXPECT_EQ(e.offset, sc1_item);

  b = good.bytes;  // five clock domains
  b[48 + 8] = std::byte{5};
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::out_of_range);
  EXPECT_EQ(e.offset, 48u);

  b = good.bytes;  // ends before it starts
  mali_test::put_le(b, 8, 2'000'000, 8);
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.offset, 0u);

  // The second sample's metadata cut short.
  b.assign(good.bytes.begin(), good.bytes.begin() + static_cast<std::ptrdiff_t>(second + 100));
  e = first_error(gpus::g720, two_cores, b);
  EXPECT_EQ(e.code, errc::truncated);
  EXPECT_EQ(e.offset, second + 96);
}

// A G78 buffer (64-value blocks) read as a G715 (128): blocks 512 bytes apart
// cannot hold 1024 bytes of values each, so the structure is refused at the
// second block, never decoded with the G715's names. The reverse (G715 read
// as G78) cannot be told by structure: docs/mali.md says so.
TEST(MaliKinstr, AnotherGpusBufferIsRefused) {
  kinstr_buffer b(64);
  kinstr_sample_spec s;
  s.blocks = {{0, 0, 0, 0x15, {}}, {1, 0, 0, 0x15, {}}, {2, 0, 0, 0x15, {}}, {3, 0, 0, 0x15, {}}};
  b.add(s);
  b.add(s);  // so that every block's 1024 bytes lie inside the buffer
  auto e = first_error(gpus::g715, two_cores, b.bytes);
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.offset, b.block_item_offsets[1]);
  EXPECT_NE(e.message.find("Mali-G715 blocks hold 128 u64 values"), std::string::npos) << e.message;
  auto r = kinstr_reader::make(gpus::g78, two_cores, b.bytes);
  ASSERT_TRUE(r);
  EXPECT_EQ(read_all(*r).size(), 2u);
  // With one sample only, the last block's values run past the buffer first.
  b.bytes.resize(b.sample_offsets[1]);
  e = first_error(gpus::g715, two_cores, b.bytes);
  EXPECT_EQ(e.code, errc::truncated);
  EXPECT_EQ(e.offset, b.block_item_offsets[3]);
}

TEST(MaliKinstr, EveryTruncationIsAnErrorOrFewerSamples) {
  kinstr_buffer b(64);
  kinstr_sample_spec s;
  s.cycles = {1};
  s.blocks = {{0, 0, 0, 0x15, {1, 2, 3, 4, 5}}, {3, 1, 0, 0x15, {0, 0, 0, 0, 9}}};
  b.add(s);
  b.add(s);
  for (std::size_t n = 1; n < b.bytes.size(); ++n) {
    std::vector<std::byte> cut(b.bytes.begin(), b.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = kinstr_reader::make(gpus::g78, two_cores, cut);
    if (!r) {  // the first byte alone is 0x00: only zeros, no sample
      EXPECT_EQ(n, 1u);
      EXPECT_EQ(r.error_value().code, errc::empty_input);
      continue;
    }
    std::size_t got = 0;
    while (true) {
      auto x = r->next();
      if (!x) {
        EXPECT_LE(x.error_value().offset, n) << n;
        break;
      }
      if (!*x) break;
      ++got;
    }
    EXPECT_LT(got, 2u) << n;
  }
}

// Seeded random round trip: every GPU, random configurations, states and
// values, packed by the test; expected sums kept by counter name.
TEST(MaliKinstr, SeededRandomRoundTripEveryGpu) {
  std::mt19937_64 rng(0x6b1e57);
  std::size_t checked = 0;
  for (const auto* t : gpus::tables) {
    for (int round = 0; round < 3; ++round) {
      const std::uint32_t slices = 1 + static_cast<std::uint32_t>(rng() % 4);
      std::uint64_t mask = rng() & 0xfff;
      if (mask == 0) mask = 1;
      const sample_layout layout{.l2_slices = slices, .core_mask = mask};
      const std::size_t cores = static_cast<std::size_t>(std::popcount(mask));
      kinstr_buffer b(t->values_per_block);
      std::vector<std::map<std::string_view, std::uint64_t>> expected;
      const std::size_t samples = 1 + rng() % 4;
      for (std::size_t k = 0; k < samples; ++k) {
        kinstr_sample_spec s;
        s.ts_start = 100 * k;
        s.ts_end = 100 * k + 50;
        s.seq = k;
        std::map<std::string_view, std::uint64_t> sums;
        auto add_block = [&](std::uint8_t type, std::uint8_t index) {
          kinstr_block_spec blk;
          blk.type = type;
          blk.index = index;
          // Mostly on; sometimes off, unavailable or protected (no values).
          const std::uint32_t states[] = {0x15, 0x15, 0x15, 0x02, 0x08, 0x21, 0x05};
          blk.state = states[rng() % std::size(states)];
          const bool counted = (blk.state & (0x02 | 0x08 | 0x20)) == 0;
          for (std::size_t i = 0; i < t->values_per_block; ++i) {
            const std::uint64_t v = rng() >> (rng() % 40);
            blk.values.push_back(v);
            const std::string_view name = t->name_of(static_cast<block_type>(type), i);
            if (counted && !name.empty()) sums[name] += v;
          }
          s.blocks.push_back(std::move(blk));
        };
        add_block(0, 0);
        add_block(1, 0);
        for (std::uint32_t m = 0; m < slices; ++m) add_block(2, static_cast<std::uint8_t>(m));
        for (std::size_t c = 0; c < cores; ++c) add_block(3, static_cast<std::uint8_t>(c));
        b.add(s);
        expected.push_back(std::move(sums));
      }
      auto r = kinstr_reader::make(*t, layout, b.bytes);
      ASSERT_TRUE(r);
      const auto got = read_all(*r);
      ASSERT_EQ(got.size(), samples) << t->key;
      for (std::size_t k = 0; k < samples; ++k) {
        EXPECT_EQ(got[k].meta.seq, k);
        const auto sums = got[k].sums();
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

// Older kbase numbered shader-core blocks by core-mask bit: read with
// core_index::sparse, bits 0, 2, 3 of mask 0b1101 become cores 0, 1, 2.
TEST(MaliKinstr, SparseCoreIndicesAreRemappedThroughTheMask) {
  constexpr sample_layout mask1101{.l2_slices = 1, .core_mask = 0b1101};
  kinstr_buffer b(64);
  kinstr_sample_spec s;
  s.blocks = {{3, 0, 0, 0x15, {0, 0, 0, 0, 1}},
              {3, 2, 0, 0x15, {0, 0, 0, 0, 20}},
              {3, 3, 0, 0x15, {0, 0, 0, 0, 300}}};
  b.add(s);
  auto r = kinstr_reader::make(gpus::g78, mask1101, b.bytes, 0, hwpc::mali::core_index::sparse);
  ASSERT_TRUE(r);
  const auto got = read_all(*r);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].blocks.size(), 3u);
  EXPECT_EQ(got[0].blocks[0].index, 0);
  EXPECT_EQ(got[0].blocks[1].index, 1);
  EXPECT_EQ(got[0].blocks[2].index, 2);
  EXPECT_EQ(got[0].sums().at(block_type::shader_core, 4), 321u);
  // Read as dense, index 3 is past the three cores.
  auto e = first_error(gpus::g78, mask1101, b.bytes);
  EXPECT_EQ(e.code, errc::inconsistent);
  EXPECT_EQ(e.offset, b.block_item_offsets[2]);
  // Sparse, bit 1 is clear in the mask.
  b.bytes[b.block_item_offsets[1] + 9] = std::byte{1};
  r = kinstr_reader::make(gpus::g78, mask1101, b.bytes, 0, hwpc::mali::core_index::sparse);
  auto x = r->next();
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error_value().offset, b.block_item_offsets[1]);
  EXPECT_NE(x.error_value().message.find("bit 1, which is clear"), std::string::npos);
}

}  // namespace

namespace {

// Seeded hostile buffers: a valid two-sample buffer with random bytes
// overwritten. Every outcome is samples whose blocks lie inside the buffer, or
// an error whose offset is inside it; the reader always terminates.
TEST(MaliKinstr, MutatedBuffersNeverReadOutside) {
  kinstr_buffer good(128);
  good.add(g720_sample(0));
  good.add(g720_sample(1));
  std::mt19937_64 rng(0xbadc0de);
  std::size_t errors = 0, decoded = 0;
  for (int round = 0; round < 2000; ++round) {
    auto b = good.bytes;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Aim half the flips at the metadata, where structure lives.
      const std::size_t limit = (rng() & 1) ? good.values_offsets[0] : b.size();
      b[rng() % limit] = std::byte(rng() & 0xff);
    }
    auto r = kinstr_reader::make(gpus::g720, two_cores, b);
    ASSERT_TRUE(r);
    for (int guard = 0; guard < 100; ++guard) {
      auto x = r->next();
      if (!x) {
        EXPECT_LT(x.error_value().offset, b.size() + 1);
        ++errors;
        break;
      }
      if (!*x) break;
      ++decoded;
      for (const auto& blk : (*x)->blocks) {
        ASSERT_LE(blk.values_offset + 128 * 8, b.size());
      }
      (void)(*x)->sums();
      ASSERT_LT(guard, 99) << "more samples than bytes allow";
    }
  }
  EXPECT_GT(errors, 100u);
  EXPECT_GT(decoded, 100u);
}

}  // namespace
