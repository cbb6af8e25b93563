// Seeded random .rd captures: a generator with its own encoder (its own
// parity, its own opcode and register numbers typed from FACTS) builds
// command streams with occlusion and time-elapsed queries, counter selects
// and samples spread over nested indirect buffers (zero padding after some of
// their contents, counted in the IB sizes); decoding
// must recover every one, in execution order, at its byte offset.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/recognise.hpp"

namespace {

using adreno_rd::dwords;
using adreno_rd::pkt4;
using adreno_rd::pkt7;

// What the generator put where: kind, slot/address, counter, countable.
struct expected {
  std::string kind;  // "occ-begin", "occ-end", "te-begin", "te-end", "select", "sample"
  std::uint64_t address = 0;
  std::string group;
  std::uint32_t counter = 0;
  long countable = -1;
  std::size_t buffer = 0, dword = 0;  // where its first packet is
};

struct group_regs {
  const char* name;
  std::uint32_t sel0, lo0, first, last;
};
// A few groups from FACTS-adreno section 5.
const group_regs groups[] = {{"CP", 0x0bb0, 0x03a0, 1, 6},
                             {"SP", 0x0ed0, 0x0428, 1, 10},
                             {"RB", 0x0cd0, 0x0440, 0, 6},
                             {"VSC", 0x0c60, 0x0450, 0, 0}};

struct generator {
  std::mt19937 rng;
  std::vector<dwords> buffers;
  std::vector<expected> want;
  std::vector<std::pair<bool, std::uint64_t>> open;  // (occlusion?, slot)
  std::uint64_t next_slot = 0xc0400000;
  std::vector<std::vector<long>> selected;  // [group][counter] -> countable

  explicit generator(unsigned seed) : rng(seed) {
    for (const auto& g : groups) selected.emplace_back(g.last + 1, -1);
  }
  std::uint32_t pick(std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); }
  static std::uint64_t iova(std::size_t b) { return 0x100000ull * (b + 1); }
  static void put64(dwords& d, std::uint64_t a) {
    d.push_back(static_cast<std::uint32_t>(a));
    d.push_back(static_cast<std::uint32_t>(a >> 32));
  }
  void mark(std::size_t b, std::string kind, std::uint64_t address, std::string group = {},
            std::uint32_t counter = 0, long countable = -1) {
    expected e;
    e.kind = std::move(kind);
    e.address = address;
    e.group = std::move(group);
    e.counter = counter;
    e.countable = countable;
    e.buffer = b;
    e.dword = buffers[b].size();
    want.push_back(e);
  }

  void occlusion_begin(std::size_t b, std::uint64_t s) {
    mark(b, "occ-begin", s);
    dwords& d = buffers[b];
    d.insert(d.end(), {pkt4(0xe1d1, 1), 2, pkt4(0xe267, 2)});
    put64(d, s);
    d.insert(d.end(), {pkt7(0x46, 1), 0x15});
  }
  void occlusion_end(std::size_t b, std::uint64_t s) {
    mark(b, "occ-end", s);
    dwords& d = buffers[b];
    d.push_back(pkt7(0x3d, 4));
    put64(d, s + 16);
    d.insert(d.end(), {0xffffffff, 0xffffffff, pkt7(0x12, 0), pkt4(0xe1d1, 1), 2, pkt4(0xe267, 2)});
    put64(d, s + 16);
    d.insert(d.end(), {pkt7(0x46, 1), 0x15, pkt7(0x3c, 6), 0x14});
    put64(d, s + 20);
    d.insert(d.end(), {0xffffffff, 0xffffffff, 0x10, pkt7(0x73, 9), 0x20000004});
    for (std::uint64_t a : {s + 8, s + 8, s + 16, s}) put64(d, a);
  }
  void te_begin(std::size_t b, std::uint64_t s) {
    mark(b, "te-begin", s);
    dwords& d = buffers[b];
    d.insert(d.end(), {pkt7(0x46, 4), 0x40000016});
    put64(d, s);
    d.push_back(0);
  }
  void te_end(std::size_t b, std::uint64_t s) {
    mark(b, "te-end", s);
    dwords& d = buffers[b];
    d.insert(d.end(), {pkt7(0x46, 4), 0x40000016});
    put64(d, s + 16);
    d.insert(d.end(), {0, pkt7(0x26, 0), pkt7(0x73, 9), 0x20000004});
    for (std::uint64_t a : {s + 8, s + 8, s + 16, s}) put64(d, a);
  }
  void select(std::size_t b) {
    const std::uint32_t gi = pick(4);
    const auto& g = groups[gi];
    const std::uint32_t n = g.first + pick(g.last - g.first + 1);
    const std::uint32_t v = pick(20);
    mark(b, "select", 0, g.name, n, v);
    selected[gi][n] = v;
    buffers[b].insert(buffers[b].end(), {pkt4(g.sel0 + n, 1), v});
  }
  void sample(std::size_t b) {
    const std::uint32_t gi = pick(4);
    const auto& g = groups[gi];
    const std::uint32_t n = g.first + pick(g.last - g.first + 1);
    const std::uint64_t dst = 0xd0000000ull + 8 * pick(1000);
    mark(b, "sample", dst, g.name, n, selected[gi][n]);
    dwords& d = buffers[b];
    d.insert(d.end(), {pkt7(0x3e, 3), (g.lo0 + 2 * n) | (2u << 18)});
    put64(d, dst);
  }
  void noise(std::size_t b) {
    dwords& d = buffers[b];
    if (pick(2)) {
      const std::uint32_t n = pick(5);
      d.push_back(pkt7(0x10, n));  // CP_NOP
      for (std::uint32_t i = 0; i < n; ++i) d.push_back(static_cast<std::uint32_t>(rng()));
    } else {
      d.insert(d.end(), {pkt4(0x2000 + pick(0x1000), 1), static_cast<std::uint32_t>(rng())});
    }
  }

