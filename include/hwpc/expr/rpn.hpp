// The RPN front end: Intel metric XML equations, max_equations and
// availability conditions.
//
//   GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV
//
// Tokens are separated by white space. Operands push a value: a number, `true`
// (1) or `false` (0), `$Name`, or `BANK n READ` for a raw counter delta. Every
// operator takes two operands; the first one popped is the right-hand side.
// The formula must leave exactly one value on the stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/lexer.hpp"
#include "hwpc/expr/symbols.hpp"

namespace hwpc::expr {

struct parse_result {
  parse_status status;
  std::uint32_t root = 0;
};

// The operator an RPN word names, if any.
constexpr bool rpn_operator(std::string_view w, op& out) noexcept {
  if (w.empty()) return false;
  for (std::size_t i = 0; i < op_count; ++i) {
    if (op_table[i].rpn == w) {
      out = static_cast<op>(i);
      return true;
    }
  }
  return false;
}

namespace detail {

struct rpn_entry {
  enum kind_t : std::uint8_t { node, number, bank } kind = node;
  std::uint32_t index = 0;  // node index (kind node)
  value num;                // kind number: materialised only when an operator consumes it
  std::size_t pos = 0, len = 0;
};

// "A" + 5 -> "A5", "GPU_TIME" + 0 -> "GPU_TIME"; fits in buf[32].
constexpr std::string_view counter_name(std::string_view bank, std::uint64_t index, char* buf) {
  std::size_t n = 0;
  for (char c : bank) buf[n++] = c;
  const bool single = bank == "GPU_TIME" || bank == "GPU_CLOCK";
  if (!(single && index == 0)) {
    char digits[20];
    std::size_t k = 0;
    do {
      digits[k++] = static_cast<char>('0' + index % 10);
      index /= 10;
    } while (index != 0);
    while (k > 0) buf[n++] = digits[--k];
  }
  return {buf, n};
}

}  // namespace detail

// The largest counter index READ accepts: bigger indices cannot name hardware.
inline constexpr std::uint64_t max_counter_index = 255;

template <class Resolve>
constexpr parse_result parse_rpn(std::string_view text, builder& b, Resolve&& resolve) {
  using detail::rpn_entry;
  std::vector<rpn_entry> stack;
  auto value_of = [&](const rpn_entry& e) -> std::uint32_t {
    return e.kind == rpn_entry::number ? b.constant(e.num) : e.index;
  };
  std::size_t pos = 0;
  while (true) {
    while (pos < text.size() && is_space(text[pos])) ++pos;
    if (pos >= text.size()) break;
    std::size_t end = pos;
    while (end < text.size() && !is_space(text[end])) ++end;
    const std::string_view w = text.substr(pos, end - pos);
    const std::size_t len = end - pos;
    op o{};
    if (is_digit(w[0])) {
      const number_scan n = scan_number(text, pos);
      if (!n.status) return {n.status};
      if (n.end != end) return {fail(errc::syntax, n.end, 1, "unexpected character in a number")};
      stack.push_back({rpn_entry::number, 0, n.v, pos, len});
    } else if (w[0] == '$') {
      if (len < 2 || scan_name(text, pos + 1) != len - 1) {
        return {
            fail(errc::syntax, pos, len, "'$' must be followed by a name (letters, digits, _)")};
      }
      const resolved r = resolve(w.substr(1));
      if (r.status == resolved::unknown) {
        return {fail(errc::unknown_name, pos, len,
                     "not a counter, device variable or metric of this set")};
      }
      if (r.status == resolved::failed) return {fail(r.code, pos, len, r.message)};
      stack.push_back({rpn_entry::node, r.node, {}, pos, len});
    } else if (w == "true" || w == "false") {
      stack.push_back({rpn_entry::number, 0, value::u(w == "true" ? 1 : 0), pos, len});
    } else if (is_counter_bank(w)) {
      stack.push_back({rpn_entry::bank, 0, {}, pos, len});
    } else if (w == "READ") {
      if (stack.size() < 2 || stack.back().kind != rpn_entry::number ||
          stack[stack.size() - 2].kind != rpn_entry::bank) {
        return {fail(errc::syntax, pos, len, "READ needs a counter bank and an index before it")};
      }
      const rpn_entry index = stack.back();
      stack.pop_back();
      const rpn_entry bank = stack.back();
      stack.pop_back();
      if (!index.num.is_u64() || index.num.bits > max_counter_index) {
        return {fail(errc::out_of_range, index.pos, index.len,
                     "counter index must be an integer from 0 to 255")};
      }
      char buf[32] = {};
      const std::string_view name =
          detail::counter_name(text.substr(bank.pos, bank.len), index.num.bits, buf);
      const resolved r = resolve(name);
      if (r.status == resolved::unknown) {
        return {fail(errc::unknown_name, bank.pos, end - bank.pos, "raw counter is not bound")};
      }
      if (r.status == resolved::failed) return {fail(r.code, bank.pos, end - bank.pos, r.message)};
      stack.push_back({rpn_entry::node, r.node, {}, bank.pos, end - bank.pos});
    } else if (rpn_operator(w, o)) {
      if (stack.size() < 2) {
        return {fail(errc::syntax, pos, len,
                     stack.empty() ? "stack underflow: operator has no operands (needs 2)"
                                   : "stack underflow: operator has 1 operand (needs 2)")};
      }
      const rpn_entry rhs = stack.back();
      stack.pop_back();
      const rpn_entry lhs = stack.back();
      stack.pop_back();
      for (const rpn_entry* e : {&lhs, &rhs}) {
        if (e->kind == rpn_entry::bank) {
          return {fail(errc::syntax, e->pos, e->len, "a counter bank needs an index and READ")};
        }
      }
      const std::uint32_t n = b.make(o, value_of(lhs), value_of(rhs));
      stack.push_back({rpn_entry::node, n, {}, lhs.pos, end - lhs.pos});
    } else {
      return {
          fail(errc::syntax, pos, len,
               is_alpha(w[0]) ? "unknown RPN word (names are written $Name)" : "unknown RPN word")};
    }
    pos = end;
  }
  if (stack.empty()) return {fail(errc::syntax, text.size(), 1, "empty formula")};
  if (stack.size() > 1) {
    return {fail(errc::syntax, stack[1].pos, stack[1].len,
                 "values left on the stack: an operator is missing")};
  }
  if (stack[0].kind == rpn_entry::bank) {
    return {
        fail(errc::syntax, stack[0].pos, stack[0].len, "a counter bank needs an index and READ")};
  }
  return {{}, value_of(stack[0])};
}

}  // namespace hwpc::expr
