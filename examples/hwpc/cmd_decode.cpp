// hwpc decode: per-interval counter deltas of a capture, as CSV, JSON or a
// Perfetto (Chrome trace-event JSON) trace, or the totals over the whole
// capture (--summary).
//
// Three input kinds go through the same capture-event path (capture.hpp):
// raw back-to-back reports, an i915 perf read() stream, and an IGT recording
// (recognised by its leading VERSION record, with platform and format from
// its DEVICE_INFO). Losses in the input become rows of their own; no delta is
// ever computed across one. Files are memory-mapped, never copied.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/emu/default_capture.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "mapped_file.hpp"
#include "metric_columns.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace hwpc::cli {

namespace {

const command_spec decode_spec{
    "decode",
    "hwpc decode [--platform P] [--format F] [--input-kind raw|i915-stream|recording] [FILE] "
    "[--output csv|json|perfetto] [--summary] [--context ID] [--threads N] "
    "[--metrics FILE.xml --set SYMBOL [--device-var NAME=VALUE]...]",
    "Decodes an OA capture. Each row is one interval: `report` is the index of the later\n"
    "report (its slot in a raw file, its record number in a stream or recording),\n"
    "`timestamp` its TIME_STAMP extended to 64 bits, then one column per counter\n"
    "(GPU_TICKS, A0.., B0.., C0..) holding the delta over the interval, then `reason`\n"
    "(RPT_ID report reasons) and `ctx_id`. Reports with a zero RPT_ID were never written\n"
    "and are skipped. Streams and recordings add a `lost` column: a report-lost,\n"
    "buffer-lost or overflow record is a row with lost=1, its kind as the reason and empty\n"
    "deltas, and the next report starts afresh (no delta spans a loss).\n"
    "A file that starts with a recording VERSION record is read as a recording without\n"
    "--input-kind; its DEVICE_INFO gives platform and format (--platform is used when the\n"
    "device id is unknown). --context keeps the intervals that ran in context ID (Gen8+:\n"
    "the CTX_ID of the earlier report, when its context-valid bit is set).\n"
    "--output perfetto writes Chrome trace-event JSON for ui.perfetto.dev: one counter\n"
    "track per counter, at CPU time when a recording correlates it, else GPU time.\n"
    "--summary prints one row of totals instead.\n"
    "--metrics FILE.xml --set SYMBOL adds one column per metric of that set of an Intel\n"
    "metric file, computed from each row's deltas (from the totals with --summary).\n"
    "Device variables come from a recording's DEVICE_INFO and topology where it has them,\n"
    "the timestamp frequency from the platform otherwise; --device-var sets or overrides one.\n"
    "Without FILE, the embedded default capture is decoded: HSW A45_B8_C8 reports made by\n"
    "the built-in OA unit emulator (GT2-like topology: 1 slice, 2 subslices, 20 EUs).\n"
    "Bad input exits with status 2 and names the byte offset; usage errors exit with 1.",
    {{"platform", "P",
      "platform: snb ivb vlv hsw bdw chv skl bxt kbl glk cfl cnl icl ehl tgl rkl adl dg1 dg2 mtl"},
     {"format", "F", "report format name or alias (see `hwpc formats --platform P`)"},
     {"input-kind", "KIND",
      "raw (back-to-back reports; the default), i915-stream (perf read() records) or "
      "recording (i915-perf-recorder file; detected without the flag)"},
     {"output", "FMT", "csv (default), json or perfetto"},
     {"summary", "", "print the totals over the capture as one row"},
     {"context", "ID", "keep only intervals that ran in this context (decimal or 0x hex; Gen8+)"},
     {"threads", "N", "threads for --summary of raw input (default: every core)"},
     {"metrics", "FILE.xml",
      "Intel metric XML file (e.g. ../shared/data/intel-metrics/oa-hsw.xml)"},
     {"set", "SYMBOL", "metric set of --metrics to compute (e.g. RenderBasic)"},
     {"device-var", "NAME=VALUE", "a device variable for the formulas (e.g. EuCoresTotalCount=24)",
      true}},
    0,
    1};

enum class input_kind { raw, stream, recording };

struct decode_options {
  std::optional<intel::platform> plat;
  std::optional<std::string> format_name;
  std::optional<input_kind> kind;
  std::string output = "csv";
  bool summary = false;
  std::optional<std::uint32_t> context;
  unsigned threads = 0;  // --threads; 0: every core
  std::string file;      // empty: the embedded default capture
  std::optional<std::string> metrics_file;
  std::string metric_set;
  metrics::device_values device_overrides;
};

// What the writers need to know about the capture.
struct capture_info {
  const intel::report_format* format = nullptr;
  intel::platform plat{};
  input_kind kind = input_kind::raw;
  std::uint64_t frequency = 0;                    // TIME_STAMP Hz
  const intel::time_correlation* time = nullptr;  // recordings only
  std::optional<intel::context_filter> filter;    // --context
  std::uint32_t context = 0;
  metric_columns* metrics = nullptr;  // --metrics
};

// Column names shared by the CSV header, the JSON keys and the summary.
std::vector<std::string> counter_names(const intel::report_format& f) {
  std::vector<std::string> names;
  for (const intel::field* fd : intel::counter_list(f)) names.emplace_back(fd->name);
  return names;
}

// Writes a time in nanoseconds as microseconds with three decimals.
void write_us(out_buffer& out, std::int64_t ns) {
  if (ns < 0) {
    out << '-';
    ns = -ns;
  }
  const auto u = static_cast<std::uint64_t>(ns);
  out << u / 1000 << '.';
  const auto frac = u % 1000;
  if (frac < 100) out << '0';
  if (frac < 10) out << '0';
  out << frac;
}

// Receives the decoded stream in order.
class sink {
 public:
  virtual ~sink() = default;
  virtual void interval(const intel::capture_interval& iv) = 0;
  virtual void lost(const intel::capture_discontinuity& d) = 0;
  virtual void end(const intel::capture_stats& st) = 0;
};

class csv_sink final : public sink {
 public:
  csv_sink(out_buffer& out, const capture_info& c)
      : out_(out), c_(c), n_(counter_names(*c.format).size()) {
    has_ctx_ = c.format->first_of(intel::field_kind::ctx_id) != nullptr;
    out_ << "report,timestamp";
    for (const auto& n : counter_names(*c.format)) out_ << ',' << std::string_view(n);
    out_ << ",reason,ctx_id";
    if (c.metrics != nullptr) {
      for (const auto& n : c.metrics->names()) out_ << ',' << std::string_view(n);
    }
    out_ << (c.kind == input_kind::raw ? "\n" : ",lost\n");
  }
  void interval(const intel::capture_interval& iv) override {
    out_ << std::uint64_t{iv.index} << ',' << iv.timestamp;
    for (std::uint64_t d : iv.deltas) out_ << ',' << d;
    out_ << ',' << std::string_view(intel::reason_names(iv.rpt)) << ',';
    if (has_ctx_) out_ << std::uint64_t{iv.later.ctx_id()};
    if (c_.metrics != nullptr) {
      c_.metrics->evaluate(iv.deltas, iv.elapsed_ticks);
      for (std::size_t j = 0; j < c_.metrics->size(); ++j) {
        out_ << ',';
        c_.metrics->write(out_, j);
      }
    }
    out_ << (c_.kind == input_kind::raw ? "\n" : ",0\n");
  }
  void lost(const intel::capture_discontinuity& d) override {
    out_ << std::uint64_t{d.index} << ',';
    for (std::size_t i = 0; i < n_; ++i) out_ << ',';
    out_ << ',' << intel::to_string(d.kind) << ',';
    if (c_.metrics != nullptr) {
      for (std::size_t j = 0; j < c_.metrics->size(); ++j) out_ << ',';
    }
    out_ << ",1\n";
  }
  void end(const intel::capture_stats&) override {}

