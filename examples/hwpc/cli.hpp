// A small command-line parser shared by the hwpc subcommands.
//
// Each subcommand declares its options once; the same declaration drives
// parsing, validation and the text of `--help`, so the help can never drift
// from what is accepted. An option may declare its value's type: one of a
// list of choices (the usage shows them) or a number; parse() refuses any
// other value with one message shape for every command, so no command
// repeats the check.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace hwpc::cli {

// Exit statuses that scripts rely on.
inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 1;
inline constexpr int exit_bad_input = 2;

// What an option's value must be.
enum class value_kind : unsigned char {
  text,    // anything
  choice,  // one of the names value_name lists, separated by '|' ("vinstr|kinstr")
  number,  // a u64, decimal or 0x hexadecimal (parse_number)
};

struct option_spec {
  std::string_view name;        // without the leading "--"
  std::string_view value_name;  // empty: a flag without a value
  std::string_view help;
  bool repeatable = false;
  value_kind kind = value_kind::text;
};

// `--name A|B|C`: the value is one of the choices, which the usage shows as
// the value's name (so the help lists exactly what parse() accepts).
inline option_spec choice_option(std::string_view name, std::string_view choices,
                                 std::string_view help) {
  return {name, choices, help, false, value_kind::choice};
}
// `--name N`: the value is a number.
inline option_spec number_option(std::string_view name, std::string_view value_name,
                                 std::string_view help) {
  return {name, value_name, help, false, value_kind::number};
}

// A decimal or 0x-hexadecimal u64; nullopt for anything else (a sign, a
// suffix, a value beyond 64 bits, nothing).
inline std::optional<std::uint64_t> parse_number(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// "a or b", "a, b or c": the choices of "a|b|c" as a message names them.
inline std::string choices_text(std::string_view choices) {
  std::vector<std::string_view> names;
  for (std::size_t at = 0;;) {
    const std::size_t bar = choices.find('|', at);
    names.push_back(choices.substr(at, bar == std::string_view::npos ? bar : bar - at));
    if (bar == std::string_view::npos) break;
    at = bar + 1;
  }
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i != 0) s += i + 1 == names.size() ? " or " : ", ";
    s += names[i];
  }
  return s;
}

// Why `value` does not fit `o`, or empty when it does: "--reader: expected
// vinstr or kinstr, not 'x'" (the library's checks of the same options,
// e.g. mali::check, say "expected vinstr or kinstr" as well).
inline std::string value_error(const option_spec& o, std::string_view value) {
  if (o.kind == value_kind::choice) {
    for (std::size_t at = 0;;) {
      const std::size_t bar = o.value_name.find('|', at);
      if (o.value_name.substr(at, bar == std::string_view::npos ? bar : bar - at) == value) {
        return {};
      }
      if (bar == std::string_view::npos) break;
      at = bar + 1;
    }
    return "--" + std::string(o.name) + ": expected " + choices_text(o.value_name) + ", not '" +
           std::string(value) + "'";
  }
  if (o.kind == value_kind::number && !parse_number(value)) {
    return "--" + std::string(o.name) + ": expected a number (decimal or 0x hex), not '" +
           std::string(value) + "'";
  }
  return {};
}

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
  // A number option's value (parse() has checked it).
  std::optional<std::uint64_t> number(std::string_view name) const {
    const auto text = get(name);
    return text ? parse_number(*text) : std::nullopt;
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
    // A long list of choices: the help on a line of its own, under the others'.
    if (left.size() > 34) left += "\n" + std::string(34, ' ');
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
      if (const std::string why = value_error(*found, value); !why.empty()) {
        std::fprintf(stderr, "hwpc %.*s: %s\n", static_cast<int>(spec.name.size()),
                     spec.name.data(), why.c_str());
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
