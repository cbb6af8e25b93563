// The streaming recogniser: freedreno's 24-byte time-elapsed slots,
// timestamp pairing (against a naive reference, and its cost), and the
// performance-counter programming and sampling it reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "adreno_seed.hpp"
#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/counter_index.hpp"
#include "hwpc/adreno/explain.hpp"
#include "hwpc/adreno/interp.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/adreno/walk.hpp"

namespace {

using namespace hwpc::adreno;
using adreno_rd::dwords;
using adreno_rd::pkt4;
using adreno_rd::pkt7;
using adreno_seed::bytes_of;

constexpr std::uint32_t S = 0xc0457000;  // a 24-byte slot

// freedreno's A5xx time-elapsed begin / end (issue 13: start +0, result +8,
// stop +0x10, result += stop - start on the GPU), event RB_DONE_TS | TIMESTAMP.
const dwords fd_begin = {pkt7(0x46, 4), 0x40000016, S, 0, 0};
const dwords fd_end = {pkt7(0x46, 4), 0x40000016, S + 0x10, 0, 0,     pkt7(0x26, 0),
                       pkt7(0x73, 9), 0x20000004, S + 8,    0, S + 8, 0,
                       S + 0x10,      0,          S,        0};

TEST(AdrenoRecognise, FreedrenoTimeElapsedSlot) {
  const auto all = adreno_rd::cat({fd_begin, fd_end, fd_begin, fd_end});
  auto r = recognise(hwpc::byte_span(bytes_of(all)));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const auto& e = (*r)[i];
    EXPECT_EQ(e.op, query_op::timestamp);
    EXPECT_EQ(e.role, i % 2 ? timestamp_role::end : timestamp_role::begin) << i;
    EXPECT_EQ(e.slot, S);
    EXPECT_EQ(e.slot_size, 24u);
    EXPECT_TRUE(e.layout_matches);
  }
  EXPECT_EQ((*r)[1].offset, 20u);
  EXPECT_EQ((*r)[1].packet_count, 3u);
  EXPECT_EQ(describe((*r)[0]),
            "time-elapsed begin of slot 0xc0457000 (24-byte): always-on counter -> 0xc0457000");
  EXPECT_EQ(describe((*r)[1]),
            "time-elapsed end of slot 0xc0457000 (24-byte): always-on counter -> 0xc0457010; "
            "result += stop - start; [0xc0457008] = [0xc0457008] + [0xc0457010] - [0xc0457000] "
            "(64-bit)");
  // Without the wait the end is still recognised; with the slot moved it is flagged.
  {
    auto end = fd_end;
    end.erase(end.begin() + 5);
    end[end.size() - 2] = S + 0x100;
    auto e = recognise(hwpc::byte_span(bytes_of(end)));
    ASSERT_TRUE(e);
    ASSERT_EQ(e->size(), 1u);
    EXPECT_EQ((*e)[0].role, timestamp_role::end);
    EXPECT_FALSE((*e)[0].layout_matches);
  }
}

TEST(AdrenoRecognise, FreedrenoTimeElapsedAccumulatesInTheInterpreter) {
  machine mc;
  mc.memory.map(S, 24);
  const std::uint64_t ticks[][2] = {{100, 150}, {200, 260}, {1000, 1001}};
  for (const auto& t : ticks) {
    mc.always_on = t[0];
    ASSERT_TRUE(execute(mc, hwpc::byte_span(bytes_of(fd_begin))));
    mc.always_on = t[1];
    ASSERT_TRUE(execute(mc, hwpc::byte_span(bytes_of(fd_end))));
  }
  auto slot = read_time_elapsed_slot24(hwpc::byte_span(mc.memory.at(S, 24), 24));
  ASSERT_TRUE(slot);
  EXPECT_EQ(slot->start, 1000u);
  EXPECT_EQ(slot->stop, 1001u);
  EXPECT_EQ(slot->ticks(), 50u + 60u + 1u);
  EXPECT_EQ(slot->nanoseconds(), 5781u);  // 111 * 625 / 12 = 5781.25, rounded down
}

