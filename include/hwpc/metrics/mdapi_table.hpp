// The shape of the generated metrics-discovery tables (mdapi/<platform>.hpp,
// written by scripts/gen/mdapi_tables.py from Intel's md_metric_sets_*.cpp).
//
// One row per metric of one set, its equations as metrics-discovery (MDAPI)
// spells them. How MDAPI computes a metric of an OA stream from two reports
// (common/inc/md_metrics_calculator.h: ReadMetricsFromIoReport,
// CalculateReadEquationAndDelta, CalculateDeltaFunction, NormalizeMetrics,
// CalculateLocalNormalizationEquation, CalculateEquationElemOperation):
//   read:          RPN over report fields (dw@OFF 32 bits, qw@OFF 64 bits,
//                  rd40@LOW:HIGH 40 bits); each field is replaced by its delta
//                  between the two reports (the delta function's width) and
//                  the operators then act on deltas: `qw@0x160 $N UDIV` is the
//                  delta divided by N, truncated.
//   normalization: empty (the value is the delta), GpuDuration (100 * self /
//                  GpuCoreClocks), EuAggrDuration (100 * self / (GpuCoreClocks *
//                  EuCoresTotalCount)), or RPN where $Self is this metric's
//                  delta, $Name another metric's delta, $$Name another metric's
//                  final value, and other names device variables.
//   result:        the value's type: integers truncate, float is float32.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace hwpc::metrics::mdapi {

enum class result_type : std::uint8_t { uint32, uint64, float32, bool32 };

struct metric_def {
  std::string_view group;  // concurrent group: OA, OAM0, OAMG, PipelineStatistics, ...
  std::string_view set;    // set symbol: RenderBasic
  std::string_view symbol;
  result_type result;
  std::string_view read;           // snapshot report read equation; empty: none
  std::string_view delta;          // DELTA 32|40|64, NS_TIME; empty: none
  std::string_view normalization;  // empty: none
  std::string_view max;            // max value equation; empty: none
  std::string_view availability;   // empty: always
};

struct platform_def {
  std::string_view name;     // tgl_gt2
  std::string_view chipset;  // the metric files' chipset attribute: TGLGT2
  std::string_view release;  // metrics-discovery release the definitions come from
  std::span<const metric_def> metrics;
};

}  // namespace hwpc::metrics::mdapi
