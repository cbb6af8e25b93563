// What the live tests share to record from the simulated kernels
// (hwpc/live/sim/): the options the simulated metric set answers to, a stop
// condition that waits for what the test needs with a deadline only as room
// for a loaded machine, and a recording gathered into memory.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/kbase_record.hpp"
#include "hwpc/live/xe_record.hpp"

namespace hwpc::testing {

// The uuid under which the simulated kernels list their metric set.
inline constexpr const char* sim_set_uuid = "11111111-2222-4333-8444-555555555555";

// An i915 or Xe recording of the simulated set, polled every 2 ms.
inline live::i915_record_options sim_intel_options(live::i915_record_options o = {}) {
  o.poll_ms = 2;
  if (o.set_uuid.empty()) o.set_uuid = sim_set_uuid;
  if (o.set_name.empty()) o.set_name = "RenderBasic";
  return o;
}

// A kbase recording at `period_ns`, polled every 2 ms.
inline live::mali_record_options sim_mali_options(std::uint64_t period_ns = 1'000'000) {
  live::mali_record_options o;
  o.period_ns = period_ns;
  o.poll_ms = 2;
  return o;
}

// Stops once `done()` or `room` has passed (the simulated units write in
// real time; the room is for a loaded machine, not a wait).
template <class Done>
auto stop_when(Done done, std::chrono::milliseconds room = std::chrono::seconds(5)) {
  const auto until = std::chrono::steady_clock::now() + room;
  return [done = std::move(done), until] {
    return done() || std::chrono::steady_clock::now() >= until;
  };
}
inline auto stop_after(std::chrono::milliseconds ms) {
  return stop_when([] { return false; }, ms);
}

template <class Counts>
struct recorded {
  result<Counts> counts;
  std::vector<std::byte> bytes;
};

// Everything `record` (live::record_i915, record_xe, record_mali as a
// lambda) writes, until `stop()`.
template <class Counts, class Record, class Options, class Stop>
recorded<Counts> record_into_memory(Record&& record, live::syscalls& k, const Options& o,
                                    Stop&& stop) {
  recorded<Counts> r{live::live_error("not run"), {}};
  r.counts = record(
      k, o,
      [&](std::span<const std::byte> b) {
        r.bytes.insert(r.bytes.end(), b.begin(), b.end());
        return true;
      },
      stop);
  return r;
}

// An i915 (or, `xe`, an Xe) recording of the simulated set for `ms`.
inline recorded<live::i915_stream_counts> record_i915_for(live::syscalls& k,
                                                          const live::i915_record_options& o,
                                                          int ms) {
  return record_into_memory<live::i915_stream_counts>(
      [](auto&&... a) { return live::record_i915(a...); }, k, sim_intel_options(o),
      stop_after(std::chrono::milliseconds(ms)));
}
inline recorded<live::xe_record_counts> record_xe_for(live::syscalls& k,
                                                      const live::i915_record_options& o, int ms) {
  return record_into_memory<live::xe_record_counts>(
      [](auto&&... a) { return live::record_xe(a...); }, k, sim_intel_options(o),
      stop_after(std::chrono::milliseconds(ms)));
}

}  // namespace hwpc::testing
