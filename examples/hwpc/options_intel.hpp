// The Intel OA options of a command line as intel::open_options: the text
// parsed once for every command that takes them (hwpc decode, hwpc report);
// what the values mean and which go together the library checks
// (pipeline/intel_open_options.hpp).
#pragma once

#include <optional>
#include <string>

#include "cli.hpp"
#include "hwpc/pipeline/intel_open_options.hpp"
#include "hwpc/pipeline/metric_columns.hpp"

namespace hwpc::cli {

// Fills `io` from `a`; a usage message for a value that is not even
// well formed, else nullopt.
inline std::optional<std::string> read_intel_options(const parsed_args& a,
                                                     intel::open_options& io) {
  io.platform = a.get("platform");
  io.format = a.get("format");
  io.input_kind = a.get("input-kind");
  if (auto ctx = a.get("context")) {
    io.context = intel::parse_format_number(*ctx);  // decimal or 0x hex
    if (!io.context) return "--context needs a 32-bit number, not '" + *ctx + "'";
  }
  if (auto t = a.get("threads")) {
    const auto n = intel::parse_format_number(*t);
    if (!n || *n == 0 || *n > 1024)
      return "--threads needs a number from 1 to 1024, not '" + *t + "'";
    io.threads = *n;
  }
  io.metrics = a.get("metrics");
  io.set = a.get("set").value_or("");
  io.arithmetic = a.get("arithmetic");
  io.definitions = a.get("definitions");
  for (const auto& dv : a.all("device-var")) {
    auto v = pipeline::parse_device_var(dv);
    if (!v && io.metrics) return "--device-var needs NAME=VALUE with a number, not '" + dv + "'";
    // Without --metrics the library refuses every --device-var, well formed or not.
    io.device_vars[v ? v->first : dv] = v ? v->second : expr::value{};
  }
  io.unverified_layouts = a.has("unverified-layouts");
  for (const auto& l : a.all("xe-loss")) {
    const auto loss = intel::parse_xe_loss(l);
    if (!loss) return "--xe-loss needs OFFSET:STATUS (numbers), not '" + l + "'";
    io.xe_losses.push_back(*loss);
  }
  return std::nullopt;
}

}  // namespace hwpc::cli
