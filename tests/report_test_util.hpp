// Reading the HTML report back in the tests: the totals table, the charts,
// and the summaries the report must agree with.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tool_runner.hpp"

namespace hwpc::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// HTML character references back to text (the five the report writes).
inline std::string unescape(const std::string& s) {
  static const std::pair<const char*, const char*> refs[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    bool done = false;
    for (const auto& [ref, ch] : refs) {
      if (s.compare(i, std::string(ref).size(), ref) == 0) {
        out += ch;
        i += std::string(ref).size();
        done = true;
        break;
      }
    }
    if (!done) out += s[i++];
  }
  return out;
}

// The totals table: name -> value as printed, in page order. The rows the
// report writer makes: <tr><td>NAME</td><td>KIND</td><td class="n">VALUE</td>...
inline std::vector<std::pair<std::string, std::string>> totals_of(const std::string& html) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto table = html.find("<table id=\"totals-table\">");
  if (table == std::string::npos) return out;
  const std::string cell = "</td><td class=\"n\">";
  for (auto at = html.find("<tr><td>", table); at != std::string::npos;
       at = html.find("<tr><td>", at + 1)) {
    const auto name_end = html.find("</td>", at + 8);
    const auto value_at = html.find(cell, name_end);
    const auto value_end = html.find("</td>", value_at + cell.size());
    if (name_end == std::string::npos || value_at == std::string::npos) break;
    out.emplace_back(unescape(html.substr(at + 8, name_end - at - 8)),
                     html.substr(value_at + cell.size(), value_end - value_at - cell.size()));
  }
  return out;
}

// A summary CSV (header line, value line) as name -> value.
inline std::map<std::string, std::string> summary_of(const std::string& csv) {
  std::map<std::string, std::string> out;
  std::istringstream in(csv);
  std::string head, values;
  std::getline(in, head);
  std::getline(in, values);
  const auto h = split(head), v = split(values);
  for (std::size_t i = 0; i < h.size() && i < v.size(); ++i) out[h[i]] = v[i];
  return out;
}

inline std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// The columns of a decode CSV header: counters (between timestamp and
// reason) and metrics (after ctx_id, `lost` aside).
struct csv_columns {
  std::vector<std::string> counters, metrics;
};
inline csv_columns columns_of(const std::string& csv) {
  csv_columns c;
  const auto h = split(csv.substr(0, csv.find('\n')));
  std::size_t i = 3;
  for (; i < h.size() && h[i] != "reason"; ++i) c.counters.push_back(h[i]);
  for (i += 2; i < h.size(); ++i) {
    if (h[i] != "lost") c.metrics.push_back(h[i]);
  }
  return c;
}

}  // namespace hwpc::testing
