// A reference emulator for Adreno input: writes a freedreno .rd capture of a
// seeded A5xx workload — a top-level command buffer calling an indirect buffer
// of occlusion and time-elapsed queries and CP performance-counter
// programming and sampling — with the query memory dumped, and the truth: the
// rows `hwpc adreno --output csv` must give for it (docs/adreno.md,
// "Emulator").
//
// The packets are packed here from the FACTS encodings (FACTS.md's Adreno
// section, FACTS-adreno sections 1-5): own header encoder with its own parity
// count, own register and event numbers, own .rd section writer; nothing from
// the decoder's tables, so that a round trip checks one against the other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hwpc::adreno {

struct emulate_options {
  std::uint64_t seed = 1;
  std::uint32_t rounds = 4;  // each: time-elapsed + occlusion query, one counter sample
  // Android libwrap's dialect (FACTS-live section 6.1): two 0xffffffff dwords
  // before each section, sizes rounded up to 4, and an RD_TEST text first.
  bool libwrap = false;
};

// One row the capture must decode to, in stream order.
struct emulated_row {
  std::string reason;  // "occlusion", "time-elapsed", "PERF_CP_..." or "always-on"
  std::uint64_t samples_passed = 0;
  std::uint64_t time_elapsed_ns = 0;
  std::uint64_t gpu_time_ns = 0;
  std::uint64_t counter = 0;  // the value of CP counter 1 (column CP_1)
};

struct adreno_emulation {
  std::vector<std::byte> file;  // the .rd capture
  std::vector<emulated_row> truth;
};

namespace emu_detail {

constexpr std::uint32_t even_parity_fill(std::uint32_t x) noexcept {
  unsigned ones = 0;
  for (; x != 0; x &= x - 1) ++ones;  // own count, not the decoder's popcount
  return ones % 2 == 0 ? 1u : 0u;
}
constexpr std::uint32_t type7(std::uint32_t opcode, std::uint32_t count) noexcept {
  return 0x70000000u | (even_parity_fill(opcode) << 23) | (opcode << 16) |
         (even_parity_fill(count) << 15) | count;
}
constexpr std::uint32_t type4(std::uint32_t reg, std::uint32_t count) noexcept {
  return 0x40000000u | (even_parity_fill(reg) << 27) | (reg << 8) | (even_parity_fill(count) << 7) |
         count;
}

// A5xx values (FACTS.md, FACTS-adreno sections 3-5).
inline constexpr std::uint32_t cp_wait_mem_writes = 0x12, cp_wait_for_idle = 0x26,
                               cp_wait_reg_mem = 0x3c, cp_mem_write = 0x3d, cp_reg_to_mem = 0x3e,
                               cp_indirect_buffer = 0x3f, cp_event_write = 0x46,
                               cp_mem_to_mem = 0x73;
inline constexpr std::uint32_t sample_count_control = 0xe1d1, sample_count_addr = 0xe267;
inline constexpr std::uint32_t cp_select_1 = 0x0bb1, cp_counter_1_lo = 0x03a2,
                               always_on_lo = 0x04d2;
inline constexpr std::uint32_t zpass_done = 0x15, rb_done_ts = 0x16, timestamp_bit = 1u << 30;
inline constexpr std::uint32_t copy = 2;
inline constexpr std::uint32_t m2m_double_neg_c = (1u << 29) | (1u << 2);

struct stream {
  std::vector<std::uint32_t> d;
  void put(std::initializer_list<std::uint32_t> v) { d.insert(d.end(), v); }
  void put64(std::uint64_t v) {
    d.push_back(static_cast<std::uint32_t>(v));
    d.push_back(static_cast<std::uint32_t>(v >> 32));
  }
  // result += b - c with 64-bit values (CP_MEM_TO_MEM DOUBLE | NEG_C).
  void accumulate(std::uint64_t result, std::uint64_t b, std::uint64_t c) {
    put({type7(cp_mem_to_mem, 9), m2m_double_neg_c});
    for (const std::uint64_t a : {result, result, b, c}) put64(a);
  }
};

struct rd_file {
  std::vector<std::byte> bytes;
  bool libwrap = false;
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
  }
  void markers() {
    if (!libwrap) return;
    u32(0xffffffffu);
    u32(0xffffffffu);
  }
  void section(std::uint32_t type, const std::vector<std::uint32_t>& words) {
    markers();
    u32(type);
    u32(static_cast<std::uint32_t>(4 * words.size()));
    for (const std::uint32_t w : words) u32(w);
  }
  // A text section (RD_TEST 1, RD_CMD 2): libwrap pads it to 4 with zeros;
  // the kernel's dialect gives its exact length.
  void text(std::uint32_t type, std::string_view t) {
    markers();
    const std::size_t size = libwrap ? (t.size() + 3) / 4 * 4 : t.size();
    u32(type);
    u32(static_cast<std::uint32_t>(size));
    for (const char c : t) bytes.push_back(static_cast<std::byte>(c));
    bytes.resize(bytes.size() + size - t.size(), std::byte{0});
  }
  // What libwrap writes first: the capture's name (FACTS-live section 6.1).
  void start() {
    if (libwrap) text(1, "hwpc adreno emulate");
  }
  // RD_GPUADDR (3) {lo, size, hi} then RD_BUFFER_CONTENTS (12).
  void buffer(std::uint64_t iova, const std::vector<std::uint32_t>& words) {
    section(3, {static_cast<std::uint32_t>(iova), static_cast<std::uint32_t>(4 * words.size()),
                static_cast<std::uint32_t>(iova >> 32)});
    section(12, words);
  }
};

