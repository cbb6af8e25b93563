// Adreno A5xx queries: CP_MEM_TO_MEM arithmetic, slot layouts, always-on
// ticks, the interpreter running the seed's sequences, and the recogniser.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "adreno_seed.hpp"
#include "hwpc/adreno.hpp"

namespace {

using namespace hwpc::adreno;
using adreno_seed::bytes_of;

TEST(AdrenoMemToMem, SeedFlagsAreNegCAndDouble) {
  EXPECT_EQ(m2m::neg_c | m2m::double_, 0x20000004u);
  EXPECT_EQ(mem_to_mem_combine(0x20000004u, 100, 250, 40), 310u);  // result += stop - start
  EXPECT_EQ(mem_to_mem_combine(0xe0000004u, 100, 250, 40), 310u);  // bits 31..30 ignored
}

TEST(AdrenoMemToMem, SignsOfEveryOperand) {
  const std::uint64_t a = 1000, b = 200, c = 30;
  for (std::uint32_t neg = 0; neg < 8; ++neg) {
    const std::uint64_t want =
        ((neg & 1) ? 0 - a : a) + ((neg & 2) ? 0 - b : b) + ((neg & 4) ? 0 - c : c);
    EXPECT_EQ(mem_to_mem_combine(neg | m2m::double_, a, b, c), want) << neg;
    EXPECT_EQ(mem_to_mem_combine(neg, a, b, c), want & 0xffffffffu) << neg;
  }
  EXPECT_EQ(mem_to_mem_combine(m2m::neg_a | m2m::neg_b | m2m::neg_c | m2m::double_, 1, 2, 3),
            0xfffffffffffffffaull);
}

TEST(AdrenoMemToMem, ThirtyTwoBitWraps) {
  // 32-bit: operands wrap modulo 2^32.
  EXPECT_EQ(mem_to_mem_combine(0, 0xffffffffu, 2, 0), 1u);
  EXPECT_EQ(mem_to_mem_combine(m2m::neg_c, 5, 0, 6), 0xffffffffu);
  // The counter wrapped between start and stop: stop - start is still the delta.
  EXPECT_EQ(mem_to_mem_combine(m2m::neg_c, 0, 0x00000010u, 0xfffffff0u), 0x20u);
  // 64-bit: the same operands do not wrap at 2^32.
  EXPECT_EQ(mem_to_mem_combine(m2m::double_, 0xffffffffu, 2, 0), 0x100000001ull);
  EXPECT_EQ(mem_to_mem_combine(m2m::neg_c | m2m::double_, 0, 0x10, 0xfffffffffffffff0ull), 0x20u);
}

TEST(AdrenoQueries, TicksToNanoseconds) {
  EXPECT_EQ(always_on_hz, 19'200'000u);
  EXPECT_EQ(ticks_to_ns(0), 0u);
  EXPECT_EQ(ticks_to_ns(1), 52u);  // 52.083 ns, rounded down
  EXPECT_EQ(ticks_to_ns(12), 625u);
  EXPECT_EQ(ticks_to_ns(19'200'000), 1'000'000'000u);
  EXPECT_EQ(ticks_to_ns(19'200'000ull * 3600), 3'600'000'000'000ull);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t t = rng() >> 24;  // products fit in 64 bits below
    EXPECT_EQ(ticks_to_ns(t), t * 625 / 12);
  }
}

TEST(AdrenoQueries, ReadSlots) {
  std::vector<std::byte> b(24);
  hwpc::store_le64(b.data(), 5);
  hwpc::store_le64(b.data() + 8, 100);
  hwpc::store_le64(b.data() + 16, 12);
  auto s = read_occlusion_slot(b);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start, 5u);
  EXPECT_EQ(s->result, 100u);
  EXPECT_EQ(s->stop, 12u);
  EXPECT_EQ(s->delta(), 7u);
  auto t = read_time_elapsed_slot(hwpc::byte_span(b).first(16));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->ticks(), 95u);
  EXPECT_EQ(t->nanoseconds(), ticks_to_ns(95));
  auto bad = read_occlusion_slot(hwpc::byte_span(b).first(23), 64);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error_value().code, hwpc::errc::truncated);
  EXPECT_EQ(bad.error_value().offset, 64u);
  auto bad2 = read_time_elapsed_slot(hwpc::byte_span(b).first(15), 8);
  ASSERT_FALSE(bad2);
  EXPECT_EQ(bad2.error_value().offset, 8u);
}

