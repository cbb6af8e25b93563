// The counter events of single packets, for the recogniser (recognise.hpp):
// counter_select for each SELECT register a type-4 write covers, with the
// countable it selects remembered; counter_sample for each counter LO register
// a CP_REG_TO_MEM copies (with the countable selected before), and
// always_on_sample for RBBM_ALWAYSON_COUNTER_LO (docs/adreno.md, "Recogniser").
//
// The events go to an `Out` with `template <query_op> query_event& begin(const
// packet&)` (an event to fill: op, offset, packet index and count set, and
// blank every field the op does not set below) and `void done(const
// query_event&)` (hand it on). A counter_select sets counter, countable and
// control; a counter_sample address, sample_dwords, counter, and countable when
// one was selected; an always_on_sample address and sample_dwords. The recogniser
// builds them in its queue, or hands them straight to its caller
// (docs/performance.md, "Adreno recogniser: counter events handed on").
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/counter_index.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/sequences.hpp"

namespace hwpc::adreno {

class counter_events {
 public:
  // A type-4 write: one counter_select per SELECT register it covers.
  // The test of the range comes first (most type-4 writes are not to SELECT
  // registers). Both loops are left to the compiler to inline: with the
  // walker typed on its sink, the calls out of line cost more than they saved
  // (docs/performance.md, "Adreno: the walker knows its sink").
  template <class Out>
  void selects_of(const packet& p, Out& out) {
    const std::uint64_t last = std::uint64_t{p.hdr.id} + p.hdr.count;  // one past
    if (p.hdr.count == 0 || p.hdr.id > last_select_register || last <= first_select_register) {
      return;
    }
    select_events(p, out);
  }

  // CP_REG_TO_MEM: one counter_sample per counter LO register it copies, one
  // always_on_sample for RBBM_ALWAYSON_COUNTER_LO.
  template <class Out>
  void samples_of(const packet& p, Out& out) {
    if (p.hdr.count < 3) return;
    // dword 0: REG bits 17..0, CNT bits 29..18 (max(CNT, 1) dwords copied).
    const std::uint32_t d0 = p.dword(0);
    const std::uint32_t first = d0 & 0x3ffff;
    const std::uint32_t cnt = (d0 >> 18) & 0xfff;
    const std::uint32_t n = cnt == 0 ? 1 : cnt;
    const std::uint64_t last = std::uint64_t{first} + n - 1;
    // Only registers that can hold a counter are looked at, so a copy of 4095
    // registers costs at most ~190 lookups, not 4095.
    const std::uint64_t lo = std::max<std::uint64_t>(first, first_counter_register);
    const std::uint64_t hi = std::min<std::uint64_t>(last, last_counter_register);
    const bool always_on =
        first <= reg::rbbm_alwayson_counter_lo && reg::rbbm_alwayson_counter_lo <= last;
    if (lo > hi && !always_on) return;
    const std::uint64_t dst = p.qword(1);
    // The always-on counter is outside the counter registers: it comes last.
    static_assert(reg::rbbm_alwayson_counter_lo < first_counter_register ||
                  reg::rbbm_alwayson_counter_lo > last_counter_register);
    // The table entries directly (counter_at() without its range test and
    // optional): [lo, hi] lies in the table.
    // Every load first, then the event's stores: the lookups of a counter do
    // not wait behind the stores of the one before.
    for (std::uint64_t r = lo; r <= hi; ++r) {
      const std::size_t i = r - first_counter_register;
      const std::uint16_t e = detail::counter_table[i];
      if (e == 0 || detail::entry_high(e)) continue;
      const std::uint64_t selection = selection_[detail::counter_select_table[i]];
      const counter_group& g = detail::entry_group(e);
      const std::uint32_t c = detail::entry_counter(e);
      const auto k = static_cast<std::uint32_t>(r - first);
      query_event& ev = out.template begin<query_op::counter_sample>(p);
      ev.address = dst + 4ull * k;
      ev.sample_dwords = k + 1 < n ? 2 : 1;
      set_counter(ev, g, c);
      if (selection != 0) ev.countable = static_cast<std::uint32_t>(selection);
      out.done(ev);
    }
    if (always_on) {
      const std::uint32_t k = reg::rbbm_alwayson_counter_lo - first;
      query_event& ev = out.template begin<query_op::always_on_sample>(p);
      ev.address = dst + 4ull * k;
      ev.sample_dwords = k + 1 < n ? 2 : 1;
      out.done(ev);
    }
  }

 private:
  // The counter of an event, field by field: an optional<counter_ref> built
  // on the stack with narrow stores and copied whole was read back with one
  // wide load (a store-forwarding stall, once per event).
  static void set_counter(query_event& ev, const counter_group& g, std::uint32_t c) noexcept {
    counter_ref& to = ev.counter.emplace();
    to.group = &g;
    to.counter = c;
    to.high = false;
  }

  template <class Out>
  void select_events(const packet& p, Out& out) {
    for (std::uint32_t k = 0; k < p.hdr.count; ++k) {
      auto s = select_at(p.hdr.id + k);
      if (!s) continue;
      const std::uint32_t v = p.dword(k);
      query_event& ev = out.template begin<query_op::counter_select>(p);
      set_counter(ev, *s->group, s->counter);
      ev.countable = v;
      ev.control = v;
      selection_[p.hdr.id + k - first_select_register] = selected_bit | v;
      out.done(ev);
    }
  }

  // SELECT register (from first_select_register) -> the countable last
  // written, with selected_bit set; 0 while none was. One array, so that a
  // sample reads what was selected with one load.
  static constexpr std::uint64_t selected_bit = std::uint64_t{1} << 32;
  std::array<std::uint64_t, detail::select_span> selection_{};
};

}  // namespace hwpc::adreno
