// What every command that holds an opened capture does with it: show its
// warnings, write its rows, show what is known only after them, and map the
// library's errors to exit statuses (a usage error 1, bad input 2), each
// vendor in the words and under the name of its own command (hwpc decode
// for Intel, hwpc mali, hwpc adreno), so `hwpc decode FILE` and `hwpc report`
// print what `hwpc mali FILE` or `hwpc adreno FILE --output csv` print.
#pragma once

#include <cstdio>
#include <string>

#include "cli.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/capture.hpp"

namespace hwpc::cli {

inline const char* command_of(vendor v) {
  return v == vendor::mali ? "mali" : v == vendor::adreno ? "adreno" : "decode";
}

// An error of the library about `path` (a vendor's; empty path: the
// embedded default capture). Intel's errors carry the whole line
// (pipeline/intel_capture.hpp); Mali's and Adreno's bad input names the file.
inline int capture_fail(vendor v, const std::string& path, const error& e) {
  const int status = is_usage(e) ? exit_usage : exit_bad_input;
  if (v == vendor::mali)
    return fail("mali", is_usage(e) ? e.message : path + ": " + e.describe(), status);
  if (v == vendor::adreno) {
    return fail("adreno", path + ": " + (is_usage(e) ? e.message : e.describe()), status);
  }
  return fail("decode", e.message, status);
}

// The issues an Adreno capture met (its on_issue): the first 50 of each kind.
struct adreno_issue_printer {
  std::string path;
  std::size_t shown = 0, notes = 0;
  void operator()(const error& e, bool note) {
    std::size_t& n = note ? notes : shown;
    if (++n <= 50) {
      std::fprintf(stderr, "hwpc adreno: %s: %s%s\n", path.c_str(), note ? "note: " : "",
                   e.describe().c_str());
    }
  }
};

// The Adreno reader skipped bad data: the listing above is partial (exit 2).
inline int adreno_partial(const std::string& path, std::size_t issues, std::uint64_t skipped) {
  return fail("adreno", adreno::partial_line(path, issues, skipped), exit_bad_input);
}

// Writes `c` (opened from `path`) into `out` as `wo` says, warnings on
// stderr. `written`, when given, runs after the rows are flushed (a progress
// bar's end).
template <class AfterRows = void (*)()>
int write_capture(
    capture& c, const std::string& path, const write_options& wo, output::text_buffer& out,
    AfterRows after_rows = [] {}) {
  const vendor v = c.vendor();
  const pipeline::spelling sp{pipeline::door::tool};
  for (const std::string& w : c.warnings()) {
    if (v == vendor::adreno) {
      std::fprintf(stderr, "hwpc adreno: %s: note: %s\n", path.c_str(), w.c_str());
    } else {
      fail(command_of(v), w, exit_ok);
    }
  }
  const auto acc = c.write(wo, out);
  after_rows();
  out.flush();  // the rows before an error stay printed
  // Physics findings after the rows: the first few, then how many.
  for (const std::string& line : c.warnings_after_rows(20, sp)) {
    std::fprintf(stderr, "hwpc %s: warning: %s\n", command_of(v), line.c_str());
  }
  // What the capture says once its rows are written: records dropped on the
  // way, and whether the rows are partial.
  for (const std::string& line : c.notes_after_rows()) fail(command_of(v), line, exit_ok);
  if (!acc) {
    if (v == vendor::intel) return capture_fail(v, path, acc.error_value());
    return fail(command_of(v), path + ": " + acc.error_value().describe(), exit_bad_input);
  }
  if (const auto partial = c.partial_output()) {
    return fail(command_of(v), *partial, exit_bad_input);
  }
  return exit_ok;
}

}  // namespace hwpc::cli
