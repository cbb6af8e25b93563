// The query rows of one pass kept until the schema is known (pipeline/
// adreno_capture.hpp): a schema's counter columns are the counters the whole
// capture samples, known only at its end, yet a writer needs them before the
// first row. The pass that learns them therefore also makes the rows, with
// provisional columns (row_counters.hpp), and keeps them here, compactly and
// within a budget; the write replays them against the schema instead of
// reading the input again. A capture with more rows than the budget holds
// drops what was kept (memory stays bounded whatever the size) and is read a
// second time for its rows (docs/performance.md, "Adreno rows in one pass").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hwpc/adreno/row_columns.hpp"
#include "hwpc/adreno/row_counters.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"

namespace hwpc::adreno::detail {

class row_store {
 public:
  // `budget`: bytes allocated at most. The pipeline's 8 MiB
  // (open_options::rows_kept_bytes) keep about 140 thousand rows of one
  // cell each (40 bytes a row, 16 a cell).
  explicit row_store(std::size_t budget) : budget_(budget) {}

  // The columns handed out while rows are kept (row_counters.hpp).
  provisional_columns& columns() noexcept { return columns_; }
  // True once the budget was passed: nothing is kept any more.
  bool dropped() const noexcept { return dropped_; }
  std::size_t rows() const noexcept { return rows_.size(); }
  std::size_t bytes() const noexcept { return bytes_; }

  // The id of reason text `r` among those kept, kept now if new. A producer
  // asks once per distinct reason and hands the id with each row
  // (result_rows.hpp): a text looked up per row cost more than the row.
  std::uint32_t reason_of(std::string_view r) {
    auto it = index_.find(r);
    if (it == index_.end()) {
      texts_.emplace_back(r);
      views_.push_back(texts_.back());
      extra_ += r.size() + sizeof(std::string) + 48;  // the text, its view and index entry
      it = index_.emplace(texts_.back(), static_cast<std::uint32_t>(views_.size() - 1)).first;
    }
    return it->second;
  }

  // Keeps row `r`, its reason being text `reason` (reason_of; r.reason is
  // not read), and its cells `set` of `cells` (provisional columns); false
  // when the budget is passed (and everything is dropped).
  bool add_row(const row& r, std::uint32_t reason, std::span<const cell> cells,
               std::span<const std::size_t> set) {
    if (dropped_) return false;
    // Every cell a row sets is a count (cell::u).
    for (const std::size_t j : set)
      cells_.push_back({static_cast<std::uint32_t>(j), cells[j].bits});
    rows_.push_back(
        {r.report, r.offset, r.begin, r.end, reason, static_cast<std::uint32_t>(cells_.size())});
    return within_budget();
  }
  bool add_row(const row& r, std::span<const cell> cells, std::span<const std::size_t> set) {
    if (dropped_) return false;
    return add_row(r, reason_of(r.reason), cells, set);
  }
  // Keeps an issue (offset already as reported), in order with the rows.
  bool add_issue(const error& e, bool note) {
    if (dropped_) return false;
    issues_.push_back({e, note, rows_.size()});
    extra_ += e.message.size();
    return within_budget();
  }