// xorshift64*, the emulator's own generator.
struct rng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dull;
  }
};

// A 64-bit hardware counter as a GPU that has run for a while shows it: a
// seeded start below 2^36 (about a minute of cycles at 1 GHz) that each
// sample raises by less than 2^23 (a few milliseconds' worth), so that after
// the most rounds `hwpc adreno emulate` writes (100000) it is still below
// 2^40. The start comes from a generator of its own, keyed by the seed and
// the counter, so that the workload's other values do not move with it.
struct running_counter {
  static constexpr std::uint64_t start_below = std::uint64_t{1} << 36;
  static constexpr std::uint64_t step_below = std::uint64_t{1} << 23;
  std::uint64_t value;
  running_counter(std::uint64_t seed, std::uint64_t which) {
    rng g{(seed * 2 + 1) ^ (0x9e3779b97f4a7c15ull * (which + 1))};
    g.next();
    value = g.next() % start_below;
  }
  // The next reading, advanced by 1 to 2^23 - 1 from a value of the
  // workload's generator (always a little: time passes between samples).
  std::uint64_t advance(std::uint64_t random) {
    value += 1 + random % (step_below - 1);
    return value;
  }
};

}  // namespace emu_detail

// The A5xx capture (GPU id 530) and its rows.
inline adreno_emulation emulate_a5xx(const emulate_options& o) {
  using namespace emu_detail;
  constexpr std::uint64_t top = 0x10000, ib = 0x20000, memory = 0xc0000000;
  constexpr std::uint64_t round_bytes = 0x100;  // te slot +0, occlusion +0x40, counter +0x80
  rng r{o.seed * 2 + 1};
  stream s;
  std::vector<std::uint32_t> mem(o.rounds * round_bytes / 4 + 4, 0);
  const auto store = [&mem](std::uint64_t addr, std::uint64_t v) {
    const std::size_t i = (addr - memory) / 4;
    mem[i] = static_cast<std::uint32_t>(v);
    mem[i + 1] = static_cast<std::uint32_t>(v >> 32);
  };
  adreno_emulation e;
  std::uint64_t clock = 19'200'000 + (r.next() % 1000) * 96;  // always-on ticks
  running_counter cp_1(o.seed, 0);                            // CP counter 1 (column CP_1)
  static constexpr const char* countables[] = {"PERF_CP_ALWAYS_COUNT", "PERF_CP_BUSY_GFX_CORE_IDLE",
                                               "PERF_CP_BUSY_CYCLES"};
  for (std::uint32_t k = 0; k < o.rounds; ++k) {
    const std::uint64_t te = memory + k * round_bytes, occ = te + 0x40, ctr = te + 0x80;
    // time-elapsed begin: RB_DONE_TS | TIMESTAMP to te+0
    s.put({type7(cp_event_write, 4), rb_done_ts | timestamp_bit});
    s.put64(te);
    s.put({0});
    // occlusion begin: control COPY, address = slot, ZPASS_DONE
    s.put({type4(sample_count_control, 1), copy, type4(sample_count_addr, 2)});
    s.put64(occ);
    s.put({type7(cp_event_write, 1), zpass_done});
    // occlusion end: stop := all ones, wait, count to stop, poll, result += stop - start
    s.put({type7(cp_mem_write, 4)});
    s.put64(occ + 16);
    s.put({0xffffffff, 0xffffffff, type7(cp_wait_mem_writes, 0), type4(sample_count_control, 1),
           copy, type4(sample_count_addr, 2)});
    s.put64(occ + 16);
    s.put({type7(cp_event_write, 1), zpass_done, type7(cp_wait_reg_mem, 6), 0x14});
    s.put64(occ + 20);
    s.put({0xffffffff, 0xffffffff, 0x10});
    s.accumulate(occ + 8, occ + 16, occ);
    // time-elapsed end: timestamp to te+16, wait for idle, result += stop - start
    s.put({type7(cp_event_write, 4), rb_done_ts | timestamp_bit});
    s.put64(te + 16);
    s.put({0, type7(cp_wait_for_idle, 0)});
    s.accumulate(te + 8, te + 16, te);
    // CP counter 1 selects a countable, then LO/HI are copied out
    const std::uint32_t countable = static_cast<std::uint32_t>(r.next() % 3);
    s.put(
        {type4(cp_select_1, 1), countable, type7(cp_reg_to_mem, 3), cp_counter_1_lo | (2u << 18)});
    s.put64(ctr);

    const std::uint64_t samples = r.next() % 100000, start_count = r.next() % 1000000;
    store(occ, start_count);
    store(occ + 8, samples);
    store(occ + 16, start_count + samples);
    const std::uint64_t ticks = 96 * (1 + r.next() % 100000);  // 96 ticks = 5000 ns exactly
    store(te, clock);
    store(te + 8, ticks);
    store(te + 16, clock + ticks);
    clock += ticks + 96 * (r.next() % 1000);
    r.next();  // kept so that the values after it stay as they were
    const std::uint64_t value = cp_1.advance(r.next());
    store(ctr, value);
    e.truth.push_back({"occlusion", samples, 0, 0, 0});
    e.truth.push_back({"time-elapsed", 0, ticks / 96 * 5000, 0, 0});
    e.truth.push_back({countables[countable], 0, 0, 0, value});
  }
  // The always-on counter at the end: gpu_time.
  const std::uint64_t aon = memory + o.rounds * round_bytes;
  s.put({type7(cp_reg_to_mem, 3), always_on_lo | (2u << 18)});
  s.put64(aon);
  store(aon, clock);
  e.truth.push_back({"always-on", 0, 0, clock / 96 * 5000 + (clock % 96) * 5000 / 96, 0});

  rd_file f;
  f.libwrap = o.libwrap;
  f.start();
  f.section(13, {530});  // RD_GPU_ID
  std::vector<std::uint32_t> top_words = {
      type7(cp_indirect_buffer, 3), static_cast<std::uint32_t>(ib),
      static_cast<std::uint32_t>(ib >> 32), static_cast<std::uint32_t>(s.d.size())};
  f.buffer(top, top_words);
  f.buffer(ib, s.d);
  f.buffer(memory, mem);
  f.section(6, {static_cast<std::uint32_t>(top), static_cast<std::uint32_t>(top_words.size()),
                static_cast<std::uint32_t>(top >> 32)});  // RD_CMDSTREAM_ADDR
  e.file = std::move(f.bytes);
  return e;
}

}  // namespace hwpc::adreno
