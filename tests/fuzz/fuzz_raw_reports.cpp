// Raw OA reports: report_buffer, per-interval decode, every accumulation path
// (scalar, vector, AVX2, automatic, naive, parallel), columnar deltas on
// every path, the delta tracker over raw_capture, and per-context totals.
// Invariants: every path agrees with the per-interval decode; reports +
// skipped = slots; intervals = reports - 1; context totals add up.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/intel/accumulate.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/report.hpp"

using namespace hwpc::intel;

namespace {

void same_accumulation(const accumulation& a, const accumulation& b, const char* what) {
  FUZZ_CHECK(a.reports == b.reports, what);
  FUZZ_CHECK(a.skipped_zero == b.skipped_zero, what);
  FUZZ_CHECK(a.intervals == b.intervals, what);
  FUZZ_CHECK(a.elapsed_ticks == b.elapsed_ticks, what);
  FUZZ_CHECK(a.totals == b.totals, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const auto [f, plat] = fuzz::pick_format(in);
  const std::uint32_t ctx_mask = in.u32();
  const hwpc::byte_span bytes = in.rest();
  const generation gen = generation_of(plat);

  auto buf = report_buffer::make(bytes, *f);
  if (!buf) {
    fuzz::check_error(buf.error_value(), bytes.size());
    return 0;
  }
  const counter_list counters(*f);
  const std::size_t nc = counters.size();

  // Per-interval decode: the reference.
  std::vector<std::uint64_t> sums(nc, 0);
  std::vector<std::vector<std::uint64_t>> rows;
  std::vector<std::uint64_t> stamps;
  std::uint64_t elapsed = 0;
  const decode_stats ds = for_each_interval(*buf, gen, [&](const interval& iv) {
    FUZZ_CHECK(iv.deltas.size() == nc, "deltas per counter");
    FUZZ_CHECK(iv.report < buf->size(), "report index");
    rows.emplace_back(iv.deltas.begin(), iv.deltas.end());
    stamps.push_back(iv.timestamp);
    elapsed += iv.elapsed_ticks;
    for (std::size_t c = 0; c < nc; ++c) sums[c] += iv.deltas[c];
  });
  FUZZ_CHECK(ds.reports + ds.skipped_zero == buf->size(), "reports + skipped = slots");
  FUZZ_CHECK(ds.intervals == (ds.reports == 0 ? 0 : ds.reports - 1), "intervals = reports - 1");
  FUZZ_CHECK(ds.intervals == rows.size(), "intervals counted");

  // Every accumulation path agrees with the decode and with each other.
  const accumulation ref = accumulate_naive(*buf, gen);
  FUZZ_CHECK(ref.reports == ds.reports && ref.skipped_zero == ds.skipped_zero, "naive counts");
  FUZZ_CHECK(ref.intervals == ds.intervals, "naive intervals");
  FUZZ_CHECK(ref.totals == sums, "naive totals = sum of interval deltas");
  FUZZ_CHECK(ref.elapsed_ticks == elapsed, "naive elapsed = sum of interval elapsed");
  for (simd_path p :
       {simd_path::scalar, simd_path::vector, simd_path::avx2, simd_path::automatic}) {
    same_accumulation(accumulate(*buf, gen, p), ref, "accumulate path");
  }
  same_accumulation(accumulate_parallel(*buf, gen, 1 + ctx_mask % 3, simd_path::automatic), ref,
                    "parallel");

  // Columnar deltas on each path equal the per-interval rows.
  for (simd_path p : {simd_path::scalar, simd_path::automatic}) {
    const std::size_t cap = buf->size() == 0 ? 0 : buf->size() - 1;
    std::vector<std::vector<std::uint64_t>> cols(nc, std::vector<std::uint64_t>(cap + 1, 0));
    std::vector<std::uint64_t*> ptrs;
    for (auto& c : cols) ptrs.push_back(c.data());
    std::vector<std::uint64_t> ts(cap + 1, 0);
    const std::size_t k = deltas_to_columns(*buf, gen, ptrs, ts.data(), p);
    FUZZ_CHECK(k == rows.size(), "columnar interval count");
    for (std::size_t r = 0; r < k; ++r) {
      for (std::size_t c = 0; c < nc; ++c) FUZZ_CHECK(cols[c][r] == rows[r][c], "columnar delta");
      FUZZ_CHECK(ts[r] == stamps[r], "columnar timestamp");
    }
  }

  // The delta tracker over raw_capture, and per-context totals.
  const raw_capture cap(*buf);
  context_accumulator per_ctx(*f, context_filter::from_reports(ctx_mask | 1u));
  std::size_t n = 0;
  const capture_stats st = for_each_delta(
      cap, gen,
      [&](const capture_interval& iv) {
        FUZZ_CHECK(n < rows.size(), "tracker yields no more intervals than decode");
        FUZZ_CHECK(iv.offset < bytes.size(), "interval offset inside the input");
        for (std::size_t c = 0; c < nc; ++c)
          FUZZ_CHECK(iv.deltas[c] == rows[n][c], "tracker delta");
        FUZZ_CHECK(iv.timestamp == stamps[n], "tracker timestamp");
        per_ctx.add(iv);
        ++n;
      },
      [&](const capture_discontinuity&) { FUZZ_CHECK(false, "raw input has no discontinuity"); });
  FUZZ_CHECK(n == rows.size(), "tracker interval count");
  FUZZ_CHECK(st.reports == ds.reports && st.skipped_zero == ds.skipped_zero, "tracker counts");
  std::size_t ctx_intervals = per_ctx.no_context().intervals;
  std::vector<std::uint64_t> ctx_sums = per_ctx.no_context().totals;
  for (const auto& t : per_ctx.contexts()) {
    ctx_intervals += t.intervals;
    for (std::size_t c = 0; c < nc; ++c) ctx_sums[c] += t.totals[c];
  }
  FUZZ_CHECK(ctx_intervals == n, "context intervals add up");
  FUZZ_CHECK(ctx_sums == sums, "context totals add up");
  return 0;
}
