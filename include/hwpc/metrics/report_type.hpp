// The report format a metric set is made for, from its `oa_format` attribute.
//
// The Xe driver's metric files (oa-lnl.xml, oa-bmg.xml, ...) name the report
// type each set's counters are laid out in; the i915 files name none. The
// names are Intel's (metrics-discovery's OA_REPORT_TYPE_* list) and map onto
// the Xe driver's formats as IGT's metric-set generator and metrics-discovery
// map them (docs/expressions.md, "Xe2 metric files"):
//
//   576B_PEC64LL        -> PEC64u64            (IGT, metrics-discovery)
//   128B_MPEC8_NOA16    -> MPEC8u32_B8_C8      (IGT, metrics-discovery)
//   256B_GENERIC_NOA16  -> A24u40_A14u32_B8_C8 (IGT; DG2 and MTL files)
//   320B_PEC64          -> PEC64u32            (metrics-discovery only)
//   640B_PEC64LL_NOA16  -> PEC64u64_B8_C8      (metrics-discovery only)
//   192B_MPEC8LL_NOA16  -> MPEC8u64_B8_C8      (metrics-discovery only)
#pragma once

#include <array>
#include <string_view>

#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/metrics/set_definition.hpp"

namespace hwpc::metrics {

struct report_type_name {
  std::string_view oa_format;  // the metric file's attribute
  std::string_view format;     // the driver's format name
};

inline constexpr std::array report_type_names{
    report_type_name{"576B_PEC64LL", "PEC64u64"},
    report_type_name{"128B_MPEC8_NOA16", "MPEC8u32_B8_C8"},
    report_type_name{"256B_GENERIC_NOA16", "A24u40_A14u32_B8_C8"},
    report_type_name{"320B_PEC64", "PEC64u32"},
    report_type_name{"640B_PEC64LL_NOA16", "PEC64u64_B8_C8"},
    report_type_name{"192B_MPEC8LL_NOA16", "MPEC8u64_B8_C8"},
};

// The driver's format name for a metric file's oa_format, or empty.
constexpr std::string_view format_name_of(std::string_view oa_format) noexcept {
  for (const auto& r : report_type_names) {
    if (r.oa_format == oa_format) return r.format;
  }
  return {};
}

// The layout of `set`'s reports on platform `p`: the Xe driver's row of that
// name on the platform (the Xe files are the Xe driver's), else the i915
// table's. nullptr when the set names no oa_format, an unknown one, or one
// the platform lacks.
inline const intel::report_format* format_for(const metric_set& set, intel::platform p) {
  const std::string_view name = format_name_of(set.oa_format);
  if (name.empty()) return nullptr;
  if (const intel::xe_format* x = intel::find_xe_format(p, name)) return &x->layout;
  return intel::find_format(p, name);
}

}  // namespace hwpc::metrics
