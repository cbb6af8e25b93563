// What an emulator run produces: every report it took (why, its values
// relative to the run's start), what the consumer read, the ring as memory
// held it, the run's statistics, and the packed report bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "hwpc/emu/config.hpp"
#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/workload.hpp"
#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

enum class trigger : std::uint8_t { timer, mi_rpc, ctx_switch, go_transition, clock_ratio };

inline constexpr std::string_view to_string(trigger t) noexcept {
  switch (t) {
    case trigger::timer:
      return "timer";
    case trigger::mi_rpc:
      return "mi-rpc";
    case trigger::ctx_switch:
      return "ctx-switch";
    case trigger::go_transition:
      return "go-1to0";
    case trigger::clock_ratio:
      return "clock-ratio";
  }
  return "?";
}

// One report the unit wrote, with the exact counts when it was taken.
struct report_record {
  trigger why = trigger::timer;
  bool to_ring = true;  // false: MI_REPORT_PERF_COUNT, written to its own buffer
  std::uint32_t rpt_id = 0;
  std::uint32_t ctx_id = 0;
  bool ctx_valid = false;
  std::uint32_t freq_mhz = 0;
  counter_totals at;
};

// What the consumer read, in order.
struct read_item {
  enum class kind : std::uint8_t {
    sample,       // a landed report: index into capture::reports
    unlanded,     // the tail covered it but its bytes had not landed (RPT_ID 0)
    report_lost,  // OA_REPORT_LOST status seen
    buffer_lost,  // OA_BUFFER_LOST: overflow seen, ring restarted
  };
  kind k = kind::sample;
  std::size_t report = npos;
  std::size_t stale = npos;  // unlanded: the report whose bytes the slot still held
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

// The OA buffer at the end of the run (before the consumer's final read).
struct ring_snapshot {
  std::vector<std::byte> bytes;  // whole buffer
  std::uint32_t base = 0;        // graphics address of the buffer
  std::uint32_t head = 0;        // as the head register reports it (address)
  std::uint32_t tail = 0;        // as the tail register reports it (address, 64-byte steps)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> registers;  // (MMIO address, value)
  bool buffer_overflow = false;
  bool report_lost = false;
  // The reports between head and tail aligned down to the report size, in
  // order: an index into capture::reports, or read_item::npos for a slot
  // whose report has not landed.
  std::vector<std::size_t> window;
};

struct run_stats {
  std::size_t ring_reports = 0;     // written to the ring
  std::size_t mi_rpc_reports = 0;   // written by MI_REPORT_PERF_COUNT
  std::size_t lost_collisions = 0;  // timer reports lost to MI_RPC collisions
  std::size_t overwritten = 0;      // reports overwritten after an overflow (lost to readers)
  std::size_t dropped_stopped = 0;  // not written: ring full, overrun disabled
  std::size_t restarts = 0;         // consumer restarts after OA_BUFFER_LOST
  std::size_t unlanded_reads = 0;   // zero-RPT_ID reports the consumer met
  std::size_t ctx_switches = 0;
};

struct capture {
  config cfg;
  const format_desc* format = nullptr;
  intel::generation gen{};
  std::uint64_t timestamp_hz = 0;
  std::uint64_t period_ticks = 0;
  bool mi_rpc_mode = false;  // the format fits no OA buffer: every report is an MI_RPC report
  std::uint32_t buffer_bytes = 0;
  // The part of the buffer reports go round in: buffer_bytes, or on the Xe
  // driver the buffer rounded down to whole reports (FACTS-xe section 5).
  std::uint32_t ring_bytes = 0;
  driver kernel_driver = driver::i915;
  std::vector<report_record> reports;
  std::vector<std::byte> packed;  // reports.size() * report size
  std::vector<read_item> read;
  std::vector<std::size_t> mi_rpc;  // indices of MI_RPC reports, in order
  ring_snapshot ring;
  report_values start;  // counter / TIME_STAMP values at total 0
  run_stats stats;

  std::size_t report_size() const noexcept { return format->size(); }
  std::span<const std::byte> report_bytes(std::size_t i) const noexcept {
    return {packed.data() + i * report_size(), report_size()};
  }
};

}  // namespace hwpc::emu
