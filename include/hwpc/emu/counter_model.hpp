// What the OA counters observe: a small flow network per generation.
//
// Every counter is a *share* of a parent quantity's increments: GPU busy
// clocks are a share of GT clocks, EU-active time a share of (busy clocks x
// EUs), a shader stage's active time a share of what earlier stages left of
// the EU-active time, and so on. Each step of the model (a stretch of time
// in one workload phase) computes
//
//     d(node) = floor(mult x d(source) x share / 1000)
//
// where d(source) is the sum of the increments of the `plus` nodes minus
// those of the `minus` nodes, and share <= 1000 is the phase's value for the
// node's role. Rounding down in every step (no carried remainder) makes every
// relation the network encodes hold exactly in each step, and therefore in
// every interval between two reports:
//   - a child never exceeds its parent (a stall never exceeds its busy, a
//     sampler miss never exceeds its request);
//   - children of a residual (parent minus siblings) never sum past the parent
//     (EU active + EU stall <= EU time, the stages' active times <= EU active);
//   - a fraction bound holds without rounding slack (each Gen8+ B counter
//     <= 1/16 of the busy clocks, so sixteen of them never sum past them).
// docs/emulator.md "The counter model" lists the network of each generation
// with the PRM rows it follows.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/roles.hpp"
#include "hwpc/emu/sku.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

struct model_node {
  static constexpr std::uint16_t none = 0xffff;
  std::array<std::uint16_t, 3> plus{none, none, none};
  std::array<std::uint16_t, 2> minus{none, none};
  std::uint32_t mult = 1;
  role share = role::full;
  bool round_up = false;  // ceil instead of floor (a count of items that each take time)
  bool counter = false;   // whether the node is a counter (out_bank, out_index)
  bank out_bank = bank::a;
  std::uint8_t out_index = 0;
};

// Node 0 is the GT clock; the rest are evaluated in order (sources first).
class counter_model {
 public:
  counter_model(intel::platform p, const sku& device,
                std::vector<std::pair<bank, std::uint8_t>> clock_signals = {})
      : sku_(device), clock_signals_(std::move(clock_signals)) {
    nodes_.push_back({});  // the clock
    nodes_[0].counter = true;
    nodes_[0].out_bank = bank::gpu_ticks;
    const auto gen = intel::generation_of(p);
    // Bounds the metric files rely on (docs/emulator.md): Gen8-11 thread
    // occupancy 8 x A/threads <= EUs x clocks with A <= EU active; Gen12
    // occupancy 2 x active of a group within 7/8 of it.
    eu_active_cap_ = gen >= intel::generation::gen12 ? 430 : 800;
    // B/C signals: the Gen8+ files sum up to sixteen of them against the
    // clocks (BDW L3TotalThroughput: 2 x eight counters <= clocks x slices),
    // so each stays within 1/16 of the busy clocks there; HSW's files sum
    // at most two (ComputeBasic UntypedBytesRead: B0 + B1 <= clocks;
    // RenderBasic L3SamplerThroughput: B6 + B7 <= clocks / 2), so each stays
    // within a quarter of them.
    signal_cap_ = intel::is_gen7_family(gen) ? 250 : 62;
    busy_ = add({0}, {}, 1, role::busy);
    if (gen == intel::generation::gen6) {
      build_gen6();
    } else if (intel::is_gen7_family(gen)) {
      build_gen7();
    } else if (gen >= intel::generation::xe2) {
      build_xe2();
    } else {
      build_gen8(gen >= intel::generation::gen12);
    }
    build_signals(gen);
    // A counter with no modelled event still counts a trickle, so that a
    // requested wrap can always be placed (the PRM leaves them reserved).
    // Xe2+ formats carry PEC and no A counters; earlier ones the reverse.
    const bool xe2 = gen >= intel::generation::xe2;
    for (std::uint8_t i = 0; i < (xe2 ? max_pec : max_a); ++i) {
      const bank k = xe2 ? bank::pec : bank::a;
      if (!mapped(k, i)) out(add({busy_}, {}, 1, role::spare), k, i);
    }
  }

