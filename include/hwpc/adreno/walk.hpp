// Walks a command stream as the CP would: packet by packet, into indirect
// buffers (CP_INDIRECT_BUFFER and its A5xx variants) through an address space,
// recovering from bad data instead of stopping (docs/adreno.md, "Walking").
//
// Streaming: packets go to a sink as they are found; the walker holds only a
// stack of at most max_depth frames, whatever the input size.
//
// Recovery: a run of zero dwords is padding (counted, not an error). A bad
// header, or a packet running past the end of its buffer, is an issue at the
// offending header's byte offset; the walker then skips dword by dword to the
// next zero dword or plausible header (valid parity, payload fits), and
// reports the run once with the number of bytes skipped.
//
// Guards: recursion depth (max_depth), IB cycles (a target already on the
// call stack), chains (max_chain per level), and a total budget of dwords
// (max_dwords), so a hostile capture whose IBs call each other repeatedly
// stays bounded in time.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/flat_walk.hpp"
#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/ib.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/walk_queue.hpp"
#include "hwpc/adreno/walk_sink.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno {

// `Sink` is walk_sink, or a class derived from it: a final one has its
// on_packet() called directly, without a virtual call per packet
// (docs/performance.md, "Adreno: the walker knows its sink").
template <class Sink>
class basic_walker {
 public:
  // `space` may be null (flat input): IB packets are then reported as notes.
  basic_walker(Sink& sink, const rd::address_space* space, walk_options opt = {})
      : sink_(sink), space_(space), opt_(opt), limit_(budget()) {}

  // The walk's counts, whole once walk() or walk_ib() returned. A sink's
  // callback sees them lag: the plain loop keeps its counts in registers and
  // stores them when it stops (it stored them before every packet handed on,
  // and those stores were a large part of the walk).
  const walk_stats& stats() const noexcept { return stats_; }

  // The generation whose packet meanings the walk follows. Unknown (the
  // default) keeps the A5xx walk: only CP_INDIRECT_BUFFER, _PFD and _CHAIN
  // are calls everywhere; 0x3a is CP_COND_INDIRECT_BUFFER_PFE on A5XX only
  // (CP_CCHE_INVALIDATE on A7XX, nothing on A6XX).
  void set_generation(generation g) noexcept { gen_ = g; }
  generation gen() const noexcept { return gen_; }

  // The size of the whole input, for the default budget (walk() sets it from
  // its buffer when it was not set).
  void set_input_bytes(std::size_t n) noexcept {
    input_bytes_ = n;
    limit_ = budget();
  }
  std::uint64_t budget() const noexcept {
    return opt_.max_dwords != 0 ? opt_.max_dwords
                                : (std::uint64_t{1} << 26) + 16 * std::uint64_t{input_bytes_ / 4};
  }

  // Walks `data`, which sits at byte `file_offset` of the input and at GPU
  // address `gpu_addr`.
  void walk(byte_span data, std::size_t file_offset, std::uint64_t gpu_addr) {
    if (input_bytes_ == 0) set_input_bytes(data.size());
    stack_.clear();
    pending_.clear();
    stack_.push_back(frame{data, file_offset, gpu_addr, 0, 0});
    run();
  }

  // Walks the command buffer an RD_CMDSTREAM_ADDR names (`at`: its section offset).
  void walk_ib(ib_target t, std::size_t at) {
    stack_.clear();
    pending_.clear();
    push_ib(t, at, 0);
    run();
  }

 private:
  struct frame {
    byte_span data;
    std::size_t file_base;
    std::uint64_t gpu_base;
    std::size_t pos;
    unsigned chain_hops;
    int group = -1;
  };

  void issue(errc code, std::size_t offset, std::string msg) {
    report(make_error(code, offset, std::move(msg)));
  }
  void report(const error& e) {
    ++stats_.issues;
    sink_.on_issue(e);
  }

