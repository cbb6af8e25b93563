// hwpc record: live capture from the kernel. `hwpc record intel` opens an
// i915 perf OA stream or an Xe observation stream and writes the recording
// IGT's i915-perf-recorder or xe-perf-recorder writes; `hwpc record mali`
// opens a kbase kinstr_prfcnt session and writes an hwpc Mali capture file.
// Both run until --duration or Ctrl-C/SIGTERM and end with a complete file.
// The recording is the library's (hwpc/live/recording.hpp), the same object
// hwpc.intel.record / hwpc.mali.record drive; this file parses options,
// prints the rows (--output) and handles signals.
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/live/recording.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"

namespace hwpc::cli {

namespace {

const command_spec intel_spec{
    "record intel",
    "hwpc record intel [--device PATH] (--metrics FILE.xml --set SYMBOL | --set-id N [--set "
    "NAME])\n"
    "                  [--format F] [--period T | --exponent E] [--duration T] [--ctx HANDLE]\n"
    "                  --out FILE [--output csv|json|perfetto|chrome-json]",
    "Records the OA unit's reports into the recording IGT's recorder writes for the node's\n"
    "driver; `hwpc decode FILE` opens either. The driver is asked, not guessed: a node that\n"
    "answers DRM_IOCTL_XE_DEVICE_QUERY is the Xe driver's.\n"
    "  i915: opens a perf OA stream (DRM_IOCTL_I915_PERF_OPEN: SAMPLE_OA, the metric set,\n"
    "  the report format and the sampling exponent; disabled at open, enabled once the\n"
    "  file's header is written) and writes i915-perf-recorder's layout: device info,\n"
    "  topology, CPU/GPU timestamp correlation points (at the start, every second and at\n"
    "  the end) and the stream's records, lost-report records included.\n"
    "  Xe (Lunar Lake, Battlemage, Panther Lake; Gen12-MTL where Xe drives them): opens an\n"
    "  observation stream (DRM_IOCTL_XE_OBSERVATION, OA unit 0: the metric set, the format,\n"
    "  the period exponent; device facts from DRM_XE_DEVICE_QUERY) and writes\n"
    "  xe-perf-recorder's layout; a read that fails with EIO is followed by the stream's\n"
    "  status, written as a lost-report or lost-buffer record and named on stderr. The\n"
    "  format defaults to PEC64u64 on Xe2/Xe3; --ctx is refused (Xe filters by exec queue).\n"
    "The metric set is the kernel's (/sys/class/drm/card<N>/metrics/<guid>/id); a set the\n"
    "kernel lacks is uploaded from --metrics (i915's I915_PERF_ADD_CONFIG, Xe's ADD_CONFIG\n"
    "op: its NOA, OA and FLEX registers) and removed when the recording ends. Ctrl-C or\n"
    "SIGTERM ends the recording with a complete file. Usage errors exit with 1; a device or\n"
    "kernel that refuses exits with 2 and says what to change (paranoid sysctl, CAP_PERFMON).",
    {{"device", "PATH", "render node, i915 or Xe (default /dev/dri/renderD128)"},
     {"metrics", "FILE.xml", "Intel metric file (oa-<platform>.xml) that names the set"},
     {"set", "SYMBOL", "the set's symbol_name (with --metrics: its hw_config_guid is looked up)"},
     number_option("set-id", "N", "the kernel's config id of the set (instead of --metrics)"),
     {"format", "F",
      "report format (default: the platform's A/B/C format, PEC64u64 on Xe2/Xe3; see hwpc "
      "formats)"},
     {"period", "T", "sampling period, e.g. 1ms or 100us (the nearest exponent is used)"},
     number_option("exponent", "E", "OA_EXPONENT: a report every 2^(E+1) OA timestamp ticks"),
     {"duration", "T", "stop after T (e.g. 1s, 500ms); default: until Ctrl-C"},
     number_option("ctx", "HANDLE", "only this GEM context (CTX_HANDLE; i915 only)"),
     {"out", "FILE", "the recording to write"},
     choice_option("output", "csv|json|perfetto|chrome-json|html",
                   "also print rows while recording, as `hwpc decode FILE` prints them (with "
                   "--metrics, the set's metric columns too; a trace, and every row on the Xe "
                   "driver, is written when the recording ends; html: record, then hwpc report)")},
    0,
    0};

const command_spec mali_spec{
    "record mali",
    "hwpc record mali [--device PATH] [--period T] [--duration T] --out FILE",
    "Opens Arm's kbase driver (/dev/mali0), sets up a periodic kinstr_prfcnt session with\n"
    "every counter block enabled, and writes an hwpc Mali capture file: the header from the\n"
    "kernel's GPU properties (GPU_ID, L2 slices, shader core mask) and every sample copied\n"
    "out of the kernel's ring. `hwpc mali FILE` decodes it. Samples the kernel flags as\n"
    "overflowed (its ring was full) are counted on stderr. Kernels without kinstr_prfcnt are\n"
    "refused (the legacy vinstr reader is not driven live). Ctrl-C or SIGTERM ends the\n"
    "recording with a complete file. Usage errors exit with 1; refusals with 2.",
    {{"device", "PATH", "kbase device node (default /dev/mali0)"},
     {"period", "T", "sampling period, e.g. 1ms (default 1ms)"},
     {"duration", "T", "stop after T (e.g. 1s); default: until Ctrl-C"},
     {"out", "FILE", "the capture file to write"},
     choice_option("output", "csv|json|perfetto|chrome-json|html",
                   "also print rows while recording, as `hwpc mali FILE` prints them (html: "
                   "record, then hwpc report)")},
    0,
    0};

// The recording Ctrl-C or SIGTERM stops.
live::recording* stop_target = nullptr;
extern "C" void on_stop_signal(int) {
  if (stop_target != nullptr) stop_target->stop();
}

// --output: the rows printed while recording, into the writer `hwpc decode
// FILE` / `hwpc mali FILE` would use.
struct printed_rows final : live::recording_rows {
  std::string cmd;
  output::output_choice choice;
  output::text_buffer out{stdout};
  output::made_writer made;

