// A metric set as its definition gives it: metrics with their formulas and
// attributes, register configurations, and the device variables (and
// topology variable names) Intel formulas may read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/expr/compile.hpp"

namespace hwpc::metrics {

// The data_type attribute: how a metric's value is meant to be presented.
enum class data_type : std::uint8_t { uint32, uint64, float32, float64, bool32, other };
// The semantic_type attribute.
enum class semantic_type : std::uint8_t { event, duration, throughput, ratio, timestamp, other };

constexpr data_type parse_data_type(std::string_view s) noexcept {
  if (s == "uint32") return data_type::uint32;
  if (s == "uint64") return data_type::uint64;
  if (s == "float") return data_type::float32;
  if (s == "double") return data_type::float64;
  if (s == "bool32") return data_type::bool32;
  return data_type::other;
}
constexpr semantic_type parse_semantic_type(std::string_view s) noexcept {
  if (s == "event") return semantic_type::event;
  if (s == "duration") return semantic_type::duration;
  if (s == "throughput") return semantic_type::throughput;
  if (s == "ratio") return semantic_type::ratio;
  if (s == "timestamp") return semantic_type::timestamp;
  return semantic_type::other;
}

struct metric {
  std::string symbol_name;  // the name other formulas use: $GpuTime
  std::string name;         // human-readable
  std::string description;
  std::string units;
  data_type type = data_type::uint64;
  semantic_type semantic = semantic_type::event;
  std::string equation;
  std::string max_equation;  // empty: none
  std::string availability;  // empty: always available
  // The equation is computed as written under every arithmetic: it is
  // metrics-discovery's own definition (metrics/mdapi.hpp), whose integer
  // divisions truncate where MDAPI's do.
  bool literal_arithmetic = false;
};

// Register programming that applies only when its availability formula holds.
struct register_config {
  std::string type;  // OA, NOA, FLEX
  std::string availability;
};

struct metric_set {
  std::string symbol_name;  // RenderBasic
  std::string name;
  std::string chipset;
  std::string oa_format;  // when the file names one
  std::string hw_config_guid;
  expr::syntax syntax = expr::syntax::rpn;
  std::vector<metric> metrics;
  std::vector<register_config> register_configs;  // only those with an availability
};

// The device variables of Intel's metric code generator (IGT gpu tools,
// lib/i915/perf-configs/codegen.py; docs/expressions.md lists each with what
// it is), besides the per-slice and per-XeCore names below.
inline const std::vector<std::string>& intel_device_variables() {
  static const std::vector<std::string> names = {
      "EuCoresTotalCount",
      "EuSubslicesTotalCount",
      "EuDualSubslicesTotalCount",
      "EuDualSubslicesSlice0123Count",
      "EuSlicesTotalCount",
      "EuThreadsCount",
      "VectorEngineTotalCount",
      "VectorEnginePerXeCoreCount",
      "VectorEngineThreadsCount",
      "SliceMask",
      "SliceTotalCount",
      "SubsliceMask",
      "DualSubsliceMask",
      "GtSliceMask",
      "GtSubsliceMask",
      "GtDualSubsliceMask",
      "GtXeCoreMask",
      "XeCoreMask",
      "XeCoreTotalCount",
      "GpuTimestampFrequency",
      "GpuMinFrequency",
      "GpuMaxFrequency",
      "SkuRevisionId",
      "QueryMode",
      // Xe2 and later (oa-lnl.xml, oa-bmg.xml): units a recording's topology
      // does not describe; they get a value only when the caller knows it.
      "L3BankTotalCount",
      "L3NodeTotalCount",
      "SqidiTotalCount",
      "ComputeEngineTotalCount",
      "CopyEngineTotalCount",
      "GeometryPipeTotalCount",
      "DepthPipeTotalCount",
      "ColorPipeTotalCount",
  };
  return names;
}

// GtSlice<s>, GtSlice<s>XeCore<x> and GtSlice<s>DualSubslice<x>: 1 when that
// slice / subslice is present; GtXeCore<x> (the Xe2 files): 1 when XeCore x
// of the whole GPU is present. Indices up to these bounds are device
// variables (metrics/intel_device.hpp gives them all a value).
inline constexpr unsigned max_named_slices = 8;
inline constexpr unsigned max_named_subslices = 16;
inline constexpr unsigned max_named_xecores = 64;

constexpr bool is_intel_topology_variable(std::string_view n) noexcept {
  auto index = [&n](unsigned bound) -> bool {
    std::size_t k = 0;
    unsigned v = 0;
    while (k < n.size() && k < 3 && n[k] >= '0' && n[k] <= '9') v = v * 10 + (n[k++] - '0');
    if (k == 0 || (k > 1 && n[0] == '0') || v >= bound) return false;
    n.remove_prefix(k);
    return true;
  };
  if (n.starts_with("GtXeCore")) {
    n.remove_prefix(8);
    return index(max_named_xecores) && n.empty();
  }
  if (!n.starts_with("GtSlice")) return false;
  n.remove_prefix(7);
  if (!index(max_named_slices)) return false;
  if (n.empty()) return true;
  if (n.starts_with("XeCore")) {
    n.remove_prefix(6);
  } else if (n.starts_with("DualSubslice")) {
    n.remove_prefix(12);
  } else {
    return false;
  }
  return index(max_named_subslices) && n.empty();
}

}  // namespace hwpc::metrics