  const std::vector<model_node>& nodes() const noexcept { return nodes_; }
  const sku& device() const noexcept { return sku_; }
  // The largest EU-active share (thousandths) the workload may use.
  std::uint16_t eu_active_cap() const noexcept { return eu_active_cap_; }
  // The largest share (thousandths of the busy clocks) of a B/C/MPEC signal
  // that is not a child of another.
  std::uint16_t signal_cap() const noexcept { return signal_cap_; }
  // Whether a B/C/MPEC signal counts only while another holds (its share is
  // then a fraction of that signal rather than of the busy clocks).
  bool signal_is_child(bank k, std::size_t i) const noexcept {
    for (const auto& [kk, ii] : child_signals_) {
      if (kk == k && ii == i) return true;
    }
    return false;
  }
  // Whether signal (bank, i) carries the GT clock (it counts every clock).
  bool is_clock_signal(bank k, std::size_t i) const noexcept {
    for (const auto& [kk, ii] : clock_signals_) {
      if (kk == k && ii == i) return true;
    }
    return false;
  }

  // One step: the clock's increment in, every node's increment out (into
  // `d`, sized nodes().size()), given the phase's shares.
  void step(std::uint64_t clocks, const std::array<std::uint16_t, role_count>& share,
            std::vector<std::uint64_t>& d) const {
    d.assign(nodes_.size(), 0);
    d[0] = clocks;
    for (std::size_t n = 1; n < nodes_.size(); ++n) {
      const model_node& m = nodes_[n];
      std::uint64_t src = 0;
      for (auto s : m.plus) {
        if (s != model_node::none) src += d[s];
      }
      for (auto s : m.minus) {
        if (s != model_node::none) src -= d[s];  // never below zero: children <= parents
      }
      src *= m.mult;
      const std::uint64_t r =
          m.share == role::full ? 1000 : share[static_cast<std::size_t>(m.share)];
      d[n] = src / 1000 * r + (src % 1000 * r + (m.round_up ? 999 : 0)) / 1000;
    }
  }

 private:
  using idx = std::uint16_t;
  static constexpr idx none = model_node::none;

  idx add(std::initializer_list<idx> plus, std::initializer_list<idx> minus, std::uint32_t mult,
          role r) {
    model_node m;
    std::size_t i = 0;
    for (idx p : plus) m.plus[i++] = p;
    i = 0;
    for (idx p : minus) m.minus[i++] = p;
    m.mult = mult;
    m.share = r;
    nodes_.push_back(m);
    return static_cast<idx>(nodes_.size() - 1);
  }
  idx out(idx n, bank k, std::size_t i) {
    nodes_[n].counter = true;
    nodes_[n].out_bank = k;
    nodes_[n].out_index = static_cast<std::uint8_t>(i);
    return n;
  }
  bool mapped(bank k, std::size_t i) const {
    for (const auto& m : nodes_) {
      if (m.counter && m.out_bank == k && m.out_index == i) return true;
    }
    return false;
  }

  // EU time and its active / stall split (of busy clocks x EUs).
  void eu_time() {
    eu_ = add({busy_}, {}, sku_.model_eus(), role::full);
    active_ = add({eu_}, {}, 1, role::eu_active);
    stall_ = add({eu_}, {active_}, 1, role::eu_stall);
    extra_ = add({eu_}, {active_, stall_}, 1, role::thread_extra);
  }

  // Gen6/7 per-stage rows from PRM base b: active (b), stall (b+1), core
  // stall (b+2), threads (b+3), ready but not running (b+4, SNB).
  // Each stage takes its role's share of what the earlier stages left; the
  // last takes the rest, so the stages' active times add up to A0.
  struct stage {
    std::uint8_t base;
    role split;
  };
  void stage_rows(std::initializer_list<stage> stages, bool ready_row) {
    idx rest_a = active_, rest_s = stall_, rest_x = extra_;
    for (const stage& st : stages) {
      const idx a = out(add({rest_a}, {}, 1, st.split), bank::a, st.base);
      const idx s = out(add({rest_s}, {}, 1, st.split), bank::a, st.base + 1u);
      const idx x = add({rest_x}, {}, 1, st.split);
      out(add({s}, {}, 1, role::core_stall), bank::a, st.base + 2u);
      // Threads, a count: the HSW file reads the row as the stage's hardware
      // threads dispatched (VsThreads = A5) and divides the active and
      // stalled EU cycles by it (VsEuActivePerThread = A2 / A5, at most 100
      // cycles). Each thread runs 20 to 100 active EU cycles (10 x the
      // dispatch share of 1..5 thousandths, rounded up), so a step with any
      // active time dispatches at least one thread and A2 <= 100 x A5 holds
      // in every step, and so in every interval. (A count of loaded thread
      // cycles, at least the active cycles, would make every *PerThread
      // metric 0 under integer division.)
      const idx threads = out(add({a}, {}, 10, role::thread_dispatch), bank::a, st.base + 3u);
      nodes_[threads].round_up = true;
      if (ready_row) out(add({s}, {}, 1, role::ready), bank::a, st.base + 4u);
      rest_a = add({rest_a}, {a}, 1, role::full);
      rest_s = add({rest_s}, {s}, 1, role::full);
      rest_x = add({rest_x}, {x}, 1, role::full);
    }
  }

