// hwpc adreno: disassembles Adreno A5xx, A6xx and A7xx command streams —
// freedreno .rd captures (plain or gzip), hex dword text, or raw
// little-endian dwords — with each generation's names, following indirect
// buffers, and explains the A5xx queries and performance counters in them;
// with --output or --summary, writes the query results as rows through the
// shared writers instead. docs/adreno.md.
//
// A door: the options parsed here, everything else in the library
// (pipeline/adreno_capture.hpp for the rows, pipeline/adreno_packets.hpp for
// the listing), as for hwpc.adreno in Python.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "capture_door.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_packets.hpp"
#include "options_adreno.hpp"
#include "output.hpp"

namespace hwpc::cli {

namespace {

const command_spec adreno_spec{
    "adreno",
    "hwpc adreno [--queries] [--gpu NAME|CHIP_ID] [--format FORMAT]\n"
    "            [--output csv|json|perfetto|chrome-json] [--summary] [--packets] FILE\n"
    "       hwpc adreno emulate --help",
    "Disassembles an Adreno command stream: one line per packet with its byte offset,\n"
    "header, name and payload (indented per indirect-buffer level), and after the packets\n"
    "of each recognised A5xx query sequence or performance-counter select/sample a line\n"
    "'OFFSET: => what it does' (--queries: only those lines, without '=>'); on A6xx and\n"
    "A7xx, counter selects and samples, timestamps, sample counts, pipeline-statistics and\n"
    "stream-out writes with their addresses.\n"
    "Names are the GPU generation's (A5XX, A6XX or A7XX): an .rd capture names its GPU\n"
    "(RD_CHIP_ID, RD_GPU_ID, through the device table); hex and binary input do not, and\n"
    "--gpu (a530, a630, A750, a GPU id like 640, or a chip id like 0x43050a01) gives it.\n"
    "Without a GPU the listing gives numbers only. Query rows: A5XX, and A6XX/A7XX .rd\n"
    "captures (occlusion results, timestamps, counter samples).\n"
    "FILE is a freedreno .rd capture (gzip-compressed too when built with zlib), hex dword\n"
    "text (dwords in stream order, each line with an optional 'OFFSET:' label; lines of\n"
    "prose are skipped), or raw little-endian dwords; --format overrides the detection.\n"
    "Bad data is reported with its byte offset and skipped; the output is then partial and\n"
    "the exit status 2. Zero dwords are padding.\n"
    "--packets --output csv|json writes the packet listing as records instead: offset (in\n"
    "FILE), gpu_address, depth (IB level), group (draw-state group), pass (render mode),\n"
    "type, id (opcode or register) and name, count, payload, event and event_name.\n"
    "--output writes the query results as rows instead (the rows of hwpc decode): report\n"
    "(result index), offset (the .rd section holding the value, else the query's first\n"
    "packet), timestamp (always-on ticks, 19.2 MHz), reason, ctx_id (empty), then\n"
    "samples_passed, time_elapsed (ns), gpu_time (ns) and one column per sampled counter\n"
    "(<GROUP>_<n>), each empty when the row's query does not produce it or the capture does\n"
    "not hold it. --summary: one row of totals. docs/adreno.md, \"Rows\".",
    {{"queries", "", "print only the recognised queries and counters"},
     {"gpu", "NAME|CHIP_ID", "the GPU whose names apply (hex and binary input name none)"},
     {"packets", "", "with --output csv|json: the packet listing as records"},
     choice_option("format", "auto|rd|hex|bin", "the input's form (default auto)"),
     choice_option("output", "csv|json|perfetto|chrome-json|html",
                   "write the query results as rows (html: hwpc report)"),
     choice_option(
         "perfetto-layout", "gpu-counters|track-event",
         "--output perfetto: GPU counter packets (default) or the older generic counter tracks"),
     {"summary", "", "one row: the results' totals"}},
    1,
    1};

// --output / --summary: the query results as rows through the shared writers.
int write_rows(capture_source src, const adreno::open_options& opts, const write_options& wo) {
  const std::string path = src.name();
  auto c = adreno::open_capture(std::move(src), opts, pipeline::spelling{});
  if (!c) return capture_fail(vendor::adreno, path, c.error_value());
  output::text_buffer out(stdout);
  return write_capture(**c, path, wo, out);
}

// The listing: text lines, --queries lines, or --packets records.
int list(capture_source src, const adreno::open_options& opts, bool queries,
         std::optional<adreno::listing_writer::format> records) {
  const std::string path = src.name();
  auto in = adreno::capture_input::open(std::move(src), opts, pipeline::spelling{});
  if (!in) return capture_fail(vendor::adreno, path, in.error_value());
  const adreno::device* gpu = in->gpu();
  if (gpu == nullptr && queries) {
    return fail("adreno",
                path +
                    ": the input names no GPU, and queries need one: give --gpu "
                    "(e.g. --gpu a530)",
                exit_usage);
  }
  out_buffer out(stdout);
  std::optional<adreno::listing_writer> writer;
  if (records) {
    writer.emplace(out, *records);
    if (gpu == nullptr) {
      std::fprintf(stderr,
                   "hwpc adreno: %s: note: the input names no GPU: numbers only (names need "
                   "--gpu NAME|CHIP_ID)\n",
                   path.c_str());
    }
  } else if (!queries) {
    if (gpu != nullptr) {
      out << "GPU " << adreno::describe(*gpu) << (in->forced() != nullptr ? " (--gpu)\n" : "\n");
    } else {
      out << "GPU unknown: numbers only (names need a GPU: --gpu NAME|CHIP_ID)\n";
    }
  }
  adreno::text_listing sink(out, !queries, gpu != nullptr ? gpu->gen : adreno::generation::unknown,
                            adreno_issue_printer{path}, writer ? &*writer : nullptr);
  auto stats = adreno::walk_packets(*in, sink);
  if (!stats) return fail("adreno", path + ": " + stats.error_value().describe(), exit_bad_input);
  if (writer) writer->end();
  out.flush();
  if (stats->padding_dwords != 0) {
    std::fprintf(stderr, "hwpc adreno: %s: note: %llu zero dwords of padding skipped\n",
                 path.c_str(), static_cast<unsigned long long>(stats->padding_dwords));
  }
  return sink.issues() != 0 ? adreno_partial(path, sink.issues(), stats->skipped_bytes) : exit_ok;
}

}  // namespace

int cmd_adreno(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "emulate") {
    return cmd_adreno_emulate(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  int status = exit_ok;
  auto parsed = parse(adreno_spec, args, status);
  if (!parsed) return status;
  const std::string& path = parsed->positional.front();
  adreno::open_options opts = read_adreno_options(*parsed);
  const pipeline::spelling sp;
  if (auto f = adreno::check(adreno::open_options{opts.format, {}, {}}, sp); !f) {
    return fail("adreno", f.error_value().message, exit_usage);
  }
  const std::string output_kind = parsed->get("output").value_or("");
  const bool summary = parsed->has("summary");
  const bool packets = parsed->has("packets");
  if (packets &&
      ((output_kind != "csv" && output_kind != "json") || summary || parsed->has("queries"))) {
    return fail("adreno",
                "--packets writes the packet listing as --output csv or json records; it does "
                "not mix with --summary, --queries or another --output",
                exit_usage);
  }
  const bool rows = !packets && (summary || !output_kind.empty());
  write_options wo;
  if (rows) {
    auto c = output::check_output(output_kind.empty() ? "csv" : output_kind, summary, "result",
                                  ::isatty(STDOUT_FILENO) != 0);
    if (!c) return fail("adreno", c.error_value().message, exit_usage);
    wo.choice = *c;
  }
  if (auto l = parsed->get("perfetto-layout")) {
    if (!rows) return fail("adreno", "--perfetto-layout goes with --output perfetto", exit_usage);
    auto v = output::check_perfetto_layout(wo.choice, *l);
    if (!v) return fail("adreno", v.error_value().message, exit_usage);
    wo.layout = *v;
  }
  if (rows && parsed->has("queries")) {
    return fail("adreno", "--queries is the listing's; --output and --summary write rows",
                exit_usage);
  }
  if (auto g = adreno::check(opts, sp); !g) {
    return fail("adreno", g.error_value().message, exit_usage);
  }
  auto src = capture_source::map(path);
  if (!src) return fail("adreno", src.error_value().message, exit_bad_input);
  if (rows) {
    opts.on_issue = adreno_issue_printer{path};
    return write_rows(std::move(*src), opts, wo);
  }
  std::optional<adreno::listing_writer::format> records;
  if (packets) {
    records = output_kind == "json" ? adreno::listing_writer::format::json
                                    : adreno::listing_writer::format::csv;
  }
  return list(std::move(*src), opts, parsed->has("queries"), records);
}

}  // namespace hwpc::cli
