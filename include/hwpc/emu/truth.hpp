// The emulator's ground truth: the exact increment of every counter between
// consecutive valid reports of an output, as the decoder should find it.
//
// Rows follow the decoder's CSV: `report` is the index, within the output's
// own sequence of reports, of the later report of the interval (zero-RPT_ID
// slots count, as they take room in a raw file; a stream counts its SAMPLE
// records); `timestamp` is that report's TIME_STAMP ticks extended to 64 bits from
// the first valid report's raw value (a recording: the whole TIME_STAMP,
// which its correlation records pin down); then one column per counter in
// the order GPU_TICKS, MPEC, A, B, C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/emu/oa_unit.hpp"
#include "hwpc/intel/loss_bound.hpp"

namespace hwpc::emu {

enum class output_kind : std::uint8_t {
  raw,           // what the consumer copied out of the ring, back to back (or the MI_RPC buffer)
  i915_stream,   // i915 perf read() records
  recording,     // IGT recording: header records, then the stream
  ring,          // the OA buffer snapshot between head and tail
  mi_rpc,        // the MI_REPORT_PERF_COUNT buffer
  xe_stream,     // Xe OA read() data: reports back to back, losses out of band
  xe_recording,  // IGT xe-perf-recorder file: header records, then SAMPLE / loss records
};

struct truth_row {
  std::size_t report = 0;
  std::uint64_t timestamp = 0;
  std::vector<std::uint64_t> deltas;
};

struct truth_table {
  std::vector<std::string> names;  // counter columns
  std::vector<truth_row> rows;
  // False when some increment is too large for the field's width (the
  // decoder can only see it modulo 2^bits). The emulator's rates keep this
  // true for exponents up to 10 even across a whole lost buffer.
  bool representable = true;
};

// The output's report sequence: an index into capture::reports per report
// slot, read_item::npos for a slot with a zero RPT_ID.
inline result<std::vector<std::size_t>> report_sequence(const capture& cap, output_kind k) {
  std::vector<std::size_t> seq;
  switch (k) {
    case output_kind::raw:
      if (cap.mi_rpc_mode) return cap.mi_rpc;
      for (const auto& it : cap.read) {
        if (it.k == read_item::kind::sample) seq.push_back(it.report);
        if (it.k == read_item::kind::unlanded) seq.push_back(read_item::npos);
      }
      return seq;
    case output_kind::i915_stream:
    case output_kind::recording:
    case output_kind::xe_stream:
    case output_kind::xe_recording:
      if (cap.mi_rpc_mode) {
        return make_error(errc::inconsistent, 0,
                          std::string(cap.format->name) +
                              " reports do not divide any OA buffer size: no i915 stream");
      }
      for (const auto& it : cap.read) {
        if (it.k == read_item::kind::sample) seq.push_back(it.report);
      }
      return seq;
    case output_kind::ring:
      if (cap.mi_rpc_mode) {
        return make_error(
            errc::inconsistent, 0,
            std::string(cap.format->name) + " reports do not divide any OA buffer size: no ring");
      }
      return cap.ring.window;
    case output_kind::mi_rpc:
      return cap.mi_rpc;
  }
  return seq;
}

inline std::vector<std::string> counter_names(const format_desc& f) {
  std::vector<std::string> n;
  for (const counter_slot& s : f.layout.slots()) n.push_back(counter_name(s));
  return n;
}

// `breaks[i]` true: a loss record precedes report slot i. The interval that
// ends there is kept only when no counter can have wrapped more than once
// over its true length (intel/loss_bound.hpp, the readers' rule), else the
// readers start a new stretch there. `full_timestamps`:
// report the whole TIME_STAMP (recordings anchor it to their correlation
// records) instead of extending the first report's raw value.
inline truth_table truth_of_sequence(const capture& cap, const std::vector<std::size_t>& seq,
                                     const std::vector<bool>& breaks = {},
                                     bool full_timestamps = false) {
  truth_table t;
  t.names = counter_names(*cap.format);
  const report_layout& l = cap.format->layout;
  // TIME_STAMP ticks as the report keeps them (31 bits on DG2).
  const std::uint64_t ts_mask = width_mask(ts_packing_of(cap.cfg.platform, l).bits);
  const report_record* first = nullptr;
  const report_record* prev = nullptr;
  std::uint64_t first_raw = 0;
  bool broken = false;
  // The readers' rule on the layout's own counters: A and PEC aggregate
  // over the EUs, the rest count at most once a clock.
  auto exact_across = [&](std::uint64_t ticks) {
    for (const counter_slot& s : l.slots()) {
      const intel::field_kind kind = s.k == bank::a     ? intel::field_kind::a
                                     : s.k == bank::pec ? intel::field_kind::pec
                                                        : intel::field_kind::b;
      if (!intel::count_exact_over(ticks, s.bits, intel::highest_rate_per_tick(kind, cap.gen)))
        return false;
    }
    return true;
  };
  for (std::size_t i = 0; i < seq.size(); ++i) {
    if (i < breaks.size() && breaks[i]) broken = true;
    if (seq[i] == read_item::npos) continue;
    const report_record& r = cap.reports[seq[i]];
    if (first == nullptr) {
      first = &r;
      first_raw = (cap.start.timestamp + r.at.timestamp) & ts_mask;
    } else if (!broken || exact_across(r.at.timestamp - prev->at.timestamp)) {
      truth_row row;
      row.report = i;
      row.timestamp = full_timestamps ? cap.start.timestamp + r.at.timestamp
                                      : first_raw + (r.at.timestamp - first->at.timestamp);
      if (r.at.timestamp - prev->at.timestamp > ts_mask) t.representable = false;
      for (const counter_slot& s : l.slots()) {
        const std::uint64_t d = r.at.counter(s.k, s.index) - prev->at.counter(s.k, s.index);
        if (d > width_mask(s.bits)) t.representable = false;
        row.deltas.push_back(d);
      }
      t.rows.push_back(std::move(row));
    }
    broken = false;
    prev = &r;
  }
  return t;
}

// The truth for an output. Streams and recordings leave out the intervals
// that span an OA_REPORT_LOST or OA_BUFFER_LOST record, as their readers do.
inline result<truth_table> truth_for(const capture& cap, output_kind k) {
  auto seq = report_sequence(cap, k);
  if (!seq) return seq.error_value();
  const bool xe_kind = k == output_kind::xe_stream || k == output_kind::xe_recording;
  if (xe_kind != (cap.kernel_driver == driver::xe) &&
      (xe_kind || k == output_kind::i915_stream || k == output_kind::recording)) {
    return make_error(errc::inconsistent, 0,
                      xe_kind ? "an i915 capture has no Xe stream or recording"
                              : "an Xe driver capture has no i915 stream or recording");
  }
  if (k != output_kind::i915_stream && k != output_kind::recording && !xe_kind) {
    return truth_of_sequence(cap, *seq);
  }
  std::vector<bool> breaks;
  bool pending = false;
  for (const auto& it : cap.read) {
    if (it.k == read_item::kind::report_lost || it.k == read_item::kind::buffer_lost) {
      pending = true;
    } else if (it.k == read_item::kind::sample) {
      breaks.push_back(pending);
      pending = false;
    }
  }
  return truth_of_sequence(cap, *seq, breaks,
                           k == output_kind::recording || k == output_kind::xe_recording);
}

// "report,timestamp,<counter names...>" then one line per interval.
inline std::string truth_csv(const truth_table& t) {
  std::string s = "report,timestamp";
  for (const auto& n : t.names) {
    s += ',';
    s += n;
  }
  s += '\n';
  for (const auto& r : t.rows) {
    s += std::to_string(r.report);
    s += ',';
    s += std::to_string(r.timestamp);
    for (std::uint64_t d : r.deltas) {
      s += ',';
      s += std::to_string(d);
    }
    s += '\n';
  }
  return s;
}

}  // namespace hwpc::emu