  // Pushes the IB `t` called by the packet at file offset `at`; false when not followed.
  bool push_ib(ib_target t, std::size_t at, unsigned chain_hops, int group = -1) {
    if (stats_.budget_exhausted) return false;
    if (space_ == nullptr) {
      sink_.on_note(make_error(
          errc::unknown_format, at,
          "IB to " + to_hex(t.address) + " not followed: the input has no GPU address space"));
      return false;
    }
    if (stack_.size() >= opt_.max_depth) {
      issue(errc::oversized, at,
            "IB to " + to_hex(t.address) + " not followed: nesting deeper than " +
                std::to_string(opt_.max_depth));
      return false;
    }
    for (const frame& f : stack_) {
      if (f.gpu_base == t.address) {
        issue(errc::inconsistent, at,
              "IB to " + to_hex(t.address) + " not followed: it is already being executed (cycle)");
        return false;
      }
    }
    if (t.dwords == 0) return false;
    const std::uint64_t want = std::uint64_t{t.dwords} * 4;
    auto loc = space_->find(t.address, want);
    if (!loc) {
      // Normal in real captures (FACTS-adreno6 section 6.3): the stream is
      // partial there, and the walk goes on after the packet.
      issue(errc::out_of_range, at,
            "missing command stream: " + to_hex(t.address) + " (" + std::to_string(t.dwords) +
                " dwords) is in no dumped buffer");
      return false;
    }
    if (loc->bytes.size() < want) {
      issue(errc::truncated, at,
            "IB to " + to_hex(t.address) + " needs " + std::to_string(want) +
                " bytes, the dump has " + std::to_string(loc->bytes.size()));
    }
    ++stats_.ibs_followed;
    const int inherited = stack_.empty() ? -1 : stack_.back().group;
    stack_.push_back(frame{loc->bytes, loc->file_offset, t.address, 0, chain_hops,
                           group >= 0 ? group : inherited});
    return true;
  }

  // Handles an IB packet: calls it, chains to it, or says why not.
  void follow(const packet& p) {
    if (p.hdr.id == op::cp_cond_indirect_buffer_pfe) {
      sink_.on_note(make_error(errc::unknown_format, p.offset,
                               "CP_COND_INDIRECT_BUFFER_PFE not followed (payload layout not "
                               "documented in the sources)"));
      return;
    }
    auto t = decode_ib(p);
    if (!t) {
      report(t.error_value());
      return;
    }
    if (space_ == nullptr) {
      sink_.on_note(make_error(
          errc::unknown_format, p.offset,
          "IB to " + to_hex(t->address) + " not followed: the input has no GPU address space"));
      return;
    }
    if (p.hdr.id == op::cp_indirect_buffer_chain) {
      // A6XX+: a chain inside a draw-state buffer does not work (F6 section 2.3);
      // it is followed all the same, the guards bound it.
      // A chain ends the current IB and continues in the target at the same level.
      frame cur = stack_.back();
      if (cur.chain_hops + 1 > opt_.max_chain) {
        issue(errc::oversized, p.offset,
              "IB chain longer than " + std::to_string(opt_.max_chain) + " hops not followed");
        stack_.back().pos = cur.data.size();
        return;
      }
      stack_.pop_back();
      if (!push_ib(*t, p.offset, cur.chain_hops + 1)) {
        // Not followed: the level ends here, as it would after the chain.
        cur.pos = cur.data.size();
        stack_.push_back(cur);
      }
      return;
    }
    push_ib(*t, p.offset, 0);
  }

  // Enters the next queued buffer of the top frame; false when none is queued.
  bool enter_pending() {
    if (pending_.empty() || pending_.back().level + 1 != stack_.size()) return false;
    queued_buffers& q = pending_.back();
    const ib_target t{q.address, q.dwords};
    const std::size_t at = q.at;
    const int group = q.group;
    const char* const what = q.what;
    q.address += q.stride;
    const std::uint64_t left = --q.count;
    if (left == 0) pending_.pop_back();
    // Entering a buffer costs a dword of the budget, so that a bin count of
    // 2^32 over missing buffers stays bounded too.
    if (!spend(1, at)) {
      pending_.clear();
      return true;
    }
    // A bin prefix or draw-table entry not followed (no address space,
    // missing, too deep, a cycle) says so once for the rest of its packet's:
    // they sit at the same stride in the same buffer, or in none.
    const auto drop_other_bins = [&] {
      if (left == 0) return;
      pending_.pop_back();
      sink_.on_note(make_error(errc::unknown_format, at,
                               "the other " + std::to_string(left) + " " + std::string(what) +
                                   " buffers of this packet not followed"));
    };
    if (space_ == nullptr) {
      sink_.on_note(make_error(
          errc::unknown_format, at,
          (group >= 0 ? "draw-state group " + std::to_string(group) : std::string(what)) + " at " +
              to_hex(t.address) + " not followed: the input has no GPU address space"));
      drop_other_bins();
      return true;
    }
    if (!push_ib(t, at, 0, group)) drop_other_bins();
    return true;
  }