  // Fills buffer b (depth `depth`) with random items; returns its size in dwords.
  void fill(std::size_t b, unsigned depth) {
    const std::uint32_t items = 2 + pick(12);
    for (std::uint32_t i = 0; i < items; ++i) {
      switch (pick(8)) {
        case 0:
        case 1: {
          const bool occ = pick(2);
          const std::uint64_t s = next_slot;
          next_slot += 0x100;
          occ ? occlusion_begin(b, s) : te_begin(b, s);
          open.push_back({occ, s});
          break;
        }
        case 2:
          if (!open.empty()) {
            const std::size_t k = pick(static_cast<std::uint32_t>(open.size()));
            const auto q = open[k];
            open.erase(open.begin() + static_cast<std::ptrdiff_t>(k));
            q.first ? occlusion_end(b, q.second) : te_end(b, q.second);
          }
          break;
        case 3:
          select(b);
          break;
        case 4:
          sample(b);
          break;
        case 5:
          if (depth < 4) {
            const std::size_t child = buffers.size();
            buffers.emplace_back();
            // The call's size is patched once the child is filled.
            const std::size_t at = buffers[b].size();
            const dwords call = adreno_rd::ib(iova(child), 0, pick(4) ? 0x3f : 0x37);
            buffers[b].insert(buffers[b].end(), call.begin(), call.end());
            fill(child, depth + 1);
            buffers[b][at + 3] = static_cast<std::uint32_t>(buffers[child].size());
          }
          break;
        default:
          noise(b);
      }
    }
    if (pick(3) == 0) buffers[b].resize(buffers[b].size() + 1 + pick(64), 0);  // padding
  }
};

struct collector : hwpc::adreno::rd::capture_sink {
  hwpc::adreno::recogniser rec;
  std::size_t issues = 0;
  void on_packet(const hwpc::adreno::walked_packet& p) override { rec.push(p.pkt); }
  void on_issue(const hwpc::error& e) override {
    ++issues;
    ADD_FAILURE() << e.describe();
  }
};

TEST(AdrenoRoundTrip, RandomCapturesWithNestedIbs) {
  using hwpc::adreno::query_op;
  using hwpc::adreno::timestamp_role;
  std::size_t total = 0, max_buffers = 0;
  std::uint64_t padding = 0;
  for (unsigned seed = 1; seed <= 150; ++seed) {
    generator g(seed);
    g.buffers.emplace_back();
    g.fill(0, 0);
    for (const auto& q : g.open) q.first ? g.occlusion_end(0, q.second) : g.te_end(0, q.second);
    g.open.clear();
    adreno_rd::writer w;
    w.gpu_id(530);
    std::vector<std::size_t> at(g.buffers.size());
    // Buffers are written in reverse order of creation: the address space must not care.
    for (std::size_t b = g.buffers.size(); b-- > 0;)
      at[b] = w.buffer(generator::iova(b), g.buffers[b]);
    w.cmdstream(generator::iova(0), static_cast<std::uint32_t>(g.buffers[0].size()));

    collector c;
    hwpc::adreno::rd::capture_reader reader(c);
    ASSERT_TRUE(reader.read(w.bytes));
    c.rec.finish();
    const auto& got = c.rec.events();
    ASSERT_EQ(got.size(), g.want.size()) << "seed " << seed;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const auto& e = g.want[i];
      const auto& r = got[i];
      SCOPED_TRACE("seed " + std::to_string(seed) + " event " + std::to_string(i) + " " + e.kind);
      EXPECT_EQ(r.offset, at[e.buffer] + 4 * e.dword);
      if (e.kind == "occ-begin" || e.kind == "occ-end") {
        EXPECT_EQ(r.op,
                  e.kind == "occ-begin" ? query_op::occlusion_begin : query_op::occlusion_end);
        EXPECT_EQ(r.slot, e.address);
        EXPECT_TRUE(r.layout_matches);
      } else if (e.kind == "te-begin" || e.kind == "te-end") {
        EXPECT_EQ(r.op, query_op::timestamp);
        EXPECT_EQ(r.role, e.kind == "te-begin" ? timestamp_role::begin : timestamp_role::end);
        EXPECT_EQ(r.slot, e.address);
        EXPECT_EQ(r.slot_size, 24u);
      } else {
        EXPECT_EQ(r.op, e.kind == "select" ? query_op::counter_select : query_op::counter_sample);
        ASSERT_TRUE(r.counter);
        EXPECT_EQ(r.counter->group->name, e.group);
        EXPECT_EQ(r.counter->counter, e.counter);
        if (e.kind == "sample") {
          EXPECT_EQ(r.address, e.address);
          EXPECT_EQ(r.sample_dwords, 2u);
        }
        if (e.countable < 0) {
          EXPECT_FALSE(r.countable);
        } else {
          EXPECT_EQ(r.countable, static_cast<std::uint32_t>(e.countable));
        }
      }
    }
    EXPECT_EQ(c.issues, 0u);
    padding += reader.walk().padding_dwords;
    total += got.size();
    max_buffers = std::max(max_buffers, g.buffers.size());
  }
  EXPECT_GT(total, 1000u);  // the generator really produces work
  EXPECT_GT(max_buffers, 5u);
  EXPECT_GT(padding, 0u);
}

}  // namespace
