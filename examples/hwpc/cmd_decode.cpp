// hwpc decode: per-interval counter deltas of an Intel OA capture (raw
// reports, an i915 or Xe stream, an i915 or Xe recording) as CSV, JSON, a
// Perfetto trace (native or Chrome trace-event JSON) or an HTML report, or
// the totals over the whole capture (--summary).
//
// The pipeline is the library's (pipeline/intel_capture.hpp): this door
// parses the options, opens the capture, writes it, and maps errors to exit
// statuses (a usage error 1, bad input 2). A Mali or Adreno capture is handed
// to its own command.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "hwpc/pipeline/intel_default_capture.hpp"
#include "hwpc/pipeline/mapped_file.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
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
     {"input-kind", "KIND",
      "raw (back-to-back reports; the default), i915-stream (perf read() records), "
      "xe-stream (Xe OA read() data) or recording (i915-perf-recorder file; detected without "
      "the flag)"},
     {"xe-loss", "OFFSET:STATUS",
      "xe-stream: a failed read() at byte OFFSET with drm_xe_oa_stream_status bits STATUS", true},
     {"unverified-layouts", "", "decode Xe layouts that are inferred, not read in any source"},
     {"output", "FMT", "csv (default), json, perfetto (native trace), chrome-json or html"},
     {"perfetto-layout", "LAYOUT",
      "--output perfetto: gpu-counters (default; GPU counter packets) or track-event (the older "
      "generic counter tracks)"},
     {"summary", "", "print the totals over the capture as one row"},
     {"context", "ID", "keep only intervals that ran in this context (decimal or 0x hex; Gen8+)"},
     {"threads", "N", "threads for --summary of raw input (default: every core)"},
     {"metrics", "FILE.xml",
      "Intel metric XML file (e.g. ../shared/data/intel-metrics/oa-hsw.xml)"},
     {"set", "SYMBOL",
      "metric set of --metrics to compute (e.g. RenderBasic; a recording names its own)"},
     {"device-var", "NAME=VALUE", "a device variable for the formulas (e.g. EuCoresTotalCount=24)",
      true},
     {"arithmetic", "mdapi|igt",
      "--metrics: integer products and quotients used as doubles: exact, as Intel's "
      "metrics-discovery (default), or truncated, as IGT (see docs/expressions.md)"},
     {"definitions", "file|mdapi|newer",
      "--metrics: a set metrics-discovery also defines computes from the file's formulas, from "
      "metrics-discovery's where they compute what the file's do (default), or from "
      "metrics-discovery's everywhere, adding the metrics only it defines; mdapi and newer "
      "need --arithmetic mdapi, the arithmetic of those formulas (see docs/expressions.md)"}},
    0,
    1024};

const pipeline::spelling tool_spelling{pipeline::door::tool};

// What the door reads beyond the library's options: the output and the FILEs.
struct decode_options {
  intel::open_options open;
  std::string output = "csv";
  output::output_choice choice;  // --output and --summary, checked
  output::perfetto::trace_layout layout = output::perfetto::trace_layout::gpu_counters;
  std::vector<std::string> files;  // none: the embedded default capture; several: one trace
};

int usage(const std::string& message) { return fail("decode", message, exit_usage); }

// The library's errors carry the whole line (pipeline/intel_capture.hpp).
int library_fail(const error& e) {
  return fail("decode", e.message, is_usage(e) ? exit_usage : exit_bad_input);
}

// The text of the options, parsed; the library checks what they mean.
int read_options(const parsed_args& a, decode_options& o) {
  intel::open_options& io = o.open;
  io.platform = a.get("platform");
  io.format = a.get("format");
  io.input_kind = a.get("input-kind");
  if (auto out = a.get("output")) o.output = *out;
  io.summary = a.has("summary");
  // The one check of the output options every command shares (output/make_writer.hpp).
  auto choice =
      output::check_output(o.output, io.summary, "interval", ::isatty(STDOUT_FILENO) != 0);
  if (!choice) return usage(choice.error_value().message);
  o.choice = *choice;
  if (auto ctx = a.get("context")) {
    io.context = intel::parse_format_number(*ctx);  // decimal or 0x hex
    if (!io.context) return usage("--context needs a 32-bit number, not '" + *ctx + "'");
  }
  if (auto t = a.get("threads")) {
    const auto n = intel::parse_format_number(*t);
    if (!n || *n == 0 || *n > 1024) {
      return usage("--threads needs a number from 1 to 1024, not '" + *t + "'");
    }
    io.threads = *n;
  }
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
  io.metrics = a.get("metrics");
  io.set = a.get("set").value_or("");
  io.arithmetic = a.get("arithmetic");
  io.definitions = a.get("definitions");
  for (const auto& dv : a.all("device-var")) {
    auto v = pipeline::parse_device_var(dv);
    if (!v && io.metrics)
      return usage("--device-var needs NAME=VALUE with a number, not '" + dv + "'");
    // Without --metrics the library refuses every --device-var, well formed or not.
    io.device_vars[v ? v->first : dv] = v ? v->second : expr::value{};
  }
  io.unverified_layouts = a.has("unverified-layouts");
  for (const auto& l : a.all("xe-loss")) {
    const auto loss = intel::parse_xe_loss(l);
    if (!loss) return usage("--xe-loss needs OFFSET:STATUS (numbers), not '" + l + "'");
    io.xe_losses.push_back(*loss);
  }
  // Every check of the options and their combinations is the library's.
  if (auto c = intel::check(io, tool_spelling); !c) return library_fail(c.error_value());
  return exit_ok;
}