 private:
  out_buffer& out_;
  const capture_info& c_;
  std::size_t n_;
  bool has_ctx_ = false;
};

class json_sink final : public sink {
 public:
  json_sink(out_buffer& out, const capture_info& c)
      : out_(out), c_(c), names_(counter_names(*c.format)) {
    if (c.metrics != nullptr) metric_names_ = c.metrics->names();
    has_ctx_ = c.format->first_of(intel::field_kind::ctx_id) != nullptr;
    out_ << "[";
  }
  void interval(const intel::capture_interval& iv) override {
    next();
    out_ << "\"report\": " << std::uint64_t{iv.index} << ", \"timestamp\": " << iv.timestamp;
    for (std::size_t c = 0; c < names_.size(); ++c) {
      out_ << ", \"" << std::string_view(names_[c]) << "\": " << iv.deltas[c];
    }
    out_ << ", \"reason\": ";
    out_.json_string(intel::reason_names(iv.rpt));
    out_ << ", \"ctx_id\": ";
    if (has_ctx_) {
      out_ << std::uint64_t{iv.later.ctx_id()};
    } else {
      out_ << "null";
    }
    if (c_.metrics != nullptr) {
      c_.metrics->evaluate(iv.deltas, iv.elapsed_ticks);
      for (std::size_t j = 0; j < metric_names_.size(); ++j) {
        out_ << ", \"" << std::string_view(metric_names_[j]) << "\": ";
        c_.metrics->write(out_, j);
      }
    }
    out_ << "}";
  }
  void lost(const intel::capture_discontinuity& d) override {
    next();
    out_ << "\"report\": " << std::uint64_t{d.index} << ", \"offset\": " << std::uint64_t{d.offset}
         << ", \"lost\": true, \"reason\": ";
    out_.json_string(intel::to_string(d.kind));
    out_ << "}";
  }
  void end(const intel::capture_stats&) override { out_ << "\n]\n"; }

