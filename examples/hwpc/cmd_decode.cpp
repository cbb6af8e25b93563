// hwpc decode: per-interval counter deltas of a capture, as CSV, JSON, a
// Perfetto trace (native or Chrome trace-event JSON) or an HTML report, or
// the totals over the whole capture (--summary).
//
// Three input kinds go through the same capture-event path (capture.hpp):
// raw back-to-back reports, an i915 perf read() stream, and an IGT recording
// (recognised by its leading VERSION record, with platform and format from
// its DEVICE_INFO). Losses in the input become rows of their own; no delta is
// ever computed across one. Files are memory-mapped, never copied.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/emu/default_capture.hpp"
#include "hwpc/emu/set_model.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/input_kind.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/xml_loader.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/intel_totals.hpp"
#include "hwpc/pipeline/mapped_file.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
#include "hwpc/pipeline/metric_rows.hpp"
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

using intel::input_kind;

struct decode_options {
  std::optional<intel::platform> plat;
  std::optional<std::string> format_name;
  std::optional<input_kind> kind;
  std::string output = "csv";
  bool summary = false;
  output::output_choice choice;  // --output and --summary, checked
  std::optional<std::uint32_t> context;
  unsigned threads = 0;            // --threads; 0: every core
  std::string file;                // empty: the embedded default capture
  std::vector<std::string> files;  // several: one Perfetto trace, a GPU per capture
  output::perfetto::trace_layout trace_layout = output::perfetto::trace_layout::gpu_counters;
  std::optional<std::string> metrics_file;
  expr::arithmetic arithmetic = expr::arithmetic::mdapi;
  metrics::mdapi::definitions definitions = metrics::mdapi::definitions::mdapi;
  std::string metric_set;
  metrics::device_values device_overrides;
  bool unverified = false;                       // --unverified-layouts
  std::vector<intel::xe_stream_loss> xe_losses;  // --xe-loss
};

// What the capture is, once the input has been looked at.
struct capture_info {
  const intel::report_format* format = nullptr;
  const intel::xe_format* xe = nullptr;  // the Xe driver's row, when the format is one
  intel::platform plat{};
  input_kind kind = input_kind::raw;
  std::uint64_t frequency = 0;                    // TIME_STAMP Hz
  const intel::time_correlation* time = nullptr;  // recordings only
  intel::row_options rows;                        // --context
};

// Prints where every record went when something did not become a row.
void report_accounting(const std::string& file, const accounting& acc) {
  if (!acc.anything_dropped()) return;
  std::fprintf(stderr, "hwpc decode: %s: %s\n", file.c_str(), output::describe(acc).c_str());
}

// Raw totals without a context filter: the library's one way to total them
// (pipeline/intel_totals.hpp, which hwpc.intel.decode(summary=True) calls too).
accounting write_raw_summary(output::text_buffer& out, const row_schema& schema,
                             metrics::row_metrics* m, const intel::report_buffer& buf,
                             intel::generation gen, bool json, unsigned threads) {
  const intel::raw_totals r = intel::total_raw(buf, gen, m, threads);
  output::write_totals(out, schema, json, r.totals, r.acc.anything_dropped() ? &r.acc : nullptr);
  return r.acc;
}

// Feeds every row of `src` to the writer, metrics filled in on the way, a
// block of rows at a time (metric_rows.hpp). `per_row_metrics` is false for
// the summary writer, which computes its metrics from the totals and never
// reads a row's.
template <class Source>
accounting drive(const Source& src, const capture_info& c, metrics::row_metrics* m,
                 bool per_row_metrics, output::row_writer& w, std::size_t total_bytes,
                 std::size_t counter_columns) {
  progress bar(total_bytes);
  std::optional<pipeline::metric_rows> held;
  if (m != nullptr && per_row_metrics) held.emplace(*m, counter_columns, w);
  const accounting acc = intel::for_each_row(
      src, intel::generation_of(c.plat), c.rows,
      [&](row& r) {
        if (held) {
          held->add(r);
        } else {
          w.write(r);
        }
      },
      [&](std::size_t offset) { bar.update(offset); });
  if (held) held->flush();
  bar.finish();
  w.end(acc);
  return acc;
}

