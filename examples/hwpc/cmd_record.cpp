// hwpc record: live capture from the kernel. `hwpc record intel` opens an
// i915 perf OA stream or an Xe observation stream and writes the recording
// IGT's i915-perf-recorder or xe-perf-recorder writes; `hwpc record mali`
// opens a kbase kinstr_prfcnt session and writes an hwpc Mali capture file.
// Both run until --duration or Ctrl-C/SIGTERM and end with a complete file.
// The kernel work is the library's (hwpc/live/); this file parses options
// and handles signals.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/kbase_record.hpp"
#include "hwpc/live/record_set.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
#include "record_rows.hpp"
#include "record_xe.hpp"

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

volatile std::sig_atomic_t stop_signal = 0;
extern "C" void on_stop_signal(int) { stop_signal = 1; }

// "1s", "500ms", "100us", "2500ns", "2m"; a bare number is in `bare_unit_ns`.
std::optional<std::uint64_t> parse_time_ns(std::string_view s, std::uint64_t bare_unit_ns) {
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

// Ends at the deadline (if any) or on SIGINT/SIGTERM.
struct stopper {
  std::optional<std::uint64_t> deadline;
  bool operator()() const {
    return stop_signal != 0 || (deadline && live::monotonic_ns() >= *deadline);
  }
};

std::optional<stopper> make_stopper(const parsed_args& a, std::string_view cmd, int& status) {
  stopper s;
  if (auto d = a.get("duration")) {
    auto ns = parse_time_ns(*d, 1'000'000'000);
    if (!ns) {
      status = fail(cmd, "--duration: expected a time such as 1s or 500ms, not '" + *d + "'",
                    exit_usage);
      return std::nullopt;
    }
    s.deadline = live::monotonic_ns() + *ns;
  }
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  return s;
}

struct file_sink {
  std::FILE* f = nullptr;
  std::size_t bytes = 0;
  bool operator()(std::span<const std::byte> b) {
    bytes += b.size();
    return std::fwrite(b.data(), 1, b.size(), f) == b.size() && std::fflush(f) == 0;
  }
};

int record_intel(const std::vector<std::string>& args) {
  const std::string_view cmd = "record intel";
  int status = exit_ok;
  auto a = parse(intel_spec, args, status);
  if (!a) return status;
  const auto out = a->get("out");
  if (!out) return fail(cmd, "--out FILE is required", exit_usage);
  live::i915_record_options o;
  if (auto d = a->get("device")) o.device = *d;
  if (auto f = a->get("format")) o.format = *f;
  if (a->get("metrics") && a->get("set-id")) {
    return fail(cmd, "--metrics and --set-id both name the set: give one", exit_usage);
  }
  if (auto id = a->get("set-id")) {
    auto n = parse_number(*id);
    if (!n || *n == 0) return fail(cmd, "--set-id: the kernel's config id (1 or more)", exit_usage);
    o.set_id = *n;
    o.set_name = a->get("set").value_or("");
  } else if (a->get("metrics")) {
    if (!a->get("set")) return fail(cmd, "--metrics needs --set SYMBOL", exit_usage);
    if (auto ok = live::set_from_metrics(o, *a->get("metrics"), *a->get("set")); !ok) {
      error e = ok.error_value();
      pipeline::say_where_metric_files_come_from(e);
      std::string m = e.describe();
      if (is_usage(e)) m += " (--set-id N)";
      return fail(cmd, "--metrics: " + m, exit_usage);
    }
  } else {
    return fail(cmd, "name the metric set: --metrics FILE.xml --set SYMBOL, or --set-id N",
                exit_usage);
  }
  if (a->get("period") && a->get("exponent")) {
    return fail(cmd, "--period and --exponent both set the sampling period: give one", exit_usage);
  }
  if (auto e = a->get("exponent")) {
    auto n = parse_number(*e);
    if (!n || *n > 31) return fail(cmd, "--exponent: 0..31 (the kernel's range)", exit_usage);
    o.exponent = static_cast<unsigned>(*n);
  } else {
    const auto p = a->get("period").value_or("1ms");
    auto ns = parse_time_ns(p, 1);
    if (!ns) return fail(cmd, "--period: expected a time such as 1ms, not '" + p + "'", exit_usage);
    o.period_ns = *ns;
  }
  if (auto c = a->get("ctx")) {
    auto n = parse_number(*c);
    if (!n || *n > 0xffffffffu) {
      return fail(cmd, "--ctx: a GEM context handle (32 bits)", exit_usage);
    }
    o.ctx = static_cast<std::uint32_t>(*n);
  }
  auto rows = live_rows::check(*a, cmd, status);
  if (!rows) return status;
  auto stop = make_stopper(*a, cmd, status);
  if (!stop) return status;
  if (is_xe_device(o.device)) {
    // An xe-perf recording has no live reader: its rows are written from
    // the file when the recording ends.
    rows->start_intel(*out, false);
    if (const int st = record_intel_xe(o, *out, *stop); st != exit_ok) return st;
    return rows->finish();
  }
  std::FILE* f = std::fopen(out->c_str(), "wb");
  if (f == nullptr) return fail(cmd, "cannot write " + *out, exit_bad_input);
  file_sink file{f};
  rows->start_intel(*out, true);
  auto sink = [&](std::span<const std::byte> b) { return file(b) && rows->take(b); };
  auto counts = live::record_i915(live::real_kernel(), o, sink, *stop);
  const bool closed = std::fclose(f) == 0;
  if (!counts) return fail(cmd, counts.error_value().message, exit_bad_input);
  if (!closed) return fail(cmd, "cannot write " + *out, exit_bad_input);
  if (const int st = rows->finish(); st != exit_ok) return st;
  std::fprintf(stderr,
               "hwpc record intel: %zu reports, %zu OA_REPORT_LOST and %zu OA_BUFFER_LOST "
               "records, %zu bytes to %s\n",
               counts->samples, counts->report_lost, counts->buffer_lost, file.bytes, out->c_str());
  if (counts->report_lost + counts->buffer_lost != 0) {
    std::fprintf(stderr,
                 "hwpc record intel: the kernel lost reports; `hwpc decode` shows each loss as "
                 "a row (a longer --period loses fewer)\n");
  }
  return exit_ok;
}

int record_mali(const std::vector<std::string>& args) {
  const std::string_view cmd = "record mali";
  int status = exit_ok;
  auto a = parse(mali_spec, args, status);
  if (!a) return status;
  const auto out = a->get("out");
  if (!out) return fail(cmd, "--out FILE is required", exit_usage);
  live::mali_record_options o;
  if (auto d = a->get("device")) o.device = *d;
  const auto p = a->get("period").value_or("1ms");
  auto ns = parse_time_ns(p, 1);
  if (!ns) return fail(cmd, "--period: expected a time such as 1ms, not '" + p + "'", exit_usage);
  o.period_ns = *ns;
  auto rows = live_rows::check(*a, cmd, status);
  if (!rows) return status;
  auto stop = make_stopper(*a, cmd, status);
  if (!stop) return status;
  std::FILE* f = std::fopen(out->c_str(), "wb");
  if (f == nullptr) return fail(cmd, "cannot write " + *out, exit_bad_input);
  file_sink file{f};
  rows->start_mali(*out);
  auto sink = [&](std::span<const std::byte> b) { return file(b) && rows->take(b); };
  auto counts = live::record_mali(live::real_kernel(), o, sink, *stop);
  const bool closed = std::fclose(f) == 0;
  if (!counts) return fail(cmd, counts.error_value().message, exit_bad_input);
  if (!closed) return fail(cmd, "cannot write " + *out, exit_bad_input);
  if (const int st = rows->finish(); st != exit_ok) return st;
  std::fprintf(stderr,
               "hwpc record mali: %zu samples (%zu after a ring overflow), %zu bytes to %s\n",
               counts->samples, counts->overflow, file.bytes, out->c_str());
  return exit_ok;
}

}  // namespace

int cmd_record(const std::vector<std::string>& args) {
  const std::vector<std::string> rest(args.empty() ? args.begin() : args.begin() + 1, args.end());
  if (!args.empty() && args[0] == "intel") return record_intel(rest);
  if (!args.empty() && args[0] == "mali") return record_mali(rest);
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
