// The i915 perf read() stream: i915_stream::make over arbitrary bytes in an
// arbitrary format, then every event through the delta tracker.
// Invariants: error offsets inside the input (plus the base offset); records
// = samples + losses + unknown; every event offset inside the input; the
// tracker's reports + skipped = samples; intervals never exceed reports.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"

using namespace hwpc::intel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const auto [f, plat] = fuzz::pick_format(in);
  const std::size_t base = in.u8() * 4096u;
  const hwpc::byte_span bytes = in.rest();
  auto st = i915_stream::make(bytes, *f, base);
  if (!st) {
    const hwpc::error& e = st.error_value();
    FUZZ_CHECK(e.offset >= base, e.describe());
    fuzz::check_error(e, base + bytes.size());
    return 0;
  }
  FUZZ_CHECK(st->samples() + st->unknown_records() <= st->records(), "record counts");
  if (st->unknown_records() != 0) {
    FUZZ_CHECK(
        st->first_unknown().offset >= base && st->first_unknown().offset < base + bytes.size(),
        "first unknown record inside the input");
  }
  std::size_t reports = 0, losses = 0;
  delta_tracker t(*f, generation_of(plat));
  for (const capture_event& e : *st) {
    FUZZ_CHECK(e.offset >= base && e.offset < base + bytes.size(), "event offset inside");
    if (e.kind == event_kind::report) {
      ++reports;
    } else {
      ++losses;
    }
    t.feed(e);
  }
  FUZZ_CHECK(reports == st->samples(), "every SAMPLE is yielded");
  FUZZ_CHECK(reports + losses + st->unknown_records() == st->records(), "records add up");
  const capture_stats& s = t.stats();
  FUZZ_CHECK(s.reports + s.skipped_zero == reports, "tracker: reports + skipped = samples");
  FUZZ_CHECK(s.intervals <= s.reports, "intervals <= reports");
  FUZZ_CHECK(s.discontinuities <= losses, "discontinuities <= loss records");
  return 0;
}
