// hwpc report: one self-contained HTML file of a capture (facts, charts,
// totals; output/html/report_writer.hpp), for every vendor.
//
// The report is the `--output html` writer of the capture hwpc::open opens
// (pipeline/open.hpp: the vendor rule of hwpc decode and hwpc.decode), with
// the options of the vendor's own command (options_*.hpp, shared with hwpc
// decode, hwpc mali and hwpc adreno). The page is written into a temporary
// file beside REPORT.html, renamed into place only when the whole capture
// was written (no half-written report is ever left under the name asked for).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "capture_door.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/pipeline/intel_default_capture.hpp"
#include "hwpc/pipeline/open.hpp"
#include "options_intel.hpp"
#include "options_mali.hpp"

namespace hwpc::cli {

namespace {

const command_spec report_spec{
    "report",
    "hwpc report [CAPTURE] -o REPORT.html [--vendor intel|mali|adreno]\n"
    "            [--metrics FILE.xml --set SYMBOL] [other options of hwpc decode]\n"
    "       hwpc report CAPTURE -o REPORT.html [--gpu NAME|GPU_ID ...] [other options of hwpc "
    "mali]\n"
    "       hwpc report CAPTURE.rd[.gz] -o REPORT.html [--format auto|rd|hex|bin]\n"
    "                   [--vendor adreno --gpu NAME|CHIP_ID]",
    "Writes one self-contained HTML file (no script, no network: open it in any browser):\n"
    "the capture's facts (vendor, platform or GPU, format, device, duration, reports,\n"
    "losses), small-multiple charts of every metric of the set and of the busiest raw\n"
    "counters, each downsampled to a min/max band per pixel column, losses marked, and the\n"
    "table of totals (the numbers of --summary). docs/report.md describes the page.\n"
    "Intel captures take the options of `hwpc decode` (every input kind; without CAPTURE,\n"
    "the embedded default capture); Mali captures those of `hwpc mali`; Adreno captures\n"
    "(.rd, gzip-compressed .rd, hex dword text, raw PM4) those of `hwpc adreno --output`.\n"
    "The vendor is --vendor, else what CAPTURE starts with (an hwpc Mali capture file, an\n"
    "Intel recording), else Adreno when --format is auto, rd, hex or bin, else Mali when a\n"
    "Mali option is given, else Adreno when CAPTURE is gzip, reads as .rd sections or is hex\n"
    "dword text (as hwpc decode tells) and no Intel-only option is given, else Intel with "
    "--platform and --format (without them, an error\n"
    "that lists the choices).\n"
    "-o - writes the page to standard output. Exit statuses are those of decode, mali and\n"
    "adreno: 1 for usage errors, 2 for bad input (no file is left then).",
    {{"out", "FILE", "the HTML file to write (also -o FILE; - for standard output)"},
     choice_option("vendor", "intel|mali|adreno",
                   "the capture's vendor (default: from the file and the options)"),
     {"platform", "P", "Intel: platform, for raw and stream input (hwpc decode --help)"},
     {"format", "F", "Intel: report format; Adreno: auto, rd, hex or bin"},
     choice_option("input-kind", "raw|i915-stream|xe-stream|recording", "Intel: the input kind"),
     {"xe-loss", "OFFSET:STATUS", "Intel: an Xe stream loss", true},
     {"unverified-layouts", "", "Intel: decode inferred Xe layouts"},
     {"context", "ID", "Intel: keep only intervals that ran in this context"},
     {"metrics", "FILE.xml", "Intel: metric XML file"},
     {"set", "SYMBOL", "Intel: metric set of --metrics to chart"},
     {"device-var", "NAME=VALUE", "Intel: a device variable for the formulas", true},
     choice_option("arithmetic", "mdapi|igt",
                   "Intel: the formulas' arithmetic (hwpc decode --help)"),
     choice_option("definitions", "file|mdapi|newer",
                   "Intel: the file's or metrics-discovery's formulas (hwpc decode --help)"),
     {"gpu", "NAME|GPU_ID", "Mali: the GPU (hwpc mali --help); Adreno: hwpc adreno --gpu"},
     choice_option("reader", "vinstr|kinstr", "Mali: the kernel reader"),
     number_option("l2-slices", "N", "Mali: number of L2 slices"),
     number_option("core-mask", "M", "Mali: shader core mask"),
     choice_option("core-index", "dense|sparse", "Mali: kinstr shader-core block numbering"),
     number_option("bus-width-bits", "B", "Mali: external bus width: adds the derived counters"),
     choice_option("derived", "guide|database", "Mali: which derived counters"),
     {"counters-only", "", "Mali: no derived counters"}},
    0,
    1};

const pipeline::spelling tool_spelling{pipeline::door::tool};

// The options of every vendor, as hwpc::open takes them (the vendor rule and
// the refusal of another vendor's options are the library's).
std::optional<int> read_options(const parsed_args& a, hwpc::open_options& o) {
  if (const auto v = a.get("vendor")) {
    o.vendor = *v == "mali" ? vendor::mali : *v == "adreno" ? vendor::adreno : vendor::intel;
  }
  if (auto bad = read_intel_options(a, o.intel)) return fail("decode", *bad, exit_usage);
  read_mali_options(a, o.mali);
  o.format = a.get("format");
  o.gpu = a.get("gpu");
  return std::nullopt;
}

// Writes the page of `cap` into `path` (through `path`.partial; - for
// standard output).
int write_page(capture& cap, const std::string& capture_path, const std::string& path) {
  const write_options wo{output::output_choice{output::writer_kind::html, false}, {}, nullptr};
  if (path == "-") {
    output::text_buffer out(stdout);
    return write_capture(cap, capture_path, wo, out);
  }
  const std::string partial = path + ".partial";
  std::FILE* f = std::fopen(partial.c_str(), "wb");
  if (f == nullptr) {
    return fail("report", "cannot write " + partial + ": " + std::strerror(errno), exit_bad_input);
  }
  int status = exit_ok;
  {
    output::text_buffer out(f);
    status = write_capture(cap, capture_path, wo, out);
  }
  const bool written = std::fflush(f) == 0 && std::ferror(f) == 0;
  std::fclose(f);
  if (status == exit_ok && !written)
    status = fail("report", "cannot write " + partial, exit_bad_input);
  if (status == exit_ok && std::rename(partial.c_str(), path.c_str()) != 0) {
    status =
        fail("report", "cannot rename " + partial + " to " + path + ": " + std::strerror(errno),
             exit_bad_input);
  }
  if (status != exit_ok) std::remove(partial.c_str());
  return status;
}

}  // namespace

int cmd_report(const std::vector<std::string>& args) {
  // -o FILE is --out FILE (the parser knows long options only).
  std::vector<std::string> argv;
  for (const std::string& a : args) argv.push_back(a == "-o" ? "--out" : a);
  int status = exit_ok;
  const auto parsed = parse(report_spec, argv, status);
  if (!parsed) return status;
  const auto out = parsed->get("out");
  if (!out || out->empty()) {
    return fail("report", "-o REPORT.html is required (- for standard output)", exit_usage);
  }
  const std::string capture = parsed->positional.empty() ? "" : parsed->positional[0];
  hwpc::open_options o;
  if (auto st = read_options(*parsed, o)) return *st;
  std::optional<capture_source> src;
  std::optional<identity> id;  // what the bytes are, asked once for both calls below
  vendor chosen = vendor::intel;
  if (capture.empty()) {
    // The vendor rule without bytes: a vendor that has no default capture
    // needs one; Intel's options are checked against the default's vendor.
    const options_given g = given_options(o);
    const vendor v = o.vendor          ? *o.vendor
                     : g.adreno_format ? vendor::adreno
                     : !g.mali.empty() ? vendor::mali
                                       : vendor::intel;
    if (v != vendor::intel) {
      return fail(
          "report",
          std::string("a ") + (v == vendor::mali ? "Mali" : "Adreno") + " report needs CAPTURE",
          exit_usage);
    }
    o.vendor = vendor::intel;
    if (auto c = choose_vendor(identity{}, "", o, tool_spelling); !c) {
      return fail("report", c.error_value().message, exit_usage);
    }
    // Without CAPTURE: the embedded default capture (as hwpc decode).
    if (auto c = intel::check(o.intel, tool_spelling); !c) {
      return capture_fail(vendor::intel, "", c.error_value());
    }
    auto d = intel::make_default_capture(std::move(o.intel), tool_spelling);
    if (!d) return capture_fail(vendor::intel, "", d.error_value());
    src.emplace(std::move(d->source));
    o.intel = std::move(d->options);
    o.format = o.intel.format;
    o.vendor = vendor::intel;
  } else {
    auto m = capture_source::map(capture);
    if (!m) {
      const vendor v = o.vendor.value_or(vendor::intel);
      if (v == vendor::intel) {
        if (auto u = intel::check_unreadable(o.intel, tool_spelling)) {
          return capture_fail(vendor::intel, capture, *u);
        }
      }
      return fail(command_of(v), m.error_value().message, exit_bad_input);
    }
    src.emplace(std::move(*m));
    id = identify(src->bytes());
    auto v = choose_vendor(*id, capture, o, tool_spelling);
    if (!v) return fail("report", v.error_value().message, exit_usage);
    chosen = *v;
  }
  auto cap = id ? hwpc::open(std::move(*src), o, tool_spelling, *id)
                : hwpc::open(std::move(*src), o, tool_spelling);
  if (!cap) return capture_fail(chosen, capture, cap.error_value());
  return write_page(**cap, capture, *out);
}

}  // namespace hwpc::cli
