// The infix front end: Arm Streamline derived-counter expressions such as
//
//   max(min(($MaliGPUCyclesTilerActive / $MaliGPUCyclesGPUActive) * 100, 100), 0)
//
// Arithmetic (+ - * / and unary -) and min/max are double operations, as in
// Streamline, so a ratio of two counters is not truncated. The other operators
// use C precedence and map to the IR operators the RPN syntax has (& << >> &&)
// plus a few extras (|| ! comparisons ?:). Every RPN operator also has a
// function spelling (uadd(a, b), udiv(a, b), fmax(a, b), ...) so that any RPN
// formula can be written in infix with the same meaning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <type_traits>
#include <vector>

#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/lexer.hpp"
#include "hwpc/expr/rpn.hpp"
#include "hwpc/expr/symbols.hpp"

namespace hwpc::expr {

// Deeper nesting than this is rejected rather than risking the stack. One
// level is a parenthesis, a function call, a unary operator or a branch of
// `?:`; a chain of binary operators nests at most once per precedence level,
// so it needs no count of its own.
inline constexpr int max_infix_depth = 200;

// Parentheses first, so that an unbalanced formula gets an error about the
// parenthesis itself rather than about whatever token the parser trips on.
constexpr parse_status check_parentheses(std::string_view text) {
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') {
      open.push_back(i);
    } else if (text[i] == ')') {
      if (open.empty())
        return fail(errc::syntax, i, 1, "unbalanced parentheses: ')' has no matching '('");
      open.pop_back();
    }
  }
  if (!open.empty()) {
    return fail(errc::syntax, open.front(), 1, "unbalanced parentheses: '(' is never closed");
  }
  return {};
}

namespace detail {

struct infix_function {
  std::string_view name;
  op code;
  int arity;  // -1: variadic min/max
};

inline constexpr infix_function infix_functions[] = {
    {"min", op::fmin, -1}, {"max", op::fmax, -1}, {"fmin", op::fmin, 2},  {"fmax", op::fmax, 2},
    {"uadd", op::uadd, 2}, {"usub", op::usub, 2}, {"umul", op::umul, 2},  {"udiv", op::udiv, 2},
    {"umin", op::umin, 2}, {"fadd", op::fadd, 2}, {"fsub", op::fsub, 2},  {"fmul", op::fmul, 2},
    {"fdiv", op::fdiv, 2}, {"and", op::band, 2},  {"ugt", op::ugt, 2},    {"ugte", op::ugte, 2},
    {"ult", op::ult, 2},   {"ulte", op::ulte, 2}, {"f64", op::to_f64, 1}, {"u64", op::to_u64, 1},
};

struct binary_info {
  int prec;  // 0: not a binary operator
  op code;
};

constexpr binary_info binary(tok k) noexcept {
  switch (k) {
    case tok::question:
      return {1, op::select};
    case tok::lor:
      return {2, op::lor};
    case tok::land:
      return {3, op::land};
    case tok::amp:
      return {4, op::band};
    case tok::eq:
      return {5, op::feq};
    case tok::ne:
      return {5, op::fne};
    case tok::lt:
      return {6, op::flt};
    case tok::le:
      return {6, op::fle};
    case tok::gt:
      return {6, op::fgt};
    case tok::ge:
      return {6, op::fge};
    case tok::shl:
      return {7, op::shl};
    case tok::shr:
      return {7, op::shr};
    case tok::plus:
      return {8, op::fadd};
    case tok::minus:
      return {8, op::fsub};
    case tok::star:
      return {9, op::fmul};
    case tok::slash:
      return {9, op::fdiv};
    default:
      return {0, op::constant};
  }
}

template <class Resolve>
class infix_parser {
 public:
  constexpr infix_parser(std::string_view text, builder& b, Resolve& resolve)
      : text_(text), b_(b), resolve_(resolve) {}

  constexpr parse_result run() {
    if (auto p = check_parentheses(text_); !p) return {p};
    if (!advance()) return {status_};
    if (cur_.kind == tok::end) return {fail(errc::syntax, cur_.pos, 1, "empty formula")};
    std::uint32_t root = 0;
    if (!expression(0, root, 0)) return {status_};
    if (cur_.kind != tok::end) {
      return {fail(errc::syntax, cur_.pos, cur_.len,
                   cur_.kind == tok::comma ? "',' outside of a function call"
                                           : "unexpected text after the end of the formula")};
    }
    return {{}, root};
  }

 private:
  constexpr bool advance() {
    const lex_result r = next_token(text_, cur_.pos + cur_.len);
    if (!r.status) return error(r.status);
    cur_ = r.t;
    return true;
  }
  constexpr bool error(parse_status s) {
    status_ = s;
    return false;
  }
  constexpr bool error_here(std::string_view message) {
    return error(fail(errc::syntax, cur_.pos, cur_.len, message));
  }

  // Entering one more level from `depth`: the error points at the token that
  // opens it (the parenthesis, the operator, the '?' or ':').
  constexpr bool deeper(int depth) {
    if (depth < max_infix_depth) return true;
    return error_here("formula is nested too deeply (more than 200 levels)");
  }