  // Pixels through the depth and stencil tests and the pixel shader.
  struct pixel_flow {
    idx hiz_fail, hiz_pass, early_fail, early_pass, killed, alpha, stencil, late, written;
  };
  pixel_flow pixels(std::uint32_t per_clock) {
    pixel_flow f{};
    const idx raster = add({busy_}, {}, per_clock, role::pixel_rate);
    f.hiz_fail = add({raster}, {}, 1, role::hiz_fail);
    f.hiz_pass = add({raster}, {f.hiz_fail}, 1, role::full);
    f.early_fail = add({f.hiz_pass}, {}, 1, role::early_fail);
    f.early_pass = add({f.hiz_pass}, {f.early_fail}, 1, role::full);
    f.killed = add({f.early_pass}, {}, 1, role::ps_kill);
    const idx alive = add({f.early_pass}, {f.killed}, 1, role::full);
    f.alpha = add({alive}, {}, 1, role::alpha_fail);
    const idx alive2 = add({alive}, {f.alpha}, 1, role::full);
    f.stencil = add({alive2}, {}, 1, role::stencil_fail);
    const idx alive3 = add({alive2}, {f.stencil}, 1, role::full);
    f.late = add({alive3}, {}, 1, role::late_fail);
    f.written = add({alive3}, {f.late}, 1, role::full);
    return f;
  }

  // [PRM67] SNB aggregating counters A0..A28.
  void build_gen6() {
    eu_time();
    out(active_, bank::a, 0);
    out(stall_, bank::a, 1);
    stage_rows({{2, role::stage_vs}, {7, role::stage_gs}, {12, role::full}}, true);
    const pixel_flow f = pixels(4);
    out(f.killed, bank::a, 21);
    out(f.alpha, bank::a, 22);
    out(f.stencil, bank::a, 23);
    out(f.late, bank::a, 24);
    out(f.written, bank::a, 25);
    out(busy_, bank::a, 26);
    out(add({busy_}, {}, 1, role::bottleneck), bank::a, 27);   // CL active
    out(add({busy_}, {}, 1, role::bottleneck2), bank::a, 28);  // SF active
  }

  // [PRM67] IVB/VLV/HSW aggregating counters A0..A44. The PRM prints the
  // second row of each stage "Reserved"; the HSW metric file reads it as the
  // stage's stall (VsEuStall = A3), which is what the emulator puts there.
  // The fifth row is reserved (a trickle, see the constructor).
  void build_gen7() {
    eu_time();
    out(active_, bank::a, 0);
    out(stall_, bank::a, 1);
    stage_rows({{2, role::stage_vs},
                {7, role::stage_hs},
                {12, role::stage_ds},
                {17, role::stage_cs},
                {22, role::stage_gs},
                {27, role::full}},
               false);
    const pixel_flow f = pixels(4);
    out(f.hiz_pass, bank::a, 32);
    out(f.hiz_fail, bank::a, 33);
    out(f.early_pass, bank::a, 34);
    out(f.early_fail, bank::a, 35);
    out(f.killed, bank::a, 36);
    out(f.alpha, bank::a, 37);
    out(f.stencil, bank::a, 38);
    // Post-PS depth failures include the killed samples: the metric file
    // subtracts A36 from A39 (PostPsDepthTestFails).
    out(add({f.late, f.killed}, {}, 1, role::full), bank::a, 39);
    out(f.written, bank::a, 40);
    out(busy_, bank::a, 41);
    out(add({busy_}, {}, 1, role::bottleneck), bank::a, 42);   // VS
    out(add({busy_}, {}, 1, role::bottleneck2), bank::a, 43);  // GS
  }

