// Mali samples as rows of the row contract (core/row.hpp), so `hwpc mali`
// writes through the same CSV, JSON, timeline and summary writers as Intel.
//
//   hwpc::mali::row_builder b(*gpu, evaluator_or_null, /*timed=*/true);
//   auto acc = hwpc::mali::for_each_row(kinstr_reader, b, [&](const hwpc::row& r) {
//     writer.write(r);
//   });
//   if (!acc) fail(acc.error_value().describe());  // rows before the error were written
//
// One sample is one row: `report` is the sample's index in the input,
// `offset` the byte offset of its record in the file the user gave (a
// capture file's header counted), counters are the GPU table's in table
// order, each summed over its block instances, and metrics are the
// evaluator's derived counters over those sums. Mali samples are already
// increments (the kernel clears the counters at every dump), so no delta is
// taken and no sample starts a stretch.
//
// Time (nanoseconds as kbase stamps them; clock_kind::cpu_ns, 1e9 ticks/s):
// a kinstr_prfcnt sample carries its own start and end. A vinstr sample
// carries one dump timestamp, so its interval runs from the previous dump;
// the first sample's start is unknown and is given as its end (length 0).
// Raw vinstr samples carry no time: begin = end = 0 and the schema's
// ticks_per_second is 0.
//
// Reasons: a vinstr dump's event ("manual", "periodic", "pre-job",
// "post-job"); a kinstr_prfcnt sample's flags ("overflow", "error", joined
// by '|'), empty when none is set. Allocation-light: the builder owns the
// row's buffers and reuses them for every sample.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/table.hpp"
#include "hwpc/mali/vinstr.hpp"

namespace hwpc::mali {

// The reason text of a vinstr dump event (BASE_HWCNT_READER_EVENT_*).
constexpr std::string_view vinstr_event_name(std::uint32_t event_id) noexcept {
  switch (event_id) {
    case 0:
      return "manual";
    case 1:
      return "periodic";
    case 2:
      return "pre-job";
    case 3:
      return "post-job";
    default:
      return "unknown-event";
  }
}

// The reason text of kinstr_prfcnt sample flags.
constexpr std::string_view kinstr_flags_name(std::uint32_t flags) noexcept {
  const bool overflow = (flags & kinstr::flag_overflow) != 0;
  const bool err = (flags & kinstr::flag_error) != 0;
  if (overflow && err) return "overflow|error";
  if (overflow) return "overflow";
  if (err) return "error";
  return "";
}

// The schema of a GPU's rows: one counter column per table counter (table
// order), one metric column per derived counter of `ev` (may be null).
inline row_schema schema_of(const gpu_product& gpu, const evaluator* ev, bool timed) {
  row_schema s;
  s.source = std::string(gpu.name);
  if (gpu.table->key != gpu.name) s.source += " (" + std::string(gpu.table->key) + " layout)";
  s.counters.reserve(gpu.table->counters.size());
  for (const hw_counter& c : gpu.table->counters) {
    s.counters.push_back({std::string(c.name), "events", column_kind::counter});
  }
  if (ev != nullptr) {
    for (std::size_t i = 0; i < ev->size(); ++i) {
      const auto& m = ev->metrics()[i];
      s.metrics.push_back({m.symbol_name, m.units, column_kind::metric});
    }
  }
  s.clock = clock_kind::cpu_ns;
  s.ticks_per_second = timed ? 1'000'000'000 : 0;
  return s;
}

// Fills a row per sample in buffers it owns (valid until the next call).
class row_builder {
 public:
  // `gpu` and `ev` must outlive the builder; `ev` may be null (no metrics).
  row_builder(const gpu_product& gpu, const evaluator* ev, bool timed)
      : table_(gpu.table), ev_(ev), schema_(schema_of(gpu, ev, timed)) {
    counters_.resize(table_->counters.size());
    if (ev_ != nullptr) {
      raw_.resize(ev_->metrics().inputs().size());
      values_.resize(ev_->size());
      cells_.resize(ev_->size());
    }
  }
  // The product must outlive the builder (above): not a temporary.
  row_builder(gpu_product&&, const evaluator*, bool) = delete;
  const row_schema& schema() const noexcept { return schema_; }
  const gpu_table& table() const noexcept { return *table_; }

