// Where metrics-discovery's (MDAPI's) definition of a metric and the metric
// file's compute different things, and which one hwpc follows.
//
// Each row was found by tests/test_metrics_mdapi.cpp (every metric both
// define, on emulated reports of its platform) and is explained in
// docs/expressions.md ("Where metrics-discovery and the metric files
// disagree"); the test fails when a metric differs that no row names, or a
// row names one that no longer differs.
//
// The default (definitions::mdapi) follows the metric file for these rows:
// the file's register configuration programs the counters its formula reads,
// and that is the configuration hwpc's captures run with (IGT, the kernel's
// sysfs sets). definitions::newer follows MDAPI for them too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hwpc/expr/arithmetic.hpp"

namespace hwpc::metrics::mdapi {

// Which definition a metric set both define is compiled from, under
// expr::arithmetic::mdapi (arithmetic::igt always takes the file's, literally).
enum class definitions : std::uint8_t {
  file,   // the file's formulas, with expr/arithmetic.hpp's exact quotients
  mdapi,  // MDAPI's wherever it computes what the file does (the default)
  newer,  // MDAPI's also where it differs from the file (the rows below)
};

constexpr std::string_view to_string(definitions d) noexcept {
  return d == definitions::file ? "file" : d == definitions::mdapi ? "mdapi" : "newer";
}

constexpr std::optional<definitions> parse_definitions(std::string_view s) noexcept {
  if (s == "file") return definitions::file;
  if (s == "mdapi") return definitions::mdapi;
  if (s == "newer") return definitions::newer;
  return std::nullopt;
}

// Why `given` cannot be the definitions a set is compiled from under `arith`
// (empty: it can), worded once for every door, which puts its own spelling of
// the option in front ("--definitions ", "definitions "). MDAPI's definitions
// are taken only under arithmetic::mdapi (compile() in compile.hpp): under
// arithmetic::igt the file's formulas compute as written, so `mdapi` and
// `newer` would be silently ignored, and are refused; `file` says what igt does.
inline std::string definitions_refusal(std::string_view given, expr::arithmetic arith) {
  const auto d = parse_definitions(given);
  if (!d) return "must be file, mdapi or newer, not '" + std::string(given) + "'";
  if (arith == expr::arithmetic::igt && *d != definitions::file) {
    return std::string(given) +
           " takes metrics-discovery's formulas, which compute with its arithmetic, not igt's "
           "(igt computes the metric file's formulas as written: definitions file)";
  }
  return {};
}

enum class difference : std::uint8_t {
  other_counters,  // MDAPI reads other counters (or other events)
  factor,          // same counters, another constant factor
};

struct difference_row {
  std::string_view chipset;  // the metric file's chipset attribute
  std::string_view set;
  std::string_view symbol;
  difference kind;
};

inline constexpr difference_row differences[] = {
    {"HSW", "ComputeBasic", "VsEuStall", difference::other_counters},
    {"SKLGT2", "HDCAndSF", "NonSamplerShader00AccessStalledOnL3", difference::other_counters},
    {"SKLGT2", "HDCAndSF", "NonSamplerShader01AccessStalledOnL3", difference::other_counters},
    {"SKLGT2", "HDCAndSF", "NonSamplerShader02AccessStalledOnL3", difference::other_counters},
    {"SKLGT2", "HDCAndSF", "PolyDataReady", difference::other_counters},
    {"LNL", "ComputeBasic", "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION", difference::factor},
    {"LNL", "DeviceCacheProfile", "AMFS_L3_HIT", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "AMFS_L3_WRITE", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "COLOR_L3_ACCESS", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "COLOR_L3_HIT", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "GPU_MEMORY_L3_READ", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "GPU_MEMORY_L3_WRITE", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "GPU_MEMORY_READ", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "GPU_MEMORY_WRITE", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "ICACHE_L3_HIT", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "ICACHE_L3_READ", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_ATOMIC_ACCESS", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_BUSY", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_HIT", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_INPUT_AVAILABLE", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_MISS", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_OUTPUT_READY", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_READ", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_STALL", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_SUPERQ_FULL", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "L3_WRITE", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "LOAD_STORE_CACHE_L3_HIT", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "LOAD_STORE_CACHE_L3_READ", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "LOAD_STORE_CACHE_L3_WRITE", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "SAMPLER_L3_HIT", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "SAMPLER_L3_READ", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "Z_L3_ACCESS", difference::other_counters},
    {"LNL", "DeviceCacheProfile", "Z_L3_HIT", difference::other_counters},
    {"LNL", "RenderPipeProfile", "COLOR_PIPE_CACHE_LATENCY2_STALL", difference::factor},
    {"LNL", "XvePipelineRasterizationProfile", "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION",
     difference::factor},
    {"LNL", "XvePipelineRaytracingProfile", "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION",
     difference::factor},
    {"BMG", "ComputeBasic", "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION", difference::factor},
    {"BMG", "DeviceCacheProfile", "AMFS_L3_HIT", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "AMFS_L3_WRITE", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "COLOR_L3_ACCESS", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "COLOR_L3_HIT", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "GPU_MEMORY_L3_READ", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "GPU_MEMORY_L3_WRITE", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "GPU_MEMORY_READ", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "GPU_MEMORY_WRITE", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "ICACHE_L3_HIT", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "ICACHE_L3_READ", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_ATOMIC_ACCESS", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_BUSY", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_HIT", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_INPUT_AVAILABLE", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_MISS", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_OUTPUT_READY", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_READ", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_STALL", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_SUPERQ_FULL", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "L3_WRITE", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "LOAD_STORE_CACHE_L3_HIT", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "LOAD_STORE_CACHE_L3_READ", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "LOAD_STORE_CACHE_L3_WRITE", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "SAMPLER_L3_HIT", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "SAMPLER_L3_READ", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "Z_L3_ACCESS", difference::other_counters},
    {"BMG", "DeviceCacheProfile", "Z_L3_HIT", difference::other_counters},
    {"BMG", "RenderPipeProfile", "COLOR_PIPE_CACHE_LATENCY2_STALL", difference::factor},
    {"BMG", "XvePipelineRasterizationProfile", "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION",
     difference::factor},
    {"BMG", "XvePipelineRaytracingProfile", "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION",
     difference::factor},
};

inline constexpr bool differs(std::string_view chipset, std::string_view set,
                              std::string_view symbol) noexcept {
  for (const difference_row& d : differences) {
    if (d.chipset == chipset && d.set == set && d.symbol == symbol) return true;
  }
  return false;
}

}  // namespace hwpc::metrics::mdapi
