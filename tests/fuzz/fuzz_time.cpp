// Time in every reader that carries it: no row ends before it begins, and a
// row never begins before the previous row ended unless a lost row between
// them says that something is missing.
//   byte 0 % 4 == 0: a Mali capture file (HWPCMALI header; vinstr records
//     with their dump timestamps, or a kinstr_prfcnt buffer whose samples
//     carry start and end), rows through mali::for_each_row;
//   1: an i915 perf stream, 2: raw reports (format from the next two bytes),
//   3: an i915-perf recording; rows through intel::for_each_row.
// A reader may refuse the input (with an offset inside it); what it yields
// before refusing must already keep the rule. Intel's GPU clock compares
// modulo 2^64 (a 64-bit TIME_STAMP wraps and is read forwards).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "fuzz_common.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/mali/vinstr.hpp"

namespace {

struct time_rule {
  // Intel rows are on the GPU's TIME_STAMP clock, which a 64-bit format
  // wraps modulo 2^64 and readers take forwards (reliability.md section 2):
  // there "before" is "more than 2^63 ticks behind, modulo 2^64". Mali
  // timestamps are CPU nanoseconds and compare as they are.
  bool modular = false;
  std::optional<std::uint64_t> prev_end;
  bool loss_since = false;
  std::size_t n = 0;
  // Open (reliability.md section 4): Intel's delta tracker reads any step of
  // a 64-bit TIME_STAMP forwards, even one of 2^63 ticks or more (thousands
  // of years: a corrupt report, not a wrap), so those formats are not held
  // to the modular window until the tracker refuses or marks such a step.
  bool wide_timestamp = false;
  bool forwards(std::uint64_t from, std::uint64_t to) const {
    if (!modular) return to >= from;
    return wide_timestamp || to - from < (std::uint64_t{1} << 63);
  }
  void operator()(const hwpc::row& r) {
    ++n;
    if (r.lost) {
      loss_since = true;
      return;
    }
    const std::string at = "row " + std::to_string(n - 1) + " (report " + std::to_string(r.report) +
                           ", offset " + std::to_string(r.offset) +
                           "): " + std::to_string(r.begin) + ".." + std::to_string(r.end);
    FUZZ_CHECK(forwards(r.begin, r.end), "a row ends before it begins: " + at);
    if (prev_end && !loss_since) {
      FUZZ_CHECK(forwards(*prev_end, r.begin), "time runs backwards without a lost row: " + at +
                                                   ", previous end " + std::to_string(*prev_end));
    }
    prev_end = r.end;
    loss_since = false;
  }
};

void mali(hwpc::byte_span file) {
  using namespace hwpc::mali;
  if (!is_capture_file(file)) return;
  auto h = capture_header::parse(file);
  if (!h || h->gpu_id == 0) return;
  auto g = find_gpu_by_id(h->gpu_id);
  if (!g) return;
  const gpu_table& table = *(*g)->table;
  row_builder builder(**g, nullptr, true);
  const hwpc::byte_span payload = h->payload(file);
  time_rule rule;
  hwpc::result<hwpc::accounting> acc = hwpc::accounting{};
  if (h->reader == reader_kind::vinstr) {
    auto c = vinstr_capture::make(table, h->layout, payload, capture_header_bytes, true);
    if (!c) return fuzz::check_error(c.error_value(), file.size());
    acc = for_each_row(*c, builder, rule);
  } else {
    auto rd = kinstr_reader::make(table, h->layout, payload, capture_header_bytes);
    if (!rd) return fuzz::check_error(rd.error_value(), file.size());
    acc = for_each_row(*rd, builder, rule);
  }
  if (!acc) fuzz::check_error(acc.error_value(), file.size());
}

template <class Source>
void intel_rows(const Source& src, hwpc::intel::generation gen) {
  time_rule rule;
  rule.modular = true;
  const hwpc::intel::field* ts = src.format().first_of(hwpc::intel::field_kind::timestamp);
  rule.wide_timestamp = ts != nullptr && ts->bits >= 64;
  hwpc::intel::for_each_row(src, gen, {}, std::ref(rule));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hwpc::intel;
  fuzz::input in{data, size};
  const std::uint8_t sel = in.u8() % 4;
  if (sel == 0) {
    mali(in.rest());
  } else if (sel == 3) {
    auto r = recording::make(in.rest());
    if (!r) return fuzz::check_error(r.error_value(), in.n), 0;
    intel_rows(*r, generation_of(r->device_platform()));
  } else {
    const auto [f, plat] = fuzz::pick_format(in);
    if (sel == 1) {
      auto st = i915_stream::make(in.rest(), *f);
      if (!st) return fuzz::check_error(st.error_value(), in.n), 0;
      intel_rows(*st, generation_of(plat));
    } else {
      auto buf = report_buffer::make(in.rest(), *f);
      if (!buf) return fuzz::check_error(buf.error_value(), in.n), 0;
      intel_rows(raw_capture(*buf), generation_of(plat));
    }
  }
  return 0;
}
