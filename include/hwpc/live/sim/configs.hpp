// The metric sets of a simulated i915 or Xe GPU (sim/i915.hpp, sim/xe.hpp):
// the kernel's own and the added ones by uuid, the ids ADD_CONFIG hands out
// and REMOVE_CONFIG takes back, the uuid form both drivers check, and the
// sysfs files card<N>/metrics/<uuid>/id that name them. The drivers differ
// in their first id and in their other ADD_CONFIG checks, which stay theirs.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "hwpc/live/sim/kernel.hpp"
#include "hwpc/live/sys.hpp"

namespace hwpc::live::sim {

struct config_table {
  std::map<std::string, std::uint64_t> sets;  // handed out through sysfs
  std::uint64_t next_set = 1;
  std::set<std::uint64_t> added;  // by ADD_CONFIG (REMOVE_CONFIG takes only these)

  // The kernel's own sets; ids handed out later come after theirs.
  void seed(const std::map<std::string, std::uint64_t>& listed) {
    sets = listed;
    for (const auto& [uuid, id] : listed) next_set = std::max(next_set, id + 1);
  }
  bool has_id(std::uint64_t id) const {
    for (const auto& [uuid, have] : sets) {
      if (have == id) return true;
    }
    return false;
  }
  // ADD_CONFIG once the driver's own checks passed: the new id.
  sys_result add(const std::string& uuid) {
    if (sets.count(uuid) != 0) return {-1, EADDRINUSE};
    const std::uint64_t id = next_set++;
    sets[uuid] = id;
    added.insert(id);
    return {static_cast<long>(id), 0};
  }
  sys_result remove(std::uint64_t id) {
    for (auto it = sets.begin(); it != sets.end(); ++it) {
      if (it->second == id && added.count(id) != 0) {
        sets.erase(it);
        added.erase(id);
        return {};
      }
    }
    return {-1, ENOENT};
  }
};

// The kernel's uuid form: 8-4-4-4-12 hex digits (36 characters).
inline bool is_config_uuid(const std::string& uuid) {
  if (uuid.size() != 36) return false;
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    const char ch = uuid[i];
    const bool hex =
        (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
    if (dash ? ch != '-' : !hex) return false;
  }
  return true;
}

// metrics/<uuid>/id under `card_dir` (".../card<N>/"): the table's sets, or,
// when `any`, every uuid asked for (given the next id).
inline void add_metrics_files(kernel& k, const std::string& card_dir,
                              std::shared_ptr<config_table> table, bool any) {
  const std::string metrics = card_dir + "metrics/";
  k.add_prefix(metrics, [table, metrics, any](const std::string& path) -> std::optional<opener> {
    const std::string rest = path.substr(metrics.size());
    if (rest.size() != 36 + 3 || rest.compare(36, 3, "/id") != 0) return std::nullopt;
    const std::string uuid = rest.substr(0, 36);
    if (table->sets.count(uuid) == 0) {
      if (!any) return std::nullopt;
      table->sets[uuid] = table->next_set++;
    }
    const std::string text = std::to_string(table->sets[uuid]) + "\n";
    return opener([text](int, std::shared_ptr<sim::node>& out) {
      out = std::make_shared<file_node>(text);
      return sys_result{};
    });
  });
}

}  // namespace hwpc::live::sim
