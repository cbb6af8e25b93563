// The deterministic workload that drives the emulated counters.
//
// Time is counted in TIME_STAMP ticks. The workload is a sequence of phases
// (idle, geometry-heavy, pixel-heavy, compute, sleep), each with a GT clock
// frequency from the platform's SKU (sku.hpp) and the shares the counter
// model (counter_model.hpp) turns into counter increments: how busy the
// render engine is, how the EUs split their time between active, stalled
// and idle and between the shader stages, how many pixels go through the
// depth tests, how busy the sampler and the L3 data port are. While the GT
// sleeps its clock stops: GPU_TICKS and every event counter freeze,
// TIME_STAMP runs on.
//
// GT clocks are counted with a carried remainder, so GPU_TICKS over an
// interval is exact however the interval is cut up; the counters below it
// round down in every step (counter_model.hpp says why).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/emu/counter_model.hpp"
#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/random.hpp"
#include "hwpc/emu/roles.hpp"

namespace hwpc::emu {

// Exact running totals since the start of the capture (never wrap in practice).
struct counter_totals : counter_banks {
  std::uint64_t timestamp = 0;  // TIME_STAMP ticks
};

struct phase {
  phase_kind kind = phase_kind::pixel;
  std::uint64_t ticks = 0;                        // duration in TIME_STAMP ticks
  std::uint32_t freq_mhz = 0;                     // GT clock; 0 while asleep
  std::uint32_t context = 0;                      // render context id, 0 when none is active
  std::array<std::uint16_t, role_count> share{};  // thousandths, by role
};

// Generates phases one after another from a seed.
class workload {
 public:
  workload(std::uint64_t seed, std::uint64_t period_ticks, std::uint64_t timestamp_hz,
           bool switch_contexts, const counter_model& model)
      : rng_(seed),
        period_(period_ticks == 0 ? 1 : period_ticks),
        ts_hz_(timestamp_hz),
        switch_contexts_(switch_contexts),
        min_mhz_(model.device().min_mhz),
        max_mhz_(model.device().max_mhz) {
    // Each context has its own shares for each kind of phase: one draws
    // like a game, another like a compute job.
    for (auto& per_kind : profiles_) {
      for (std::size_t k = 0; k < 4; ++k) {
        for (std::size_t r = 0; r < role_count; ++r) {
          const role ro = static_cast<role>(r);
          detail::share_range range = detail::share_range_of(ro, static_cast<phase_kind>(k));
          if (ro == role::eu_active && range.hi > model.eu_active_cap()) {
            range = {static_cast<std::uint16_t>(range.lo * model.eu_active_cap() / range.hi),
                     model.eu_active_cap()};
          }
          if (r >= static_cast<std::size_t>(role::signal0)) {
            const std::size_t s = r - static_cast<std::size_t>(role::signal0);
            const bank b = s < max_bc ? bank::b : s < 2 * max_bc ? bank::c : bank::mpec;
            if (model.signal_is_child(b, s % max_bc)) {
              range = {300, 900};  // of its parent
            } else {
              range = {static_cast<std::uint16_t>(model.signal_cap() / 12 + 1), model.signal_cap()};
            }
          }
          per_kind[k][r] = static_cast<std::uint16_t>(rng_.between(range.lo, range.hi));
        }
      }
    }
    context_ = contexts_[0];
  }