  // Counts `dwords` executed; false once the budget is spent. The check is
  // inline and the issue out of line: it runs twice per packet.
  bool spend(std::uint64_t dwords, std::size_t at) {
    stats_.dwords += dwords;
    if (stats_.dwords <= limit_) [[likely]] {
      return true;
    }
    return over_budget(at);
  }

  bool over_budget(std::size_t at) {
    if (!stats_.budget_exhausted) {
      stats_.budget_exhausted = true;
      issue(errc::oversized, at,
            "walk stopped: more than " + std::to_string(budget()) +
                " dwords executed (IBs calling each other repeatedly?)");
    }
    return false;
  }

  // Hands on `w`, or counts it as skipped when the sink does not want it.
  void hand_on(const walked_packet& w) {
    const packet_interest* in = sink_.interest();
    if (in == nullptr || in->wants(w.pkt.hdr)) {
      sink_.on_packet(w);
    } else {
      sink_.add_skipped();
    }
  }

  // The common case, in a loop of its own with the frame's position in a
  // register: padding and well-formed packets the walk does not act on, in
  // the top frame, until anything else (the end of the frame, a bad header,
  // a packet past the end, a special opcode), which run() then handles as
  // before. Only called outside a resynchronisation run. False when the
  // budget ran out (run() then stops).
  bool run_plain() {
    frame& f = stack_.back();
    const std::byte* const data = f.data.data();
    const std::size_t size = f.data.size();
    const std::size_t file_base = f.file_base;
    const std::uint64_t gpu_base = f.gpu_base;
    const int group = f.group;
    const auto depth = static_cast<unsigned>(stack_.size() - 1);
    const bool a6 = gen_ == generation::a6xx || gen_ == generation::a7xx;
    const std::array<std::uint64_t, 2>& special =
        a6 ? detail::walk_special_a6 : detail::walk_special_a5;
    // The counts in registers, stored back when the loop stops (stats()).
    std::size_t pos = f.pos;
    std::uint64_t dwords = stats_.dwords, packets = stats_.packets, padding = stats_.padding_dwords;
    std::uint64_t skipped = 0;
    const std::uint64_t limit = limit_;
    const packet_interest* in = sink_.interest();
    const auto store = [&] {
      stats_.dwords = dwords;
      stats_.packets = packets;
      stats_.padding_dwords = padding;
      sink_.add_skipped(skipped);
      skipped = 0;
    };
    bool ok = true;
    while (size - pos >= 4) {
      const std::uint32_t dw = load_le32(data + pos);
      if (dw == 0) {
        if (++dwords > limit) [[unlikely]] {
          store();
          ok = over_budget(file_base + pos);
          break;
        }
        ++padding;
        pos += 4;
        continue;
      }
      header h;
      if (!header_ok(dw, h)) break;  // run() says what is wrong with it
      const std::size_t need = std::size_t{h.count} * 4;
      if (need > size - pos - 4) break;
      if (h.type == packet_type::type7 && ((special[h.id >> 6] >> (h.id & 63)) & 1)) break;
      dwords += std::uint64_t{1} + h.count;
      if (dwords > limit) [[unlikely]] {
        store();
        ok = over_budget(file_base + pos);
        break;
      }
      ++packets;
      if (in == nullptr || in->wants(h)) {
        // Field by field, as in run().
        const walked_packet w{
            packet{header{h.type, h.id, h.count}, file_base + pos, byte_span(data + pos + 4, need)},
            gpu_base + pos, depth, group, pass_};
        pos += 4 + need;
        sink_.add_skipped(skipped);
        skipped = 0;
        sink_.on_packet(w);
        in = sink_.interest();  // the sink may change it
      } else {
        ++skipped;
        pos += 4 + need;
      }
    }
    store();
    f.pos = pos;
    return ok;
  }

