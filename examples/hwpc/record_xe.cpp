// `hwpc record intel` on the Xe driver: live::record_xe writes the xe-perf
// recording; this prints what happened, the failed reads by status bit.
#include "record_xe.hpp"

#include <cstdio>
#include <span>

#include "cli.hpp"
#include "hwpc/live/xe_record.hpp"

namespace hwpc::cli {

bool is_xe_device(const std::string& device) {
  return live::xe_device::is_xe(live::real_kernel(), device);
}

int record_intel_xe(const live::i915_record_options& o, const std::string& out,
                    const std::function<bool()>& stop) {
  const std::string_view cmd = "record intel";
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (f == nullptr) return fail(cmd, "cannot write " + out, exit_bad_input);
  std::size_t bytes = 0;
  auto counts = live::record_xe(
      live::real_kernel(), o,
      [&](std::span<const std::byte> b) {
        bytes += b.size();
        return std::fwrite(b.data(), 1, b.size(), f) == b.size() && std::fflush(f) == 0;
      },
      stop);
  const bool closed = std::fclose(f) == 0;
  if (!counts) return fail(cmd, counts.error_value().message, exit_bad_input);
  if (!closed) return fail(cmd, "cannot write " + out, exit_bad_input);
  std::fprintf(stderr,
               "hwpc record intel: Xe driver: %zu reports, %zu OA_REPORT_LOST and %zu "
               "OA_BUFFER_LOST records, %zu bytes to %s\n",
               counts->samples, counts->report_lost, counts->buffer_lost, bytes, out.c_str());
  if (counts->failed_reads != 0) {
    std::fprintf(stderr,
                 "hwpc record intel: %zu reads failed with EIO; the stream status said: %s. "
                 "`hwpc decode` shows each loss as a row (a longer --period loses fewer)\n",
                 counts->failed_reads, live::describe_xe_status(counts->status_bits).c_str());
  }
  return exit_ok;
}

}  // namespace hwpc::cli
