// The subcommands of the hwpc tool. Each lives in its own cmd_<name>.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwpc::cli {

using command_fn = int (*)(const std::vector<std::string>& args);

struct command_entry {
  const char* name;
  const char* summary;
  command_fn run;
};

int cmd_formats(const std::vector<std::string>& args);
int cmd_decode(const std::vector<std::string>& args);
int cmd_emulate(const std::vector<std::string>& args);
int cmd_eval(const std::vector<std::string>& args);
int cmd_adreno(const std::vector<std::string>& args);
int cmd_adreno_emulate(const std::vector<std::string>& args);
int cmd_mali(const std::vector<std::string>& args);
int cmd_mali_emulate(const std::vector<std::string>& args);
int cmd_report(const std::vector<std::string>& args);
int cmd_record(const std::vector<std::string>& args);
// A decimal or 0x-hexadecimal number (hwpc mali options).
std::optional<std::uint64_t> parse_mali_number(std::string_view s);

}  // namespace hwpc::cli
