// Where Mali rows go in a Perfetto trace (output/perfetto/trace_writer.hpp):
// under the GPU, one group per block type holding the counters summed over
// its instances, and within the L2 (memory) and shader-core groups one
// group per instance ("L2 slice 0", "core 3": the core-mask bit) holding that
// instance's counters, under the counters' names (hardware or Streamline, as
// row_options::names asks); derived counters in
// their own group under the GPU.
//
//   <capture>
//     Mali-G78                    the GPU
//       front-end, tiler          summed counters (one instance each)
//       memory                    summed counters, then "L2 slice <i>" groups
//       shader core               summed counters, then "core <bit>" groups
//       derived counters          metrics, when there are any
#pragma once

#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/output/perfetto/trace_writer.hpp"

namespace hwpc::mali {

inline std::string instance_group_name(const block_instance& b) {
  return (b.type == block_type::memory ? "L2 slice " : "core ") + std::to_string(b.number);
}

// The layout of the schema row_builder(gpu, ev, o) makes, column for column.
inline output::perfetto::track_layout track_layout_of(const gpu_product& gpu, const row_schema& s,
                                                      const row_options& o) {
  output::perfetto::track_layout l;
  const std::string g(gpu.name);
  for (const hw_counter& c : gpu.table->counters) {
    l.counters.push_back({g, std::string(to_string(c.id.block))});
    l.counter_names.emplace_back(counter_name(*gpu.table, c, o.names));
  }
  if (o.per_instance) {
    for (const block_instance& b : instances_of(*o.per_instance)) {
      for (const hw_counter& c : gpu.table->counters) {
        if (c.id.block != b.type) continue;
        l.counters.push_back({g, std::string(to_string(b.type)), instance_group_name(b)});
        l.counter_names.emplace_back(counter_name(*gpu.table, c, o.names));
      }
    }
  }
  l.metrics.assign(s.metrics.size(), {g, "derived counters"});
  return l;
}

}  // namespace hwpc::mali
