// What an emulator run is asked for: the faults to inject and the
// configuration (platform, part, format, counter select, timer exponent,
// report count, seed). oa_unit.hpp runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/emu/counter_model.hpp"
#include "hwpc/emu/sku.hpp"
#include "hwpc/emu/xe_layouts.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

struct fault_set {
  bool wrap = false;         // counters and TIME_STAMP wrap inside the capture
  bool ctx_switch = false;   // context switches every few reports
  bool tail_ahead = false;   // tail pointer ahead of landed data (zero RPT_ID in the ring)
  bool overflow = false;     // slow consumer: the ring overflows (or stops, overrun disabled)
  bool report_lost = false;  // MI_REPORT_PERF_COUNT collides with timer reports

  friend bool operator==(const fault_set&, const fault_set&) = default;
};

inline constexpr std::string_view fault_names[] = {"wrap", "ctx-switch", "tail-ahead", "overflow",
                                                   "report-lost"};

// "wrap,ctx-switch" -> fault_set; "" and "none" are no faults.
inline result<fault_set> parse_faults(std::string_view list) {
  fault_set f;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string_view::npos) end = list.size();
    const std::string_view name = list.substr(pos, end - pos);
    if (name == "wrap") {
      f.wrap = true;
    } else if (name == "ctx-switch") {
      f.ctx_switch = true;
    } else if (name == "tail-ahead") {
      f.tail_ahead = true;
    } else if (name == "overflow") {
      f.overflow = true;
    } else if (name == "report-lost") {
      f.report_lost = true;
    } else if (!name.empty() && name != "none") {
      return make_error(errc::unknown_name, pos,
                        "unknown fault '" + std::string(name) +
                            "' (wrap, ctx-switch, tail-ahead, overflow, report-lost)");
    }
    pos = end + 1;
  }
  return f;
}

inline std::string to_string(const fault_set& f) {
  std::string s;
  const bool on[] = {f.wrap, f.ctx_switch, f.tail_ahead, f.overflow, f.report_lost};
  for (std::size_t i = 0; i < 5; ++i) {
    if (!on[i]) continue;
    if (!s.empty()) s += ',';
    s += fault_names[i];
  }
  return s.empty() ? "none" : s;
}

struct config {
  intel::platform platform = intel::platform::hsw;
  std::string format = "A45_B8_C8";
  unsigned exponent = 10;    // timer period field (OACONTROL 11:6 / OACTXCONTROL 7:2)
  std::size_t reports = 64;  // reports the unit writes (ring, or MI_RPC buffer in mi_rpc mode)
  std::uint64_t seed = 1;
  fault_set faults{};
  bool overrun_disable = false;                   // OABUFFER "Disable Overrun Mode" (HSW bit 3)
  std::optional<unsigned> buffer_size_field;      // default: smallest size the report size divides
  std::optional<std::uint32_t> specific_context;  // count only while this context runs
  unsigned mi_rpc_every = 0;  // also issue MI_REPORT_PERF_COUNT every n timer periods
  // B/C counters that count every GT clock, as a metric set's NOA
  // programming routes the clock there (HSW RenderBasic: C2; MemoryReads:
  // C7). Unset: C2 on Gen6/7, which have no GPU_TICKS field; none on Gen8+.
  std::optional<std::vector<std::pair<bank, std::uint8_t>>> clock_signals;
  // The GPU: topology and GT frequency range. Unset: the platform's row of
  // sku_table (sku.hpp); sku_of(platform, gt) gives its larger parts.
  std::optional<sku> device;
  // The kernel driver whose read() path and format names the run follows.
  // Unset: xe on Xe2 and later, i915 before (default_driver()).
  std::optional<driver> kernel_driver;
};

inline driver driver_of(const config& c) {
  return c.kernel_driver.value_or(default_driver(c.platform));
}

// The part a configuration emulates.
inline const sku& device_of(const config& c) { return c.device ? *c.device : sku_of(c.platform); }

// The clock signals a configuration asks for (see config::clock_signals).
inline std::vector<std::pair<bank, std::uint8_t>> clock_signals_of(const config& c) {
  if (c.clock_signals) return *c.clock_signals;
  const auto g = intel::generation_of(c.platform);
  if (g == intel::generation::gen6 || intel::is_gen7_family(g)) return {{bank::c, 2}};
  return {};
}

}  // namespace hwpc::emu
