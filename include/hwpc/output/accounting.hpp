// The accounting of a decode (core/row.hpp) as text: one line for stderr,
// one JSON object for the trailer of JSON outputs.
#pragma once

#include <string>

#include "hwpc/core/row.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output {

inline void write_accounting_json(text_buffer& out, const accounting& a) {
  out << "{\"records\": " << a.records << ", \"reports\": " << a.reports
      << ", \"intervals\": " << a.intervals << ", \"across_loss\": " << a.across_loss
      << ", \"filtered\": " << a.filtered << ", \"stretch_starts\": " << a.stretch_starts
      << ", \"unbridged\": " << a.unbridged << ", \"skipped_zero\": " << a.skipped_zero
      << ", \"report_lost\": " << a.report_lost << ", \"buffer_lost\": " << a.buffer_lost
      << ", \"overflow\": " << a.overflow << ", \"gaps\": " << a.gaps
      << ", \"unknown\": " << a.unknown << "}";
}

// "120 records: 100 reports = 95 intervals + 0 filtered + 3 stretch starts +
//  2 zero RPT_ID; 18 lost (...); 2 unknown records skipped"
inline std::string describe(const accounting& a) {
  auto n = [](std::uint64_t v) { return std::to_string(v); };
  // The loss buckets appear when an input has losses to bridge.
  const std::string across =
      a.across_loss != 0 ? " (" + n(a.across_loss) + " across a loss)" : std::string();
  const std::string unbridged =
      a.unbridged != 0 ? " + " + n(a.unbridged) + " after a loss too long to span" : std::string();
  return n(a.records) + " records read = " + n(a.reports) + " reports (" + n(a.intervals) +
         " intervals decoded" + across + " + " + n(a.filtered) + " filtered by context + " +
         n(a.stretch_starts) + " stretch starts" + unbridged + " + " + n(a.skipped_zero) +
         " zero RPT_ID skipped) + " + n(a.lost()) + " lost (" + n(a.report_lost) +
         " report-lost, " + n(a.buffer_lost) + " buffer-lost, " + n(a.overflow) +
         " counter-overflow, " + n(a.gaps) + " gap) + " + n(a.unknown) + " unknown records skipped";
}

}  // namespace hwpc::output
