// hwpc: decode GPU performance-counter captures from the command line.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"

namespace {

constexpr hwpc::cli::command_entry commands[] = {
    {"formats", "list every Intel OA report format and its fields", hwpc::cli::cmd_formats},
    {"decode", "decode a capture into per-interval counter deltas", hwpc::cli::cmd_decode},
    {"emulate", "emulate an OA unit: write a capture and its exact counter increments",
     hwpc::cli::cmd_emulate},
    {"eval", "compile and evaluate one formula (Intel RPN or Arm infix)", hwpc::cli::cmd_eval},
    {"adreno", "disassemble an Adreno A5xx, A6xx or A7xx PM4 stream and explain its queries",
     hwpc::cli::cmd_adreno},
    {"mali", "decode Mali samples of any GPU in Arm's counter database: counters, derived",
     hwpc::cli::cmd_mali},
    {"report", "write a self-contained HTML report of a capture (facts, charts, totals)",
     hwpc::cli::cmd_report},
    {"record", "record counters live from the kernel (i915 perf, Arm kbase)",
     hwpc::cli::cmd_record},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: hwpc COMMAND [options]\n\ncommands:\n");
  for (const auto& c : commands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(out, "\nRun 'hwpc COMMAND --help' for the options of a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return hwpc::cli::exit_usage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(stdout);
    return hwpc::cli::exit_ok;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : commands) {
    if (name == c.name) return c.run(args);
  }
  std::fprintf(stderr, "hwpc: unknown command '%s'\n", name.c_str());
  usage(stderr);
  return hwpc::cli::exit_usage;
}
