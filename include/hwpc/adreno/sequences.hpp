// The A5xx query sequences and what the recogniser reports of them: the
// event type, and the matchers that test whether a sequence starts at one
// packet of a list (docs/adreno.md, "Recogniser").
//
// Sequences:
//   occlusion begin: RB_SAMPLE_COUNT_CONTROL write (1 dw); RB_SAMPLE_COUNT_ADDR_LO/HI
//                    write (2 dw); CP_EVENT_WRITE (1 dw, ZPASS_DONE)
//   occlusion end:   CP_MEM_WRITE (4 dw) to the stop address; CP_WAIT_MEM_WRITES;
//                    the three begin packets aimed at the stop address; CP_WAIT_REG_MEM
//                    (6 dw); CP_MEM_TO_MEM (9 dw) dst = srcA = result, srcB = stop
//   timestamp:       CP_EVENT_WRITE (>= 3 dw, bit 30) to Y; [a CP_WAIT_*;] [CP_MEM_TO_MEM:
//                    dst = srcA = Y (the seed's adjustment), or dst = srcA, srcB = Y,
//                    NEG_C (freedreno's time-elapsed end: result += stop - start)]
//   counter select:  a type-4 write covering a performance-counter SELECT register
//   counter sample:  CP_REG_TO_MEM reading a counter's LO register (or the always-on counter)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/queries.hpp"

namespace hwpc::adreno {

enum class query_op : std::uint8_t {
  occlusion_begin,   // sample count -> slot + 0
  occlusion_end,     // sample count -> stop, result += stop - start
  timestamp,         // always-on counter -> address (role says begin/end when paired)
  mem_to_mem,        // a CP_MEM_TO_MEM outside the sequences above
  counter_select,    // SELECT register of a counter written
  counter_sample,    // a counter's value copied to memory
  always_on_sample,  // RBBM_ALWAYSON_COUNTER copied to memory
};

enum class timestamp_role : std::uint8_t { none, begin, end };

constexpr std::string_view to_string(query_op o) noexcept {
  switch (o) {
    case query_op::occlusion_begin:
      return "occlusion begin";
    case query_op::occlusion_end:
      return "occlusion end";
    case query_op::timestamp:
      return "timestamp";
    case query_op::mem_to_mem:
      return "mem-to-mem";
    case query_op::counter_select:
      return "counter select";
    case query_op::counter_sample:
      return "counter sample";
    case query_op::always_on_sample:
      return "always-on sample";
  }
  return "?";
}

struct query_event {
  query_op op{};
  std::size_t offset = 0;        // byte offset of the first packet
  std::size_t packet_index = 0;  // index of the first packet in the stream
  std::size_t packet_count = 0;  // packets in the sequence
  std::uint64_t slot = 0;        // slot base address (see docs/adreno.md)
  std::uint64_t address = 0;     // where the counter is stored (sample or timestamp address)
  std::uint32_t control = 0;     // RB_SAMPLE_COUNT_CONTROL / CP_EVENT_WRITE dword 0 / countable
  std::optional<mem_to_mem> accumulate;       // the CP_MEM_TO_MEM of the sequence, if any
  std::optional<std::uint64_t> poll_address;  // CP_WAIT_REG_MEM address (occlusion end)
  bool layout_matches = true;                 // addresses agree with the slot layout
  timestamp_role role = timestamp_role::none;
  std::size_t slot_size = 0;               // time-elapsed: 16 (seed) or 24 (freedreno) once known
  std::optional<counter_ref> counter;      // counter_select / counter_sample
  std::optional<std::uint32_t> countable;  // what the counter counts, when selected earlier
  std::uint32_t sample_dwords = 0;         // counter_sample / always_on_sample: 1 or 2
};

namespace detail {
inline bool is_sample_setup(std::span<const packet> p, std::size_t i) {
  return i + 3 <= p.size() && p[i].is_reg_write(reg::rb_sample_count_control) &&
         p[i].hdr.count == 1 && p[i + 1].is_reg_write(reg::rb_sample_count_addr_lo) &&
         p[i + 1].hdr.count == 2 && p[i + 2].is_op(op::cp_event_write) && p[i + 2].hdr.count == 1 &&
         event::type_of(p[i + 2].dword(0)) == event::zpass_done;
}

inline std::optional<mem_to_mem> m2m_at(std::span<const packet> p, std::size_t i) {
  if (i >= p.size() || !p[i].is_op(op::cp_mem_to_mem) || p[i].hdr.count != mem_to_mem_count) {
    return std::nullopt;
  }
  return mem_to_mem{p[i].dword(0), p[i].qword(1), p[i].qword(3), p[i].qword(5), p[i].qword(7)};
}

inline bool try_occlusion_end(std::span<const packet> p, std::size_t i, query_event& ev) {
  if (i + 7 > p.size()) return false;
  if (!p[i].is_op(op::cp_mem_write) || p[i].hdr.count != 4) return false;
  if (!p[i + 1].is_op(op::cp_wait_mem_writes)) return false;
  if (!is_sample_setup(p, i + 2)) return false;
  if (!p[i + 5].is_op(op::cp_wait_reg_mem) || p[i + 5].hdr.count != 6) return false;
  auto m = m2m_at(p, i + 6);
  if (!m) return false;
  const std::uint64_t stop = p[i].qword(0);
  if (p[i + 3].qword(0) != stop || m->src_b != stop || m->dst != m->src_a) return false;
  ev.op = query_op::occlusion_end;
  ev.packet_count = 7;
  ev.address = stop;
  ev.slot = m->src_c;
  ev.control = p[i + 2].dword(0);
  ev.accumulate = m;
  ev.poll_address = p[i + 5].qword(1);
  ev.layout_matches = m->flags == (m2m::neg_c | m2m::double_) &&
                      m->src_c + occlusion_slot::stop_offset == stop &&
                      m->src_c + occlusion_slot::result_offset == m->dst;
  return true;
}

inline bool try_timestamp(std::span<const packet> p, std::size_t i, query_event& ev) {
  if (!p[i].is_op(op::cp_event_write) || p[i].hdr.count < 3 ||
      !(p[i].dword(0) & event::timestamp_bit)) {
    return false;
  }
  ev.op = query_op::timestamp;
  ev.packet_count = 1;
  ev.address = p[i].qword(1);
  ev.slot = ev.address;
  ev.control = p[i].dword(0);
  std::size_t j = i + 1;
  if (j < p.size() && (p[j].is_op(op::cp_wait_for_idle) || p[j].is_op(op::cp_wait_mem_writes))) {
    ++j;
  }
  auto m = m2m_at(p, j);
  if (!m || m->dst != m->src_a) return true;
  const std::uint32_t signs = m->flags & (m2m::neg_a | m2m::neg_b | m2m::neg_c);
  if (m->dst == ev.address) {
    ev.accumulate = m;  // the seed's adjustment of the value just written
  } else if (m->src_b == ev.address && signs == m2m::neg_c) {
    // freedreno: result += stop - start in a 24-byte slot at srcC.
    ev.accumulate = m;
    ev.role = timestamp_role::end;
    ev.slot = m->src_c;
    ev.slot_size = time_elapsed_slot24::size;
    ev.layout_matches = m->is_double() &&
                        m->src_c + time_elapsed_slot24::stop_offset == ev.address &&
                        m->src_c + time_elapsed_slot24::result_offset == m->dst;
  } else {
    return true;
  }
  ev.packet_count = j - i + 1;
  return true;
}
}  // namespace detail

}  // namespace hwpc::adreno