  constexpr bool expression(int min_prec, std::uint32_t& out, int depth) {
    std::uint32_t lhs = 0;
    if (!unary(lhs, depth)) return false;
    while (true) {
      const binary_info bi = binary(cur_.kind);
      if (bi.prec == 0 || bi.prec < min_prec) break;
      if (bi.code == op::select && !deeper(depth)) return false;
      if (!advance()) return false;
      if (bi.code == op::select) {
        std::uint32_t yes = 0, no = 0;
        if (!expression(0, yes, depth + 1)) return false;
        if (cur_.kind != tok::colon) return error_here("expected ':' of a '?:' conditional");
        if (!deeper(depth) || !advance()) return false;
        if (!expression(bi.prec, no, depth + 1)) return false;  // right-associative
        lhs = b_.make(op::select, lhs, yes, no);
        continue;
      }
      std::uint32_t rhs = 0;
      if (!expression(bi.prec + 1, rhs, depth)) return false;  // left-associative
      lhs = b_.make(bi.code, lhs, rhs);
    }
    out = lhs;
    return true;
  }

  constexpr bool unary(std::uint32_t& out, int depth) {
    if (cur_.kind == tok::minus || cur_.kind == tok::plus || cur_.kind == tok::bang) {
      const tok k = cur_.kind;
      if (!deeper(depth) || !advance()) return false;
      std::uint32_t x = 0;
      if (!unary(x, depth + 1)) return false;
      out = k == tok::minus ? b_.make(op::fneg, x) : k == tok::bang ? b_.make(op::lnot, x) : x;
      return true;
    }
    return primary(out, depth);
  }

  constexpr bool primary(std::uint32_t& out, int depth) {
    const token t = cur_;
    switch (t.kind) {
      case tok::number:
        out = b_.constant(t.num);
        return advance();
      case tok::lparen:
        if (!deeper(depth) || !advance()) return false;
        if (!expression(0, out, depth + 1)) return false;
        if (cur_.kind != tok::rparen) return error_here("expected ')'");
        return advance();
      case tok::name:
        if (!advance()) return false;
        if (cur_.kind == tok::lparen) return call(t, out, depth);
        return name(t, text_.substr(t.pos, t.len), out);
      case tok::dollar_name:
        if (!advance()) return false;
        return name(t, text_.substr(t.pos + 1, t.len - 1), out);
      case tok::end:
        return error(fail(errc::syntax, t.pos, 1, "missing operand at the end of the formula"));
      default:
        return error_here("missing operand");
    }
  }

  constexpr bool name(const token& t, std::string_view n, std::uint32_t& out) {
    const resolved r = resolve_(n);
    if (r.status == resolved::unknown) {
      return error(fail(errc::unknown_name, t.pos, t.len,
                        "not a counter, device variable or metric of this set"));
    }
    if (r.status == resolved::failed) return error(fail(r.code, t.pos, t.len, r.message));
    out = r.node;
    return true;
  }

  constexpr bool call(const token& fn, std::uint32_t& out, int depth) {
    const std::string_view n = text_.substr(fn.pos, fn.len);
    // An index rather than a pointer: sanitizer builds of GCC refuse to compare
    // pointers with null in constant expressions.
    std::size_t found = std::size(infix_functions);
    for (std::size_t i = 0; i < std::size(infix_functions); ++i) {
      if (infix_functions[i].name == n) found = i;
    }
    if (found == std::size(infix_functions)) {
      return error(
          fail(errc::unknown_name, fn.pos, fn.len,
               "not a function (min, max, uadd, udiv, fmax, ... see docs/expressions.md)"));
    }
    const infix_function* f = &infix_functions[found];
    if (!deeper(depth) || !advance()) return false;  // '('
    std::vector<std::uint32_t> args;
    if (cur_.kind != tok::rparen) {
      while (true) {
        std::uint32_t a = 0;
        if (!expression(0, a, depth + 1)) return false;
        args.push_back(a);
        if (cur_.kind == tok::comma) {
          if (!advance()) return false;
          continue;
        }
        if (cur_.kind != tok::rparen) return error_here("expected ',' or ')' in a function call");
        break;
      }
    }
    const bool ok =
        f->arity < 0 ? !args.empty() : args.size() == static_cast<std::size_t>(f->arity);
    if (!ok) {
      return error(fail(errc::syntax, fn.pos, fn.len,
                        f->arity < 0    ? "min and max need at least one argument"
                        : f->arity == 1 ? "function takes 1 argument"
                                        : "function takes 2 arguments"));
    }
    if (!advance()) return false;  // ')'
    if (f->arity == 1) {
      out = b_.convert(args[0], f->code == op::to_f64 ? vtype::f64 : vtype::u64);
      return true;
    }
    std::uint32_t acc = args.size() == 1 ? b_.convert(args[0], vtype::f64) : args[0];
    for (std::size_t i = 1; i < args.size(); ++i) acc = b_.make(f->code, acc, args[i]);
    out = acc;
    return true;
  }

  std::string_view text_;
  builder& b_;
  Resolve& resolve_;
  token cur_{};
  parse_status status_{};
};

}  // namespace detail

template <class Resolve>
constexpr parse_result parse_infix(std::string_view text, builder& b, Resolve&& resolve) {
  detail::infix_parser<std::remove_reference_t<Resolve>> p(text, b, resolve);
  return p.run();
}

}  // namespace hwpc::expr
