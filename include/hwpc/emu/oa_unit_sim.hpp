// The OA unit's run (oa_unit.hpp, steps 1-3): registers, the workload,
// report triggers, the OA ring and its consumer; emulate() runs it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/emu/capture.hpp"
#include "hwpc/emu/config.hpp"
#include "hwpc/emu/counter_model.hpp"
#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/oa_unit_fields.hpp"
#include "hwpc/emu/random.hpp"
#include "hwpc/emu/registers.hpp"
#include "hwpc/emu/sku.hpp"
#include "hwpc/emu/workload.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

class oa_unit_sim {
 public:
  explicit oa_unit_sim(const config& c) : cfg_(c) {}

  result<capture> run() {
    capture cap;
    cap.cfg = cfg_;
    const intel::platform_info& pi = intel::info(cfg_.platform);
    cap.gen = pi.gen;
    cap.timestamp_hz = pi.timestamp_frequency_hz;
    if (!has_sku(cfg_.platform) && !cfg_.device) {
      return make_error(errc::unknown_format, 0,
                        "the emulator has no part of platform " + std::string(pi.name));
    }
    cap.kernel_driver = driver_of(cfg_);
    const bool xe = cap.kernel_driver == driver::xe;
    cap.format = find_emu_format(cfg_.platform, cfg_.format, cap.kernel_driver);
    if (cap.format == nullptr) {
      return make_error(errc::unknown_format, 0,
                        "platform " + std::string(pi.name) + " has no " +
                            (xe ? "Xe driver" : "i915") + " report format '" + cfg_.format + "'");
    }
    if (cfg_.exponent > 24) {
      return make_error(errc::out_of_range, 0,
                        "exponent " + std::to_string(cfg_.exponent) +
                            " is above 24, the largest the emulator models");
    }
    // 2^21 reports: a 256 MiB capture of 256-byte reports in one run, with
    // room for a recording's record headers (the end-to-end benchmarks), and
    // still a bounded amount of memory (the reports and their output copy).
    if (cfg_.reports < 2 || cfg_.reports > (std::size_t{1} << 21)) {
      return make_error(errc::out_of_range, 0, "reports must be between 2 and 2097152");
    }
    const std::uint32_t rsize = cap.format->size();
    std::optional<unsigned> field = cfg_.buffer_size_field;
    // The Xe driver rounds the ring down to whole reports (FACTS-xe section
    // 5), so any buffer holding one report will do; i915 needs the report
    // size to divide the buffer.
    const auto fits = [&](unsigned f) {
      const std::uint32_t b = oa_buffer_bytes(cap.gen, f);
      return xe ? b >= rsize : b % rsize == 0;
    };
    if (field) {
      if (*field > 7 || !fits(*field)) {
        return make_error(errc::inconsistent, 0,
                          "OA buffer size field " + std::to_string(*field) +
                              " does not hold whole " + std::to_string(rsize) + "-byte reports");
      }
    } else if (xe) {
      field = 0;
    } else {
      field = detail::default_size_field(cap.gen, rsize);
    }
    cap.mi_rpc_mode = !field.has_value();
    if (!field) field = 0;

    // 1. Program the registers the way a driver does, then read back.
    regs_ = oa_registers(cap.gen);
    regs_.program_buffer(base_, *field, cfg_.overrun_disable);
    regs_.program_control(cap.format->counter_select, cfg_.exponent, !cap.mi_rpc_mode,
                          cfg_.specific_context.has_value(), cfg_.specific_context.value_or(0));
    cap.buffer_bytes = regs_.buffer_bytes();
    cap.ring_bytes = xe ? cap.buffer_bytes / rsize * rsize : cap.buffer_bytes;
    cap.period_ticks = timer_period_ticks(cap.gen, regs_.exponent());
    gen_ = cap.gen;
    rsize_ = rsize;
    slots_.assign(cap.ring_bytes / rsize, slot{});
    cap_ = &cap;

    rng master(cfg_.seed);
    rng ev = master.fork(2);
    rng starts = master.fork(3);
    const counter_model model(cfg_.platform, device_of(cfg_), clock_signals_of(cfg_));
    workload wl(master.fork(1).next(), cap.period_ticks, cap.timestamp_hz, cfg_.faults.ctx_switch,
                model);
    const std::uint64_t period = cap.period_ticks;
    // TIME_STAMP modulo the period when the capture starts: the timer's phase.
    const std::uint64_t phase_residue = ev.between(0, period - 1);
    phase_residue_ = phase_residue;

    std::size_t target = cfg_.reports;
    const std::size_t capacity = slots_.size();
    if (cfg_.faults.overflow && !cap.mi_rpc_mode) target += capacity + 16;

    // Timer reports lost to MI_RPC collisions: a few timer strobes, chosen up front.
    std::vector<std::uint64_t> collide;
    if (cfg_.faults.report_lost) {
      const std::uint64_t n = std::min<std::uint64_t>(3, cfg_.reports / 4 + 1);
      for (std::uint64_t i = 0; i < n; ++i) {
        collide.push_back(ev.between(2, std::max<std::uint64_t>(2, cfg_.reports - 2)));
      }
    }

    phase ph = wl.next();
    std::uint64_t now = 0;
    std::uint64_t phase_end = ph.ticks;
    std::uint64_t next_timer = period - phase_residue;  // TIME_STAMP % period == 0
    std::uint64_t timer_index = 0;
    constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
    auto off_strobe = [&](std::uint64_t t) {
      return (phase_residue + t) % period == 0 ? t + 1 : t;
    };
    std::uint64_t next_ctx =
        cfg_.faults.ctx_switch ? off_strobe(ev.between(period, 4 * period)) : never;
    auto poll_gap = [&] { return ev.between(3, 8) * period + period / 2 + 1; };
    std::uint64_t next_poll = cap.mi_rpc_mode ? never : poll_gap();
    bool stalled = false;
    const std::size_t stall_after = std::max<std::size_t>(1, cfg_.reports / 4);
    const bool tail_fault = cfg_.faults.tail_ahead && !cap.mi_rpc_mode;
    std::size_t forced_late = 3;  // the third ring report always lands late under tail-ahead
    counter_clock clock(model);
    bool sleeping = ph.freq_mhz == 0;
    std::uint32_t freq = ph.freq_mhz;
    context_ = ph.context;

    auto written = [&] {
      return cap.mi_rpc_mode ? cap.stats.mi_rpc_reports : cap.stats.ring_reports;
    };
    while (written() < target) {
      std::uint64_t t = std::min({next_timer, phase_end, next_ctx, next_poll});
      if (t < now) t = now;
      const bool counting =
          !cfg_.specific_context.has_value() || context_ == *cfg_.specific_context;
      clock.advance(totals_, ph, t - now, cap.timestamp_hz, counting);
      now = t;

      if (now == phase_end) {
        const phase prev = ph;
        ph = wl.next();
        if (cfg_.faults.ctx_switch && ph.kind != phase_kind::sleep) ph.context = wl.context();
        phase_end = now + ph.ticks;
        const bool was_asleep = sleeping;
        sleeping = ph.freq_mhz == 0;
        context_ = ph.context;
        if (!is_gen7()) {
          if (sleeping && !was_asleep) {
            emit(trigger::go_transition, prev.freq_mhz, true);
          } else if (gen_ >= intel::generation::gen9 && !sleeping && !was_asleep &&
                     ph.freq_mhz != freq) {
            emit(trigger::clock_ratio, ph.freq_mhz, true);
          }
        }
        if (!sleeping) freq = ph.freq_mhz;
      }
      if (now == next_ctx) {
        context_ = wl.switch_context();
        ++cap.stats.ctx_switches;
        if (!sleeping) {
          ph.context = context_;
          wl.apply_context(ph);  // the new context's workload from here on
        }
        // The PRM documents context-switch reports from Gen8 on; on Gen7 a
        // switch only changes what the counters see.
        if (!is_gen7()) emit(trigger::ctx_switch, freq, true);
        next_ctx = off_strobe(now + ev.between(2 * period, 5 * period));
      }
      if (now == next_timer) {
        ++timer_index;
        next_timer += period;
        const bool collision =
            std::find(collide.begin(), collide.end(), timer_index) != collide.end();
        if (cap.mi_rpc_mode) {
          emit(trigger::mi_rpc, freq, false);  // the command streamer samples every period
        } else {
          if (collision || (cfg_.mi_rpc_every > 0 && timer_index % cfg_.mi_rpc_every == 0)) {
            emit(trigger::mi_rpc, freq, false);
          }
          if (collision) {
            // [PRM67] OASTATUS1 bit 0: a report requested while the previous
            // one is still being written is ignored; the counters run on.
            regs_.set_report_lost(true);
            ++cap.stats.lost_collisions;
          } else {
            const bool late =
                tail_fault && (cap.stats.ring_reports + 1 == forced_late || ev.chance(1, 6));
            emit(trigger::timer, freq, true, late);
            if (cfg_.faults.overflow && !stalled && cap.stats.ring_reports == stall_after) {
              stalled = true;
              // A consumer that sleeps through more than a whole buffer.
              next_poll = now + (capacity + 8) * period + period / 2 + 1;
            }
          }
        }
      }
      if (now == next_poll) {
        consume();
        next_poll = now + poll_gap();
      }
    }

    // 2. The ring as software finds it now; under tail-ahead the newest
    //    report is still in flight.
    snapshot(tail_fault, ev);
    // 3. The consumer's last read, after everything has landed.
    if (!cap.mi_rpc_mode) {
      for (auto& s : slots_) s.landed = true;
      consume();
    }
    // 4. Start values, then pack.
    choose_starts(starts);
    pack_all();
    cap_ = nullptr;
    return cap;
  }

