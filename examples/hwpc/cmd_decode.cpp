// hwpc decode: per-interval counter deltas of a capture, as CSV or JSON, or
// the totals over the whole capture (--summary).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/intel.hpp"
#include "mapped_file.hpp"
#include "output.hpp"

namespace hwpc::cli {

namespace {

const command_spec decode_spec{
    "decode",
    "hwpc decode --platform P --format F [--input-kind raw] FILE [--output csv|json] [--summary]",
    "Decodes a file of back-to-back OA reports. Each row is one interval: `report` is the\n"
    "index of the later report, `timestamp` its TIME_STAMP extended to 64 bits, then one\n"
    "column per counter (GPU_TICKS, A0.., B0.., C0..) holding the delta over the interval,\n"
    "then `reason` (RPT_ID report reasons) and `ctx_id`. Reports with a zero RPT_ID were\n"
    "never written and are skipped. --summary prints one row of totals instead.\n"
    "Bad input exits with status 2 and names the byte offset; usage errors exit with 1.",
    {{"platform", "P", "platform: snb ivb vlv hsw bdw chv skl bxt kbl glk cfl cnl icl ehl tgl rkl adl dg1 dg2 mtl"},
     {"format", "F", "report format name or alias (see `hwpc formats --platform P`)"},
     {"input-kind", "KIND", "raw (back-to-back reports; the default)"},
     {"output", "FMT", "csv (default) or json"},
     {"summary", "", "print the totals over the capture as one row"}},
    1,
    1};

struct decode_options {
  intel::platform plat{};
  const intel::report_format* format = nullptr;
  std::string output = "csv";
  bool summary = false;
  std::string file;
};

// Column names shared by the CSV header, the JSON keys and the summary.
std::vector<std::string> counter_names(const intel::report_format& f) {
  std::vector<std::string> names;
  for (const intel::field* fd : intel::counter_list(f)) names.emplace_back(fd->name);
  return names;
}

void write_csv(out_buffer& out, const intel::report_buffer& buf, intel::generation gen) {
  const auto names = counter_names(buf.format());
  const bool has_ctx = buf.format().first_of(intel::field_kind::ctx_id) != nullptr;
  out << "report,timestamp";
  for (const auto& n : names) out << ',' << std::string_view(n);
  out << ",reason,ctx_id\n";
  intel::for_each_interval(buf, gen, [&](const intel::interval& iv) {
    out << std::uint64_t{iv.report} << ',' << iv.timestamp;
    for (std::uint64_t d : iv.deltas) out << ',' << d;
    out << ',' << std::string_view(intel::reason_names(iv.rpt)) << ',';
    if (has_ctx) out << std::uint64_t{iv.later.ctx_id()};
    out << '\n';
  });
}

void write_json(out_buffer& out, const intel::report_buffer& buf, intel::generation gen) {
  const auto names = counter_names(buf.format());
  const bool has_ctx = buf.format().first_of(intel::field_kind::ctx_id) != nullptr;
  out << "[";
  bool first = true;
  intel::for_each_interval(buf, gen, [&](const intel::interval& iv) {
    out << (first ? "\n  {" : ",\n  {");
    first = false;
    out << "\"report\": " << std::uint64_t{iv.report} << ", \"timestamp\": " << iv.timestamp;
    for (std::size_t c = 0; c < names.size(); ++c) {
      out << ", \"" << std::string_view(names[c]) << "\": " << iv.deltas[c];
    }
    out << ", \"reason\": ";
    out.json_string(intel::reason_names(iv.rpt));
    out << ", \"ctx_id\": ";
    if (has_ctx) {
      out << std::uint64_t{iv.later.ctx_id()};
    } else {
      out << "null";
    }
    out << "}";
  });
  out << "\n]\n";
}

// Totals: `intervals` summed, `elapsed_ticks` of TIME_STAMP, one total per
// counter, then the valid and skipped report counts.
void write_summary(out_buffer& out, const intel::report_buffer& buf, bool json) {
  const intel::accumulation acc = intel::accumulate(buf);
  const auto names = counter_names(buf.format());
  if (json) {
    out << "{\"intervals\": " << std::uint64_t{acc.intervals} << ", \"elapsed_ticks\": " << acc.elapsed_ticks;
    for (std::size_t c = 0; c < names.size(); ++c) {
      out << ", \"" << std::string_view(names[c]) << "\": " << acc.totals[c];
    }
    out << ", \"reports\": " << std::uint64_t{acc.reports} << ", \"skipped_zero\": " << std::uint64_t{acc.skipped_zero}
        << "}\n";
    return;
  }
  out << "intervals,elapsed_ticks";
  for (const auto& n : names) out << ',' << std::string_view(n);
  out << ",reports,skipped_zero\n";
  out << std::uint64_t{acc.intervals} << ',' << acc.elapsed_ticks;
  for (std::uint64_t t : acc.totals) out << ',' << t;
  out << ',' << std::uint64_t{acc.reports} << ',' << std::uint64_t{acc.skipped_zero} << '\n';
}

std::optional<decode_options> read_options(const parsed_args& a, int& status) {
  decode_options o;
  status = exit_usage;
  auto plat = a.get("platform");
  auto fmt = a.get("format");
  if (!plat || !fmt) {
    fail("decode", "--platform and --format are required for raw input (see --help)", exit_usage);
    return std::nullopt;
  }
  auto p = intel::platform_from_name(*plat);
  if (!p) {
    fail("decode", "unknown platform '" + *plat + "'", exit_usage);
    return std::nullopt;
  }
  o.plat = *p;
  o.format = intel::find_format(*p, *fmt);
  if (o.format == nullptr) {
    fail("decode", "platform " + *plat + " has no report format '" + *fmt + "' (see hwpc formats --platform " + *plat + ")",
         exit_usage);
    return std::nullopt;
  }
  if (auto kind = a.get("input-kind"); kind && *kind != "raw") {
    fail("decode", "unknown --input-kind '" + *kind + "'", exit_usage);
    return std::nullopt;
  }
  if (auto out = a.get("output")) o.output = *out;
  if (o.output != "csv" && o.output != "json") {
    fail("decode", "unknown --output '" + o.output + "' (csv or json)", exit_usage);
    return std::nullopt;
  }
  o.summary = a.has("summary");
  o.file = a.positional.at(0);
  status = exit_ok;
  return o;
}

}  // namespace

int cmd_decode(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto parsed = parse(decode_spec, args, status);
  if (!parsed) return status;
  auto opt = read_options(*parsed, status);
  if (!opt) return status;

  auto file = mapped_file::open(opt->file);
  if (!file) return fail("decode", file.error_value().message, exit_bad_input);
  auto buf = intel::report_buffer::make(file->bytes(), *opt->format);
  if (!buf) return fail("decode", opt->file + ": " + buf.error_value().describe(), exit_bad_input);

  out_buffer out(stdout);
  const intel::generation gen = intel::generation_of(opt->plat);
  if (opt->summary) {
    write_summary(out, *buf, opt->output == "json");
  } else if (opt->output == "json") {
    write_json(out, *buf, gen);
  } else {
    write_csv(out, *buf, gen);
  }
  return exit_ok;
}

}  // namespace hwpc::cli
