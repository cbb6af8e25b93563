// What A6XX and A7XX command streams do with queries and performance
// counters, recognised packet by packet: counter programming and sampling
// (per generation, and per CP_THREAD_CONTROL thread on A7XX), timestamps from
// the always-on counter, sample counts (occlusion), pipeline-statistics and
// stream-out counts, each with the address it is written to
// (docs/adreno.md, "Generations").
//
// Sources: FACTS-adreno6 sections 2.3 (payloads), 4 (the registers and events
// both freedreno drivers use) and 5 (counters). Each rule is one packet (and
// for sample and stream-out counts the address register written before it),
// so it holds for gallium's and turnip's sequences alike; the values are
// those the GPU writes later, not in the command stream.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "hwpc/adreno/generation_names.hpp"
#include "hwpc/adreno/walk.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno {

struct query6_event {
  enum class kind : std::uint8_t {
    counter_select,  // `group`/`counter` now counts `value` (a countable)
    counter_sample,  // `group`/`counter` copied to `address`
    timestamp,       // the always-on counter (19.2 MHz) written to `address`
    sample_count,    // the samples-passed count written to `address`
    pipeline_stats,  // RBBM_PIPESTAT pairs `value` .. `value + count - 1` to `address`
    stream_out,      // four {written, generated} pairs of u64 to `address`
  };
  kind what = kind::timestamp;
  std::size_t offset = 0;  // the packet's byte offset
  const counter_group* group = nullptr;
  std::uint32_t counter = 0;
  std::uint32_t value = 0;
  std::uint32_t count = 0;
  std::uint64_t address = 0;
  cp_thread thread = cp_thread::both;
  // A timestamp written by an event (gallium), not copied from the register
  // (turnip): only those pair into time-elapsed results (rows6.hpp).
  bool event_write = false;
};

class recogniser6 {
 public:
  explicit recogniser6(generation g) noexcept : gen_(g) {
    for (const counter_group& c : counter_groups(g)) {
      const register_range r = c.select_registers();
      if (r.first > r.last) continue;
      select_first_ = std::min(select_first_, r.first);
      select_last_ = std::max(select_last_, r.last);
    }
  }

  // The packets push() looks at (walk_sink.hpp): every register write (a
  // SELECT or a query base), and the type-7 packets of its switch. A sink may
  // let the walker skip the others: push() does nothing with them.
  static constexpr packet_interest interest = [] {
    packet_interest i;
    i.all_type4 = true;
    i.want_op(op::cp_thread_control);
    i.want_op(op::cp_reg_write);
    i.want_op(op::cp_reg_to_mem);
    i.want_op(op::cp_reg_to_mem_offset_reg);
    i.want_op(op::cp_reg_to_mem_offset_mem);
    i.want_op(op::cp_event_write);
    return i;
  }();

  // Calls on_event(const query6_event&) for every event packet `w` makes.
  template <class OnEvent>
  void push(const packet& p, OnEvent&& on_event) {
    if (gen_ != generation::a6xx && gen_ != generation::a7xx) return;
    if (p.hdr.type == packet_type::type4) {
      for (std::uint32_t i = 0; i < p.hdr.count; ++i) write(p, p.hdr.id + i, p.dword(i), on_event);
      return;
    }
    const std::uint32_t n = p.hdr.count;
    switch (p.hdr.id) {
      case op::cp_thread_control:
        if (gen_ == generation::a7xx && n >= 1 && (p.dword(0) & 3) != 0) {
          thread_ = static_cast<cp_thread>(p.dword(0) & 3);
        }
        return;
      case op::cp_reg_write:  // A6XX only: dw1 register, dw2 value
        if (gen_ == generation::a6xx && n >= 3) write(p, p.dword(1) & 0xffff, p.dword(2), on_event);
        return;
      case op::cp_reg_to_mem:
      case op::cp_reg_to_mem_offset_reg:
      case op::cp_reg_to_mem_offset_mem:
        if (n >= 3) reg_to_mem(p, on_event);
        return;
      case op::cp_event_write:
        if (n >= 1) event(p, on_event);
        return;
      default:
        return;
    }
  }

 private:
  static constexpr std::uint32_t zpass_done = 0x15, rb_done_ts = 0x16,
                                 write_primitive_counts = 0x09;

  template <class OnEvent>
  void write(const packet& p, std::uint32_t reg, std::uint32_t v, OnEvent& on_event) {
    // Most register writes are no SELECT: the range of all of them first,
    // rather than find_select()'s search of every group.
    if (reg < select_first_ || reg > select_last_) {
      set_half(sample_base_, reg, reg6::rb_sample_counter_base_lo, v);
      set_half(so_base_, reg, reg6::vpc_so_query_base_lo, v);
      return;
    }
    if (auto s = find_select(gen_, reg, thread_)) {
      query6_event e;
      e.what = query6_event::kind::counter_select;
      e.offset = p.offset;
      e.group = s->group;
      e.counter = s->counter;
      e.value = v;
      e.thread = thread_;
      on_event(e);
      return;
    }
    set_half(sample_base_, reg, reg6::rb_sample_counter_base_lo, v);
    set_half(so_base_, reg, reg6::vpc_so_query_base_lo, v);
  }