  // [PRM9] Gen8+ A0 busy, A1..A6 threads dispatched, A7..A20 flexible EU
  // counters, A21..A27 2x2s, A28..A35 sampler, SLM and memory messages.
  void build_gen8(bool gen12) {
    out(busy_, bank::a, 0);
    eu_time();
    // Threads dispatched per stage (VS, HS, DS, CS, GS, PS at A1..A6), from
    // each stage's share of the active EU time.
    {
      static constexpr role splits[] = {role::stage_vs, role::stage_hs, role::stage_ds,
                                        role::stage_cs, role::stage_gs, role::full};
      static constexpr std::uint8_t at[] = {1, 2, 3, 4, 5, 6};
      idx rest = active_;
      for (std::size_t k = 0; k < 6; ++k) {
        const idx st = add({rest}, {}, 1, splits[k]);
        out(add({st}, {}, 1, role::thread_dispatch), bank::a, at[k]);
        rest = add({rest}, {st}, 1, role::full);
      }
    }
    if (!gen12) {
      // The flexible counters as the Gen8-11 metric files program them most:
      // A7 active, A8 stall, A9 both FPUs, A10 FPU0, A11 FPU1, A12 send.
      out(active_, bank::a, 7);
      out(stall_, bank::a, 8);
      const idx fpu0 = out(add({active_}, {}, 1, role::fpu0), bank::a, 10);
      const idx fpu1 = out(add({fpu0}, {}, 1, role::fpu1), bank::a, 11);
      out(add({fpu1}, {}, 1, role::fpu_both), bank::a, 9);
      out(add({active_}, {}, 1, role::send), bank::a, 12);
      for (std::uint8_t i = 13; i <= 20; ++i) out(add({active_}, {}, 1, role::eu_misc), bank::a, i);
    } else {
      // Gen12 reads the EU array in four groups of EUs: A7..A10 active,
      // A11..A14 stall, A15..A18 thread occupancy (x8 / threads per EU).
      for (unsigned g = 0; g < 4; ++g) {
        const idx pool = add({busy_}, {}, sku_.eus_in_group(g, 4), role::full);
        const idx a = out(add({pool}, {}, 1, role::eu_active), bank::a, 7 + g);
        out(add({pool}, {a}, 1, role::eu_stall), bank::a, 11 + g);
        // Occupancy: two threads resident per active EU cycle.
        out(add({a, a}, {}, 1, role::full), bank::a, 15 + g);
      }
      out(add({active_}, {}, 1, role::eu_misc), bank::a, 19);
      out(add({active_}, {}, 1, role::eu_misc), bank::a, 20);
    }
    const std::uint32_t slices = sku_.slices();
    const pixel_flow f = pixels(slices);
    out(add({f.hiz_fail, f.hiz_pass}, {}, 1, role::full), bank::a, 21);  // rasterized
    out(f.hiz_fail, bank::a, 22);
    out(f.early_fail, bank::a, 23);
    out(f.killed, bank::a, 24);
    out(add({f.alpha, f.stencil, f.late}, {}, 1, role::full), bank::a, 25);
    out(f.written, bank::a, 26);
    out(add({f.written}, {}, 1, role::blend), bank::a, 27);
    const idx samp = out(add({busy_}, {}, slices, role::sampler), bank::a, 28);
    out(add({samp}, {}, 1, role::sampler_miss), bank::a, 29);
    // The L3 data port: at most one message per slice per clock.
    const idx port = add({busy_}, {}, slices, role::full);
    const idx slm_r = out(add({port}, {}, 1, role::slm_read), bank::a, 30);
    const idx rest = add({port}, {slm_r}, 1, role::full);
    const idx slm_w = out(add({rest}, {}, 1, role::slm_write), bank::a, 31);
    const idx rest2 = add({rest}, {slm_w}, 1, role::full);
    const idx mem = out(add({rest2}, {}, 1, role::mem_access), bank::a, 32);
    out(add({mem}, {}, 1, role::mem_miss), bank::a, 33);
    out(add({slm_r}, {}, 1, role::atomic), bank::a, 34);
    out(add({busy_}, {}, 1, role::barrier), bank::a, 35);
  }

