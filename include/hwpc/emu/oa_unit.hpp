// The reference OA unit: counters, report triggers, the OA ring and a
// consumer that reads it the way i915 does.
//
//   hwpc::emu::config cfg;                      // HSW A45_B8_C8, 64 reports
//   cfg.platform = hwpc::intel::platform::skl;
//   cfg.format = "A36_B8_C8";
//   cfg.faults = hwpc::emu::parse_faults("wrap,ctx-switch").value();
//   auto cap = hwpc::emu::emulate(cfg);         // result<capture>
//   auto bytes = hwpc::emu::raw_file(*cap);     // outputs.hpp
//   auto truth = hwpc::emu::truth_for(*cap, hwpc::emu::output_kind::raw);
//
// How a run goes (docs/emulator.md has the details and the citations):
//  1. The registers are programmed as a driver would (registers.hpp) and the
//     unit reads the counter select, timer period and buffer back from them.
//  2. A seeded workload (workload.hpp) drives the counters. Reports are taken
//     on timer strobes (TIME_STAMP crossing a multiple of the period), on
//     context switches, GO 1->0 transitions and clock-ratio changes (Gen8+,
//     Gen9+ for clock ratio), and for MI_REPORT_PERF_COUNT commands.
//  3. Ring reports go to the OA buffer at the tail; MI_REPORT_PERF_COUNT
//     reports go to their own buffer and do not move the tail [PRM67
//     OASTATUS1 31:6]. A consumer polls the ring like i915's read path:
//     OA_BUFFER_LOST and restart on overflow, OA_REPORT_LOST on a lost
//     report, zero-RPT_ID reports skipped, RPT_ID cleared after copying.
//  4. Only after the run are counter start values chosen (the dynamics do not
//     depend on them), so a requested wrap can be placed exactly inside an
//     interval the output contains. Then every report is packed.
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
#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/random.hpp"
#include "hwpc/emu/registers.hpp"
#include "hwpc/emu/workload.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

struct fault_set {
  bool wrap = false;         // counters and TIME_STAMP wrap inside the capture
  bool ctx_switch = false;   // context switches every few reports
  bool tail_ahead = false;   // tail pointer ahead of landed data (zero RPT_ID in the ring)
  bool overflow = false;     // slow consumer: the ring overflows (or stops, overrun disabled)
  bool report_lost = false;  // MI_REPORT_PERF_COUNT collides with timer reports

  friend bool operator==(const fault_set&, const fault_set&) = default;
};

inline constexpr std::string_view fault_names[] = {"wrap", "ctx-switch", "tail-ahead", "overflow",
                                                   "report-lost"};

// "wrap,ctx-switch" -> fault_set; "" and "none" are no faults.
inline result<fault_set> parse_faults(std::string_view list) {
  fault_set f;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string_view::npos) end = list.size();
    const std::string_view name = list.substr(pos, end - pos);
    if (name == "wrap") {
      f.wrap = true;
    } else if (name == "ctx-switch") {
      f.ctx_switch = true;
    } else if (name == "tail-ahead") {
      f.tail_ahead = true;
    } else if (name == "overflow") {
      f.overflow = true;
    } else if (name == "report-lost") {
      f.report_lost = true;
    } else if (!name.empty() && name != "none") {
      return make_error(errc::unknown_name, pos,
                        "unknown fault '" + std::string(name) +
                            "' (wrap, ctx-switch, tail-ahead, overflow, report-lost)");
    }
    pos = end + 1;
  }
  return f;
}

inline std::string to_string(const fault_set& f) {
  std::string s;
  const bool on[] = {f.wrap, f.ctx_switch, f.tail_ahead, f.overflow, f.report_lost};
  for (std::size_t i = 0; i < 5; ++i) {
    if (!on[i]) continue;
    if (!s.empty()) s += ',';
    s += fault_names[i];
  }
  return s.empty() ? "none" : s;
}

struct config {
  intel::platform platform = intel::platform::hsw;
  std::string format = "A45_B8_C8";
  unsigned exponent = 10;    // timer period field (OACONTROL 11:6 / OACTXCONTROL 7:2)
  std::size_t reports = 64;  // reports the unit writes (ring, or MI_RPC buffer in mi_rpc mode)
  std::uint64_t seed = 1;
  fault_set faults{};
  bool overrun_disable = false;                   // OABUFFER "Disable Overrun Mode" (HSW bit 3)
  std::optional<unsigned> buffer_size_field;      // default: smallest size the report size divides
  std::optional<std::uint32_t> specific_context;  // count only while this context runs
  unsigned mi_rpc_every = 0;  // also issue MI_REPORT_PERF_COUNT every n timer periods
};