 private:
  void next() {
    out_ << (first_ ? "\n  {" : ",\n  {");
    first_ = false;
  }
  out_buffer& out_;
  const capture_info& c_;
  std::vector<std::string> names_;
  std::vector<std::string> metric_names_;
  bool has_ctx_ = false;
  bool first_ = true;
};

// Chrome trace-event JSON: "ph":"C" counter events, one track per counter,
// each interval's delta placed at the interval's start; losses are instant
// events and set every track to 0 until reports resume.
class perfetto_sink final : public sink {
 public:
  perfetto_sink(out_buffer& out, const capture_info& c, const std::string& file)
      : out_(out), c_(c), names_(counter_names(*c.format)) {
    out_ << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    out_ << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": ";
    out_.json_string("hwpc " + std::string(intel::name_of(c.plat)) + " " +
                     std::string(c.format->name) + ": " + file);
    out_ << "}}";
  }
  void interval(const intel::capture_interval& iv) override {
    const std::int64_t start = to_ns(iv.timestamp - iv.elapsed_ticks);
    last_ns_ = to_ns(iv.timestamp);
    for (std::size_t c = 0; c < names_.size(); ++c) counter(names_[c], start, iv.deltas[c]);
    if (c_.metrics != nullptr) {
      c_.metrics->evaluate(iv.deltas, iv.elapsed_ticks);
      const auto names = c_.metrics->names();
      for (std::size_t j = 0; j < names.size(); ++j) {
        out_ << ",\n{\"name\": \"" << std::string_view(names[j])
             << "\", \"ph\": \"C\", \"pid\": 1, \"ts\": ";
        write_us(out_, start);
        out_ << ", \"args\": {\"value\": ";
        c_.metrics->write(out_, j, true);
        out_ << "}}";
      }
    }
    open_ = true;
  }
  void lost(const intel::capture_discontinuity& d) override {
    if (open_) {
      for (const auto& n : names_) counter(n, last_ns_, 0);
      open_ = false;
    }
    out_ << ",\n{\"name\": ";
    out_.json_string(intel::to_string(d.kind));
    out_ << ", \"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \"tid\": 1, \"ts\": ";
    write_us(out_, last_ns_);
    out_ << ", \"args\": {\"offset\": " << std::uint64_t{d.offset} << "}}";
  }
  void end(const intel::capture_stats&) override {
    if (open_) {
      for (const auto& n : names_) counter(n, last_ns_, 0);
    }
    out_ << "\n]}\n";
  }

