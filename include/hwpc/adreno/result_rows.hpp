// The sink behind the Adreno query rows (rows.hpp): receives walked packets,
// recognises the queries and counter reads of the capture's generation, reads
// their values from the submit's buffers and turns each result into a row.
// Callers use for_each_row (rows.hpp) or the pipeline (pipeline/
// adreno_capture.hpp), which feed it from a whole input or a stream.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hwpc/adreno/event_queue.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/packet_copies.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/adreno/recognise6.hpp"
#include "hwpc/adreno/row_callback.hpp"
#include "hwpc/adreno/row_columns.hpp"
#include "hwpc/adreno/row_counters.hpp"
#include "hwpc/adreno/row_store.hpp"
#include "hwpc/adreno/row_values.hpp"
#include "hwpc/adreno/rows6.hpp"
#include "hwpc/adreno/walk.hpp"
#include "hwpc/core/row.hpp"

namespace hwpc::adreno {

namespace detail {

// Receives walked packets, recognises queries and turns results into rows.
//
// Cost per row (docs/performance.md, "Adreno"): only the cells the previous
// row set are cleared; a counter's column, its reason text per countable and
// whether it was sampled before are found in a table indexed by the counter,
// filled on its first read; totals are added for the cells set only.
class result_rows final : public rd::capture_sink {
 public:
  using row_fn = row_callback;
  using issue_fn = std::function<void(const error&, bool note)>;

  // `schema` null: collect the sampled counters only (no rows). `hex`: the
  // hex text the input's dwords were parsed from (offsets are mapped back
  // into it), null for binary input.
  result_rows(const row_schema* schema, row_fn on_row, issue_fn on_issue,
              const hex_dwords* hex = nullptr, std::size_t text_size = 0)
      : schema_(schema),
        on_row_(on_row),
        on_issue_(std::move(on_issue)),
        hex_(hex),
        text_size_(text_size) {
    if (schema_ == nullptr) return;
    cells_.resize(schema_->metrics.size());
    for (std::size_t j = 0; j < schema_->metrics.size(); ++j) {
      column_of_[schema_->metrics[j].name] = j;
    }
  }
  void attach(const rd::address_space* space) noexcept { space_ = space; }
  // Totals of the rows' cells, added as each row is made (only its set cells).
  void total_into(result_totals* t) noexcept { totals_ = t; }
  // With no schema: also make the rows, with provisional columns, and keep
  // them and the issues in `store` (row_store.hpp) until its budget is
  // passed; from then on only the sampled counters are collected.
  void keep_rows_in(row_store* store) {
    store_ = store;
    on_issue_ = [store](const error& e, bool note) { (void)store->add_issue(e, note); };
  }
  // Input read piece by piece (rd_stream.hpp) may free a packet's bytes
  // before the recogniser's window lets it go: it gets copies of those.
  void keep_copies() noexcept { copy_ = true; }

  void on_packet(const walked_packet& w) override {
    // The A5XX recogniser knows A5XX sequences and registers only: an A6XX
    // or A7XX capture gets its own generation's events instead.
    if (rec6_) {
      rec6_->push(w.pkt, [this](const query6_event& e) { handle6(e); });
      set_interest(&recogniser6::interest);
      return;
    }
    // The packets the walker skipped made no event (the recogniser's interest).
    rec_.skip(take_skipped());
    // push(p, f): an event released as it is recognised is read at once;
    // one still held is read now, while its submit's buffers are there.
    const packet& p = w.pkt;
    // Not `copy_ && window ? copies_.keep(p) : p`: that copies every packet.
    const auto on_event = [this](const query_event& ev) { handle(ev); };
    // handle() is called out of line: the recogniser's kept event suits it.
    constexpr auto kept = recogniser::hand_on::kept_event;
    if (copy_ && window(p)) {
      rec_.push<kept>(copies_.keep(p), on_event);
    } else {
      rec_.push<kept>(p, on_event);
    }
    if (!rec_.events().empty()) take_snapshots();  // nothing held (most packets): nothing to read
    set_interest(rec_.window_packets() == 0 ? &recogniser::interest : nullptr);
  }
  void on_issue(const error& e) override {
    ++issues_;
    report_issue(e, false);
  }
  void on_note(const error& e) override { report_issue(e, true); }
  void on_gpu_id(std::uint32_t id, std::size_t) override {
    if (!gpu_id_) gpu_id_ = id;
    resolve();
  }
  void on_chip_id(std::uint64_t id, std::size_t) override {
    if (!chip_id_) chip_id_ = id;
    resolve();
  }
  const device* gpu() const noexcept { return resolve_device(gpu_id_, chip_id_); }
  void finish() {
    rec_.skip(take_skipped());
    rec_.finish();
    take_snapshots();
    rec_.release([this](const query_event& ev) { handle(ev); }, true);
    snaps_.clear();
  }

