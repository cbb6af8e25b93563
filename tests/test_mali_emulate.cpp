// The Mali emulator against the decoders: every product of the database,
// every reader its kernel offers (vinstr for 64-value blocks, kinstr_prfcnt
// for all), seeded configurations; the decoded sums equal the emulator's truth
// exactly, and the workload keeps its promise (no counter above GPU_ACTIVE);
// with the GPU's table the workload keeps the GPU's physics: every derived
// counter of every layout within the range its units allow.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/evaluator.hpp"
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
      o.table = seed % 3 == 0 ? nullptr : p.table;  // the plain workload, or the physics
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

// The range a derived counter's units allow, from what they count:
// percentages are shares of a whole, [0, 100]; everything else (cycles,
// beats, transactions, bytes, quads, threads, primitives, pixels,
// instructions, requests, issues, instances, bits) counts or measures
// something, so is finite and >= 0.
bool in_range(const std::string& units, double v) {
  if (!std::isfinite(v) || v < 0) return false;
  return units != "percent" || v <= 100.0;
}

// The figures were out of range here (G72 read latency 384+ beats
// negative, L2 read miss rates of 290 % and 2,452 %, a G715 IRQ utilisation
// of 190 %, queue active cycles negative). Every layout, decoded with a
// 128-bit bus, every derived counter of every sample, several seeds and
// configurations, both readers where the GPU has them.
TEST(MaliEmulate, EveryDerivedCounterOfEveryLayoutStaysInItsRange) {
  std::size_t checked = 0;
  std::map<std::string, std::size_t> units_seen;
  for (const hwpc::mali::gpu_table* t : gpus::tables) {
    const hwpc::mali::gpu_product* product = nullptr;
    for (const auto& p : gpus::products) {
      if (p.table == t && product == nullptr) product = &p;
    }
    ASSERT_NE(product, nullptr) << t->key;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      for (const bool kinstr : {false, true}) {
        if (!kinstr && t->values_per_block != 64) continue;
        hwpc::mali::emulate_options o;
        o.gpu_id = gpu_id_of(product->product_id, false);
        o.csf = hwpc::mali::is_csf_product(product->product_id);
        o.values_per_block = t->values_per_block;
        o.table = t;
        o.kinstr = kinstr;
        o.l2_slices = static_cast<std::uint32_t>(seed);
        o.core_mask = seed % 2 ? 0x2d : 0xff;
        o.samples = 6;
        o.seed = seed * 977 + t->values_per_block;
        o.period_ns = seed * 100'000;
        const auto e = hwpc::mali::emulate(o);
        const std::string where = std::string(t->key) + (kinstr ? " kinstr" : " vinstr") +
                                  " seed " + std::to_string(seed);
        auto h = hwpc::mali::capture_header::parse(e.file);
        ASSERT_TRUE(h) << where;
        auto ev = hwpc::mali::evaluator::database(*t, h->layout, 128);
        ASSERT_TRUE(ev) << where;
        std::vector<hwpc::expr::value> out(ev->size());
        for (std::size_t k = 0; k < o.samples; ++k) {
          ASSERT_TRUE(ev->evaluate(e.truth[k], out)) << where;  // scales as Arm does
          for (std::size_t i = 0; i < out.size(); ++i) {
            const auto& m = ev->metrics()[i];
            ++units_seen[m.units];
            EXPECT_TRUE(in_range(m.units, out[i].as_double()))
                << where << " sample " << k << ": " << m.symbol_name << " = " << out[i].as_double()
                << " " << m.units;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 13u * 4u * 6u * 90u);
  EXPECT_GT(units_seen["percent"], 0u);
  EXPECT_GT(units_seen["beats"], 0u);
}

}  // namespace
