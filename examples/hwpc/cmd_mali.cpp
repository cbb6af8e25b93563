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
#include "hwpc/output/make_writer.hpp"
#include "hwpc/pipeline/mali_open.hpp"
#include "hwpc/pipeline/mapped_file.hpp"
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
     {"output", "csv|json|perfetto|chrome-json|html",
      "output format (default csv; html: hwpc report)"},
     {"perfetto-layout", "gpu-counters|track-event",
      "--output perfetto: GPU counter packets (default) or the older generic counter tracks"},
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
  // the library (pipeline/mali_open.hpp) checks them, and takes from a
  // capture file's header what they leave out.
  mali::open_options mo;
  if (const auto text = parsed->get("gpu")) {
    const auto gpu = mali::find_gpu(*text);
    if (!gpu) return fail("mali", "--gpu: " + gpu.error_value().describe(), exit_usage);
    mo.gpu = *gpu;
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
  mo.reader = parsed->get("reader");
  mo.core_index = parsed->get("core-index");
  mo.l2_slices = numbers[0];
  mo.core_mask = numbers[1];
  mo.bus_width_bits = numbers[2];
  mo.max_clock_mhz = numbers[3];
  mo.derived = parsed->get("derived");
  mo.counters_only = parsed->has("counters-only");
  mo.names = parsed->get("names");
  const pipeline::spelling sp{pipeline::door::tool};
  const auto library_fail = [](const std::string& where, const error& e) {
    if (is_usage(e)) return fail("mali", e.message, exit_usage);
    return fail("mali", where + e.describe(), exit_bad_input);
  };
  if (auto ok = mali::check(mo, sp); !ok) return library_fail("", ok.error_value());

  const std::string& path = parsed->positional[0];
  const auto choice =
      output::check_output(parsed->get("output").value_or("csv"), parsed->has("summary"), "sample",
                           ::isatty(STDOUT_FILENO) != 0);
  if (!choice) return library_fail("", choice.error_value());
  const bool perfetto = choice->kind == output::writer_kind::perfetto && !choice->summary;
  auto layout = output::perfetto::trace_layout::gpu_counters;
  if (auto l = parsed->get("perfetto-layout")) {
    auto v = output::check_perfetto_layout(*choice, *l);
    if (!v) return library_fail("", v.error_value());
    layout = *v;
  }
  auto file = pipeline::mapped_file::open(path);
  if (!file) return fail("mali", file.error_value().describe(), exit_bad_input);
  mo.per_instance = perfetto || parsed->has("per-instance");
  auto opened = mali::open(file->bytes(), mo, sp);
  if (!opened) return library_fail(path + ": ", opened.error_value());
  const mali::opened_capture& c = *opened;
  const mali::gpu_product* gpu = c.gpu;
  const mali::gpu_table& table = *gpu->table;
  const std::optional<mali::evaluator>& metrics = c.metrics;
  const std::optional<mali::capture_header>& header = c.header;
  const mali::row_options& ropt = c.rows;
  mali::row_builder builder(*gpu, metrics ? &*metrics : nullptr, ropt);
  const row_schema& schema = builder.schema();
  output::text_buffer out(stdout);
  std::optional<error> metric_error;
  output::writer_parts parts;
  if (metrics) {
    parts.totals_metrics = [&](std::span<const std::uint64_t> t, std::uint64_t,
                               std::vector<cell>& cells) {
      if (auto ok = builder.metrics_of(t, cells); !ok) metric_error = ok.error_value();
    };
  }
  parts.title = "hwpc mali " + schema.source + ": " + path;
  if (choice->kind == output::writer_kind::html) {
    std::optional<std::uint64_t> gpu_id;
    if (header && header->gpu_id != 0) gpu_id = header->gpu_id;
    parts.report = mali_report_facts(path, *gpu, gpu_id, c.reader, c.layout, c.derived);
  }
  if (perfetto) {
    parts.tracks = mali::track_layout_of(*gpu, schema, ropt);
    parts.layout = layout;
    parts.vendor = "Arm";
    parts.model = std::string(gpu->name);
  }
  const auto made = output::make_writer(*choice, out, schema, std::move(parts));
  output::row_writer* w = made.writer.get();

  // Physics checks on every row; findings go to stderr after the rows.
  mali::plausibility_options popt;
  if (numbers[3]) popt.max_clock_hz = *numbers[3] * 1'000'000;
  // The rows' own derived counters are checked when they are the database's.
  mali::plausibility_checker checker(table, c.layout, popt, metrics ? &*metrics : nullptr);
  auto write_row = [&](const row& r) {
    checker.check(r);
    w->write(r);
  };
  auto acc = mali::for_each_row(c, builder, write_row);
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
