// The GpuCounterDescriptor of a row schema: one GpuCounterSpec per column
// (counters, then metrics; counter_id = column index + 1, so a schema of
// up to 127 columns has one-byte ids in every value), and one
// GpuCounterGroupSpec per group path of the layout.
//
// Spec: the column's name (a name met before gets " (metric)" appended:
// trace_processor keys a track by GPU and name, so two columns of one name
// would share a track), a description (group path, what the value is, the
// units' text), the units as MeasureUnits (measure_units.hpp) and
// VALUE_DIRECTION_BACKWARDS_LOOKING: a value covers the interval that ends
// at its timestamp (gpu_counter_writer.hpp says how samples are placed).
// Groups: ids from 100 up (0..7 name Perfetto's fixed GpuCounterGroups),
// named by the innermost name of the path (what the UI shows: "raw
// counters", the metric set, "shader core", "core 2", "CP"), the whole path
// as the description.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/perfetto/fields_gpu.hpp"
#include "hwpc/output/perfetto/measure_units.hpp"
#include "hwpc/output/perfetto/proto_writer.hpp"
#include "hwpc/output/perfetto/track_layout.hpp"

namespace hwpc::output::perfetto {

inline constexpr std::uint32_t first_group_id = 100;

inline std::string join_path(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) {
    if (!s.empty()) s += " / ";
    s += p;
  }
  return s;
}

// The spec names of the schema's columns, counters first: column names,
// made unique.
inline std::vector<std::string> spec_names(const row_schema& s) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto add = [&](const column& c) {
    std::string n = c.name;
    while (!seen.insert(n).second) n += c.kind == column_kind::metric ? " (metric)" : " (counter)";
    names.push_back(std::move(n));
  };
  for (const column& c : s.counters) add(c);
  for (const column& c : s.metrics) add(c);
  return names;
}

// Writes the GpuCounterDescriptor's fields into the open message of `w`.
inline void write_descriptor(proto::writer& w, const row_schema& s, const track_layout& l) {
  namespace sp = gpu_counter_spec;
  const std::vector<std::string> names = spec_names(s);
  const std::size_t n = s.counters.size() + s.metrics.size();
  std::map<std::vector<std::string>, std::vector<std::uint32_t>> members;
  std::vector<std::vector<std::string>> order;  // paths in order of first use
  for (std::size_t j = 0; j < n; ++j) {
    const bool is_counter = j < s.counters.size();
    const column& c = is_counter ? s.counters[j] : s.metrics[j - s.counters.size()];
    const auto& paths = is_counter ? l.counters : l.metrics;
    const std::size_t k = is_counter ? j : j - s.counters.size();
    const std::vector<std::string> path = k < paths.size() ? paths[k] : std::vector<std::string>{};
    auto spec = w.begin(gpu_counter_descriptor::specs);
    w.varint(sp::counter_id, j + 1);
    w.string(sp::name, names[j]);
    std::string d = path.empty() ? std::string() : join_path(path) + ": ";
    d += is_counter ? "increment over the interval" : "metric of the interval";
    if (!c.units.empty()) d += ", in " + c.units;
    w.string(sp::description, d);
    const measure_units u = measure_units_of(c.units);
    for (std::uint32_t m : u.numerator) w.varint(sp::numerator_units, m);
    for (std::uint32_t m : u.denominator) w.varint(sp::denominator_units, m);
    w.varint(sp::value_direction, sp::backwards_looking);
    w.end(spec);
    if (path.empty()) continue;
    auto [it, fresh] = members.try_emplace(path);
    if (fresh) order.push_back(path);
    it->second.push_back(static_cast<std::uint32_t>(j + 1));
  }
  namespace gs = gpu_counter_group_spec;
  for (std::size_t g = 0; g < order.size(); ++g) {
    auto grp = w.begin(gpu_counter_descriptor::counter_groups);
    w.varint(gs::group_id, first_group_id + g);
    w.string(gs::name, order[g].back());
    w.string(gs::description, join_path(order[g]));
    for (std::uint32_t id : members[order[g]]) w.varint(gs::counter_ids, id);
    w.end(grp);
  }
}

}  // namespace hwpc::output::perfetto