enum class trigger : std::uint8_t { timer, mi_rpc, ctx_switch, go_transition, clock_ratio };

inline constexpr std::string_view to_string(trigger t) noexcept {
  switch (t) {
    case trigger::timer:
      return "timer";
    case trigger::mi_rpc:
      return "mi-rpc";
    case trigger::ctx_switch:
      return "ctx-switch";
    case trigger::go_transition:
      return "go-1to0";
    case trigger::clock_ratio:
      return "clock-ratio";
  }
  return "?";
}

// One report the unit wrote, with the exact counts when it was taken.
struct report_record {
  trigger why = trigger::timer;
  bool to_ring = true;  // false: MI_REPORT_PERF_COUNT, written to its own buffer
  std::uint32_t rpt_id = 0;
  std::uint32_t ctx_id = 0;
  bool ctx_valid = false;
  std::uint32_t freq_mhz = 0;
  counter_totals at;
};

// What the consumer read, in order.
struct read_item {
  enum class kind : std::uint8_t {
    sample,       // a landed report: index into capture::reports
    unlanded,     // the tail covered it but its bytes had not landed (RPT_ID 0)
    report_lost,  // OA_REPORT_LOST status seen
    buffer_lost,  // OA_BUFFER_LOST: overflow seen, ring restarted
  };
  kind k = kind::sample;
  std::size_t report = npos;
  std::size_t stale = npos;  // unlanded: the report whose bytes the slot still held
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

// The OA buffer at the end of the run (before the consumer's final read).
struct ring_snapshot {
  std::vector<std::byte> bytes;  // whole buffer
  std::uint32_t base = 0;        // graphics address of the buffer
  std::uint32_t head = 0;        // as the head register reports it (address)
  std::uint32_t tail = 0;        // as the tail register reports it (address, 64-byte steps)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> registers;  // (MMIO address, value)
  bool buffer_overflow = false;
  bool report_lost = false;
  // The reports between head and tail aligned down to the report size, in
  // order: an index into capture::reports, or read_item::npos for a slot
  // whose report has not landed.
  std::vector<std::size_t> window;
};

struct run_stats {
  std::size_t ring_reports = 0;     // written to the ring
  std::size_t mi_rpc_reports = 0;   // written by MI_REPORT_PERF_COUNT
  std::size_t lost_collisions = 0;  // timer reports lost to MI_RPC collisions
  std::size_t overwritten = 0;      // reports overwritten after an overflow (lost to readers)
  std::size_t dropped_stopped = 0;  // not written: ring full, overrun disabled
  std::size_t restarts = 0;         // consumer restarts after OA_BUFFER_LOST
  std::size_t unlanded_reads = 0;   // zero-RPT_ID reports the consumer met
  std::size_t ctx_switches = 0;
};

struct capture {
  config cfg;
  const format_desc* format = nullptr;
  intel::generation gen{};
  std::uint64_t timestamp_hz = 0;
  std::uint64_t period_ticks = 0;
  bool mi_rpc_mode = false;  // the format fits no OA buffer: every report is an MI_RPC report
  std::uint32_t buffer_bytes = 0;
  std::vector<report_record> reports;
  std::vector<std::byte> packed;  // reports.size() * report size
  std::vector<read_item> read;
  std::vector<std::size_t> mi_rpc;  // indices of MI_RPC reports, in order
  ring_snapshot ring;
  report_values start;  // counter / TIME_STAMP values at total 0
  run_stats stats;

