// The subcommands of the hwpc tool. Each lives in its own cmd_<name>.cpp.
#pragma once

#include <string>
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
int cmd_mali(const std::vector<std::string>& args);

}  // namespace hwpc::cli