  void run() {
    // Resynchronisation state: the first bad dword of the current run.
    bool in_run = false;
    errc run_code{};
    std::size_t run_offset = 0, run_bytes = 0;
    std::string run_msg;
    // Called only while in a run: the test is inline, once per packet.
    const auto end_run = [&] {
      in_run = false;
      stats_.skipped_bytes += run_bytes;
      issue(run_code, run_offset,
            run_msg + "; skipped " + std::to_string(run_bytes) + " bytes to resynchronise");
    };
    while (!stack_.empty()) {
      if (!pending_.empty() && enter_pending()) continue;
      if (!in_run && !run_plain()) return;
      frame& f = stack_.back();
      const std::size_t remain = f.data.size() - f.pos;
      if (remain == 0) {
        if (in_run) end_run();
        stack_.pop_back();
        continue;
      }
      const std::size_t at = f.file_base + f.pos;
      if (remain < 4) {
        if (!spend(1, at)) return;
        if (in_run) end_run();
        issue(errc::truncated, at, std::to_string(remain) + " trailing bytes, not a dword");
        stack_.pop_back();
        continue;
      }
      const std::uint32_t dw = load_le32(f.data.data() + f.pos);
      if (dw == 0) {
        if (!spend(1, at)) return;
        if (in_run) end_run();
        ++stats_.padding_dwords;
        f.pos += 4;
        continue;
      }
      const decoded_header d = decode_header(dw);
      const std::size_t need = std::size_t{d.hdr.count} * 4;
      if (d.status != header_status::ok || need > remain - 4) {
        if (!spend(1, at)) return;
        if (!in_run) {
          in_run = true;
          run_offset = at;
          run_bytes = 0;
          if (d.status != header_status::ok) {
            run_code =
                d.status == header_status::unknown_type ? errc::unknown_format : errc::inconsistent;
            run_msg = std::string(to_string(d.status)) + " in PM4 header " + to_hex(dw, 8);
          } else {
            run_code = errc::truncated;
            run_msg = "packet needs " + std::to_string(d.hdr.count) + " payload dwords, " +
                      std::to_string((remain - 4) / 4) + " remain in its buffer";
          }
        }
        run_bytes += 4;
        f.pos += 4;
        continue;
      }
      if (in_run) end_run();
      // The header and its payload in one check of the budget.
      if (!spend(std::uint64_t{1} + d.hdr.count, at)) return;
      const bool a6 = gen_ == generation::a6xx || gen_ == generation::a7xx;
      // The header is copied field by field: copied whole, it was read back
      // with one wide load from the narrower stores decode_header() made, a
      // store-forwarding stall that cost more than the rest of the walk.
      walked_packet w{
          packet{header{d.hdr.type, d.hdr.id, d.hdr.count}, at, f.data.subspan(f.pos + 4, need)},
          f.gpu_base + f.pos, static_cast<unsigned>(stack_.size() - 1), f.group, pass_};
      f.pos += 4 + need;
      ++stats_.packets;
      if (a6 && d.hdr.type == packet_type::type7 && d.hdr.id == op::cp_set_marker &&
          d.hdr.count >= 1) {
        const std::uint32_t m = w.pkt.dword(0);
        if ((m & 0x100) == 0) w.pass = pass_ = static_cast<std::uint8_t>(m & 0xf);
      }
      hand_on(w);
      const packet& p = w.pkt;
      if (auto e = queue_buffers_of(p, gen_, stack_.size() - 1, pending_)) report(std::move(*e));
      if (p.hdr.type == packet_type::type7 &&
          (is_ib_call(p.hdr.id) || p.hdr.id == op::cp_indirect_buffer_chain ||
           (p.hdr.id == op::cp_cond_indirect_buffer_pfe && gen_ != generation::a6xx &&
            gen_ != generation::a7xx))) {
        follow(p);  // may push or replace frames; `f` is not used after this
      }
    }
  }

  Sink& sink_;
  const rd::address_space* space_;
  walk_options opt_;
  walk_stats stats_;
  std::vector<frame> stack_;
  buffer_queue pending_;
  std::uint8_t pass_ = 0;
  std::size_t input_bytes_ = 0;
  std::uint64_t limit_ = 0;  // budget(), kept: the walk compares with it per packet
  generation gen_ = generation::unknown;
};

using walker = basic_walker<walk_sink>;

}  // namespace hwpc::adreno
