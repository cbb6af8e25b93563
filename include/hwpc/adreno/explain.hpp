// One line of text per recognised event (docs/adreno.md, "Recogniser"), e.g.
// "occlusion end of slot 0xc0456000: sample count -> 0xc0456010; result += ..."
// "CP/counter 1 counts PERF_CP_BUSY_CYCLES, sampled to 0x10000 (64-bit)"
#pragma once

#include <string>

#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno {

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

inline std::string counter_label(const counter_ref& c) {
  std::string s = std::string(c.group->name) + "/counter " + std::to_string(c.counter);
  if (c.reserved()) s += " (reserved for the kernel)";
  return s;
}

}  // namespace detail

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
      if (ev.role != timestamp_role::none) {
        s += " of slot " + to_hex(ev.slot);
        if (ev.slot_size == time_elapsed_slot24::size) s += " (24-byte)";
      }
      s += ": always-on counter -> " + to_hex(ev.address);
      if (ev.role == timestamp_role::end && ev.slot_size == time_elapsed_slot24::size) {
        s += "; result += stop - start";
        if (!ev.layout_matches) s += " (addresses differ from the 24-byte slot layout)";
      }
      break;
    case query_op::mem_to_mem:
      s = "mem-to-mem";
      break;
    case query_op::counter_select:
      s = detail::counter_label(*ev.counter) + " counts " +
          countable_name(*ev.counter->group, ev.control);
      break;
    case query_op::counter_sample:
      s = detail::counter_label(*ev.counter) + " counts " +
          (ev.countable ? countable_name(*ev.counter->group, *ev.countable)
                        : std::string("(not selected in this stream)")) +
          ", sampled to " + to_hex(ev.address) +
          (ev.sample_dwords == 2 ? " (64-bit)" : " (low 32 bits)");
      break;
    case query_op::always_on_sample:
      s = "always-on counter sampled to " + to_hex(ev.address) +
          (ev.sample_dwords == 2 ? " (64-bit)" : " (low 32 bits)");
      break;
  }
  if (ev.accumulate) s += "; " + detail::describe_m2m(*ev.accumulate);
  return s;
}

}  // namespace hwpc::adreno
