// The options of opening an Intel OA capture, and every check of them and of
// their combinations: once, for every door (`hwpc decode`,
// hwpc.intel.decode), each message worded in the door's spelling of the
// options (spelling.hpp), so the tool says `--context` and Python `context`.
//
// Names the user types (the platform, the input kind, the arithmetic, the
// definitions) stay text here, so that the refusal of an unknown one is
// worded once; numbers arrive typed (each door parses its own text or
// Python ints). intel_capture.hpp opens the capture with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/arithmetic.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/input_kind.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/mdapi_differences.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::intel {

struct open_options {
  std::optional<std::string> platform;     // a platform name (--platform)
  std::optional<std::string> format;       // a report format name, alias or packed Xe number
  std::optional<std::string> input_kind;   // raw, i915-stream, xe-stream, recording
  std::optional<std::uint32_t> context;    // keep the intervals of this context (Gen8+)
  std::optional<std::string> metrics;      // a metric XML file
  std::string set;                         // its set's symbol; empty: the recording's
  metrics::device_values device_vars;      // values that override the device's
  std::optional<std::string> arithmetic;   // mdapi (default) or igt
  std::optional<std::string> definitions;  // file, mdapi (default) or newer
  std::vector<xe_stream_loss> xe_losses;   // an Xe stream's out-of-band losses
  bool unverified_layouts = false;         // decode an inferred Xe layout
  // The door writes totals (--summary): --threads splits them.
  bool summary = false;
  unsigned threads = 0;  // raw totals' threads; 0: one per hardware thread

  // The embedded default capture's (intel_default_capture.hpp): the device the
  // emulator models, which no input carries.
  std::optional<metrics::intel_device> emulated_device;
  // Called with the byte offset reached, now and then while rows are made
  // (the tool's progress bar); may be empty.
  std::function<void(std::size_t)> progress;
};

// The spellings this header needs beyond spelling::option: a flag switched
// on, an option with a placeholder value, and the two options whose Python
// keyword is a plural of the tool's flag.
namespace spell {
inline std::string on(const pipeline::spelling& sp, std::string_view key) {
  return sp.d == pipeline::door::tool ? sp.option(key) : std::string(key) + "=True";
}
inline std::string arg(const pipeline::spelling& sp, std::string_view key,
                       std::string_view placeholder) {
  return sp.d == pipeline::door::tool ? sp.option(key) + " " + std::string(placeholder)
                                      : std::string(key) + "=" + std::string(placeholder);
}
inline std::string device_var(const pipeline::spelling& sp) {
  return sp.d == pipeline::door::tool ? "--device-var" : "device_vars";
}
inline std::string xe_loss(const pipeline::spelling& sp) {
  return sp.d == pipeline::door::tool ? "--xe-loss" : "xe_losses";
}
}  // namespace spell

// "OFFSET:STATUS", two numbers (decimal or 0x hex): an Xe stream's loss as
// the tool's --xe-loss and `hwpc emulate` (emu::xe_loss_arguments) write it.
inline std::optional<xe_stream_loss> parse_xe_loss(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto at = parse_format_number(text.substr(0, colon));
  const auto bits = parse_format_number(text.substr(colon + 1));
  if (!at || !bits) return std::nullopt;
  return xe_stream_loss{*at, *bits};
}

// What check() makes of the options' names.
struct checked_options {
  std::optional<platform> plat;
  std::optional<intel::input_kind> kind;
  expr::arithmetic arithmetic = expr::arithmetic::mdapi;
  metrics::mdapi::definitions definitions = metrics::mdapi::definitions::mdapi;
  // From --platform and --format when both are given (raw and stream input).
  resolved_format format;
};