  // A 64-bit address written as LO then HI (or HI alone, keeping LO).
  static void set_half(std::optional<std::uint64_t>& a, std::uint32_t reg, std::uint32_t lo,
                       std::uint32_t v) {
    if (reg == lo) a = (a.value_or(0) & ~0xffffffffull) | v;
    if (reg == lo + 1) a = (a.value_or(0) & 0xffffffffull) | (std::uint64_t{v} << 32);
  }

  template <class OnEvent>
  void reg_to_mem(const packet& p, OnEvent& on_event) {
    const std::uint32_t d0 = p.dword(0), reg = d0 & 0x3ffff;
    const std::uint32_t cnt = (d0 >> 18) & 0xfff;
    // dwords copied: max(CNT, 1), and a 64-bit pair for 64B with CNT 0 (turnip).
    const std::uint32_t dwords = cnt == 0 ? ((d0 & (1u << 30)) ? 2 : 1) : cnt;
    query6_event e;
    e.offset = p.offset;
    e.address = p.qword(1);
    e.thread = thread_;
    if (reg == reg6::cp_always_on_counter_lo) {
      e.what = query6_event::kind::timestamp;
      on_event(e);
      return;
    }
    if (reg >= reg6::rbbm_pipestat_first && reg < reg6::rbbm_pipestat_first + 22 &&
        (reg - reg6::rbbm_pipestat_first) % 2 == 0) {
      e.what = query6_event::kind::pipeline_stats;
      e.value = (reg - reg6::rbbm_pipestat_first) / 2;
      e.count = std::min<std::uint32_t>((dwords + 1) / 2, 11 - e.value);
      on_event(e);
      return;
    }
    // Counter LO registers, one 64-bit pair after the other.
    for (std::uint32_t k = 0; 2 * k < dwords && k < 64; ++k) {
      const auto c = find_counter(gen_, reg + 2 * k);
      if (!c || c->high) break;
      e.what = query6_event::kind::counter_sample;
      e.group = c->group;
      e.counter = c->counter;
      e.address = p.qword(1) + 8 * k;
      on_event(e);
    }
  }

  template <class OnEvent>
  void event(const packet& p, OnEvent& on_event) {
    const std::uint32_t d0 = p.dword(0), ev = d0 & 0xff;
    query6_event e;
    e.offset = p.offset;
    e.thread = thread_;
    const bool a7 = gen_ == generation::a7xx;
    if (ev == zpass_done) {
      e.what = query6_event::kind::sample_count;
      if (a7 && (d0 & (1u << 12)) != 0 && p.hdr.count >= 3 && ((d0 >> 24) & 1) == 0) {
        // CP_EVENT_WRITE7 WRITE_SAMPLE_COUNT: to the address, or +16 with END_OFFSET.
        e.address = p.qword(1) + ((d0 & (1u << 13)) != 0 ? 16 : 0);
        on_event(e);
      } else if (sample_base_) {
        e.address = *sample_base_;
        on_event(e);
      }
      return;
    }
    if (ev == write_primitive_counts && so_base_) {
      e.what = query6_event::kind::stream_out;
      e.address = *so_base_;
      on_event(e);
      return;
    }
    if (ev != rb_done_ts || p.hdr.count < 3) return;
    const bool stamped = a7 ? ((d0 >> 20) & 7) == 3 && ((d0 >> 24) & 1) == 0
                            : (d0 & (1u << 30)) != 0;  // A6XX TIMESTAMP bit
    if (!stamped) return;
    e.what = query6_event::kind::timestamp;
    e.address = p.qword(1);
    e.event_write = true;
    on_event(e);
  }

  generation gen_;
  cp_thread thread_ = cp_thread::both;
  // Every SELECT register of the generation lies in [select_first_, select_last_].
  std::uint32_t select_first_ = ~0u, select_last_ = 0;
  std::optional<std::uint64_t> sample_base_, so_base_;
};

// One line per event: what it does and where its value goes.
inline std::string describe(generation g, const query6_event& e) {
  using k = query6_event::kind;
  const std::string to = " -> " + to_hex(e.address);
  switch (e.what) {
    case k::counter_select: {
      const std::string_view name = e.group->countable(e.value);
      std::string s = std::string(e.group->name) + " counter " + std::to_string(e.counter) +
                      " selects countable " + std::to_string(e.value);
      if (!name.empty()) s += " (" + std::string(name) + ")";
      if (g == generation::a7xx) {
        s += e.thread == cp_thread::bv ? " [BV]" : e.thread == cp_thread::br ? " [BR]" : " [BR+BV]";
      }
      return "counter select: " + s;
    }
    case k::counter_sample:
      return "counter sample: " + std::string(e.group->name) + " counter " +
             std::to_string(e.counter) + to;
    case k::timestamp:
      return "timestamp (always-on counter, 19.2 MHz)" + to;
    case k::sample_count:
      return "sample count (occlusion)" + to;
    case k::pipeline_stats:
      return "pipeline statistics " + std::string(reg6::pipestat_names[e.value]) +
             (e.count > 1 ? ".." + std::string(reg6::pipestat_names[e.value + e.count - 1]) : "") +
             to;
    case k::stream_out:
      return "stream-out counts (4 streams x {written, generated})" + to;
  }
  return {};
}

}  // namespace hwpc::adreno
