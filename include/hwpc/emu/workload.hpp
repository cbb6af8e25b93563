// The deterministic workload that drives the emulated counters.
//
// Time is counted in TIME_STAMP ticks. The workload is a sequence of phases
// (busy, burst, light, sleep), each with a GT clock frequency and a rate per
// counter in thousandths of an event per GT clock. While the GT sleeps its
// clock stops: GPU_TICKS and every event counter freeze, TIME_STAMP runs on.
//
// All arithmetic is integer with carried remainders, so the count over an
// interval is exact and independent of how the interval is cut up.
#pragma once

#include <array>
#include <cstdint>

#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/random.hpp"

namespace hwpc::emu {

// Exact running totals since the start of the capture (never wrap in practice).
struct counter_totals : counter_banks {
  std::uint64_t timestamp = 0;  // TIME_STAMP ticks
};

enum class phase_kind : std::uint8_t { busy, burst, light, sleep };

inline constexpr std::size_t event_counters = max_a + 3 * max_bc;  // A, B, C, MPEC

struct phase {
  phase_kind kind = phase_kind::busy;
  std::uint64_t ticks = 0;     // duration in TIME_STAMP ticks
  std::uint32_t freq_mhz = 0;  // GT clock; 0 while asleep
  std::uint32_t context = 0;   // render context id, 0 when none is active
  std::array<std::uint32_t, event_counters> rate_milli{};  // per GT clock, x1000
};

struct workload_limits {
  std::uint32_t min_mhz = 350;
  std::uint32_t max_mhz = 1150;
  // A counters aggregate over EUs: up to 4 events per GT clock. B, C and
  // MPEC counters are boolean events: at most one per clock. With at most
  // ~110 GT clocks per TIME_STAMP tick this keeps a 32-bit counter from
  // wrapping twice within 2^22 ticks (documented in docs/emulator.md).
  std::uint32_t max_a_milli = 4000;
  std::uint32_t max_bc_milli = 1000;
};

// Generates phases one after another from a seed.
class workload {
 public:
  workload(std::uint64_t seed, std::uint64_t period_ticks, std::uint64_t timestamp_hz,
           bool switch_contexts, workload_limits lim = {})
      : rng_(seed),
        period_(period_ticks == 0 ? 1 : period_ticks),
        ts_hz_(timestamp_hz),
        switch_contexts_(switch_contexts),
        lim_(lim) {
    for (auto& p : profiles_) {
      for (std::size_t i = 0; i < event_counters; ++i) {
        const std::uint32_t cap = i < max_a ? lim_.max_a_milli : lim_.max_bc_milli;
        // Every counter counts something in a busy phase (at least 2%), so a
        // requested wrap is always reached.
        p[i] = static_cast<std::uint32_t>(rng_.between(cap / 50, cap));
      }
    }
    context_ = contexts_[0];
  }

  // The next phase. The first is always busy, at least two periods long.
  phase next() {
    phase p;
    if (first_) {
      p.kind = phase_kind::busy;
      first_ = false;
    } else {
      const auto r = rng_.between(0, 99);
      p.kind = r < 45   ? phase_kind::busy
               : r < 65 ? phase_kind::burst
               : r < 85 ? phase_kind::light
                        : phase_kind::sleep;
      if (p.kind == phase_kind::sleep && last_ == phase_kind::sleep) p.kind = phase_kind::light;
    }
    last_ = p.kind;
    const std::uint64_t lo = p.kind == phase_kind::sleep ? period_ / 4 + 1 : period_ * 2;
    const std::uint64_t hi = p.kind == phase_kind::sleep ? period_ * 2 : period_ * 8;
    p.ticks = rng_.between(lo, hi);
    switch (p.kind) {
      case phase_kind::sleep:
        p.freq_mhz = 0;
        break;
      case phase_kind::burst:
        p.freq_mhz = lim_.max_mhz;
        break;
      default:
        p.freq_mhz = static_cast<std::uint32_t>(
            lim_.min_mhz + 50 * rng_.between(0, (lim_.max_mhz - lim_.min_mhz) / 50));
    }
    p.context = p.kind == phase_kind::sleep ? 0 : context_;
    apply_context(p);
    return p;
  }

  // Sets a phase's rates from its context's profile, scaled by its kind.
  void apply_context(phase& p) const {
    const auto& prof = profiles_[profile_of(p.context == 0 ? context_ : p.context)];
    for (std::size_t i = 0; i < event_counters; ++i) {
      switch (p.kind) {
        case phase_kind::sleep:
          p.rate_milli[i] = 0;
          break;
        case phase_kind::light:
          p.rate_milli[i] = prof[i] / 10;
          break;
        default:
          p.rate_milli[i] = prof[i];
      }
    }
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
  workload_limits lim_;
  bool first_ = true;
  phase_kind last_ = phase_kind::busy;
  // Execlist-style context ids; bits 11:0 clear so Gen7's 31:12 field holds them.
  std::array<std::uint32_t, 4> contexts_{0x0001a000u, 0x0002c000u, 0x00031000u, 0x0004f000u};
  std::array<std::array<std::uint32_t, event_counters>, 4> profiles_{};
  std::uint32_t context_ = 0;
};

// Advances counters through time at a phase's rates, carrying remainders.
class counter_clock {
 public:
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
    for (std::size_t i = 0; i < event_counters; ++i) {
      const std::uint64_t n = clocks * p.rate_milli[i] + rem_[i];
      rem_[i] = n % 1000;
      const std::uint64_t inc = n / 1000;
      if (i < max_a) {
        t.a[i] += inc;
      } else if (i < max_a + max_bc) {
        t.b[i - max_a] += inc;
      } else if (i < max_a + 2 * max_bc) {
        t.c[i - max_a - max_bc] += inc;
      } else {
        t.mpec[i - max_a - 2 * max_bc] += inc;
      }
    }
  }

 private:
  std::uint64_t clock_rem_ = 0;
  std::array<std::uint64_t, event_counters> rem_{};
};

}  // namespace hwpc::emu