 private:
  struct slot {
    std::size_t report = read_item::npos;  // current occupant
    std::size_t previous = read_item::npos;
    bool landed = true;
    bool rpt_cleared = false;  // the consumer zeroed RPT_ID after copying (i915 does)
  };

  bool is_gen7() const noexcept { return intel::is_gen7_family(gen_); }

  void emit(trigger why, std::uint32_t freq, bool to_ring, bool late = false) {
    capture& cap = *cap_;
    report_record r;
    r.why = why;
    r.to_ring = to_ring;
    r.freq_mhz = freq;
    r.ctx_id = context_;
    r.ctx_valid = context_ != 0 && why != trigger::go_transition;
    r.at = totals_;
    if (why == trigger::mi_rpc) ++mi_rpc_id_;
    r.rpt_id = detail::compose_rpt_id(gen_, why, r.ctx_valid, regs_.timer_enabled(), freq,
                                      0x1000 + mi_rpc_id_);
    if (!to_ring) {
      cap.reports.push_back(r);
      cap.mi_rpc.push_back(cap.reports.size() - 1);
      ++cap.stats.mi_rpc_reports;
      return;
    }
    const std::uint32_t size = cap.ring_bytes;
    const std::uint32_t head = regs_.head() - base_;
    const std::uint32_t tail = regs_.tail() - base_;
    const std::uint32_t used = (tail + size - head) % size;
    if (used + rsize_ >= size) {
      if (regs_.overrun_disabled()) {
        // [PRM67] OABUFFER bit 3: reporting stops until there is room.
        ++cap.stats.dropped_stopped;
        return;
      }
      if (!regs_.buffer_overflow()) regs_.set_buffer_overflow(true);  // OASTATUS bit 1
    }
    cap.reports.push_back(r);
    slot& s = slots_[tail / rsize_];
    if (s.report != read_item::npos && !s.rpt_cleared) ++cap.stats.overwritten;
    s.previous = s.report;
    s.report = cap.reports.size() - 1;
    s.landed = !late;
    s.rpt_cleared = false;
    regs_.set_tail(base_ + (tail + rsize_) % size);
    ++cap.stats.ring_reports;
    if (late) {
      consume();  // the reader sees the tail before the bytes land
      s.landed = true;
    }
  }