TEST(AdrenoQueries, ExactFactorAndTheDriversIntegerFactor) {
  // One second of 19.2 MHz ticks: exact 1e9 ns; the driver's 52 ns/tick gives 0.9984 s.
  EXPECT_EQ(ticks_to_ns(19'200'000), 1'000'000'000u);
  EXPECT_EQ(driver_ticks_to_ns(19'200'000), 998'400'000u);
  // 625 ticks: exactly 32552.083.. ns vs 32500 ns, the 1/625 shortfall.
  EXPECT_EQ(ticks_to_ns(625), 32552u);
  EXPECT_EQ(driver_ticks_to_ns(625), 32500u);
  // The driver truncates ticks to 32 bits: 2^32 + 1 ticks report as 52 ns.
  EXPECT_EQ(driver_ticks_to_ns((1ull << 32) + 1), 52u);
  EXPECT_EQ(ticks_to_ns((1ull << 32) + 1), 223696213385u);
}

// The pairing rule as first written (O(n^2)): each unpaired timestamp, in
// order, takes the next unpaired one 8 bytes above it.
std::vector<timestamp_role> naive_roles(const std::vector<std::uint64_t>& addr) {
  std::vector<timestamp_role> role(addr.size(), timestamp_role::none);
  for (std::size_t a = 0; a < addr.size(); ++a) {
    if (role[a] != timestamp_role::none) continue;
    for (std::size_t b = a + 1; b < addr.size(); ++b) {
      if (role[b] == timestamp_role::none && addr[b] == addr[a] + 8) {
        role[a] = timestamp_role::begin;
        role[b] = timestamp_role::end;
        break;
      }
    }
  }
  return role;
}

dwords timestamps(const std::vector<std::uint64_t>& addr) {
  dwords d;
  for (auto a : addr) {
    d.insert(d.end(), {pkt7(0x46, 3), 0x40000016, static_cast<std::uint32_t>(a),
                       static_cast<std::uint32_t>(a >> 32)});
  }
  return d;
}

TEST(AdrenoRecognise, PairingMatchesTheNaiveRule) {
  std::mt19937 rng(13);
  for (int iter = 0; iter < 300; ++iter) {
    std::vector<std::uint64_t> addr(rng() % 40);
    for (auto& a : addr) a = 0x1000 + 8 * (rng() % 6);
    auto r = recognise(hwpc::byte_span(bytes_of(timestamps(addr))));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->size(), addr.size());
    const auto want = naive_roles(addr);
    for (std::size_t i = 0; i < addr.size(); ++i) {
      ASSERT_EQ((*r)[i].role, want[i]) << "iter " << iter << " event " << i;
      if (want[i] == timestamp_role::end) {
        EXPECT_EQ((*r)[i].slot, addr[i] - 8);
      }
    }
  }
}

TEST(AdrenoRecognise, PairingIsNotQuadratic) {
  // 160k timestamps none of which pair: the naive rule scanned all later ones.
  std::vector<std::uint64_t> addr(160000);
  for (std::size_t i = 0; i < addr.size(); ++i) addr[i] = 0x100000 + 16 * i;
  const auto bytes = bytes_of(timestamps(addr));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = recognise(hwpc::byte_span(bytes));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), addr.size());
  EXPECT_EQ(r->back().role, timestamp_role::none);
  EXPECT_LT(s, 5.0);  // 79 s with the quadratic pairing
}

// Found by fuzzing (tests/fuzz/regress/adreno): one register write that
// selects two counters yields two events that share their packet, between
// sequences that do not overlap them. The fuzz target had required every
// event to start after the one before ended.
TEST(AdrenoRecognise, EventsShareAPacketOnlyWhenOneWriteSelectsSeveralCounters) {
  const dwords d = adreno_rd::cat(
      {adreno_seed::occlusion_begin, {pkt4(0x0cd5, 2), 3, 4}, adreno_seed::timestamp_begin});
  const auto bytes = bytes_of(d);
  auto r = recognise(hwpc::byte_span(bytes));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].op, query_op::occlusion_begin);
  EXPECT_EQ((*r)[0].packet_index, 0u);
  EXPECT_EQ((*r)[0].packet_count, 3u);
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ((*r)[i].op, query_op::counter_select);
    EXPECT_EQ((*r)[i].packet_index, 3u);
    EXPECT_EQ((*r)[i].packet_count, 1u);
    EXPECT_EQ((*r)[i].offset, 4u * adreno_seed::occlusion_begin.size());
  }
  EXPECT_NE(describe((*r)[1]), describe((*r)[2]));
  EXPECT_EQ((*r)[3].op, query_op::timestamp);
  EXPECT_EQ((*r)[3].packet_index, 4u);
}

