// hwpc mali: decode a capture of Mali hardware-counter samples (kbase vinstr or
// kinstr_prfcnt) for any GPU of Arm's counter database and write one row per
// sample through the shared writers (CSV, JSON, a native Perfetto trace,
// Chrome trace JSON, or one row of totals): every counter of the GPU's table
// summed over its block instances and, with --bus-width-bits, the derived
// counters (the Mali-G72 guide's or Arm's database's). Rows are written as
// samples are decoded (memory does not grow with the capture).
//
// A door: the options become mali::open_options, and the library
// (pipeline/mali_capture.hpp) checks them, opens the capture and writes its
// rows through the writer --output names; hwpc.mali.decode does the same.
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "capture_door.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/mali_capture.hpp"
#include "hwpc/pipeline/mali_open.hpp"
#include "hwpc/pipeline/open.hpp"
#include "options_mali.hpp"

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
     choice_option("reader", "vinstr|kinstr",
                   "the kernel reader that produced FILE (default vinstr)"),
     number_option("l2-slices", "N",
                   "number of L2 slices (memory blocks; required without a header)"),
     number_option("core-mask", "M",
                   "shader core mask, decimal or 0x hex (e.g. 0xb: cores 0, 1, 3; required without "
                   "a header)"),
     choice_option(
         "core-index", "dense|sparse",
         "kinstr shader-core block numbering: dense (default) or by core-mask bit (older kbase)"),
     number_option("bus-width-bits", "B", "external bus width in bits: adds the derived counters"),
     choice_option(
         "derived", "guide|database",
         "which derived counters: the Mali-G72 guide's (default on the G72) or Arm's database's"),
     {"counters-only", "", "no derived counters"},
     choice_option("output", "csv|json|perfetto|chrome-json|html",
                   "output format (default csv; html: hwpc report)"),
     choice_option(
         "perfetto-layout", "gpu-counters|track-event",
         "--output perfetto: GPU counter packets (default) or the older generic counter tracks"),
     {"per-instance", "", "also each L2 slice's and shader core's counters"},
     number_option(
         "max-clock-mhz", "F",
         "the GPU's highest clock: GPU_ACTIVE beyond duration x F is a plausibility warning"),
     choice_option(
         "names", "hardware|streamline",
         "counter column names: hardware (default, GPU_ACTIVE) or Streamline (MaliGPUActiveCy)"),
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

  // Options first (usage errors before any file is touched): the library
  // (pipeline/mali_open.hpp) checks them, and takes from a capture file's
  // header what they leave out.
  mali::open_options mo;
  read_mali_options(*parsed, mo);
  const pipeline::spelling sp{pipeline::door::tool};
  if (const auto text = parsed->get("gpu")) {
    const auto gpu = mali_gpu(*text, sp);
    if (!gpu) return capture_fail(vendor::mali, "", gpu.error_value());
    mo.gpu = *gpu;
  }
  const auto library_fail = [](const error& e) { return capture_fail(vendor::mali, "", e); };
  if (auto ok = mali::check(mo, sp); !ok) return library_fail(ok.error_value());
  write_options wo;
  const auto choice =
      output::check_output(parsed->get("output").value_or("csv"), parsed->has("summary"), "sample",
                           ::isatty(STDOUT_FILENO) != 0);
  if (!choice) return library_fail(choice.error_value());
  wo.choice = *choice;
  if (auto l = parsed->get("perfetto-layout")) {
    auto v = output::check_perfetto_layout(*choice, *l);
    if (!v) return library_fail(v.error_value());
    wo.layout = *v;
  }
  // A trace has a track per L2 slice and shader core.
  mo.per_instance = parsed->has("per-instance") ||
                    (choice->kind == output::writer_kind::perfetto && !choice->summary);

  const std::string& path = parsed->positional[0];
  auto source = capture_source::map(path);
  if (!source) return fail("mali", source.error_value().describe(), exit_bad_input);
  auto cap = mali::open_capture(std::move(*source), mo, sp);
  if (!cap) return capture_fail(vendor::mali, path, cap.error_value());
  output::text_buffer out(stdout);
  return write_capture(**cap, path, wo, out);
}

}  // namespace hwpc::cli
