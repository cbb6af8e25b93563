// The sink behind the Adreno query rows (rows.hpp): receives walked packets,
// recognises the queries and counter reads of the capture's generation, reads
// their values from the submit's buffers and turns each result into a row.
// Callers use for_each_row (rows.hpp) or the pipeline (pipeline/
// adreno_capture.hpp), which feed it from a whole input or a stream.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/adreno/packet_copies.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/adreno/recognise6.hpp"
#include "hwpc/adreno/row_columns.hpp"
#include "hwpc/adreno/rows6.hpp"
#include "hwpc/adreno/walk.hpp"
#include "hwpc/core/row.hpp"

namespace hwpc::adreno {

// What a read of the input produced besides its rows.
struct rows_done {
  accounting acc;
  walk_stats walk;
  std::size_t issues = 0;
  std::optional<std::uint32_t> gpu_id;
  const device* gpu = nullptr;  // what the capture's ids resolve to (generation.hpp)
};

namespace detail {

// Receives walked packets, recognises queries and turns results into rows.
class result_rows final : public rd::capture_sink {
 public:
  using row_fn = std::function<void(const row&)>;
  using issue_fn = std::function<void(const error&, bool note)>;

  // `schema` null: collect the sampled counters only (no rows).
  result_rows(const row_schema* schema, row_fn on_row, issue_fn on_issue,
              std::function<std::size_t(std::size_t)> map)
      : schema_(schema),
        on_row_(std::move(on_row)),
        on_issue_(std::move(on_issue)),
        map_(std::move(map)) {
    if (schema_ == nullptr) return;
    cells_.resize(schema_->metrics.size());
    for (std::size_t j = 0; j < schema_->metrics.size(); ++j) {
      column_of_[schema_->metrics[j].name] = j;
    }
  }
  void attach(const rd::address_space* space) noexcept { space_ = space; }
  // Input read piece by piece (rd_stream.hpp) may free a packet's bytes
  // before the recogniser's window lets it go: it gets copies of those.
  void keep_copies() noexcept { copy_ = true; }

