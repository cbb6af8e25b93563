// One reference delta path, delta_tracker (capture.hpp), and every fast path
// held to it element by element: for_each_interval and deltas_to_columns
// (decode.hpp), accumulate on every SIMD path, accumulate_naive and
// accumulate_parallel (accumulate*.hpp), the rows of intel/rows.hpp and the
// summary writer's totals (output/summary.hpp). Inputs: seeded random raw
// captures of every format (wraps, zero-RPT_ID holes) and emulated captures
// of every input kind with every fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "hwpc/emu.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/output/summary.hpp"

namespace {

using namespace hwpc;
using namespace hwpc::intel;

// Every reader's iterator is a forward iterator over capture_events (they share
// capture_event_iterator_types), so the range algorithms and the delta layer
// take any of them.
template <class Reader>
constexpr bool yields_capture_events() {
  using I = typename Reader::iterator;
  using traits = std::iterator_traits<I>;
  return std::forward_iterator<I> && std::same_as<typename traits::value_type, capture_event> &&
         std::same_as<typename traits::iterator_category, std::forward_iterator_tag>;
}
static_assert(yields_capture_events<raw_capture>());
static_assert(yields_capture_events<oa_ring>());
static_assert(yields_capture_events<i915_stream>());
static_assert(yields_capture_events<recording>());
static_assert(yields_capture_events<xe_stream>());
static_assert(yields_capture_events<xe_recording>());

// What the reference produces for one interval.
struct ref_interval {
  std::size_t report = 0;  // report event index
  std::size_t slot = 0;    // source ordinal (raw: slot)
  std::uint64_t timestamp = 0, elapsed = 0;
  std::vector<std::uint64_t> deltas;
};

struct reference {
  std::vector<ref_interval> intervals;
  capture_stats stats;
  std::vector<std::uint64_t> totals;
  std::uint64_t elapsed = 0;
};

template <class Source>
reference reference_of(const Source& src, generation gen) {
  reference r;
  delta_tracker t(src.format(), gen);
  r.totals.assign(t.counters().size(), 0);
  for (const capture_event& e : src) {
    if (t.feed(e) != delta_step::interval) continue;
    const capture_interval& iv = t.interval();
    r.intervals.push_back({iv.report,
                           iv.index,
                           iv.timestamp,
                           iv.elapsed_ticks,
                           {iv.deltas.begin(), iv.deltas.end()}});
    for (std::size_t c = 0; c < iv.deltas.size(); ++c) r.totals[c] += iv.deltas[c];
    r.elapsed += iv.elapsed_ticks;
  }
  r.stats = t.stats();
  return r;
}

void put(std::byte* p, const field& fd, std::uint64_t v) {
  for (int k = 0; k < 4; ++k) p[fd.offset + k] = std::byte((v >> (8 * k)) & 0xff);
  if (fd.bits == 64) {
    for (int k = 4; k < 8; ++k) p[fd.offset + k] = std::byte((v >> (8 * k)) & 0xff);
  }
  if (fd.bits == 40) p[fd.high_byte_offset] = std::byte((v >> 32) & 0xff);
}

std::vector<std::byte> random_raw(const report_format& f, std::size_t n, std::mt19937_64& rng) {
  std::vector<std::byte> bytes(f.size * n);
  const counter_list counters(f);
  std::vector<std::uint64_t> v(counters.size());
  for (auto& x : v) x = rng();
  std::uint64_t ts = rng();
  const field* tsf = f.first_of(field_kind::timestamp);
  for (std::size_t i = 0; i < n; ++i) {
    std::byte* r = bytes.data() + i * f.size;
    for (std::size_t b = 0; b < f.size; ++b) r[b] = std::byte(rng());
    for (std::size_t c = 0; c < counters.size(); ++c) {
      v[c] += rng() % 3 == 0 ? 0xffffffffull - rng() % 64 : rng() % 100000;
      put(r, counters[c], v[c]);
    }
    ts += rng() % 5000;
    if (tsf != nullptr) put(r, *tsf, ts);
    const bool hole = rng() % 10 == 0;
    const std::uint32_t id = hole ? 0 : static_cast<std::uint32_t>(rng() | 1);
    for (int k = 0; k < 4; ++k) r[k] = std::byte((id >> (8 * k)) & 0xff);
    // The Xe rule (report_landed) takes a report as landed when RPT_ID or
    // TIME_STAMP is non-zero: a hole is a zero low dword only (landed: the
    // wrap kernels stop there and accumulate bridges it), a zero 64-bit
    // RPT_ID (landed by its TIME_STAMP), or both zero (never landed).
    if (hole && f.xe_landed_rule) {
      const std::uint64_t kind = rng() % 3;
      if (kind >= 1) {
        for (const field& fd : f.fields) {
          if (fd.kind == field_kind::rpt_id) put(r, fd, 0);
        }
      }
      if (kind == 2 && tsf != nullptr) put(r, *tsf, 0);
    }
  }
  return bytes;
}

void expect_fast_paths_match(const report_buffer& buf, generation gen, const std::string& what) {
  SCOPED_TRACE(what);
  const reference ref = reference_of(raw_capture(buf), gen);
  // for_each_interval
  std::size_t k = 0;
  const decode_stats ds = for_each_interval(buf, gen, [&](const interval& iv) {
    ASSERT_LT(k, ref.intervals.size());
    const ref_interval& r = ref.intervals[k++];
    EXPECT_EQ(iv.report, r.slot);
    EXPECT_EQ(iv.timestamp, r.timestamp);
    EXPECT_EQ(iv.elapsed_ticks, r.elapsed);
    EXPECT_TRUE(std::equal(iv.deltas.begin(), iv.deltas.end(), r.deltas.begin(), r.deltas.end()));
  });
  EXPECT_EQ(k, ref.intervals.size());
  EXPECT_EQ(ds.reports, ref.stats.reports);
  EXPECT_EQ(ds.skipped_zero, ref.stats.skipped_zero);
  // deltas_to_columns, every path
  const std::size_t nc = counter_list(buf.format()).size();
  for (simd_path path : {simd_path::scalar, simd_path::automatic, simd_path::avx2}) {
    std::vector<std::vector<std::uint64_t>> cols(nc, std::vector<std::uint64_t>(buf.size()));
    std::vector<std::uint64_t*> ptrs;
    for (auto& c : cols) ptrs.push_back(c.data());
    std::vector<std::uint64_t> ts(buf.size());
    const std::size_t n = deltas_to_columns(buf, gen, ptrs, ts.data(), path);
    ASSERT_EQ(n, ref.intervals.size());
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(ts[i], ref.intervals[i].timestamp) << "interval " << i;
      for (std::size_t c = 0; c < nc; ++c) {
        ASSERT_EQ(cols[c][i], ref.intervals[i].deltas[c]) << "interval " << i << " counter " << c;
      }
    }
  }
  // accumulate on every path, naive, parallel
  auto check_acc = [&](const accumulation& a, const char* name) {
    SCOPED_TRACE(name);
    EXPECT_EQ(a.totals, ref.totals);
    EXPECT_EQ(a.elapsed_ticks, ref.elapsed);
    EXPECT_EQ(a.intervals, ref.intervals.size());
    EXPECT_EQ(a.reports, ref.stats.reports);
    EXPECT_EQ(a.skipped_zero, ref.stats.skipped_zero);
  };
  for (simd_path path :
       {simd_path::automatic, simd_path::scalar, simd_path::vector, simd_path::avx2}) {
    check_acc(accumulate(buf, gen, path), "accumulate");
  }
  check_acc(accumulate_naive(buf, gen), "accumulate_naive");
  check_acc(accumulate_parallel(buf, gen, 3), "accumulate_parallel");
}