// A capture of another vendor, found by the library's identify()
// (pipeline/identify.hpp): its own command reads it, with the options every
// vendor shares (--output, --summary). Null when FILE is Intel's (or unreadable).
std::optional<int> other_vendor(const decode_options& o, const std::string& file,
                                const parsed_args& a, bool in_fleet) {
  const intel::open_options& io = o.open;
  if (file.empty() || io.platform || io.format || io.input_kind) return std::nullopt;
  auto f = pipeline::mapped_file::open(file);
  if (!f) return std::nullopt;
  const identity id = identify(f->bytes());
  if (id.vendor != vendor::mali && id.vendor != vendor::adreno) return std::nullopt;
  if (io.metrics || io.context || io.threads != 0 || !io.device_vars.empty() ||
      io.unverified_layouts || !io.xe_losses.empty() || a.has("arithmetic") ||
      a.has("definitions")) {
    return usage(file + " is " + std::string(to_string(id.vendor)) + " (" + id.why +
                 "): --metrics, --set, --device-var, --arithmetic, --definitions, --context, "
                 "--threads, --unverified-layouts and --xe-loss are Intel OA options");
  }
  if (in_fleet) {
    return usage(file + " is " + std::string(to_string(id.vendor)) +
                 ": a trace of several FILEs holds Intel OA captures; write this one alone");
  }
  std::vector<std::string> args{file, "--output", o.output};
  if (io.summary) args.emplace_back("--summary");
  if (auto l = a.get("perfetto-layout")) {
    args.emplace_back("--perfetto-layout");
    args.emplace_back(*l);
  }
  return id.vendor == vendor::mali ? cmd_mali(args) : cmd_adreno(args);
}

int decode_one(const decode_options& o, const std::string& file, const parsed_args& a,
               output::perfetto::fleet_writer* fleet) {
  if (auto st = other_vendor(o, file, a, fleet != nullptr)) return *st;
  intel::open_options io = o.open;
  std::optional<capture_source> src;
  if (file.empty()) {
    auto d = intel::make_default_capture(std::move(io), tool_spelling);
    if (!d) return library_fail(d.error_value());
    src.emplace(std::move(d->source));
    io = std::move(d->options);
  } else {
    auto m = capture_source::map(file);
    if (!m) {
      // Options the user got wrong are reported before an unreadable input.
      if (auto u = intel::check_unreadable(io, tool_spelling)) return library_fail(*u);
      return fail("decode", m.error_value().message, exit_bad_input);
    }
    src.emplace(std::move(*m));
  }
  progress bar(src->bytes().size());
  io.progress = [&bar](std::size_t offset) { bar.update(offset); };
  auto cap = intel::open(std::move(*src), std::move(io), tool_spelling);
  if (!cap) return library_fail(cap.error_value());
  for (const std::string& w : (*cap)->warnings()) fail("decode", w, exit_ok);
  output::text_buffer out(stdout);
  const auto acc = (*cap)->write(write_options{o.choice, o.layout, fleet}, out);
  bar.finish();
  out.flush();
  if (const auto& w = (*cap)->written(); w && w->anything_dropped()) {
    const std::string name = file.empty() ? "(default capture)" : file;
    fail("decode", name + ": " + output::describe(*w), exit_ok);
  }
  return acc ? exit_ok : library_fail(acc.error_value());
}

}  // namespace

int cmd_decode(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto parsed = parse(decode_spec, args, status);
  if (!parsed) return status;
  decode_options o;
  if (const int st = read_options(*parsed, o); st != exit_ok) return st;
  if (o.files.size() <= 1)
    return decode_one(o, o.files.empty() ? "" : o.files[0], *parsed, nullptr);
  // A fleet: each FILE decoded as alone, into one trace (read_options has
  // refused every other output).
  output::perfetto::fleet_writer fleet;
  for (const std::string& f : o.files) {
    if (const int st = decode_one(o, f, *parsed, &fleet); st != exit_ok) return st;
  }
  return exit_ok;
}

}  // namespace hwpc::cli