  const accounting& acc() const noexcept { return acc_; }
  std::size_t issues() const noexcept { return issues_; }
  std::optional<std::uint32_t> gpu_id() const noexcept { return gpu_id_; }
  const std::vector<counter_key>& sampled() const noexcept { return sampled_; }

 private:
  // Whether the recogniser may look back at `p` after this call (its
  // window), so that input read piece by piece keeps a copy. The type is
  // tested before the id is read: a test of both at once loads them in one
  // word just after the walker stored them apart, which the processor cannot
  // forward from its stores (a stall per packet).
  bool window(const packet& p) const noexcept {
    if (rec_.window_packets() != 0) return true;
    switch (p.hdr.type) {
      case packet_type::type4:
        return p.hdr.id == reg::rb_sample_count_control;
      case packet_type::type7:
        return p.hdr.id == op::cp_mem_write || p.hdr.id == op::cp_event_write;
      default:
        return false;
    }
  }

  void report_issue(const error& e, bool note) {
    if (!on_issue_) return;
    error m = e;
    m.offset = map(e.offset);
    on_issue_(m, note);
  }

  std::size_t map(std::size_t o) const noexcept {
    return hex_ != nullptr ? hex_->text_offset(o, text_size_) : o;
  }

  value_snapshot take(const query_event& ev) const {
    return take_values(ev, memory_reader{space_});
  }

  // `snaps_` holds one snapshot per event the recogniser holds, oldest
  // first: the events it queued since the last call are its newest.
  // Without a schema no value is read (only which counters are sampled).
  void take_snapshots() {
    for (std::size_t i = snaps_.size(); i < rec_.events().size(); ++i) {
      snaps_.push_back(rows() ? take(rec_.events()[i]) : value_snapshot{});
    }
  }

