// What the emulator cross-checks share (test_emu_crosscheck.cpp for the i915
// driver's outputs, test_emu_xe_crosscheck.cpp for the Xe driver's): rows as
// the library's readers decode them, the matrix of fault mixes, and the
// comparison with the emulator's truth.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/emu.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/decode.hpp"

namespace crosscheck {

namespace emu = hwpc::emu;
namespace intel = hwpc::intel;

// One interval as a reader decoded it: its report index, TIME_STAMP, deltas.
struct decoded_row {
  std::size_t report = 0;
  std::uint64_t timestamp = 0;
  std::vector<std::uint64_t> deltas;
};

// Whether a reader (or the emulator) accepted its input; if not, `why` says
// what it refused.
template <class T>
bool accepted(const hwpc::result<T>& r, std::string& why) {
  if (!r) why = r.error_value().describe();
  return r.has_value();
}

// The intervals of a reader that yields capture_events, by the delta layer.
template <class Source>
std::vector<decoded_row> via_capture(const Source& src, intel::generation gen) {
  std::vector<decoded_row> out;
  intel::for_each_delta(
      src, gen,
      [&](const intel::capture_interval& iv) {
        out.push_back({iv.report, iv.timestamp, {iv.deltas.begin(), iv.deltas.end()}});
      },
      [](const intel::capture_discontinuity&) {});
  return out;
}

// The intervals of back-to-back reports, by the fast path.
inline std::vector<decoded_row> via_intervals(const intel::report_buffer& buf,
                                              intel::generation gen) {
  std::vector<decoded_row> out;
  intel::for_each_interval(buf, gen, [&](const intel::interval& iv) {
    out.push_back({iv.report, iv.timestamp, {iv.deltas.begin(), iv.deltas.end()}});
  });
  return out;
}

// The value the emulator left in the ring register at `addr` (0 if none).
inline std::uint32_t ring_register(const emu::ring_snapshot& r, std::uint32_t addr) {
  for (const auto& [a, v] : r.registers) {
    if (a == addr) return v;
  }
  return 0;
}

// The matrix: fault mix `faults` (a bit per fault, in fault_set's order) with
// seed 0 or 1 on one platform and format. Overflow runs (bit 3) write a whole
// buffer more: to keep the files fast under sanitizers they run alone and with
// every other fault, once per format.
inline bool overflow_run_skipped(unsigned faults, unsigned seed, intel::platform p) {
  return (faults & 8) != 0 &&
         ((faults != 8 && faults != 31) || seed != (static_cast<unsigned>(p) & 1));
}
inline emu::config matrix_config(intel::platform p, std::string_view format, unsigned seed,
                                 unsigned faults) {
  emu::config c;
  c.platform = p;
  c.format = std::string(format);
  c.seed = 1000 * seed + faults + 7 * static_cast<unsigned>(p);
  c.reports = 24 + 8 * seed;
  c.exponent = 4 + (faults + seed) % 7;
  c.faults = {(faults & 1) != 0, (faults & 2) != 0, (faults & 4) != 0, (faults & 8) != 0,
              (faults & 16) != 0};
  c.overrun_disable = seed == 1;
  return c;
}

inline const char* kind_name(emu::output_kind k) {
  switch (k) {
    case emu::output_kind::raw:
      return "raw";
    case emu::output_kind::i915_stream:
      return "i915-stream";
    case emu::output_kind::recording:
      return "recording";
    case emu::output_kind::ring:
      return "ring";
    case emu::output_kind::mi_rpc:
      return "mi-rpc";
    case emu::output_kind::xe_stream:
      return "xe-stream";
    case emu::output_kind::xe_recording:
      return "xe-recording";
  }
  return "?";
}

// Whether a decode (`ok`, `got`) found the truth: the same rows with the same
// timestamps and deltas, and the same report indices where `with_report`.
// A mismatch is counted in `failures` and the first ten are reported.
inline bool matches_truth(bool ok, const std::vector<decoded_row>& got,
                          const emu::truth_table& truth, bool with_report,
                          std::string_view platform, const emu::config& c, emu::output_kind k,
                          const std::string& why, std::size_t& failures) {
  bool same = ok && got.size() == truth.rows.size();
  for (std::size_t i = 0; same && i < got.size(); ++i) {
    same = got[i].timestamp == truth.rows[i].timestamp && got[i].deltas == truth.rows[i].deltas &&
           (!with_report || got[i].report == truth.rows[i].report);
  }
  if (!same && ++failures <= 10) {
    ADD_FAILURE() << platform << " " << c.format << " " << kind_name(k) << " seed=" << c.seed
                  << " faults=" << emu::to_string(c.faults) << " exp=" << c.exponent << " " << why
                  << " rows " << got.size() << " vs truth " << truth.rows.size();
  }
  return same;
}

}  // namespace crosscheck