// The first row of `src` whose begin or end the correlation points cannot
// turn into a CPU time (before 0 or past INT64_MAX ns): the error names that
// report's record. Checked before a writer prints anything, so a trace never
// carries a negative, saturated or wrapped time.
template <class Source>
std::optional<error> first_time_outside(const Source& src, const capture_info& c,
                                        const intel::time_correlation& t) {
  std::optional<error> bad;
  intel::for_each_row(
      src, intel::generation_of(c.plat), c.rows,
      [&](row& r) {
        if (bad || r.lost) return;
        for (const std::uint64_t ticks : {r.begin, r.end}) {
          auto at = t.checked_cpu(ticks, r.offset);
          if (!at) {
            bad = at.error_value();
            return;
          }
        }
      },
      [](std::size_t) {});
  return bad;
}

std::optional<std::uint32_t> parse_u32(const std::string& s) {
  std::uint32_t v = 0;
  int base = 10;
  std::size_t at = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    at = 2;
  }
  auto r = std::from_chars(s.data() + at, s.data() + s.size(), v, base);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size() || at == s.size()) return std::nullopt;
  return v;
}

std::optional<decode_options> read_options(const parsed_args& a, int& status) {
  decode_options o;
  status = exit_usage;
  if (auto plat = a.get("platform")) {
    o.plat = intel::platform_from_name(*plat);
    if (!o.plat) {
      fail("decode", "unknown platform '" + *plat + "'", exit_usage);
      return std::nullopt;
    }
  }
  o.format_name = a.get("format");
  if (auto kind = a.get("input-kind")) {
    o.kind = intel::parse_input_kind(*kind);
    if (!o.kind) {
      fail("decode",
           "unknown --input-kind '" + *kind + "' (" + std::string(intel::input_kind_names) + ")",
           exit_usage);
      return std::nullopt;
    }
  }
  if (auto out = a.get("output")) o.output = *out;
  o.summary = a.has("summary");
  // The one check of the output options every command shares (output/make_writer.hpp).
  auto choice = output::check_output(o.output, o.summary, "interval", ::isatty(STDOUT_FILENO) != 0);
  if (!choice) {
    fail("decode", choice.error_value().message, exit_usage);
    return std::nullopt;
  }
  o.choice = *choice;
  if (auto ctx = a.get("context")) {
    o.context = parse_u32(*ctx);
    if (!o.context) {
      fail("decode", "--context needs a 32-bit number, not '" + *ctx + "'", exit_usage);
      return std::nullopt;
    }
  }
  if (auto t = a.get("threads")) {
    const auto n = parse_u32(*t);
    if (!n || *n == 0 || *n > 1024) {
      fail("decode", "--threads needs a number from 1 to 1024, not '" + *t + "'", exit_usage);
      return std::nullopt;
    }
    o.threads = *n;
    if (!o.summary || o.context) {
      fail("decode",
           "--threads splits the totals of --summary over raw reports (without --context): add "
           "--summary or drop --threads",
           exit_usage);
      return std::nullopt;
    }
  }
  if (!a.positional.empty()) o.file = a.positional[0];
  o.files = a.positional;
  if (auto l = a.get("perfetto-layout")) {
    auto v = output::check_perfetto_layout(o.choice, *l);
    if (!v) {
      fail("decode", v.error_value().message, exit_usage);
      return std::nullopt;
    }
    o.trace_layout = *v;
  }
  if (o.files.size() > 1 && (o.choice.kind != output::writer_kind::perfetto || o.summary ||
                             o.trace_layout != output::perfetto::trace_layout::gpu_counters)) {
    fail("decode",
         "several FILEs make one trace: they need --output perfetto (gpu-counters layout, no "
         "--summary); decode one FILE at a time otherwise",
         exit_usage);
    return std::nullopt;
  }
  o.metrics_file = a.get("metrics");
  if (auto set = a.get("set")) o.metric_set = *set;
  if (!o.metrics_file && !o.metric_set.empty()) {
    fail("decode", "--set needs --metrics FILE.xml", exit_usage);
    return std::nullopt;
  }
  if (!o.metrics_file && a.has("device-var")) {
    fail("decode",
         "--device-var gives a metric formula a value: it needs --metrics FILE.xml (and --set)",
         exit_usage);
    return std::nullopt;
  }
  if (!o.metrics_file && a.has("arithmetic")) {
    fail("decode", "--arithmetic chooses how metric formulas compute: it needs --metrics FILE.xml",
         exit_usage);
    return std::nullopt;
  }
  if (auto ar = a.get("arithmetic")) {
    const auto v = expr::parse_arithmetic(*ar);
    if (!v) {
      fail("decode", "--arithmetic must be mdapi or igt, not '" + *ar + "'", exit_usage);
      return std::nullopt;
    }
    o.arithmetic = *v;
  }
  if (!o.metrics_file && a.has("definitions")) {
    fail("decode",
         "--definitions chooses which formulas a metric set computes from: it needs --metrics "
         "FILE.xml",
         exit_usage);
    return std::nullopt;
  }
  if (auto d = a.get("definitions")) {
    const std::string why = metrics::mdapi::definitions_refusal(*d, o.arithmetic);
    if (!why.empty()) {
      fail("decode", "--definitions " + why, exit_usage);
      return std::nullopt;
    }
    o.definitions = *metrics::mdapi::parse_definitions(*d);
  }
  for (const auto& dv : a.all("device-var")) {
    auto v = pipeline::parse_device_var(dv);
    if (!v) {
      fail("decode", "--device-var needs NAME=VALUE with a number, not '" + dv + "'", exit_usage);
      return std::nullopt;
    }
    o.device_overrides[v->first] = v->second;
  }
  o.unverified = a.has("unverified-layouts");
  for (const auto& l : a.all("xe-loss")) {
    const auto colon = l.find(':');
    std::optional<std::uint32_t> at, bits;
    if (colon != std::string::npos) {
      at = parse_u32(l.substr(0, colon));
      bits = parse_u32(l.substr(colon + 1));
    }
    if (!at || !bits) {
      fail("decode", "--xe-loss needs OFFSET:STATUS (numbers), not '" + l + "'", exit_usage);
      return std::nullopt;
    }
    o.xe_losses.push_back({*at, *bits});
  }
  if (!o.xe_losses.empty() && o.kind != input_kind::xe_stream) {
    fail("decode", "--xe-loss goes with --input-kind xe-stream", exit_usage);
    return std::nullopt;
  }
  status = exit_ok;
  return o;
}

