// Per-interval decoding: the delta of every counter between consecutive
// valid reports, with the later report's 64-bit timestamp and RPT_ID.
//
//   auto buf = hwpc::intel::report_buffer::make(bytes, *format);
//   if (!buf) { report(buf.error_value().describe()); }
//   hwpc::intel::for_each_interval(*buf, gen, [](const hwpc::intel::interval& iv) { ... });
//
// One generic loop serves every format: it walks the counter_list derived
// from the format table, so there is no per-format code to drift.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/report.hpp"

namespace hwpc::intel {

struct interval {
  std::size_t report = 0;       // index in the buffer of the later report
  std::uint64_t timestamp = 0;  // its TIME_STAMP extended to 64 bits
  std::uint64_t elapsed_ticks = 0;
  report_view later;
  rpt_id_fields rpt;
  std::span<const std::uint64_t> deltas;  // per counter, counter_list order
};

struct decode_stats {
  std::size_t reports = 0;       // valid reports
  std::size_t intervals = 0;     // rows produced
  std::size_t skipped_zero = 0;  // zero-RPT_ID reports skipped
};

// Calls `on_interval(const interval&)` for each pair of consecutive valid
// reports. The deltas span is only valid during the call.
template <class F>
decode_stats for_each_interval(const report_buffer& buf, generation gen, F&& on_interval) {
  const report_format& f = buf.format();
  const counter_list counters(f);
  const field* ts_field = f.first_of(field_kind::timestamp);
  timestamp_extender extend(ts_field != nullptr ? ts_field->bits : 32);
  std::array<std::uint64_t, max_counters> prev{};
  std::array<std::uint64_t, max_counters> delta{};
  std::uint64_t prev_ts = 0;
  bool have_prev = false;
  decode_stats st;
  for (std::size_t i = 0; i < buf.size(); ++i) {
    const report_view r = buf[i];
    if (!r.is_valid()) {
      ++st.skipped_zero;
      continue;
    }
    ++st.reports;
    const std::uint64_t ts = extend(r.timestamp());
    for (std::size_t c = 0; c < counters.size(); ++c) {
      const std::uint64_t v = r.value(counters[c]);
      delta[c] = field_delta(counters[c], prev[c], v);
      prev[c] = v;
    }
    if (have_prev) {
      ++st.intervals;
      on_interval(interval{i, ts, ts - prev_ts, r, r.rpt(gen),
                           std::span<const std::uint64_t>(delta.data(), counters.size())});
    }
    prev_ts = ts;
    have_prev = true;
  }
  return st;
}

// Writes the deltas as columns (structure of arrays): columns[c][k] is the
// delta of counter c over interval k, timestamps[k] its extended timestamp.
// Each column must hold at least buf.size() - 1 values. Returns the number
// of intervals written.
inline std::size_t deltas_to_columns(const report_buffer& buf,
                                     std::span<std::uint64_t* const> columns,
                                     std::uint64_t* timestamps = nullptr) {
  const report_format& f = buf.format();
  const counter_list counters(f);
  const std::size_t nc = counters.size() < columns.size() ? counters.size() : columns.size();
  const field* ts_field = f.first_of(field_kind::timestamp);
  timestamp_extender extend(ts_field != nullptr ? ts_field->bits : 32);
  std::size_t k = 0;
  const std::byte* prev = nullptr;
  for (std::size_t i = 0; i < buf.size(); ++i) {
    const std::byte* r = buf[i].data();
    if (load_le32(r) == 0) continue;
    const std::uint64_t ts = ts_field != nullptr ? extend(load_field(r, *ts_field)) : 0;
    if (prev != nullptr) {
      for (std::size_t c = 0; c < nc; ++c) {
        const field& fd = counters[c];
        columns[c][k] = field_delta(fd, load_field(prev, fd), load_field(r, fd));
      }
      if (timestamps != nullptr) timestamps[k] = ts;
      ++k;
    }
    prev = r;
  }
  return k;
}

}  // namespace hwpc::intel