  void handle(const query_event& ev) {
    // Events leave in order: those held before this packet (snapshots
    // taken) first, then those recognised now, read now.
    value_snapshot s;
    if (!snaps_.empty()) {
      s = snaps_.front();
      snaps_.pop_front();
    } else if (rows()) {
      s = take(ev);
    }
    const bool begin = ev.op == query_op::occlusion_begin ||
                       (ev.op == query_op::timestamp && ev.role == timestamp_role::begin);
    const bool result = ev.op == query_op::occlusion_end || ev.op == query_op::timestamp ||
                        ev.op == query_op::counter_sample || ev.op == query_op::always_on_sample;
    if (!begin && !result) return;  // selects and other CP_MEM_TO_MEMs are not reports
    const std::uint64_t report = acc_.reports;
    ++acc_.records;
    ++acc_.reports;
    if (begin) {
      ++acc_.stretch_starts;
      if (ev.op == query_op::timestamp && s.v[0]) last_ticks_ = *s.v[0];
      return;
    }
    counter_reads::entry* counter = nullptr;
    if (ev.op == query_op::counter_sample && ev.counter) {
      counter =
          &counters_.of(ev.counter->group, ev.counter->counter, columns(), sampled_, provisional());
    }
    ++acc_.intervals;
    if (!rows()) return;
    clear_cells();
    row r;
    r.report = report;
    r.offset = s.section ? *s.section : map(ev.offset);
    r.begin = r.end = last_ticks_;
    std::uint32_t* reason = nullptr;  // where the store's id of r.reason is kept
    switch (ev.op) {
      case query_op::occlusion_end:
        if (s.v[1]) set_cell(col_samples_passed, *s.v[1]);
        r.reason = "occlusion";
        reason = &literal_ids_[0];
        break;
      case query_op::timestamp:
        if (ev.role == timestamp_role::end) {
          r.reason = "time-elapsed";
          reason = &literal_ids_[1];
          if (s.v[0] && s.v[2]) {
            r.begin = *s.v[0];
            r.end = *s.v[2];
            last_ticks_ = *s.v[2];
          }
          if (ev.slot_size == time_elapsed_slot24::size) {
            if (s.v[1]) set_cell(col_time_elapsed, ticks_to_ns(*s.v[1]));
          } else if (s.v[0] && s.v[2]) {
            set_cell(col_time_elapsed, ticks_to_ns(*s.v[2] - *s.v[0]));
          }
        } else {
          r.reason = "timestamp";
          reason = &literal_ids_[2];
          stamp(r, s);
        }
        break;
      case query_op::always_on_sample:
        r.reason = "always-on";
        reason = &literal_ids_[3];
        stamp(r, s);
        break;
      default: {  // counter_sample
        if (counter != nullptr) {
          reason = counters_.reason_id(*counter, ev.countable);
          // A reason the store knows already by id needs no text.
          if (store_ == nullptr || reason == nullptr || *reason == 0)
            r.reason = counters_.reason(*counter, ev.countable);
        } else {
          r.reason = "counter";
          reason = &literal_ids_[4];
        }
        if (counter != nullptr && s.v[0] && counter->column) set_cell(*counter->column, *s.v[0]);
        break;
      }
    }
    emit(r, reason);
  }

  void set_cell(std::size_t j, std::uint64_t v) {
    if (j >= cells_.size()) cells_.resize(j + 1);  // provisional columns grow
    if (cells_[j].is_none()) set_.push_back(j);
    cells_[j] = cell::u(v);
  }
  // Clears the cells the previous row set (a row sets a few of many columns).
  void clear_cells() noexcept {
    for (const std::size_t j : set_) cells_[j] = cell::none();
    set_.clear();
  }
  // `reason`: where the store's id of r.reason is kept once known (0: not
  // yet, else the id + 1); null: the text is looked up (a reason made for
  // this row alone).
  void emit(row& r, std::uint32_t* reason) {
    r.metrics = cells_;
    if (store_ != nullptr) {
      std::uint32_t id = 0;
      if (reason == nullptr) {
        id = store_->reason_of(r.reason);
      } else {
        if (*reason == 0) *reason = store_->reason_of(r.reason) + 1;
        id = *reason - 1;
      }
      if (!store_->add_row(r, id, cells_, set_)) store_ = nullptr;  // past the budget
      return;
    }
    if (totals_ != nullptr) {
      for (const std::size_t j : set_) totals_->add_at(j, cells_[j]);
    }
    if (on_row_) on_row_(r);
  }

  void stamp(row& r, const value_snapshot& s) {
    if (!s.v[0]) return;
    r.begin = r.end = last_ticks_ = *s.v[0];
    set_cell(col_gpu_time, ticks_to_ns(*s.v[0]));
  }

  // Rows are made (values read, cells set) with a schema, or kept in a store.
  bool rows() const noexcept { return schema_ != nullptr || store_ != nullptr; }
  const std::map<std::string, std::size_t>* columns() const noexcept {
    return schema_ != nullptr ? &column_of_ : nullptr;
  }
  provisional_columns* provisional() const noexcept {
    return store_ != nullptr ? &store_->columns() : nullptr;
  }