// Platform and format for raw and stream input, which carry neither.
bool resolve_format(const decode_options& o, capture_info& c) {
  if (!o.plat || !o.format_name) {
    fail("decode",
         "--platform and --format are required for raw and i915-stream input (see --help)",
         exit_usage);
    return false;
  }
  c.plat = *o.plat;
  // The i915 table's name, else the Xe driver's (by name or packed OA_FORMAT).
  const intel::resolved_format f =
      intel::resolve_report_format(*o.plat, *o.format_name, o.kind.value_or(input_kind::raw));
  c.format = f.format;
  c.xe = f.xe;
  if (c.xe != nullptr && !c.xe->verified && !o.unverified) {
    fail("decode",
         "the Xe layout " + std::string(c.xe->name) + " is not verified (" +
             std::string(c.xe->evidence) + "); --unverified-layouts decodes it anyway",
         exit_usage);
    return false;
  }
  if (c.format == nullptr) {
    const std::string p(intel::name_of(*o.plat));
    fail("decode",
         "platform " + p + " has no report format '" + *o.format_name +
             "' (see hwpc formats --platform " + p + ")",
         exit_usage);
    return false;
  }
  return true;
}

const char* kind_name(input_kind k) {
  switch (k) {
    case input_kind::raw:
      return "raw reports";
    case input_kind::i915_stream:
      return "i915 perf stream";
    case input_kind::xe_stream:
      return "Xe OA stream";
    case input_kind::recording:
      return "recording";
  }
  return "";
}

