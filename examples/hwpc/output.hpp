// The tool's buffered text output is the library's (output/text.hpp).
#pragma once

#include "hwpc/output/text.hpp"

namespace hwpc::cli {

using out_buffer = output::text_buffer;

}  // namespace hwpc::cli