  // The metrics left out and why, before the rows (as decode says them).
  void warn(const capture& c) const {
    if (c.vendor() != hwpc::vendor::intel) return;
    for (const auto& w : c.warnings())
      std::fprintf(stderr, "hwpc %s: %s\n", cmd.c_str(), w.c_str());
  }
  row_writer& start(const row_schema& s, const capture* head) override {
    if (head != nullptr) warn(*head);
    made = output::make_writer(
        choice, out, s, head != nullptr ? head->writer_parts(choice) : output::writer_parts{});
    return *made.writer;
  }
  bool from_file() const override {
    return choice.kind == output::writer_kind::perfetto ||
           choice.kind == output::writer_kind::chrome_json;
  }
  result<accounting> write_file(capture& c) override {
    warn(c);
    write_options w;
    w.choice = choice;
    return c.write(w, out);
  }
  void progress(const accounting&, std::size_t) override { out.flush(); }
};

int record(const command_spec& spec, live::record_vendor vendor,
           const std::vector<std::string>& args) {
  const std::string_view cmd = spec.name;
  int status = exit_ok;
  auto a = parse(spec, args, status);
  if (!a) return status;
  live::recording_options o;
  o.vendor = vendor;
  o.out = a->get("out");
  if (!o.out) return fail(cmd, "--out FILE is required", exit_usage);
  o.device = a->get("device");
  o.format = a->get("format");
  o.metrics = a->get("metrics");
  o.set = a->get("set");
  o.set_id = a->number("set-id");
  o.exponent = a->number("exponent");
  o.ctx = a->number("ctx");
  for (const auto& [key, bare] :
       {std::pair{"period", std::uint64_t{1}}, {"duration", 1'000'000'000}}) {
    if (auto t = a->get(key)) {
      auto ns = live::parse_time_ns(*t, bare);
      if (!ns) {
        return fail(cmd,
                    std::string("--") + key + ": expected a time such as " +
                        (bare == 1 ? "1ms" : "1s or 500ms") + ", not '" + *t + "'",
                    exit_usage);
      }
      (std::string_view(key) == "period" ? o.period_ns : o.duration_ns) = *ns;
    }
  }
  const pipeline::spelling sp{pipeline::door::tool};
  printed_rows rows;
  rows.cmd = std::string(cmd);
  if (auto out = a->get("output")) {
    auto choice = output::check_output(*out, false,
                                       vendor == live::record_vendor::mali ? "sample" : "interval",
                                       ::isatty(STDOUT_FILENO) != 0);
    if (!choice) return fail(cmd, choice.error_value().message, exit_usage);
    if (choice->kind == output::writer_kind::html) {
      return fail(cmd,
                  "--output html is a report of a finished capture: record with --out, then run "
                  "`hwpc report FILE`",
                  exit_usage);
    }
    rows.choice = *choice;
    o.per_instance = choice->kind == output::writer_kind::perfetto;  // as hwpc mali does
  }
  auto rec = live::recording::make(o, sp);
  if (!rec) return fail(cmd, rec.error_value().message, exit_usage);
  stop_target = rec->get();
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  auto done = (*rec)->run(a->get("output") ? &rows : nullptr);
  stop_target = nullptr;
  rows.out.flush();
  if (!done) {
    return fail(cmd, done.error_value().message,
                is_usage(done.error_value()) ? exit_usage : exit_bad_input);
  }
  if (done->rows && done->rows->anything_dropped()) {
    std::fprintf(stderr, "hwpc %s: %s: %s\n", rows.cmd.c_str(), o.out->c_str(),
                 output::describe(*done->rows).c_str());
  }
  for (const auto& line : done->lines(*o.out, sp)) {
    std::fprintf(stderr, "hwpc %s: %s\n", rows.cmd.c_str(), line.c_str());
  }
  return exit_ok;
}

}  // namespace

int cmd_record(const std::vector<std::string>& args) {
  const std::vector<std::string> rest(args.empty() ? args.begin() : args.begin() + 1, args.end());
  if (!args.empty() && args[0] == "intel")
    return record(intel_spec, live::record_vendor::intel, rest);
  if (!args.empty() && args[0] == "mali") return record(mali_spec, live::record_vendor::mali, rest);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::printf(
        "usage: hwpc record intel [options] --out FILE\n"
        "       hwpc record mali [options] --out FILE\n\n"
        "Live capture from the kernel: an i915 perf or Xe observation OA stream into an IGT\n"
        "recording, or an Arm kbase kinstr_prfcnt session into an hwpc Mali capture file. See\n"
        "`hwpc record intel --help`, `hwpc record mali --help` and docs/record.md.\n");
    return exit_ok;
  }
  return fail("record", "expected `intel` or `mali` (see hwpc record --help)", exit_usage);
}

}  // namespace hwpc::cli