// What the HTML report says about an Intel capture, beside what its rows tell.
output::html::report_options report_facts(const decode_options& o, const capture_info& c,
                                          const intel::recording* rec,
                                          const std::optional<metrics::intel_device>& emulated) {
  output::html::report_options r;
  r.title = "hwpc report: " + o.file;
  r.metric_group = o.metric_set;
  auto fact = [&](std::string name, std::string value) {
    r.facts.push_back({std::move(name), std::move(value)});
  };
  fact("vendor", "Intel (OA unit)");
  fact("platform", std::string(intel::name_of(c.plat)));
  fact("format",
       std::string(c.format->name) + ", " + std::to_string(c.format->size) + "-byte reports");
  auto topology = [](const metrics::intel_device& d) {
    return "slices " + std::to_string(std::popcount(d.slice_mask)) + ", subslices " +
           std::to_string(std::popcount(d.subslice_mask)) + ", EUs " + std::to_string(d.eu_count);
  };
  if (rec != nullptr) {
    const intel::device_info& d = rec->device();
    std::string dev = "PCI id " + to_hex(d.device_id) + " rev " + std::to_string(d.device_revision);
    if (d.gt_max_frequency != 0) {
      dev += ", GT " + std::to_string(d.gt_min_frequency / 1'000'000) + "-" +
             std::to_string(d.gt_max_frequency / 1'000'000) + " MHz";
    }
    const metrics::intel_device md = metrics::device_of(*rec);
    if (md.has_topology()) dev += ", " + topology(md);
    fact("device", dev);
    if (!d.metric_set_name.empty()) fact("recorded metric set", std::string(d.metric_set_name));
  } else if (emulated) {
    fact("device", "emulated (the built-in OA unit emulator): " + topology(*emulated));
  } else {
    fact("device", "not in the input (raw reports and streams carry no device information)");
  }
  fact("input", (emulated ? std::string("the embedded default capture") : o.file) + " (" +
                    kind_name(c.kind) + ")");
  if (o.metrics_file) fact("metrics", o.metric_set + " of " + *o.metrics_file);
  if (o.context) fact("context filter", to_hex(*o.context));
  return r;
}

int decode_one(decode_options o, const parsed_args& a, output::perfetto::fleet_writer* fleet);

}  // namespace

int cmd_decode(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto parsed = parse(decode_spec, args, status);
  if (!parsed) return status;
  auto opt = read_options(*parsed, status);
  if (!opt) return status;
  if (opt->files.size() <= 1) return decode_one(std::move(*opt), *parsed, nullptr);
  // A fleet: each FILE decoded as alone, into one trace (read_options has
  // refused every other output).
  output::perfetto::fleet_writer fleet;
  for (const std::string& f : opt->files) {
    decode_options one = *opt;
    one.file = f;
    if (const int st = decode_one(std::move(one), *parsed, &fleet); st != exit_ok) return st;
  }
  return exit_ok;
}

