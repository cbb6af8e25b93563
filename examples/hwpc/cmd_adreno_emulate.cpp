// hwpc adreno emulate: writes a freedreno .rd capture of a seeded A5xx workload
// (hwpc/adreno/emulate.hpp) and, with --truth, the rows `hwpc adreno --output
// csv` must give for it, so the Adreno reader can be checked end to end.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/adreno/emulate.hpp"
#include "hwpc/adreno/emulate6.hpp"
#include "hwpc/adreno/emulate_frames.hpp"
#include "hwpc/adreno/generation.hpp"

namespace hwpc::cli {

namespace {

const command_spec adreno_emulate_spec{
    "adreno emulate",
    "hwpc adreno emulate [--gpu a530|a630|a750] [--rounds N] [--seed S] [--libwrap]\n"
    "                    [--size BYTES[K|M|G] [--texture BYTES]] --out FILE.rd [--truth TRUTH]",
    "Writes a freedreno .rd capture of a seeded workload and, with --truth, what hwpc must\n"
    "read in it. A5xx (default; RD_GPU_ID 530): a top-level\n"
    "command buffer calling an indirect buffer that holds N rounds of a time-elapsed query\n"
    "around an occlusion query, then CP counter 1 programmed with a countable and sampled,\n"
    "and at the end the always-on counter sampled; the query memory is dumped with the\n"
    "values the queries leave. --truth writes the rows `hwpc adreno --output csv FILE.rd`\n"
    "must give: report, reason, samples_passed, time_elapsed (ns), gpu_time (ns), CP_1.\n"
    "A6xx (any A6XX name; written as an A630, RD_GPU_ID 630) or A7xx (written as an A750,\n"
    "RD_GPU_ID 0 and RD_CHIP_ID with fuse bits, as the kernel writes it): a 64-bit\n"
    "CP_INDIRECT_BUFFER to a buffer that sets the render mode and a draw-state group (which\n"
    "selects a TSE countable), then N rounds of an occlusion query, two timestamps, pipeline\n"
    "statistics (begin and end), counter selects and samples (A7xx: on the BR and the BV\n"
    "thread), a time-elapsed query and stream-out counts (begin and end); --truth\n"
    "then writes the lines `hwpc adreno --queries FILE.rd` must print. --libwrap writes\n"
    "Android libwrap's dialect (two 0xffffffff dwords before each section, an RD_TEST first).\n"
    "--size writes frames instead, submit after submit until the file holds BYTES: many draw\n"
    "IBs, draw-state groups (A6xx/A7xx) and draws each, for scale tests and benchmarks; it\n"
    "holds one submit in memory, and --truth then writes the packets, draws, IBs and\n"
    "submits a walk must find. --texture adds a data buffer to every submit, as real\n"
    "captures dump textures: the walk's counts stay. docs/adreno.md, \"Emulator\".",
    {{"gpu", "NAME", "the GPU: an A5xx (default a530), an A6xx or an A7xx"},
     number_option("rounds", "N", "query rounds (default 4, at most 100000)"),
     number_option("seed", "S", "workload seed (default 1)"),
     {"libwrap", "", "write Android libwrap's .rd dialect"},
     {"size", "BYTES", "write frames until the file holds BYTES (suffix K, M or G; at most 64G)"},
     {"texture", "BYTES",
      "with --size: a data buffer of BYTES (suffix K or M; at most 1G) in every submit, never "
      "walked"},
     {"out", "FILE", "the .rd capture to write"},
     {"truth", "FILE", "CSV of the rows the capture must decode to"}},
    0,
    0};

bool write_bytes(const std::string& path, std::span<const std::byte> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

// The report index of each truth row: every recognised event counts (a
// round's five: time-elapsed begin, occlusion begin and end, time-elapsed
// end, the counter sample), and only the results are rows.
std::uint64_t report_of(std::size_t row, std::size_t rows) {
  if (row + 1 == rows) return 5 * (row / 3);  // the always-on sample after the last round
  const std::size_t round = row / 3, within = row % 3;
  return 5 * round + 2 + within;
}

// "64M": a byte count from 1 to `max` (suffix K, M or G), or nullopt.
std::optional<std::uint64_t> byte_count(std::string_view t, std::uint64_t max) {
  std::uint64_t unit = 1;
  if (!t.empty()) {
    const char s = t.back();
    unit = s == 'K' || s == 'k'   ? 1ull << 10
           : s == 'M' || s == 'm' ? 1ull << 20
           : s == 'G' || s == 'g' ? 1ull << 30
                                  : 1;
    if (unit != 1) t.remove_suffix(1);
  }
  const auto n = parse_mali_number(t);
  if (!n || *n == 0 || *n > max / unit) return std::nullopt;
  return *n * unit;
}

// --size: frames written a submit at a time (adreno/emulate_frames.hpp).
int write_frames(const std::string& path, const std::optional<std::string>& truth,
                 adreno::generation gen, const adreno::emulate_options& o, std::uint64_t bytes,
                 std::uint64_t texture) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return fail("adreno emulate", "cannot write " + path, exit_bad_input);
  adreno::frames_options fo;
  fo.bytes = bytes;
  fo.seed = o.seed;
  fo.gen = gen;
  fo.libwrap = o.libwrap;
  fo.texture_bytes = texture;
  const adreno::frames_counts c = adreno::emulate_frames(
      fo, [f](const std::byte* p, std::size_t n) { return std::fwrite(p, 1, n, f) == n; });
  if (std::fclose(f) != 0 || c.bytes == 0) {
    return fail("adreno emulate", "cannot write " + path, exit_bad_input);
  }
  if (truth) {
    const std::string text =
        "bytes,submits,sections,packets,draws,ibs,group_records,stream_bytes\n" +
        std::to_string(c.bytes) + "," + std::to_string(c.submits) + "," +
        std::to_string(c.sections) + "," + std::to_string(c.packets) + "," +
        std::to_string(c.draws) + "," + std::to_string(c.ibs) + "," +
        std::to_string(c.group_records) + "," + std::to_string(c.stream_bytes) + "\n";
    if (!write_bytes(*truth, std::as_bytes(std::span(text)))) {
      return fail("adreno emulate", "cannot write " + *truth, exit_bad_input);
    }
  }
  return exit_ok;
}

}  // namespace

int cmd_adreno_emulate(const std::vector<std::string>& args) {
  int status = exit_ok;
  const auto parsed = parse(adreno_emulate_spec, args, status);
  if (!parsed) return status;
  adreno::generation gen = adreno::generation::a5xx;
  if (const auto g = parsed->get("gpu")) {
    const adreno::device* d = adreno::parse_device(*g);
    if (d == nullptr) {
      return fail("adreno emulate", "--gpu: '" + *g + "' is no Adreno hwpc knows", exit_usage);
    }
    gen = d->gen;
  }
  const auto out = parsed->get("out");
  if (!out) return fail("adreno emulate", "--out is required", exit_usage);
  adreno::emulate_options o;
  const auto rounds = parse_number(parsed->get("rounds").value_or("4"));
  if (!rounds || *rounds < 1 || *rounds > 100000) {
    return fail("adreno emulate", "--rounds: a number from 1 to 100000", exit_usage);
  }
  o.rounds = static_cast<std::uint32_t>(*rounds);
  // A number option: the parser has refused anything else, in its words
  // ("--seed: expected a number (decimal or 0x hex), not 'x'").
  o.seed = parse_number(parsed->get("seed").value_or("1")).value_or(1);
  o.libwrap = parsed->has("libwrap");
  if (const auto size = parsed->get("size")) {
    if (parsed->has("rounds")) {
      return fail("adreno emulate",
                  "--rounds sets the query workload's rounds; --size writes frames instead: "
                  "drop one of them",
                  exit_usage);
    }
    const auto n = byte_count(*size, 64ull << 30);
    if (!n) {
      return fail("adreno emulate", "--size: a byte count from 1 to 64G (suffix K, M or G)",
                  exit_usage);
    }
    std::uint64_t texture = 0;
    if (const auto t = parsed->get("texture")) {
      const auto m = byte_count(*t, 1ull << 30);
      if (!m) {
        return fail("adreno emulate", "--texture: a byte count from 1 to 1G (suffix K, M or G)",
                    exit_usage);
      }
      texture = *m;
    }
    return write_frames(*out, parsed->get("truth"), gen, o, *n, texture);
  }
  if (parsed->has("texture")) {
    return fail("adreno emulate", "--texture adds a data buffer to --size's frames: give --size",
                exit_usage);
  }
  if (gen != adreno::generation::a5xx) {
    const adreno::adreno6_emulation e6 =
        adreno::emulate_a6xx_a7xx(o, gen == adreno::generation::a7xx);
    if (!write_bytes(*out, e6.file)) {
      return fail("adreno emulate", "cannot write " + *out, exit_bad_input);
    }
    if (const auto truth = parsed->get("truth")) {
      std::string text;
      for (const std::string& l : e6.truth) text += l + "\n";
      if (!write_bytes(*truth, std::as_bytes(std::span(text)))) {
        return fail("adreno emulate", "cannot write " + *truth, exit_bad_input);
      }
    }
    return exit_ok;
  }
  const adreno::adreno_emulation e = adreno::emulate_a5xx(o);
  if (!write_bytes(*out, e.file))
    return fail("adreno emulate", "cannot write " + *out, exit_bad_input);
  if (const auto truth = parsed->get("truth")) {
    std::string csv = "report,reason,samples_passed,time_elapsed,gpu_time,CP_1\n";
    const auto cell = [](bool has, std::uint64_t v) { return has ? std::to_string(v) : ""; };
    for (std::size_t k = 0; k < e.truth.size(); ++k) {
      const adreno::emulated_row& r = e.truth[k];
      const bool occ = r.reason == "occlusion", te = r.reason == "time-elapsed",
                 aon = r.reason == "always-on";
      csv += std::to_string(report_of(k, e.truth.size())) + "," + r.reason + "," +
             cell(occ, r.samples_passed) + "," + cell(te, r.time_elapsed_ns) + "," +
             cell(aon, r.gpu_time_ns) + "," + cell(!occ && !te && !aon, r.counter) + "\n";
    }
    if (!write_bytes(*truth, std::as_bytes(std::span(csv)))) {
      return fail("adreno emulate", "cannot write " + *truth, exit_bad_input);
    }
  }
  return exit_ok;
}

}  // namespace hwpc::cli
