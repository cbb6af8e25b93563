// hwpc decode: per-interval counter deltas of an Intel OA capture (raw
// reports, an i915 or Xe stream, an i915 or Xe recording) as CSV, JSON, a
// Perfetto trace (native or Chrome trace-event JSON) or an HTML report, or
// the totals over the whole capture (--summary).
//
// The pipeline is the library's (pipeline/intel_capture.hpp): this door
// parses the options, opens the capture, writes it, and maps errors to exit
// statuses (a usage error 1, bad input 2). A Mali or Adreno FILE is opened the
// same way (hwpc::open, pipeline/open.hpp: one vendor rule for every door) and
// prints what hwpc mali FILE / hwpc adreno FILE --output csv print.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capture_door.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/pipeline/intel_default_capture.hpp"
#include "hwpc/pipeline/open.hpp"
#include "options_intel.hpp"
#include "progress.hpp"

namespace hwpc::cli {

namespace {

const command_spec decode_spec{
    "decode",
    "hwpc decode [--platform P] [--format F] [--input-kind raw|i915-stream|xe-stream|recording] "
    "[--xe-loss OFFSET:STATUS]... [--unverified-layouts] [FILE]... "
    "[--output csv|json|perfetto|chrome-json|html] [--perfetto-layout gpu-counters|track-event] "
    "[--summary] [--context ID] [--threads N] "
    "[--metrics FILE.xml [--set SYMBOL] [--device-var NAME=VALUE]...]",
    "Decodes an OA capture; a Mali capture file or an Adreno capture (.rd, gzip, hex text)\n"
    "is recognised from its bytes and read as hwpc mali FILE / hwpc adreno FILE --output csv\n"
    "(with --output and --summary). Each row is one interval: `report` is the 0-based index of "
    "the\n"
    "later report among all the input's reports (the same in a raw file, a stream and a\n"
    "recording, and in `hwpc emulate --truth`), `offset` the byte offset of its record in\n"
    "FILE, `timestamp` its TIME_STAMP extended to 64 bits, then one column per counter\n"
    "(GPU_TICKS, A0.., B0.., C0..) holding the delta over the interval, then `reason`\n"
    "(RPT_ID report reasons) and `ctx_id` (the earlier report's CTX_ID: the context the\n"
    "interval ran in; empty/null when its context-valid bit is clear). Reports with a zero\n"
    "RPT_ID were never written and are skipped (the Xe driver's formats: RPT_ID and\n"
    "TIMESTAMP both zero). Streams and recordings add a `lost` column:\n"
    "a report-lost or buffer-lost record is a row with lost=1, its kind as the reason and\n"
    "empty deltas, and the next report starts afresh (no delta spans a loss). Whenever a\n"
    "record was skipped or lost, stderr (and a last `accounting` object in JSON) says where\n"
    "every record went.\n"
    "A file that starts with a recording VERSION record is read as a recording without\n"
    "--input-kind: type 65536 an i915-perf-recorder file, type 4 an xe-perf-recorder file\n"
    "(Xe driver). Its DEVICE_INFO gives platform and format (--platform is used when the\n"
    "device id is unknown) and the metric set, which --metrics FILE.xml without --set\n"
    "computes. --context keeps the intervals that ran in context ID (Gen8+:\n"
    "the CTX_ID of the earlier report, when its context-valid bit is set).\n"
    "--output perfetto writes a native Perfetto trace (protobuf; redirect stdout to a\n"
    "file.pftrace): GPU counters (Perfetto's GPU > Counters), one per column with its\n"
    "units, grouped as `raw counters` and the metric set, each value over its interval,\n"
    "on CPU CLOCK_MONOTONIC through clock snapshots when a recording correlates it;\n"
    "several Intel FILEs make one trace with a GPU per capture (docs/perfetto.md).\n"
    "--perfetto-layout track-event writes the older generic counter tracks instead.\n"
    "--output chrome-json writes Chrome trace-event JSON: one counter track per counter. --output "
    "html writes the\n"
    "self-contained HTML report of `hwpc report` (docs/report.md).\n"
    "--summary prints one row of totals instead.\n"
    "--metrics FILE.xml --set SYMBOL adds one column per metric of that set of an Intel\n"
    "metric file, computed from each row's deltas (from the totals with --summary).\n"
    "Device variables come from a recording's DEVICE_INFO and topology where it has them,\n"
    "the timestamp frequency from the platform otherwise; --device-var sets or overrides one.\n"
    "Without FILE, the embedded default capture is decoded: HSW A45_B8_C8 reports made by\n"
    "the built-in OA unit emulator (GT2-like topology: 1 slice, 2 subslices, 20 EUs).\n"
    "--input-kind xe-stream reads what read() on an Xe OA stream returns: reports back to\n"
    "back, no record headers. Losses are out of band there (-EIO, then the status ioctl):\n"
    "--xe-loss OFFSET:STATUS marks one at byte OFFSET of FILE with the oa_status bits\n"
    "(0x1 report lost, 0x2 buffer overflow, 0x4 counter overflow, 0x8 MMIO trigger queue\n"
    "full). On Xe platforms --format takes the Xe driver's names (hwpc formats --platform P)\n"
    "or the packed DRM_XE_OA_PROPERTY_OA_FORMAT value (e.g. 0x00010105 for PEC64u64).\n"
    "Layouts the public sources only let us infer are decoded only with\n"
    "--unverified-layouts (hwpc formats marks them).\n"
    "Bad input exits with status 2 and names the byte offset; usage errors exit with 1.",
    {{"platform", "P",
      "platform: snb ivb vlv hsw bdw chv skl bxt kbl glk cfl cnl icl ehl tgl rkl adl dg1 dg2 mtl "
      "lnl bmg ptl"},
     {"format", "F", "report format name or alias (see `hwpc formats --platform P`)"},
     choice_option(
         "input-kind", "raw|i915-stream|xe-stream|recording",
         "raw (back-to-back reports; the default), i915-stream (perf read() records), "
         "xe-stream (Xe OA read() data) or recording (i915-perf-recorder file; detected without "
         "the flag)"),
     {"xe-loss", "OFFSET:STATUS",
      "xe-stream: a failed read() at byte OFFSET with drm_xe_oa_stream_status bits STATUS", true},
     {"unverified-layouts", "", "decode Xe layouts that are inferred, not read in any source"},
     choice_option("output", "csv|json|perfetto|chrome-json|html",
                   "csv (default), json, perfetto (native trace), chrome-json or html"),
     choice_option("perfetto-layout", "gpu-counters|track-event",
                   "--output perfetto: gpu-counters (default; GPU counter packets) or "
                   "track-event (the older generic counter tracks)"),
     {"summary", "", "print the totals over the capture as one row"},
     {"context", "ID", "keep only intervals that ran in this context (decimal or 0x hex; Gen8+)"},
     {"threads", "N", "threads for --summary of raw input (default: every core)"},
     {"metrics", "FILE.xml",
      "Intel metric XML file (e.g. ../shared/data/intel-metrics/oa-hsw.xml)"},
     {"set", "SYMBOL",
      "metric set of --metrics to compute (e.g. RenderBasic; a recording names its own)"},
     {"device-var", "NAME=VALUE", "a device variable for the formulas (e.g. EuCoresTotalCount=24)",
      true},
     choice_option("arithmetic", "mdapi|igt",
                   "--metrics: integer products and quotients used as doubles: exact, as Intel's "
                   "metrics-discovery (default), or truncated, as IGT (see docs/expressions.md)"),
     choice_option(
         "definitions", "file|mdapi|newer",
         "--metrics: a set metrics-discovery also defines computes from the file's formulas, from "
         "metrics-discovery's where they compute what the file's do (default), or from "
         "metrics-discovery's everywhere, adding the metrics only it defines; mdapi and newer "
         "need --arithmetic mdapi, the arithmetic of those formulas (see docs/expressions.md)")},
    0,
    1024};

const pipeline::spelling tool_spelling{pipeline::door::tool};

// What the door reads beyond the library's options: the output and the FILEs.
struct decode_options {
  hwpc::open_options open;       // Intel's options and the format: hwpc::open picks the vendor
  output::output_choice choice;  // --output and --summary, checked
  output::perfetto::trace_layout layout = output::perfetto::trace_layout::gpu_counters;
  std::vector<std::string> files;  // none: the embedded default capture; several: one trace
};

int usage(const std::string& message) { return fail("decode", message, exit_usage); }

// The text of the options, parsed; the library checks what they mean.
int read_options(const parsed_args& a, decode_options& o) {
  intel::open_options& io = o.open.intel;
  if (auto bad = read_intel_options(a, io)) return usage(*bad);
  o.open.format = io.format;
  io.summary = a.has("summary");
  // The one check of the output options every command shares (output/make_writer.hpp).
  auto choice = output::check_output(a.get("output").value_or("csv"), io.summary, "interval",
                                     ::isatty(STDOUT_FILENO) != 0);
  if (!choice) return usage(choice.error_value().message);
  o.choice = *choice;
  // A Mali trace has a track per L2 slice and shader core (as hwpc mali's).
  o.open.mali.per_instance = choice->kind == output::writer_kind::perfetto && !choice->summary;
  o.files = a.positional;
  if (auto l = a.get("perfetto-layout")) {
    auto v = output::check_perfetto_layout(o.choice, *l);
    if (!v) return usage(v.error_value().message);
    o.layout = *v;
  }
  if (o.files.size() > 1 && (o.choice.kind != output::writer_kind::perfetto || io.summary ||
                             o.layout != output::perfetto::trace_layout::gpu_counters)) {
    return usage(
        "several FILEs make one trace: they need --output perfetto (gpu-counters layout, no "
        "--summary); decode one FILE at a time otherwise");
  }
  // Every check of the Intel options and their combinations is the library's
  // (an Adreno format name leaves them to the vendor rule of pipeline/open.hpp).
  if (!o.open.format || !is_adreno_format(*o.open.format)) {
    if (auto c = intel::check(io, tool_spelling); !c) {
      return capture_fail(vendor::intel, "", c.error_value());
    }
  }
  return exit_ok;
}

// FILE (empty: the embedded default capture) opened by hwpc::open, whichever
// vendor's it is (pipeline/open.hpp), and written.
int decode_one(const decode_options& o, const std::string& file,
               output::perfetto::fleet_writer* fleet) {
  hwpc::open_options opts = o.open;
  std::optional<capture_source> src;
  std::optional<identity> id;  // what the bytes are, asked once for both calls below
  vendor chosen = vendor::intel;
  if (file.empty()) {
    auto d = intel::make_default_capture(std::move(opts.intel), tool_spelling);
    if (!d) return capture_fail(vendor::intel, file, d.error_value());
    src.emplace(std::move(d->source));
    opts.intel = std::move(d->options);
    opts.format = opts.intel.format;
    opts.vendor = vendor::intel;
  } else {
    auto m = capture_source::map(file);
    if (!m) {
      // Options the user got wrong are reported before an unreadable input.
      if (auto u = intel::check_unreadable(opts.intel, tool_spelling)) {
        return capture_fail(vendor::intel, file, *u);
      }
      return fail("decode", m.error_value().message, exit_bad_input);
    }
    src.emplace(std::move(*m));
    id = identify(src->bytes());
    auto v = choose_vendor(*id, file, opts, tool_spelling);
    if (!v) return usage(v.error_value().message);
    chosen = *v;
    if (*v != vendor::intel && fleet != nullptr) {
      return usage(file + " is " + std::string(to_string(*v)) +
                   ": a trace of several FILEs holds Intel OA captures; write this one alone");
    }
  }
  progress bar(src->bytes().size());
  opts.intel.progress = [&bar](std::size_t offset) { bar.update(offset); };
  auto cap = id ? hwpc::open(std::move(*src), opts, tool_spelling, *id)
                : hwpc::open(std::move(*src), opts, tool_spelling);
  if (!cap) return capture_fail(chosen, file, cap.error_value());
  output::text_buffer out(stdout);
  return write_capture(**cap, file, write_options{o.choice, o.layout, fleet}, out,
                       [&bar] { bar.finish(); });
}

}  // namespace

int cmd_decode(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto parsed = parse(decode_spec, args, status);
  if (!parsed) return status;
  decode_options o;
  if (const int st = read_options(*parsed, o); st != exit_ok) return st;
  if (o.files.size() <= 1) return decode_one(o, o.files.empty() ? "" : o.files[0], nullptr);
  // A fleet: each FILE decoded as alone, into one trace (read_options has
  // refused every other output).
  output::perfetto::fleet_writer fleet;
  for (const std::string& f : o.files) {
    if (const int st = decode_one(o, f, &fleet); st != exit_ok) return st;
  }
  return exit_ok;
}

}  // namespace hwpc::cli
