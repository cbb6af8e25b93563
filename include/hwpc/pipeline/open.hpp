// Open a capture of any vendor: the one vendor rule every door follows
// (`hwpc decode FILE`, `hwpc report`, hwpc.decode), then that vendor's
// open_capture(). The rule, first match wins:
//   1. the vendor the user named (--vendor);
//   2. what the bytes prove with a magic number (identify(): an hwpc Mali
//      capture file, an i915 or Xe recording);
//   3. Adreno when the format is one of Adreno's (auto, rd, hex, bin: no Intel
//      report format has these names, and Mali takes no format);
//   4. Mali when a Mali option is given (the GPU, the reader, the layout);
//   5. Adreno when the bytes read as .rd sections, gzip or hex dword text and
//      no Intel-only option is given (.rd sections are a weak sign: an i915
//      stream can look like them, and an Intel platform or format says so);
//   6. Intel, when its platform and format (or a recording) say how to read
//      the bytes; otherwise a usage error naming every way out.
// The options of another vendor than the one chosen are refused, one message
// for every door. The GPU is text until the vendor is known: Mali's product
// table or Adreno's device table reads it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "hwpc/pipeline/mali_capture.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc {

struct open_options {
  std::optional<hwpc::vendor> vendor;  // the user's word; none: the rule above
  // A Mali GPU (name or GPU_ID) or an Adreno GPU (name, GPU id, chip id):
  // read by the vendor chosen (mali.gpu and adreno.gpu are set from it).
  std::optional<std::string> gpu;
  // An Intel report format or Adreno's auto|rd|hex|bin: intel.format and
  // adreno.format are set from it.
  std::optional<std::string> format;
  intel::open_options intel;
  mali::open_options mali;
  adreno::open_options adreno;
};

// Which vendor's own options `o` holds, by their keys (spelling.hpp): an
// option counts when it is set to anything but its default.
struct options_given {
  std::vector<std::string_view> intel_only;  // Intel takes them, no other vendor does
  std::vector<std::string_view> mali;        // Mali's (the GPU included)
  bool adreno_format = false;                // the format is one of Adreno's names
};

inline bool is_adreno_format(std::string_view f) noexcept {
  return f == "auto" || f == "rd" || f == "hex" || f == "bin";
}

inline options_given given_options(const open_options& o) {
  options_given g;
  const intel::open_options& i = o.intel;
  const auto intel = [&](bool set, std::string_view key) {
    if (set) g.intel_only.push_back(key);
  };
  intel(i.platform.has_value(), "platform");
  intel(o.format && !is_adreno_format(*o.format), "format");
  intel(i.input_kind.has_value(), "input_kind");
  intel(!i.xe_losses.empty(), "xe_loss");
  intel(i.unverified_layouts, "unverified_layouts");
  intel(i.context.has_value(), "context");
  intel(i.threads != 0, "threads");
  intel(i.metrics.has_value(), "metrics");
  intel(!i.set.empty(), "set");
  intel(!i.device_vars.empty(), "device_var");
  intel(i.arithmetic.has_value(), "arithmetic");
  intel(i.definitions.has_value(), "definitions");
  const mali::open_options& m = o.mali;
  const auto mali = [&](bool set, std::string_view key) {
    if (set) g.mali.push_back(key);
  };
  mali(o.gpu.has_value() || m.gpu != nullptr, "gpu");
  mali(m.reader.has_value(), "reader");
  mali(m.l2_slices.has_value(), "l2_slices");
  mali(m.core_mask.has_value(), "core_mask");
  mali(m.core_index.has_value(), "core_index");
  mali(m.bus_width_bits.has_value(), "bus_width_bits");
  mali(m.derived.has_value(), "derived");
  mali(m.counters_only, "counters_only");
  g.adreno_format = o.format && is_adreno_format(*o.format);
  return g;
}

namespace detail {

inline std::string vendor_title(hwpc::vendor v) {
  return v == vendor::intel ? "Intel" : v == vendor::mali ? "Mali" : "Adreno";
}

// "--metrics, --set and --context" in the door's spelling.
inline std::string option_list(const std::vector<std::string_view>& keys,
                               const pipeline::spelling& sp) {
  std::string s;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i != 0) s += i + 1 == keys.size() ? " and " : ", ";
    // Two Intel options have a plural keyword in Python.
    s += keys[i] == "device_var" ? intel::spell::device_var(sp)
         : keys[i] == "xe_loss"  ? intel::spell::xe_loss(sp)
                                 : sp.option(keys[i]);
  }
  return s;
}

// The first option of `keys` a capture of `v` does not take, refused.
inline error not_an_option(std::string_view key, hwpc::vendor v, const std::string& name,
                           const identity& id, const pipeline::spelling& sp) {
  std::string m = option_list({key}, sp) + " is not an option for " + vendor_title(v) + " captures";
  if (id.vendor == v && !name.empty()) {
    m += " (" + name + " is " + std::string(to_string(v)) + ": " + id.why;
    if (v != vendor::intel) {
      m += "; " +
           option_list({"metrics", "set", "device_var", "arithmetic", "definitions", "context",
                        "threads", "unverified_layouts", "xe_loss"},
                       sp) +
           " are Intel OA options";
    }
    m += ")";
  } else {
    m += " (" + sp.option("vendor") + " intel, mali or adreno says which the capture is)";
  }
  return usage_error(m);
}

}  // namespace detail

