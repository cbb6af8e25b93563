// Arm Mali (Bifrost, G72): hardware-counter samples, counter names and the
// counter guide's derived expressions. See docs/mali.md.
#pragma once

#include "hwpc/mali/block.hpp"
#include "hwpc/mali/g72_counters.hpp"
#include "hwpc/mali/g72_metrics.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/streamline_names.hpp"
