// The buffers a packet makes the CP run besides an IB call, as the walker
// queues them (docs/adreno.md, "Walking a stream"): draw-state groups
// (CP_SET_DRAW_STATE), bin prefixes (CP_START_BIN), ambles (CP_SET_AMBLE),
// draw-table entries (CP_FIXED_STRIDE_DRAW_TABLE) and, on A5XX, the buffers of
// CP_SET_RENDER_MODE and CP_COMPUTE_CHECKPOINT; and the opcodes the walker's
// plain loop leaves to its general path.
//
// Each queue_* function reads one packet: it appends what the packet queues
// and returns the issue the packet has, if any (both may happen: a draw state
// with a stray dword still queues its records).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/draw_state.hpp"
#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/ib.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

namespace detail {
// Type-7 opcodes the walk itself acts on after handing the packet on (IB
// calls, chains, draw-state groups, bins, ambles, draw tables, markers; on
// A5XX the buffers of CP_SET_RENDER_MODE and CP_COMPUTE_CHECKPOINT): the
// walker's plain loop leaves them to its general path. A superset is harmless.
constexpr std::array<std::uint64_t, 2> walk_special_ops(bool a6) noexcept {
  std::array<std::uint64_t, 2> m{};
  for (std::uint32_t op = 0; op < 128; ++op) {
    const bool special =
        is_ib_call(op) || op == op::cp_indirect_buffer_chain ||
        op == op::cp_cond_indirect_buffer_pfe ||
        (a6 && (op == op::cp_set_marker || op == op::cp_set_draw_state || op == op::cp_start_bin ||
                op == op::cp_set_amble || op == op::cp_fixed_stride_draw_table)) ||
        (!a6 && (op == op::cp_set_render_mode || op == op::cp_compute_checkpoint));
    if (special) m[op >> 6] |= 1ull << (op & 63);
  }
  return m;
}
inline constexpr std::array<std::uint64_t, 2> walk_special_a5 = walk_special_ops(false),
                                              walk_special_a6 = walk_special_ops(true);
}  // namespace detail

// `count` buffers of `dwords` at `address`, `address + stride`, ..., entered
// one after the other before the packet's own buffer goes on. Kept lazily, so
// a bin count of 2^32 costs one entry; the walk's dword budget bounds the work.
struct queued_buffers {
  std::size_t level;  // the frame whose packet queued it
  std::size_t at;     // file offset of that packet
  std::uint64_t address;
  std::uint64_t stride;
  std::uint64_t count;
  std::uint32_t dwords;
  int group;
  // What the buffers are, for notes: "bin prefix", "amble", "draw-table entry"
  // (a draw-state group says its number instead).
  const char* what = "bin prefix";
};

using buffer_queue = std::vector<queued_buffers>;

// CP_SET_DRAW_STATE: every enabled record's buffer, in record order, once
// where it is set (the CP runs the groups at each draw that needs them;
// listing them once per draw would repeat them, docs/adreno.md). The queue is
// a stack: the records go on in reverse, so the first is entered first.
inline std::optional<error> queue_draw_state(const packet& p, std::size_t level, buffer_queue& q) {
  const std::size_t first = q.size();
  for (std::uint32_t i = 0; i + draw_state::record_dwords <= p.hdr.count;
       i += draw_state::record_dwords) {
    const std::uint32_t d0 = p.dword(i);
    if (draw_state::disables(d0) || draw_state::count_of(d0) == 0) continue;
    q.push_back(queued_buffers{level, p.offset, p.qword(i + 1), 0, 1, draw_state::count_of(d0),
                               static_cast<int>(draw_state::group_of(d0))});
  }
  std::reverse(q.begin() + static_cast<std::ptrdiff_t>(first), q.end());
  if (p.hdr.count % draw_state::record_dwords != 0) {
    return make_error(errc::inconsistent, p.offset,
                      "CP_SET_DRAW_STATE has " + std::to_string(p.hdr.count) +
                          " payload dwords, not a multiple of 3; the last " +
                          std::to_string(p.hdr.count % draw_state::record_dwords) + " ignored");
  }
  return std::nullopt;
}