 private:
  // CPU CLOCK_MONOTONIC time when a recording correlates it, else GPU time.
  std::int64_t to_ns(std::uint64_t ticks) const {
    if (c_.time != nullptr && !c_.time->empty()) return c_.time->to_cpu(ticks).ns;
    const std::uint64_t f = c_.frequency != 0 ? c_.frequency : 1;
    return static_cast<std::int64_t>(ticks / f * 1'000'000'000 + ticks % f * 1'000'000'000 / f);
  }
  void counter(const std::string& name, std::int64_t ns, std::uint64_t v) {
    out_ << ",\n{\"name\": \"" << std::string_view(name)
         << "\", \"ph\": \"C\", \"pid\": 1, \"ts\": ";
    write_us(out_, ns);
    out_ << ", \"args\": {\"value\": " << v << "}}";
  }
  out_buffer& out_;
  const capture_info& c_;
  std::vector<std::string> names_;
  std::int64_t last_ns_ = 0;
  bool open_ = false;
};

// One row of totals: `intervals` summed, `elapsed_ticks` of TIME_STAMP, one
// total per counter, the valid and skipped report counts, the losses (streams
// and recordings), then the metrics computed from the totals.
struct totals_row {
  std::uint64_t intervals = 0;
  std::uint64_t elapsed = 0;
  std::vector<std::uint64_t> totals;
  std::uint64_t reports = 0;
  std::uint64_t skipped_zero = 0;
  std::optional<std::uint64_t> discontinuities;
};

void write_totals(out_buffer& out, const capture_info& c, bool json, const totals_row& t) {
  const auto names = counter_names(*c.format);
  std::vector<std::string> metric_names;
  if (c.metrics != nullptr) {
    metric_names = c.metrics->names();
    c.metrics->evaluate(t.totals, t.elapsed);
  }
  if (json) {
    out << "{\"intervals\": " << t.intervals << ", \"elapsed_ticks\": " << t.elapsed;
    for (std::size_t i = 0; i < names.size(); ++i) {
      out << ", \"" << std::string_view(names[i]) << "\": " << t.totals[i];
    }
    out << ", \"reports\": " << t.reports << ", \"skipped_zero\": " << t.skipped_zero;
    if (t.discontinuities) out << ", \"discontinuities\": " << *t.discontinuities;
    for (std::size_t j = 0; j < metric_names.size(); ++j) {
      out << ", \"" << std::string_view(metric_names[j]) << "\": ";
      c.metrics->write(out, j, true);
    }
    out << "}\n";
    return;
  }
  out << "intervals,elapsed_ticks";
  for (const auto& n : names) out << ',' << std::string_view(n);
  out << ",reports,skipped_zero" << (t.discontinuities ? ",discontinuities" : "");
  for (const auto& n : metric_names) out << ',' << std::string_view(n);
  out << '\n' << t.intervals << ',' << t.elapsed;
  for (std::uint64_t v : t.totals) out << ',' << v;
  out << ',' << t.reports << ',' << t.skipped_zero;
  if (t.discontinuities) out << ',' << *t.discontinuities;
  for (std::size_t j = 0; j < metric_names.size(); ++j) {
    out << ',';
    c.metrics->write(out, j);
  }
  out << '\n';
}

// Totals over the intervals kept.
class summary_sink final : public sink {
 public:
  summary_sink(out_buffer& out, const capture_info& c, bool json) : out_(out), c_(c), json_(json) {
    row_.totals.assign(counter_names(*c.format).size(), 0);
  }
  void interval(const intel::capture_interval& iv) override {
    ++row_.intervals;
    row_.elapsed += iv.elapsed_ticks;
    for (std::size_t i = 0; i < row_.totals.size(); ++i) row_.totals[i] += iv.deltas[i];
  }
  void lost(const intel::capture_discontinuity&) override {}
  void end(const intel::capture_stats& st) override {
    row_.reports = st.reports;
    row_.skipped_zero = st.skipped_zero;
    if (c_.kind != input_kind::raw) row_.discontinuities = st.discontinuities;
    write_totals(out_, c_, json_, row_);
  }

