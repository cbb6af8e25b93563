// `hwpc record intel` on a device of the Xe driver (record_xe.cpp): the
// xe-perf recording, with the options cmd_record.cpp parsed for i915.
#pragma once

#include <functional>
#include <string>

#include "hwpc/live/i915_record.hpp"

namespace hwpc::cli {

// Whether `device` is a node of the Xe driver.
bool is_xe_device(const std::string& device);

// Records into `out` until `stop()`; the tool's exit status.
int record_intel_xe(const live::i915_record_options& o, const std::string& out,
                    const std::function<bool()>& stop);

}  // namespace hwpc::cli