  std::size_t report_size() const noexcept { return format->size(); }
  std::span<const std::byte> report_bytes(std::size_t i) const noexcept {
    return {packed.data() + i * report_size(), report_size()};
  }
};

namespace detail {

// The smallest OA buffer size field whose size the report size divides.
inline std::optional<unsigned> default_size_field(intel::generation g, std::uint32_t rsize) {
  for (unsigned f = 0; f < 8; ++f) {
    if (oa_buffer_bytes(g, f) % rsize == 0) return f;
  }
  return std::nullopt;
}

// Gen7 RPT_ID bits are undocumented ([FACTS] "RPT_ID"); the emulator marks
// timer reports with bit 19 (the Gen8 timer position) so dw0 is never zero.
inline std::uint32_t compose_rpt_id(intel::generation g, trigger why, bool ctx_valid,
                                    bool timer_enabled, std::uint32_t freq_mhz,
                                    std::uint32_t mi_rpc_id) {
  if (why == trigger::mi_rpc) return mi_rpc_id;  // [PRM67] MI_REPORT_PERF_COUNT "Report ID"
  std::uint32_t reason = 0;
  switch (why) {
    case trigger::timer:
      reason = 1u << 0;
      break;
    case trigger::ctx_switch:
      reason = 1u << 3;
      break;
    case trigger::go_transition:
      reason = 1u << 4;
      break;
    case trigger::clock_ratio:
      reason = 1u << 5;
      break;
    case trigger::mi_rpc:
      break;
  }
  if (intel::is_gen7_family(g)) return reason << 19;
  std::uint32_t v = reason << 19;  // [PRM9] RPT_ID 24:19 report reason
  if (g == intel::generation::gen8) {
    if (ctx_valid) v |= 1u << 25;      // [PRM9] Gen8 table: 25 render context valid
    if (timer_enabled) v |= 1u << 16;  // [PRM9] Gen8 table: 16 timer enabled
  } else {
    if (ctx_valid) v |= 1u << 16;  // [PRM9] Gen9 table: 16 render context valid
  }
  if (g >= intel::generation::gen9 && g < intel::generation::gen12) {
    // Squashed clocks in units of 1e9/60 Hz: slice 31:25 + 10:9, unslice 8:0.
    const std::uint32_t sq = (freq_mhz * 60 + 500) / 1000;
    v |= (sq & 0x7f) << 25;
    v |= ((sq >> 7) & 0x3) << 9;
    v |= sq & 0x1ff;
  }
  return v;
}

// Places a wrap of a `bits`-wide value between totals t0 < t1: returns a start
// s with s + t0 < 2^bits <= s + t1 (mod 2^64 arithmetic for 64-bit values),
// and s == residue (mod step) when step > 0 and the interval allows it.
inline std::uint64_t wrap_start(unsigned bits, std::uint64_t t0, std::uint64_t t1, rng& r,
                                std::uint64_t step = 0, std::uint64_t residue = 0) {
  const std::uint64_t mask = width_mask(bits);
  const std::uint64_t delta = t1 - t0;
  std::uint64_t x = delta > 0 ? r.between(0, delta - 1) : 0;
  if (step > 0) {
    x = ((mask - t0 - residue) & mask) % step;  // makes (mask - t0 - x) == residue (mod step)
    if (delta > 0 && x >= delta) x = delta - 1;
  }
  return (mask - t0 - x) & mask;
}

}  // namespace detail

class oa_unit_sim {
 public:
  explicit oa_unit_sim(const config& c) : cfg_(c) {}

