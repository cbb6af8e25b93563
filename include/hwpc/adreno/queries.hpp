// A5xx query slots and the arithmetic that produces query results.
//
// Occlusion slot (seed, addresses relative to the slot base 0xc0456000):
//   +0x00 start  64-bit sample count written by ZPASS_DONE at query begin
//   +0x08 result 64-bit, result += stop - start at every query end
//   +0x10 stop   64-bit sample count written by ZPASS_DONE at query end
// Time-elapsed slot, freedreno (time_elapsed_slot24): as occlusion, with timestamps.
// Time-elapsed slot (seed's timestamp query):
//   +0x00 start  64-bit always-on counter written by CP_EVENT_WRITE (bit 30)
//   +0x08 stop   64-bit always-on counter written by CP_EVENT_WRITE (bit 30)
// Elapsed ticks are stop - start; the counter runs at 19.2 MHz.
// See docs/adreno.md for where the seed is silent and what was decided.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

// CP_EVENT_WRITE payload dword 0: event type in bits 7..0 (8 bits, adreno_pm4.xml
// and envytools agree), timestamp request in bit 30, IRQ in bit 31.
namespace event {
inline constexpr std::uint32_t zpass_done = 0x15;
// The seed's timestamp event 0x16: RB_DONE_TS in the A5XX event table, which
// the seed prints as CACHE_FLUSH_AND_INV_EVENT (docs/adreno.md).
inline constexpr std::uint32_t rb_done_ts = 0x16;
inline constexpr std::uint32_t cache_flush_and_inv_event = rb_done_ts;
inline constexpr std::uint32_t timestamp_bit = 1u << 30;
inline constexpr std::uint32_t irq_bit = 1u << 31;
constexpr std::uint32_t type_of(std::uint32_t dw0) noexcept { return dw0 & 0xff; }
static_assert(type_of(0x55) != zpass_done && type_of(0x40000016) == rb_done_ts);
}  // namespace event

// RB_SAMPLE_COUNT_CONTROL: COPY makes ZPASS_DONE store the sample count.
inline constexpr std::uint32_t rb_sample_count_control_copy = 1u << 1;

// CP_MEM_TO_MEM payload dword 0.
namespace m2m {
inline constexpr std::uint32_t neg_a = 1u << 0;
inline constexpr std::uint32_t neg_b = 1u << 1;
inline constexpr std::uint32_t neg_c = 1u << 2;
inline constexpr std::uint32_t double_ = 1u << 29;  // 64-bit operands
}  // namespace m2m

// dst = ±a ± b ± c. With DOUBLE the operands and the result are 64-bit;
// otherwise they are 32-bit (only the low 32 bits of a, b, c count) and the
// result wraps modulo 2^32.
constexpr std::uint64_t mem_to_mem_combine(std::uint32_t flags, std::uint64_t a, std::uint64_t b,
                                           std::uint64_t c) noexcept {
  const auto term = [](std::uint64_t v, bool neg) { return neg ? 0 - v : v; };
  const std::uint64_t sum =
      term(a, flags & m2m::neg_a) + term(b, flags & m2m::neg_b) + term(c, flags & m2m::neg_c);
  return (flags & m2m::double_) ? sum : (sum & 0xffffffffu);
}

static_assert(mem_to_mem_combine(m2m::neg_c | m2m::double_, 10, 50, 20) == 40);
static_assert(mem_to_mem_combine(m2m::neg_c, 0, 5, 6) == 0xffffffffu);

// A decoded CP_MEM_TO_MEM packet (9 payload dwords: flags, dst, srcA, srcB, srcC).
struct mem_to_mem {
  std::uint32_t flags = 0;
  std::uint64_t dst = 0, src_a = 0, src_b = 0, src_c = 0;
  bool is_double() const noexcept { return (flags & m2m::double_) != 0; }
};

inline constexpr std::uint32_t mem_to_mem_count = 9;

inline result<mem_to_mem> decode_mem_to_mem(const packet& p) {
  if (!p.is_op(op::cp_mem_to_mem)) {
    return make_error(errc::inconsistent, p.offset, "not a CP_MEM_TO_MEM packet");
  }
  if (p.hdr.count != mem_to_mem_count) {
    return make_error(errc::inconsistent, p.offset,
                      "CP_MEM_TO_MEM needs 9 payload dwords, has " + std::to_string(p.hdr.count));
  }
  return mem_to_mem{p.dword(0), p.qword(1), p.qword(3), p.qword(5), p.qword(7)};
}