TEST(AdrenoRecognise, CounterSelectAndSample) {
  const dwords d = {
      pkt4(0x0bb1, 1),
      2,  // CP counter 1 := BUSY_CYCLES
      pkt4(0x0e10, 3),
      0,
      1,
      13,  // HLSQ counters 0..2
      pkt7(0x3e, 3),
      0x03a2 | (2u << 18),
      0x10000,
      0,  // CP 1, LO+HI
      pkt7(0x3e, 3),
      0x03a0 | (4u << 18),
      0x20000,
      0,  // CP 0 and CP 1
      pkt7(0x3e, 3),
      0x03d8,
      0x30000,
      0,  // HLSQ 0, LO only (CNT 0)
      pkt7(0x3e, 3),
      0x04d2 | (2u << 18),
      0x40000,
      0,  // always-on
      pkt7(0x3e, 3),
      0x0418 | (2u << 18),
      0x50000,
      0,  // TP 0, never selected
  };
  auto r = recognise(hwpc::byte_span(bytes_of(d)));
  ASSERT_TRUE(r);
  std::vector<std::string> lines;
  for (const auto& e : *r) lines.push_back(describe(e));
  const std::vector<std::string> want = {
      "CP/counter 1 counts PERF_CP_BUSY_CYCLES",
      "HLSQ/counter 0 counts PERF_HLSQ_BUSY_CYCLES",
      "HLSQ/counter 1 counts PERF_HLSQ_STALL_CYCLES_UCHE",
      "HLSQ/counter 2 counts PERF_HLSQ_CS_INVOCATIONS",
      "CP/counter 1 counts PERF_CP_BUSY_CYCLES, sampled to 0x10000 (64-bit)",
      "CP/counter 0 (reserved for the kernel) counts (not selected in this stream), sampled to "
      "0x20000 (64-bit)",
      "CP/counter 1 counts PERF_CP_BUSY_CYCLES, sampled to 0x20008 (64-bit)",
      "HLSQ/counter 0 counts PERF_HLSQ_BUSY_CYCLES, sampled to 0x30000 (low 32 bits)",
      "always-on counter sampled to 0x40000 (64-bit)",
      "TP/counter 0 counts (not selected in this stream), sampled to 0x50000 (64-bit)",
  };
  EXPECT_EQ(lines, want);
  EXPECT_EQ((*r)[4].op, query_op::counter_sample);
  EXPECT_EQ((*r)[4].offset, 4u * 6);
  EXPECT_EQ((*r)[4].countable, 2u);
  EXPECT_EQ((*r)[8].op, query_op::always_on_sample);
}

TEST(AdrenoRecognise, WideRegisterCopiesAreCheap) {
  // CP_REG_TO_MEM of 4095 registers from 0x100 covers every counter register
  // (0x3a0..0x459: 81 counters) and the always-on counter (0x4d2).
  const dwords one = {pkt7(0x3e, 3), 0x100 | (4095u << 18), 0x10000, 0};
  auto r = recognise(hwpc::byte_span(bytes_of(one)));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 82u);
  EXPECT_EQ(r->front().address, 0x10000u + 4 * (0x3a0 - 0x100));
  EXPECT_EQ(r->back().op, query_op::always_on_sample);
  EXPECT_EQ(r->back().address, 0x10000u + 4 * (0x4d2 - 0x100));
  // 100k of them with no counter in range: each was 4095 lookups.
  dwords many;
  for (int i = 0; i < 100000; ++i)
    many.insert(many.end(), {pkt7(0x3e, 3), 0x1000 | (4095u << 18), 0, 0});
  const auto bytes = bytes_of(many);
  const auto t0 = std::chrono::steady_clock::now();
  auto m = recognise(hwpc::byte_span(bytes));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->empty());
  EXPECT_LT(s, 2.0);
}

std::vector<packet> packets_of(const std::vector<std::byte>& bytes) {
  auto p = read_packets(bytes);
  EXPECT_TRUE(p);
  return *p;
}

