// An Adreno A5xx command stream with one query result of every kind, and
// the query memory an .rd capture dumps for it, written from the FACTS
// encodings with the test-side encoder (adreno_rd_writer.hpp), for the row
// and Perfetto tests.
#pragma once

#include <cstdint>
#include <vector>

#include "adreno_rd_writer.hpp"

namespace adreno_results {

using adreno_rd::dwords;
using adreno_rd::pkt4;
using adreno_rd::pkt7;

constexpr std::uint64_t te_slot = 0xc0000000;   // freedreno 24-byte time-elapsed slot
constexpr std::uint64_t occ_slot = 0xc0000100;  // occlusion slot
constexpr std::uint64_t cp1_dst = 0xc0000200;   // CP counter 1 copied here (LO, HI)
constexpr std::uint64_t aon_dst = 0xc0000300;   // always-on counter copied here
constexpr std::uint64_t lost_dst = 0xd0000000;  // a sample no dump holds

inline void put64(dwords& d, std::uint64_t v) {
  d.push_back(static_cast<std::uint32_t>(v));
  d.push_back(static_cast<std::uint32_t>(v >> 32));
}

// The command stream, packet by packet from the FACTS encodings.
inline dwords stream() {
  dwords d;
  // time-elapsed begin: CP_EVENT_WRITE(4) RB_DONE_TS | TIMESTAMP to the slot start
  d.insert(d.end(), {pkt7(0x46, 4), 0x40000016});
  put64(d, te_slot);
  d.push_back(0);
  // occlusion begin: RB_SAMPLE_COUNT_CONTROL COPY, ADDR = slot, ZPASS_DONE
  d.insert(d.end(), {pkt4(0xe1d1, 1), 2, pkt4(0xe267, 2)});
  put64(d, occ_slot);
  d.insert(d.end(), {pkt7(0x46, 1), 0x15});
  // occlusion end (the seed's sequence aimed at this slot)
  d.push_back(pkt7(0x3d, 4));
  put64(d, occ_slot + 16);
  d.insert(d.end(), {0xffffffff, 0xffffffff, pkt7(0x12, 0), pkt4(0xe1d1, 1), 2, pkt4(0xe267, 2)});
  put64(d, occ_slot + 16);
  d.insert(d.end(), {pkt7(0x46, 1), 0x15, pkt7(0x3c, 6), 0x14});
  put64(d, occ_slot + 20);
  d.insert(d.end(), {0xffffffff, 0xffffffff, 0x10, pkt7(0x73, 9), 0x20000004});
  for (std::uint64_t a : {occ_slot + 8, occ_slot + 8, occ_slot + 16, occ_slot}) put64(d, a);
  // time-elapsed end: timestamp to stop, wait for idle, result += stop - start
  d.insert(d.end(), {pkt7(0x46, 4), 0x40000016});
  put64(d, te_slot + 16);
  d.insert(d.end(), {0, pkt7(0x26, 0), pkt7(0x73, 9), 0x20000004});
  for (std::uint64_t a : {te_slot + 8, te_slot + 8, te_slot + 16, te_slot}) put64(d, a);
  // CP counter 1 selects countable 2 (BUSY_CYCLES), then LO and HI are copied out
  d.insert(d.end(), {pkt4(0x0bb1, 1), 2, pkt7(0x3e, 3), 0x03a2u | (2u << 18)});
  put64(d, cp1_dst);
  // RBBM_ALWAYSON_COUNTER_LO/HI copied out
  d.insert(d.end(), {pkt7(0x3e, 3), 0x04d2u | (2u << 18)});
  put64(d, aon_dst);
  // CP counter 1 again, to memory the capture does not dump
  d.insert(d.end(), {pkt7(0x3e, 3), 0x03a2u | (2u << 18)});
  put64(d, lost_dst);
  return d;
}

// The query memory as dumped: 0x400 bytes at te_slot.
inline dwords memory() {
  dwords m(0x100, 0);
  auto at = [&](std::uint64_t addr, std::uint64_t v) {
    const std::size_t i = (addr - te_slot) / 4;
    m[i] = static_cast<std::uint32_t>(v);
    m[i + 1] = static_cast<std::uint32_t>(v >> 32);
  };
  at(te_slot, 19'200'000);       // start: 1 s of always-on ticks
  at(te_slot + 8, 96'000);       // result: 5 ms
  at(te_slot + 16, 19'296'000);  // stop
  at(occ_slot, 100);
  at(occ_slot + 8, 42);
  at(occ_slot + 16, 142);
  at(cp1_dst, 0x1'0000'0005);
  at(aon_dst, 38'400'000);  // 2 s
  return m;
}

// The .rd capture: GPU id 530, the stream at 0x10000, the memory at te_slot.
struct capture {
  adreno_rd::writer w;
  std::size_t cmd_payload = 0, mem_section = 0;
  dwords cmd = stream();
  capture() {
    w.gpu_id(530);
    cmd_payload = w.buffer(0x10000, cmd);
    mem_section = w.buffer(te_slot, memory()) - 8;
    w.cmdstream(0x10000, static_cast<std::uint32_t>(cmd.size()));
  }
};

}  // namespace adreno_results
