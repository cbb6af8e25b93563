// Where Adreno query results go in a Perfetto trace
// (output/perfetto/trace_writer.hpp): the query columns (samples_passed,
// time_elapsed, timestamp) in a "queries" group, each sampled performance
// counter in a group per counter group under "performance counters".
//
//   <capture>
//     queries                     samples_passed, time_elapsed, gpu_time
//       pipeline statistics       ia_vertices, ... (A6XX/A7XX)
//       stream-out                primitives_written_0, ... (A6XX/A7XX)
//     performance counters
//       CP                        CP_1, ...
//       SP                        SP_3, ...
#pragma once

#include <span>
#include <string>

#include "hwpc/adreno/rows.hpp"
#include "hwpc/output/perfetto/trace_writer.hpp"

namespace hwpc::adreno {

// The layout of schema_of(counters), column for column.
inline output::perfetto::track_layout track_layout_of(std::span<const counter_key> counters) {
  output::perfetto::track_layout l;
  l.metrics.assign(first_counter_column, {"queries"});
  for (const counter_key& k : counters) {
    if (k.group != nullptr) {
      l.metrics.push_back({"performance counters", std::string(k.group->name)});
    } else {
      l.metrics.push_back(
          {"queries", k.column.starts_with("primitives_") ? "stream-out" : "pipeline statistics"});
    }
  }
  return l;
}

}  // namespace hwpc::adreno