TEST(AdrenoRecognise, EventsAreReleasedAsSoonAsFinal) {
  const auto bytes = bytes_of(
      adreno_rd::cat({adreno_seed::occlusion_begin, fd_begin, {pkt4(0x0bb1, 1), 2}, fd_end}));
  const auto p = packets_of(bytes);
  ASSERT_EQ(p.size(), 8u);  // 3 + 1 + 1 + 3
  recogniser r;
  std::vector<query_event> out;
  const auto take = [&] { r.release([&](const query_event& e) { out.push_back(e); }); };
  std::vector<std::size_t> after;
  for (const auto& x : p) {
    r.push(x);
    take();
    after.push_back(out.size());
  }
  // The begin is out with its third packet; the timestamp waits (it may be a
  // begin), holding the counter select behind it, until its end pairs it.
  EXPECT_EQ(after, (std::vector<std::size_t>{0, 0, 1, 1, 1, 1, 1, 4}));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[1].role, timestamp_role::begin);
  EXPECT_EQ(out[2].op, query_op::counter_select);
  EXPECT_EQ(out[3].role, timestamp_role::end);
}

TEST(AdrenoRecognise, HoldBoundsWhatWaitsForAPairing) {
  dwords d = {pkt7(0x46, 3), 0x40000016, 0x5000, 0};  // a timestamp that may be a begin
  for (int i = 0; i < 10; ++i) d.insert(d.end(), {pkt4(0x0bb1, 1), static_cast<std::uint32_t>(i)});
  d.insert(d.end(), {pkt7(0x46, 3), 0x40000016, 0x5008, 0});  // its end, too late
  const auto bytes = bytes_of(d);
  recogniser r(4);
  std::vector<query_event> out;
  std::size_t most = 0;
  for (const auto& x : packets_of(bytes)) {
    r.push(x);
    r.release([&](const query_event& e) { out.push_back(e); });
    most = std::max(most, r.events().size());
  }
  r.finish();
  r.release([&](const query_event& e) { out.push_back(e); }, true);
  EXPECT_LE(most, 4u);
  ASSERT_EQ(out.size(), 12u);
  // Released unpaired once 4 events waited behind it; the late end stays a timestamp.
  EXPECT_EQ(out.front().role, timestamp_role::none);
  EXPECT_EQ(out.back().role, timestamp_role::none);
  // Without a hold limit they pair.
  auto all = recognise(hwpc::byte_span(bytes));
  ASSERT_TRUE(all);
  EXPECT_EQ(all->front().role, timestamp_role::begin);
  EXPECT_EQ(all->back().role, timestamp_role::end);
}

// The register tables answer what the scans over the 15 groups answer.
TEST(AdrenoRecognise, IndexedLookupsMatchTheGroupScan) {
  const auto same = [](std::optional<counter_ref> a, std::optional<counter_ref> b) {
    if (a.has_value() != b.has_value()) return false;
    return !a || (a->group == b->group && a->counter == b->counter && a->high == b->high);
  };
  std::size_t selects = 0, counters = 0;
  for (std::uint32_t r = 0; r < 0x20000; ++r) {
    ASSERT_TRUE(same(select_at(r), find_select(r))) << std::hex << r;
    ASSERT_TRUE(same(counter_at(r), find_counter(r))) << std::hex << r;
    selects += select_at(r).has_value();
    counters += counter_at(r).has_value();
  }
  EXPECT_GT(selects, 0u);
  EXPECT_EQ(counters, 2 * selects);  // a LO and a HI register per SELECT
}