TEST(DeltaReference, EveryFastPathMatchesTheTrackerOnRandomCapturesOfEveryFormat) {
  std::mt19937_64 rng(20261123);
  int formats = 0;
  for (const report_format& f : all_formats) {
    // Every generation the format exists on: TIME_STAMP reads differently
    // on DG2 (timestamp_reading), so a format of DG2 and MTL is held on both.
    std::vector<generation> gens;
    for (const platform p : f.platforms) {
      if (std::find(gens.begin(), gens.end(), generation_of(p)) == gens.end())
        gens.push_back(generation_of(p));
    }
    for (const generation gen : gens) {
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{700}}) {
        const auto bytes = random_raw(f, n, rng);
        auto buf = report_buffer::make(bytes, f).value();
        expect_fast_paths_match(buf, gen,
                                std::string(f.name) + " gen " +
                                    std::to_string(static_cast<int>(gen)) +
                                    " n=" + std::to_string(n));
      }
    }
    ++formats;
  }
  EXPECT_EQ(formats, static_cast<int>(all_formats.size()));
}

// The Xe driver's formats: 64-bit headers and counters, 128- to 640-byte
// reports (the sparse wrap kernel and the 64-bit delta tiles serve most of
// them), landed and unlanded holes, on every platform row.
TEST(DeltaReference, EveryFastPathMatchesTheTrackerOnRandomCapturesOfEveryXeFormat) {
  std::mt19937_64 rng(20261124);
  int formats = 0;
  for (const xe_format& x : xe_formats) {
    const report_format& f = x.layout;
    const platform p = f.platforms.back();
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{300}}) {
      const auto bytes = random_raw(f, n, rng);
      auto buf = report_buffer::make(bytes, f).value();
      expect_fast_paths_match(
          buf, generation_of(p),
          std::string(name_of(p)) + " " + std::string(f.name) + " n=" + std::to_string(n));
    }
    ++formats;
  }
  EXPECT_EQ(formats, 19);
}