// The vendor the rule above picks for the capture `id` describes, `name` its
// file (for messages), with every option of another vendor refused.
inline result<hwpc::vendor> choose_vendor(const identity& id, const std::string& name,
                                          const open_options& o, const pipeline::spelling& sp) {
  const options_given g = given_options(o);
  vendor v = vendor::intel;
  if (o.vendor && *o.vendor != vendor::unknown) {
    v = *o.vendor;
  } else if (id.vendor == vendor::mali || id.vendor == vendor::intel) {
    v = id.vendor;  // a magic number: options that contradict it are refused below
  } else if (g.adreno_format) {
    v = vendor::adreno;
  } else if (!g.mali.empty()) {
    v = vendor::mali;
  } else if (id.vendor == vendor::adreno && g.intel_only.empty()) {
    v = vendor::adreno;
  } else if (!o.intel.platform && !o.format && o.intel.input_kind.value_or("raw") != "recording") {
    // Nothing says what the bytes are, and raw OA reports and streams need
    // their platform and format: every way out, not only Intel's.
    return usage_error((name.empty() ? std::string() : name + ": ") +
                       "cannot tell what the capture is: " + sp.option("platform") + " and " +
                       sp.option("format") + " are required for raw OA reports and streams (" +
                       id.why + ")");
  }
  if (v == vendor::intel) {
    if (!g.mali.empty()) return detail::not_an_option(g.mali.front(), v, name, id, sp);
  } else {
    if (!g.intel_only.empty()) return detail::not_an_option(g.intel_only.front(), v, name, id, sp);
    if (v == vendor::mali && o.format) return detail::not_an_option("format", v, name, id, sp);
    if (v == vendor::adreno) {
      for (const std::string_view k : g.mali) {
        if (k != "gpu") return detail::not_an_option(k, v, name, id, sp);
      }
    }
  }
  return v;
}

// A Mali GPU named by text, as every door words a wrong one.
inline result<const mali::gpu_product*> mali_gpu(const std::string& text,
                                                 const pipeline::spelling& sp) {
  auto g = mali::find_gpu(text);
  if (!g) return usage_error(sp.option("gpu") + ": " + g.error_value().describe());
  return *g;
}

// The vendor's options of `o`, completed with the shared GPU and format.
inline result<mali::open_options> mali_options(const open_options& o,
                                               const pipeline::spelling& sp) {
  mali::open_options m = o.mali;
  if (o.gpu) {
    auto g = mali_gpu(*o.gpu, sp);
    if (!g) return g.error_value();
    m.gpu = *g;
  }
  return m;
}

inline adreno::open_options adreno_options(const open_options& o) {
  adreno::open_options a = o.adreno;
  if (o.format) a.format = *o.format;
  if (o.gpu) a.gpu = o.gpu;
  return a;
}

inline intel::open_options intel_options(const open_options& o) {
  intel::open_options i = o.intel;
  if (o.format) i.format = o.format;
  return i;
}

// The options of `o` a capture of `v` takes, checked alone (values and
// combinations, no byte read): a door that knows the vendor before it
// touches the input (hwpc.mali.decode) refuses a wrong value first, as the
// tool's vendor commands do. open() checks them again.
inline result<void> check_options(const open_options& o, hwpc::vendor v,
                                  const pipeline::spelling& sp) {
  if (v == vendor::mali) {
    auto m = mali_options(o, sp);
    if (!m) return m.error_value();
    return mali::check(*m, sp);
  }
  if (v == vendor::adreno) {
    auto a = adreno::check(adreno_options(o), sp);
    if (!a) return a.error_value();
    return {};
  }
  auto i = intel::check(intel_options(o), sp);
  if (!i) return i.error_value();
  return {};
}

// Opens `src`, which `id` describes, as the capture of the vendor
// choose_vendor() picks: for a door that identified the bytes already (to
// word its own messages by vendor), so they are read once. identify() reads
// only a recording's first records (up to DEVICE_INFO), so the one pass over
// a large capture is the opening reader's.
inline result<std::unique_ptr<capture>> open(capture_source src, const open_options& o,
                                             const pipeline::spelling& sp, const identity& id) {
  auto v = choose_vendor(id, src.name(), o, sp);
  if (!v) return v.error_value();
  if (*v == vendor::mali) {
    auto m = mali_options(o, sp);
    if (!m) return m.error_value();
    return mali::open_capture(std::move(src), *m, sp);
  }
  if (*v == vendor::adreno) return adreno::open_capture(std::move(src), adreno_options(o), sp);
  return intel::open_capture(std::move(src), intel_options(o), sp);
}

// Opens `src` as the capture of the vendor choose_vendor() picks.
inline result<std::unique_ptr<capture>> open(capture_source src, const open_options& o,
                                             const pipeline::spelling& sp) {
  const identity id = identify(src.bytes());
  return open(std::move(src), o, sp, id);
}

}  // namespace hwpc
