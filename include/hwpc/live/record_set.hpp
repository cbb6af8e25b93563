// The metric set of an i915 recording, named by a metric XML file (IGT's
// and Mesa's oa-<platform>.xml): its symbol name (DEVICE_INFO's
// metric_set_name), its hw_config_guid (how sysfs names the kernel's copy)
// and, when none of its register blocks depends on the part, its registers
// to upload if the kernel lacks the set. `hwpc record intel --metrics` and
// hwpc.intel.record(metrics=...) both come here.
//
//   live::i915_record_options o;
//   if (auto ok = live::set_from_metrics(o, "oa-tgl.xml", "RenderBasic"); !ok) ...
#pragma once

#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "hwpc/core/error.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/set_registers.hpp"
#include "hwpc/metrics/xml_loader.hpp"

namespace hwpc::live {

// Errors: the file or the set cannot be read (errc::io, errc::unknown_name,
// ...), the set has no hw_config_guid (a usage error: name the kernel's
// config id instead), or the build has no metric XML loader (usage).
inline result<void> set_from_metrics([[maybe_unused]] i915_record_options& o,
                                     [[maybe_unused]] const std::string& path,
                                     [[maybe_unused]] const std::string& symbol) {
#ifdef HWPC_HAVE_PUGIXML
  auto set = metrics::find_xml_set(path, symbol);
  if (!set) return set.error_value();
  if (set->hw_config_guid.empty()) {
    return usage_error("set " + set->symbol_name +
                       " has no hw_config_guid: name the kernel's config id instead");
  }
  o.set_name = set->symbol_name;
  o.set_uuid = set->hw_config_guid;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (auto regs = registers_of(text, set->symbol_name);
      regs && !regs->empty() && regs->conditional_blocks == 0) {
    set_upload up;
    for (const auto& [list, to] :
         {std::pair{&regs->mux, &up.mux}, std::pair{&regs->boolean, &up.boolean},
          std::pair{&regs->flex, &up.flex}}) {
      for (const auto& w : *list) to->insert(to->end(), {w.address, w.value});
    }
    o.upload = std::move(up);
  }
  return {};
#else
  return usage_error(
      "a metric file needs the metric XML loader (rebuild with libpugixml-dev); name the "
      "kernel's config id instead");
#endif
}

}  // namespace hwpc::live
