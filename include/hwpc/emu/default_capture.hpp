// The capture the tool decodes when it is given no input file.
//
// Haswell, A45_B8_C8 (256-byte reports: A0..A44, B0..B7, C0..C7), timer
// exponent 10 (every 2048 ticks, 163.84 us at 12.5 MHz), 64 reports, a fixed
// seed, with every counter and TIME_STAMP wrapping once and the render
// context switching every few reports. Everything is computed on demand from
// the emulator: no bytes are stored in the library.
#pragma once

#include <cstddef>
#include <vector>

#include "hwpc/emu/oa_unit.hpp"
#include "hwpc/emu/outputs.hpp"
#include "hwpc/emu/truth.hpp"

namespace hwpc::emu {

inline config default_capture_config() {
  config c;
  c.platform = intel::platform::hsw;
  c.format = "A45_B8_C8";
  c.exponent = 10;
  c.reports = 64;
  c.seed = 0x4853'5741'3435ull;  // fixed: the default capture never changes
  c.faults.wrap = true;
  c.faults.ctx_switch = true;
  return c;
}

struct default_capture_data {
  config cfg;
  std::vector<std::byte> raw;  // back-to-back reports, as `hwpc decode --input-kind raw` reads
  truth_table truth;           // what decoding them must give
};

// Never fails for the fixed configuration (a test holds it to that). A
// configuration derived from it (shape_for_set, emu/set_model.hpp: the clock
// signal a metric set reads) makes the same capture for that set.
inline default_capture_data default_capture(const config& cfg = default_capture_config()) {
  default_capture_data d;
  d.cfg = cfg;
  auto cap = emulate(d.cfg);
  if (!cap) return d;
  d.raw = raw_file(*cap);
  auto t = truth_for(*cap, output_kind::raw);
  if (t) d.truth = std::move(*t);
  return d;
}

}  // namespace hwpc::emu
