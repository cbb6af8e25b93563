// Finds the A5xx query sequences and performance-counter programming in a
// command stream, packet by packet (docs/adreno.md, "Recogniser").
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
// Timestamp pairing: a freedreno end of slot S pairs with the earliest unpaired
// timestamp at S (24-byte slot); any other timestamp at Y pairs with the earliest
// unpaired one at Y - 8 (the seed's 16-byte slot). Pairing uses a map of
// unpaired timestamps: O(log n) per event.
//
// Streaming: the recogniser holds a window of at most 7 packets (the longest
// sequence) and releases events as soon as they are final (release()); only
// events behind a timestamp that may still become a begin are held, at most
// `hold` of them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/counter_index.hpp"
#include "hwpc/adreno/event_queue.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/core/error.hpp"

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

class recogniser {
 public:
  // `hold`: how many events may be held back while the oldest waits for its
  // pairing before it is released as it is (0: hold everything, for callers
  // that take the whole list from events()).
  explicit recogniser(std::size_t hold = 0) : hold_(hold) {}

  // Feeds the next packet of the stream (in execution order). Its payload
  // must stay valid until 7 more packets were fed or finish() was called.
  void push(const packet& p) {
    if (size_ == 0 && needed(p) == 1) {  // decided by itself: not copied into the window
      index_ += recognise_at(std::span<const packet>(&p, 1));
      return;
    }
    if (head_ + size_ == window_.size()) {  // at most window_size - 1 left: move them down
      std::copy_n(window_.begin() + static_cast<std::ptrdiff_t>(head_), size_, window_.begin());
      head_ = 0;
    }
    window_[head_ + size_++] = p;
    while (size_ != 0 && size_ >= needed(window_[head_])) step();
  }
  // Recognises what is left in the window.
  void finish() {
    while (size_ != 0) step();
  }

  // Events recognised and not yet released, in stream order.
  const event_queue<query_event>& events() const noexcept { return events_; }

  // Hands `f` every event that can no longer change, in stream order: the
  // events before the first timestamp that may still become a begin, and,
  // beyond `hold` events held, the oldest as it is. With finish() called
  // first and `all`, everything.
  template <class F>
  void release(F&& f, bool all = false) {
    while (!events_.empty()) {
      if (waiting_.front() && !all && (hold_ == 0 || events_.size() <= hold_)) break;
      if (waiting_.front()) forget_pending(events_.front().address, released_);
      f(events_.front());
      events_.pop_front();
      waiting_.pop_front();
      ++released_;
    }
  }

  static constexpr std::size_t window_size = 7;

 private:
  // Packets needed to decide what starts at `p`: as many as the longest
  // sequence that can start with it, so events come out as soon as their
  // last packet is in.
  static std::size_t needed(const packet& p) noexcept {
    if (p.hdr.type == packet_type::type4) {
      return p.hdr.id == reg::rb_sample_count_control ? 3 : 1;  // occlusion begin
    }
    if (p.hdr.id == op::cp_mem_write && p.hdr.count == 4) return 7;    // occlusion end
    if (p.hdr.id == op::cp_event_write && p.hdr.count >= 3) return 3;  // timestamp [+ wait + M2M]
    return 1;
  }

  void emit(query_event&& ev) {
    bool waiting = false;
    if (ev.op == query_op::timestamp) waiting = pair(ev);
    events_.push_back(std::move(ev));
    waiting_.push_back(waiting ? 1 : 0);
  }

  // A counter event of the packet at the window's front, built in place:
  // counters are most of the events of a stream that programs them.
  query_event& counter_event(const packet& p, query_op o) {
    query_event& ev = events_.emplace_back();
    waiting_.push_back(0);
    ev.op = o;
    ev.offset = p.offset;
    ev.packet_index = index_;
    ev.packet_count = 1;
    return ev;
  }

  // Marks the held event with absolute index `b` as the begin of a slot.
  void mark_begin(std::size_t b, std::size_t slot_size) {
    if (b < released_) return;  // already released unpaired (only past `hold`)
    events_[b - released_].role = timestamp_role::begin;
    events_[b - released_].slot_size = slot_size;
    waiting_[b - released_] = 0;
  }

