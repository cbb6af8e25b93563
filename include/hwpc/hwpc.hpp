// hwpc: GPU performance-counter captures and derived metrics. Umbrella header.
#pragma once

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/intel.hpp"