// Always-on counter ticks (19.2 MHz) to nanoseconds, rounded down.
// 1 tick = 1e9 / 19.2e6 ns = 625 / 12 ns; exact for every tick count whose
// result fits in 64 bits (about 5.6e17 ticks, 930 years).
inline constexpr std::uint64_t always_on_hz = 19'200'000;
constexpr std::uint64_t ticks_to_ns(std::uint64_t ticks) noexcept {
  return (ticks / 12) * 625 + (ticks % 12) * 625 / 12;
}
static_assert(ticks_to_ns(19'200'000) == 1'000'000'000);
static_assert(ticks_to_ns(12) == 625);

// What freedreno's A5xx query code reports for the same ticks (fd5_query.c):
// the tick count truncated to 32 bits, times the integer 1e9 / 19.2e6 = 52.
// It is 1/625 (0.16 %) below the exact value and wraps after 2^32 ticks
// (223.7 s); docs/adreno.md. Kept for comparison with driver-reported results.
inline constexpr std::uint64_t driver_ns_per_tick = 1'000'000'000 / always_on_hz;
constexpr std::uint64_t driver_ticks_to_ns(std::uint64_t ticks) noexcept {
  return static_cast<std::uint32_t>(ticks) * driver_ns_per_tick;
}
static_assert(driver_ns_per_tick == 52);
static_assert(driver_ticks_to_ns(19'200'000) == 998'400'000);

struct occlusion_slot {
  static constexpr std::size_t size = 24;
  static constexpr std::size_t start_offset = 0, result_offset = 8, stop_offset = 16;
  std::uint64_t start = 0, result = 0, stop = 0;
  // What one query end adds to result.
  std::uint64_t delta() const noexcept { return stop - start; }
};

struct time_elapsed_slot {
  static constexpr std::size_t size = 16;
  static constexpr std::size_t start_offset = 0, stop_offset = 8;
  std::uint64_t start = 0, stop = 0;
  std::uint64_t ticks() const noexcept { return stop - start; }  // modulo 2^64
  std::uint64_t nanoseconds() const noexcept { return ticks_to_ns(ticks()); }
};

// freedreno's time-elapsed slot: the occlusion layout with timestamps. The GPU
// adds stop - start to result at every end, so result accumulates over
// begin/end pairs (issue text; FACTS-adreno via the same CP_MEM_TO_MEM).
struct time_elapsed_slot24 {
  static constexpr std::size_t size = 24;
  static constexpr std::size_t start_offset = 0, result_offset = 8, stop_offset = 16;
  std::uint64_t start = 0, result = 0, stop = 0;
  std::uint64_t ticks() const noexcept { return result; }
  std::uint64_t nanoseconds() const noexcept { return ticks_to_ns(ticks()); }
};

// Reads a slot from the bytes at its base. `offset` is where those bytes sit
// in the caller's larger buffer, for error reporting.
inline result<occlusion_slot> read_occlusion_slot(byte_span bytes, std::size_t offset = 0) {
  if (bytes.size() < occlusion_slot::size) {
    return make_error(errc::truncated, offset,
                      "occlusion slot needs 24 bytes, " + std::to_string(bytes.size()) + " remain");
  }
  return occlusion_slot{load_le64(bytes.data()), load_le64(bytes.data() + 8),
                        load_le64(bytes.data() + 16)};
}

inline result<time_elapsed_slot24> read_time_elapsed_slot24(byte_span bytes,
                                                            std::size_t offset = 0) {
  if (bytes.size() < time_elapsed_slot24::size) {
    return make_error(
        errc::truncated, offset,
        "time-elapsed slot needs 24 bytes, " + std::to_string(bytes.size()) + " remain");
  }
  return time_elapsed_slot24{load_le64(bytes.data()), load_le64(bytes.data() + 8),
                             load_le64(bytes.data() + 16)};
}

inline result<time_elapsed_slot> read_time_elapsed_slot(byte_span bytes, std::size_t offset = 0) {
  if (bytes.size() < time_elapsed_slot::size) {
    return make_error(
        errc::truncated, offset,
        "time-elapsed slot needs 16 bytes, " + std::to_string(bytes.size()) + " remain");
  }
  return time_elapsed_slot{load_le64(bytes.data()), load_le64(bytes.data() + 8)};
}

}  // namespace hwpc::adreno