  // One read() of i915's OA path: status first, then head..tail.
  void consume() {
    capture& cap = *cap_;
    if (regs_.buffer_overflow()) {
      cap.read.push_back({read_item::kind::buffer_lost});
      // Restart: pointers back to the base, buffer cleared, status cleared.
      regs_.program_buffer(base_, regs_.size_field(), regs_.overrun_disabled());
      for (auto& s : slots_) s = slot{};
      ++cap.stats.restarts;
    }
    if (regs_.report_lost()) {
      cap.read.push_back({read_item::kind::report_lost});
      regs_.set_report_lost(false);
    }
    const std::uint32_t size = cap.ring_bytes;
    std::uint32_t head = regs_.head() - base_;
    const std::uint32_t tail = (regs_.tail() - base_) / rsize_ * rsize_;
    while (head != tail) {
      slot& s = slots_[head / rsize_];
      if (s.report == read_item::npos || !s.landed || s.rpt_cleared) {
        read_item it{read_item::kind::unlanded};
        it.stale = s.landed ? read_item::npos : s.previous;
        if (s.report != read_item::npos && s.rpt_cleared) it.stale = s.report;
        cap.read.push_back(it);
        ++cap.stats.unlanded_reads;
      } else {
        cap.read.push_back({read_item::kind::sample, s.report});
        s.rpt_cleared = true;
      }
      head = (head + rsize_) % size;
    }
    regs_.set_head(base_ + head);
  }