  // Xe2/Xe3 PEC0..63, as the Xe2 metric files' RenderBasic programs them
  // (oa-lnl.xml / oa-bmg.xml: GPU_BUSY = PEC32, XVE_ACTIVE = PEC24, ...), so a
  // set's formulas see the relations they assume: busy <= clocks, XVE
  // active + stall <= XVEs x clocks, ALU0 per stage <= ALU0 <= active, a
  // miss <= its access, pixels written <= rasterized. Other PECs trickle.
  void build_xe2() {
    eu_time();
    out(busy_, bank::pec, 32);                                   // GPU_BUSY
    out(active_, bank::pec, 24);                                 // XVE_ACTIVE
    out(stall_, bank::pec, 20);                                  // XVE_STALL
    out(add({stall_}, {}, 1, role::core_stall), bank::pec, 27);  // shared-function hold
    // ALU0 / ALU1 instructions (one per active XVE clock at most), split
    // over CS, PS, VS as PEC 8/9/10 and 11/12/13.
    const idx alu0 = out(add({active_}, {}, 1, role::fpu0), bank::pec, 25);
    const idx alu1 = out(add({alu0}, {}, 1, role::fpu1), bank::pec, 26);
    for (auto [src, base] : {std::pair<idx, std::uint8_t>{alu0, 8}, {alu1, 11}}) {
      const idx vs = out(add({src}, {}, 1, role::stage_vs), bank::pec, base + 2u);
      const idx rest = add({src}, {vs}, 1, role::full);
      const idx cs = out(add({rest}, {}, 1, role::stage_cs), bank::pec, base);
      out(add({rest}, {cs}, 1, role::full), bank::pec, base + 1u);  // PS: the rest
    }
    out(add({active_}, {}, 1, role::send), bank::pec, 7);
    out(add({active_, active_}, {}, 1, role::full), bank::pec, 14);  // occupancy, 2 per active
    out(add({active_}, {}, 1, role::eu_misc), bank::pec, 15);        // instructions issued
    const idx ihit = out(add({active_}, {}, 1, role::eu_misc), bank::pec, 22);
    out(add({ihit}, {}, 1, role::sampler_miss), bank::pec, 23);
    // Thread groups and the geometry front end.
    const idx tg = out(add({busy_}, {}, 1, role::stage_cs), bank::pec, 0);
    out(add({tg}, {}, 1, role::thread_dispatch), bank::pec, 1);
    const idx verts = out(add({busy_}, {}, 1, role::stage_vs), bank::pec, 33);
    out(add({verts}, {}, 1, role::full), bank::pec, 42);  // clipper input vertices
    const idx prims = out(add({verts}, {}, 1, role::bottleneck), bank::pec, 46);
    const idx cull = out(add({prims}, {}, 1, role::hiz_fail), bank::pec, 43);
    out(add({prims}, {cull}, 1, role::full), bank::pec, 45);
    out(add({cull}, {}, 1, role::early_fail), bank::pec, 44);
    // Pixels.
    const pixel_flow f = pixels(sku_.subslices());
    out(add({f.hiz_fail, f.hiz_pass}, {}, 1, role::full), bank::pec, 34);
    out(f.alpha, bank::pec, 2);
    out(f.killed, bank::pec, 3);
    out(f.written, bank::pec, 36);
    out(add({f.written}, {}, 1, role::blend), bank::pec, 35);
    // Sampler, load/store cache, L3, memory (per Xe-core per clock at most).
    const idx samp = out(add({busy_}, {}, sku_.subslices(), role::sampler), bank::pec, 5);
    const idx tex = out(add({samp}, {}, 1, role::full), bank::pec, 6);
    out(add({tex}, {}, 1, role::sampler_miss), bank::pec, 21);
    const idx port = add({busy_}, {}, sku_.subslices(), role::full);
    const idx slm_r = add({port}, {}, 1, role::slm_read);
    const idx rest = add({port}, {slm_r}, 1, role::full);
    const idx slm_w = add({rest}, {}, 1, role::slm_write);
    const idx rest2 = add({rest}, {slm_w}, 1, role::full);
    const idx lsc = out(add({rest2}, {}, 1, role::mem_access), bank::pec, 31);
    const idx lsc_miss = add({lsc}, {}, 1, role::mem_miss);
    out(add({lsc}, {lsc_miss}, 1, role::full), bank::pec, 30);  // hits
    out(add({slm_r}, {}, 1, role::atomic), bank::pec, 4);       // SLM bank conflicts
    out(add({lsc}, {}, 64, role::full), bank::pec, 16);         // 64-byte lines
    out(add({slm_w}, {}, 64, role::full), bank::pec, 17);
    out(add({slm_r}, {}, 64, role::full), bank::pec, 18);
    out(add({slm_w}, {}, 64, role::full), bank::pec, 19);
    out(add({lsc_miss}, {}, 1, role::full), bank::pec, 37);       // L3 reads
    out(add({slm_w}, {}, 1, role::mem_miss), bank::pec, 38);      // L3 writes
    out(add({lsc_miss}, {}, 32, role::mem_miss), bank::pec, 57);  // memory bytes / 2
    out(add({slm_w}, {}, 32, role::mem_miss), bank::pec, 58);
    // Engines busy: render (all of busy), compute and copy (shares).
    out(add({busy_}, {}, 1, role::full), bank::pec, 40);
    out(add({busy_}, {}, 1, role::stage_cs), bank::pec, 39);
    out(add({busy_}, {}, 1, role::bottleneck2), bank::pec, 41);
    // Ray tracing: rays, BVH cache misses.
    const idx rays = out(add({busy_}, {}, 1, role::barrier), bank::pec, 29);
    out(add({rays}, {}, 1, role::sampler_miss), bank::pec, 28);
  }

