// Totals of every counter over a capture.
//
// accumulate() walks a report_buffer once. Reports whose RPT_ID is zero were
// never written by the OA unit (the tail pointer ran ahead of memory): they
// are skipped and counted, and the interval is measured from the previous
// valid report to the next. Runs of valid reports go through the wrap-count
// kernel (wrap_count.hpp; formats whose counters are mostly 64-bit through the
// sparse kernel of wrap_count_sparse.hpp); each total is then
//   (last - first) mod 2^64 + wraps * 2^width
// which equals the sum of the per-interval deltas exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/intel/wrap_count.hpp"
#include "hwpc/intel/wrap_count_sparse.hpp"

namespace hwpc::intel {

struct accumulation {
  const report_format* format = nullptr;
  std::vector<std::uint64_t> totals;  // per counter, in counter_list order
  std::uint64_t elapsed_ticks = 0;    // sum of TIME_STAMP deltas, in ticks (timestamp_reading)
  std::size_t reports = 0;            // valid reports seen
  std::size_t skipped_zero = 0;       // reports skipped for a zero RPT_ID
  std::size_t intervals = 0;          // deltas summed (reports - 1 per unbroken stretch)

  // Adds another accumulation of the same format (e.g. the next chunk).
  void merge(const accumulation& o) {
    for (std::size_t i = 0; i < totals.size() && i < o.totals.size(); ++i) totals[i] += o.totals[i];
    elapsed_ticks += o.elapsed_ticks;
    reports += o.reports;
    skipped_zero += o.skipped_zero;
    intervals += o.intervals;
  }
};

namespace detail {

constexpr bool has_u40_fields(const report_format& f) noexcept {
  for (const auto& fd : f.fields) {
    if (fd.bits == 40) return true;
  }
  return false;
}
// The wrap kernel pairs the low dword dw(4+j) with the high byte 160+j.
consteval bool u40_fields_fit_kernel() {
  for (const auto& f : all_formats) {
    for (const auto& fd : f.fields) {
      if (fd.bits != 40) continue;
      const std::size_t j = fd.offset / 4 - u40_low_dword;
      if (fd.offset / 4 < u40_low_dword || j >= u40_slots ||
          fd.high_byte_offset != u40_high_byte + j)
        return false;
    }
  }
  return true;
}
static_assert(u40_fields_fit_kernel(),
              "a 40-bit counter does not follow the dw(4+j)/byte(160+j) pairing");

// Adds the totals of one unbroken run of valid reports [first, first+n)
// whose wraps `w` have been counted.
inline void finish_run(const std::byte* first, std::size_t n, const report_format& f,
                       const counter_list& counters, const wrap_counts& w,
                       const timestamp_reading& tsr, accumulation& acc) {
  acc.reports += n;
  if (n < 2) return;
  acc.intervals += n - 1;
  const std::byte* last = first + (n - 1) * f.size;
  auto total = [&](const field& fd) -> std::uint64_t {
    const std::uint64_t span = load_field(last, fd) - load_field(first, fd);
    switch (fd.bits) {
      case 64:
        return span;
      case 40:
        return span + (w.u40[fd.offset / 4 - u40_low_dword] << 40);
      default:
        return span + (w.dword[fd.offset / 4] << 32);
    }
  };
  for (std::size_t c = 0; c < counters.size(); ++c) acc.totals[c] += total(counters[c]);
  const field* ts = f.first_of(field_kind::timestamp);
  if (ts == nullptr) return;
  if (tsr.shift == 0) {
    acc.elapsed_ticks += total(*ts);
    return;
  }
  // A shifted TIME_STAMP (DG2) wraps at 2^31 ticks, which the dword wrap
  // count does not see exactly (a field one lower with an odd start is no
  // tick wrap): step through the run, one load per report.
  std::uint64_t prev = load_field(first, *ts);
  for (std::size_t k = 1; k < n; ++k) {
    const std::uint64_t cur = load_field(first + k * f.size, *ts);
    acc.elapsed_ticks += tsr.step(prev, cur);
    prev = cur;
  }
}

inline void add_step(const report_view& a, const report_view& b, const counter_list& counters,
                     const timestamp_reading& tsr, accumulation& acc) {
  const report_format& f = a.format();
  for (std::size_t c = 0; c < counters.size(); ++c) {
    acc.totals[c] += field_delta(counters[c], a.value(counters[c]), b.value(counters[c]));
  }
  if (const field* ts = f.first_of(field_kind::timestamp)) {
    acc.elapsed_ticks += tsr.step(a.value(*ts), b.value(*ts));
  }
  ++acc.intervals;
}

}  // namespace detail

inline accumulation accumulate_naive(const report_buffer& buf, generation gen);

// `gen` says how TIME_STAMP reads as ticks (timestamp_reading).
inline accumulation accumulate(const report_buffer& buf, generation gen,
                               simd_path path = simd_path::automatic) {
  const report_format& f = buf.format();
  // A format built at run time beyond what the kernels were sized for.
  if (!fits_limits(f)) return accumulate_naive(buf, gen);
  const timestamp_reading tsr = timestamp_reading::of(f, gen);
  const counter_list counters(f);
  accumulation acc;
  acc.format = &f;
  acc.totals.assign(counters.size(), 0);

  const std::size_t n = buf.size();
  const std::byte* base = buf.bytes().data();
  const bool has40 = detail::has_u40_fields(f);
  // Formats with 64-bit counters compare only the vectors holding 32-bit ones.
  const detail::wrap_vectors vs = detail::wrap_vectors::of(f);
  std::size_t i = 0;
  const std::byte* prev_valid = nullptr;  // last report of the previous run
  while (i < n) {
    if (!report_landed(base + i * f.size, f)) {
      ++acc.skipped_zero;
      ++i;
      continue;
    }
    const std::byte* run = base + i * f.size;
    // Bridge the gap left by skipped reports: previous run's last -> this run's first.
    if (prev_valid != nullptr) detail::add_step({prev_valid, f}, {run, f}, counters, tsr, acc);
    // The kernel walks the run and stops at the next zero RPT_ID. On Xe
    // formats a report with RPT_ID 0 but a TIME_STAMP is landed: the run
    // stops before it, and the next pass bridges to it like any gap.
    wrap_counts w;
    const std::size_t j =
        i + (vs.sparse ? detail::wrap_count_sparse(run, n - i, f.size, vs, path, w)
                       : detail::wrap_count(run, n - i, f.size, has40, path, w));
    detail::finish_run(run, j - i, f, counters, w, tsr, acc);
    prev_valid = base + (j - 1) * f.size;
    i = j;
  }
  return acc;
}

// The straightforward reference: sum every per-interval delta. Tests hold the
// fast path to it, and benchmarks use it as the baseline.
inline accumulation accumulate_naive(const report_buffer& buf, generation gen) {
  const report_format& f = buf.format();
  const timestamp_reading tsr = timestamp_reading::of(f, gen);
  const counter_list counters(f);
  accumulation acc;
  acc.format = &f;
  acc.totals.assign(counters.size(), 0);
  const report_view* prev = nullptr;
  report_view last{nullptr, f};
  for (report_view r : buf) {
    if (!r.is_valid()) {
      ++acc.skipped_zero;
      continue;
    }
    ++acc.reports;
    if (prev != nullptr) detail::add_step(last, r, counters, tsr, acc);
    last = r;
    prev = &last;
  }
  return acc;
}

// The same with TIME_STAMP read as it is (every generation but 12.55).
inline accumulation accumulate(const report_buffer& buf, simd_path path = simd_path::automatic) {
  return accumulate(buf, generation::gen12, path);
}
inline accumulation accumulate_naive(const report_buffer& buf) {
  return accumulate_naive(buf, generation::gen12);
}

}  // namespace hwpc::intel
