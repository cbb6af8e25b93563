// What a capture is, from its own bytes: the vendor, the input kind and the
// platform or GPU, and why (or why it cannot tell). Every door that takes
// "any capture" (`hwpc decode FILE`, hwpc.decode(path), `hwpc report`) asks
// this one function, so they cannot disagree about a file.
//
// Only what the bytes prove is claimed: a Mali capture file (magic
// HWPCMALI), an i915 or Xe perf recording (their first record), an Adreno
// .rd capture (its sections), gzip (the Adreno reader's compressed .rd), and
// hex dword text (the Adreno reader's text form). .rd sections are the
// weakest sign (an i915 stream can look like them): a door whose options name
// an Intel platform and format reads Intel without asking. Raw OA reports, i915 and
// Xe streams and bare Mali samples carry no header: they are `unknown`, and
// `why` says which command and options read them.
//
// A recording's platform comes from its first records only, VERSION up to
// DEVICE_INFO (platform_of(), the full reader's own walk stopped there), so
// identifying a multi-GB recording touches its first pages, not all of them;
// damage after DEVICE_INFO is the opening reader's to report.
#pragma once

#include <string>
#include <string_view>

#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/mali/capture_input.hpp"

namespace hwpc {

enum class vendor : unsigned char { unknown, intel, mali, adreno };

constexpr std::string_view to_string(vendor v) noexcept {
  switch (v) {
    case vendor::intel:
      return "intel";
    case vendor::mali:
      return "mali";
    case vendor::adreno:
      return "adreno";
    case vendor::unknown:
      break;
  }
  return "unknown";
}

struct identity {
  hwpc::vendor vendor = vendor::unknown;
  std::string input_kind;  // "recording", "xe-recording", "capture-file", "rd", "gzip", "hex"
  std::string device;      // the platform or GPU the bytes name; empty when they name none
  std::string why;         // what in the bytes says so, or why nothing does
};

inline identity identify(byte_span b) {
  identity id;
  if (b.empty()) {
    id.why = "empty input";
    return id;
  }
  if (mali::is_capture_file(b)) {
    id.vendor = vendor::mali;
    id.input_kind = "capture-file";
    id.why = "magic HWPCMALI at byte offset 0 (a Mali capture file)";
    auto in = mali::open_capture(b);
    if (in && in->header) {
      id.why += ", reader " + std::string(mali::reader_name(in->header->reader));
      if (auto g = mali::gpu_of(*in->header); g && *g != nullptr) id.device = (*g)->name;
    }
    return id;
  }
  if (intel::xe_recording::looks_like_xe_recording(b)) {
    id.vendor = vendor::intel;
    id.input_kind = "xe-recording";
    id.why = "an xe-perf recording's first record (Intel OA, Xe driver)";
    intel::xe_recording_options o;
    o.unverified_layouts = true;
    if (auto p = intel::xe_recording::platform_of(b, o))
      id.device = std::string(intel::name_of(*p));
    return id;
  }
  if (intel::recording::looks_like_recording(b)) {
    id.vendor = vendor::intel;
    id.input_kind = "recording";
    id.why = "an i915-perf recording's first record (Intel OA, i915 driver)";
    if (auto p = intel::recording::platform_of(b)) id.device = std::string(intel::name_of(*p));
    return id;
  }
  if (adreno::rd::looks_like_rd(b)) {
    id.vendor = vendor::adreno;
    id.input_kind = "rd";
    id.why = "freedreno .rd sections (an Adreno command-stream capture)";
    if (const adreno::device* d = adreno::rd::capture_device(b)) id.device = adreno::describe(*d);
    return id;
  }
  if (adreno::is_gzip(b)) {
    id.vendor = vendor::adreno;
    id.input_kind = "gzip";
    id.why = "gzip (hwpc reads gzip-compressed .rd captures only)";
    return id;
  }
  if (adreno::looks_like_text(b)) {
    id.vendor = vendor::adreno;
    id.input_kind = "hex";
    id.why = "hex dword text (the Adreno reader's text form; it names no GPU)";
    return id;
  }
  id.why =
      "no header hwpc knows: raw OA reports and i915/Xe streams name their platform and format "
      "with the options (hwpc decode --platform P --format F [--input-kind K]); bare Mali "
      "samples with hwpc mali --gpu; raw Adreno dwords with hwpc adreno --format bin";
  return id;
}

}  // namespace hwpc
