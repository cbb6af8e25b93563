// The last stage of a run (oa_unit.hpp, step 4): counter and TIME_STAMP
// start values chosen after the dynamics, then every report packed and the
// ring's bytes laid out as memory holds them at the snapshot.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/emu/oa_unit_sim.hpp"

namespace hwpc::emu {

// What a reader clears in a slot it copied, and what an unlanded slot
// shows: RPT_ID (i915), or RPT_ID and TIME_STAMP (the Xe driver, which takes
// a report as landed when either is non-zero; FACTS-xe section 4).
inline void clear_landed_marks(const capture& cap, std::byte* report) {
  const report_layout& l = cap.format->layout;
  const bool header64 = l.ts_bits == 64;
  for (std::size_t i = 0; i < (header64 ? 8u : 4u); ++i) report[i] = std::byte{0};
  if (cap.kernel_driver != driver::xe) return;
  for (std::size_t i = 0; i < l.ts_bits / 8u; ++i) report[l.ts_offset + i] = std::byte{0};
}

// Start values: random, or placed so each counter wraps inside an
// interval the primary output contains.
inline void oa_unit_sim::choose_starts(rng& r) {
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
  const unsigned ts_bits = ts_packing_of(cap.cfg.platform, l).bits;
  const std::uint64_t phase = phase_residue_;
  if (cap.cfg.faults.wrap) {
    // Two consecutive output reports at least a period apart.
    std::size_t k = seq.size() / 2;
    for (std::size_t tries = 0; tries < seq.size(); ++tries) {
      if (cap.reports[seq[k]].at.timestamp - cap.reports[seq[k - 1]].at.timestamp >= period) break;
      k = k + 1 < seq.size() ? k + 1 : 1;
    }
    cap.start.timestamp = detail::wrap_start(ts_bits, cap.reports[seq[k - 1]].at.timestamp,
                                             cap.reports[seq[k]].at.timestamp, r, period, phase);
  } else {
    const std::uint64_t limit =
        ts_bits == 64 ? (std::uint64_t{1} << 40) : (std::uint64_t{1} << ts_bits);
    const std::uint64_t m = r.between(0, limit / period - 1);
    cap.start.timestamp = phase + m * period;
  }
}

inline void oa_unit_sim::pack_all() {
  capture& cap = *cap_;
  const std::size_t rsize = cap.report_size();
  cap.packed.assign(cap.reports.size() * rsize, std::byte{0});
  const ts_packing tsp = ts_packing_of(cap.cfg.platform, cap.format->layout);
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
    pack_report(cap.format->layout, v, {cap.packed.data() + i * rsize, rsize}, tsp);
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
    if (!s.landed || s.rpt_cleared) clear_landed_marks(cap, dst);
  }
}

}  // namespace hwpc::emu
