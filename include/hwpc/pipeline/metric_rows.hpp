// Rows on their way to a writer, their metrics evaluated a block at a time.
//
// Evaluating a metric set one row at a time (row_metrics::evaluate) walks the
// whole formula program per row; the batch evaluator (row_metrics::
// evaluate_block, expr/batch.hpp) runs each node over a column of rows and
// costs a fraction of that per row, with the same bits. So `hwpc decode`
// holds rows back in blocks: each row's fields, its reason text and its
// counters (row-major for the writer, column-major for the evaluator) are
// copied, and when the block is full, at a loss and at the end, the block's
// metrics are evaluated and its rows written, in input order. Loss rows have
// no counters and no metrics; they sit in the block with zero inputs and
// their results are not used. Memory is bounded by one block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/expr/batch.hpp"
#include "hwpc/metrics/binding.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::pipeline {

class metric_rows {
 public:
  // 256 rows: the held counters (53 columns of 256 u64 for SKL) and cells stay
  // in L2; 64 and 1024 measured no better (docs/performance.md).
  static constexpr std::size_t block = 256;

  metric_rows(metrics::row_metrics& m, std::size_t counters, output::row_writer& w)
      : m_(m),
        w_(w),
        counters_(counters),
        held_(block),
        by_row_(block * counters),
        by_column_(block * counters),
        elapsed_(block),
        cells_(m.size() * block),
        row_cells_(m.size()),
        column_ptrs_(counters),
        cell_ptrs_(m.size()) {
    for (std::size_t c = 0; c < counters; ++c) column_ptrs_[c] = by_column_.data() + c * block;
    for (std::size_t j = 0; j < m.size(); ++j) cell_ptrs_[j] = cells_.data() + j * block;
  }
  metric_rows(const metric_rows&) = delete;
  metric_rows& operator=(const metric_rows&) = delete;

  void add(const row& r) {
    held& h = held_[n_];
    h.r = r;
    h.r.counters = {};
    h.r.metrics = {};
    h.reason_at = reasons_.size();
    h.reason_size = r.reason.size();
    reasons_.append(r.reason);
    std::uint64_t* row_major = by_row_.data() + n_ * counters_;
    if (r.lost) {
      for (std::size_t c = 0; c < counters_; ++c) by_column_[c * block + n_] = 0;
      elapsed_[n_] = 0;
    } else {
      h.counter_count = r.counters.size() < counters_ ? r.counters.size() : counters_;
      for (std::size_t c = 0; c < h.counter_count; ++c) {
        row_major[c] = r.counters[c];
        by_column_[c * block + n_] = r.counters[c];
      }
      for (std::size_t c = h.counter_count; c < counters_; ++c) by_column_[c * block + n_] = 0;
      elapsed_[n_] = r.end - r.begin;
    }
    if (++n_ == block) flush();
  }

  // Evaluates and writes the rows held; the caller calls it after the last row.
  void flush() {
    if (n_ == 0) return;
    // The batch evaluator refuses nothing a bound set compiles to; should it
    // ever, the rows take the per-row path, which gives the same bits.
    const bool batched = static_cast<bool>(m_.evaluate_block(
        std::span<const std::uint64_t* const>(column_ptrs_), elapsed_.data(), n_, cell_ptrs_));
    const std::size_t metric_count = m_.size();
    for (std::size_t i = 0; i < n_; ++i) {
      held& h = held_[i];
      row r = h.r;
      r.reason = std::string_view(reasons_).substr(h.reason_at, h.reason_size);
      if (!r.lost) {
        r.counters =
            std::span<const std::uint64_t>(by_row_.data() + i * counters_, h.counter_count);
        if (batched) {
          for (std::size_t j = 0; j < metric_count; ++j) row_cells_[j] = cells_[j * block + i];
        } else {
          m_.evaluate(r.counters, r.end - r.begin, row_cells_);
        }
        r.metrics = row_cells_;
      }
      w_.write(r);
    }
    n_ = 0;
    reasons_.clear();
  }

 private:
  struct held {
    row r;  // without its spans (they point into the source's storage)
    std::size_t reason_at = 0;
    std::size_t reason_size = 0;
    std::size_t counter_count = 0;
  };
  metrics::row_metrics& m_;
  output::row_writer& w_;
  std::size_t counters_;
  std::size_t n_ = 0;
  std::vector<held> held_;
  std::string reasons_;                   // the held rows' reason texts, back to back
  std::vector<std::uint64_t> by_row_;     // held row i's counters at [i * counters_]
  std::vector<std::uint64_t> by_column_;  // counter c of held row i at [c * block + i]
  std::vector<std::uint64_t> elapsed_;
  std::vector<cell> cells_;  // metric j of held row i at [j * block + i]
  std::vector<cell> row_cells_;
  std::vector<const std::uint64_t*> column_ptrs_;
  std::vector<cell*> cell_ptrs_;
};

}  // namespace hwpc::pipeline
