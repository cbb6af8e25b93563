// IGT xe-perf recordings: xe_recording::make and platform_of (identify()'s
// read of the first records) with or without a fallback platform and the
// unverified-layout opt-in, every event through the delta tracker, the
// device variables. Invariants: error offsets inside the input; event
// offsets inside; platform_of names make()'s platform; samples counted =
// yielded; EU and DSS counts within what the topology header allows.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/xe_recording.hpp"

using namespace hwpc::intel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const std::uint8_t sel = in.u8();
  xe_recording_options opts;
  if (sel & 0x80) opts.fallback_platform = platform_table[(sel & 0x3f) % platform_table.size()].id;
  opts.unverified_layouts = (sel & 0x40) != 0;
  const hwpc::byte_span bytes = in.rest();
  // identify()'s read of the first records: its errors lie inside the input,
  // and it names the full reader's platform whenever the full read succeeds.
  const auto first = xe_recording::platform_of(bytes, opts);
  if (!first) fuzz::check_error(first.error_value(), bytes.size());
  auto r = xe_recording::make(bytes, opts);
  if (!r) {
    fuzz::check_error(r.error_value(), bytes.size());
    return 0;
  }
  if (r->device().offset < xe_recording::device_prefix_bytes) {
    FUZZ_CHECK(first && *first == r->device_platform(), "the first records name the platform");
  }
  std::size_t samples = 0;
  const capture_stats st = for_each_delta(
      *r, generation_of(r->device_platform()),
      [&](const capture_interval& iv) { FUZZ_CHECK(iv.offset < bytes.size(), "interval offset"); },
      [&](const capture_discontinuity& d) { FUZZ_CHECK(d.offset < bytes.size(), "loss offset"); });
  for (const capture_event& e : *r) {
    FUZZ_CHECK(e.offset < bytes.size(), "event offset inside");
    samples += e.kind == event_kind::report;
  }
  FUZZ_CHECK(samples == r->samples(), "every SAMPLE is yielded");
  FUZZ_CHECK(st.reports + st.skipped_zero == samples, "tracker: reports + skipped = samples");
  FUZZ_CHECK(r->xe().verified || opts.unverified_layouts, "unverified only on opt-in");
  const xe_device_variables v = r->device_variables();
  if (const auto& t = r->topology()) {
    FUZZ_CHECK(
        v.eu_count <= std::uint64_t{t->max_slices} * t->max_subslices * t->max_eus_per_subslice,
        "EU count within the topology");
  }
  return 0;
}
