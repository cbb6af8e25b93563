// What the query rows (result_rows.hpp) know of each performance counter
// read (its column, whether it was sampled before, and the reason text a row
// of it carries per countable) and of each named A6XX/A7XX column. Made on the counter's first
// read, so a row builds no string and looks up no column by name (docs/performance.md, "Adreno").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/row_columns.hpp"

namespace hwpc::adreno::detail {

// Columns given out while no schema is known (the one pass of
// pipeline/adreno_capture.hpp, rows kept in row_store.hpp): one per distinct
// column name, after the fixed ones, in order of first use. The schema made
// afterwards finds its columns by name as well, so a provisional column maps
// to the schema's column of the same name, or to none, exactly as a row made
// with the schema would have its cell.
class provisional_columns {
 public:
  std::size_t of(const std::string& name) {
    const auto [it, made] = index_.try_emplace(name, first_counter_column + names_.size());
    if (made) names_.push_back(name);
    return it->second;
  }
  // Names by provisional column, from first_counter_column on.
  const std::vector<std::string>& names() const noexcept { return names_; }

 private:
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> names_;
};

class counter_reads {
 public:
  struct entry {
    counter_key key;
    std::optional<std::size_t> column;  // none when the schema lacks it (or there is none)
    std::string name;                   // the reason when no countable was selected
    std::vector<std::string> reasons;   // by countable; empty: not made yet
    // What a consumer keeps per reason (row_store.hpp's id + 1; 0: none
    // yet): for `name`, and by countable beside `reasons`.
    std::uint32_t name_id = 0;
    std::vector<std::uint32_t> reason_ids;
  };

  // The entry of counter `c` of `g`, made on first use: its column found in
  // `columns` (the schema's, by name; null: none), or, with no schema yet,
  // given by `provisional` (by name, a new name its next column: row_store.hpp),
  // its key appended to `sampled` unless already there. A5XX groups (all the
  // A5XX recogniser reports) are found by index; others by a search of the
  // few seen, in a list of their keys (not of the entries, large and apart).
  entry& of(const counter_group* g, std::uint32_t c,
            const std::map<std::string, std::size_t>* columns, std::vector<counter_key>& sampled,
            provisional_columns* provisional = nullptr) {
    const auto groups = a5xx_counter_groups;
    const std::less<const counter_group*> below;
    const bool indexed =
        !below(g, groups.data()) && below(g, groups.data() + groups.size()) && c < indexed_counters;
    std::size_t slot = 0;
    if (indexed) {
      slot = static_cast<std::size_t>(g - groups.data()) * indexed_counters + c;
      if (slot < entry_of_.size() && entry_of_[slot] != nullptr) return *entry_of_[slot];
    } else {
      for (const other& o : others_) {
        if (o.group == g && o.counter == c) return *o.e;
      }
    }
    entry& e = entries_.emplace_back();
    e.key = counter_key{g, c};
    e.name = e.key.name();
    if (columns != nullptr) {
      const auto it = columns->find(e.name);
      if (it != columns->end()) e.column = it->second;
    } else if (provisional != nullptr) {
      e.column = provisional->of(e.name);
    }
    if (std::find(sampled.begin(), sampled.end(), e.key) == sampled.end()) {
      sampled.push_back(e.key);
    }
    if (!indexed) others_.push_back({g, c, &e});
    if (indexed) {
      if (entry_of_.size() <= slot) entry_of_.resize(groups.size() * indexed_counters, nullptr);
      entry_of_[slot] = &e;
    }
    return e;
  }

  // The reason of a read of `e` with `countable` selected (none: the
  // counter's name); valid until the next call.
  std::string_view reason(entry& e, std::optional<std::uint32_t> countable) {
    if (!countable) return e.name;
    if (*countable >= kept_countables) {
      reason_ = countable_name(*e.key.group, *countable);
      return reason_;
    }
    if (e.reasons.size() <= *countable) e.reasons.resize(*countable + 1);
    std::string& r = e.reasons[*countable];
    if (r.empty()) r = countable_name(*e.key.group, *countable);
    return r;
  }
  // Where the consumer's id of that reason is kept (entry::reason_ids);
  // null for a countable whose text is not kept.
  std::uint32_t* reason_id(entry& e, std::optional<std::uint32_t> countable) {
    if (!countable) return &e.name_id;
    if (*countable >= kept_countables) return nullptr;
    if (e.reason_ids.size() <= *countable) e.reason_ids.resize(*countable + 1, 0);
    return &e.reason_ids[*countable];
  }

 private:
  // Countables past this are not kept (the tables name fewer; a larger value
  // from a damaged stream is made into reason_ each time).
  static constexpr std::uint32_t kept_countables = 1024;
  // Counters per group the index covers (A5XX groups have at most 8).
  static constexpr std::uint32_t indexed_counters = 64;

  std::deque<entry> entries_;  // a deque: entries stay put as more are made
  // A5XX group * indexed_counters + counter: its entry (a pointer: a deque's
  // index costs a division per read).
  std::vector<entry*> entry_of_;
  struct other {
    const counter_group* group;
    std::uint32_t counter;
    entry* e;
  };
  std::vector<other> others_;  // the entries of other groups' counters
  std::string reason_;
};

// The named A6XX/A7XX columns (pipeline statistics, stream-out counts, the
// fixed ones): their keys are string_views into tables and literals, found
// by their address among the few seen (by name the first time), the search
// starting after the one found last, since a row's columns come in the same
// order each time.
class named_columns {
 public:
  // The column of `k` in `columns` (none when absent or null); `sampled`: `k`
  // is one of a row's columns, appended to `sampled_keys` on its first use.
  std::optional<std::size_t> of(const counter_key& k, bool sampled,
                                const std::map<std::string, std::size_t>* columns,
                                std::vector<counter_key>& sampled_keys,
                                provisional_columns* provisional = nullptr) {
    const auto same = [&k](const entry& c) {
      return c.key.column.data() == k.column.data() && c.key.column.size() == k.column.size() &&
             c.key.units.data() == k.units.data() && c.key.units.size() == k.units.size();
    };
    entry* n = nullptr;
    for (std::size_t i = next_; i < named_.size() && n == nullptr; ++i) {
      if (same(named_[i])) n = &named_[i];
    }
    for (std::size_t i = 0; i < next_ && i < named_.size() && n == nullptr; ++i) {
      if (same(named_[i])) n = &named_[i];
    }
    if (n != nullptr) next_ = static_cast<std::size_t>(n - named_.data()) + 1;
    if (n == nullptr) {
      n = &named_.emplace_back();
      n->key = k;
      if (columns != nullptr) {
        const auto it = columns->find(std::string(k.column));
        if (it != columns->end()) n->column = it->second;
      } else if (provisional != nullptr) {
        n->column = provisional->of(std::string(k.column));
      }
    }
    if (sampled && !n->sampled) {
      n->sampled = true;
      if (std::find(sampled_keys.begin(), sampled_keys.end(), k) == sampled_keys.end()) {
        sampled_keys.push_back(k);
      }
    }
    return n->column;
  }

 private:
  struct entry {
    counter_key key;
    std::optional<std::size_t> column;
    bool sampled = false;  // appended to the sampled keys
  };
  std::vector<entry> named_;  // a pointer into it is kept only within of()
  std::size_t next_ = 0;      // where the search starts
};

}  // namespace hwpc::adreno::detail