TEST(AdrenoQueries, DecodeSeedMemToMem) {
  const auto bytes = bytes_of(adreno_seed::occlusion_end);
  auto p = read_packets(bytes);
  ASSERT_TRUE(p);
  auto m = decode_mem_to_mem(p->back());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->flags, 0x20000004u);
  EXPECT_TRUE(m->is_double());
  EXPECT_EQ(m->dst, 0xc0456008u);
  EXPECT_EQ(m->src_a, 0xc0456008u);
  EXPECT_EQ(m->src_b, 0xc0456010u);
  EXPECT_EQ(m->src_c, 0xc0456000u);
  auto wrong = decode_mem_to_mem(p->front());
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error_value().offset, 0u);
  const auto short_m2m = bytes_of({pkt7_header(op::cp_mem_to_mem, 7), 0, 1, 2, 3, 4, 5, 6});
  auto sp = read_packets(short_m2m);
  ASSERT_TRUE(sp);
  auto s = decode_mem_to_mem(sp->front());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error_value().code, hwpc::errc::inconsistent);
}

constexpr std::uint64_t slot_base = 0xc0456000;

machine occlusion_machine() {
  machine mc;
  mc.memory.map(slot_base, occlusion_slot::size);
  return mc;
}

TEST(AdrenoInterp, OcclusionQueryAccumulatesStopMinusStart) {
  machine mc = occlusion_machine();
  const auto begin = bytes_of(adreno_seed::occlusion_begin);
  const auto end = bytes_of(adreno_seed::occlusion_end);
  mc.sample_count = 1000;
  ASSERT_TRUE(execute(mc, begin));
  EXPECT_EQ(*mc.memory.read64(slot_base), 1000u);
  mc.sample_count = 1500;
  auto r = execute(mc, end);
  ASSERT_TRUE(r) << r.error_value().describe();
  const std::byte* p = mc.memory.at(slot_base, occlusion_slot::size);
  auto s = read_occlusion_slot(hwpc::byte_span(p, occlusion_slot::size));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start, 1000u);
  EXPECT_EQ(s->stop, 1500u);
  EXPECT_EQ(s->result, 500u);
  // Pause/resume: a second begin/end pair adds to the result.
  mc.sample_count = 2000;
  ASSERT_TRUE(execute(mc, begin));
  mc.sample_count = 2042;
  ASSERT_TRUE(execute(mc, end));
  EXPECT_EQ(*mc.memory.read64(slot_base + 8), 542u);
  EXPECT_EQ(mc.skipped_packets, 0u);
}

TEST(AdrenoInterp, MemWriteStoresPayloadDwords) {
  machine mc = occlusion_machine();
  const auto w =
      bytes_of({pkt7_header(op::cp_mem_write, 4), 0xc0456010u, 0, 0xffffffffu, 0xffffffffu});
  ASSERT_TRUE(execute(mc, w));
  EXPECT_EQ(*mc.memory.read64(slot_base + 16), 0xffffffffffffffffull);
  EXPECT_EQ(*mc.memory.read32(slot_base + 8), 0u);
}

TEST(AdrenoInterp, ThirtyTwoBitMemToMemWrapsInMemory) {
  machine mc;
  mc.memory.map(0x1000, 16);
  mc.memory.write32(0x1000, 7);           // dst/srcA
  mc.memory.write32(0x1004, 0x10);        // srcB: stop after the counter wrapped
  mc.memory.write32(0x1008, 0xfffffff0);  // srcC: start
  mc.memory.write32(0x100c, 0xaaaaaaaa);  // must not be touched by a 32-bit store
  const auto s = bytes_of(
      {pkt7_header(op::cp_mem_to_mem, 9), m2m::neg_c, 0x1000, 0, 0x1000, 0, 0x1004, 0, 0x1008, 0});
  ASSERT_TRUE(execute(mc, s));
  EXPECT_EQ(*mc.memory.read32(0x1000), 7u + 0x20u);
  EXPECT_EQ(*mc.memory.read32(0x1004), 0x10u);
  EXPECT_EQ(*mc.memory.read32(0x100c), 0xaaaaaaaau);
  // Negating srcA and srcB as well.
  const auto n = bytes_of({pkt7_header(op::cp_mem_to_mem, 9), m2m::neg_a | m2m::neg_b, 0x100c, 0,
                           0x1004, 0, 0x1004, 0, 0x1000, 0});
  ASSERT_TRUE(execute(mc, n));
  EXPECT_EQ(*mc.memory.read32(0x100c), static_cast<std::uint32_t>(0 - 0x20u + 0x27u));
}