namespace {

int decode_one(decode_options o, const parsed_args& a, output::perfetto::fleet_writer* fleet) {
  std::optional<decode_options> opt(std::move(o));
  const parsed_args* parsed = &a;

  // A capture of another vendor, found by the library's identify()
  // (pipeline/identify.hpp): its own command reads it, with the options
  // every vendor shares (--output, --summary).
  if (!opt->file.empty() && !opt->plat && !opt->format_name && !opt->kind) {
    if (auto f = pipeline::mapped_file::open(opt->file)) {
      const identity id = identify(f->bytes());
      if (id.vendor == vendor::mali || id.vendor == vendor::adreno) {
        if (opt->metrics_file || opt->context || opt->threads != 0 ||
            !opt->device_overrides.empty() || opt->unverified || !opt->xe_losses.empty() ||
            parsed->has("arithmetic") || parsed->has("definitions")) {
          return fail("decode",
                      opt->file + " is " + std::string(to_string(id.vendor)) + " (" + id.why +
                          "): --metrics, --set, --device-var, --arithmetic, --definitions, "
                          "--context, "
                          "--threads, --unverified-layouts and --xe-loss are Intel OA options",
                      exit_usage);
        }
        if (fleet != nullptr) {
          return fail("decode",
                      opt->file + " is " + std::string(to_string(id.vendor)) +
                          ": a trace of several FILEs holds Intel OA captures; write this one "
                          "alone",
                      exit_usage);
        }
        std::vector<std::string> args{opt->file, "--output", opt->output};
        if (opt->summary) args.emplace_back("--summary");
        if (auto l = parsed->get("perfetto-layout")) {
          args.emplace_back("--perfetto-layout");
          args.emplace_back(*l);
        }
        return id.vendor == vendor::mali ? cmd_mali(args) : cmd_adreno(args);
      }
    }
  }

  // No FILE: the embedded default capture, made by the emulator on the spot,
  // with the device the emulator models.
  std::vector<std::byte> default_bytes;
  std::optional<metrics::intel_device> device;
  if (opt->file.empty()) {
    if (opt->plat || opt->format_name || opt->kind) {
      return fail("decode", "--platform, --format and --input-kind describe a FILE; give one",
                  exit_usage);
    }
    // The set it is decoded with decides where the emulated clock is (HSW
    // MemoryReads reads it from C7, RenderBasic from C2). A set that cannot
    // be found is reported below, where the metric columns are loaded.
    emu::config cfg = emu::default_capture_config();
#ifdef HWPC_HAVE_PUGIXML
    if (opt->metrics_file && !opt->metric_set.empty()) {
      if (auto set = metrics::find_xml_set(*opt->metrics_file, opt->metric_set)) {
        emu::shape_for_set(cfg, *set);
      }
    }
#endif
    emu::default_capture_data d = emu::default_capture(cfg);
    opt->plat = d.cfg.platform;
    opt->format_name = d.cfg.format;
    opt->kind = input_kind::raw;
    opt->file = "(default capture)";
    default_bytes = std::move(d.raw);
    const emu::topology t = emu::topology_of(d.cfg.platform);
    device = metrics::with_topology(metrics::device_of(*opt->plat), t.slices, t.subslices, t.eus);
    device->gt_min_frequency_hz = emu::modelled_gt_min_frequency_hz;
    device->gt_max_frequency_hz = emu::modelled_gt_max_frequency_hz;
  }

  // Usage errors come before the file is opened: a format the platform does
  // not have, or raw/stream input without platform and format.
  capture_info c;
  const bool have_pf = opt->plat && opt->format_name;
  if (have_pf && !resolve_format(*opt, c)) return exit_usage;
  if (!have_pf && opt->kind && *opt->kind != input_kind::recording) {
    resolve_format(*opt, c);
    return exit_usage;
  }

  result<pipeline::mapped_file> file = pipeline::mapped_file{};
  if (default_bytes.empty()) file = pipeline::mapped_file::open(opt->file);
  // Half of --platform/--format is a usage error whatever the file holds;
  // with neither, an unreadable input is reported as such.
  if (!file && !have_pf && !opt->kind && (opt->plat || opt->format_name)) {
    resolve_format(*opt, c);
    return exit_usage;
  }
  if (!file) return fail("decode", file.error_value().message, exit_bad_input);
  const byte_span bytes = default_bytes.empty() ? file->bytes() : byte_span(default_bytes);
  auto bad = [&](const error& e) {
    return fail("decode", opt->file + ": " + e.describe(), exit_bad_input);
  };

  c.kind = opt->kind ? *opt->kind : intel::detect_input_kind(bytes);
  std::optional<intel::recording> rec;
  std::optional<intel::xe_recording> xrec;
  if (c.kind == input_kind::recording && intel::xe_recording::looks_like_xe_recording(bytes)) {
    intel::xe_recording_options ro;
    ro.fallback_platform = opt->plat;
    // An unverified layout is the user's choice (a usage error, as for raw
    // input), not bad input: read it, then ask for the opt-in.
    ro.unverified_layouts = true;
    auto r = intel::xe_recording::make(bytes, ro);
    if (!r) return bad(r.error_value());
    xrec.emplace(std::move(*r));
    if (!xrec->xe().verified && !opt->unverified) {
      return fail("decode",
                  opt->file + ": the recording's Xe layout " + std::string(xrec->xe().name) +
                      " is not verified (" + std::string(xrec->xe().evidence) +
                      "); --unverified-layouts decodes it anyway",
                  exit_usage);
    }
    c.plat = xrec->device_platform();
    c.xe = &xrec->xe();
    c.format = &xrec->format();
    if (opt->format_name && *opt->format_name != c.xe->name) {
      return fail("decode",
                  "--format " + *opt->format_name + " does not match the recording's " +
                      std::string(c.xe->name) + " (its DEVICE_INFO gives the format)",
                  exit_usage);
    }
    c.frequency = xrec->timestamp_frequency();
    c.time = &xrec->time();
    if (opt->metrics_file && opt->metric_set.empty()) {
      opt->metric_set = std::string(xrec->metric_set_name());
    }
  } else if (c.kind == input_kind::recording) {
    intel::recording_options ro;
    ro.fallback_platform = opt->plat;
    auto r = intel::recording::make(bytes, ro);
    if (!r) return bad(r.error_value());
    rec.emplace(std::move(*r));
    c.plat = rec->device_platform();
    c.format = &rec->format();
    if (opt->format_name && !c.format->named(*opt->format_name)) {
      return fail("decode",
                  "--format " + *opt->format_name + " does not match the recording's " +
                      std::string(c.format->name) + " (its DEVICE_INFO gives the format)",
                  exit_usage);
    }
    c.frequency = rec->timestamp_frequency();
    c.time = &rec->time();
    if (opt->metrics_file && opt->metric_set.empty()) {
      opt->metric_set = std::string(rec->device().metric_set_name);
    }
  } else {
    if (!resolve_format(*opt, c)) return exit_usage;
    c.frequency = intel::info(c.plat).timestamp_frequency_hz;
  }
  if (opt->context) {
    if (intel::is_gen7_family(intel::generation_of(c.plat))) {
      return fail("decode",
                  "--context: " + std::string(intel::name_of(c.plat)) +
                      " reports carry no context id (Gen7 filters in hardware, with OACONTROL's "
                      "specific-context mode)",
                  exit_usage);
    }
    c.rows.filter = intel::context_filter::from_reports();
    c.rows.context = *opt->context;
  }

  row_schema schema = intel::schema_of(*c.format, c.plat, c.kind != input_kind::raw, c.frequency);
  std::optional<metrics::row_metrics> columns;
  if (opt->metrics_file && opt->metric_set.empty()) {
    return fail("decode", "--metrics needs --set SYMBOL: the input names no metric set",
                exit_usage);
  }
  if (opt->metrics_file) {
    metrics::intel_device dev = device ? *device
                                : rec  ? metrics::device_of(*rec)
                                : xrec ? metrics::device_of(*xrec)
                                       : metrics::device_of(c.plat);
    if (dev.timestamp_frequency_hz == 0) dev.timestamp_frequency_hz = c.frequency;
    metrics::device_values values = metrics::to_device_values(dev);
    for (const auto& [name, v] : opt->device_overrides) values[name] = v;
    auto m = pipeline::load_metric_columns(*opt->metrics_file, opt->metric_set, schema, values,
                                           opt->arithmetic, opt->definitions);
    if (!m) {
      // A name that the capture or the command line does not supply (a set,
      // a variable, a counter) is a usage error; anything wrong in the file
      // itself (unreadable, malformed, a cycle, a counter without a symbol
      // name) is bad input.
      const bool usage = m.error_value().code == errc::unknown_name;
      return fail("decode", "--metrics: " + m.error_value().describe(),
                  usage ? exit_usage : exit_bad_input);
    }
    bool unvalued = false;
    for (const auto& d : m->dropped()) {
      std::fprintf(stderr, "hwpc decode: --metrics: %s\n", metrics::describe(d).c_str());
      unvalued = unvalued || d.reason.message.find("with no value") != std::string::npos;
    }
    if (unvalued) {
      std::fprintf(stderr,
                   "hwpc decode: --metrics: --device-var NAME=VALUE gives a device variable a "
                   "value\n");
    }
    columns.emplace(std::move(*m));
    schema.metrics = columns->columns();
  }
  metrics::row_metrics* mc = columns ? &*columns : nullptr;

  // CPU times go only into the trace outputs; a recording whose points
  // cannot give one of its reports a CPU time is refused before any output.
  if ((opt->output == "perfetto" || opt->output == "chrome-json") && !opt->summary &&
      c.time != nullptr && !c.time->empty()) {
    const std::optional<error> outside = xrec  ? first_time_outside(*xrec, c, *c.time)
                                         : rec ? first_time_outside(*rec, c, *c.time)
                                               : std::nullopt;
    if (outside) return bad(*outside);
  }
  output::text_buffer out(stdout);
  const bool json = opt->output == "json";
  output::made_writer made;
  auto choose_writer = [&]() -> output::row_writer& {
    output::writer_parts parts;
    if (mc != nullptr) {
      parts.totals_metrics = [mc](std::span<const std::uint64_t> t, std::uint64_t elapsed,
                                  std::vector<cell>& cells) {
        cells.resize(mc->size());
        mc->evaluate(t, elapsed, cells);
      };
    }
    if (opt->choice.kind == output::writer_kind::html && !opt->summary) {
      parts.report = report_facts(*opt, c, rec ? &*rec : nullptr, device);
    }
    // Traces: CPU CLOCK_MONOTONIC time when a recording correlates it, else GPU time.
    if (c.time != nullptr && !c.time->empty()) {
      const intel::time_correlation* t = c.time;
      parts.to_ns = [t](std::uint64_t ticks) { return t->to_cpu(ticks).ns; };
    }
    parts.title = "hwpc " + std::string(intel::name_of(c.plat)) + " " +
                  std::string(c.format->name) + ": " + opt->file;
    parts.metric_group = opt->metric_set;
    parts.layout = opt->trace_layout;
    parts.vendor = "Intel";
    parts.model = std::string(intel::name_of(c.plat));
    if (c.time != nullptr && !c.time->empty()) {
      parts.correlation = output::perfetto::clock_pairs(c.time->points(), c.frequency);
    }
    parts.fleet = fleet;
    made = output::make_writer(opt->choice, out, schema, std::move(parts));
    return *made.writer;
  };

  const bool per_row = !opt->summary;
  const std::size_t nc = schema.counters.size();
  accounting acc;
  if (opt->threads != 0 && c.kind != input_kind::raw) {
    return fail("decode",
                "--threads splits the totals of raw reports; this input is read in order: drop "
                "--threads",
                exit_usage);
  }
  if (c.kind == input_kind::raw) {
    auto buf = intel::report_buffer::make(bytes, *c.format);
    if (!buf) return bad(buf.error_value());
    if (opt->summary && !c.rows.filter) {
      acc = write_raw_summary(out, schema, mc, *buf, intel::generation_of(c.plat), json,
                              opt->threads);
    } else {
      acc = drive(intel::raw_capture(*buf), c, mc, per_row, choose_writer(), bytes.size(), nc);
    }
  } else if (c.kind == input_kind::xe_stream) {
    auto st = intel::xe_stream::make(bytes, *c.xe, opt->xe_losses);
    if (!st) return bad(st.error_value());
    acc = drive(*st, c, mc, per_row, choose_writer(), bytes.size(), nc);
  } else if (c.kind == input_kind::i915_stream) {
    auto st = intel::i915_stream::make(bytes, *c.format);
    if (!st) return bad(st.error_value());
    c.rows.unknown_records = st->unknown_records();
    acc = drive(*st, c, mc, per_row, choose_writer(), bytes.size(), nc);
  } else if (xrec) {
    c.rows.unknown_records = xrec->unknown_records();
    acc = drive(*xrec, c, mc, per_row, choose_writer(), bytes.size(), nc);
  } else {
    c.rows.unknown_records = rec->unknown_records();
    acc = drive(*rec, c, mc, per_row, choose_writer(), bytes.size(), nc);
  }
  out.flush();
  report_accounting(opt->file, acc);
  // Reports were there but every one has RPT_ID 0, which the OA unit never
  // writes (a zeroed file, a wrong offset): bad input, not an empty table.
  if (acc.reports != 0 && acc.skipped_zero == acc.reports) {
    const char* what = c.format->xe_landed_rule ? " reports have RPT_ID and TIMESTAMP 0"
                                                : " reports have RPT_ID 0";
    return fail("decode",
                opt->file + ": all " + std::to_string(acc.reports) + what +
                    " (slots the OA unit never wrote); nothing to decode",
                exit_bad_input);
  }
  return exit_ok;
}

}  // namespace

}  // namespace hwpc::cli
