// Finds the A5xx query sequences (sequences.hpp) and performance-counter
// programming in a command stream, packet by packet (docs/adreno.md,
// "Recogniser").
//
// Timestamp pairing: a freedreno end of slot S pairs with the earliest unpaired
// timestamp at S (24-byte slot); any other timestamp at Y pairs with the earliest
// unpaired one at Y - 8 (the seed's 16-byte slot). Pairing uses a map of
// unpaired timestamps: O(log n) per event.
//
// Streaming: the recogniser holds a window of at most 7 packets (the longest
// sequence) and releases events as soon as they are final (release()); only
// events behind a timestamp that may still become a begin are held, at most
// `hold` of them.
//
// Cost (docs/performance.md, "Mali and Adreno"): a packet that needs no
// packet after it to be decided is recognised where it stands, without being
// copied into the window; the window is a buffer moved down only when full;
// an event is built only once its sequence matched, and held in a ring
// (event_queue) rather than a deque; SELECT and counter registers are looked
// up in tables indexed by register (counter_index.hpp). A packet that starts
// no sequence of several packets is decided by its header in push() itself;
// push(p, f), for a caller that releases after every packet, hands counter
// events to `f` as they are found while nothing is held, instead of
// building them in the queue and releasing them from it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/counter_events.hpp"
#include "hwpc/adreno/counter_index.hpp"
#include "hwpc/adreno/event_queue.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/sequences.hpp"
#include "hwpc/adreno/walk_sink.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

class recogniser {
 public:
  // `hold`: how many events may be held back while the oldest waits for its
  // pairing before it is released as it is (0: hold everything, for callers
  // that take the whole list from events()).
  explicit recogniser(std::size_t hold = 0) : hold_(hold) {}

  // Feeds the next packet of the stream (in execution order). Its payload
  // must stay valid until 7 more packets were fed or finish() was called.
  void push(const packet& p) {
    if (size_ == 0) {
      // Most packets start no sequence of several packets: they are decided
      // where they stand, by their header, without being copied into the
      // window or passing through recognise_at() (what it would do with the
      // packet alone, inline: this runs for every packet of the stream).
      if (p.hdr.type == packet_type::type4) {
        if (p.hdr.id != reg::rb_sample_count_control) {
          queued q{*this};
          counters_.selects_of(p, q);
          ++index_;
          return;
        }
      } else {
        switch (p.hdr.id) {
          case op::cp_reg_to_mem: {
            queued q{*this};
            counters_.samples_of(p, q);
            ++index_;
            return;
          }
          case op::cp_mem_write:
          case op::cp_event_write:
            if (needed(p) != 1) break;
            ++index_;  // alone, neither starts a sequence
            return;
          case op::cp_mem_to_mem:
            index_ += recognise_at(std::span<const packet>(&p, 1));
            return;
          default:
            ++index_;
            return;
        }
      }
    }
    if (head_ + size_ == window_.size()) {  // at most window_size - 1 left: move them down
      std::copy_n(window_.begin() + static_cast<std::ptrdiff_t>(head_), size_, window_.begin());
      head_ = 0;
    }
    window_[head_ + size_++] = p;
    while (size_ != 0 && size_ >= needed(window_[head_])) step();
  }
  // Where push(p, f) fills the counter events it hands straight to `f`
  // (docs/performance.md, "Adreno: counter events the compiler can see").
  enum class hand_on {
    // An event of the call's own, a copy of a blank one: with an `f` the
    // compiler inlines, the event never reaches memory and the fields `f`
    // does not read are never written.
    local_event,
    // One event the recogniser keeps, only the fields of each op written:
    // cheaper for an `f` called out of line, which reads the event from
    // memory anyway (the copy of a whole event would come on top).
    kept_event,
  };

  // push(p) then release(f): the same events, in the same order, to `f`.
  // While nothing is held, a counter select or sample (most of the events of
  // a stream that programs counters, and never held) goes to `f` as it is
  // recognised, filled as `H` says, instead of being built in the queue and
  // released from it. For callers with nothing to do between the two calls.
  template <hand_on H = hand_on::local_event, class F>
  void push(const packet& p, F&& f) {
    if (size_ == 0 && events_.empty()) {
      if (p.hdr.type == packet_type::type4) {
        if (p.hdr.id != reg::rb_sample_count_control) {
          direct<F, H> d(*this, f);
          counters_.selects_of(p, d);
          ++index_;
          return;
        }
      } else {
        switch (p.hdr.id) {
          case op::cp_reg_to_mem: {
            direct<F, H> d(*this, f);
            counters_.samples_of(p, d);
            ++index_;
            return;
          }
          case op::cp_mem_write:
          case op::cp_event_write:
          case op::cp_mem_to_mem:
            break;  // may start a sequence, or make an event that is held
          default:
            ++index_;  // starts nothing: no event, nothing to release
            return;
        }
      }
    }
    push_and_release(p, f);
  }