// Formats built at run time, thousands of them: every size from 32 to 640
// bytes, 32- or 64-bit headers under either landed rule, and each qword
// after the header holding nothing, one 64-bit counter or one or two 32-bit
// ones at random. They reach every shape of the sparse wrap kernel (zero to
// four vectors compared, or the dense kernel past that) and of the 32- and
// 64-bit delta tiles, and every fast path must still match the tracker.
TEST(DeltaReference, EveryFastPathMatchesTheTrackerOnRandomLayoutsOfMixedCounterWidths) {
  std::mt19937_64 rng(20261125);
  static const platform plats[] = {platform::tgl};
  std::size_t sparse = 0, dense = 0;
  std::array<std::size_t, intel::detail::wrap_vectors::max + 1> shapes{};
  for (int config = 0; config < 3000; ++config) {
    const std::size_t size = 32 * (1 + rng() % (limits.report_bytes / 32));
    const bool header64 = size >= 32 && rng() % 2 == 0;
    std::vector<field> fields;
    fields.push_back({"RPT_ID", field_kind::rpt_id, 0, 0, std::uint8_t(header64 ? 64 : 32), 0});
    fields.push_back({"TIMESTAMP", field_kind::timestamp, 0, std::uint16_t(header64 ? 8 : 4),
                      std::uint8_t(header64 ? 64 : 32), 0});
    std::uint8_t index = 0;
    for (std::size_t q = 2; q < size / 8 && index < limits.counters - 1; ++q) {
      const auto at = static_cast<std::uint16_t>(8 * q);
      switch (rng() % 4) {
        case 0:
          break;
        case 1:
          fields.push_back({"PEC", field_kind::pec, index++, at, 64, 0});
          break;
        case 2:
          fields.push_back(
              {"B", field_kind::b, index++, std::uint16_t(at + 4 * (rng() % 2)), 32, 0});
          break;
        default:
          fields.push_back({"B", field_kind::b, index++, at, 32, 0});
          fields.push_back({"B", field_kind::b, index++, std::uint16_t(at + 4), 32, 0});
          break;
      }
    }
    const report_format f{"RANDOM", {},
                          plats,    0,
                          -1,       static_cast<std::uint16_t>(size),
                          fields,   header64 && rng() % 2 == 0};
    ASSERT_TRUE(fits_limits(f)) << "config " << config;
    const intel::detail::wrap_vectors vs = intel::detail::wrap_vectors::of(f);
    if (vs.sparse) {
      ++sparse;
      ++shapes[vs.count];
    } else {
      ++dense;
    }
    const std::size_t n = 1 + rng() % 40;
    const auto bytes = random_raw(f, n, rng);
    auto buf = report_buffer::make(bytes, f).value();
    const generation gen = rng() % 2 == 0 ? generation::gen12 : generation_of(platform::dg2);
    expect_fast_paths_match(buf, gen, "config " + std::to_string(config));
    if (::testing::Test::HasFailure()) return;
  }
  // The draw reached both kernels and every sparse shape.
  EXPECT_GT(dense, 0u);
  EXPECT_GT(sparse, 0u);
  for (std::size_t w = 0; w < shapes.size(); ++w) EXPECT_GT(shapes[w], 0u) << w << " vectors";
}

