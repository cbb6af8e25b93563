// The roles of the counter model (counter_model.hpp) and the shares each
// kind of workload phase (workload.hpp) draws for them.
//
// A role names what a node of the model counts as a share of its source:
// the render engine's busy clocks of the GT clocks, the active part of the
// EU time, a stage's part of what the earlier stages left, and so on. Each
// working phase kind draws every role's share (thousandths) from a range
// here: a geometry-heavy phase gives the vertex stages most of the EU time,
// a pixel-heavy one the pixel shader, the depth tests and the sampler, a
// compute phase the compute shader and the shared local memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hwpc/emu/layouts.hpp"

namespace hwpc::emu {

// The phase-dependent shares, in thousandths. Each role has a range the
// workload draws from (workload.hpp); `full` is always 1000.
enum class role : std::uint8_t {
  full,
  busy,          // render engine busy, of GT clocks
  eu_active,     // of EU time (busy clocks x EUs)
  eu_stall,      // of the EU time left after active
  core_stall,    // of a stage's stall: the whole EU stalled
  ready,         // of a stage's stall: ready but not running (Gen6/7)
  thread_extra,  // loaded but neither active nor stalled, of EU time
  stage_vs,      // of what earlier stages left (VS, HS, DS, CS, GS; PS takes the rest)
  stage_hs,
  stage_ds,
  stage_cs,
  stage_gs,
  fpu0,             // of EU active
  fpu1,             // of FPU0 active
  fpu_both,         // of FPU1 active
  send,             // of EU active
  eu_misc,          // other flexible EU events, of EU active
  thread_dispatch,  // threads dispatched per active stage clock
  pixel_rate,       // pixels (2x2s) entering the depth tests, of busy clocks x slices
  hiz_fail,
  early_fail,
  ps_kill,
  alpha_fail,
  stencil_fail,
  late_fail,
  blend,         // of render target writes
  sampler,       // sampler 2x2 requests, of busy clocks x slices
  sampler_miss,  // of requests
  slm_read,      // of busy clocks x slices (the L3 data port)
  slm_write,
  mem_access,
  mem_miss,
  atomic,
  barrier,
  bottleneck,  // a fixed-function unit holding up its neighbours, of busy
  bottleneck2,
  spare,    // counters with no documented event: a trickle, of busy
  signal0,  // B, C and MPEC counters: 24 independent signals
  count = signal0 + 3 * max_bc,
};
inline constexpr std::size_t role_count = static_cast<std::size_t>(role::count);

constexpr role signal_role(bank k, std::size_t i) noexcept {
  const std::size_t base = k == bank::b ? 0 : k == bank::c ? max_bc : 2 * max_bc;
  return static_cast<role>(static_cast<std::size_t>(role::signal0) + base + i);
}

enum class phase_kind : std::uint8_t { idle, geometry, pixel, compute, sleep };

inline constexpr std::string_view to_string(phase_kind k) noexcept {
  switch (k) {
    case phase_kind::idle:
      return "idle";
    case phase_kind::geometry:
      return "geometry";
    case phase_kind::pixel:
      return "pixel";
    case phase_kind::compute:
      return "compute";
    case phase_kind::sleep:
      return "sleep";
  }
  return "?";
}

namespace detail {

struct share_range {
  std::uint16_t lo, hi;
};

// The range each role's share is drawn from in each working phase kind
// (idle, geometry, pixel, compute). Every range starts above zero so every
// counter moves in every working phase (a requested wrap can be placed).
inline share_range share_range_of(role r, phase_kind k) {
  const auto i = static_cast<std::size_t>(k);
  auto pick = [i](share_range idle, share_range geo, share_range pix, share_range cs) {
    const share_range all[] = {idle, geo, pix, cs};
    return all[i < 4 ? i : 0];
  };
  switch (r) {
    case role::full:
      return {1000, 1000};
    case role::busy:
      return pick({30, 150}, {600, 950}, {750, 1000}, {850, 1000});
    case role::eu_active:
      return pick({100, 300}, {250, 450}, {300, 600}, {400, 700});
    case role::eu_stall:
      return pick({50, 200}, {150, 450}, {150, 500}, {100, 400});
    case role::core_stall:
      return {300, 800};
    case role::ready:
      return {100, 500};
    case role::thread_extra:
      return {100, 600};
    case role::stage_vs:
      return pick({100, 300}, {300, 500}, {50, 150}, {5, 20});
    case role::stage_hs:
    case role::stage_ds:
      return pick({50, 200}, {100, 250}, {5, 30}, {5, 10});
    case role::stage_cs:
      return pick({50, 200}, {5, 30}, {5, 30}, {900, 990});
    case role::stage_gs:
      return pick({50, 200}, {150, 400}, {5, 50}, {5, 20});
    case role::fpu0:
      return {500, 900};
    case role::fpu1:
      return {300, 800};
    case role::fpu_both:
      return {100, 500};
    case role::send:
      return {100, 400};
    case role::eu_misc:
      return {50, 400};
    case role::thread_dispatch:
      return {1, 5};  // threads of 200 to 1000 active clocks
    case role::pixel_rate:
      return pick({10, 50}, {50, 200}, {500, 1000}, {5, 20});
    case role::hiz_fail:
      return {50, 400};
    case role::early_fail:
      return {20, 200};
    case role::ps_kill:
    case role::alpha_fail:
    case role::stencil_fail:
      return {5, 100};
    case role::late_fail:
      return {5, 200};
    case role::blend:
      return {200, 900};
    case role::sampler:
      return pick({20, 100}, {50, 200}, {300, 800}, {50, 300});
    case role::sampler_miss:
      return {20, 200};
    case role::slm_read:
      return pick({5, 20}, {5, 20}, {5, 20}, {100, 300});
    case role::slm_write:
      return pick({5, 20}, {5, 20}, {5, 20}, {50, 200});
    case role::mem_access:
      return {100, 500};
    case role::mem_miss:
      return {50, 300};
    case role::atomic:
      return {5, 100};
    case role::barrier:
      return pick({1, 3}, {1, 3}, {1, 3}, {5, 20});
    case role::bottleneck:
    case role::bottleneck2:
      return {5, 300};
    case role::spare:
      return {5, 50};
    default:
      // B, C and MPEC signals: capped by the model (signal_cap()).
      return {5, 1000};
  }
}

}  // namespace detail

}  // namespace hwpc::emu
