// hwpc emulate: runs the reference OA unit emulator and writes a capture
// (raw reports, an i915 perf stream or an IGT recording) and, optionally,
// the exact per-interval counter increments it contains (--truth), in the
// CSV columns `hwpc decode` prints.
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/emu/set_model.hpp"
#include "hwpc/metrics/report_type.hpp"
#include "hwpc/metrics/xml_loader.hpp"
#include "hwpc/pipeline/metric_columns.hpp"

namespace hwpc::cli {

namespace {

const command_spec emulate_spec{
    "emulate",
    "hwpc emulate --platform P --format F [--exponent E] [--reports N] [--seed S]\n"
    "             [--faults LIST] [--driver i915|xe]\n"
    "             --output-kind raw|i915-stream|recording|xe-stream|xe-recording --out FILE\n"
    "             [--truth TRUTH.csv] [--metrics FILE.xml --set SYMBOL]",
    "Emulates an OA unit under a seeded workload and writes what a profiler would capture.\n"
    "--truth writes the exact counter increments between consecutive reports of that\n"
    "output (columns report,timestamp,GPU_TICKS,A..,B..,C..), which decoding the output\n"
    "must reproduce. Faults: wrap (counters and TIME_STAMP wrap), ctx-switch (context\n"
    "switches every few reports), tail-ahead (zero-RPT_ID reports the tail covered before\n"
    "they landed), overflow (a slow reader overflows the OA buffer), report-lost (MI_RPC\n"
    "collides with timer reports).\n"
    "--driver xe (the default on lnl, bmg and ptl) follows the Xe kernel driver: its format\n"
    "names (hwpc formats --platform P), its read() (unlanded reports have RPT_ID and\n"
    "TIME_STAMP zero; losses are failed reads) and its outputs: xe-stream (read() data;\n"
    "stderr prints the --xe-loss arguments hwpc decode needs) and xe-recording (an IGT\n"
    "xe-perf-recorder file). Usage errors exit with 1; a configuration the emulator\n"
    "rejects exits with 2.",
    {{"platform", "P",
      "platform: snb ivb vlv hsw bdw chv skl bxt kbl glk cfl cnl icl ehl tgl rkl adl dg1 dg2 mtl "
      "lnl bmg ptl"},
     {"format", "F", "report format name or alias (see `hwpc formats --platform P`)"},
     number_option("exponent", "E",
                   "timer period exponent: a report every 2^(E+1) ticks (default 10)"),
     number_option("reports", "N", "reports the OA unit writes (default 64)"),
     number_option("seed", "S", "workload seed (default 1)"),
     {"faults", "LIST", "comma list: wrap,ctx-switch,tail-ahead,overflow,report-lost"},
     {"overrun-disable", "", "OABUFFER overrun disabled: stop reporting when full"},
     choice_option("driver", "i915|xe",
                   "whose read() path and format names (default: xe from lnl on)"),
     choice_option("output-kind", "raw|i915-stream|recording|xe-stream|xe-recording",
                   "what to write: the OA buffer, a stream's read() data or a recording"),
     {"out", "FILE", "where to write the capture"},
     {"truth", "FILE", "where to write the truth CSV"},
     {"metrics", "FILE.xml", "recording: name this file's set (--set) in DEVICE_INFO"},
     {"set", "SYMBOL", "the set's symbol_name; its oa_format, if any, is the default --format"}},
    0,
    0};

// A number option's value (the parser took a u64) in T, or a usage error's
// message when it does not fit.
template <class T>
std::optional<std::string> narrow(const parsed_args& a, std::string_view name, T& into) {
  const auto v = a.number(name);
  if (!v) return std::nullopt;
  if (*v > std::numeric_limits<T>::max()) {
    return "--" + std::string(name) + ": at most " + std::to_string(std::numeric_limits<T>::max()) +
           ", not " + std::to_string(*v);
  }
  into = static_cast<T>(*v);
  return std::nullopt;
}

bool write_file(const std::string& path, const void* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int cmd_emulate(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto a = parse(emulate_spec, args, status);
  if (!a) return status;
  const auto plat = a->get("platform");
  auto fmt = a->get("format");
  // --metrics/--set: the recording names a real set (IGT's reader finds it).
  emu::recording_identity identity;
  std::optional<metrics::metric_set> shaping_set;  // the set whose formulas shape the model
  if (a->get("metrics") || a->get("set")) {
    if (!a->get("metrics") || !a->get("set")) {
      return fail("emulate", "--metrics and --set go together", exit_usage);
    }
#ifdef HWPC_HAVE_PUGIXML
    auto set = metrics::find_xml_set(*a->get("metrics"), *a->get("set"));
    if (!set) {
      error e = set.error_value();
      pipeline::say_where_metric_files_come_from(e);
      return fail("emulate", "--metrics: " + e.describe(), exit_usage);
    }
    identity = {set->symbol_name, set->hw_config_guid};
    shaping_set = *set;
    if (!fmt && !set->oa_format.empty()) {
      // The Xe files name the report type as the hardware does (576B_PEC64LL
      // is PEC64u64, ...; metrics/report_type.hpp).
      const std::string_view name = metrics::format_name_of(set->oa_format);
      fmt = name.empty() ? set->oa_format : std::string(name);
    }
#else
    return fail("emulate", "--metrics needs pugixml: rebuild with libpugixml-dev", exit_usage);
#endif
  }
  const auto kind = a->get("output-kind");
  const auto out = a->get("out");
  if (!plat || !fmt || !kind || !out) {
    return fail("emulate", "--platform, --format, --output-kind and --out are required",
                exit_usage);
  }
  emu::config c;
  const auto p = intel::platform_from_name(*plat);
  if (!p) return fail("emulate", "unknown platform '" + *plat + "'", exit_usage);
  c.platform = *p;
  c.format = *fmt;
  const bool xe_kind = *kind == "xe-stream" || *kind == "xe-recording";
  if (auto d = a->get("driver")) {  // i915 or xe (the parser took no other)
    c.kernel_driver = *d == "xe" ? emu::driver::xe : emu::driver::i915;
  } else if (xe_kind) {
    c.kernel_driver = emu::driver::xe;
  }
  const emu::driver drv = emu::driver_of(c);
  if (drv == emu::driver::i915 && xe_kind) {
    return fail("emulate", "--output-kind " + *kind + " needs --driver xe", exit_usage);
  }
  if (drv == emu::driver::xe && (*kind == "i915-stream" || *kind == "recording")) {
    return fail("emulate",
                "--output-kind " + *kind +
                    " is i915's; the Xe driver writes xe-stream or "
                    "xe-recording",
                exit_usage);
  }
  if (emu::find_emu_format(c.platform, c.format, drv) == nullptr) {
    return fail("emulate",
                "platform " + *plat + " has no " + (drv == emu::driver::xe ? "Xe driver" : "i915") +
                    " report format '" + *fmt + "' (see hwpc formats --platform " + *plat + ")",
                exit_usage);
  }
  for (const auto& why : {narrow(*a, "exponent", c.exponent), narrow(*a, "reports", c.reports),
                          narrow(*a, "seed", c.seed)}) {
    if (why) return fail("emulate", *why, exit_usage);
  }
  if (auto f = a->get("faults")) {
    auto fs = emu::parse_faults(*f);
    if (!fs) return fail("emulate", fs.error_value().message, exit_usage);
    c.faults = *fs;
  }
  c.overrun_disable = a->has("overrun-disable");
  // The named set's formulas say where its clock is (emu/set_model.hpp).
  if (shaping_set) emu::shape_for_set(c, *shaping_set);
  emu::output_kind k{};
  if (*kind == "raw") {
    k = emu::output_kind::raw;
  } else if (*kind == "i915-stream") {
    k = emu::output_kind::i915_stream;
  } else if (*kind == "recording") {
    k = emu::output_kind::recording;
  } else if (*kind == "xe-stream") {
    k = emu::output_kind::xe_stream;
  } else {  // xe-recording: the parser took only the kinds the option lists
    k = emu::output_kind::xe_recording;
  }

  auto cap = emu::emulate(c);
  if (!cap) return fail("emulate", cap.error_value().describe(), exit_bad_input);
  auto bytes = emu::output_bytes(*cap, k, identity);
  if (!bytes) return fail("emulate", bytes.error_value().describe(), exit_bad_input);
  if (!write_file(*out, bytes->data(), bytes->size())) {
    return fail("emulate", "cannot write " + *out, exit_bad_input);
  }
  if (auto t = a->get("truth")) {
    auto truth = emu::truth_for(*cap, k);
    if (!truth) return fail("emulate", truth.error_value().describe(), exit_bad_input);
    const std::string csv = emu::truth_csv(*truth);
    if (!write_file(*t, csv.data(), csv.size())) {
      return fail("emulate", "cannot write " + *t, exit_bad_input);
    }
  }
  if (k == emu::output_kind::xe_stream) {
    auto st = emu::xe_stream_of(*cap);
    if (st && !st->losses.empty()) {
      std::fprintf(stderr, "hwpc emulate: losses (failed reads) for hwpc decode: %s\n",
                   emu::xe_loss_arguments(*st).c_str());
    }
  }
  std::fprintf(stderr,
               "hwpc emulate: %zu reports written (%zu ring, %zu MI_RPC), %zu bytes to %s\n",
               cap->reports.size(), cap->stats.ring_reports, cap->stats.mi_rpc_reports,
               bytes->size(), out->c_str());
  return exit_ok;
}

}  // namespace hwpc::cli