  // Out of line, so that the common path of push(p, f), inlined into the
  // caller's per-packet function, stays a few tests of the header.
  template <class F>
  __attribute__((noinline)) void push_and_release(const packet& p, F& f) {
    push(p);
    release(f);
  }

  // The packets that may make an event or start a sequence while the window
  // is empty (walk_sink.hpp): a sink may let the walker skip every other
  // packet while window_packets() is 0, and count them with skip().
  static constexpr packet_interest interest = [] {
    packet_interest i;
    i.want_op(op::cp_reg_to_mem);
    i.want_op(op::cp_mem_write);
    i.want_op(op::cp_event_write);
    i.want_op(op::cp_mem_to_mem);
    i.cover_first = first_select_register;
    i.cover_last = last_select_register;
    i.start_first = i.start_last = reg::rb_sample_count_control;
    return i;
  }();
  // `n` packets outside `interest` passed while the window was empty: what
  // push() does with them (they make no event, so nothing is released).
  void skip(std::uint64_t n) noexcept { index_ += static_cast<std::size_t>(n); }

  // Packets in the window, whose payloads are still read.
  std::size_t window_packets() const noexcept { return size_; }
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

  // Where counters_ puts a counter event (counter_events.hpp): begin() gives
  // the event to fill (op, offset, index and packet count set; every other
  // field as a blank event has it), done() hands it on.
  //
  // queued: built in place in the queue (counters are most of the events of
  // a stream that programs them), released later.
  struct queued {
    recogniser& r;
    template <query_op O>
    query_event& begin(const packet& p) {
      query_event& ev = r.events_.emplace_back();
      r.waiting_.emplace_back() = 0;
      ev.op = O;
      ev.offset = p.offset;
      ev.packet_index = r.index_;
      ev.packet_count = 1;
      return ev;
    }
    void done(const query_event&) noexcept {}
  };
  // direct: nothing is held, so the event would be released at once: it goes
  // to `f` from one event filled in place (hand_on says where it lives).
  // Only the fields its op does not set are blanked (counter_events.hpp says
  // which it sets): a stream that programs counters makes two events per
  // counter, and their stores were a large part of recognising them. The
  // rest (packet_count 1, no slot, no accumulate...) keep the values of
  // `blank_`, the event both start from.
  struct no_event {};
  template <class F, hand_on H>
  struct direct {
    static constexpr bool local = H == hand_on::local_event;
    recogniser& r;
    F& f;
    // Copied from a member, not made (nor copied from a constant): GCC clears
    // a query_event it knows to be mostly zeros with `rep stos`, whose start
    // costs more than a copy of the event's 176 bytes in vector moves.
    [[no_unique_address]] std::conditional_t<local, query_event, no_event> own;

    direct(recogniser& rec, F& fn) : r(rec), f(fn), own(own_of(rec)) {}
    static auto own_of(const recogniser& rec) {
      if constexpr (local) {
        return query_event(rec.blank_);
      } else {
        return no_event{};
      }
    }
    query_event& event() noexcept {
      if constexpr (local) {
        return own;
      } else {
        return r.kept_;
      }
    }

    template <query_op O>
    query_event& begin(const packet& p) {
      static_assert(O == query_op::counter_select || O == query_op::counter_sample ||
                    O == query_op::always_on_sample);
      query_event& ev = event();
      ev.op = O;
      ev.offset = p.offset;
      ev.packet_index = r.index_;
      if constexpr (O == query_op::counter_select) {
        ev.address = 0;
        ev.sample_dwords = 0;
      } else {
        ev.control = 0;
        ev.countable.reset();
        if constexpr (O == query_op::always_on_sample) ev.counter.reset();
      }
      return ev;
    }
    void done(const query_event& ev) {
      f(ev);
      ++r.released_;
    }
  };

  static query_event one_packet_event() noexcept {
    query_event e;
    e.packet_count = 1;
    return e;
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

  // Recognises what starts at the front of the window and drops its packets.
  void step() {
    const std::size_t used = recognise_at(std::span<const packet>(window_.data() + head_, size_));
    head_ += used;
    size_ -= used;
    index_ += used;
  }

  // Recognises what starts at p[0] (p: the window, or the packet alone when
  // it needs no more); returns the packets used. The first packet decides
  // which sequence is tried: no event is built before one matched, and a
  // packet that starts nothing (CP_NOP, CP_WAIT_FOR_IDLE, IB calls, ...: most
  // of a command stream) costs only the test of its header.
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
        queued q{*this};
        counters_.selects_of(f, q);
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
        case op::cp_reg_to_mem: {
          queued q{*this};
          counters_.samples_of(f, q);
          break;
        }
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
  // The counter events push(p, f) hands on directly: the blank they start
  // from, and the one kept_event fills.
  query_event blank_ = one_packet_event();
  query_event kept_ = one_packet_event();
  counter_events counters_;  // the countables selected so far
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
