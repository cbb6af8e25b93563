// hwpc mali: decode a capture of Mali hardware-counter samples (kbase vinstr or
// kinstr_prfcnt) for any GPU of Arm's counter database and write one row per
// sample through the shared writers (CSV, JSON, a native Perfetto trace,
// Chrome trace JSON, or one row of totals): every counter of the GPU's table
// summed over its block
// instances and, with --bus-width-bits, the derived counters (the Mali-G72
// guide's or Arm's database's). Rows are written as samples are decoded
// (memory does not grow with the capture).
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/mali/capture_input.hpp"
#include "hwpc/mali/plausibility.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/mali/tracks.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/json.hpp"
#include "hwpc/output/perfetto/make_trace.hpp"
#include "hwpc/output/summary.hpp"
#include "mapped_file.hpp"
#include "report_facts.hpp"

namespace hwpc::cli {

namespace {

const command_spec mali_spec{
    "mali",
    "hwpc mali [--gpu NAME|GPU_ID] [--reader vinstr|kinstr] [--l2-slices N] [--core-mask M]\n"
    "                 [options] FILE\n"
    "       hwpc mali --list-gpus\n"
    "       hwpc mali emulate --help",
    "Decodes FILE, a sequence of Mali hardware-counter samples, and prints one row per sample\n"
    "(CSV, JSON, a native Perfetto trace or Chrome trace JSON; the rows of hwpc decode).\n"
    "--reader vinstr (default for files without a header): consecutive vinstr samples\n"
    "(non-v4 order: front-end, tiler, one memory block per L2 slice, one shader-core block\n"
    "per core-mask bit; 64 u32 values per block). --reader kinstr: the kinstr_prfcnt buffer\n"
    "as the kernel maps it\n"
    "(metadata lists, u64 values at their values offsets). A file that starts with an hwpc\n"
    "Mali capture header (HWPCMALI; docs/mali.md) names its reader, GPU_ID, L2 slices and\n"
    "core mask itself; options may repeat them but not contradict them.\n"
    "CSV columns: report (sample index),offset,timestamp (end, ns),every counter of the GPU's\n"
    "table summed over its block instances (--names: hardware or Streamline names),reason,\n"
    "ctx_id (empty), then with --bus-width-bits\n"
    "the derived counters (Mali-G72: the counter guide's; other GPUs or --derived database:\n"
    "Arm's database's, those that do not need the sample's duration); with kinstr, lost\n"
    "(a gap in the kernel's sample sequence numbers is a lost row, reason sequence-gap).\n"
    "--per-instance adds each L2 slice's and shader core's counters (l2slice<i>.NAME,\n"
    "core<bit>.NAME). --output perfetto (redirect stdout to a file) has them too, as\n"
    "tracks per GPU / block / core (docs/perfetto.md).\n"
    "The GPU is never guessed: --gpu takes any name from Arm's ProductInfo (mali-g78, G78,\n"
    "Immortalis-G925) or a raw GPU_ID (32- or 64-bit form). Malformed input exits with\n"
    "status 2 and the byte offset. Samples that break a physical bound under the chosen GPU\n"
    "(an *_ACTIVE counter above GPU_ACTIVE, a percentage above 100, ...; docs/mali.md) are\n"
    "named on stderr as warnings (a wrong --gpu shows up so); the exit status is unchanged.",
    {{"gpu", "NAME|GPU_ID", "the GPU (required unless a capture file's header names it)"},
     {"reader", "vinstr|kinstr", "the kernel reader that produced FILE (default vinstr)"},
     {"l2-slices", "N", "number of L2 slices (memory blocks; required without a header)"},
     {"core-mask", "M",
      "shader core mask, decimal or 0x hex (e.g. 0xb: cores 0, 1, 3; required without a header)"},
     {"core-index", "dense|sparse",
      "kinstr shader-core block numbering: dense (default) or by core-mask bit (older kbase)"},
     {"bus-width-bits", "B", "external bus width in bits: adds the derived counters"},
     {"derived", "guide|database",
      "which derived counters: the Mali-G72 guide's (default on the G72) or Arm's database's"},
     {"counters-only", "", "no derived counters"},
     {"perfetto-layout", "gpu-counters|track-event",
      "--output perfetto: GPU counter packets (default) or the older generic counter tracks"},
     {"output", "csv|json|perfetto|chrome-json|html",
      "output format (default csv; html: hwpc report)"},
     {"per-instance", "", "also each L2 slice's and shader core's counters"},
     {"max-clock-mhz", "F",
      "the GPU's highest clock: GPU_ACTIVE beyond duration x F is a plausibility warning"},
     {"names", "hardware|streamline",
      "counter column names: hardware (default, GPU_ACTIVE) or Streamline (MaliGPUActiveCy)"},
     {"summary", "", "one row: every sample's counters totalled, derived counters of the totals"},
     {"list-gpus", "", "list every GPU (product id, names, layout, readers) and exit"}},
    0,
    1};

int list_gpus() {
  std::printf("product_id,name,aliases,architecture,layout,values_per_block,readers\n");
  for (const mali::gpu_product& p : mali::gpus::products) {
    std::string aliases;
    for (const mali::gpu_alias& a : mali::gpus::aliases) {
      if (a.product_id != p.product_id || a.name == p.name) continue;
      aliases += (aliases.empty() ? "" : " ") + std::string(a.name);
    }
    std::printf("0x%04" PRIx32 ",%.*s,%s,%.*s,%.*s,%u,%s\n", p.product_id,
                static_cast<int>(p.name.size()), p.name.data(), aliases.c_str(),
                static_cast<int>(p.architecture.size()), p.architecture.data(),
                static_cast<int>(p.table->key.size()), p.table->key.data(),
                static_cast<unsigned>(p.table->values_per_block),
                p.table->values_per_block == mali::counters_per_block ? "vinstr kinstr" : "kinstr");
  }
  return exit_ok;
}

// The checker's findings on stderr: the first few, then how many in all.
void report_plausibility(const mali::plausibility_checker& c, const mali::gpu_product& gpu) {
  if (c.total_findings() == 0) return;
  constexpr std::size_t shown = 20;
  const auto& f = c.findings();
  for (std::size_t i = 0; i < f.size() && i < shown; ++i) {
    std::fprintf(stderr, "hwpc mali: warning: %s\n", f[i].describe().c_str());
  }
  std::fprintf(stderr,
               "hwpc mali: warning: %llu value(s) break physical bounds under %.*s (docs/mali.md, "
               "\"Plausibility checks\"): is --gpu right?\n",
               static_cast<unsigned long long>(c.total_findings()),
               static_cast<int>(gpu.name.size()), gpu.name.data());
}

}  // namespace

int cmd_mali(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "emulate") {
    return cmd_mali_emulate(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  int status = exit_ok;
  const auto parsed = parse(mali_spec, args, status);
  if (!parsed) return status;
  if (parsed->has("list-gpus")) {
    if (parsed->values.size() > 1 || !parsed->positional.empty()) {
      return fail("mali", "--list-gpus takes no FILE and no other option", exit_usage);
    }
    return list_gpus();
  }
  if (parsed->positional.size() != 1) return fail("mali", "expected one FILE", exit_usage);

  // Options first (usage errors before any file is touched), then the file:
  // a capture file's header supplies what the options leave out and must
  // agree with what they give.
  const std::string reader_text = parsed->get("reader").value_or("");
  if (!reader_text.empty() && reader_text != "vinstr" && reader_text != "kinstr") {
    return fail("mali", "--reader: expected vinstr or kinstr", exit_usage);
  }
  const std::string core_index = parsed->get("core-index").value_or("dense");
  if (core_index != "dense" && core_index != "sparse") {
    return fail("mali", "--core-index: expected dense or sparse", exit_usage);
  }
  const mali::core_index cores =
      core_index == "dense" ? mali::core_index::dense : mali::core_index::sparse;
  const mali::gpu_product* gpu_opt = nullptr;
  if (const auto text = parsed->get("gpu")) {
    const auto gpu = mali::find_gpu(*text);
    if (!gpu) return fail("mali", "--gpu: " + gpu.error_value().describe(), exit_usage);
    gpu_opt = *gpu;
  }
  std::optional<std::uint64_t> numbers[4];
  const char* names[4] = {"l2-slices", "core-mask", "bus-width-bits", "max-clock-mhz"};
  for (int i = 0; i < 4; ++i) {
    if (const auto text = parsed->get(names[i])) {
      numbers[i] = parse_mali_number(*text);
      if (!numbers[i]) {
        return fail("mali", std::string("--") + names[i] + ": not a number", exit_usage);
      }
    }
  }
  if (numbers[0] && *numbers[0] > mali::max_l2_slices) {
    return fail("mali", "--l2-slices: at most 64", exit_usage);
  }
  if (numbers[2] && *numbers[2] > 0xffffffffu) {
    return fail("mali", "--bus-width-bits: out of range", exit_usage);
  }
  // Options that mean something only together: an error, not ignored.
  if (parsed->has("derived") && !numbers[2]) {
    return fail("mali",
                "--derived needs --bus-width-bits B: the derived counters read the external bus "
                "width, which the samples do not carry",
                exit_usage);
  }
  if (parsed->has("counters-only") && (numbers[2] || parsed->has("derived"))) {
    return fail("mali",
                "--counters-only leaves out the derived counters that --bus-width-bits and "
                "--derived ask for: drop one",
                exit_usage);
  }
  if (numbers[3] && (*numbers[3] == 0 || *numbers[3] > 4000)) {
    return fail("mali", "--max-clock-mhz: expected 1..4000", exit_usage);
  }

  const std::string& path = parsed->positional[0];
  auto file = mapped_file::open(path);
  if (!file) return fail("mali", file.error_value().describe(), exit_bad_input);
  auto input = mali::open_capture(file->bytes());
  if (!input) return fail("mali", path + ": " + input.error_value().describe(), exit_bad_input);
  const std::span<const std::byte> payload = input->payload;
  const std::size_t base = input->base;
  const std::optional<mali::capture_header>& header = input->header;

  const mali::gpu_product* gpu = gpu_opt;
  if (header) {
    auto g = mali::gpu_of(*header);
    if (!g) return fail("mali", path + ": header: " + g.error_value().describe(), exit_bad_input);
    if (*g != nullptr && gpu_opt && gpu_opt->product_id != (*g)->product_id) {
      return fail("mali",
                  "--gpu " + std::string(gpu_opt->name) + " contradicts the capture's GPU_ID " +
                      to_hex(header->gpu_id) + " (" + std::string((*g)->name) + ")",
                  exit_usage);
    }
    if (*g != nullptr) gpu = *g;
  }
  if (!gpu) {
    return fail("mali",
                "--gpu is required: vinstr and kinstr_prfcnt samples do not say which GPU took "
                "them (hwpc mali --list-gpus lists the names)",
                exit_usage);
  }
  const mali::gpu_table& table = *gpu->table;

  std::string reader = reader_text;
  if (header) {
    const std::string from_file(mali::reader_name(header->reader));
    if (!reader.empty() && reader != from_file) {
      return fail("mali", "--reader " + reader + " contradicts the capture (" + from_file + ")",
                  exit_usage);
    }
    reader = from_file;
  }
  if (reader.empty()) reader = "vinstr";
  if (reader == "vinstr" && parsed->has("core-index")) {
    return fail("mali",
                "--core-index numbers kinstr_prfcnt blocks; vinstr samples have one block per "
                "core-mask bit: drop --core-index or give --reader kinstr",
                exit_usage);
  }
  if (reader == "vinstr" && table.values_per_block != mali::counters_per_block) {
    return fail("mali",
                std::string(gpu->name) + " has " + std::to_string(table.values_per_block) +
                    "-value blocks, which the vinstr reader cannot deliver (use --reader kinstr)",
                exit_usage);
  }

  mali::sample_layout layout;
  for (int i = 0; i < 2; ++i) {
    if (header) {
      const std::uint64_t from_file =
          i == 0 ? std::uint64_t{header->layout.l2_slices} : header->layout.core_mask;
      if (numbers[i] && *numbers[i] != from_file) {
        return fail("mali",
                    std::string("--") + names[i] + " contradicts the capture (" +
                        std::to_string(from_file) + ")",
                    exit_usage);
      }
      numbers[i] = from_file;
    }
    if (!numbers[i]) return fail("mali", std::string("--") + names[i] + " is required", 1);
  }
  layout.l2_slices = static_cast<std::uint32_t>(*numbers[0]);
  layout.core_mask = *numbers[1];
  if (auto ok = layout.validate(); !ok) {
    return fail("mali", ok.error_value().describe(), exit_usage);
  }

  // Derived counters: with --bus-width-bits (a constant the samples do not
  // carry). The G72 guide's by default on the Mali-G72, Arm's database's
  // otherwise or with --derived database.
  const std::string derived =
      parsed->get("derived").value_or(&table == &mali::gpus::g72 ? "guide" : "database");
  if (derived != "guide" && derived != "database") {
    return fail("mali", "--derived: expected guide or database", exit_usage);
  }
  if (derived == "guide" && &table != &mali::gpus::g72) {
    return fail("mali", "--derived guide: the counter guide's expressions are the Mali-G72's", 1);
  }
  std::optional<mali::evaluator> metrics;
  if (numbers[2] && !parsed->has("counters-only")) {
    const auto bits = static_cast<std::uint32_t>(*numbers[2]);
    auto ev = derived == "guide"
                  ? mali::evaluator::create(table, mali::g72_metric_set(),
                                            mali::g72_streamline_counters, layout, bits)
                  : mali::evaluator::database(table, layout, bits);
    if (!ev) return fail("mali", ev.error_value().describe(), exit_usage);
    metrics.emplace(std::move(*ev));
  }

  const std::string output_kind = parsed->get("output").value_or("csv");
  output::perfetto::trace_options trace_opt;
  if (auto l = parsed->get("perfetto-layout")) {
    const auto v = output::perfetto::parse_trace_layout(*l);
    if (!v || output_kind != "perfetto") {
      return fail("mali",
                  "--perfetto-layout goes with --output perfetto and is " +
                      std::string(output::perfetto::trace_layout_names) + ", not '" + *l + "'",
                  exit_usage);
    }
    trace_opt.layout = *v;
  }
  if (output_kind != "csv" && output_kind != "json" && output_kind != "chrome-json" &&
      output_kind != "perfetto" && output_kind != "html") {
    return fail("mali", "--output: expected csv, json, perfetto, chrome-json or html", exit_usage);
  }
  if (output_kind == "html" && parsed->has("summary")) {
    return fail("mali", "--summary and --output html: the report holds the totals already",
                exit_usage);
  }
  if (parsed->has("summary") && (output_kind == "perfetto" || output_kind == "chrome-json")) {
    return fail("mali",
                "--summary writes one row of totals as csv or json, not " + output_kind +
                    ": drop --summary for a trace of every sample, or use --output csv|json",
                exit_usage);
  }
  const bool perfetto = output_kind == "perfetto" && !parsed->has("summary");
  if (perfetto && ::isatty(STDOUT_FILENO) != 0) {
    return fail("mali", "--output perfetto writes binary; redirect stdout to a file", exit_usage);
  }
  const std::string naming = parsed->get("names").value_or("hardware");
  if (naming != "hardware" && naming != "streamline") {
    return fail("mali", "--names: expected hardware or streamline", exit_usage);
  }
  mali::row_options ropt;
  ropt.names =
      naming == "streamline" ? mali::counter_naming::streamline : mali::counter_naming::hardware;
  ropt.timed = reader == "kinstr" || header.has_value();
  ropt.losses = reader == "kinstr";
  if (perfetto || parsed->has("per-instance")) ropt.per_instance = layout;
  mali::row_builder builder(*gpu, metrics ? &*metrics : nullptr, ropt);
  const row_schema& schema = builder.schema();
  output::text_buffer out(stdout);
  const bool json = output_kind == "json";
  std::optional<output::summary_writer> summary;
  std::optional<output::csv_writer> csv;
  std::optional<output::json_writer> js;
  std::optional<output::chrome_json_writer> chrome;
  std::unique_ptr<output::row_writer> trace;
  std::optional<output::html::report_writer> report;
  std::optional<error> metric_error;
  output::row_writer* w = nullptr;
  output::summary_writer::metric_fn totals_metrics;
  if (metrics) {
    totals_metrics = [&](std::span<const std::uint64_t> t, std::uint64_t,
                         std::vector<cell>& cells) {
      if (auto ok = builder.metrics_of(t, cells); !ok) metric_error = ok.error_value();
    };
  }
  if (parsed->has("summary")) {
    w = &summary.emplace(out, schema, json, std::move(totals_metrics));
  } else if (output_kind == "html") {
    std::optional<std::uint64_t> gpu_id;
    if (header && header->gpu_id != 0) gpu_id = header->gpu_id;
    w = &report.emplace(
        out, schema,
        mali_report_facts(path, *gpu, gpu_id, reader, layout, metrics ? derived : std::string()),
        std::move(totals_metrics));
  } else if (json) {
    w = &js.emplace(out, schema);
  } else if (perfetto) {
    trace_opt.title = "hwpc mali " + schema.source + ": " + path;
    trace_opt.vendor = "Arm";
    trace_opt.model = std::string(gpu->name);
    trace_opt.columns = mali::track_layout_of(*gpu, schema, ropt);
    trace = output::perfetto::make_trace_writer(out, schema, std::move(trace_opt));
    w = trace.get();
  } else if (output_kind == "chrome-json") {
    w = &chrome.emplace(out, schema, "hwpc mali " + schema.source + ": " + path);
  } else {
    w = &csv.emplace(out, schema);
  }

  // Physics checks on every row; findings go to stderr after the rows.
  mali::plausibility_options popt;
  if (numbers[3]) popt.max_clock_hz = *numbers[3] * 1'000'000;
  // The rows' own derived counters are checked when they are the database's.
  mali::plausibility_checker checker(table, layout, popt, metrics ? &*metrics : nullptr);
  auto write_row = [&](const row& r) {
    checker.check(r);
    w->write(r);
  };
  result<accounting> acc = accounting{};
  if (reader == "vinstr") {
    auto cap = mali::vinstr_capture::make(table, layout, payload, base, header.has_value());
    if (!cap) return fail("mali", path + ": " + cap.error_value().describe(), exit_bad_input);
    acc = mali::for_each_row(*cap, builder, write_row);
  } else {
    auto rd = mali::kinstr_reader::make(table, layout, payload, base, cores);
    if (!rd) return fail("mali", path + ": " + rd.error_value().describe(), exit_bad_input);
    acc = mali::for_each_row(*rd, builder, write_row);
    if (acc && acc->reports == 0) {
      return fail("mali", path + ": no sample in the buffer", exit_bad_input);
    }
  }
  if (!acc) {
    out.flush();  // the rows before the error stay printed
    return fail("mali", path + ": " + acc.error_value().describe(), exit_bad_input);
  }
  w->end(*acc);
  out.flush();
  report_plausibility(checker, *gpu);
  if (metric_error) return fail("mali", metric_error->describe(), exit_bad_input);
  return exit_ok;
}

}  // namespace hwpc::cli
