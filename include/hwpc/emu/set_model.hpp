// The counter model a metric set's own formulas ask for.
//
// A metric set programs NOA so that its B/C counters carry the signals its
// formulas read; the emulator does not see that programming, but the
// formulas say what matters for their bounds. On Gen6/7, which have no
// GPU_TICKS field, a set routes the GT clock to a B or C counter and reads it
// as GpuCoreClocks (HSW RenderBasic and ComputeBasic: `C 2 READ`;
// MemoryReads and MemoryWrites: `C 7 READ`; SamplerBalance: `B 7 READ`).
// A capture emulated for that set must count every clock there, or the
// set's GpuBusy (busy / clocks) and EuActive read hundreds of percent.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/emu/config.hpp"
#include "hwpc/emu/layouts.hpp"
#include "hwpc/metrics/set_definition.hpp"

namespace hwpc::emu {

// The counter a formula is when it is exactly one B or C counter read
// ("C 7 READ"); nothing otherwise.
inline std::optional<std::pair<bank, std::uint8_t>> single_bc_read(std::string_view e) {
  auto word = [&e]() {
    while (!e.empty() && e.front() == ' ') e.remove_prefix(1);
    std::size_t n = 0;
    while (n < e.size() && e[n] != ' ') ++n;
    const std::string_view w = e.substr(0, n);
    e.remove_prefix(n);
    return w;
  };
  const std::string_view b = word(), idx = word(), op = word();
  if (!word().empty() || op != "READ" || (b != "B" && b != "C") || idx.empty() || idx.size() > 2)
    return std::nullopt;
  unsigned i = 0;
  for (const char ch : idx) {
    if (ch < '0' || ch > '9') return std::nullopt;
    i = i * 10 + static_cast<unsigned>(ch - '0');
  }
  if (i >= max_bc) return std::nullopt;
  return std::pair{b == "B" ? bank::b : bank::c, static_cast<std::uint8_t>(i)};
}

// The B/C counters a set reads as its GT clock (its GpuCoreClocks formula,
// when that is one B or C counter). Empty when the set reads the clock from
// GPU_TICKS (Gen8+) or has no GpuCoreClocks.
inline std::vector<std::pair<bank, std::uint8_t>> clock_signals_of_set(
    const metrics::metric_set& s) {
  for (const auto& m : s.metrics) {
    if (m.symbol_name != "GpuCoreClocks") continue;
    if (const auto c = single_bc_read(m.equation)) return {*c};
    return {};
  }
  return {};
}

// Makes `c` emulate what the set's formulas assume: its clock signal. A set
// that reads GPU_TICKS leaves the configuration's default.
inline void shape_for_set(config& c, const metrics::metric_set& s) {
  auto clocks = clock_signals_of_set(s);
  if (!clocks.empty()) c.clock_signals = std::move(clocks);
}

}  // namespace hwpc::emu