// A slow reference of the recogniser: the whole packet list at once (no
// window), every copied register looked at, countables in a map, timestamps
// paired by a linear search over the unpaired ones.
std::vector<query_event> reference_recognise(std::span<const packet> p) {
  std::vector<query_event> out;
  std::map<std::uint32_t, std::uint32_t> selected;
  for (std::size_t i = 0; i < p.size();) {
    query_event ev;
    ev.offset = p[i].offset;
    ev.packet_index = i;
    ev.packet_count = 1;
    std::size_t used = 1;
    if (detail::try_occlusion_end(p, i, ev) || detail::try_timestamp(p, i, ev)) {
      used = ev.packet_count;
      out.push_back(ev);
    } else if (detail::is_sample_setup(p, i)) {
      ev.op = query_op::occlusion_begin;
      ev.packet_count = used = 3;
      ev.address = ev.slot = p[i + 1].qword(0);
      ev.control = p[i].dword(0);
      out.push_back(ev);
    } else if (auto m = detail::m2m_at(p, i)) {
      ev.op = query_op::mem_to_mem;
      ev.address = ev.slot = m->dst;
      ev.accumulate = m;
      out.push_back(ev);
    } else if (p[i].hdr.type == packet_type::type4) {
      for (std::uint32_t k = 0; k < p[i].hdr.count; ++k) {
        const std::uint32_t r = p[i].hdr.id + k;
        if (auto s = find_select(r)) {
          query_event e = ev;
          e.op = query_op::counter_select;
          e.counter = s;
          e.countable = e.control = p[i].dword(k);
          selected[r] = p[i].dword(k);
          out.push_back(e);
        }
      }
    } else if (p[i].is_op(op::cp_reg_to_mem) && p[i].hdr.count >= 3) {
      const std::uint32_t first = p[i].dword(0) & 0x3ffff;
      const std::uint32_t cnt = (p[i].dword(0) >> 18) & 0xfff;
      const std::uint32_t n = cnt == 0 ? 1 : cnt;
      for (std::uint32_t k = 0; k < n; ++k) {  // RBBM_ALWAYSON_COUNTER_LO is above every counter
        query_event e = ev;
        e.address = p[i].qword(1) + 4ull * k;
        e.sample_dwords = k + 1 < n ? 2 : 1;
        const auto c = find_counter(first + k);
        if (first + k == reg::rbbm_alwayson_counter_lo) {
          e.op = query_op::always_on_sample;
        } else if (c && !c->high) {
          e.op = query_op::counter_sample;
          e.counter = c;
          if (auto it = selected.find(c->group->select_reg(c->counter)); it != selected.end()) {
            e.countable = it->second;
          }
        } else {
          continue;
        }
        out.push_back(e);
      }
    }
    i += used;
  }
  std::vector<std::size_t> open;  // timestamps that may still become a begin, in order
  const auto take = [&](std::uint64_t addr) -> query_event* {
    for (auto it = open.begin(); it != open.end(); ++it) {
      if (out[*it].address == addr) {
        query_event* b = &out[*it];
        open.erase(it);
        return b;
      }
    }
    return nullptr;
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    query_event& e = out[i];
    if (e.op != query_op::timestamp) continue;
    if (e.role == timestamp_role::end) {
      if (query_event* b = take(e.slot)) {
        b->role = timestamp_role::begin;
        b->slot_size = e.slot_size;
      }
    } else if (query_event* b = e.address >= 8 ? take(e.address - 8) : nullptr) {
      b->role = timestamp_role::begin;
      b->slot_size = 16;
      e.role = timestamp_role::end;
      e.slot = e.address - 8;
      e.slot_size = 16;
    } else {
      open.push_back(i);
    }
  }
  return out;
}

void expect_same_events(const std::vector<query_event>& got, const std::vector<query_event>& want,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const query_event& g = got[i];
    const query_event& w = want[i];
    SCOPED_TRACE(what + " event " + std::to_string(i));
    ASSERT_EQ(g.op, w.op);
    EXPECT_EQ(g.offset, w.offset);
    EXPECT_EQ(g.packet_index, w.packet_index);
    EXPECT_EQ(g.packet_count, w.packet_count);
    EXPECT_EQ(g.slot, w.slot);
    EXPECT_EQ(g.address, w.address);
    EXPECT_EQ(g.control, w.control);
    ASSERT_EQ(g.accumulate.has_value(), w.accumulate.has_value());
    if (g.accumulate) {
      EXPECT_EQ(g.accumulate->flags, w.accumulate->flags);
      EXPECT_EQ(g.accumulate->dst, w.accumulate->dst);
      EXPECT_EQ(g.accumulate->src_a, w.accumulate->src_a);
      EXPECT_EQ(g.accumulate->src_b, w.accumulate->src_b);
      EXPECT_EQ(g.accumulate->src_c, w.accumulate->src_c);
    }
    EXPECT_EQ(g.poll_address, w.poll_address);
    EXPECT_EQ(g.layout_matches, w.layout_matches);
    EXPECT_EQ(g.role, w.role);
    EXPECT_EQ(g.slot_size, w.slot_size);
    ASSERT_EQ(g.counter.has_value(), w.counter.has_value());
    if (g.counter) {
      EXPECT_EQ(g.counter->group, w.counter->group);
      EXPECT_EQ(g.counter->counter, w.counter->counter);
      EXPECT_EQ(g.counter->high, w.counter->high);
    }
    EXPECT_EQ(g.countable, w.countable);
    EXPECT_EQ(g.sample_dwords, w.sample_dwords);
  }
}

