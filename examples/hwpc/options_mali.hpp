// The Mali options of a command line as mali::open_options, for every
// command that takes them (hwpc mali, hwpc report). The GPU stays text
// here: hwpc::mali_gpu (pipeline/open.hpp) reads it, once the capture is
// known to be Mali's; the library checks values and combinations
// (pipeline/mali_open.hpp).
#pragma once

#include "cli.hpp"
#include "hwpc/pipeline/mali_open.hpp"

namespace hwpc::cli {

// Every option but --gpu (number options are checked by the parser).
inline void read_mali_options(const parsed_args& a, mali::open_options& mo) {
  mo.reader = a.get("reader");
  mo.core_index = a.get("core-index");
  mo.l2_slices = a.number("l2-slices");
  mo.core_mask = a.number("core-mask");
  mo.bus_width_bits = a.number("bus-width-bits");
  mo.max_clock_mhz = a.number("max-clock-mhz");
  mo.derived = a.get("derived");
  mo.counters_only = a.has("counters-only");
  mo.names = a.get("names");
}

}  // namespace hwpc::cli