 private:
  out_buffer& out_;
  const capture_info& c_;
  bool json_;
  totals_row row_;
};

// Raw totals without a context filter: the accumulate() fast path, on
// `threads` threads (the result does not depend on the count).
void write_raw_summary(out_buffer& out, const capture_info& c, const intel::report_buffer& buf,
                       bool json, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  intel::accumulation acc = intel::accumulate_parallel(buf, threads);
  totals_row row;
  row.intervals = acc.intervals;
  row.elapsed = acc.elapsed_ticks;
  row.totals = std::move(acc.totals);
  row.reports = acc.reports;
  row.skipped_zero = acc.skipped_zero;
  write_totals(out, c, json, row);
}

// Feeds every event of `src` through one delta tracker into the sink.
template <class Source>
void drive(const Source& src, const capture_info& c, sink& s, std::size_t total_bytes) {
  intel::delta_tracker t(*c.format, intel::generation_of(c.plat));
  progress bar(total_bytes);
  for (const intel::capture_event& e : src) {
    bar.update(e.offset);
    switch (t.feed(e)) {
      case intel::delta_step::interval:
        if (!c.filter || c.filter->matches(t.interval(), c.context)) s.interval(t.interval());
        break;
      case intel::delta_step::discontinuity:
        s.lost(t.discontinuity());
        break;
      case intel::delta_step::nothing:
        break;
    }
  }
  bar.finish();
  s.end(t.stats());
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
    if (*kind == "raw") {
      o.kind = input_kind::raw;
    } else if (*kind == "i915-stream") {
      o.kind = input_kind::stream;
    } else if (*kind == "recording") {
      o.kind = input_kind::recording;
    } else {
      fail("decode", "unknown --input-kind '" + *kind + "' (raw, i915-stream or recording)",
           exit_usage);
      return std::nullopt;
    }
  }
  if (auto out = a.get("output")) o.output = *out;
  if (o.output != "csv" && o.output != "json" && o.output != "perfetto") {
    fail("decode", "unknown --output '" + o.output + "' (csv, json or perfetto)", exit_usage);
    return std::nullopt;
  }
  o.summary = a.has("summary");
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
  }
  if (!a.positional.empty()) o.file = a.positional[0];
  o.metrics_file = a.get("metrics");
  if (auto set = a.get("set")) o.metric_set = *set;
  if (o.metrics_file.has_value() != !o.metric_set.empty()) {
    fail("decode", "--metrics and --set go together (--metrics FILE.xml --set SYMBOL)", exit_usage);
    return std::nullopt;
  }
  for (const auto& dv : a.all("device-var")) {
    auto v = parse_device_var(dv);
    if (!v) {
      fail("decode", "--device-var needs NAME=VALUE with a number, not '" + dv + "'", exit_usage);
      return std::nullopt;
    }
    o.device_overrides[v->first] = v->second;
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
  c.format = intel::find_format(*o.plat, *o.format_name);
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

}  // namespace