TEST(AdrenoInterp, TimeElapsedQueryAsTheSeedWritesIt) {
  machine mc;
  mc.memory.map(slot_base, time_elapsed_slot::size);
  mc.memory.map(0xc021c000, 16);
  mc.memory.write64(0xc021c000, 40);  // the seed does not say what these hold
  mc.memory.write64(0xc021c008, 100);
  mc.always_on = 19'200'000;
  ASSERT_TRUE(execute(mc, bytes_of(adreno_seed::timestamp_begin)));
  mc.always_on = 19'200'000 + 96'000;  // 5 ms later
  ASSERT_TRUE(execute(mc, bytes_of(adreno_seed::timestamp_end)));
  auto t = read_time_elapsed_slot(hwpc::byte_span(mc.memory.at(slot_base, 16), 16));
  ASSERT_TRUE(t);
  // Both samples get the same + [c021c008] - [c021c000] adjustment, which cancels.
  EXPECT_EQ(t->start, 19'200'000u + 60u);
  EXPECT_EQ(t->stop, 19'296'000u + 60u);
  EXPECT_EQ(t->ticks(), 96'000u);
  EXPECT_EQ(t->nanoseconds(), 5'000'000u);
}

TEST(AdrenoInterp, ZpassWithoutCopyStoresNothing) {
  machine mc = occlusion_machine();
  auto dws = adreno_seed::occlusion_begin;
  dws[1] = 0;  // RB_SAMPLE_COUNT_CONTROL without COPY
  mc.sample_count = 99;
  ASSERT_TRUE(execute(mc, bytes_of(dws)));
  EXPECT_EQ(*mc.memory.read64(slot_base), 0u);
}

TEST(AdrenoInterp, AccessOutsideTheImageNamesThePacket) {
  machine mc;
  mc.memory.map(slot_base, 16);  // too small for the stop sample at +0x10
  auto r = execute(mc, bytes_of(adreno_seed::occlusion_end));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, hwpc::errc::out_of_range);
  EXPECT_EQ(r.error_value().offset, 0u);  // the CP_MEM_WRITE
  // A straddling 8-byte access is refused too.
  EXPECT_EQ(mc.memory.read64(slot_base + 12), std::nullopt);
  EXPECT_EQ(mc.memory.read64(~0ull - 3), std::nullopt);
  machine m2;
  m2.memory.map(slot_base, 24);
  auto e = execute(m2, bytes_of(adreno_seed::timestamp_begin));  // srcB c021c008 unmapped
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error_value().offset, 24u);
  EXPECT_NE(e.error_value().message.find("0x00000000c021c008"), std::string::npos);
}

TEST(AdrenoInterp, MalformedPacketsAreErrorsAtTheirOffset) {
  machine mc = occlusion_machine();
  auto r = execute(
      mc, bytes_of({pkt7_header(op::cp_wait_for_idle, 0), pkt7_header(op::cp_event_write, 0)}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().offset, 4u);
  auto w = execute(mc, bytes_of({pkt7_header(op::cp_mem_write, 1), 0}));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error_value().offset, 0u);
  auto m = execute(mc, bytes_of({pkt7_header(op::cp_mem_to_mem, 1), 0}));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error_value().offset, 0u);
  // Other packets are skipped.
  ASSERT_TRUE(execute(mc, bytes_of({pkt7_header(0x10, 2), 1, 2})));
  EXPECT_EQ(mc.skipped_packets, 1u);
}

TEST(AdrenoRecognise, SeedSequences) {
  const auto all = adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end,
                                        adreno_seed::timestamp_begin, adreno_seed::timestamp_end});
  auto r = recognise(hwpc::byte_span(bytes_of(all)));
  ASSERT_TRUE(r) << r.error_value().describe();
  const auto& ev = *r;
  ASSERT_EQ(ev.size(), 4u);

  EXPECT_EQ(ev[0].op, query_op::occlusion_begin);
  EXPECT_EQ(ev[0].offset, 0u);
  EXPECT_EQ(ev[0].packet_count, 3u);
  EXPECT_EQ(ev[0].slot, 0xc0456000u);
  EXPECT_EQ(ev[0].control, rb_sample_count_control_copy);
  EXPECT_EQ(describe(ev[0]), "occlusion begin of slot 0xc0456000: sample count -> 0xc0456000");

  EXPECT_EQ(ev[1].op, query_op::occlusion_end);
  EXPECT_EQ(ev[1].offset, 28u);
  EXPECT_EQ(ev[1].packet_count, 7u);
  EXPECT_EQ(ev[1].slot, 0xc0456000u);
  EXPECT_EQ(ev[1].address, 0xc0456010u);
  EXPECT_EQ(ev[1].poll_address, 0xc0456014u);
  EXPECT_TRUE(ev[1].layout_matches);
  EXPECT_EQ(describe(ev[1]),
            "occlusion end of slot 0xc0456000: sample count -> 0xc0456010; result += stop - "
            "start; [0xc0456008] = [0xc0456008] + [0xc0456010] - [0xc0456000] (64-bit)");

  EXPECT_EQ(ev[2].op, query_op::timestamp);
  EXPECT_EQ(ev[2].role, timestamp_role::begin);
  EXPECT_EQ(ev[2].offset, 28u + 4 * adreno_seed::occlusion_end.size());
  EXPECT_EQ(ev[2].packet_count, 3u);
  EXPECT_EQ(ev[2].address, 0xc0456000u);
  EXPECT_EQ(ev[2].control, 0x40000016u);
  ASSERT_TRUE(ev[2].accumulate);
  EXPECT_EQ(ev[2].accumulate->src_b, 0xc021c008u);

  EXPECT_EQ(ev[3].op, query_op::timestamp);
  EXPECT_EQ(ev[3].role, timestamp_role::end);
  EXPECT_EQ(ev[3].slot, 0xc0456000u);
  EXPECT_EQ(ev[3].address, 0xc0456008u);
  EXPECT_EQ(describe(ev[3]),
            "time-elapsed end of slot 0xc0456000: always-on counter -> 0xc0456008; [0xc0456008] = "
            "[0xc0456008] + [0xc021c008] - [0xc021c000] (64-bit)");
}

