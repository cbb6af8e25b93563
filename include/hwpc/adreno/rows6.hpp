// A6XX and A7XX query results for the rows of rows.hpp: which recognised
// events (recognise6.hpp) are results, which begin a stretch, and the values
// a result's row carries (docs/adreno.md, "Rows").
//
// A begin and its end are paired by the slot layouts both freedreno drivers
// use (FACTS-adreno6 section 4), the end being written a fixed distance after
// its begin in the same slot:
//   occlusion         sample count 16 bytes after the last one (+16 start, +32
//                     stop); the value is the slot's result, 8 bytes before;
//   time elapsed      an event-write timestamp 16 bytes after an open one
//                     (gallium's +16 start, +32 stop); stop - start ticks;
//   pipeline stats    the same RBBM_PIPESTAT pairs read 8 bytes x pairs after
//                     an open read (gallium +8/+16 for one, turnip +96/+184
//                     for all eleven, turnip's primitives generated +16/+24);
//                     end - begin per statistic;
//   stream-out        counts written 64 bytes after an open write (+32 begin[4],
//                     +96 end[4], both drivers); end - begin per stream and
//                     count.
// A begin is a report that starts a stretch (no row), except a timestamp:
// gallium's TIMESTAMP query writes its value exactly as a time-elapsed begin
// does, so every timestamp not closing a time-elapsed stretch is a
// `timestamp` row. Turnip's timestamps (register copies) never pair: its
// query pool puts consecutive timestamps 16 bytes apart.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/recognise6.hpp"
#include "hwpc/adreno/row_columns.hpp"

namespace hwpc::adreno {

// RBBM_PIPESTAT pair i (FACTS-adreno6 4.1) as a column.
inline constexpr std::string_view pipeline_statistic_columns[11] = {
    "ia_vertices",    "ia_primitives",  "vs_invocations", "hs_invocations",
    "ds_invocations", "gs_invocations", "gs_primitives",  "c_invocations",
    "c_primitives",   "ps_invocations", "cs_invocations"};
inline constexpr std::string_view pipeline_statistic_units[11] = {
    "vertices",   "primitives",  "invocations", "invocations", "invocations", "invocations",
    "primitives", "invocations", "primitives",  "invocations", "invocations"};
// WRITE_PRIMITIVE_COUNTS' record of stream s: {written, generated}.
inline constexpr std::string_view stream_out_columns[8] = {
    "primitives_written_0",   "primitives_generated_0", "primitives_written_1",
    "primitives_generated_1", "primitives_written_2",   "primitives_generated_2",
    "primitives_written_3",   "primitives_generated_3"};

// Byte distances from a begin to its end in the drivers' slots.
namespace slot6 {
inline constexpr std::uint64_t sample_count_end = 16;
inline constexpr std::uint64_t time_elapsed_end = 16;
inline constexpr std::uint64_t stream_out_end = 64;
constexpr std::uint64_t pipeline_stats_end(std::uint32_t pairs) noexcept { return 8ull * pairs; }
}  // namespace slot6

// What one event is for the rows. One result is filled event after event
// (take() clears it), so its vectors and text keep their storage: a row
// allocates nothing once the first rows were made.
struct result6 {
  enum class kind : std::uint8_t { none, stretch_start, row };
  kind what = kind::none;  // none: not a report (a select, an address write)
  // A literal, or a text rows6 keeps (valid until its next take()): no
  // string is built per event.
  std::string_view reason;
  // The same text for every reason with the same key (1 on), none (0) for a
  // text made for this event alone: a consumer keeps what it derives from a
  // reason (row_store.hpp's id) by key instead of looking the text up.
  std::uint32_t reason_key = 0;
  std::vector<counter_key> columns;  // columns after the fixed ones the row may fill
  // The values of columns[i] read: {i, value}, i ascending (a column
  // resolved once serves both the sampled list and the cell).
  std::vector<std::pair<std::uint32_t, std::uint64_t>> values;
  // A fixed column's value (row_columns.hpp: col_samples_passed,
  // col_time_elapsed or col_gpu_time): {column, value}.
  std::optional<std::pair<std::size_t, std::uint64_t>> fixed;
  std::optional<std::uint64_t> begin, end;  // the row's own time (ticks), when it has one
  std::optional<std::size_t> section;       // the dump section holding the value

