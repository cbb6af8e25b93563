// What the GPU counter writer (gpu_counter_writer.hpp) needs to know about a
// capture beside its rows: the GPU it names (GpuInfo), the groups of its
// columns (track_layout), the CPU/GPU correlation points that put its GPU
// time on CLOCK_MONOTONIC (ClockSnapshot), and its slot in the trace (the
// GPU id and the packet sequence it is written on).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hwpc/output/perfetto/track_layout.hpp"

namespace hwpc::output::perfetto {

// GpuInfo.Gpu: the UI labels a GPU by `name` ("GPU <n>" when empty).
struct gpu_identity {
  std::string name;  // e.g. "hwpc hsw A45_B8_C8: capture.rec"
  std::string vendor;
  std::string model;
  std::string architecture;
};

// One correlation point: the same instant on CPU CLOCK_MONOTONIC and on the
// rows' clock, both in nanoseconds (GPU ticks already converted).
struct clock_pair {
  std::uint64_t cpu_ns = 0;
  std::uint64_t gpu_ns = 0;
};

struct gpu_capture {
  gpu_identity gpu;
  // Groups of the columns; default_layout() when both lists are empty.
  track_layout layout;
  // Increasing in both clocks; empty: no correlation, the rows' nanoseconds
  // are written as trace time.
  std::vector<clock_pair> correlation;
};

// Where a capture goes in a trace. A fleet gives capture k the GPU id k and
// the sequence k + 1 (fleet_writer.hpp); one capture alone is GPU 0 on 1.
struct gpu_slot {
  std::int32_t gpu_id = 0;
  std::uint32_t sequence_id = 1;
};

}  // namespace hwpc::output::perfetto