TEST(AdrenoRecognise, FindsSequencesAmongOtherPackets) {
  std::vector<std::uint32_t> noise = {pkt7_header(0x10, 2), 1, 2, pkt4_header(0x1234, 1), 9};
  const auto all = adreno_seed::concat(
      {noise, adreno_seed::occlusion_begin, noise, adreno_seed::occlusion_end, noise});
  auto r = recognise(hwpc::byte_span(bytes_of(all)));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].op, query_op::occlusion_begin);
  EXPECT_EQ((*r)[0].offset, 20u);
  EXPECT_EQ((*r)[1].op, query_op::occlusion_end);
  EXPECT_EQ((*r)[1].offset, 20u + 28u + 20u);
}

TEST(AdrenoRecognise, LayoutMismatchAndLoneMemToMem) {
  auto end = adreno_seed::occlusion_end;
  end[end.size() - 2] = 0xc0456100;  // srcC no longer 16 bytes below the stop address
  auto r = recognise(hwpc::byte_span(bytes_of(end)));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].op, query_op::occlusion_end);
  EXPECT_FALSE((*r)[0].layout_matches);
  // Without the wait the sequence breaks up: setup is a begin, the M2M stands alone.
  auto broken = adreno_seed::occlusion_end;
  broken.erase(broken.begin() + 13, broken.begin() + 20);
  auto b = recognise(hwpc::byte_span(bytes_of(broken)));
  ASSERT_TRUE(b);
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].op, query_op::occlusion_begin);
  EXPECT_EQ((*b)[0].slot, 0xc0456010u);
  EXPECT_EQ((*b)[1].op, query_op::mem_to_mem);
  EXPECT_EQ(describe((*b)[1]),
            "mem-to-mem; [0xc0456008] = [0xc0456008] + [0xc0456010] - [0xc0456000] (64-bit)");
}

TEST(AdrenoRecognise, UnpairedTimestampAndErrors) {
  auto r = recognise(hwpc::byte_span(bytes_of(adreno_seed::timestamp_end)));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].role, timestamp_role::none);
  EXPECT_EQ(describe((*r)[0]).rfind("timestamp: always-on counter -> 0xc0456008", 0), 0u);
  auto dws = adreno_seed::timestamp_end;
  dws[5] ^= 1u << 15;
  auto e = recognise(hwpc::byte_span(bytes_of(dws)));
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error_value().offset, 20u);
}

TEST(AdrenoRecognise, RandomStreamsOfValidPacketsNeverCrash) {
  std::mt19937 rng(99);
  const std::uint32_t ops[] = {op::cp_event_write,  op::cp_mem_to_mem,      op::cp_mem_write,
                               op::cp_wait_reg_mem, op::cp_wait_mem_writes, op::cp_wait_for_idle};
  const std::uint32_t regs[] = {reg::rb_sample_count_control, reg::rb_sample_count_addr_lo};
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<std::uint32_t> dws;
    const int n = static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) {
      const std::uint32_t cnt = rng() % 11;
      dws.push_back((rng() % 3) ? pkt7_header(ops[rng() % 6], cnt)
                                : pkt4_header(regs[rng() % 2], cnt));
      for (std::uint32_t k = 0; k < cnt; ++k)
        dws.push_back((rng() & 1) ? 0xc0456000u + 8 * (rng() % 4) : rng());
    }
    auto r = recognise(hwpc::byte_span(bytes_of(dws)));
    ASSERT_TRUE(r);
    for (const auto& ev : *r) EXPECT_FALSE(describe(ev).empty());
    machine mc;
    mc.memory.map(0xc0456000, 32);
    (void)execute(mc, hwpc::byte_span(bytes_of(dws)));
  }
}

}  // namespace