  void snapshot(bool tail_fault, rng& ev) {
    capture& cap = *cap_;
    ring_snapshot& rs = cap.ring;
    rs.base = base_;
    rs.head = regs_.head();
    rs.tail = regs_.tail();
    rs.buffer_overflow = regs_.buffer_overflow();
    rs.report_lost = regs_.report_lost();
    if (cap.mi_rpc_mode) return;
    const std::uint32_t size = cap.ring_bytes;
    const std::uint32_t head = rs.head - base_;
    const std::uint32_t tail = rs.tail - base_;
    if (tail_fault && head != tail) {
      // The newest report is in flight; the tail moves in 64-byte steps, so
      // it may stop inside it.
      const std::uint32_t last = (tail + size - rsize_) % size;
      slots_[last / rsize_].landed = false;
      const std::uint32_t steps = rsize_ / 64;
      const std::uint32_t j = static_cast<std::uint32_t>(ev.between(1, steps));
      rs.tail = base_ + (last + 64 * j) % size;
      if (j == steps) rs.tail = base_ + tail;
    }
    const std::uint32_t wtail = (rs.tail - base_) / rsize_ * rsize_;
    for (std::uint32_t h = head; h != wtail; h = (h + rsize_) % size) {
      const slot& s = slots_[h / rsize_];
      rs.window.push_back(s.landed && !s.rpt_cleared ? s.report : read_item::npos);
    }
    auto regs = regs_;
    regs.set_tail(rs.tail);
    for (const auto& [a, v] : regs.snapshot()) {
      if (a != 0) rs.registers.emplace_back(a, v);
    }
    ring_slots_ = slots_;
  }

  // The last stage (oa_unit_pack.hpp).
  void choose_starts(rng& r);
  void pack_all();

  config cfg_;
  oa_registers regs_{intel::generation::gen7_5};
  intel::generation gen_{};
  std::uint32_t rsize_ = 64;
  static constexpr std::uint32_t base_ = 0x01000000;  // 16 MiB aligned, as HSW requires
  std::vector<slot> slots_;
  std::vector<slot> ring_slots_;
  capture* cap_ = nullptr;
  counter_totals totals_;
  std::uint32_t context_ = 0;
  std::uint32_t mi_rpc_id_ = 0;
  std::uint64_t phase_residue_ = 0;
};

// Runs the emulator. Errors: unknown format for the platform, exponent or
// report count out of range, a buffer size that holds no whole reports.
inline result<capture> emulate(const config& c) { return oa_unit_sim(c).run(); }

}  // namespace hwpc::emu

// The packing stage defines choose_starts() and pack_all().
#include "hwpc/emu/oa_unit_pack.hpp"