// The seeded random stream of SeededStreamsMatchASlowReference.
dwords seeded_stream(std::uint32_t seed) {
  const std::vector<const dwords*> pieces = {&adreno_seed::occlusion_begin,
                                             &adreno_seed::occlusion_end,
                                             &adreno_seed::timestamp_begin,
                                             &adreno_seed::timestamp_end,
                                             &fd_begin,
                                             &fd_end};
  std::mt19937 rng(seed);
  const auto u = [&](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); };
  const auto addr = [&] { return 0xc0456000u + 8 * u(4); };
  dwords d;
  for (std::uint32_t k = 0, n = 50 + u(400); k < n; ++k) {
    switch (u(10)) {
      case 0: {  // a whole sequence, or a part of one
        const dwords& s = *pieces[u(static_cast<std::uint32_t>(pieces.size()))];
        auto pk = packets_of(bytes_of(s));
        const std::size_t from = u(3) == 0 ? u(static_cast<std::uint32_t>(pk.size())) : 0;
        d.insert(d.end(), s.begin() + static_cast<std::ptrdiff_t>(pk[from].offset / 4), s.end());
        break;
      }
      case 1:
      case 2: {  // a register write anywhere around the SELECT registers
        const std::uint32_t c = 1 + u(6);
        d.push_back(pkt4(u(2) ? 0x0b00 + u(0x400) : 0x03a0 + u(0x1000), c));
        for (std::uint32_t i = 0; i < c; ++i) d.push_back(u(64));
        break;
      }
      case 3:
      case 4: {  // CP_REG_TO_MEM of counters, the always-on counter or a wide range
        const std::uint32_t r = u(4) == 0 ? 0x04d2 : 0x0390 + u(0xd0);
        const std::uint32_t cnt = u(6) == 0 ? u(400) : u(3);
        d.insert(d.end(), {pkt7(0x3e, 3), r | cnt << 18, addr(), 0});
        break;
      }
      case 5:  // a timestamp to a nearby address
        d.insert(d.end(), {pkt7(0x46, 3), 0x40000016, addr(), 0});
        break;
      case 6: {  // CP_MEM_TO_MEM with mixed addresses and signs
        d.insert(d.end(), {pkt7(0x73, 9), u(2) ? 0x20000004u : u(16) << 28});
        const std::uint32_t a = addr();
        for (int q = 0; q < 4; ++q) d.insert(d.end(), {u(3) ? a : addr(), 0});
        break;
      }
      case 7: {  // the occlusion packets alone
        d.insert(d.end(), {pkt4(0xe1d1, 1), 2});
        if (u(2)) d.insert(d.end(), {pkt4(0xe267, 2), addr(), 0});
        if (u(2)) d.insert(d.end(), {pkt7(0x46, 1), 0x15});
        break;
      }
      case 8:
        d.push_back(pkt7(u(2) ? 0x26 : 0x12, 0));  // CP_WAIT_FOR_IDLE / CP_WAIT_MEM_WRITES
        break;
      default: {  // CP_NOP with a payload
        const std::uint32_t c = u(4);
        d.push_back(pkt7(0x10, c));
        for (std::uint32_t i = 0; i < c; ++i) d.push_back(static_cast<std::uint32_t>(rng()));
        break;
      }
    }
  }
  return d;
}

// Seeded random streams of the seed's sequences, freedreno's, their parts,
// counter selects (writes over any registers) and copies (counter, always-on
// and wide copies), CP_MEM_TO_MEM and filler: the streaming recogniser, fed
// packet by packet and released as the tool releases, yields exactly what
// the slow reference yields.
TEST(AdrenoRecognise, SeededStreamsMatchASlowReference) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    const dwords d = seeded_stream(seed);
    const auto bytes = bytes_of(d);
    const auto pk = packets_of(bytes);
    const auto want = reference_recognise(pk);
    expect_same_events(recognise(pk), want, "seed " + std::to_string(seed) + " whole");
    recogniser r(std::size_t{1} << 16);
    std::vector<query_event> got;
    for (const auto& x : pk) {
      r.push(x);
      r.release([&](const query_event& e) { got.push_back(e); });
    }
    r.finish();
    r.release([&](const query_event& e) { got.push_back(e); }, true);
    expect_same_events(got, want, "seed " + std::to_string(seed) + " streamed");
    if (seed == 1) {  // the mix holds every kind of event
      for (auto o : {query_op::occlusion_begin, query_op::occlusion_end, query_op::timestamp,
                     query_op::mem_to_mem, query_op::counter_select, query_op::counter_sample,
                     query_op::always_on_sample}) {
        EXPECT_TRUE(std::any_of(want.begin(), want.end(), [&](auto& e) { return e.op == o; }))
            << to_string(o);
      }
    }
  }
}

