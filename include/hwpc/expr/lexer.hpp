// Characters, numbers and names shared by both front ends, and the token
// stream of the infix syntax. Everything here is constexpr.
//
// Numbers: decimal integers and 0x hex integers are u64; a decimal point or an
// exponent makes a double. A double literal converts exactly (correctly
// rounded) when it has at most 19 significant digits and its value is m*10^e
// with m <= 2^53 and |e| <= 22; other double literals are converted by
// std::from_chars at run time and rejected (out_of_range) in compile-time
// formulas, where no correctly rounded conversion is available.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

constexpr bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
constexpr bool is_name_char(char c) noexcept { return is_alpha(c) || is_digit(c); }
constexpr int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Length of the name starting at pos (0 when there is none).
constexpr std::size_t scan_name(std::string_view t, std::size_t pos) noexcept {
  if (pos >= t.size() || !is_alpha(t[pos])) return 0;
  std::size_t e = pos + 1;
  while (e < t.size() && is_name_char(t[e])) ++e;
  return e - pos;
}

struct number_scan {
  parse_status status;
  std::size_t end = 0;  // one past the last character of the number
  value v;
};

// Scans the number that starts at pos (t[pos] is a digit).
constexpr number_scan scan_number(std::string_view t, std::size_t pos) {
  number_scan r;
  std::size_t i = pos;
  if (i + 1 < t.size() && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
    i += 2;
    std::uint64_t v = 0;
    const std::size_t digits = i;
    for (; i < t.size() && hex_digit(t[i]) >= 0; ++i) {
      if (v >> 60) {
        while (i < t.size() && hex_digit(t[i]) >= 0) ++i;
        r.status = fail(errc::out_of_range, pos, i - pos, "hex number does not fit in 64 bits");
        return r;
      }
      v = (v << 4) | static_cast<std::uint64_t>(hex_digit(t[i]));
    }
    if (i == digits) r.status = fail(errc::syntax, pos, 2, "'0x' needs hex digits after it");
    r.end = i;
    r.v = value::u(v);
    return r;
  }
  // Decimal: collect up to 19 significant digits exactly; later digits only
  // matter for exactness.
  std::uint64_t mant = 0;
  int sig = 0, exp10 = 0;
  bool inexact = false, is_double = false;
  auto digit = [&](char c, bool fraction) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (sig < 19) {
      if (mant != 0 || d != 0) ++sig;
      mant = mant * 10 + d;
      if (fraction) --exp10;
    } else {
      if (!fraction) ++exp10;
      if (d != 0) inexact = true;
    }
  };
  for (; i < t.size() && is_digit(t[i]); ++i) digit(t[i], false);
  // The integer part on its own, for integer literals up to 2^64 - 1.
  std::uint64_t int_value = 0;
  bool int_overflow = false;
  for (std::size_t k = pos; k < i; ++k) {
    const auto d = static_cast<std::uint64_t>(t[k] - '0');
    if (int_value > (~std::uint64_t{0} - d) / 10) {
      int_overflow = true;
      break;
    }
    int_value = int_value * 10 + d;
  }
  if (i < t.size() && t[i] == '.') {
    is_double = true;
    for (++i; i < t.size() && is_digit(t[i]); ++i) digit(t[i], true);
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    std::size_t j = i + 1;
    bool neg = false;
    if (j < t.size() && (t[j] == '+' || t[j] == '-')) neg = t[j++] == '-';
    if (j < t.size() && is_digit(t[j])) {
      is_double = true;
      int e = 0;
      for (; j < t.size() && is_digit(t[j]); ++j) {
        if (e < 100000) e = e * 10 + (t[j] - '0');
      }
      exp10 += neg ? -e : e;
      i = j;
    }
  }
  r.end = i;
  if (!is_double) {
    if (int_overflow) {
      r.status = fail(errc::out_of_range, pos, i - pos, "integer does not fit in 64 bits");
    }
    r.v = value::u(int_value);
    return r;
  }
  constexpr double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                              1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                              1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (!inexact && mant <= (std::uint64_t{1} << 53) && exp10 >= -22 && exp10 <= 22) {
    // Both factors are exact doubles, so one rounding gives the correct result.
    const double m = static_cast<double>(mant);
    r.v = value::f(exp10 >= 0 ? m * pow10[exp10] : m / pow10[-exp10]);
    return r;
  }
  if (mant == 0 && !inexact) {
    r.v = value::f(0.0);
    return r;
  }
  if (std::is_constant_evaluated()) {
    r.status = fail(errc::out_of_range, pos, i - pos,
                    "this decimal needs a correctly rounded conversion, which is only "
                    "available at run time");
    return r;
  }
  double d = 0;
  const auto [ptr, ec] = std::from_chars(t.data() + pos, t.data() + i, d);
  if (ec != std::errc{} || ptr != t.data() + i || d - d != 0.0) {
    r.status = fail(errc::out_of_range, pos, i - pos, "number is out of the range of a double");
    return r;
  }
  r.v = value::f(d);
  return r;
}

