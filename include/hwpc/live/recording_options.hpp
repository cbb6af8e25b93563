// The options of a live recording (live/recording.hpp), and every check of
// them and of their combinations: once, for both doors (`hwpc record
// intel|mali`, hwpc.intel.record / hwpc.mali.record), each message worded in
// the door's spelling of the options (pipeline/spelling.hpp), so the tool
// says `--set-id` and Python `set_id`.
//
// Numbers arrive typed: each door parses its own text ("1ms") or Python
// numbers (seconds) into nanoseconds and integers; what is checked here is
// what the numbers may be.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hwpc/core/error.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/kbase_record.hpp"
#include "hwpc/live/mali_rows.hpp"
#include "hwpc/live/record_set.hpp"
#include "hwpc/pipeline/intel_open_options.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::live {

enum class record_vendor : unsigned char { intel, mali };

struct recording_options {
  record_vendor vendor = record_vendor::intel;
  std::optional<std::string> device;         // default: the vendor's node
  std::optional<std::string> out;            // the recording file (none: rows only)
  std::optional<std::uint64_t> period_ns;    // Intel: the nearest exponent; Mali: the period
  std::optional<std::uint64_t> duration_ns;  // none: until stop()
  // Intel
  std::optional<std::string> metrics;   // a metric XML file naming the set (and its metric columns)
  std::optional<std::string> set;       // its symbol (with set_id: only the name recorded)
  std::optional<std::uint64_t> set_id;  // the kernel's config id
  std::optional<std::string> format;    // the report format; none: the platform's default
  std::optional<std::uint64_t> exponent;
  std::optional<std::uint64_t> ctx;  // a GEM context (i915 only)
  // Mali rows
  bool per_instance = false;
  std::optional<std::string> names;  // "hardware" (default) or "streamline"
  // How often the recorder wakes to see whether it was told to stop.
  int poll_ms = 100;
};

// The checked options: what the recorders and the row producers take.
struct recording_plan {
  record_vendor vendor = record_vendor::intel;
  std::optional<std::string> out;
  std::optional<std::uint64_t> duration_ns;
  i915_record_options intel;       // i915 and Xe
  intel::open_options intel_rows;  // the rows' metric columns (metrics=, set=)
  mali_record_options mali;
  mali_rows_options mali_rows;
};

namespace detail {
inline error record_usage(const pipeline::spelling& sp, std::string_view key, std::string what) {
  return usage_error(sp.option(key) + ": " + std::move(what));
}
}  // namespace detail

// A time as text: "1s", "500ms", "100us", "2500ns", "2m"; a bare number is
// in `bare_unit_ns`. None for anything else, 0 or more than 12 digits.
inline std::optional<std::uint64_t> parse_time_ns(std::string_view s, std::uint64_t bare_unit_ns) {
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  const std::uint64_t n = std::stoull(std::string(s.substr(0, digits)));
  const std::string_view unit = s.substr(digits);
  std::uint64_t scale = 0;
  if (unit.empty()) scale = bare_unit_ns;
  if (unit == "ns") scale = 1;
  if (unit == "us") scale = 1'000;
  if (unit == "ms") scale = 1'000'000;
  if (unit == "s") scale = 1'000'000'000;
  if (unit == "m") scale = 60'000'000'000;
  if (scale == 0 || n == 0) return std::nullopt;
  return n * scale;
}

// Usage errors (errc::usage) name the option in the door's spelling.
inline result<recording_plan> check(const recording_options& o, const pipeline::spelling& sp) {
  using intel::spell::arg;
  recording_plan p;
  p.vendor = o.vendor;
  p.out = o.out;
  if (o.duration_ns && *o.duration_ns == 0) {
    return detail::record_usage(sp, "duration", "a time longer than 0");
  }
  p.duration_ns = o.duration_ns;
  if (o.period_ns && *o.period_ns == 0) {
    return detail::record_usage(sp, "period", "a time longer than 0");
  }
  if (o.vendor == record_vendor::mali) {
    if (o.device) p.mali.device = *o.device;
    if (o.period_ns) p.mali.period_ns = *o.period_ns;
    p.mali.poll_ms = o.poll_ms;
    p.mali_rows.per_instance = o.per_instance;
    if (o.names) {
      if (*o.names != "hardware" && *o.names != "streamline") {
        return detail::record_usage(sp, "names", "expected hardware or streamline");
      }
      p.mali_rows.names = *o.names == "streamline" ? mali::counter_naming::streamline
                                                   : mali::counter_naming::hardware;
    }
    return p;
  }
  i915_record_options& io = p.intel;
  if (o.device) io.device = *o.device;
  if (o.format) io.format = *o.format;
  io.poll_ms = o.poll_ms;
  if (o.metrics && o.set_id) {
    return usage_error(sp.option("metrics") + " and " + sp.option("set_id") +
                       " both name the set: give one");
  }
  if (o.set_id) {
    if (*o.set_id == 0)
      return detail::record_usage(sp, "set_id", "the kernel's config id (1 or more)");
    io.set_id = *o.set_id;
    io.set_name = o.set.value_or("");
  } else if (o.metrics) {
    if (!o.set) return usage_error(sp.option("metrics") + " needs " + arg(sp, "set", "SYMBOL"));
    if (auto ok = set_from_metrics(io, *o.metrics, *o.set); !ok) {
      error e = ok.error_value();
      pipeline::say_where_metric_files_come_from(e);
      std::string m = e.describe();
      if (is_usage(e)) m += " (" + arg(sp, "set_id", "N") + ")";
      return usage_error(sp.option("metrics") + ": " + m);
    }
    p.intel_rows.metrics = o.metrics;
    p.intel_rows.set = *o.set;
  } else {
    return usage_error("name the metric set: " + arg(sp, "metrics", "FILE.xml") + " with " +
                       arg(sp, "set", "SYMBOL") + ", or " + arg(sp, "set_id", "N"));
  }
  if (o.period_ns && o.exponent) {
    return usage_error(sp.option("period") + " and " + sp.option("exponent") +
                       " both set the sampling period: give one");
  }
  if (o.exponent) {
    if (*o.exponent > i915::max_exponent) {
      return detail::record_usage(sp, "exponent", "0..31 (the kernel's range)");
    }
    io.exponent = static_cast<unsigned>(*o.exponent);
  } else {
    io.period_ns = o.period_ns.value_or(1'000'000);
  }
  if (o.ctx) {
    if (*o.ctx > 0xffffffffu)
      return detail::record_usage(sp, "ctx", "a GEM context handle (32 bits)");
    io.ctx = static_cast<std::uint32_t>(*o.ctx);
  }
  return p;
}

}  // namespace hwpc::live