// CP_START_BIN: the prefix of bin i at PREFIX_ADDR + i * PREFIX_DWORDS
// dwords, for each of BIN_COUNT bins (the body that follows is walked once,
// as Mesa's decoder does).
inline std::optional<error> queue_bins(const packet& p, std::size_t level, buffer_queue& q) {
  if (p.hdr.count < 5) {
    return make_error(errc::inconsistent, p.offset,
                      "CP_START_BIN needs 5 payload dwords, has " + std::to_string(p.hdr.count));
  }
  const std::uint32_t bins = p.dword(0), prefix_dwords = p.dword(3);
  if (bins == 0 || prefix_dwords == 0) return std::nullopt;
  q.push_back(queued_buffers{level, p.offset, p.qword(1), std::uint64_t{prefix_dwords} * 4, bins,
                             prefix_dwords, -1});
  return std::nullopt;
}

// CP_SET_AMBLE: one IB of DWORDS (dw2 bits 19:0) at dw0-1 that the CP runs
// at context save or restore, not inline (FACTS-adreno6 section 2.3). It is
// listed where it is set, as Mesa's decoder does: those are packets the GPU
// executes, and nowhere else in the capture says when.
inline std::optional<error> queue_amble(const packet& p, std::size_t level, buffer_queue& q) {
  if (p.hdr.count < 3) {
    return make_error(errc::inconsistent, p.offset,
                      "CP_SET_AMBLE needs 3 payload dwords, has " + std::to_string(p.hdr.count));
  }
  const std::uint32_t dwords = p.dword(2) & 0xfffffu;
  if (dwords == 0) return std::nullopt;
  q.push_back(queued_buffers{level, p.offset, p.qword(0), 0, 1, dwords, -1, "amble"});
  return std::nullopt;
}

// CP_FIXED_STRIDE_DRAW_TABLE (A7XX): COUNT (dw3) buffers of STRIDE dwords
// (dw2 bits 31:20) back to back at dw0-1, one draw each.
inline std::optional<error> queue_draw_table(const packet& p, std::size_t level, buffer_queue& q) {
  if (p.hdr.count < 4) {
    return make_error(
        errc::inconsistent, p.offset,
        "CP_FIXED_STRIDE_DRAW_TABLE needs 4 payload dwords, has " + std::to_string(p.hdr.count));
  }
  const std::uint32_t stride = p.dword(2) >> 20, count = p.dword(3);
  if (stride == 0 || count == 0) return std::nullopt;
  q.push_back(queued_buffers{level, p.offset, p.qword(0), std::uint64_t{stride} * 4, count, stride,
                             -1, "draw-table entry"});
  return std::nullopt;
}

// A5XX CP_SET_RENDER_MODE and CP_COMPUTE_CHECKPOINT (ib.hpp): the command
// buffer the CP runs at a preemption switch, walked right after the packet,
// one level deeper, where it is set, as Mesa's decoder lists it.
inline std::optional<error> queue_preemption_buffer(const packet& p, std::size_t level,
                                                    buffer_queue& q) {
  auto t = decode_preemption_buffer(p);
  if (!t) return t.error_value();
  if (t->dwords == 0) return std::nullopt;
  q.push_back(queued_buffers{level, p.offset, t->address, 0, 1, t->dwords, -1, "preemption"});
  return std::nullopt;
}

// What a packet of generation `g` queues, if anything (A6XX and A7XX groups,
// bins and ambles; A7XX draw tables; A5XX preemption buffers).
inline std::optional<error> queue_buffers_of(const packet& p, generation g, std::size_t level,
                                             buffer_queue& q) {
  if (p.hdr.type != packet_type::type7) return std::nullopt;
  if (g == generation::a6xx || g == generation::a7xx) {
    switch (p.hdr.id) {
      case op::cp_set_draw_state:
        return queue_draw_state(p, level, q);
      case op::cp_start_bin:
        return queue_bins(p, level, q);
      case op::cp_set_amble:
        return queue_amble(p, level, q);
      case op::cp_fixed_stride_draw_table:
        if (g == generation::a7xx) return queue_draw_table(p, level, q);
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }
  if (g == generation::a5xx &&
      (p.hdr.id == op::cp_set_render_mode || p.hdr.id == op::cp_compute_checkpoint)) {
    return queue_preemption_buffer(p, level, q);
  }
  return std::nullopt;
}

}  // namespace hwpc::adreno