  void clear() noexcept {
    what = kind::none;
    reason = {};
    reason_key = 0;
    columns.clear();
    values.clear();
    fixed.reset();
    begin.reset();
    end.reset();
    section.reset();
  }
};

class rows6 {
 public:
  // Fills `r` with what `e` is. read(address, bytes, std::optional<std::size_t>*
  // section) gives the little-endian value the capture's memory holds there,
  // or none (a reader that gives none leaves the values and times out, and
  // decides nothing else).
  template <class Read>
  void take(const query6_event& e, const Read& read, result6& r) {
    using k = query6_event::kind;
    r.clear();
    switch (e.what) {
      case k::counter_select:
        select(e.group, e.counter, e.value);
        return;
      case k::sample_count: {
        const bool end =
            last_sample_count_ && e.address == *last_sample_count_ + slot6::sample_count_end;
        last_sample_count_ = end ? std::nullopt : std::optional(e.address);
        if (!end) {
          r.what = result6::kind::stretch_start;
          return;
        }
        r.what = result6::kind::row;
        set_reason(r, reason_occlusion);
        if (auto v = read(e.address - 8, 8, &r.section)) r.fixed.emplace(col_samples_passed, *v);
        return;
      }
      case k::timestamp: {
        r.what = result6::kind::row;
        const auto v = read(e.address, 8, &r.section);
        if (e.event_write && close(k::timestamp, 0, 0, e.address - slot6::time_elapsed_end)) {
          set_reason(r, reason_time_elapsed);
          const auto begin = read(e.address - slot6::time_elapsed_end, 8, nullptr);
          if (begin && v) {
            r.begin = *begin;
            r.end = *v;
            r.fixed.emplace(col_time_elapsed, ticks_to_ns(*v - *begin));
          }
          return;
        }
        if (e.event_write) open(k::timestamp, 0, 0, e.address);
        set_reason(r, reason_timestamp);
        if (v) {
          r.begin = r.end = *v;
          r.fixed.emplace(col_gpu_time, ticks_to_ns(*v));
        }
        return;
      }
      case k::pipeline_stats:
        counts(e, read, slot6::pipeline_stats_end(e.count), reason_pipeline_statistics, r);
        return;
      case k::stream_out:
        counts(e, read, slot6::stream_out_end, reason_stream_out, r);
        return;
      case k::counter_sample: {
        r.what = result6::kind::row;
        const counter_key key{e.group, e.counter};
        r.columns.push_back(key);
        const auto c = selected(e.group, e.counter);
        if (c) {
          kept_reason(e.group, *c, true, r);
        } else {
          kept_reason(e.group, e.counter, false, r);
        }
        if (auto v = read(e.address, 8, &r.section)) r.values.emplace_back(0, *v);
        return;
      }
    }
  }

 private:
  using open_key = std::tuple<query6_event::kind, std::uint32_t, std::uint32_t, std::uint64_t>;
  // Begins waiting for their end; a stream that never ends its queries
  // forgets the oldest (by key) rather than grow without bound.
  static constexpr std::size_t max_open = 4096;

  // The begins waiting are few (a query or two at a time): a sorted vector,
  // not a node per begin. Ordered as a std::set of the keys would be.
  void open(query6_event::kind what, std::uint32_t first, std::uint32_t n, std::uint64_t at) {
    if (open_.size() >= max_open) open_.erase(open_.begin());
    const open_key key{what, first, n, at};
    const auto it = std::lower_bound(open_.begin(), open_.end(), key);
    if (it == open_.end() || *it != key) open_.insert(it, key);
  }
  bool close(query6_event::kind what, std::uint32_t first, std::uint32_t n, std::uint64_t at) {
    const open_key key{what, first, n, at};
    const auto it = std::lower_bound(open_.begin(), open_.end(), key);
    if (it == open_.end() || *it != key) return false;
    open_.erase(it);
    return true;
  }

  // The countable selected for each counter, by counter: a few counters are
  // programmed, so a search of a short list.
  struct selection {
    const counter_group* group;
    std::uint32_t counter;
    std::uint32_t countable;
  };
  void select(const counter_group* g, std::uint32_t c, std::uint32_t countable) {
    for (selection& s : selected_) {
      if (s.group == g && s.counter == c) {
        s.countable = countable;
        return;
      }
    }
    selected_.push_back({g, c, countable});
  }
  std::optional<std::uint32_t> selected(const counter_group* g, std::uint32_t c) const {
    for (const selection& s : selected_) {
      if (s.group == g && s.counter == c) return s.countable;
    }
    return std::nullopt;
  }

