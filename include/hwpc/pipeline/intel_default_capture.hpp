// The capture `hwpc decode` reads when it is given no input: HSW A45_B8_C8
// reports made on the spot by the OA unit emulator (emu/default_capture.hpp),
// shaped for the metric set it is decoded with (emu/set_model.hpp: HSW
// MemoryReads reads its clock from C7, RenderBasic from C2), with the device
// the emulator models.
#pragma once

#include <utility>

#include "hwpc/core/error.hpp"
#include "hwpc/emu/default_capture.hpp"
#include "hwpc/emu/set_model.hpp"
#include "hwpc/emu/sku.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/xml_loader.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/intel_open_options.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::intel {

struct default_capture {
  capture_source source;  // the reports, owned, named "(default capture)"
  open_options options;   // the caller's, with platform, format, input kind and device filled in
};

// `o`: the door's options, which must not describe an input of their own.
inline result<default_capture> make_default_capture(open_options o, const pipeline::spelling& sp) {
  if (o.platform || o.format || o.input_kind) {
    return usage_error(sp.option("platform") + ", " + sp.option("format") + " and " +
                       sp.option("input_kind") + " describe a " +
                       (sp.d == pipeline::door::tool ? "FILE" : "source") + "; give one");
  }
  emu::config cfg = emu::default_capture_config();
#ifdef HWPC_HAVE_PUGIXML
  // A set that cannot be found is refused where the metric columns are loaded.
  if (o.metrics && !o.set.empty()) {
    if (auto set = metrics::find_xml_set(*o.metrics, o.set)) emu::shape_for_set(cfg, *set);
  }
#endif
  emu::default_capture_data d = emu::default_capture(cfg);
  o.platform = std::string(name_of(d.cfg.platform));
  o.format = d.cfg.format;
  o.input_kind = "raw";
  const emu::topology t = emu::topology_of(d.cfg.platform);
  metrics::intel_device dev =
      metrics::with_topology(metrics::device_of(d.cfg.platform), t.slices, t.subslices, t.eus);
  dev.gt_min_frequency_hz = emu::modelled_gt_min_frequency_hz;
  dev.gt_max_frequency_hz = emu::modelled_gt_max_frequency_hz;
  o.emulated_device = dev;
  return default_capture{capture_source::own(std::move(d.raw), "(default capture)"), std::move(o)};
}

}  // namespace hwpc::intel