// Rows (intel/rows.hpp) and the summary writer's totals against the
// reference, on emulated captures of every input kind and fault.
TEST(DeltaReference, RowsAndSummaryTotalsMatchTheTrackerOnEveryKindAndFault) {
  const char* faults[] = {"", "wrap", "ctx-switch", "tail-ahead", "overflow", "report-lost"};
  int cases = 0;
  for (const char* fault : faults) {
    for (auto kind :
         {emu::output_kind::raw, emu::output_kind::i915_stream, emu::output_kind::recording}) {
      SCOPED_TRACE(std::string(fault) + " kind " + std::to_string(static_cast<int>(kind)));
      emu::config c;
      c.platform = platform::skl;
      c.format = "A36_B8_C8";
      c.reports = 80;
      c.seed = 5;
      if (*fault != '\0') c.faults = emu::parse_faults(fault).value();
      const auto cap = emu::emulate(c).value();
      const auto bytes = emu::output_bytes(cap, kind).value();
      const report_format& f = *find_format(platform::skl, "A36_B8_C8");
      const generation gen = generation_of(platform::skl);
      auto check = [&](const auto& src, std::size_t unknown, bool losses) {
        const reference ref = reference_of(src, gen);
        const row_schema schema = schema_of(f, platform::skl, losses, 12'000'000);
        output::text_buffer sink;
        output::summary_writer summary(sink, schema, false);
        std::size_t k = 0, lost = 0;
        row_options opt;
        opt.unknown_records = unknown;
        const accounting acc = for_each_row(src, gen, opt, [&](row& r) {
          summary.write(r);
          if (r.lost) {
            ++lost;
            return;
          }
          ASSERT_LT(k, ref.intervals.size());
          const ref_interval& e = ref.intervals[k++];
          EXPECT_EQ(r.report, e.report);
          EXPECT_EQ(r.end, e.timestamp);
          EXPECT_EQ(r.end - r.begin, e.elapsed);
          EXPECT_TRUE(
              std::equal(r.counters.begin(), r.counters.end(), e.deltas.begin(), e.deltas.end()));
        });
        summary.end(acc);
        EXPECT_EQ(k, ref.intervals.size());
        EXPECT_EQ(lost, ref.stats.discontinuities);
        EXPECT_TRUE(acc.balanced());
        EXPECT_EQ(acc.intervals, ref.intervals.size());
        EXPECT_EQ(summary.result().counters, ref.totals);
        EXPECT_EQ(summary.result().elapsed, ref.elapsed);
        EXPECT_EQ(summary.result().intervals, ref.intervals.size());
        return acc;
      };
      if (kind == emu::output_kind::raw) {
        auto buf = report_buffer::make(bytes, f).value();
        const accounting acc = check(raw_capture(buf), 0, false);
        EXPECT_EQ(acc.records, buf.size());
        // The summary fast path accounts for the same records the same way.
        EXPECT_EQ(accounting_of(accumulate(buf)), acc);
        expect_fast_paths_match(buf, gen, "emulated raw");
      } else if (kind == emu::output_kind::i915_stream) {
        auto s = i915_stream::make(bytes, f).value();
        const accounting acc = check(s, s.unknown_records(), true);
        EXPECT_EQ(acc.records, s.records());
        EXPECT_EQ(acc.reports, s.samples());
      } else {
        auto rec = recording::make(bytes).value();
        const accounting acc = check(rec, rec.unknown_records(), true);
        EXPECT_EQ(acc.reports + acc.lost(),
                  static_cast<std::uint64_t>(std::distance(rec.begin(), rec.end())));
      }
      ++cases;
    }
  }
  EXPECT_EQ(cases, 18);
}

