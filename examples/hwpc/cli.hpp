// A small command-line parser shared by the hwpc subcommands.
//
// Each subcommand declares its options once; the same declaration drives
// parsing, validation and the text of `--help`, so the help can never drift
// from what is accepted.
#pragma once

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwpc::cli {

// Exit statuses that scripts rely on.
inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 1;
inline constexpr int exit_bad_input = 2;

struct option_spec {
  std::string_view name;        // without the leading "--"
  std::string_view value_name;  // empty: a flag without a value
  std::string_view help;
  bool repeatable = false;
};

struct command_spec {
  std::string_view name;
  std::string_view synopsis;  // e.g. "hwpc decode [options] FILE"
  std::string_view summary;
  std::vector<option_spec> options;
  std::size_t min_positional = 0;
  std::size_t max_positional = 0;
};

struct parsed_args {
  std::map<std::string, std::vector<std::string>, std::less<>> values;
  std::vector<std::string> positional;

  bool has(std::string_view name) const { return values.find(name) != values.end(); }
  std::optional<std::string> get(std::string_view name) const {
    auto it = values.find(name);
    if (it == values.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
  }
  std::vector<std::string> all(std::string_view name) const {
    auto it = values.find(name);
    return it == values.end() ? std::vector<std::string>{} : it->second;
  }
};

inline void print_help(const command_spec& spec, std::FILE* out) {
  std::fprintf(out, "usage: %.*s\n\n%.*s\n", static_cast<int>(spec.synopsis.size()),
               spec.synopsis.data(), static_cast<int>(spec.summary.size()), spec.summary.data());
  if (!spec.options.empty()) std::fprintf(out, "\noptions:\n");
  for (const auto& o : spec.options) {
    std::string left = "  --" + std::string(o.name);
    if (!o.value_name.empty()) left += " " + std::string(o.value_name);
    std::fprintf(out, "%-34s %.*s%s\n", left.c_str(), static_cast<int>(o.help.size()),
                 o.help.data(), o.repeatable ? " (repeatable)" : "");
  }
  std::fprintf(out, "  %-32s %s\n", "--help", "show this help and exit");
}

// Parses argv (without the program and subcommand names). Returns nullopt and
// prints a message (or the help) when the command should exit; `status` then
// holds the exit status.
inline std::optional<parsed_args> parse(const command_spec& spec,
                                        const std::vector<std::string>& argv, int& status) {
  parsed_args out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      print_help(spec, stdout);
      status = exit_ok;
      return std::nullopt;
    }
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string name = a.substr(2);
      std::optional<std::string> inline_value;
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name.resize(eq);
      }
      const option_spec* found = nullptr;
      for (const auto& o : spec.options) {
        if (o.name == name) found = &o;
      }
      if (found == nullptr) {
        std::fprintf(stderr, "hwpc %.*s: unknown option --%s (see --help)\n",
                     static_cast<int>(spec.name.size()), spec.name.data(), name.c_str());
        status = exit_usage;
        return std::nullopt;
      }
      std::string value;
      if (!found->value_name.empty()) {
        if (inline_value) {
          value = *inline_value;
        } else if (i + 1 < argv.size()) {
          value = argv[++i];
        } else {
          std::fprintf(stderr, "hwpc %.*s: --%s needs a value %.*s\n",
                       static_cast<int>(spec.name.size()), spec.name.data(), name.c_str(),
                       static_cast<int>(found->value_name.size()), found->value_name.data());
          status = exit_usage;
          return std::nullopt;
        }
      } else if (inline_value) {
        std::fprintf(stderr, "hwpc %.*s: --%s takes no value\n", static_cast<int>(spec.name.size()),
                     spec.name.data(), name.c_str());
        status = exit_usage;
        return std::nullopt;
      }
      auto& slot = out.values[name];
      if (!slot.empty() && !found->repeatable) slot.clear();  // last one wins
      slot.push_back(std::move(value));
    } else {
      out.positional.push_back(a);
    }
  }
  if (out.positional.size() < spec.min_positional || out.positional.size() > spec.max_positional) {
    std::fprintf(stderr, "hwpc %.*s: wrong number of arguments\n",
                 static_cast<int>(spec.name.size()), spec.name.data());
    print_help(spec, stderr);
    status = exit_usage;
    return std::nullopt;
  }
  return out;
}

// Prints "hwpc CMD: MESSAGE" to stderr and returns `status`.
inline int fail(std::string_view command, const std::string& message, int status) {
  std::fprintf(stderr, "hwpc %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               message.c_str());
  return status;
}

}  // namespace hwpc::cli
