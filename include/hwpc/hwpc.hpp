// hwpc: GPU performance-counter captures and derived metrics. Umbrella header.
//
// Includes every dependency-free part of the library. Two parts are opt-in:
// hwpc/metrics/xml_loader.hpp (needs pugixml) and
// hwpc/intel/accumulate_parallel.hpp (needs std::thread, i.e. -pthread).
#pragma once

#include "hwpc/adreno.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/expr.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/metrics/binding.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/report_type.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/json.hpp"
#include "hwpc/output/summary.hpp"