  // Replays the rows and issues kept, in their order, with the cells of
  // schema `s` (its columns found by name, as a row made with it would);
  // totals added for the cells each row sets. The row is valid during the call.
  template <class OnRow, class OnIssue>
  void replay(const row_schema& s, result_totals* totals, OnRow&& on_row,
              OnIssue&& on_issue) const {
    std::map<std::string, std::size_t> by_name;
    for (std::size_t j = 0; j < s.metrics.size(); ++j) by_name[s.metrics[j].name] = j;
    // Provisional column -> the schema's (`absent`: the schema has no such name).
    constexpr std::uint32_t absent = ~std::uint32_t{0};
    std::vector<std::uint32_t> to(first_counter_column + columns_.names().size(), absent);
    for (std::size_t j = 0; j < first_counter_column && j < s.metrics.size(); ++j)
      to[j] = static_cast<std::uint32_t>(j);
    for (std::size_t p = 0; p < columns_.names().size(); ++p) {
      const auto it = by_name.find(columns_.names()[p]);
      if (it != by_name.end())
        to[first_counter_column + p] = static_cast<std::uint32_t>(it->second);
    }
    std::vector<cell> cells(s.metrics.size());
    std::vector<std::uint32_t> set;
    std::size_t issue = 0, i = 0, cell_at = 0;
    // Iterators, not indices: a deque's index costs a division.
    auto c = cells_.begin();
    for (auto k = rows_.begin(); k != rows_.end(); ++k, ++i) {
      for (; issue < issues_.size() && issues_[issue].before_row <= i; ++issue) {
        on_issue(issues_[issue].e, issues_[issue].note);
      }
      for (const std::uint32_t j : set) cells[j] = cell::none();
      set.clear();
      for (; cell_at < k->cells_end; ++cell_at, ++c) {
        const std::uint32_t j = c->column < to.size() ? to[c->column] : absent;
        if (j == absent) continue;
        if (cells[j].is_none()) set.push_back(j);
        cells[j] = cell::u(c->value);
      }
      row r;
      r.report = k->report;
      r.offset = k->offset;
      r.begin = k->begin;
      r.end = k->end;
      r.reason = views_[k->reason];
      r.metrics = cells;
      if (totals != nullptr) {
        for (const std::uint32_t j : set) totals->add_at(j, cells[j]);
      }
      on_row(static_cast<const row&>(r));
    }
    for (; issue < issues_.size(); ++issue) on_issue(issues_[issue].e, issues_[issue].note);
  }

 private:
  struct stored_row {
    std::uint64_t report, offset, begin, end;
    std::uint32_t reason;     // into texts_
    std::uint32_t cells_end;  // this row's cells end here in cells_
  };
  struct stored_cell {
    std::uint32_t column;  // provisional
    std::uint64_t value;
  };
  struct stored_issue {
    error e;
    bool note;
    std::size_t before_row;  // reported before this row was made
  };

  // Reasons are few texts, looked up once each (reason_of): a hash of their
  // length and ends, not of every byte, tells them apart well enough.
  struct ends_hash {
    std::size_t operator()(std::string_view t) const noexcept {
      std::uint64_t head = 0, tail = 0;
      std::memcpy(&head, t.data(), std::min<std::size_t>(t.size(), 8));
      if (t.size() > 8) std::memcpy(&tail, t.data() + t.size() - 8, 8);
      const std::uint64_t h = (head * 0x9e3779b97f4a7c15u ^ tail) * 0xff51afd7ed558ccdu ^ t.size();
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  // What the kept rows hold, with a sixteenth for the deques' blocks and
  // their map, and the issues' vector by its capacity (what is allocated).
  bool within_budget() {
    bytes_ = (rows_.size() * sizeof(stored_row) + cells_.size() * sizeof(stored_cell)) / 16 * 17 +
             issues_.capacity() * sizeof(stored_issue) + extra_;
    if (bytes_ <= budget_) return true;
    dropped_ = true;
    bytes_ = 0;
    rows_ = {};
    cells_ = {};
    issues_ = {};
    index_ = {};
    texts_ = {};
    views_ = {};
    return false;
  }

  std::size_t budget_;
  std::size_t bytes_ = 0;
  std::size_t extra_ = 0;  // texts and issue messages
  bool dropped_ = false;
  provisional_columns columns_;
  // Deques: they grow a block at a time (a vector doubling would hold up to
  // twice what it keeps, and copy it all each time).
  std::deque<stored_row> rows_;
  std::deque<stored_cell> cells_;
  std::vector<stored_issue> issues_;
  std::deque<std::string> texts_;        // a deque: the views stay valid
  std::vector<std::string_view> views_;  // by id
  std::unordered_map<std::string_view, std::uint32_t, ends_hash> index_;
};

}  // namespace hwpc::adreno::detail
