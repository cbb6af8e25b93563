// hwpc report: one self-contained HTML file of a capture (facts, charts,
// totals; output/html/report_writer.hpp), for every vendor.
//
// The report is the `--output html` writer of the command that reads the
// capture: `hwpc decode` for Intel (every input kind, the default capture
// without CAPTURE), `hwpc mali` for Mali, `hwpc adreno` for Adreno. This
// command picks the vendor, checks that the options belong to it, and runs
// that command with its standard output sent to a temporary file beside
// REPORT.html, which is renamed into place only when the command succeeded
// (no half-written report is ever left under the name asked for).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/mapped_file.hpp"

namespace hwpc::cli {

namespace {

// The options each vendor's command takes (forwarded as given).
constexpr std::string_view intel_options[] = {
    "platform", "format", "input-kind", "xe-loss",    "unverified-layouts", "context",
    "metrics",  "set",    "device-var", "arithmetic", "definitions"};
constexpr std::string_view mali_options[] = {"gpu",       "reader",       "l2-slices",
                                             "core-mask", "core-index",   "bus-width-bits",
                                             "derived",   "counters-only"};
constexpr std::string_view adreno_options[] = {"format", "gpu"};

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
     {"vendor", "intel|mali|adreno",
      "the capture's vendor (default: from the file and the options)"},
     {"platform", "P", "Intel: platform, for raw and stream input (hwpc decode --help)"},
     {"format", "F", "Intel: report format; Adreno: auto, rd, hex or bin"},
     {"input-kind", "KIND", "Intel: raw, i915-stream, xe-stream or recording"},
     {"xe-loss", "OFFSET:STATUS", "Intel: an Xe stream loss", true},
     {"unverified-layouts", "", "Intel: decode inferred Xe layouts"},
     {"context", "ID", "Intel: keep only intervals that ran in this context"},
     {"metrics", "FILE.xml", "Intel: metric XML file"},
     {"set", "SYMBOL", "Intel: metric set of --metrics to chart"},
     {"device-var", "NAME=VALUE", "Intel: a device variable for the formulas", true},
     {"arithmetic", "mdapi|igt", "Intel: the formulas' arithmetic (hwpc decode --help)"},
     {"definitions", "file|mdapi|newer",
      "Intel: the file's or metrics-discovery's formulas (hwpc decode --help)"},
     {"gpu", "NAME|GPU_ID", "Mali: the GPU (hwpc mali --help); Adreno: hwpc adreno --gpu"},
     {"reader", "vinstr|kinstr", "Mali: the kernel reader"},
     {"l2-slices", "N", "Mali: number of L2 slices"},
     {"core-mask", "M", "Mali: shader core mask"},
     {"core-index", "dense|sparse", "Mali: kinstr shader-core block numbering"},
     {"bus-width-bits", "B", "Mali: external bus width: adds the derived counters"},
     {"derived", "guide|database", "Mali: which derived counters"},
     {"counters-only", "", "Mali: no derived counters"}},
    0,
    1};

bool is_in(std::string_view name, std::span<const std::string_view> list) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// What the file's first bytes say, in the library's words (pipeline/
// identify.hpp: the same answer as `hwpc decode FILE` and hwpc.decode). An
// unreadable file says nothing: the command it goes to reports it.
vendor vendor_of_file(const std::string& path) {
  auto f = pipeline::mapped_file::open(path);
  if (!f) return vendor::unknown;
  return identify(f->bytes()).vendor;
}

