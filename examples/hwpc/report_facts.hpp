// What the HTML report (output/html/report_writer.hpp) says about a Mali
// capture, beside what its rows tell: the GPU, the reader and the layout.
// (The Intel facts are the library's: pipeline/intel_report_facts.hpp.)
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hwpc/adreno/rows.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/table.hpp"
#include "hwpc/output/html/report_writer.hpp"

namespace hwpc::cli {

// `gpu_id`: the capture header's, when it has one; `derived`: "guide",
// "database" or empty (no derived counters).
inline output::html::report_options mali_report_facts(
    const std::string& path, const mali::gpu_product& gpu, std::optional<std::uint64_t> gpu_id,
    const std::string& reader, const mali::sample_layout& layout, const std::string& derived) {
  output::html::report_options r;
  r.title = "hwpc report: " + path;
  auto fact = [&](std::string name, std::string value) {
    r.facts.push_back({std::move(name), std::move(value)});
  };
  fact("vendor", "Arm Mali");
  std::string name = std::string(gpu.name) + " (" + std::string(gpu.architecture) + ", " +
                     std::string(gpu.table->key) + " counter layout)";
  fact("GPU", name);
  fact("format", reader == "kinstr" ? "kinstr_prfcnt samples" : "vinstr samples");
  std::string device = gpu_id ? "GPU_ID " + to_hex(*gpu_id) + ", " : "";
  device += "L2 slices " + std::to_string(layout.l2_slices) + ", core mask " +
            to_hex(layout.core_mask) + " (" + std::to_string(std::popcount(layout.core_mask)) +
            " shader cores)";
  fact("device", device);
  fact("input", path + (gpu_id ? " (hwpc Mali capture file)" : " (samples without a header)"));
  r.counter_total = "sum over the samples (each summed over its block instances)";
  r.metric_total = "computed from the counter totals";
  if (!derived.empty()) {
    r.metric_group = derived == "guide" ? "Mali-G72 counter guide" : "Arm counter database";
    fact("metrics", "derived counters of the " + r.metric_group);
  }
  return r;
}

// An Adreno capture: what the input kind tells (the GPU id, when the .rd has
// one, is added once the rows are read: report_writer::add_fact).
inline output::html::report_options adreno_report_facts(const std::string& path,
                                                        std::string_view kind, bool gzip,
                                                        std::size_t metric_columns) {
  output::html::report_options r;
  r.title = "hwpc report: " + path;
  r.metric_group = "query results and counter reads";
  r.x_by_report = true;  // results are events; untimed ones sit at the last timestamp read
  r.facts.push_back({"vendor", "Qualcomm Adreno (A5xx command stream)"});
  r.facts.push_back({"format", kind == "rd"    ? "freedreno .rd capture"
                               : kind == "hex" ? "hex dword text"
                                               : "raw PM4 dwords"});
  r.facts.push_back({"input", path + (gzip ? " (gzip)" : "")});
  // Every column is a metric cell (adreno/rows.hpp); adreno::result_totals makes the totals:
  // query results add up, while gpu_time and the counters are running values read now and
  // then, whose increment over the capture is the last value read minus the first.
  r.metric_totals.resize(metric_columns);
  for (std::size_t j = 0; j < metric_columns; ++j) {
    r.metric_totals[j] = j <= adreno::col_time_elapsed
                             ? "sum over the results"
                             : "last value read minus the first (not a sum)";
  }
  return r;
}

}  // namespace hwpc::cli
