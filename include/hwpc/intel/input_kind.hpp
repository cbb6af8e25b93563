// What an Intel OA input is, and which report format it is in: the steps a
// reader of a user's file takes before decoding it, shared by every caller
// (hwpc decode, the Python package) so that a name or a number means the
// same through each.
//
//   auto k = hwpc::intel::parse_input_kind("i915-stream");   // or detect_input_kind(bytes)
//   auto f = hwpc::intel::resolve_report_format(plat, "A32u40_A4u32_B8_C8", *k);
//   if (f.format == nullptr) ...;   // no such format on that platform
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

#include "hwpc/core/bytes.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/xe_recording.hpp"

namespace hwpc::intel {

// raw: OA reports back to back; i915_stream / xe_stream: the records a
// driver's perf stream reads; recording: a perf recorder's file (its first
// record says so).
enum class input_kind { raw, i915_stream, xe_stream, recording };

// The spellings parse_input_kind accepts, for messages.
inline constexpr std::string_view input_kind_names = "raw, i915-stream, xe-stream or recording";

constexpr std::optional<input_kind> parse_input_kind(std::string_view s) noexcept {
  if (s == "raw") return input_kind::raw;
  if (s == "i915-stream") return input_kind::i915_stream;
  if (s == "xe-stream") return input_kind::xe_stream;
  if (s == "recording") return input_kind::recording;
  return std::nullopt;
}

// Without a stated kind: a recording when its first record is one (i915 or
// Xe recorder), raw reports otherwise. Streams have no mark of their own.
inline input_kind detect_input_kind(byte_span bytes) noexcept {
  return recording::looks_like_recording(bytes) || xe_recording::looks_like_xe_recording(bytes)
             ? input_kind::recording
             : input_kind::raw;
}

// A 32-bit number, decimal or 0x hex, the whole text (the packed OA_FORMAT
// property of the Xe driver is given so).
inline std::optional<std::uint32_t> parse_format_number(std::string_view s) noexcept {
  std::size_t at = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    at = 2;
  }
  std::uint32_t v = 0;
  auto r = std::from_chars(s.data() + at, s.data() + s.size(), v, base);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size() || at == s.size()) return std::nullopt;
  return v;
}

struct resolved_format {
  const report_format* format = nullptr;  // null: the platform has no such format
  const xe_format* xe = nullptr;          // the Xe driver's row, when the format is one
};

// A format named by the user: the i915 table's name first; else (and always
// for an Xe stream, whose rows come from the Xe driver's table) the Xe
// driver's, by name or by the packed OA_FORMAT number. Whether an unverified
// Xe layout may be decoded is the caller's decision (xe->verified).
inline resolved_format resolve_report_format(platform p, std::string_view name,
                                             input_kind kind) noexcept {
  resolved_format r;
  r.format = find_format(p, name);
  if (r.format == nullptr || kind == input_kind::xe_stream) {
    r.xe = find_xe_format(p, name);
    if (r.xe == nullptr) {
      if (auto packed = parse_format_number(name)) r.xe = find_xe_format(p, *packed);
    }
    r.format = r.xe != nullptr ? &r.xe->layout : nullptr;
  }
  return r;
}

}  // namespace hwpc::intel
