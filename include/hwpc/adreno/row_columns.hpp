// The columns of Adreno query rows (rows.hpp): three fixed ones, then one per
// performance counter sampled and per pipeline statistic or stream-out count
// read, in order of first use, and the totals `hwpc adreno --summary` gives
// for them (docs/adreno.md, "Rows").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/core/row.hpp"

namespace hwpc::adreno {

enum class input_kind : std::uint8_t { rd, hex, bin };

constexpr std::string_view input_kind_name(input_kind k) noexcept {
  return k == input_kind::rd ? "rd" : k == input_kind::hex ? "hex" : "bin";
}

// The columns every Adreno schema starts with, then one per sampled counter.
inline constexpr std::size_t col_samples_passed = 0;
inline constexpr std::size_t col_time_elapsed = 1;
inline constexpr std::size_t col_gpu_time = 2;
inline constexpr std::size_t first_counter_column = 3;

// A column after the fixed ones: a performance counter of a group (named
// `<GROUP>_<n>`, units "events", its running value), or, with no group, a
// named count whose value is a query's end minus its begin (a pipeline
// statistic, a stream-out count).
struct counter_key {
  const counter_group* group = nullptr;
  std::uint32_t counter = 0;
  std::string_view column = {};  // the name when `group` is null
  std::string_view units = "events";
  std::string name() const {
    return group != nullptr ? std::string(group->name) + "_" + std::to_string(counter)
                            : std::string(column);
  }
  friend bool operator==(const counter_key&, const counter_key&) = default;
};

inline row_schema schema_of(std::span<const counter_key> counters) {
  row_schema s;
  s.source = "adreno a5xx queries";
  s.metrics.push_back({"samples_passed", "samples", column_kind::metric});
  s.metrics.push_back({"time_elapsed", "ns", column_kind::metric});
  s.metrics.push_back({"gpu_time", "ns", column_kind::metric});
  for (const counter_key& k : counters)
    s.metrics.push_back({k.name(), std::string(k.units), column_kind::metric});
  s.clock = clock_kind::gpu_timestamp;
  s.ticks_per_second = always_on_hz;
  return s;
}

// Totals of a capture's results (`hwpc adreno --summary`), one cell per
// schema column: the per-query columns (samples_passed, time_elapsed, the
// pipeline statistics and stream-out counts) summed over the rows; for
// gpu_time and every performance counter (units "events"), the last value
// read minus the first (the increment over the capture, modulo 2^64); none
// when no row has a value.
class result_totals {
 public:
  explicit result_totals(const row_schema& s)
      : first_(s.metrics.size()), last_(s.metrics.size()), summed_(s.metrics.size()) {
    for (std::size_t j = 0; j < summed_.size(); ++j)
      summed_[j] = j != col_gpu_time && s.metrics[j].units != "events";
  }
  void add(const row& r) {
    for (std::size_t j = 0; j < r.metrics.size() && j < first_.size(); ++j) add_at(j, r.metrics[j]);
  }
  // One cell of a row (a row sets a few of many columns: its producer adds
  // those alone).
  void add_at(std::size_t j, const cell& c) {
    if (!c.is_u64() || j >= first_.size()) return;
    if (!first_[j]) first_[j] = summed_[j] ? 0 : c.bits;
    last_[j] = summed_[j] ? last_[j].value_or(0) + c.bits : c.bits;
  }
  std::vector<cell> cells() const {
    std::vector<cell> out(first_.size());
    for (std::size_t j = 0; j < out.size(); ++j) {
      if (first_[j]) out[j] = cell::u(*last_[j] - *first_[j]);
    }
    return out;
  }

 private:
  std::vector<std::optional<std::uint64_t>> first_, last_;
  std::vector<bool> summed_;
};

}  // namespace hwpc::adreno
