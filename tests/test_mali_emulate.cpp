// The Mali emulator against the decoders: every product of the database,
// every reader its kernel offers (vinstr for 64-value blocks, kinstr_prfcnt
// for all), seeded configurations; the decoded sums equal the emulator's truth
// exactly, and the workload keeps its promise (no counter above GPU_ACTIVE).
#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/vinstr.hpp"

namespace {

using hwpc::mali::block_sums;
namespace gpus = hwpc::mali::gpus;

// A GPU_ID for a product id, in the 32-bit or the 64-bit form (FACTS-mali section 1).
std::uint64_t gpu_id_of(std::uint32_t product_id, bool wide) {
  const std::uint64_t arch = product_id >> 12, product = product_id & 0xfff;
  if (wide) return arch << 56 | product << 32 | 0xf000'0000u;
  return arch << 28 | product << 16;
}

void expect_same(const block_sums& got, const block_sums& want, const std::string& where) {
  for (std::size_t t = 0; t < 4; ++t) {
    for (std::size_t i = 0; i < hwpc::mali::max_values_per_block; ++i) {
      ASSERT_EQ(got.values[t][i], want.values[t][i]) << where << " block " << t << " value " << i;
    }
  }
}

TEST(MaliEmulate, EveryProductEveryReaderDecodesToTheTruth) {
  std::uint64_t seed = 1;
  std::size_t captures = 0;
  for (const auto& p : gpus::products) {
    for (const bool kinstr : {false, true}) {
      if (!kinstr && p.table->values_per_block != 64) continue;
      ++seed;
      hwpc::mali::emulate_options o;
      o.gpu_id = gpu_id_of(p.product_id, seed % 2 == 0);
      o.csf = p.product_id >= 0xa000;
      o.values_per_block = p.table->values_per_block;
      o.kinstr = kinstr;
      o.l2_slices = 1 + static_cast<std::uint32_t>(seed % 4);
      o.core_mask = (seed * 0x9e3779b97f4a7c15ull) >> 52 | 1;
      o.samples = 1 + seed % 5;
      o.seed = seed;
      const auto e = hwpc::mali::emulate(o);
      const std::string where = std::string(p.name) + (kinstr ? " kinstr" : " vinstr");

      auto h = hwpc::mali::capture_header::parse(e.file);
      ASSERT_TRUE(h) << where << ": " << h.error_value().describe();
      auto gpu = hwpc::mali::find_gpu_by_id(h->gpu_id);
      ASSERT_TRUE(gpu) << where;
      ASSERT_EQ((*gpu)->product_id, p.product_id) << where;
      const auto& table = *(*gpu)->table;
      const std::size_t active = o.csf ? 4 : 6;
      if (!kinstr) {
        auto cap = hwpc::mali::vinstr_capture::make(table, h->layout, h->payload(e.file), 64, true);
        ASSERT_TRUE(cap) << where << ": " << cap.error_value().describe();
        ASSERT_EQ(cap->size(), o.samples) << where;
        for (std::size_t k = 0; k < o.samples; ++k) {
          expect_same(cap->at(k).sums(), e.truth[k], where);
          EXPECT_EQ(cap->meta(k)->timestamp, e.end_ns[k]);
        }
      } else {
        auto r = hwpc::mali::kinstr_reader::make(table, h->layout, h->payload(e.file), 64);
        ASSERT_TRUE(r);
        for (std::size_t k = 0; k < o.samples; ++k) {
          auto s = r->next();
          ASSERT_TRUE(s) << where << ": " << s.error_value().describe();
          ASSERT_TRUE(*s) << where << " sample " << k;
          expect_same((*s)->sums(), e.truth[k], where);
          EXPECT_EQ((*s)->meta.timestamp_end, e.end_ns[k]);
          EXPECT_EQ((*s)->meta.seq, k + 1);
        }
        auto end = r->next();
        ASSERT_TRUE(end && !*end) << where;
      }
      // The workload's promise: no value of any block instance above the
      // sample's active cycles, so each sum stays within instances x active.
      const std::uint64_t instances[4] = {1, 1, o.l2_slices,
                                          static_cast<std::uint64_t>(std::popcount(o.core_mask))};
      for (std::size_t k = 0; k < o.samples; ++k) {
        const std::uint64_t a = e.active_cycles[k];
        EXPECT_GT(a, 0u);
        EXPECT_LE(a, o.period_ns) << "active cycles <= cycles";
        const auto& t = e.truth[k];
        if (t.values[0][active] != 0) {  // else the front-end block was off or protected
          EXPECT_EQ(t.values[0][active], a) << where;
        }
        for (std::size_t b = 0; b < 4; ++b) {
          for (std::size_t i = 4; i < o.values_per_block; ++i) {
            ASSERT_LE(t.values[b][i], instances[b] * a) << where << " block " << b << " " << i;
          }
        }
      }
      ++captures;
    }
  }
  EXPECT_EQ(captures, 25u + 16u);  // kinstr for all 25 ids, vinstr for the 16 with 64-value blocks
}

}  // namespace
