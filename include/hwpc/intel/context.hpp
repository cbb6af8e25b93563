// Per-context attribution of intervals, as a query-mode profiler does it.
//
// Gen8+: every report carries CTX_ID (dw2) and, in RPT_ID, a "render context
// valid" bit (bit 25 on Gen8, bit 16 on Gen9+; SKL PRM vol 14). The OA unit
// writes a report at each render context switch (report reason bit 22), so
// the counters between two consecutive reports were counted while one
// context ran: the context that was running before the later report, which
// is the context of the earlier report. An interval whose earlier report has
// the valid bit clear ran with no render context (idle, or a context switch
// in progress) and belongs to no context. The PRM notes that in ring-buffer
// scheduling only CTX_ID bits 31:12 identify the context: pass 0xfffff000
// as the mask there; execlists use all 32 bits.
//
// Gen7 reports carry no context id. Instead OACONTROL (0x2360) can make the
// hardware count for one context only: bit 1 "Specific Context Enable",
// bits 31:12 "Select Context ID" (HSW PRM; GEN7_OACONTROL_PER_CTX_ENABLE in
// the i915 seed). A capture taken that way holds that context's counts
// only, so every interval is attributed to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/intel/capture.hpp"

namespace hwpc::intel {

// Gen7 OACONTROL fields (HSW PRM "OACONTROL").
struct gen7_oacontrol {
  std::uint32_t raw = 0;

  constexpr bool counter_enable() const noexcept { return bit(raw, 0); }
  constexpr bool specific_context_enable() const noexcept { return bit(raw, 1); }
  constexpr unsigned counter_select() const noexcept { return bits(raw, 4, 2); }
  constexpr bool timer_enable() const noexcept { return bit(raw, 5); }
  constexpr unsigned timer_period() const noexcept { return bits(raw, 11, 6); }
  // Bits 31:12 in place (the driver programs a 4 KiB-aligned context address).
  constexpr std::uint32_t context_id() const noexcept { return raw & 0xfffff000u; }
};

class context_filter {
 public:
  // Gen8+: the earlier report's CTX_ID (masked) when its context-valid bit is set.
  static constexpr context_filter from_reports(std::uint32_t ctx_id_mask = 0xffffffffu) noexcept {
    return context_filter(false, 0, ctx_id_mask);
  }
  // Gen7 specific-context mode: every interval belongs to the OACONTROL context.
  static result<context_filter> from_gen7_oacontrol(gen7_oacontrol oacontrol) {
    if (!oacontrol.specific_context_enable()) {
      return make_error(errc::inconsistent, 0,
                        "OACONTROL specific-context mode (bit 1) is off: the counters include "
                        "every context");
    }
    return context_filter(true, oacontrol.context_id(), 0xffffffffu);
  }

  // The context an interval's counts belong to, or nullopt for none.
  constexpr std::optional<std::uint32_t> context_of(const capture_interval& iv) const noexcept {
    if (fixed_) return fixed_ctx_;
    if (!iv.earlier_rpt.context_valid) return std::nullopt;
    return iv.earlier_ctx_id & mask_;
  }
  constexpr bool matches(const capture_interval& iv, std::uint32_t ctx) const noexcept {
    const auto c = context_of(iv);
    return c.has_value() && *c == (ctx & mask_);
  }

 private:
  constexpr context_filter(bool fixed, std::uint32_t ctx, std::uint32_t mask) noexcept
      : fixed_(fixed), fixed_ctx_(ctx), mask_(mask) {}
  bool fixed_;
  std::uint32_t fixed_ctx_;
  std::uint32_t mask_;
};

struct context_totals {
  std::optional<std::uint32_t> ctx_id;  // nullopt: no context
  std::size_t intervals = 0;
  std::uint64_t elapsed_ticks = 0;
  std::vector<std::uint64_t> totals;  // per counter, counter_list order
};

// Sums intervals per context.
class context_accumulator {
 public:
  context_accumulator(const report_format& f, context_filter filter)
      : filter_(filter), ncounters_(counter_list(f).size()) {
    none_.totals.assign(ncounters_, 0);
  }

  void add(const capture_interval& iv) {
    const auto ctx = filter_.context_of(iv);
    context_totals& t = ctx ? slot(*ctx) : none_;
    ++t.intervals;
    t.elapsed_ticks += iv.elapsed_ticks;
    for (std::size_t c = 0; c < ncounters_ && c < iv.deltas.size(); ++c)
      t.totals[c] += iv.deltas[c];
  }

  // Contexts in the order they first appeared.
  const std::vector<context_totals>& contexts() const noexcept { return ctx_; }
  const context_totals* find(std::uint32_t ctx) const noexcept {
    const auto it = index_.find(ctx);
    return it == index_.end() ? nullptr : &ctx_[it->second];
  }
  // Intervals that ran with no valid context.
  const context_totals& no_context() const noexcept { return none_; }

 private:
  context_totals& slot(std::uint32_t ctx) {
    // Consecutive intervals mostly share a context: try the last one first.
    // Otherwise a hash lookup: a capture of many distinct context ids (a
    // hostile file can give every report its own) stays linear.
    if (last_ < ctx_.size() && *ctx_[last_].ctx_id == ctx) return ctx_[last_];
    if (const auto it = index_.find(ctx); it != index_.end()) {
      last_ = it->second;
      return ctx_[last_];
    }
    index_.emplace(ctx, ctx_.size());
    context_totals t;
    t.ctx_id = ctx;
    t.totals.assign(ncounters_, 0);
    ctx_.push_back(std::move(t));
    last_ = ctx_.size() - 1;
    return ctx_.back();
  }

  context_filter filter_;
  std::size_t ncounters_;
  std::vector<context_totals> ctx_;
  std::unordered_map<std::uint32_t, std::size_t> index_;  // ctx id -> position in ctx_
  context_totals none_;
  std::size_t last_ = 0;
};

}  // namespace hwpc::intel
