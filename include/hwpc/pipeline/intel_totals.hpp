// The totals of a raw Intel OA capture (no context filter), the one way every
// door computes them (`hwpc decode --summary`, hwpc.intel.decode(summary=True)):
// the accumulate() fast path on `threads` threads (the result does not depend
// on the count; tests/test_capture_reference.cpp holds it to the reference
// delta path), the metrics of the totals through the bound set. Other inputs
// are totalled row by row through output::add_row (output/summary.hpp).
#pragma once

#include <algorithm>
#include <thread>
#include <utility>

#include "hwpc/core/row.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/metrics/binding.hpp"
#include "hwpc/output/summary.hpp"

namespace hwpc::intel {

struct raw_totals {
  output::totals totals;
  accounting acc;
};

// `m`: the bound metric set, or nullptr; `threads` 0: one per hardware thread.
inline raw_totals total_raw(const report_buffer& buf, generation gen, metrics::row_metrics* m,
                            unsigned threads = 0) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const accumulation acc = accumulate_parallel(buf, gen, threads);
  raw_totals r;
  r.totals.intervals = acc.intervals;
  r.totals.elapsed = acc.elapsed_ticks;
  r.totals.counters = acc.totals;
  r.totals.reports = acc.reports;
  r.totals.skipped_zero = acc.skipped_zero;
  if (m != nullptr) {
    r.totals.metrics.resize(m->size());
    m->evaluate(r.totals.counters, r.totals.elapsed, r.totals.metrics);
  }
  r.acc = accounting_of(acc);
  return r;
}

}  // namespace hwpc::intel
