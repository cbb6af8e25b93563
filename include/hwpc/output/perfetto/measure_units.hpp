// A column's units as the GPU counter path spells them: GpuCounterSpec's
// numerator_units and denominator_units, lists of Perfetto's MeasureUnit
// (fields_gpu.hpp). trace_processor joins them into the track's unit string
// ("ns", "B", "%", "GB/s"; ../shared/docs/FACTS-perfetto-gpu.md 2.2).
//
// MeasureUnit has no cycle, event, thread or message unit: such columns get
// no units at all (trace_processor's unit is then NULL rather than a unit
// that says something false), and the writer puts the units' text in the
// spec's description instead.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hwpc/output/perfetto/fields_gpu.hpp"

namespace hwpc::output::perfetto {

struct measure_units {
  std::vector<std::uint32_t> numerator;
  std::vector<std::uint32_t> denominator;
  bool empty() const noexcept { return numerator.empty() && denominator.empty(); }
};

// `units` as the metric files, Arm's counter database and the readers name
// them (lower case).
inline measure_units measure_units_of(std::string_view units) {
  namespace mu = measure_unit;
  struct entry {
    std::string_view text;
    std::uint32_t numerator;
    std::uint32_t denominator;  // none: no denominator
  };
  // Intel's "gbps" is gigabytes per second (metrics-discovery's "GBps").
  static constexpr entry table[] = {
      {"ns", mu::nanosecond, mu::none},
      {"us", mu::microsecond, mu::none},
      {"bytes", mu::byte, mu::none},
      {"percent", mu::percent, mu::none},
      {"hz", mu::hertz, mu::none},
      {"mhz", mu::megahertz, mu::none},
      {"gbps", mu::gigabyte, mu::second},
      {"pixels", mu::pixel, mu::none},
      {"primitives", mu::primitive, mu::none},
      {"instructions", mu::instruction, mu::none},
  };
  measure_units m;
  for (const entry& e : table) {
    if (e.text != units) continue;
    m.numerator.push_back(e.numerator);
    if (e.denominator != mu::none) m.denominator.push_back(e.denominator);
  }
  return m;
}

}  // namespace hwpc::output::perfetto
