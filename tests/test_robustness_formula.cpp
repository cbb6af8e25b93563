// Formula diagnostics under hostile text: the documented nesting limit of 200
// levels holds exactly (one level per parenthesis, call, unary operator or
// `?:` branch), a huge name gives a message of bounded size, and bytes that
// could drive a terminal (ESC, BEL, DEL, non-ASCII) are escaped in both the
// quoted token and the caret snippet, with the caret still under the column.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "hwpc/expr.hpp"

namespace {

using namespace hwpc;
using namespace hwpc::expr;

// Parses infix text with no names bound; returns the error (or none).
std::optional<error> infix_error(const std::string& text) {
  builder b;
  auto resolve = [](std::string_view) { return resolved{}; };
  const parse_result r = parse_infix(text, b, resolve);
  if (r.status) return std::nullopt;
  return to_error(text, r.status.error);
}

std::string nested_parens(int n) {
  return std::string(static_cast<std::size_t>(n), '(') + "1" +
         std::string(static_cast<std::size_t>(n), ')');
}

TEST(RobustnessFormula, TwoHundredNestedParenthesesAreTheLimit) {
  EXPECT_FALSE(infix_error(nested_parens(100)));
  EXPECT_FALSE(infix_error(nested_parens(200)));
  auto e = infix_error(nested_parens(201));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, errc::syntax);
  EXPECT_EQ(e->anchor, error_anchor::column);
  EXPECT_EQ(e->offset, 201u);  // the 201st '('
  EXPECT_NE(e->message.find("more than 200 levels"), std::string::npos) << e->message;
}

TEST(RobustnessFormula, EachKindOfLevelCountsOnce) {
  // Binary operators between the levels add none.
  std::string mixed;
  for (int i = 0; i < 200; ++i) mixed += "1 + (";
  mixed += "1" + std::string(200, ')');
  EXPECT_FALSE(infix_error(mixed));
  // Calls: max(max(...)) 200 deep is fine, 201 is not (column of the 201st '(').
  std::string calls;
  for (int i = 0; i < 201; ++i) calls += "max(";
  calls += "1" + std::string(201, ')');
  auto e = infix_error(calls);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->offset, 200u * 4 + 4);
  EXPECT_FALSE(infix_error(calls.substr(4, calls.size() - 5)));
  // Unary minus: 200 accepted, the 201st rejected at its own column.
  EXPECT_FALSE(infix_error(std::string(200, '-') + "1"));
  e = infix_error(std::string(201, '-') + "1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->offset, 201u);
  // Right-nested conditionals: each '?:' is one level.
  std::string cond;
  for (int i = 0; i < 200; ++i) cond += "1 ? 2 : ";
  EXPECT_FALSE(infix_error(cond + "3"));
  // Thousands of levels: an error, not a stack overflow.
  e = infix_error(nested_parens(100'000));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->offset, 201u);
}

TEST(RobustnessFormula, AHugeNameGivesABoundedMessage) {
  const std::string name(100'000, 'x');
  auto e = infix_error("1 + " + name);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, errc::unknown_name);
  EXPECT_EQ(e->offset, 5u);
  EXPECT_LT(e->message.size(), 600u) << e->message.size();
  EXPECT_NE(e->message.find("'" + std::string(max_quoted_bytes, 'x') + "...'"), std::string::npos)
      << e->message;
}

TEST(RobustnessFormula, ControlBytesAreEscapedInQuoteAndSnippet) {
  // ESC [ 2 J would clear the screen; BEL rings; both stay in the formula as
  // an unexpected character after the name.
  const std::string text = "$A + \x1b[2J\a";
  auto e = infix_error(text);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message.find('\x1b'), std::string::npos) << e->message;
  EXPECT_EQ(e->message.find('\a'), std::string::npos);
  EXPECT_NE(e->message.find("\\x1b[2J\\x07"), std::string::npos) << e->message;
  // A control byte before the error column moves the caret by its escape.
  const std::string late = "\x1b + )";
  e = infix_error(late);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->offset, 5u);
  const std::string expect_snippet = "  \\x1b + )\n         ^";
  EXPECT_NE(e->message.find(expect_snippet), std::string::npos) << e->message;
}

TEST(RobustnessFormula, CaretSnippetEscapesEveryNonPrintableByte) {
  const std::string text = std::string("a\x7f") + "\xc3\xa9" + "b";
  EXPECT_EQ(caret_snippet(text, 5), "  a\\x7f\\xc3\\xa9b\n               ^");
  EXPECT_EQ(visible_excerpt(std::string(3, '\x01'), 2), "\\x01\\x01...");
  // A context string from a metric file is escaped and cut as well.
  parse_error pe{errc::syntax, 1, 1, "missing operand"};
  const error e = to_error(")", pe, std::string(1000, '\x1b'));
  EXPECT_EQ(e.message.find('\x1b'), std::string::npos);
  EXPECT_LT(e.message.size(), 4 * max_context_bytes + 100);
}

}  // namespace
