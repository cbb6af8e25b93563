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
#include "hwpc/intel.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"
#include "mapped_file.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace hwpc::cli {

namespace {

const command_spec decode_spec{
    "decode",
    "hwpc decode [--platform P] [--format F] [--input-kind raw|i915-stream|recording] FILE "
    "[--output csv|json|perfetto] [--summary] [--context ID] [--threads N]",
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
     {"threads", "N", "threads for --summary of raw input (default: every core)"}},
    1,
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
  std::string file;
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
    out_ << (c.kind == input_kind::raw ? "\n" : ",lost\n");
  }
  void interval(const intel::capture_interval& iv) override {
    out_ << std::uint64_t{iv.index} << ',' << iv.timestamp;
    for (std::uint64_t d : iv.deltas) out_ << ',' << d;
    out_ << ',' << std::string_view(intel::reason_names(iv.rpt)) << ',';
    if (has_ctx_) out_ << std::uint64_t{iv.later.ctx_id()};
    out_ << (c_.kind == input_kind::raw ? "\n" : ",0\n");
  }
  void lost(const intel::capture_discontinuity& d) override {
    out_ << std::uint64_t{d.index} << ',';
    for (std::size_t i = 0; i < n_; ++i) out_ << ',';
    out_ << ',' << intel::to_string(d.kind) << ",,1\n";
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
  json_sink(out_buffer& out, const capture_info& c) : out_(out), names_(counter_names(*c.format)) {
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
  std::vector<std::string> names_;
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

// Totals over the intervals kept.
class summary_sink final : public sink {
 public:
  summary_sink(out_buffer& out, const capture_info& c, bool json)
      : out_(out), c_(c), names_(counter_names(*c.format)), json_(json), totals_(names_.size()) {}
  void interval(const intel::capture_interval& iv) override {
    ++intervals_;
    elapsed_ += iv.elapsed_ticks;
    for (std::size_t c = 0; c < totals_.size(); ++c) totals_[c] += iv.deltas[c];
  }
  void lost(const intel::capture_discontinuity&) override {}
  void end(const intel::capture_stats& st) override {
    const bool with_lost = c_.kind != input_kind::raw;
    if (json_) {
      out_ << "{\"intervals\": " << intervals_ << ", \"elapsed_ticks\": " << elapsed_;
      for (std::size_t c = 0; c < names_.size(); ++c) {
        out_ << ", \"" << std::string_view(names_[c]) << "\": " << totals_[c];
      }
      out_ << ", \"reports\": " << std::uint64_t{st.reports}
           << ", \"skipped_zero\": " << std::uint64_t{st.skipped_zero};
      if (with_lost) out_ << ", \"discontinuities\": " << std::uint64_t{st.discontinuities};
      out_ << "}\n";
      return;
    }
    out_ << "intervals,elapsed_ticks";
    for (const auto& n : names_) out_ << ',' << std::string_view(n);
    out_ << ",reports,skipped_zero" << (with_lost ? ",discontinuities\n" : "\n");
    out_ << intervals_ << ',' << elapsed_;
    for (std::uint64_t t : totals_) out_ << ',' << t;
    out_ << ',' << std::uint64_t{st.reports} << ',' << std::uint64_t{st.skipped_zero};
    if (with_lost) out_ << ',' << std::uint64_t{st.discontinuities};
    out_ << '\n';
  }

 private:
  out_buffer& out_;
  const capture_info& c_;
  std::vector<std::string> names_;
  bool json_;
  std::vector<std::uint64_t> totals_;
  std::uint64_t intervals_ = 0;
  std::uint64_t elapsed_ = 0;
};

// Raw totals without a context filter: the accumulate() fast path, on
// `threads` threads (the result does not depend on the count).
void write_raw_summary(out_buffer& out, const intel::report_buffer& buf, bool json,
                       unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const intel::accumulation acc = intel::accumulate_parallel(buf, threads);
  const auto names = counter_names(buf.format());
  if (json) {
    out << "{\"intervals\": " << std::uint64_t{acc.intervals}
        << ", \"elapsed_ticks\": " << acc.elapsed_ticks;
    for (std::size_t c = 0; c < names.size(); ++c) {
      out << ", \"" << std::string_view(names[c]) << "\": " << acc.totals[c];
    }
    out << ", \"reports\": " << std::uint64_t{acc.reports}
        << ", \"skipped_zero\": " << std::uint64_t{acc.skipped_zero} << "}\n";
    return;
  }
  out << "intervals,elapsed_ticks";
  for (const auto& n : names) out << ',' << std::string_view(n);
  out << ",reports,skipped_zero\n";
  out << std::uint64_t{acc.intervals} << ',' << acc.elapsed_ticks;
  for (std::uint64_t t : acc.totals) out << ',' << t;
  out << ',' << std::uint64_t{acc.reports} << ',' << std::uint64_t{acc.skipped_zero} << '\n';
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
  o.file = a.positional.at(0);
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

  // Usage errors come before the file is opened: a format the platform does
  // not have, or raw/stream input without platform and format.
  capture_info c;
  const bool have_pf = opt->plat && opt->format_name;
  if (have_pf && !resolve_format(*opt, c)) return exit_usage;
  if (!have_pf && opt->kind && *opt->kind != input_kind::recording) {
    resolve_format(*opt, c);
    return exit_usage;
  }

  auto file = mapped_file::open(opt->file);
  if (!file && !have_pf && !opt->kind) {  // cannot look for a recording: ask for raw's options
    resolve_format(*opt, c);
    return exit_usage;
  }
  if (!file) return fail("decode", file.error_value().message, exit_bad_input);
  const byte_span bytes = file->bytes();
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

  out_buffer out(stdout);
  const bool json = opt->output == "json";
  std::optional<summary_sink> summary;
  std::optional<csv_sink> csv;
  std::optional<json_sink> js;
  std::optional<perfetto_sink> pf;
  sink* s = nullptr;

  if (c.kind == input_kind::raw) {
    auto buf = intel::report_buffer::make(bytes, *c.format);
    if (!buf) return bad(buf.error_value());
    if (opt->summary && !c.filter) {
      write_raw_summary(out, *buf, json, opt->threads);
      return exit_ok;
    }
    if (opt->summary) {
      s = &summary.emplace(out, c, json);
    } else if (json) {
      s = &js.emplace(out, c);
    } else if (opt->output == "perfetto") {
      s = &pf.emplace(out, c, opt->file);
    } else {
      s = &csv.emplace(out, c);
    }
    drive(intel::raw_capture(*buf), c, *s, bytes.size());
    return exit_ok;
  }

  std::optional<intel::i915_stream> stream;
  if (c.kind == input_kind::stream) {
    auto st = intel::i915_stream::make(bytes, *c.format);
    if (!st) return bad(st.error_value());
    stream.emplace(std::move(*st));
  }
  if (opt->summary) {
    s = &summary.emplace(out, c, json);
  } else if (json) {
    s = &js.emplace(out, c);
  } else if (opt->output == "perfetto") {
    s = &pf.emplace(out, c, opt->file);
  } else {
    s = &csv.emplace(out, c);
  }
  if (stream) {
    drive(*stream, c, *s, bytes.size());
  } else {
    drive(*rec, c, *s, bytes.size());
  }
  return exit_ok;
}

}  // namespace hwpc::cli
