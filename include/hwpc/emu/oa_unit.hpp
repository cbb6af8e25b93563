// The reference OA unit: counters, report triggers, the OA ring and a
// consumer that reads it the way i915 does.
//
//   hwpc::emu::config cfg;                      // HSW A45_B8_C8, 64 reports
//   cfg.platform = hwpc::intel::platform::skl;
//   cfg.format = "A36_B8_C8";
//   cfg.faults = hwpc::emu::parse_faults("wrap,ctx-switch").value();
//   auto cap = hwpc::emu::emulate(cfg);         // result<capture>
//   auto bytes = hwpc::emu::raw_file(*cap);     // outputs.hpp
//   auto truth = hwpc::emu::truth_for(*cap, hwpc::emu::output_kind::raw);
//
// How a run goes (docs/emulator.md has the details and the citations):
//  1. The registers are programmed as a driver would (registers.hpp) and the
//     unit reads the counter select, timer period and buffer back from them.
//  2. A seeded workload (workload.hpp) drives the counters. Reports are taken
//     on timer strobes (TIME_STAMP crossing a multiple of the period), on
//     context switches, GO 1->0 transitions and clock-ratio changes (Gen8+,
//     Gen9+ for clock ratio), and for MI_REPORT_PERF_COUNT commands.
//  3. Ring reports go to the OA buffer at the tail; MI_REPORT_PERF_COUNT
//     reports go to their own buffer and do not move the tail [PRM67
//     OASTATUS1 31:6]. A consumer polls the ring like i915's read path:
//     OA_BUFFER_LOST and restart on overflow, OA_REPORT_LOST on a lost
//     report, zero-RPT_ID reports skipped, RPT_ID cleared after copying.
//  4. Only after the run are counter start values chosen (the dynamics do not
//     depend on them), so a requested wrap can be placed exactly inside an
//     interval the output contains. Then every report is packed.
//
// The stages live in their own headers; this one includes them all:
//   config.hpp          faults and the run's configuration
//   capture.hpp         what a run produces (reports, reads, ring, stats)
//   oa_unit_fields.hpp  RPT_ID, buffer size field, wrap-placing start values
//   oa_unit_sim.hpp     the run: registers, triggers, ring, consumer; emulate()
//   oa_unit_pack.hpp    start values and packing
#pragma once

#include "hwpc/emu/capture.hpp"
#include "hwpc/emu/config.hpp"
#include "hwpc/emu/oa_unit_fields.hpp"
#include "hwpc/emu/oa_unit_pack.hpp"
#include "hwpc/emu/oa_unit_sim.hpp"
