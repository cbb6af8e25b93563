// The reference emulator's A6xx and A7xx captures: a freedreno .rd of a
// seeded workload as the freedreno drivers emit it — a top-level command
// buffer calling, through a 64-bit CP_INDIRECT_BUFFER, a buffer that sets the
// render mode (CP_SET_MARKER) and a draw-state group, and runs rounds of
// occlusion queries, timestamps, pipeline statistics and counter programming
// and sampling (on A7XX on both the BR and the BV thread) — and the truth: the
// lines `hwpc adreno --queries` must print for it (docs/adreno.md,
// "Emulator").
//
// As emulate.hpp: packed with the emulator's own encoder from the values
// FACTS-adreno6 gives (sections 1, 2.3, 4, 5), never the decoder's tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "hwpc/adreno/emulate.hpp"

namespace hwpc::adreno {

// One row `hwpc adreno --output csv` must give: its reason, the one column
// that holds a value, and the value.
struct emulated6_row {
  std::string reason;
  std::string column;  // "samples_passed", "gpu_time" or a counter column such as "TSE_0"
  std::uint64_t value = 0;
};

struct adreno6_emulation {
  std::vector<std::byte> file;     // the .rd capture
  std::vector<std::string> truth;  // "OFFSET: what", as `hwpc adreno --queries` prints
  std::vector<emulated6_row> rows;
};

namespace emu_detail {

// A buffer being built, with the truth lines of the packets it holds, by
// dword index (turned into file offsets once the file is laid out).
struct traced_stream : stream {
  struct line {
    int buffer;  // 0 main, 1 draw-state group
    std::size_t dword;
    std::string what;
  };
  std::vector<line>* lines;
  int id;
  void mark(std::string what) { lines->push_back({id, d.size(), std::move(what)}); }
};

inline std::string hex_of(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace emu_detail

// `a7xx`: an A750 (RD_GPU_ID 0, RD_CHIP_ID with fuse bits, as the kernel
// writes it), else an A630 (RD_GPU_ID 630, as Mesa's test captures).
inline adreno6_emulation emulate_a6xx_a7xx(const emulate_options& o, bool a7xx) {
  using namespace emu_detail;
  constexpr std::uint64_t top = 0x10000, main_ib = 0x1'0002'0000, group_ib = 0x30000,
                          memory = 0xc0000000;
  rng r{o.seed * 2 + 1};
  std::vector<traced_stream::line> lines;
  traced_stream group;
  group.lines = &lines;
  group.id = 1;
  traced_stream m;
  m.lines = &lines;
  m.id = 0;
  const std::string ts = "timestamp (always-on counter, 19.2 MHz) -> ";
  // The query memory (dumped) and the rows its values give, in stream order.
  std::vector<std::uint32_t> mem(0x100 * o.rounds / 4, 0);
  std::vector<emulated6_row> rows;
  const auto store = [&](std::uint64_t addr, std::uint64_t v) {
    mem[(addr - memory) / 4] = static_cast<std::uint32_t>(v);
    mem[(addr - memory) / 4 + 1] = static_cast<std::uint32_t>(v >> 32);
  };
  std::uint64_t clock = 1'000'000 + r.next() % 1'000'000;  // always-on ticks, < 2^50
  const auto stamp = [&](std::uint64_t addr) {
    clock += 1 + r.next() % 100'000;
    store(addr, clock);
    rows.push_back({"timestamp", "gpu_time", clock * 625 / 12});  // 1e9 / 19.2e6 = 625 / 12
  };
  const std::string occ = "sample count (occlusion) -> ";

  // The draw-state group: TSE counter 0 counts a seeded countable.
  // A6XX and A7XX: GRAS_PERFCTR_TSE_SEL_0 = 0x8610; TSE countables 0..19.
  static constexpr const char* tse[] = {"BUSY_CYCLES", "CLIPPING_CYCLES", "STALL_CYCLES_RAS",
                                        "STALL_CYCLES_LRZ_BARYPLANE"};
  const std::uint32_t tse_countable = static_cast<std::uint32_t>(r.next() % 4);
  group.mark("counter select: TSE counter 0 selects countable " + std::to_string(tse_countable) +
             " (" + tse[tse_countable] + ")" + (a7xx ? " [BR]" : ""));
  group.put({type4(0x8610, 1), tse_countable});
  const std::uint32_t group_dwords = static_cast<std::uint32_t>(group.d.size());

  // The main buffer.
  if (a7xx) m.put({type7(0x17, 1), 0x80000001});  // CP_THREAD_CONTROL SYNC_THREADS | BR
  m.put({type7(0x65, 1), 1});                     // CP_SET_MARKER RM6_DIRECT_RENDER
  // CP_SET_DRAW_STATE: group 2, SYSMEM (bit 22), then a disabled group 5.
  m.put({type7(0x43, 6), (2u << 24) | (1u << 22) | group_dwords});
  m.put64(group_ib);
  m.put({(5u << 24) | (1u << 17), 0, 0});
  for (std::uint32_t k = 0; k < o.rounds; ++k) {
    const std::uint64_t slot = memory + 0x100 * k;  // 48-byte occlusion slot, then timestamps
    const std::uint64_t samples = r.next() % 1'000'000;
    store(slot + 24, samples);  // the slot's result
    rows.push_back({"occlusion", "samples_passed", samples});
    // Occlusion begin and end.
    if (a7xx) {
      // A750 has the event-write sample count (F6 4.2): an opening write on &start, then a
      // closing one on &start that lands at +16 (stop) and adds stop - start.
      m.put({type4(0x8891, 1), 2});
      m.mark(occ + hex_of(slot + 16));
      m.put({type7(0x46, 3), 0x00001015});
      m.put64(slot + 16);
      m.mark(occ + hex_of(slot + 32));
      m.put({type7(0x46, 3), 0x00007015});
      m.put64(slot + 16);
    } else {
      for (const std::uint64_t at : {slot + 16, slot + 32}) {
        m.put({type4(0x8891, 1), 2, type4(0x8927, 2)});
        m.put64(at);
        m.mark(occ + hex_of(at));
        m.put({type7(0x46, 1), 0x15});
      }
    }
    // A gallium timestamp (event write) and a turnip one (register read).
    m.mark(ts + hex_of(slot + 48));
    stamp(slot + 48);
    if (a7xx) {
      m.put({type7(0x46, 3), 0x08300016});
      m.put64(slot + 48);
    } else {
      m.put({type7(0x46, 4), 0x40000016});
      m.put64(slot + 48);
      m.put({static_cast<std::uint32_t>(r.next())});
    }
    m.mark(ts + hex_of(slot + 56));
    stamp(slot + 56);
    m.put({type7(0x3e, 3), 0x40080980});
    m.put64(slot + 56);
    // Pipeline statistics: all eleven pairs, or one seeded pair.
    const std::uint32_t first = static_cast<std::uint32_t>(r.next() % 2 == 0 ? 0 : r.next() % 11);
    static constexpr const char* stats[] = {"IAVERTICES",    "IAPRIMITIVES",  "VSINVOCATIONS",
                                            "HSINVOCATIONS", "DSINVOCATIONS", "GSINVOCATIONS",
                                            "GSPRIMITIVES",  "CINVOCATIONS",  "CPRIMITIVES",
                                            "PSINVOCATIONS", "CSINVOCATIONS"};
    const std::uint32_t pairs = first == 0 ? 11 : 1;
    m.mark("pipeline statistics " + std::string(stats[first]) +
           (pairs > 1 ? std::string("..") + stats[first + pairs - 1] : std::string()) + " -> " +
           hex_of(slot + 64));
    m.put({type7(0x3e, 3), (1u << 30) | ((2 * pairs) << 18) | (0x0540 + 2 * first)});
    m.put64(slot + 64);
    // Counter sampling: TSE counter 0 (LO 0x0466 on A6XX, 0x0366 on A7XX).
    m.mark("counter sample: TSE counter 0 -> " + hex_of(slot + 0xf0));
    const std::uint64_t tse0 = r.next() >> 8;
    store(slot + 0xf0, tse0);
    rows.push_back({std::string("PERF_TSE_") + tse[tse_countable], "TSE_0", tse0});
    m.put({type7(0x3e, 3), (1u << 30) | (a7xx ? 0x0366u : 0x0466u)});
    m.put64(slot + 0xf0);
    if (a7xx) {
      // On the BV thread the same SELECT register programs BV_TSE counter 1 (LO 0x048e).
      const std::uint32_t c = static_cast<std::uint32_t>(r.next() % 4);
      m.put({type7(0x17, 1), 0x80000002});
      m.mark("counter select: BV_TSE counter 1 selects countable " + std::to_string(c) + " (" +
             tse[c] + ") [BV]");
      m.put({type4(0x8611, 1), c});
      m.mark("counter sample: BV_TSE counter 1 -> " + hex_of(slot + 0xf8));
      const std::uint64_t v = r.next() >> 8;
      store(slot + 0xf8, v);
      rows.push_back({std::string("PERF_BV_TSE_") + tse[c], "BV_TSE_1", v});
      m.put({type7(0x3e, 3), 0x4000048e});
      m.put64(slot + 0xf8);
      m.put({type7(0x17, 1), 0x80000001});
    } else {
      // A6XX CP counter 1 (SEL 0x08d1, LO 0x0402), CP countables 0..2.
      static constexpr const char* cp[] = {"ALWAYS_COUNT", "BUSY_GFX_CORE_IDLE", "BUSY_CYCLES"};
      const std::uint32_t c = static_cast<std::uint32_t>(r.next() % 3);
      m.mark("counter select: CP counter 1 selects countable " + std::to_string(c) + " (" + cp[c] +
             ")");
      m.put({type4(0x08d1, 1), c});
      m.mark("counter sample: CP counter 1 -> " + hex_of(slot + 0xf8));
      const std::uint64_t v = r.next() >> 8;
      store(slot + 0xf8, v);
      rows.push_back({std::string("PERF_CP_") + cp[c], "CP_1", v});
      m.put({type7(0x3e, 3), 0x40000402});
      m.put64(slot + 0xf8);
    }
  }
  m.put({type7(0x26, 0)});  // CP_WAIT_FOR_IDLE

  // The file: ids, the top buffer, the group, the main buffer, the command stream.
  rd_file f;
  if (a7xx) {
    f.section(13, {0});
    f.section(14, {0x43051401, 0x0003});  // A750, fuse 3
  } else {
    f.section(13, {630});
  }
  const std::vector<std::uint32_t> top_words = {type7(0x3f, 3), static_cast<std::uint32_t>(main_ib),
                                                static_cast<std::uint32_t>(main_ib >> 32),
                                                static_cast<std::uint32_t>(m.d.size())};
  f.buffer(top, top_words);
  f.buffer(group_ib, group.d);
  const std::size_t group_at = f.bytes.size() - 4 * group.d.size();
  f.buffer(main_ib, m.d);
  const std::size_t main_at = f.bytes.size() - 4 * m.d.size();
  f.buffer(memory, mem);
  f.section(6, {static_cast<std::uint32_t>(top), static_cast<std::uint32_t>(top_words.size()),
                static_cast<std::uint32_t>(top >> 32)});

  // Walk order: the group's lines right after the CP_SET_DRAW_STATE packet,
  // which precedes every main line (the group's line was marked first).
  adreno6_emulation e;
  e.file = std::move(f.bytes);
  e.rows = std::move(rows);
  for (const auto& l : lines) {
    const std::size_t at = (l.buffer == 1 ? group_at : main_at) + 4 * l.dword;
    char b[24];
    std::snprintf(b, sizeof b, "%08zx: ", at);
    e.truth.push_back(b + l.what);
  }
  return e;
}

}  // namespace hwpc::adreno