  void on_packet(const walked_packet& w) override {
    // The A5XX recogniser knows A5XX sequences and registers only: an A6XX
    // or A7XX capture gets its own generation's events instead.
    if (rec6_) {
      rec6_->push(w.pkt, [this](const query6_event& e) { handle6(e); });
      return;
    }
    // push(p, f): an event released as it is recognised is read at once;
    // one still held is read now, while its submit's buffers are there.
    const packet& p = w.pkt;
    const bool window =
        rec_.window_packets() != 0 ||
        (p.hdr.type == packet_type::type4 && p.hdr.id == reg::rb_sample_count_control) ||
        (p.hdr.type == packet_type::type7 &&
         (p.hdr.id == op::cp_mem_write || p.hdr.id == op::cp_event_write));
    rec_.push(copy_ && window ? copies_.keep(p) : p, [this](const query_event& ev) { handle(ev); });
    take_snapshots();
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
  // Values read at the moment an event is recognised, from the submit that
  // holds it (the address space changes at the next submit).
  struct snapshot {
    std::optional<std::uint64_t> v[3];
    std::optional<std::size_t> section;  // the BUFFER_CONTENTS header holding the result
  };

  void report_issue(const error& e, bool note) {
    if (!on_issue_) return;
    error m = e;
    m.offset = map_(e.offset);
    on_issue_(m, note);
  }

  // Reads `n` (4 or 8) bytes at `addr`; none when no dump holds them all.
  std::optional<std::uint64_t> read(std::uint64_t addr, std::size_t n,
                                    std::optional<std::size_t>* section = nullptr) const {
    if (space_ == nullptr) return std::nullopt;
    auto loc = space_->find(addr, n);
    if (!loc || loc->bytes.size() < n) return std::nullopt;
    // The payload of a section follows its 8-byte header (type, size).
    if (section != nullptr) *section = loc->buffer_offset - 8;
    return n == 8 ? load_le64(loc->bytes.data()) : std::uint64_t{load_le32(loc->bytes.data())};
  }

  snapshot take(const query_event& ev) const {
    snapshot s;
    switch (ev.op) {
      case query_op::occlusion_end:
        s.v[0] = read(ev.slot + occlusion_slot::start_offset, 8);
        s.v[1] = read(ev.slot + occlusion_slot::result_offset, 8, &s.section);
        s.v[2] = read(ev.slot + occlusion_slot::stop_offset, 8);
        break;
      case query_op::timestamp:
        if (ev.role == timestamp_role::end && ev.slot_size == time_elapsed_slot24::size) {
          s.v[0] = read(ev.slot + time_elapsed_slot24::start_offset, 8);
          s.v[1] = read(ev.slot + time_elapsed_slot24::result_offset, 8, &s.section);
          s.v[2] = read(ev.slot + time_elapsed_slot24::stop_offset, 8);
        } else if (ev.role == timestamp_role::end) {
          s.v[0] = read(ev.slot + time_elapsed_slot::start_offset, 8);
          s.v[2] = read(ev.slot + time_elapsed_slot::stop_offset, 8, &s.section);
        } else {
          s.v[0] = read(ev.address, 8, &s.section);
        }
        break;
      case query_op::counter_sample:
      case query_op::always_on_sample:
        s.v[0] = read(ev.address, ev.sample_dwords == 2 ? 8 : 4, &s.section);
        break;
      default:
        break;
    }
    return s;
  }

  // `snaps_` holds one snapshot per event the recogniser holds, oldest
  // first: the events it queued since the last call are its newest.
  void take_snapshots() {
    for (std::size_t i = snaps_.size(); i < rec_.events().size(); ++i) {
      snaps_.push_back(take(rec_.events()[i]));
    }
  }

  void handle(const query_event& ev) {
    // Events leave in order: those held before this packet (snapshots
    // taken) first, then those recognised now, read now.
    snapshot s;
    if (!snaps_.empty()) {
      s = snaps_.front();
      snaps_.pop_front();
    } else {
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
    std::optional<counter_key> key;
    if (ev.op == query_op::counter_sample && ev.counter) {
      key = counter_key{ev.counter->group, ev.counter->counter};
      if (std::find(sampled_.begin(), sampled_.end(), *key) == sampled_.end()) {
        sampled_.push_back(*key);
      }
    }
    ++acc_.intervals;
    if (schema_ == nullptr) return;
    for (cell& c : cells_) c = cell::none();
    row r;
    r.report = report;
    r.offset = s.section ? *s.section : map_(ev.offset);
    r.begin = r.end = last_ticks_;
    switch (ev.op) {
      case query_op::occlusion_end:
        if (s.v[1]) cells_[col_samples_passed] = cell::u(*s.v[1]);
        r.reason = "occlusion";
        break;
      case query_op::timestamp:
        if (ev.role == timestamp_role::end) {
          r.reason = "time-elapsed";
          if (s.v[0] && s.v[2]) {
            r.begin = *s.v[0];
            r.end = *s.v[2];
            last_ticks_ = *s.v[2];
          }
          if (ev.slot_size == time_elapsed_slot24::size) {
            if (s.v[1]) cells_[col_time_elapsed] = cell::u(ticks_to_ns(*s.v[1]));
          } else if (s.v[0] && s.v[2]) {
            cells_[col_time_elapsed] = cell::u(ticks_to_ns(*s.v[2] - *s.v[0]));
          }
        } else {
          r.reason = "timestamp";
          stamp(r, s);
        }
        break;
      case query_op::always_on_sample:
        r.reason = "always-on";
        stamp(r, s);
        break;
      default: {  // counter_sample
        if (key && ev.countable) {
          reason_ = countable_name(*key->group, *ev.countable);
        } else {
          reason_ = key ? key->name() : std::string("counter");
        }
        r.reason = reason_;
        if (key && s.v[0]) {
          if (const auto col = counter_column(*key)) cells_[*col] = cell::u(*s.v[0]);
        }
        break;
      }
    }
    r.metrics = cells_;
    on_row_(r);
  }

  // A counter's column, found by name once per counter (a few counters,
  // thousands of reads).
  std::optional<std::size_t> counter_column(const counter_key& k) {
    for (const auto& [key, col] : counter_columns_) {
      if (key == k) return col;
    }
    const auto it = column_of_.find(k.name());
    std::optional<std::size_t> col;
    if (it != column_of_.end()) col = it->second;
    counter_columns_.emplace_back(k, col);
    return col;
  }

  void stamp(row& r, const snapshot& s) {
    if (!s.v[0]) return;
    r.begin = r.end = last_ticks_ = *s.v[0];
    cells_[col_gpu_time] = cell::u(ticks_to_ns(*s.v[0]));
  }

  const row_schema* schema_;
  row_fn on_row_;
  issue_fn on_issue_;
  std::function<std::size_t(std::size_t)> map_;
  const rd::address_space* space_ = nullptr;
  recogniser rec_{std::size_t{1} << 16};
  std::deque<snapshot> snaps_;  // one per event held by rec_, in order
  bool copy_ = false;
  packet_copies copies_;
  std::map<std::string, std::size_t> column_of_;
  std::vector<std::pair<counter_key, std::optional<std::size_t>>> counter_columns_;
  std::vector<cell> cells_;
  std::vector<counter_key> sampled_;
  std::string reason_;
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
  // accounting, the time and the cells as for A5XX.
  void handle6(const query6_event& e) {
    const result6 res =
        rows6_.take(e, [this](std::uint64_t a, std::size_t n, std::optional<std::size_t>* section) {
          return read(a, n, section);
        });
    if (res.what == result6::kind::none) return;
    const std::uint64_t report = acc_.reports;
    ++acc_.records;
    ++acc_.reports;
    if (res.what == result6::kind::stretch_start) {
      ++acc_.stretch_starts;
      return;
    }
    for (const counter_key& key : res.columns) {
      if (std::find(sampled_.begin(), sampled_.end(), key) == sampled_.end()) {
        sampled_.push_back(key);
      }
    }
    ++acc_.intervals;
    if (schema_ == nullptr) return;
    for (cell& c : cells_) c = cell::none();
    row r;
    r.report = report;
    r.begin = r.end = last_ticks_;
    if (res.begin && res.end) {
      r.begin = *res.begin;
      r.end = last_ticks_ = *res.end;
    }
    for (const auto& [name, v] : res.values) {
      const auto col = column_of_.find(name);
      if (col != column_of_.end()) cells_[col->second] = cell::u(v);
    }
    reason_ = res.reason;
    r.reason = reason_;
    r.offset = res.section ? *res.section : map_(e.offset);
    r.metrics = cells_;
    on_row_(r);
  }
};

}  // namespace detail

}  // namespace hwpc::adreno
