// Finds the A5xx query begin/end packet sequences in a command stream and
// says what each one does.
//
// Sequences (docs/adreno.md, "Recogniser"):
//   occlusion begin: RB_SAMPLE_COUNT_CONTROL write (1 dw); RB_SAMPLE_COUNT_ADDR_LO/HI
//                    write (2 dw); CP_EVENT_WRITE (1 dw, ZPASS_DONE)
//   occlusion end:   CP_MEM_WRITE (4 dw) to the stop address; CP_WAIT_MEM_WRITES;
//                    the three begin packets aimed at the stop address; CP_WAIT_REG_MEM
//                    (6 dw); CP_MEM_TO_MEM (9 dw) dst = srcA = result, srcB = stop
//   timestamp:       CP_EVENT_WRITE (>= 3 dw, bit 30) to an address; CP_WAIT_FOR_IDLE;
//                    CP_MEM_TO_MEM with dst = srcA = that address (the last two optional)
// Timestamps at X and, later, X + 8 are paired as the begin and end of a
// time-elapsed slot at X. Any other CP_MEM_TO_MEM is reported on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno {

enum class query_op : std::uint8_t {
  occlusion_begin,  // sample count -> slot + 0
  occlusion_end,    // sample count -> stop, result += stop - start
  timestamp,        // always-on counter -> address (role says begin/end when paired)
  mem_to_mem,       // a CP_MEM_TO_MEM outside the sequences above
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
  }
  return "?";
}

struct query_event {
  query_op op{};
  std::size_t offset = 0;        // byte offset of the first packet
  std::size_t packet_index = 0;  // index of the first packet
  std::size_t packet_count = 0;  // packets in the sequence
  std::uint64_t slot = 0;        // slot base address (see docs/adreno.md)
  std::uint64_t address = 0;     // where the counter is stored (sample or timestamp address)
  std::uint32_t control = 0;     // RB_SAMPLE_COUNT_CONTROL value / CP_EVENT_WRITE dword 0
  std::optional<mem_to_mem> accumulate;       // the CP_MEM_TO_MEM of the sequence, if any
  std::optional<std::uint64_t> poll_address;  // CP_WAIT_REG_MEM address (occlusion end)
  bool layout_matches = true;                 // addresses agree with the seed's slot layout
  timestamp_role role = timestamp_role::none;
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
}  // namespace detail

// Every recognised sequence, in stream order.
inline std::vector<query_event> recognise(std::span<const packet> p) {
  std::vector<query_event> out;
  std::size_t i = 0;
  while (i < p.size()) {
    query_event ev;
    ev.offset = p[i].offset;
    ev.packet_index = i;
    if (detail::try_occlusion_end(p, i, ev)) {
      // The end sequence is 7 packets: MEM_WRITE, WAIT_MEM_WRITES, 3 setup, WAIT_REG_MEM, M2M.
    } else if (detail::is_sample_setup(p, i)) {
      ev.op = query_op::occlusion_begin;
      ev.packet_count = 3;
      ev.address = p[i + 1].qword(0);
      ev.slot = ev.address;
      ev.control = p[i].dword(0);
    } else if (p[i].is_op(op::cp_event_write) && p[i].hdr.count >= 3 &&
               (p[i].dword(0) & event::timestamp_bit)) {
      ev.op = query_op::timestamp;
      ev.packet_count = 1;
      ev.address = p[i].qword(1);
      ev.slot = ev.address;
      ev.control = p[i].dword(0);
      if (i + 2 < p.size() && p[i + 1].is_op(op::cp_wait_for_idle)) {
        auto m = detail::m2m_at(p, i + 2);
        if (m && m->dst == ev.address && m->src_a == ev.address) {
          ev.accumulate = m;
          ev.packet_count = 3;
        }
      }
    } else if (auto m = detail::m2m_at(p, i)) {
      ev.op = query_op::mem_to_mem;
      ev.packet_count = 1;
      ev.address = m->dst;
      ev.slot = m->dst;
      ev.accumulate = m;
    } else {
      ++i;
      continue;
    }
    i += ev.packet_count;
    out.push_back(ev);
  }
  // Pair timestamps X (begin) and a later X + 8 (end) into time-elapsed slots.
  for (std::size_t a = 0; a < out.size(); ++a) {
    if (out[a].op != query_op::timestamp || out[a].role != timestamp_role::none) continue;
    for (std::size_t b = a + 1; b < out.size(); ++b) {
      if (out[b].op == query_op::timestamp && out[b].role == timestamp_role::none &&
          out[b].address == out[a].address + time_elapsed_slot::stop_offset) {
        out[a].role = timestamp_role::begin;
        out[b].role = timestamp_role::end;
        out[b].slot = out[a].address;
        break;
      }
    }
  }
  return out;
}

inline result<std::vector<query_event>> recognise(byte_span stream) {
  auto p = read_packets(stream);
  if (!p) return p.error_value();
  return recognise(std::span<const packet>(*p));
}

namespace detail {

inline std::string describe_m2m(const mem_to_mem& m) {
  const auto term = [&](bool neg, std::uint64_t a, bool first) {
    std::string s = neg ? (first ? "-" : " - ") : (first ? "" : " + ");
    return s + "[" + to_hex(a) + "]";
  };
  return "[" + to_hex(m.dst) + "] = " + term(m.flags & m2m::neg_a, m.src_a, true) +
         term(m.flags & m2m::neg_b, m.src_b, false) + term(m.flags & m2m::neg_c, m.src_c, false) +
         (m.is_double() ? " (64-bit)" : " (32-bit, wraps)");
}
}  // namespace detail

// One line explaining an event, e.g.
// "occlusion end of slot 0xc0456000: sample count -> 0xc0456010; [0xc0456008] = ..."
inline std::string describe(const query_event& ev) {
  std::string s;
  switch (ev.op) {
    case query_op::occlusion_begin:
      s = "occlusion begin of slot " + to_hex(ev.slot) + ": sample count -> " + to_hex(ev.address);
      break;
    case query_op::occlusion_end:
      s = "occlusion end of slot " + to_hex(ev.slot) + ": sample count -> " + to_hex(ev.address) +
          "; result += stop - start";
      if (!ev.layout_matches) s += " (addresses differ from the 24-byte slot layout)";
      break;
    case query_op::timestamp:
      s = std::string(ev.role == timestamp_role::begin ? "time-elapsed begin"
                      : ev.role == timestamp_role::end ? "time-elapsed end"
                                                       : "timestamp");
      if (ev.role != timestamp_role::none) s += " of slot " + to_hex(ev.slot);
      s += ": always-on counter -> " + to_hex(ev.address);
      break;
    case query_op::mem_to_mem:
      s = "mem-to-mem";
      break;
  }
  if (ev.accumulate) s += "; " + detail::describe_m2m(*ev.accumulate);
  return s;
}

}  // namespace hwpc::adreno