// Infix tokens.
enum class tok : std::uint8_t {
  end,
  number,
  name,         // bare name
  dollar_name,  // $Name (pos/len cover the '$')
  lparen,
  rparen,
  comma,
  plus,
  minus,
  star,
  slash,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  land,
  lor,
  bang,
  amp,
  shl,
  shr,
  question,
  colon,
};

struct token {
  tok kind = tok::end;
  std::size_t pos = 0;
  std::size_t len = 0;
  value num;
};

struct lex_result {
  parse_status status;
  token t;
};

// The token at or after pos.
constexpr lex_result next_token(std::string_view s, std::size_t pos) {
  while (pos < s.size() && is_space(s[pos])) ++pos;
  lex_result r;
  r.t.pos = pos;
  if (pos >= s.size()) return r;
  const char c = s[pos];
  const char d = pos + 1 < s.size() ? s[pos + 1] : '\0';
  auto one = [&](tok k, std::size_t len = 1) {
    r.t.kind = k;
    r.t.len = len;
    return r;
  };
  if (is_digit(c) || (c == '.' && is_digit(d))) {
    if (c == '.') {
      r.status = fail(errc::syntax, pos, 1, "a number needs a digit before its decimal point");
      return r;
    }
    const number_scan n = scan_number(s, pos);
    if (!n.status) {
      r.status = n.status;
      return r;
    }
    if (n.end < s.size() && (is_name_char(s[n.end]) || s[n.end] == '.')) {
      r.status = fail(errc::syntax, n.end, 1, "unexpected character right after a number");
      return r;
    }
    r.t.kind = tok::number;
    r.t.len = n.end - pos;
    r.t.num = n.v;
    return r;
  }
  if (is_alpha(c)) return one(tok::name, scan_name(s, pos));
  if (c == '$') {
    const std::size_t n = scan_name(s, pos + 1);
    if (n == 0) {
      r.status = fail(errc::syntax, pos, 1, "'$' must be followed by a name");
      return r;
    }
    return one(tok::dollar_name, n + 1);
  }
  switch (c) {
    case '(':
      return one(tok::lparen);
    case ')':
      return one(tok::rparen);
    case ',':
      return one(tok::comma);
    case '+':
      return one(tok::plus);
    case '-':
      return one(tok::minus);
    case '*':
      return one(tok::star);
    case '/':
      return one(tok::slash);
    case '?':
      return one(tok::question);
    case ':':
      return one(tok::colon);
    case '<':
      if (d == '=') return one(tok::le, 2);
      if (d == '<') return one(tok::shl, 2);
      return one(tok::lt);
    case '>':
      if (d == '=') return one(tok::ge, 2);
      if (d == '>') return one(tok::shr, 2);
      return one(tok::gt);
    case '=':
      if (d == '=') return one(tok::eq, 2);
      break;
    case '!':
      if (d == '=') return one(tok::ne, 2);
      return one(tok::bang);
    case '&':
      if (d == '&') return one(tok::land, 2);
      return one(tok::amp);
    case '|':
      if (d == '|') return one(tok::lor, 2);
      break;
    default:
      break;
  }
  r.status = fail(errc::syntax, pos, 1, "unexpected character");
  return r;
}

}  // namespace hwpc::expr