// Runs `run(args)` with its standard output in `path` (through `path`.partial).
int run_into(const std::string& path, command_fn run, const std::vector<std::string>& args) {
  if (path == "-") return run(args);
  const std::string partial = path + ".partial";
  std::fflush(stdout);
  if (std::freopen(partial.c_str(), "w", stdout) == nullptr) {
    return fail("report", "cannot write " + partial + ": " + std::strerror(errno), exit_bad_input);
  }
  int status = run(args);
  const bool written = std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
  std::fclose(stdout);
  if (status == exit_ok && !written) {
    status = fail("report", "cannot write " + partial, exit_bad_input);
  }
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

  bool mali_option = false, intel_only_option = false;
  for (const auto& [name, values] : parsed->values) {
    mali_option |= is_in(name, mali_options);
    intel_only_option |= is_in(name, intel_options) && !is_in(name, adreno_options);
  }
  const vendor from_file = capture.empty() ? vendor::unknown : vendor_of_file(capture);
  vendor v = vendor::intel;
  if (const auto given = parsed->get("vendor")) {
    if (*given == "mali") {
      v = vendor::mali;
    } else if (*given == "adreno") {
      v = vendor::adreno;
    } else if (*given != "intel") {
      return fail("report", "--vendor: expected intel, mali or adreno, not '" + *given + "'",
                  exit_usage);
    }
  } else if (from_file == vendor::mali || from_file == vendor::intel) {
    v = from_file;  // a magic number: options that contradict it are refused below
  } else if (const auto f = parsed->get("format");
             f && (*f == "auto" || *f == "rd" || *f == "hex" || *f == "bin")) {
    v = vendor::adreno;  // no Intel report format has these names, and Mali takes no --format
  } else if (mali_option) {
    v = vendor::mali;
  }
  if (!parsed->has("vendor") && v == vendor::intel && !intel_only_option &&
      from_file == vendor::adreno) {
    v = vendor::adreno;  // .rd sections are a weak sign: an i915 stream can look like one
  }
  // Nothing says what CAPTURE is, and Intel raw reports and streams need their platform and
  // format: say every way out instead of asking for Intel's options only. (A file that is
  // not there is left to the reader, whose error names it.)
  std::error_code exists_error;
  if (v == vendor::intel && !parsed->has("vendor") && !capture.empty() &&
      std::filesystem::exists(capture, exists_error) && from_file != vendor::intel &&
      !parsed->has("platform") && !parsed->has("format") &&
      parsed->get("input-kind").value_or("raw") != "recording") {
    return fail("report",
                capture +
                    ": not a file that names its vendor (Intel recording, hwpc Mali capture "
                    "file, freedreno .rd, hex dword text): give --vendor adreno for PM4 "
                    "dwords, --gpu NAME for raw Mali samples, or --platform P --format F for raw "
                    "Intel reports and streams",
                exit_usage);
  }
  const char* vendor_name = v == vendor::intel ? "Intel" : v == vendor::mali ? "Mali" : "Adreno";
  const std::span<const std::string_view> own =
      v == vendor::intel  ? std::span<const std::string_view>(intel_options)
      : v == vendor::mali ? std::span<const std::string_view>(mali_options)
                          : std::span<const std::string_view>(adreno_options);

  std::vector<std::string> forward;
  if (!capture.empty()) forward.push_back(capture);
  for (const auto& [name, values] : parsed->values) {
    if (name == "out" || name == "vendor") continue;
    if (!is_in(name, own)) {
      return fail("report",
                  "--" + name + " is not an option for " + vendor_name +
                      " captures (--vendor intel, mali or adreno says which the capture is)",
                  exit_usage);
    }
    // A named reference, not the binding: clang 14 cannot capture bindings.
    const std::string& option = name;
    const bool flag =
        std::any_of(report_spec.options.begin(), report_spec.options.end(),
                    [&](const option_spec& o) { return o.name == option && o.value_name.empty(); });
    for (const std::string& value : values) {
      forward.push_back("--" + name);
      if (!flag) forward.push_back(value);
    }
  }
  forward.insert(forward.end(), {"--output", "html"});
  if (v != vendor::intel && capture.empty()) {
    return fail("report", std::string("a ") + vendor_name + " report needs CAPTURE", exit_usage);
  }
  if (v == vendor::mali) return run_into(*out, cmd_mali, forward);
  if (v == vendor::adreno) return run_into(*out, cmd_adreno, forward);
  return run_into(*out, cmd_decode, forward);
}

}  // namespace hwpc::cli
