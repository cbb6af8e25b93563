// The Xe OA stream reader: xe_stream::make over arbitrary bytes in any Xe
// format, with a loss list (often invalid) and a base offset, then every
// event through the delta tracker.
// Invariants: error offsets in [base, base + size]; events = reports + set
// status bits; reports come in file order, one format size apart, each
// inside the input; each loss yields its set bits in bit order at its
// offset; the tracker's reports + skipped = reports; iterating twice yields
// the same events.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/xe_stream.hpp"

using namespace hwpc::intel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const xe_format& xf = xe_formats[in.u8() % xe_formats.size()];
  const report_format& f = xf.layout;
  const std::size_t base = in.u8() * 4096u;
  // Losses: mostly at report boundaries with few bits, sometimes anywhere.
  const unsigned nlosses = in.u8() % 8;
  std::vector<xe_stream_loss> losses;
  for (unsigned i = 0; i < nlosses; ++i) {
    const std::uint8_t how = in.u8();
    const std::uint32_t at = in.u32();
    xe_stream_loss l;
    l.offset = (how & 0x80) ? at : std::size_t{at % 64} * f.size;
    l.oa_status = (how & 0x40) ? std::uint64_t{in.u32()} << (how & 7) : (how & 0xfu);
    losses.push_back(l);
  }
  const hwpc::byte_span bytes = in.rest();
  auto st = xe_stream::make(bytes, xf, losses, base);
  if (!st) {
    const hwpc::error& e = st.error_value();
    FUZZ_CHECK(e.offset >= base, e.describe());
    fuzz::check_error(e, base + bytes.size());
    return 0;
  }
  FUZZ_CHECK(bytes.size() % f.size == 0, "only whole reports are accepted");
  std::size_t bits = 0;
  for (const xe_stream_loss& l : losses) bits += std::popcount(l.oa_status);
  FUZZ_CHECK(st->reports() == bytes.size() / f.size, "report count");
  FUZZ_CHECK(st->events() == st->reports() + bits, "events = reports + status bits");

  std::size_t reports = 0, markers = 0, ordinal = 0, prev_offset = base;
  std::size_t loss = 0;
  unsigned bit = 0;
  // The next set bit of the loss list, in list and bit order.
  auto next_bit = [&] {
    while (loss < losses.size()) {
      while (bit < 4 && !((losses[loss].oa_status >> bit) & 1u)) ++bit;
      if (bit < 4) return true;
      ++loss;
      bit = 0;
    }
    return false;
  };
  delta_tracker t(f, generation_of(f.platforms[0]));
  std::vector<capture_event> first;
  for (const capture_event& e : *st) {
    FUZZ_CHECK(e.index == ordinal, "ordinals count events");
    FUZZ_CHECK(e.offset >= prev_offset, "events in file order");
    prev_offset = e.offset;
    if (e.is_report()) {
      FUZZ_CHECK(e.offset == base + reports * f.size, "reports one format size apart");
      FUZZ_CHECK(e.offset + f.size <= base + bytes.size(), "report inside the input");
      FUZZ_CHECK(e.data == bytes.data() + reports * f.size, "report bytes are the input's");
      ++reports;
    } else {
      FUZZ_CHECK(next_bit(), "a marker for a set status bit");
      static constexpr event_kind kinds[] = {event_kind::report_lost, event_kind::buffer_lost,
                                             event_kind::counter_overflow, event_kind::report_lost};
      FUZZ_CHECK(e.kind == kinds[bit], "status bits in bit order");
      FUZZ_CHECK(e.offset == base + losses[loss].offset, "marker at its loss");
      FUZZ_CHECK(e.offset <= base + bytes.size(), "marker inside the input or at its end");
      ++bit;
      ++markers;
    }
    ++ordinal;
    t.feed(e);
    first.push_back(e);
  }
  FUZZ_CHECK(!next_bit(), "every status bit yielded");
  FUZZ_CHECK(reports == st->reports(), "every report yielded");
  FUZZ_CHECK(markers == bits, "every status bit yielded once");
  const capture_stats& s = t.stats();
  FUZZ_CHECK(s.reports + s.skipped_zero == reports, "tracker: reports + skipped = reports");
  FUZZ_CHECK(s.discontinuities == markers, "tracker: every marker is a discontinuity");
  std::size_t k = 0;
  for (const capture_event& e : *st) {
    FUZZ_CHECK(k < first.size() && e.kind == first[k].kind && e.offset == first[k].offset,
               "iterating again yields the same events");
    ++k;
  }
  FUZZ_CHECK(k == first.size(), "iterating again yields as many events");
  return 0;
}