  result<capture> run() {
    capture cap;
    cap.cfg = cfg_;
    const intel::platform_info& pi = intel::info(cfg_.platform);
    cap.gen = pi.gen;
    cap.timestamp_hz = pi.timestamp_frequency_hz;
    cap.format = find_emu_format(cfg_.platform, cfg_.format);
    if (cap.format == nullptr) {
      return make_error(
          errc::unknown_format, 0,
          "platform " + std::string(pi.name) + " has no report format '" + cfg_.format + "'");
    }
    if (cfg_.exponent > 24) {
      return make_error(errc::out_of_range, 0,
                        "exponent " + std::to_string(cfg_.exponent) +
                            " is above 24, the largest the emulator models");
    }
    if (cfg_.reports < 2 || cfg_.reports > 1'000'000) {
      return make_error(errc::out_of_range, 0, "reports must be between 2 and 1000000");
    }
    const std::uint32_t rsize = cap.format->size();
    std::optional<unsigned> field = cfg_.buffer_size_field;
    if (field) {
      if (*field > 7 || oa_buffer_bytes(cap.gen, *field) % rsize != 0) {
        return make_error(errc::inconsistent, 0,
                          "OA buffer size field " + std::to_string(*field) +
                              " does not hold whole " + std::to_string(rsize) + "-byte reports");
      }
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
    cap.period_ticks = timer_period_ticks(cap.gen, regs_.exponent());
    gen_ = cap.gen;
    rsize_ = rsize;
    slots_.assign(cap.buffer_bytes / rsize, slot{});
    cap_ = &cap;

    rng master(cfg_.seed);
    rng ev = master.fork(2);
    rng starts = master.fork(3);
    workload wl(master.fork(1).next(), cap.period_ticks, cap.timestamp_hz, cfg_.faults.ctx_switch);
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
    counter_clock clock;
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
    const std::uint32_t size = cap.buffer_bytes;
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
    const std::uint32_t size = cap.buffer_bytes;
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
    const std::uint32_t size = cap.buffer_bytes;
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

  // Start values: random, or placed so each counter wraps inside an
  // interval the primary output contains.
  void choose_starts(rng& r) {
    capture& cap = *cap_;
    const report_layout& l = cap.format->layout;
    // Consecutive valid reports of the primary output (raw file).
    std::vector<std::size_t> seq;
    if (cap.mi_rpc_mode) {
      seq = cap.mi_rpc;
    } else {
      for (const auto& it : cap.read) {
        if (it.k == read_item::kind::sample) seq.push_back(it.report);
      }
    }
    if (seq.size() < 2) {
      seq.clear();
      for (std::size_t i = 0; i < cap.reports.size(); ++i) seq.push_back(i);
    }
    const std::uint64_t period = cap.period_ticks;
    for (const counter_slot& s : l.slots()) {
      std::uint64_t v;
      if (cap.cfg.faults.wrap) {
        // Pick an interval where the counter moves, about half way in.
        std::size_t k = seq.size() / 2 + r.between(0, seq.size() / 4);
        std::size_t tries = 0;
        while (tries++ < seq.size() && cap.reports[seq[k]].at.counter(s.k, s.index) ==
                                           cap.reports[seq[k - 1]].at.counter(s.k, s.index)) {
          k = k + 1 < seq.size() ? k + 1 : 1;
        }
        v = detail::wrap_start(s.bits, cap.reports[seq[k - 1]].at.counter(s.k, s.index),
                               cap.reports[seq[k]].at.counter(s.k, s.index), r);
      } else {
        v = r.next() & width_mask(s.bits);
      }
      cap.start.counter(s.k, s.index) = v;
    }
    // TIME_STAMP: its residue modulo the period is fixed by the timer phase
    // the run used, so only whole periods may be added.
    const unsigned ts_bits = l.ts_bits;
    const std::uint64_t phase = phase_residue_;
    if (cap.cfg.faults.wrap) {
      // Two consecutive output reports at least a period apart.
      std::size_t k = seq.size() / 2;
      for (std::size_t tries = 0; tries < seq.size(); ++tries) {
        if (cap.reports[seq[k]].at.timestamp - cap.reports[seq[k - 1]].at.timestamp >= period)
          break;
        k = k + 1 < seq.size() ? k + 1 : 1;
      }
      cap.start.timestamp = detail::wrap_start(ts_bits, cap.reports[seq[k - 1]].at.timestamp,
                                               cap.reports[seq[k]].at.timestamp, r, period, phase);
    } else {
      const std::uint64_t limit =
          ts_bits == 64 ? (std::uint64_t{1} << 40) : (std::uint64_t{1} << 32);
      const std::uint64_t m = r.between(0, limit / period - 1);
      cap.start.timestamp = phase + m * period;
    }
  }

  void pack_all() {
    capture& cap = *cap_;
    const std::size_t rsize = cap.report_size();
    cap.packed.assign(cap.reports.size() * rsize, std::byte{0});
    for (std::size_t i = 0; i < cap.reports.size(); ++i) {
      const report_record& rec = cap.reports[i];
      report_values v = cap.start;
      v.rpt_id = rec.rpt_id;
      v.timestamp = cap.start.timestamp + rec.at.timestamp;
      v.ctx_id = rec.ctx_valid ? rec.ctx_id : 0;
      v.inst_add = 0x00100000u + static_cast<std::uint32_t>(i) * 0x40u;
      for (const counter_slot& s : cap.format->layout.slots()) {
        v.counter(s.k, s.index) = cap.start.counter(s.k, s.index) + rec.at.counter(s.k, s.index);
      }
      pack_report(cap.format->layout, v, {cap.packed.data() + i * rsize, rsize});
    }
    // The ring's bytes as memory holds them at the snapshot.
    if (cap.mi_rpc_mode) return;
    cap.ring.bytes.assign(cap.buffer_bytes, std::byte{0});
    for (std::size_t k = 0; k < ring_slots_.size(); ++k) {
      const slot& s = ring_slots_[k];
      std::byte* dst = cap.ring.bytes.data() + k * rsize;
      const std::size_t src = s.landed ? s.report : s.previous;
      if (src == read_item::npos) continue;
      const auto b = cap.report_bytes(src);
      std::copy(b.begin(), b.end(), dst);
      if (!s.landed || s.rpt_cleared) store_le32(dst, 0);
    }
  }

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