  // The next phase. The first is always a pixel-heavy one.
  phase next() {
    phase p;
    if (first_) {
      p.kind = phase_kind::pixel;
      first_ = false;
    } else {
      const auto r = rng_.between(0, 99);
      p.kind = r < 15   ? phase_kind::idle
               : r < 35 ? phase_kind::geometry
               : r < 65 ? phase_kind::pixel
               : r < 85 ? phase_kind::compute
                        : phase_kind::sleep;
      if (p.kind == phase_kind::sleep && last_ == phase_kind::sleep) p.kind = phase_kind::idle;
    }
    last_ = p.kind;
    const std::uint64_t lo = p.kind == phase_kind::sleep ? period_ / 4 + 1 : period_ * 2;
    const std::uint64_t hi = p.kind == phase_kind::sleep ? period_ * 2 : period_ * 8;
    p.ticks = rng_.between(lo, hi);
    const std::uint32_t steps = (max_mhz_ - min_mhz_) / 50;
    switch (p.kind) {
      case phase_kind::sleep:
        p.freq_mhz = 0;
        break;
      case phase_kind::idle:
        p.freq_mhz = min_mhz_ + 50 * static_cast<std::uint32_t>(rng_.between(0, steps / 4));
        break;
      default:
        // A loaded GT often runs at its maximum clock.
        p.freq_mhz = rng_.chance(1, 4)
                         ? max_mhz_
                         : min_mhz_ + 50 * static_cast<std::uint32_t>(rng_.between(0, steps));
    }
    p.context = p.kind == phase_kind::sleep ? 0 : context_;
    apply_context(p);
    return p;
  }

  // Sets a phase's shares from its context's profile for its kind.
  void apply_context(phase& p) const {
    if (p.kind == phase_kind::sleep) {
      p.share.fill(0);
      return;
    }
    p.share = profiles_[profile_of(p.context == 0 ? context_ : p.context)]
                       [static_cast<std::size_t>(p.kind)];
  }

  // Context switches (when enabled) pick another of a few contexts.
  std::uint32_t switch_context() {
    if (!switch_contexts_) return context_;
    std::uint32_t n = context_;
    while (n == context_) n = contexts_[rng_.between(0, contexts_.size() - 1)];
    context_ = n;
    return n;
  }
  std::uint32_t context() const noexcept { return context_; }
  std::uint64_t timestamp_hz() const noexcept { return ts_hz_; }

 private:
  std::size_t profile_of(std::uint32_t ctx) const noexcept {
    for (std::size_t i = 0; i < contexts_.size(); ++i) {
      if (contexts_[i] == ctx) return i;
    }
    return 0;
  }

  rng rng_;
  std::uint64_t period_;
  std::uint64_t ts_hz_;
  bool switch_contexts_;
  std::uint32_t min_mhz_;
  std::uint32_t max_mhz_;
  bool first_ = true;
  phase_kind last_ = phase_kind::pixel;
  // Execlist-style context ids; bits 11:0 clear so Gen7's 31:12 field holds them.
  std::array<std::uint32_t, 4> contexts_{0x0001a000u, 0x0002c000u, 0x00031000u, 0x0004f000u};
  std::array<std::array<std::array<std::uint16_t, role_count>, 4>, 4> profiles_{};
  std::uint32_t context_ = 0;
};

// Advances the counters through time in one phase.
class counter_clock {
 public:
  explicit counter_clock(const counter_model& m) : model_(&m) {}

  // Moves `dt` TIME_STAMP ticks forward. `count_events` false freezes the
  // event counters (specific-context mode with another context running).
  void advance(counter_totals& t, const phase& p, std::uint64_t dt, std::uint64_t ts_hz,
               bool count_events) {
    t.timestamp += dt;
    if (p.freq_mhz == 0 || dt == 0) return;
    // dt * Hz stays below 2^64 for dt < 2^33 ticks; longer steps are split.
    std::uint64_t clocks = 0;
    for (std::uint64_t left = dt; left > 0;) {
      const std::uint64_t step = left < (std::uint64_t{1} << 32) ? left : (std::uint64_t{1} << 32);
      left -= step;
      const std::uint64_t num = step * p.freq_mhz * 1'000'000u + clock_rem_;
      clocks += num / ts_hz;
      clock_rem_ = num % ts_hz;
    }
    t.gpu_ticks += clocks;
    if (!count_events) return;
    model_->step(clocks, p.share, d_);
    const auto& nodes = model_->nodes();
    for (std::size_t n = 1; n < nodes.size(); ++n) {
      if (nodes[n].counter) t.counter(nodes[n].out_bank, nodes[n].out_index) += d_[n];
    }
  }

 private:
  const counter_model* model_;
  std::uint64_t clock_rem_ = 0;
  std::vector<std::uint64_t> d_;
};

}  // namespace hwpc::emu
