// The reference emulator's A6xx and A7xx captures: a freedreno .rd of a
// seeded workload as the freedreno drivers emit it — a top-level command
// buffer calling, through a 64-bit CP_INDIRECT_BUFFER, a buffer that sets the
// render mode (CP_SET_MARKER) and a draw-state group, and runs rounds of
// occlusion queries, timestamps, pipeline statistics (gallium's one-pair
// and turnip's all-pairs reads), gallium's time elapsed, stream-out counts and
// counter programming and sampling (on A7XX on both the BR and the BV thread),
// with the query memory dumped — and the truth: the lines `hwpc adreno
// --queries` must print for it and the rows `--output` must give
// (docs/adreno.md, "Emulator").
//
// As emulate.hpp: packed with the emulator's own encoder from the values
// FACTS-adreno6 gives (sections 1, 2.3, 4, 5), never the decoder's tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/adreno/emulate.hpp"

namespace hwpc::adreno {

// One row `hwpc adreno --output csv` must give: its reason, the columns
// that hold a value (every other column is empty) and its time in ticks.
struct emulated6_row {
  std::string reason;
  // e.g. {"samples_passed", n}, {"gpu_time", ns}, {"TSE_0", v}, {"ps_invocations", end - begin}
  std::vector<std::pair<std::string, std::uint64_t>> values;
  std::uint64_t begin = 0, end = 0;
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
  constexpr std::uint64_t round_bytes = 0x200;
  std::vector<std::uint32_t> mem(round_bytes * o.rounds / 4, 0);
  std::vector<emulated6_row> rows;
  std::uint64_t last = 0;  // the last timestamp written: the time of rows without their own
  const auto row = [&](std::string reason, std::vector<std::pair<std::string, std::uint64_t>> v) {
    rows.push_back({std::move(reason), std::move(v), last, last});
  };
  const auto store = [&](std::uint64_t addr, std::uint64_t v) {
    mem[(addr - memory) / 4] = static_cast<std::uint32_t>(v);
    mem[(addr - memory) / 4 + 1] = static_cast<std::uint32_t>(v >> 32);
  };
  std::uint64_t clock = 1'000'000 + r.next() % 1'000'000;  // always-on ticks, < 2^50
  // The counters the capture reads, running across rounds (emulate.hpp's
  // running_counter): TSE counter 0, the BV_TSE or CP counter 1, the eleven
  // pipeline statistics and the eight stream-out counts.
  running_counter tse_0(o.seed, 1), counter_1(o.seed, 2);
  std::vector<running_counter> stat_counters, so_counters;
  for (std::uint64_t i = 0; i < 11; ++i) stat_counters.emplace_back(o.seed, 16 + i);
  for (std::uint64_t i = 0; i < 8; ++i) so_counters.emplace_back(o.seed, 32 + i);
  const auto stamp = [&](std::uint64_t addr) {
    clock += 1 + r.next() % 100'000;
    store(addr, clock);
    last = clock;
    row("timestamp", {{"gpu_time", clock * 625 / 12}});  // 1e9 / 19.2e6 = 625 / 12
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
    // 48-byte occlusion slot, timestamps at +48, pipeline statistics +64, counters +0xf0,
    // a time-elapsed slot +0x100, a stream-out slot +0x140.
    const std::uint64_t slot = memory + round_bytes * k;
    const std::uint64_t samples = r.next() % 1'000'000;
    store(slot + 24, samples);  // the slot's result
    row("occlusion", {{"samples_passed", samples}});
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
    // Pipeline statistics: all eleven pairs (turnip: begin +0, end +88) or one seeded pair
    // (gallium: begin +0, end +8), between the start and stop events of the primitive
    // counters (1-dword event writes, not queries), each read after a wait for idle.
    const std::uint32_t first = static_cast<std::uint32_t>(r.next() % 2 == 0 ? 0 : r.next() % 11);
    static constexpr const char* stats[] = {"IAVERTICES",    "IAPRIMITIVES",  "VSINVOCATIONS",
                                            "HSINVOCATIONS", "DSINVOCATIONS", "GSINVOCATIONS",
                                            "GSPRIMITIVES",  "CINVOCATIONS",  "CPRIMITIVES",
                                            "PSINVOCATIONS", "CSINVOCATIONS"};
    static constexpr const char* stat_columns[] = {
        "ia_vertices",    "ia_primitives",  "vs_invocations", "hs_invocations",
        "ds_invocations", "gs_invocations", "gs_primitives",  "c_invocations",
        "c_primitives",   "ps_invocations", "cs_invocations"};
    const std::uint32_t pairs = first == 0 ? 11 : 1;
    const std::string stat_text =
        "pipeline statistics " + std::string(stats[first]) +
        (pairs > 1 ? std::string("..") + stats[first + pairs - 1] : std::string()) + " -> ";
    std::vector<std::pair<std::string, std::uint64_t>> deltas;
    m.put({type7(0x46, 1), 0x0b});  // START_PRIMITIVE_CTRS
    for (const std::uint64_t at : {slot + 64, slot + 64 + 8 * pairs}) {
      m.put({type7(0x26, 0)});  // CP_WAIT_FOR_IDLE
      m.mark(stat_text + hex_of(at));
      m.put({type7(0x3e, 3), (1u << 30) | ((2 * pairs) << 18) | (0x0540 + 2 * first)});
      m.put64(at);
    }
    m.put({type7(0x46, 1), 0x0c});  // STOP_PRIMITIVE_CTRS
    for (std::uint32_t i = 0; i < pairs; ++i) {
      running_counter& c = stat_counters[first + i];
      const std::uint64_t b = c.advance(r.next()), d = r.next() % 1'000'000;
      c.value = b + d;
      store(slot + 64 + 8 * i, b);
      store(slot + 64 + 8 * pairs + 8 * i, b + d);
      deltas.emplace_back(stat_columns[first + i], d);
    }
    row("pipeline-statistics", std::move(deltas));
    // Counter sampling: TSE counter 0 (LO 0x0466 on A6XX, 0x0366 on A7XX).
    m.mark("counter sample: TSE counter 0 -> " + hex_of(slot + 0xf0));
    const std::uint64_t tse0 = tse_0.advance(r.next());
    store(slot + 0xf0, tse0);
    row(std::string("PERF_TSE_") + tse[tse_countable], {{"TSE_0", tse0}});
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
      const std::uint64_t v = counter_1.advance(r.next());
      store(slot + 0xf8, v);
      row(std::string("PERF_BV_TSE_") + tse[c], {{"BV_TSE_1", v}});
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
      const std::uint64_t v = counter_1.advance(r.next());
      store(slot + 0xf8, v);
      row(std::string("PERF_CP_") + cp[c], {{"CP_1", v}});
      m.put({type7(0x3e, 3), 0x40000402});
      m.put64(slot + 0xf8);
    }
    // Gallium's time elapsed (F6 4.3): an event-write timestamp to +16 of the 40-byte slot,
    // one to +32, then result (+24) += stop - start. The begin is also a timestamp row.
    const std::uint64_t te = slot + 0x100;
    for (const std::uint64_t at : {te + 16, te + 32}) {
      m.mark(ts + hex_of(at));
      if (a7xx) {
        m.put({type7(0x46, 3), 0x08300016});
        m.put64(at);
      } else {
        m.put({type7(0x46, 4), 0x40000016});
        m.put64(at);
        m.put({0});
      }
    }
    m.put({type7(0x26, 0)});
    m.accumulate(te + 24, te + 32, te + 16);
    stamp(te + 16);
    const std::uint64_t started = clock, ticks = 1 + r.next() % 10'000'000;
    clock += ticks;
    store(te + 32, clock);
    store(te + 24, ticks);
    rows.push_back({"time-elapsed",
                    {{"time_elapsed", (ticks / 12) * 625 + (ticks % 12) * 625 / 12}},
                    started,
                    clock});
    last = clock;
    // Stream-out (F6 4.5): VPC_SO_QUERY_BASE then WRITE_PRIMITIVE_COUNTS, to +32 (begin) and
    // +96 (end) of the slot; four streams of {written, generated}.
    const std::uint64_t so = slot + 0x140;
    std::vector<std::pair<std::string, std::uint64_t>> so_deltas;
    for (std::uint32_t i = 0; i < 8; ++i) {
      const std::uint64_t b = so_counters[i].advance(r.next()), d = r.next() % 100'000;
      so_counters[i].value = b + d;
      store(so + 32 + 8 * i, b);
      store(so + 96 + 8 * i, b + d);
      so_deltas.emplace_back(
          std::string(i % 2 == 0 ? "primitives_written_" : "primitives_generated_") +
              std::to_string(i / 2),
          d);
    }
    for (const std::uint64_t at : {so + 32, so + 96}) {
      m.put({type4(0x9218, 2)});
      m.put64(at);
      m.mark("stream-out counts (4 streams x {written, generated}) -> " + hex_of(at));
      m.put({type7(0x46, 1), 0x09});
    }
    row("stream-out", std::move(so_deltas));
  }
  m.put({type7(0x26, 0)});  // CP_WAIT_FOR_IDLE

  // The file: ids, the top buffer, the group, the main buffer, the command stream.
  rd_file f;
  f.libwrap = o.libwrap;
  f.start();
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