// push(p, f), which hands counter events to `f` as they are recognised while
// nothing is held, releases exactly what push(p) then release(f) releases,
// with the queue's limit or without one, whether the events it hands on are
// its call's own (local_event) or one the recogniser keeps (kept_event).
TEST(AdrenoRecognise, PushWithReleaseMatchesPushThenRelease) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    const auto bytes = bytes_of(seeded_stream(seed));
    const auto pk = packets_of(bytes);
    for (const std::size_t hold : {std::size_t{0}, std::size_t{4}, std::size_t{1} << 16}) {
      const std::string what = "seed " + std::to_string(seed) + " hold " + std::to_string(hold);
      recogniser two(hold), one(hold), kept(hold);
      std::vector<query_event> want, got, got_kept;
      for (const auto& x : pk) {
        two.push(x);
        two.release([&](const query_event& e) { want.push_back(e); });
        one.push(x, [&](const query_event& e) { got.push_back(e); });
        kept.push<recogniser::hand_on::kept_event>(
            x, [&](const query_event& e) { got_kept.push_back(e); });
        EXPECT_EQ(one.events().size(), two.events().size()) << what;
        EXPECT_EQ(kept.events().size(), two.events().size()) << what;
      }
      two.finish();
      two.release([&](const query_event& e) { want.push_back(e); }, true);
      one.finish();
      one.release([&](const query_event& e) { got.push_back(e); }, true);
      kept.finish();
      kept.release([&](const query_event& e) { got_kept.push_back(e); }, true);
      expect_same_events(got, want, what);
      expect_same_events(got_kept, want, what + " kept_event");
      if (hold != 4) expect_same_events(got, reference_recognise(pk), what + " reference");
    }
  }
}

// A walk sink that recognises what it is handed; with `skip`, it lets the
// walker skip the packets outside the recogniser's interest while its window
// is empty, and counts them with recogniser::skip().
class recognising_sink final : public walk_sink {
 public:
  explicit recognising_sink(bool skip) : skip_(skip) {}
  std::vector<query_event> events;
  std::uint64_t packets = 0, handed = 0;
  void on_packet(const walked_packet& w) override {
    const std::uint64_t n = take_skipped();
    packets += 1 + n;
    ++handed;
    rec_.skip(n);
    rec_.push(w.pkt, [this](const query_event& e) { events.push_back(e); });
    if (skip_) set_interest(rec_.window_packets() == 0 ? &recogniser::interest : nullptr);
  }
  void on_issue(const hwpc::error&) override {}
  void finish() {
    packets += take_skipped();
    rec_.finish();
    rec_.release([this](const query_event& e) { events.push_back(e); }, true);
  }

 private:
  bool skip_;
  recogniser rec_{std::size_t{1} << 16};
};

// The walker handing on only the packets the recogniser wants gives the same
// events, packet indexes included, as handing on every packet, and as the
// slow reference; it does skip packets, and every packet is still counted.
TEST(AdrenoRecognise, SkippingUninterestingPacketsChangesNoEvent) {
  std::uint64_t skipped = 0;
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    const std::string what = "seed " + std::to_string(seed);
    const auto bytes = bytes_of(seeded_stream(seed));
    recognising_sink all(false), some(true);
    walker wa(all, nullptr), ws(some, nullptr);
    wa.walk(bytes, 0, 0);
    ws.walk(bytes, 0, 0);
    all.finish();
    some.finish();
    EXPECT_EQ(all.packets, wa.stats().packets) << what;
    EXPECT_EQ(some.packets, ws.stats().packets) << what;
    EXPECT_EQ(all.handed, all.packets) << what;
    skipped += some.packets - some.handed;
    expect_same_events(some.events, all.events, what);
    expect_same_events(all.events, reference_recognise(packets_of(bytes)), what + " reference");
  }
  EXPECT_GT(skipped, 0u);
}

}  // namespace
