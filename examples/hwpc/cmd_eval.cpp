// hwpc eval: compile and evaluate one formula (Intel RPN or Arm infix).
#include <array>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/expr/compile.hpp"
#include "hwpc/expr/lexer.hpp"

namespace hwpc::cli {

namespace {

const command_spec eval_spec{
    "eval",
    "hwpc eval [--syntax rpn|infix] [--arithmetic mdapi|igt] --expr EXPR [--var NAME=VALUE]...",
    "Compiles EXPR and prints its value: integers (u64) without a decimal point, doubles\n"
    "in the shortest form that reads back as the same value. Names ($Name or bare in\n"
    "infix; A 3 READ reads A3) must be given a value with --var. Without --syntax the\n"
    "formula is read as infix unless it parses only as RPN. Errors name the column (exit status "
    "2).",
    {choice_option("syntax", "rpn|infix",
                   "the formula syntax (default: infix, or RPN if only that parses)"),
     choice_option(
         "arithmetic", "mdapi|igt",
         "integer products and quotients used as doubles: exact, as Intel's metrics-discovery "
         "(default), or truncated, as IGT (see docs/expressions.md)"),
     {"expr", "EXPR", "the formula"},
     {"var", "NAME=VALUE", "bind a name: an integer (u64) or a decimal (double)", true}},
    0,
    0};

// "24", "0x18", "1.5", "-2" -> a typed value.
std::optional<expr::value> parse_value(const std::string& text) {
  std::string_view t = text;
  const bool negative = !t.empty() && t.front() == '-';
  if (negative) t.remove_prefix(1);
  if (t.empty() || !expr::is_digit(t.front())) return std::nullopt;
  const expr::number_scan n = expr::scan_number(t, 0);
  if (!n.status || n.end != t.size()) return std::nullopt;
  if (!negative) return n.v;
  return expr::value::f(-n.v.as_double());
}

}  // namespace

int cmd_eval(const std::vector<std::string>& args) {
  int status = exit_ok;
  const auto parsed = parse(eval_spec, args, status);
  if (!parsed) return status;
  const auto text = parsed->get("expr");
  if (!text) return fail("eval", "--expr EXPR is required (see --help)", exit_usage);

  std::optional<expr::syntax> syntax;
  // The parser took only the choices the options list.
  if (auto s = parsed->get("syntax"))
    syntax = *s == "rpn" ? expr::syntax::rpn : expr::syntax::infix;
  auto arith = expr::arithmetic::mdapi;
  if (auto a = parsed->get("arithmetic")) arith = expr::parse_arithmetic(*a).value_or(arith);

  expr::symbol_table symbols;
  std::vector<expr::value> values;
  for (const std::string& v : parsed->all("var")) {
    const auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0) {
      return fail("eval", "--var needs NAME=VALUE, got '" + v + "'", exit_usage);
    }
    const auto val = parse_value(v.substr(eq + 1));
    if (!val) return fail("eval", "--var " + v + ": VALUE must be a number", exit_usage);
    const std::uint32_t index = symbols.add(v.substr(0, eq), val->type);
    if (index < values.size()) {
      values[index] = *val;  // the last binding wins
    } else {
      values.push_back(*val);
    }
  }

  auto compiled = expr::compile(*text, syntax.value_or(expr::syntax::infix), symbols, arith);
  if (!compiled && !syntax) {
    // Not infix: RPN if that parses; otherwise the error of whichever syntax got further.
    auto rpn = expr::compile(*text, expr::syntax::rpn, symbols, arith);
    if (rpn || rpn.error_value().offset > compiled.error_value().offset) compiled = std::move(rpn);
  }
  if (!compiled) return fail("eval", compiled.error_value().describe(), exit_bad_input);

  std::vector<expr::slot> inputs;
  for (const expr::value& v : values) inputs.push_back(v.bits);
  const expr::value result = compiled->evaluate(inputs);
  if (result.is_u64()) {
    std::printf("%" PRIu64 "\n", result.bits);
  } else {
    // The shortest form that reads back as the same double, as the CSV prints it (0.05, not
    // %.17g's 0.050000000000000003).
    std::array<char, 32> text{};
    const auto end = std::to_chars(text.data(), text.data() + text.size(), result.as_double()).ptr;
    std::printf("%.*s\n", static_cast<int>(end - text.data()), text.data());
  }
  return exit_ok;
}

}  // namespace hwpc::cli
