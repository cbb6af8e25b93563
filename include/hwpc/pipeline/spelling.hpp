// How a door spells the options it hands the library, so that the library
// words every usage error once and each door shows it in its own spelling:
// the tool's `--core-index` and `--reader kinstr`, Python's `core_index` and
// `reader='kinstr'`. Options are named in the library by their Python
// keyword (snake_case); the tool's spelling is derived from it.
#pragma once

#include <string>
#include <string_view>

namespace hwpc::pipeline {

enum class door : unsigned char { tool, python };

struct spelling {
  door d = door::tool;

  // "core_index" -> "--core-index" (tool) or "core_index" (Python).
  std::string option(std::string_view key) const {
    if (d == door::python) return std::string(key);
    std::string s = "--";
    for (const char c : key) s += c == '_' ? '-' : c;
    return s;
  }
  // An option with its value: "--reader kinstr" or "reader='kinstr'".
  std::string with(std::string_view key, std::string_view value) const {
    if (d == door::python) return std::string(key) + "='" + std::string(value) + "'";
    return option(key) + " " + std::string(value);
  }
};

}  // namespace hwpc::pipeline