int cmd_decode(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto parsed = parse(decode_spec, args, status);
  if (!parsed) return status;
  auto opt = read_options(*parsed, status);
  if (!opt) return status;

  // No FILE: the embedded default capture, made by the emulator on the spot,
  // with the device the emulator models.
  std::vector<std::byte> default_bytes;
  std::optional<metrics::intel_device> device;
  if (opt->file.empty()) {
    if (opt->plat || opt->format_name || opt->kind) {
      return fail("decode", "--platform, --format and --input-kind describe a FILE; give one",
                  exit_usage);
    }
    emu::default_capture_data d = emu::default_capture();
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

  result<mapped_file> file = mapped_file{};
  if (default_bytes.empty()) file = mapped_file::open(opt->file);
  if (!file && !have_pf && !opt->kind) {  // cannot look for a recording: ask for raw's options
    resolve_format(*opt, c);
    return exit_usage;
  }
  if (!file) return fail("decode", file.error_value().message, exit_bad_input);
  const byte_span bytes = default_bytes.empty() ? file->bytes() : byte_span(default_bytes);
  auto bad = [&](const error& e) {
    return fail("decode", opt->file + ": " + e.describe(), exit_bad_input);
  };

  c.kind = opt->kind ? *opt->kind
                     : (intel::recording::looks_like_recording(bytes) ? input_kind::recording
                                                                      : input_kind::raw);
  std::optional<intel::recording> rec;
  if (c.kind == input_kind::recording) {
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
    c.filter = intel::context_filter::from_reports();
    c.context = *opt->context;
  }

  std::optional<metric_columns> columns;
  if (opt->metrics_file) {
    metrics::intel_device dev = device ? *device
                                : rec  ? metrics::device_of(*rec)
                                       : metrics::device_of(c.plat);
    if (dev.timestamp_frequency_hz == 0) dev.timestamp_frequency_hz = c.frequency;
    metrics::device_values values = metrics::to_device_values(dev);
    for (const auto& [name, v] : opt->device_overrides) values[name] = v;
    auto m = metric_columns::load(*opt->metrics_file, opt->metric_set, *c.format, values);
    if (!m) {
      // A file that cannot be read or parsed is bad input; a set, variable
      // or counter that does not fit the capture is a usage error.
      const errc code = m.error_value().code;
      const bool input = code == errc::io || code == errc::syntax || code == errc::out_of_range;
      return fail("decode", "--metrics: " + m.error_value().describe(),
                  input ? exit_bad_input : exit_usage);
    }
    columns.emplace(std::move(*m));
    c.metrics = &*columns;
  }

  out_buffer out(stdout);
  const bool json = opt->output == "json";
  std::optional<summary_sink> summary;
  std::optional<csv_sink> csv;
  std::optional<json_sink> js;
  std::optional<perfetto_sink> pf;
  sink* s = nullptr;
  auto choose_sink = [&]() -> sink& {
    if (opt->summary) return summary.emplace(out, c, json);
    if (json) return js.emplace(out, c);
    if (opt->output == "perfetto") return pf.emplace(out, c, opt->file);
    return csv.emplace(out, c);
  };

  if (c.kind == input_kind::raw) {
    auto buf = intel::report_buffer::make(bytes, *c.format);
    if (!buf) return bad(buf.error_value());
    if (opt->summary && !c.filter) {
      write_raw_summary(out, c, *buf, json, opt->threads);
      return exit_ok;
    }
    s = &choose_sink();
    drive(intel::raw_capture(*buf), c, *s, bytes.size());
    return exit_ok;
  }

  std::optional<intel::i915_stream> stream;
  if (c.kind == input_kind::stream) {
    auto st = intel::i915_stream::make(bytes, *c.format);
    if (!st) return bad(st.error_value());
    stream.emplace(std::move(*st));
  }
  s = &choose_sink();
  if (stream) {
    drive(*stream, c, *s, bytes.size());
  } else {
    drive(*rec, c, *s, bytes.size());
  }
  return exit_ok;
}

}  // namespace hwpc::cli