// Platform and format of raw and stream input, which carry neither.
inline result<resolved_format> resolve_format(const open_options& o, const checked_options& c,
                                              const pipeline::spelling& sp) {
  const bool tool = sp.d == pipeline::door::tool;
  if (!c.plat || !o.format) {
    return usage_error(sp.option("platform") + " and " + sp.option("format") +
                       " are required for raw and " +
                       (tool ? "i915-stream input (see --help)" : "stream input"));
  }
  const resolved_format f =
      resolve_report_format(*c.plat, *o.format, c.kind.value_or(input_kind::raw));
  if (f.xe != nullptr && !f.xe->verified && !o.unverified_layouts) {
    return usage_error("the Xe layout " + std::string(f.xe->name) + " is not verified (" +
                       std::string(f.xe->evidence) + "); " + spell::on(sp, "unverified_layouts") +
                       " decodes it anyway");
  }
  if (f.format == nullptr) {
    const std::string p(name_of(*c.plat));
    return usage_error("platform " + p + " has no report format '" + *o.format + "'" +
                       (tool ? " (see hwpc formats --platform " + p + ")" : ""));
  }
  return f;
}

// The options alone, before any input is read: names, combinations, and the
// format of raw and stream input.
inline result<checked_options> check(const open_options& o, const pipeline::spelling& sp) {
  checked_options c;
  if (o.platform) {
    c.plat = platform_from_name(*o.platform);
    if (!c.plat) return usage_error("unknown platform '" + *o.platform + "'");
  }
  if (o.input_kind) {
    c.kind = parse_input_kind(*o.input_kind);
    if (!c.kind) {
      return usage_error("unknown " + sp.option("input_kind") + " '" + *o.input_kind + "' (" +
                         std::string(input_kind_names) + ")");
    }
  }
  if (o.threads != 0 && (!o.summary || o.context)) {
    return usage_error(sp.option("threads") + " splits the totals of " + spell::on(sp, "summary") +
                       " over raw reports (without " + sp.option("context") + "): add " +
                       spell::on(sp, "summary") + " or drop " + sp.option("threads"));
  }
  const std::string metrics_file = spell::arg(sp, "metrics", "FILE.xml");
  if (!o.metrics && !o.set.empty()) {
    return usage_error(sp.option("set") + " needs " + metrics_file);
  }
  if (!o.metrics && !o.device_vars.empty()) {
    return usage_error(spell::device_var(sp) + " gives a metric formula a value: it needs " +
                       metrics_file + " (and " + sp.option("set") + ")");
  }
  if (o.arithmetic) {
    if (!o.metrics) {
      return usage_error(sp.option("arithmetic") +
                         " chooses how metric formulas compute: it needs " + metrics_file);
    }
    const auto v = expr::parse_arithmetic(*o.arithmetic);
    if (!v) {
      return usage_error(sp.option("arithmetic") + " must be mdapi or igt, not '" + *o.arithmetic +
                         "'");
    }
    c.arithmetic = *v;
  }
  if (o.definitions) {
    if (!o.metrics) {
      return usage_error(sp.option("definitions") +
                         " chooses which formulas a metric set computes from: it needs " +
                         metrics_file);
    }
    const std::string why = metrics::mdapi::definitions_refusal(*o.definitions, c.arithmetic);
    if (!why.empty()) return usage_error(sp.option("definitions") + " " + why);
    c.definitions = *metrics::mdapi::parse_definitions(*o.definitions);
  }
  if (!o.xe_losses.empty() && c.kind != input_kind::xe_stream) {
    return usage_error(spell::xe_loss(sp) + " goes with " + sp.with("input_kind", "xe-stream"));
  }
  // Half of --platform/--format with no input kind may still be a recording,
  // which takes --platform as a fallback: open() decides.
  const bool have_pf = c.plat && o.format;
  if (have_pf || (c.kind && *c.kind != input_kind::recording)) {
    auto f = resolve_format(o, c, sp);
    if (!f) return f.error_value();
    c.format = *f;
  }
  return c;
}

// The refusal the options deserve when the input cannot be read at all: half
// of --platform/--format (no recording can supply the rest) is the user's
// error whatever the file would have held. Empty when the options are whole.
inline std::optional<error> check_unreadable(const open_options& o, const pipeline::spelling& sp) {
  auto c = check(o, sp);
  if (!c) return c.error_value();
  if (!c->kind && (o.platform.has_value() != o.format.has_value())) {
    auto f = resolve_format(o, *c, sp);
    if (!f) return f.error_value();
  }
  return std::nullopt;
}

}  // namespace hwpc::intel
