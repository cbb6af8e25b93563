// Metric columns for `hwpc decode --metrics FILE.xml --set SYMBOL`: reads
// the Intel metric XML file and picks the set; the binding to row columns,
// availability pruning and evaluation are library code (metrics/binding.hpp).
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/metrics/binding.hpp"
#include "hwpc/metrics/mdapi_differences.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/xml_loader.hpp"

namespace hwpc::pipeline {

// Said after "no such file": where a user not holding the files gets them.
inline constexpr std::string_view metric_files_source =
    " (Intel's metric files come from IGT GPU tools' sources: lib/i915/perf-configs/oa-*.xml "
    "for the i915 driver, lib/xe/oa-configs/oa-*.xml for the Xe driver; --metrics takes any "
    "path, and a clone of hwpc with ../shared beside it has them in "
    "../shared/data/intel-metrics/ and ../shared/data/intel-metrics-xe/)";

inline void say_where_metric_files_come_from(error& e) {
  if (e.code == errc::io && e.message.ends_with(": no such file")) {
    e.message += metric_files_source;
  }
}

// `device`: what the capture tells, with --device-var overrides applied;
// `arith` and `defs`: --arithmetic and --definitions (compile_options).
inline result<metrics::row_metrics> load_metric_columns(
    [[maybe_unused]] const std::string& path, [[maybe_unused]] const std::string& set_symbol,
    [[maybe_unused]] const row_schema& schema,
    [[maybe_unused]] const metrics::device_values& device,
    [[maybe_unused]] expr::arithmetic arith = expr::arithmetic::mdapi,
    [[maybe_unused]] metrics::mdapi::definitions defs = metrics::mdapi::definitions::mdapi) {
  auto plain = [](errc code, std::string message) {
    return error{code, 0, std::move(message), error_anchor::none};
  };
#ifndef HWPC_HAVE_PUGIXML
  return plain(errc::io, "the metric XML loader needs pugixml: rebuild with libpugixml-dev");
#else
  auto sets = metrics::load_xml_file(path);
  if (!sets) {
    error e = sets.error_value();
    say_where_metric_files_come_from(e);
    if (e.anchor != error_anchor::none) e.message = path + ": " + e.message;
    return e;
  }
  const metrics::metric_set* set = nullptr;
  for (const auto& s : *sets) {
    if (s.symbol_name == set_symbol) set = &s;
  }
  if (set == nullptr) {
    std::string names;
    for (const auto& s : *sets) names += (names.empty() ? "" : ", ") + s.symbol_name;
    return plain(errc::unknown_name,
                 path + " has no set '" + set_symbol + "' (sets: " + names + ")");
  }
  auto m = metrics::row_metrics::make(*set, device, schema, metrics::intel_input, arith, defs);
  if (!m && m.error_value().message.find("device variable") != std::string::npos) {
    error e = m.error_value();
    e.message += " (give it with --device-var NAME=VALUE)";
    return e;
  }
  return m;
#endif
}

// "NAME=VALUE" with VALUE a decimal or 0x-hex integer, or a decimal number.
inline std::optional<std::pair<std::string, expr::value>> parse_device_var(const std::string& s) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return std::nullopt;
  std::string name = s.substr(0, eq);
  if (name[0] == '$') name.erase(0, 1);
  const std::string v = s.substr(eq + 1);
  std::uint64_t u = 0;
  const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  auto r = std::from_chars(v.data() + (hex ? 2 : 0), v.data() + v.size(), u, hex ? 16 : 10);
  if (r.ec == std::errc{} && r.ptr == v.data() + v.size())
    return std::pair{name, expr::value::u(u)};
  double d = 0;
  auto rd = std::from_chars(v.data(), v.data() + v.size(), d);
  if (rd.ec == std::errc{} && rd.ptr == v.data() + v.size())
    return std::pair{name, expr::value::f(d)};
  return std::nullopt;
}

}  // namespace hwpc::pipeline
