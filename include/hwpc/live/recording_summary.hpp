// What a live recording (live/recording.hpp) ends with: what the kernel
// handed out (reports or samples, the losses it reported), the bytes
// written, the rows' accounting; and its words for them, the same lines for
// every door (the tool prints them on stderr, Python gives them with the
// counts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/live/xe_stream.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::live {

struct recording_summary {
  bool mali = false;
  bool xe = false;                // an Intel recording on the Xe driver
  std::size_t samples = 0;        // reports (Intel) or samples (Mali)
  std::size_t report_lost = 0;    // Intel: OA_REPORT_LOST records
  std::size_t buffer_lost = 0;    // Intel: OA_BUFFER_LOST records
  std::size_t overflow = 0;       // Mali: samples after a full ring
  std::size_t failed_reads = 0;   // Xe: reads that failed with EIO
  std::uint64_t status_bits = 0;  // Xe: every status bit those reads had
  std::size_t bytes = 0;
  std::optional<accounting> rows;  // when rows were made

  // One line each: what was recorded into `out` (empty: no file), then what
  // was lost and what to change.
  std::vector<std::string> lines(const std::string& out, const pipeline::spelling& sp) const {
    const std::string to =
        std::to_string(bytes) + " bytes" + (out.empty() ? std::string() : " to " + out);
    const std::string longer = "(a longer " + sp.option("period") + " loses fewer)";
    if (mali) {
      return {std::to_string(samples) + " samples (" + std::to_string(overflow) +
              " after a ring overflow), " + to};
    }
    std::vector<std::string> l{std::string(xe ? "Xe driver: " : "") + std::to_string(samples) +
                               " reports, " + std::to_string(report_lost) + " OA_REPORT_LOST and " +
                               std::to_string(buffer_lost) + " OA_BUFFER_LOST records, " + to};
    if (xe && failed_reads != 0) {
      l.push_back(
          std::to_string(failed_reads) + " reads failed with EIO; the stream status said: " +
          describe_xe_status(status_bits) + ". `hwpc decode` shows each loss as a row " + longer);
    } else if (!xe && report_lost + buffer_lost != 0) {
      l.push_back("the kernel lost reports; `hwpc decode` shows each loss as a row " + longer);
    }
    return l;
  }
};

}  // namespace hwpc::live