  const row_schema* schema_;
  row_store* store_ = nullptr;
  row_fn on_row_;
  issue_fn on_issue_;
  const hex_dwords* hex_ = nullptr;
  std::size_t text_size_ = 0;
  const rd::address_space* space_ = nullptr;
  result_totals* totals_ = nullptr;
  recogniser rec_{std::size_t{1} << 16};
  // One per event held by rec_, in order; a ring (a deque allocated and
  // freed a block every few events).
  event_queue<value_snapshot> snaps_;
  bool copy_ = false;
  packet_copies copies_;
  std::map<std::string, std::size_t> column_of_;  // looked up once per counter
  counter_reads counters_;
  std::vector<cell> cells_;
  std::vector<std::size_t> set_;  // the cells the current row set
  std::vector<counter_key> sampled_;
  // The store's ids (+ 1, 0: not asked yet) of the literal reasons:
  // occlusion, time-elapsed, timestamp, always-on, counter.
  std::array<std::uint32_t, 5> literal_ids_{};
  std::vector<std::uint32_t> reason6_ids_;  // by result6::reason_key, the same
  std::uint64_t last_ticks_ = 0;
  accounting acc_;
  std::size_t issues_ = 0;
  std::optional<std::uint32_t> gpu_id_;
  std::optional<std::uint64_t> chip_id_;
  std::optional<recogniser6> rec6_;
  rows6 rows6_;

  void resolve() {
    const device* d = gpu();
    if (d != nullptr && d->gen != generation::a5xx) {
      if (!rec6_) rec6_.emplace(d->gen);
    } else {
      rec6_.reset();
    }
  }

  // A6XX/A7XX results: what each event is decided by rows6.hpp; the report
  // accounting, the time and the cells as for A5XX. Without a schema no value
  // is read (what an event is does not depend on them).
  void handle6(const query6_event& e) {
    if (rows()) {
      rows6_.take(e, memory_reader{space_}, res6_);
    } else {
      rows6_.take(
          e,
          [](std::uint64_t, std::size_t, std::optional<std::size_t>*) {
            return std::optional<std::uint64_t>{};
          },
          res6_);
    }
    const result6& res = res6_;
    if (res.what == result6::kind::none) return;
    const std::uint64_t report = acc_.reports;
    ++acc_.records;
    ++acc_.reports;
    if (res.what == result6::kind::stretch_start) {
      ++acc_.stretch_starts;
      return;
    }
    // Each column resolved once: noted as sampled, and its cell's column.
    cols6_.clear();
    for (const counter_key& key : res.columns) cols6_.push_back(column6(key));
    ++acc_.intervals;
    if (!rows()) return;
    clear_cells();
    row r;
    r.report = report;
    r.begin = r.end = last_ticks_;
    if (res.begin && res.end) {
      r.begin = *res.begin;
      r.end = last_ticks_ = *res.end;
    }
    if (res.fixed) set_cell(res.fixed->first, res.fixed->second);
    for (const auto& [i, v] : res.values) {
      if (cols6_[i]) set_cell(*cols6_[i], v);
    }
    r.reason = res.reason;  // res6_ is kept until the next event
    r.offset = res.section ? *res.section : map(e.offset);
    std::uint32_t* reason = nullptr;
    if (res.reason_key != 0) {
      if (reason6_ids_.size() <= res.reason_key) reason6_ids_.resize(res.reason_key + 1, 0);
      reason = &reason6_ids_[res.reason_key];
    }
    emit(r, reason);
  }

  // The column of an A6XX/A7XX key, one of a row's columns (none when the
  // schema lacks it), noted in sampled_ on its first use (row_counters.hpp).
  std::optional<std::size_t> column6(const counter_key& k) {
    if (k.group != nullptr) {
      return counters_.of(k.group, k.counter, columns(), sampled_, provisional()).column;
    }
    return named_.of(k, true, columns(), sampled_, provisional());
  }
  named_columns named_;
  std::vector<std::optional<std::size_t>> cols6_;  // of res6_.columns
  result6 res6_;  // filled by rows6_ event after event (its storage reused)
};

}  // namespace detail

}  // namespace hwpc::adreno