  // Pairs a timestamp; true when it waits, unpaired, as a possible begin.
  bool pair(query_event& ev) {
    const std::size_t me = released_ + events_.size();
    if (ev.role == timestamp_role::end) {  // freedreno's end: the begin wrote to the slot base
      if (auto b = take_pending(ev.slot)) mark_begin(*b, ev.slot_size);
      return false;
    }
    if (ev.address >= time_elapsed_slot::stop_offset) {
      const std::uint64_t start = ev.address - time_elapsed_slot::stop_offset;
      if (auto b = take_pending(start)) {
        mark_begin(*b, time_elapsed_slot::size);
        ev.role = timestamp_role::end;
        ev.slot = start;
        ev.slot_size = time_elapsed_slot::size;
        return false;
      }
    }
    pending_[ev.address].push_back(me);
    return true;
  }

  std::optional<std::size_t> take_pending(std::uint64_t addr) {
    auto it = pending_.find(addr);
    if (it == pending_.end()) return std::nullopt;
    const std::size_t b = it->second.front();
    it->second.pop_front();
    if (it->second.empty()) pending_.erase(it);
    return b;
  }

  // A waiting event is released unpaired: it can no longer be a begin.
  void forget_pending(std::uint64_t addr, std::size_t index) {
    auto it = pending_.find(addr);
    if (it == pending_.end() || it->second.front() != index) return;
    it->second.pop_front();
    if (it->second.empty()) pending_.erase(it);
  }

  // A type-4 write: one counter_select per SELECT register it covers.
  void selects_of(const packet& p) {
    const std::uint64_t last = std::uint64_t{p.hdr.id} + p.hdr.count;  // one past
    if (p.hdr.count == 0 || p.hdr.id > last_select_register || last <= first_select_register) {
      return;
    }
    for (std::uint32_t k = 0; k < p.hdr.count; ++k) {
      auto s = select_at(p.hdr.id + k);
      if (!s) continue;
      const std::uint32_t v = p.dword(k);
      query_event& ev = counter_event(p, query_op::counter_select);
      ev.counter = s;
      ev.countable = v;
      ev.control = v;
      selected_[p.hdr.id + k - first_select_register] = v;
      is_selected_[p.hdr.id + k - first_select_register] = true;
    }
  }

  // CP_REG_TO_MEM: one counter_sample per counter LO register it copies, one
  // always_on_sample for RBBM_ALWAYSON_COUNTER_LO.
  void samples_of(const packet& p) {
    if (p.hdr.count < 3) return;
    // dword 0: REG bits 17..0, CNT bits 29..18 (max(CNT, 1) dwords copied).
    const std::uint32_t first = p.dword(0) & 0x3ffff;
    const std::uint32_t cnt = (p.dword(0) >> 18) & 0xfff;
    const std::uint32_t n = cnt == 0 ? 1 : cnt;
    const std::uint64_t dst = p.qword(1);
    const auto visit = [&](std::uint32_t k) {
      const std::uint32_t r = first + k;
      if (r == reg::rbbm_alwayson_counter_lo) {
        query_event& ev = counter_event(p, query_op::always_on_sample);
        ev.address = dst + 4ull * k;
        ev.sample_dwords = k + 1 < n ? 2 : 1;
      } else if (auto c = counter_at(r); c && !c->high) {
        query_event& ev = counter_event(p, query_op::counter_sample);
        ev.address = dst + 4ull * k;
        ev.sample_dwords = k + 1 < n ? 2 : 1;
        ev.counter = c;
        const std::uint32_t sel = c->group->select_reg(c->counter) - first_select_register;
        if (is_selected_[sel]) ev.countable = selected_[sel];
      }
    };
    // Only registers that can hold a counter are looked at, so a copy of 4095
    // registers costs at most ~190 lookups, not 4095.
    const std::uint64_t last = std::uint64_t{first} + n - 1;
    const std::uint64_t lo = std::max<std::uint64_t>(first, first_counter_register);
    const std::uint64_t hi = std::min<std::uint64_t>(last, last_counter_register);
    for (std::uint64_t r = lo; r <= hi; ++r) visit(static_cast<std::uint32_t>(r - first));
    if (first <= reg::rbbm_alwayson_counter_lo && reg::rbbm_alwayson_counter_lo <= last) {
      visit(reg::rbbm_alwayson_counter_lo - first);
    }
  }

