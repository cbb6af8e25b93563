// Differential accounting: the same bytes through every reader that can take
// them must give equal accounting and equal rows (core/row.hpp: every report
// and record ends up in exactly one bucket, whichever reader read it).
//   byte 0 even: report slots in a format the next two bytes pick, read as
//     raw reports (raw_capture) and as an OA ring holding them from offset 0
//     (head 0, tail after the last whole report, no status bits);
//   byte 0 odd: an i915 perf stream of HSW A45_B8_C8 reports, read as a
//     stream and as a recording (VERSION and an HSW DEVICE_INFO record, then
//     the same records; row offsets shifted by those 360 bytes).
// Invariants: both readers accept or refuse alike (the recording's error past
// its own header records); intervals, losses and
// skipped slots in the same buckets; the same rows (report, offset, begin,
// end, counters, reason, context, lost) in the same order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../capture_test_util.hpp"
#include "fuzz_common.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"

using namespace hwpc::intel;

namespace {

struct seen_row {
  std::uint64_t report, offset, begin, end;
  std::vector<std::uint64_t> counters;
  std::string reason;
  bool lost, has_context;
  std::uint32_t context;
  bool operator==(const seen_row&) const = default;
};

struct seen {
  hwpc::accounting acc;
  std::vector<seen_row> rows;
};

template <class Source>
seen rows_of(const Source& src, generation gen, std::size_t unknown, std::uint64_t shift) {
  seen s;
  row_options opt;
  opt.unknown_records = unknown;
  s.acc = for_each_row(src, gen, opt, [&](const hwpc::row& r) {
    s.rows.push_back({r.report, r.offset - shift, r.begin, r.end,
                      std::vector<std::uint64_t>(r.counters.begin(), r.counters.end()),
                      std::string(r.reason), r.lost, r.has_context, r.context});
  });
  FUZZ_CHECK(s.acc.balanced(), "accounting balanced");
  return s;
}

std::string describe(const hwpc::accounting& a) {
  return "records " + std::to_string(a.records) + " reports " + std::to_string(a.reports) +
         " intervals " + std::to_string(a.intervals) + " stretch_starts " +
         std::to_string(a.stretch_starts) + " skipped_zero " + std::to_string(a.skipped_zero) +
         " lost " + std::to_string(a.lost()) + " unknown " + std::to_string(a.unknown);
}

void same(const seen& a, const seen& b, const char* what) {
  FUZZ_CHECK(a.acc == b.acc, std::string(what) + ": " + describe(a.acc) + " vs " + describe(b.acc));
  FUZZ_CHECK(a.rows.size() == b.rows.size(), std::string(what) + ": row counts");
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    FUZZ_CHECK(a.rows[i] == b.rows[i], std::string(what) + ": row " + std::to_string(i));
  }
}

void ring_vs_raw(fuzz::input& in) {
  const auto [f, plat] = fuzz::pick_format(in);
  const hwpc::byte_span bytes = in.rest();
  const std::size_t rs = f->size;
  // Whole reports, fewer than fill the smallest ring (a full ring reads as empty).
  std::size_t n = bytes.size() / rs;
  if (n * rs >= oa_ring_min_size) n = oa_ring_min_size / rs - 1;
  if (n == 0) return;
  std::vector<std::byte> ring(oa_ring_min_size);
  std::copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n * rs), ring.begin());
  // The ring's tail moves in 64-byte steps; every format's size is a multiple of 64.
  auto oa = oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), *f,
                          oa_ring_registers::offsets(0, n * rs));
  FUZZ_CHECK(static_cast<bool>(oa), oa ? "" : oa.error_value().describe());
  auto buf = report_buffer::make(hwpc::byte_span(ring.data(), n * rs), *f);
  FUZZ_CHECK(static_cast<bool>(buf), buf ? "" : buf.error_value().describe());
  const generation gen = generation_of(plat);
  const seen a = rows_of(*oa, gen, 0, 0);
  const seen b = rows_of(raw_capture(*buf), gen, 0, 0);
  FUZZ_CHECK(a.acc.skipped_zero == oa->skipped_zero(), "the ring's own count");
  same(a, b, "ring vs raw");
}

void stream_vs_recording(fuzz::input& in) {
  const report_format& f = *find_format(platform::hsw, "A45_B8_C8");
  const hwpc::byte_span bytes = in.rest();
  // An empty stream is an error; a recording of no samples is not.
  if (bytes.empty()) return;
  auto st = i915_stream::make(bytes, f);
  captest::bytes rec = captest::version_record();
  captest::append(rec, captest::device_info_record({}));
  const std::size_t header = rec.size();
  rec.insert(rec.end(), bytes.begin(), bytes.end());
  auto r = recording::make(captest::span(rec));
  if (!st) {
    // Refused by both; the offsets may differ when the stream holds records
    // only a recording reads (a second DEVICE_INFO is an error there first).
    FUZZ_CHECK(!r, "the recording accepts what the stream refuses: " + st.error_value().describe());
    FUZZ_CHECK(r.error_value().offset >= header, "the recording's error past its own header");
    return;
  }
  // Records a stream does not know may be ones a recording does (correlation
  // points, topology): only streams of SAMPLE and loss records compare.
  if (st->unknown_records() != 0) return;
  FUZZ_CHECK(static_cast<bool>(r),
             "the recording refuses what the stream accepts: " + r.error_value().describe());
  FUZZ_CHECK(r->unknown_records() == 0, "no unknown records in the recording either");
  const seen a = rows_of(*st, generation::gen7_5, 0, 0);
  const seen b = rows_of(*r, generation::gen7_5, r->unknown_records(), header);
  same(a, b, "stream vs recording");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  if (in.u8() % 2 == 0) {
    ring_vs_raw(in);
  } else {
    stream_vs_recording(in);
  }
  return 0;
}