  // Pipeline statistics (pairs e.value .. e.value + e.count - 1) or the
  // stream-out records: a begin, or the row of end - begin for each count.
  template <class Read>
  void counts(const query6_event& e, const Read& read, std::uint64_t distance, std::uint32_t reason,
              result6& r) {
    const std::uint64_t begin = e.address - distance;
    if (!close(e.what, e.value, e.count, begin)) {
      open(e.what, e.value, e.count, e.address);
      r.what = result6::kind::stretch_start;
      return;
    }
    r.what = result6::kind::row;
    set_reason(r, reason);
    const bool stats = e.what == query6_event::kind::pipeline_stats;
    const std::uint32_t n = stats ? e.count : 8;
    for (std::uint32_t i = 0; i < n; ++i) {
      counter_key key;
      key.column = stats ? pipeline_statistic_columns[e.value + i] : stream_out_columns[i];
      key.units = stats ? pipeline_statistic_units[e.value + i] : "primitives";
      r.columns.push_back(key);
      const auto end = read(e.address + 8 * i, 8, i == 0 ? &r.section : nullptr);
      const auto first = read(begin + 8 * i, 8, nullptr);
      if (end && first) r.values.emplace_back(i, *end - *first);
    }
  }

  // The reason of a counter's row: its countable's name (`countable`), else
  // the counter's column name, made the first time and kept, so that a row
  // carries a view into a table rather than a string built per event. Past
  // max_kept texts (only a damaged stream names that many countables) the
  // text is made in scratch_ each time.
  void kept_reason(const counter_group* g, std::uint32_t v, bool countable, result6& r) {
    const reason_key key{g, v, countable};
    const auto it = reasons_.find(key);
    if (it != reasons_.end()) {
      r.reason = it->second.first;
      r.reason_key = it->second.second;
      return;
    }
    std::string text = countable ? countable_name(*g, v)
                                 : std::string(g->name).append("_").append(std::to_string(v));
    if (reasons_.size() >= max_kept) {
      scratch_ = std::move(text);
      r.reason = scratch_;
      r.reason_key = 0;
      return;
    }
    const std::uint32_t k = first_kept_key + static_cast<std::uint32_t>(reasons_.size());
    const auto& kept = reasons_.emplace(key, std::pair(std::move(text), k)).first->second;
    r.reason = kept.first;
    r.reason_key = kept.second;
  }
  // The literal reasons, by key (result6::reason_key), then the kept texts.
  static constexpr std::uint32_t reason_occlusion = 1, reason_time_elapsed = 2,
                                 reason_timestamp = 3, reason_pipeline_statistics = 4,
                                 reason_stream_out = 5, first_kept_key = 6;
  static void set_reason(result6& r, std::uint32_t key) noexcept {
    static constexpr std::string_view texts[first_kept_key] = {
        {}, "occlusion", "time-elapsed", "timestamp", "pipeline-statistics", "stream-out"};
    r.reason = texts[key];
    r.reason_key = key;
  }
  struct reason_key {
    const counter_group* group;
    std::uint32_t value;
    bool countable;
    friend bool operator==(const reason_key&, const reason_key&) = default;
  };
  struct reason_hash {
    std::size_t operator()(const reason_key& k) const noexcept {
      const std::uint64_t h = (reinterpret_cast<std::uintptr_t>(k.group) * 0x9e3779b97f4a7c15u) ^
                              (std::uint64_t{k.value} << 1 | (k.countable ? 1u : 0u));
      return static_cast<std::size_t>(h ^ (h >> 31));
    }
  };
  static constexpr std::size_t max_kept = 4096;
  // Nodes stay put as the map grows: the views handed out stay valid. Each
  // text with its key (result6::reason_key).
  std::unordered_map<reason_key, std::pair<std::string, std::uint32_t>, reason_hash> reasons_;
  std::string scratch_;

  std::vector<selection> selected_;
  std::optional<std::uint64_t> last_sample_count_;
  std::vector<open_key> open_;  // sorted
};

}  // namespace hwpc::adreno