  // The first packet of the window decides which sequence is tried: no event
  // is built before one matched, and a packet that starts nothing (CP_NOP,
  // CP_WAIT_FOR_IDLE, IB calls, ...: most of a command stream) costs only
  // the test of its header.
  void step() {
    const std::size_t used = recognise_at(std::span<const packet>(window_.data() + head_, size_));
    head_ += used;
    size_ -= used;
    index_ += used;
  }

  // Recognises what starts at p[0] (p: the window, or the packet alone when
  // it needs no more); returns the packets used.
  std::size_t recognise_at(std::span<const packet> p) {
    const packet& f = p[0];
    std::size_t used = 1;
    if (f.hdr.type == packet_type::type4) {
      if (detail::is_sample_setup(p, 0)) {
        query_event ev = start_event(f);
        ev.op = query_op::occlusion_begin;
        ev.packet_count = used = 3;
        ev.address = p[1].qword(0);
        ev.slot = ev.address;
        ev.control = f.dword(0);
        emit(std::move(ev));
      } else {
        selects_of(f);
      }
    } else {
      switch (f.hdr.id) {
        case op::cp_mem_write: {
          query_event ev = start_event(f);
          if (detail::try_occlusion_end(p, 0, ev)) {
            used = ev.packet_count;
            emit(std::move(ev));
          }
          break;
        }
        case op::cp_event_write: {
          query_event ev = start_event(f);
          if (detail::try_timestamp(p, 0, ev)) {
            used = ev.packet_count;
            emit(std::move(ev));
          }
          break;
        }
        case op::cp_mem_to_mem:
          if (auto m = detail::m2m_at(p, 0)) {
            query_event ev = start_event(f);
            ev.op = query_op::mem_to_mem;
            ev.packet_count = 1;
            ev.address = m->dst;
            ev.slot = m->dst;
            ev.accumulate = m;
            emit(std::move(ev));
          }
          break;
        case op::cp_reg_to_mem:
          samples_of(f);
          break;
        default:
          break;
      }
    }
    return used;
  }

  query_event start_event(const packet& f) const {
    query_event ev;
    ev.offset = f.offset;
    ev.packet_index = index_;
    return ev;
  }

  // The window: packets [head_, head_ + size_) of a buffer that is moved down
  // only when full, so no packet is erased from the front one by one.
  std::array<packet, 4 * window_size> window_{};
  std::size_t head_ = 0, size_ = 0;
  std::size_t index_ = 0;
  std::size_t hold_ = 0;
  event_queue<query_event> events_;
  event_queue<std::uint8_t>
      waiting_;               // per held event: 1 for a timestamp that may still become a begin
  std::size_t released_ = 0;  // events released so far (absolute index of events_.front())
  std::map<std::uint64_t, std::deque<std::size_t>> pending_;  // unpaired timestamps by address
  // SELECT register (from first_select_register) -> the countable last written.
  std::array<std::uint32_t, detail::select_span> selected_{};
  std::array<bool, detail::select_span> is_selected_{};
};

// Every recognised sequence of a packet list, in stream order.
inline std::vector<query_event> recognise(std::span<const packet> p) {
  recogniser r;
  for (const packet& x : p) r.push(x);
  r.finish();
  std::vector<query_event> out;
  r.release([&](const query_event& e) { out.push_back(e); }, true);
  return out;
}

inline result<std::vector<query_event>> recognise(byte_span stream) {
  recogniser r;
  packet_cursor c(stream);
  while (!c.done()) {
    auto p = c.next();
    if (!p) return p.error_value();
    r.push(*p);
  }
  r.finish();
  std::vector<query_event> out;
  r.release([&](const query_event& e) { out.push_back(e); }, true);
  return out;
}

}  // namespace hwpc::adreno