  // B, C and MPEC counters count cycles while a signal holds: each is a
  // share of the busy clocks (<= signal_cap()) or of a related signal
  // (a "stalled" beside its "busy"), or the GT clock itself where a metric
  // set routes it there (HSW has no GPU_TICKS field).
  void build_signals(intel::generation gen) {
    using G = intel::generation;
    // (parent, child) pairs: the child (a stall) counts only while the
    // parent (its busy) holds. The pairs follow the subtractions of the
    // generation's metric files (e.g. NonSamplerShader00AccessStalledOnL3 =
    // C3 - C2 on Gen9); see docs/emulator.md.
    struct pair {
      bank pk;
      std::uint8_t pi;
      bank ck;
      std::uint8_t ci;
    };
    std::vector<pair> pairs;
    if (intel::is_gen7_family(gen)) {
      // HSW RenderBasic: a sampler's bottleneck (B2, B3) only while it is
      // busy (B0, B1).
      pairs = {{bank::b, 0, bank::b, 2}, {bank::b, 1, bank::b, 3}};
    } else if (gen == G::gen8 || gen == G::gen9) {
      pairs = {{bank::c, 3, bank::c, 2}, {bank::c, 5, bank::c, 4}, {bank::c, 7, bank::c, 6},
               {bank::b, 5, bank::b, 4}, {bank::b, 7, bank::b, 6}, {bank::c, 1, bank::c, 0}};
    } else if (gen == G::gen10) {
      pairs = {{bank::b, 2, bank::b, 3},
               {bank::b, 4, bank::b, 5},
               {bank::b, 6, bank::b, 7},
               {bank::c, 0, bank::c, 1},
               {bank::c, 2, bank::c, 3}};
    } else if (gen == G::gen11) {
      pairs = {{bank::c, 0, bank::b, 7},
               {bank::c, 2, bank::c, 1},
               {bank::c, 4, bank::c, 3},
               {bank::c, 6, bank::c, 5}};
    }
    auto child_of = [&](bank k, std::uint8_t i) -> const pair* {
      for (const auto& p : pairs) {
        if (p.ck == k && p.ci == i) return &p;
      }
      return nullptr;
    };
    std::array<idx, 3 * max_bc> node{};
    node.fill(none);
    auto slot = [](bank k, std::size_t i) {
      return (k == bank::b ? 0 : k == bank::c ? max_bc : 2 * max_bc) + i;
    };
    // Parents first, then children.
    for (int pass = 0; pass < 2; ++pass) {
      for (bank k : {bank::b, bank::c, bank::mpec}) {
        for (std::uint8_t i = 0; i < max_bc; ++i) {
          const pair* p = child_of(k, i);
          if ((p != nullptr) != (pass == 1)) continue;
          idx n;
          if (is_clock_signal(k, i)) {
            n = add({0}, {}, 1, role::full);
          } else if (p != nullptr) {
            n = add({node[slot(p->pk, p->pi)]}, {}, 1, signal_role(k, i));
            child_signals_.emplace_back(k, i);
          } else {
            n = add({busy_}, {}, 1, signal_role(k, i));
          }
          node[slot(k, i)] = out(n, k, i);
        }
      }
    }
  }

  sku sku_;
  std::vector<std::pair<bank, std::uint8_t>> clock_signals_;
  std::vector<model_node> nodes_;
  std::vector<std::pair<bank, std::uint8_t>> child_signals_;
  idx busy_ = none, eu_ = none, active_ = none, stall_ = none, extra_ = none;
  std::uint16_t eu_active_cap_ = 800;
  std::uint16_t signal_cap_ = 62;
};

}  // namespace hwpc::emu
