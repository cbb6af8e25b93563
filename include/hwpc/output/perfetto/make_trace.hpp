// The Perfetto writer `--output perfetto` asks for, by layout:
// gpu-counters (the default: GPU counter packets, gpu_counter_writer.hpp)
// or track-event (the older generic counter tracks, trace_writer.hpp), kept
// behind --perfetto-layout track-event while viewers and scripts move.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/perfetto/fleet_writer.hpp"
#include "hwpc/output/perfetto/gpu_counter_writer.hpp"
#include "hwpc/output/perfetto/trace_writer.hpp"

namespace hwpc::output::perfetto {

enum class trace_layout : std::uint8_t { gpu_counters, track_event };

inline constexpr std::string_view trace_layout_names = "gpu-counters (default) or track-event";

inline std::optional<trace_layout> parse_trace_layout(std::string_view s) {
  if (s == "gpu-counters") return trace_layout::gpu_counters;
  if (s == "track-event") return trace_layout::track_event;
  return std::nullopt;
}

struct trace_options {
  trace_layout layout = trace_layout::gpu_counters;
  std::string title;         // the root track (track-event); the GPU's name (gpu-counters)
  std::string vendor;        // GpuInfo
  std::string model;         // GpuInfo
  std::string metric_group;  // the metrics' group in the default layout
  track_layout columns;      // empty: default_layout(schema, metric_group)
  // track-event: the rows' times to trace nanoseconds (CPU time when a
  // recording correlates them); empty: the schema's tick rate.
  trace_writer::clock_map to_ns;
  // gpu-counters: correlation points (CPU ns, GPU ns); empty: none.
  std::vector<clock_pair> correlation;
};

// Correlation points (anything with cpu_ns and gpu_ts in ticks at `hz`, as
// intel::time_correlation::points() gives them) as clock_pairs.
template <class Points>
std::vector<clock_pair> clock_pairs(const Points& points, std::uint64_t hz) {
  std::vector<clock_pair> out;
  for (const auto& p : points) {
    out.push_back({p.cpu_ns, static_cast<std::uint64_t>(ticks_to_ns(p.gpu_ts, hz))});
  }
  return out;
}

// `fleet` (gpu-counters only): the trace several captures share; this
// capture takes its next GPU and sequence.
inline std::unique_ptr<row_writer> make_trace_writer(text_buffer& out, const row_schema& s,
                                                     trace_options o,
                                                     fleet_writer* fleet = nullptr) {
  track_layout columns = o.columns.counters.empty() && o.columns.metrics.empty()
                             ? default_layout(s, o.metric_group)
                             : std::move(o.columns);
  if (o.layout == trace_layout::track_event) {
    return std::make_unique<trace_writer>(out, s, o.title, std::move(columns), std::move(o.to_ns));
  }
  gpu_capture c;
  c.gpu.name = std::move(o.title);
  c.gpu.vendor = std::move(o.vendor);
  c.gpu.model = std::move(o.model);
  c.layout = std::move(columns);
  c.correlation = std::move(o.correlation);
  const gpu_slot slot = fleet != nullptr ? fleet->next_slot() : gpu_slot{};
  return std::make_unique<gpu_counter_writer>(out, s, std::move(c), slot);
}

}  // namespace hwpc::output::perfetto
