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
//
// Works in blocks of valid reports, counter by counter: the width of a field
// is looked at once per block, and the inner loop is a load, a subtract and a
// contiguous store, which keeps the column writes streaming.
inline std::size_t deltas_to_columns(const report_buffer& buf,
                                     std::span<std::uint64_t* const> columns,
                                     std::uint64_t* timestamps = nullptr) {
  constexpr std::size_t block = 256;
  const report_format& f = buf.format();
  const counter_list counters(f);
  const std::size_t nc = counters.size() < columns.size() ? counters.size() : columns.size();
  const field* ts_field = f.first_of(field_kind::timestamp);
  timestamp_extender extend(ts_field != nullptr ? ts_field->bits : 32);
  std::array<const std::byte*, block + 1> r{};  // r[0] is the previous block's last valid report
  std::size_t k = 0;
  std::size_t m = 0;  // reports held in r
  const std::size_t n = buf.size();
  const std::byte* base = buf.bytes().data();
  for (std::size_t i = 0; i < n;) {
    while (i < n && m < r.size()) {
      const std::byte* p = base + i * f.size;
      if (load_le32(p) != 0) r[m++] = p;
      ++i;
    }
    if (m < 2) continue;
    const std::size_t rows = m - 1;
    for (std::size_t c = 0; c < nc; ++c) {
      const field& fd = counters[c];
      std::uint64_t* out = columns[c] + k;
      const std::size_t o = fd.offset;
      switch (fd.bits) {
        case 32:
          for (std::size_t j = 0; j < rows; ++j) {
            out[j] = static_cast<std::uint32_t>(load_le32(r[j + 1] + o) - load_le32(r[j] + o));
          }
          break;
        default:
          for (std::size_t j = 0; j < rows; ++j)
            out[j] = field_delta(fd, load_field(r[j], fd), load_field(r[j + 1], fd));
      }
    }
    if (ts_field != nullptr) {
      if (k == 0) extend(load_field(r[0], *ts_field));
      for (std::size_t j = 0; j < rows; ++j) {
        const std::uint64_t ts = extend(load_field(r[j + 1], *ts_field));
        if (timestamps != nullptr) timestamps[k + j] = ts;
      }
    }
    k += rows;
    r[0] = r[m - 1];
    m = 1;
  }
  return k;
}

}  // namespace hwpc::intel
