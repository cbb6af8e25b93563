// hwpc mali emulate: writes an hwpc Mali capture file of emulated samples
// (hwpc/mali/emulate.hpp) and, with --truth, the counters every sample must
// decode to, so `hwpc mali` can be checked end to end.
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

namespace hwpc::cli {

// A decimal or 0x-hexadecimal u64 option value (the parser's number).
std::optional<std::uint64_t> parse_mali_number(std::string_view s) { return parse_number(s); }

namespace {

const command_spec emulate_spec{
    "mali emulate",
    "hwpc mali emulate --gpu NAME|GPU_ID [--reader vinstr|kinstr] --l2-slices N --core-mask M\n"
    "                  [--samples K] [--seed S] [--period-ns P] --out FILE [--truth TRUTH.csv]",
    "Writes an hwpc Mali capture file of K emulated samples of the GPU (its GPU_ID, reader, L2\n"
    "slices and core mask in the header) with a seeded workload: GPU_ACTIVE is the active\n"
    "cycles of each period (at 1 GHz), every other counter of every block at most that, and\n"
    "the counters keep the GPU's physics (misses within lookups, histograms within their\n"
    "totals, ...: every derived counter in its range; docs/mali.md);\n"
    "vinstr gap blocks and kinstr blocks that are off or protected hold garbage. --truth\n"
    "writes, per sample, its report index, timestamp (end, ns) and every counter of the GPU's\n"
    "table summed over its block instances and scaled by its shift: the columns `hwpc mali FILE`\n"
    "must print.",
    {{"gpu", "NAME|GPU_ID", "the GPU to emulate (required)"},
     choice_option("reader", "vinstr|kinstr",
                   "vinstr (default; 64-value GPUs only) or kinstr_prfcnt"),
     number_option("l2-slices", "N", "number of L2 slices (default 1)"),
     number_option("core-mask", "M", "shader core mask (default 0xf)"),
     number_option("samples", "K", "number of samples (default 10)"),
     number_option("seed", "S", "workload seed (default 1)"),
     number_option("period-ns", "P", "sample period in ns (default 1000000)"),
     {"out", "FILE", "the capture file to write"},
     {"truth", "FILE", "CSV of the counters each sample must decode to"}},
    0,
    0};

bool write_file(const std::string& path, std::span<const std::byte> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int cmd_mali_emulate(const std::vector<std::string>& args) {
  int status = exit_ok;
  const auto parsed = parse(emulate_spec, args, status);
  if (!parsed) return status;
  const auto gpu_text = parsed->get("gpu");
  if (!gpu_text) return fail("mali emulate", "--gpu is required", exit_usage);
  const auto gpu = mali::find_gpu(*gpu_text);
  if (!gpu) return fail("mali emulate", "--gpu: " + gpu.error_value().describe(), exit_usage);
  const auto out = parsed->get("out");
  if (!out) return fail("mali emulate", "--out is required", exit_usage);
  mali::emulate_options o;
  o.gpu_id = mali::gpu_id_of_product((*gpu)->product_id);
  o.csf = mali::is_csf_product((*gpu)->product_id);
  o.values_per_block = (*gpu)->table->values_per_block;
  o.table = (*gpu)->table;                       // the workload keeps the GPU's physics
  o.kinstr = parsed->get("reader") == "kinstr";  // the parser took vinstr or kinstr
  if (!o.kinstr && o.values_per_block != mali::counters_per_block) {
    return fail("mali emulate",
                std::string((*gpu)->name) + " has 128-value blocks: use --reader kinstr",
                exit_usage);
  }
  struct numeric {
    const char* name;
    std::uint64_t fallback, min, max;
    std::uint64_t value = 0;
  } n[] = {{"l2-slices", 1, 1, mali::max_l2_slices},
           {"core-mask", 0xf, 1, ~0ull},
           {"samples", 10, 1, 1'000'000},
           {"seed", 1, 0, ~0ull},
           {"period-ns", 1'000'000, 1, 1'000'000'000'000ull}};
  for (auto& x : n) {
    // The parser took a number; its range is this command's.
    const std::uint64_t v = parsed->number(x.name).value_or(x.fallback);
    if (v < x.min || v > x.max) {
      const std::string range = x.max == ~0ull
                                    ? "at least " + std::to_string(x.min)
                                    : std::to_string(x.min) + ".." + std::to_string(x.max);
      return fail("mali emulate",
                  std::string("--") + x.name + ": expected " + range + ", not " + std::to_string(v),
                  exit_usage);
    }
    x.value = v;
  }
  o.l2_slices = static_cast<std::uint32_t>(n[0].value);
  o.core_mask = n[1].value;
  o.samples = static_cast<std::size_t>(n[2].value);
  o.seed = n[3].value;
  o.period_ns = n[4].value;
  const mali::emulation e = mali::emulate(o);
  if (!write_file(*out, e.file)) {
    return fail("mali emulate", "cannot write " + *out, exit_bad_input);
  }
  if (const auto truth = parsed->get("truth")) {
    std::string csv = "report,timestamp";
    for (const mali::hw_counter& c : (*gpu)->table->counters) csv += "," + std::string(c.name);
    csv += "\n";
    for (std::size_t k = 0; k < e.truth.size(); ++k) {
      csv += std::to_string(k) + "," + std::to_string(e.end_ns[k]);
      for (const mali::hw_counter& c : (*gpu)->table->counters) {
        // As hwpc mali prints it: scaled by the counter's shift.
        csv += "," + std::to_string(mali::scale_counter(e.truth[k][c.id], c.shift));
      }
      csv += "\n";
    }
    if (!write_file(*truth, std::as_bytes(std::span(csv)))) {
      return fail("mali emulate", "cannot write " + *truth, exit_bad_input);
    }
  }
  return exit_ok;
}

}  // namespace hwpc::cli
