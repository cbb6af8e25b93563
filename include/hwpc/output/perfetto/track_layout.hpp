// Where each column of a row schema sits in a trace: a path of group names,
// outermost first. The track-event writer (trace_writer.hpp) makes a group
// track per path; the GPU counter writer (gpu_counter_writer.hpp) makes a
// counter group (GpuCounterGroupSpec) per path. Vendors fill one per schema
// (mali/tracks.hpp, adreno/tracks.hpp; Intel's is default_layout()).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/row.hpp"

namespace hwpc::output::perfetto {

// The groups each column's track sits under, outermost first, below the
// root (an empty path: directly under the root). Groups with the same path
// are one track.
struct track_layout {
  std::vector<std::vector<std::string>> counters;  // one path per schema counter
  std::vector<std::vector<std::string>> metrics;   // one path per schema metric
  // Track names of the counter columns when they differ from the column
  // names (a counter per core: the same name under each core's group).
  std::vector<std::string> counter_names;
};

// Intel's layout: counters under "raw counters", metrics under the set's
// name ("metrics" when it has none).
inline track_layout default_layout(const row_schema& s, std::string_view metric_group) {
  track_layout l;
  l.counters.assign(s.counters.size(), {"raw counters"});
  l.metrics.assign(s.metrics.size(),
                   {std::string(metric_group.empty() ? "metrics" : metric_group)});
  return l;
}

}  // namespace hwpc::output::perfetto