  // The row of one sample's summed counters.
  result<const row*> make(std::uint64_t report, std::uint64_t offset, std::uint64_t begin,
                          std::uint64_t end, const block_sums& sums, std::string_view reason) {
    for (std::size_t i = 0; i < counters_.size(); ++i) counters_[i] = sums[table_->counters[i].id];
    if (auto ok = evaluate(sums); !ok) return ok.error_value();
    row_ = row{};
    row_.report = report;
    row_.offset = offset;
    row_.begin = begin;
    row_.end = end;
    row_.counters = counters_;
    row_.metrics = std::span<const cell>(cells_);
    row_.reason = reason;
    return &row_;
  }

  // The metrics of counter totals in schema order (--summary): the same
  // formulas over the sums of the rows.
  result<void> metrics_of(std::span<const std::uint64_t> counters, std::vector<cell>& out) {
    block_sums sums;
    for (std::size_t i = 0; i < counters.size() && i < table_->counters.size(); ++i) {
      const counter_id id = table_->counters[i].id;
      sums.values[static_cast<std::size_t>(id.block)][id.index] = counters[i];
    }
    if (auto ok = evaluate(sums); !ok) return ok;
    out.assign(cells_.begin(), cells_.end());
    return {};
  }

 private:
  result<void> evaluate(const block_sums& sums) {
    if (ev_ == nullptr) return {};
    ev_->inputs(sums, raw_);
    if (auto ok = ev_->metrics().evaluate(raw_, values_); !ok) return ok;
    for (std::size_t i = 0; i < values_.size(); ++i) {
      cells_[i] = values_[i].is_u64() ? cell::u(values_[i].bits) : cell::f(values_[i].as_double());
    }
    return {};
  }

  const gpu_table* table_;
  const evaluator* ev_;
  row_schema schema_;
  std::vector<std::uint64_t> counters_;
  std::vector<std::uint64_t> raw_;
  std::vector<expr::value> values_;
  std::vector<cell> cells_;
  row row_;
};

// Every sample is a report and an interval; Mali readers report no losses.
inline accounting accounting_of_samples(std::uint64_t samples) {
  accounting a;
  a.records = a.reports = a.intervals = samples;
  return a;
}

// Calls on_row(const row&) for every sample of a vinstr capture, in order.
template <class OnRow>
result<accounting> for_each_row(const vinstr_capture& cap, row_builder& b, OnRow&& on_row) {
  std::optional<std::uint64_t> previous;  // the dump before: where this sample begins
  for (std::size_t k = 0; k < cap.size(); ++k) {
    std::uint64_t begin = 0, end = 0;
    std::string_view reason;
    if (const auto m = cap.meta(k)) {
      end = m->timestamp;
      begin = previous.value_or(end);
      previous = end;
      reason = vinstr_event_name(m->event_id);
    }
    auto r = b.make(k, cap.offset(k), begin, end, cap.at(k).sums(), reason);
    if (!r) return r.error_value();
    on_row(**r);
  }
  return accounting_of_samples(cap.size());
}

// The same for a kinstr_prfcnt buffer: rows are produced as samples are
// parsed, so on a malformed sample the rows before it have been passed on
// and the error names its byte offset.
template <class OnRow>
result<accounting> for_each_row(kinstr_reader& rd, row_builder& b, OnRow&& on_row) {
  for (std::uint64_t k = 0;; ++k) {
    auto s = rd.next();
    if (!s) return s.error_value();
    if (!*s) return accounting_of_samples(k);
    const kinstr_sample& ks = **s;
    auto r = b.make(k, ks.offset, ks.meta.timestamp_start, ks.meta.timestamp_end, ks.sums(),
                    kinstr_flags_name(ks.meta.flags));
    if (!r) return r.error_value();
    on_row(**r);
  }
}

}  // namespace hwpc::mali