// --context: the intervals of other contexts are counted as filtered, and
// the kept ones are exactly the reference intervals whose earlier report ran
// in that context.
TEST(DeltaReference, ContextFilterAccountsForEveryIntervalItDrops) {
  for (auto kind : {emu::output_kind::raw, emu::output_kind::i915_stream}) {
    emu::config c;
    c.platform = platform::skl;
    c.format = "A36_B8_C8";
    c.reports = 120;
    c.faults = emu::parse_faults("ctx-switch,tail-ahead").value();
    const auto cap = emu::emulate(c).value();
    const auto bytes = emu::output_bytes(cap, kind).value();
    const report_format& f = *find_format(platform::skl, "A36_B8_C8");
    const generation gen = generation_of(platform::skl);
    auto run = [&](const auto& src) {
      // The contexts the intervals ran in, from the unfiltered rows.
      std::vector<std::uint32_t> contexts;
      const accounting all = for_each_row(src, gen, {}, [&](row& r) {
        if (!r.lost && r.has_context) contexts.push_back(r.context);
      });
      ASSERT_FALSE(contexts.empty());
      const std::uint32_t ctx = contexts[contexts.size() / 2];
      const auto in_ctx =
          static_cast<std::uint64_t>(std::count(contexts.begin(), contexts.end(), ctx));
      row_options opt;
      opt.filter = context_filter::from_reports();
      opt.context = ctx;
      const accounting kept = for_each_row(src, gen, opt, [&](row& r) {
        if (!r.lost) {
          EXPECT_EQ(r.context, ctx);
        }
      });
      EXPECT_TRUE(kept.balanced());
      EXPECT_EQ(kept.intervals, in_ctx);
      EXPECT_EQ(kept.intervals + kept.filtered, all.intervals);
      EXPECT_GT(kept.filtered, 0u);
      EXPECT_TRUE(kept.anything_dropped());
    };
    if (kind == emu::output_kind::raw) {
      run(raw_capture(report_buffer::make(bytes, f).value()));
    } else {
      run(i915_stream::make(bytes, f).value());
    }
  }
}

// A format built at run time that is larger than any table's takes the
// reference path in accumulate() instead of reaching the fixed-size kernels.
TEST(DeltaReference, AnOversizedRuntimeFormatIsNotFedToTheKernels) {
  static const field fields[] = {{"RPT_ID", field_kind::rpt_id, 0, 0, 32, 0},
                                 {"TIMESTAMP", field_kind::timestamp, 0, 4, 32, 0},
                                 {"A0", field_kind::a, 0, 1000, 32, 0}};
  static const platform plats[] = {platform::skl};
  const report_format big{"BIG", {}, plats, 5, -1, 1024, fields};
  EXPECT_FALSE(fits_limits(big));
  EXPECT_GT(big.size, limits.report_bytes);
  std::vector<std::byte> bytes(1024 * 3);
  for (std::size_t i = 0; i < 3; ++i) {
    std::byte* r = bytes.data() + i * 1024;
    put(r, fields[0], 1);
    put(r, fields[1], 100 * i);
    put(r, fields[2], 0xfffffff0u + 10 * i);  // wraps between report 1 and 2
  }
  auto buf = report_buffer::make(bytes, big).value();
  for (simd_path path : {simd_path::automatic, simd_path::scalar}) {
    const accumulation a = accumulate(buf, path);
    ASSERT_EQ(a.totals.size(), 1u);
    EXPECT_EQ(a.totals[0], 20u);
    EXPECT_EQ(a.elapsed_ticks, 200u);
  }
}

static_assert(max_counters == limits.counters);
static_assert(limits.report_bytes == 640, "today's largest report: Xe2 PEC64u64_B8_C8");
static_assert(limits.u40_low_dword == 4 && limits.u40_high_byte == 160 && limits.u40_slots == 32);

}  // namespace
