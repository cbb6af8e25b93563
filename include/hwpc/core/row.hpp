// The row contract: what every reader produces and every writer consumes.
//
// A capture, whatever the vendor or container, becomes a sequence of rows
// under one schema. A row is one interval between two reports (or one loss
// in the input): the index of the report that ends it among all the input's
// reports, the byte offset of that report's record in the file the user gave,
// begin and end on the schema's clock, one unsigned value per counter column
// (the increment over the interval), optional derived values (metrics), the
// reason the report was written, and the context the interval ran in.
//
// Readers (intel/rows.hpp today; Xe, Mali and Adreno as they land) fill rows
// in place and hand out views: a row is valid until the reader produces the
// next one. Writers (output/) print a row without knowing which GPU made it.
//
// Accounting: every report and record a reader reads ends up in exactly one
// bucket, so `records == intervals + filtered + stretch_starts + unbridged +
// skipped_zero + lost + unknown` holds for any input (test_core_accounting.cpp).
// `across_loss` counts the intervals (of `intervals`) that span a loss.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hwpc {

// One column of a schema. `units` is free text as the source names it
// ("events", "ns", "percent", ...); empty when the source says nothing.
enum class column_kind : std::uint8_t {
  counter,  // an unsigned increment over the interval (counter delta)
  metric,   // a value derived from the counters (integer or floating)
};

struct column {
  std::string name;
  std::string units;
  column_kind kind = column_kind::counter;
};

// The clock of a row's begin and end.
enum class clock_kind : std::uint8_t {
  gpu_timestamp,  // the GPU's timestamp counter (Intel TIME_STAMP), ticks_per_second Hz
  cpu_ns,         // CPU CLOCK_MONOTONIC nanoseconds
};

struct row_schema {
  std::string source;            // what made the rows, e.g. "hsw A45_B8_C8"
  std::vector<column> counters;  // one u64 per row each, in this order
  std::vector<column> metrics;   // one cell per row each, in this order
  clock_kind clock = clock_kind::gpu_timestamp;
  std::uint64_t ticks_per_second = 0;
  bool has_context = false;  // the source can attribute an interval to a context
  bool has_losses = false;   // the source can say that reports were lost (streams, recordings)
};

// A derived value: an unsigned integer, a double (as its bits), or nothing
// (the formula could not be evaluated for this row).
struct cell {
  enum class kind : std::uint8_t { none, u64, f64 };
  kind k = kind::none;
  std::uint64_t bits = 0;

  static constexpr cell u(std::uint64_t v) noexcept { return {kind::u64, v}; }
  static constexpr cell f(double v) noexcept {
    return {kind::f64, std::bit_cast<std::uint64_t>(v)};
  }
  static constexpr cell none() noexcept { return {}; }
  constexpr bool is_none() const noexcept { return k == kind::none; }
  constexpr bool is_u64() const noexcept { return k == kind::u64; }
  constexpr bool is_f64() const noexcept { return k == kind::f64; }
  constexpr double as_double() const noexcept {
    return k == kind::f64 ? std::bit_cast<double>(bits) : static_cast<double>(bits);
  }
  friend constexpr bool operator==(const cell&, const cell&) = default;
  // A number JSON can carry (not NaN, not an infinity, not none).
  bool is_finite_number() const noexcept {
    return k == kind::u64 || (k == kind::f64 && std::isfinite(as_double()));
  }
};

struct row {
  std::uint64_t report = 0;  // 0-based index of the later report among all the input's reports
  std::uint64_t offset = 0;  // byte offset of that report's record in the input
  std::uint64_t begin = 0;   // on the schema's clock
  std::uint64_t end = 0;
  std::span<const std::uint64_t> counters;  // schema.counters order; empty when lost
  std::span<const cell> metrics;            // schema.metrics order; empty when lost
  std::string_view reason;  // why the later report was written; the loss kind when lost
  bool lost = false;        // reports are missing here; no delta spans it
  bool has_context = false;
  std::uint32_t context = 0;  // the context the interval ran in, when has_context
};

// Where every record of the input went.
struct accounting {
  std::uint64_t records = 0;         // items read: report slots/records, loss and unknown records
  std::uint64_t reports = 0;         // report slots or report records among them
  std::uint64_t intervals = 0;       // rows written
  std::uint64_t filtered = 0;        // intervals dropped by a context filter
  std::uint64_t stretch_starts = 0;  // first report of the input or after a gap: no interval
  std::uint64_t unbridged = 0;       // first report after a loss its interval cannot span exactly
  std::uint64_t across_loss = 0;     // intervals (of `intervals`) kept across a loss
  std::uint64_t skipped_zero = 0;    // reports never written (zero RPT_ID)
  std::uint64_t report_lost = 0;     // loss records by kind
  std::uint64_t buffer_lost = 0;
  std::uint64_t overflow = 0;
  std::uint64_t gaps = 0;     // caller-marked gaps
  std::uint64_t unknown = 0;  // records of a type the reader does not know, skipped

  friend constexpr bool operator==(const accounting&, const accounting&) = default;
  constexpr std::uint64_t lost() const noexcept {
    return report_lost + buffer_lost + overflow + gaps;
  }
  constexpr std::uint64_t skipped() const noexcept { return skipped_zero + filtered + unknown; }
  // Something did not become a row although it was in the input.
  constexpr bool anything_dropped() const noexcept { return skipped() != 0 || lost() != 0; }
  // The invariant: every record is in exactly one bucket.
  constexpr bool balanced() const noexcept {
    return reports == intervals + filtered + stretch_starts + unbridged + skipped_zero &&
           records == reports + lost() + unknown;
  }
};

}  // namespace hwpc
