// The Adreno options of a command line as adreno::open_options, for every
// command that takes them (hwpc adreno, hwpc report); the library checks
// them (pipeline/adreno_input.hpp).
#pragma once

#include "cli.hpp"
#include "hwpc/pipeline/adreno_input.hpp"

namespace hwpc::cli {

inline adreno::open_options read_adreno_options(const parsed_args& a) {
  adreno::open_options o;
  o.format = a.get("format").value_or("auto");
  o.gpu = a.get("gpu");
  return o;
}

}  // namespace hwpc::cli
