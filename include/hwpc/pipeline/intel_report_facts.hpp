// What the HTML report (output/html/report_writer.hpp) says about an Intel OA
// capture beside what its rows tell: platform, format, device, input.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "hwpc/core/hex.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/input_kind.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/output/html/report_writer.hpp"

namespace hwpc::intel {

// How the report names an input kind.
constexpr const char* kind_description(input_kind k) noexcept {
  switch (k) {
    case input_kind::raw:
      return "raw reports";
    case input_kind::i915_stream:
      return "i915 perf stream";
    case input_kind::xe_stream:
      return "Xe OA stream";
    case input_kind::recording:
      return "recording";
  }
  return "";
}

struct report_subject {
  std::string name;  // the input's name (a path)
  platform plat{};
  const report_format* format = nullptr;
  input_kind kind = input_kind::raw;
  const recording* rec = nullptr;                   // an i915 recording's DEVICE_INFO
  const metrics::intel_device* emulated = nullptr;  // the embedded default capture's device
  std::optional<std::string> metrics_file;          // --metrics
  std::string metric_set;
  std::optional<std::uint32_t> context;  // --context
};

inline output::html::report_options report_facts(const report_subject& s) {
  output::html::report_options r;
  r.title = "hwpc report: " + s.name;
  r.metric_group = s.metric_set;
  auto fact = [&](std::string name, std::string value) {
    r.facts.push_back({std::move(name), std::move(value)});
  };
  fact("vendor", "Intel (OA unit)");
  fact("platform", std::string(name_of(s.plat)));
  fact("format",
       std::string(s.format->name) + ", " + std::to_string(s.format->size) + "-byte reports");
  auto topology = [](const metrics::intel_device& d) {
    return "slices " + std::to_string(std::popcount(d.slice_mask)) + ", subslices " +
           std::to_string(std::popcount(d.subslice_mask)) + ", EUs " + std::to_string(d.eu_count);
  };
  if (s.rec != nullptr) {
    const device_info& d = s.rec->device();
    std::string dev = "PCI id " + to_hex(d.device_id) + " rev " + std::to_string(d.device_revision);
    if (d.gt_max_frequency != 0) {
      dev += ", GT " + std::to_string(d.gt_min_frequency / 1'000'000) + "-" +
             std::to_string(d.gt_max_frequency / 1'000'000) + " MHz";
    }
    const metrics::intel_device md = metrics::device_of(*s.rec);
    if (md.has_topology()) dev += ", " + topology(md);
    fact("device", dev);
    if (!d.metric_set_name.empty()) fact("recorded metric set", std::string(d.metric_set_name));
  } else if (s.emulated != nullptr) {
    fact("device", "emulated (the built-in OA unit emulator): " + topology(*s.emulated));
  } else {
    fact("device", "not in the input (raw reports and streams carry no device information)");
  }
  fact("input", (s.emulated != nullptr ? std::string("the embedded default capture") : s.name) +
                    " (" + kind_description(s.kind) + ")");
  if (s.metrics_file) fact("metrics", s.metric_set + " of " + *s.metrics_file);
  if (s.context) fact("context filter", to_hex(*s.context));
  return r;
}

}  // namespace hwpc::intel
