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
// by '|'), empty when none is set; "sequence-gap" for a lost row.
//
// row_options adds per-instance columns (each L2 slice's and shader core's
// counters after the sums) and losses (kinstr_prfcnt sequence gaps as lost
// rows); docs/mali.md. Allocation-light: the builder owns the
// row's buffers and reuses them for every sample.
#pragma once

#include <algorithm>
#include <array>
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

// How counter columns are named: by the hardware (GPU_ACTIVE, the layout's
// names; the default) or by Streamline (MaliGPUActiveCy, the database's
// MachineNames that Arm's tools show).
enum class counter_naming { hardware, streamline };

// The column name of a counter: its hardware name, or its Streamline name
// (the hardware name where the table has none, which no generated table
// lacks: every counter has exactly one, test_mali_derived).
constexpr std::string_view counter_name(const gpu_table& t, const hw_counter& c,
                                        counter_naming naming) noexcept {
  if (naming == counter_naming::streamline) {
    const std::string_view s = t.streamline_name_of(c.id);
    if (!s.empty()) return s;
  }
  return c.name;
}

// What a schema holds besides the summed counters.
struct row_options {
  bool timed = true;  // samples carry kbase times (kinstr_prfcnt, capture files)
  // The source can skip samples (kinstr_prfcnt: a gap in the sequence numbers
  // becomes a lost row; schema.has_losses).
  bool losses = false;
  // With a layout: after the sums, one column per counter per instance of
  // the blocks that have several (each L2 slice, each shader core), named
  // "<instance>.<COUNTER>": "l2slice<i>" or "core<bit>", <bit> being the
  // core's bit in the core mask. (The front end and the tiler have one
  // instance each: their sums are their values.)
  std::optional<sample_layout> per_instance;
  counter_naming names = counter_naming::hardware;  // counter columns, per instance too
};

// One block instance of a per-instance schema.
struct block_instance {
  block_type type{};
  std::uint32_t number = 0;  // L2 slice, or the core's core-mask bit
  std::string label() const {
    return (type == block_type::memory ? "l2slice" : "core") + std::to_string(number);
  }
};

// The L2 slices and shader cores of a layout in sample order (cores in
// core-mask order).
inline std::vector<block_instance> instances_of(const sample_layout& l) {
  std::vector<block_instance> out;
  for (std::uint32_t i = 0; i < l.l2_slices; ++i) out.push_back({block_type::memory, i});
  for (std::uint32_t bit = 0; bit < 64; ++bit) {
    if ((l.core_mask >> bit) & 1u) out.push_back({block_type::shader_core, bit});
  }
  return out;
}

// The schema of a GPU's rows: one counter column per table counter (table
// order), the per-instance columns when asked, one metric column per
// derived counter of `ev` (may be null).
inline row_schema schema_of(const gpu_product& gpu, const evaluator* ev, const row_options& o) {
  row_schema s;
  s.source = std::string(gpu.name);
  if (gpu.table->key != gpu.name) s.source += " (" + std::string(gpu.table->key) + " layout)";
  s.counters.reserve(gpu.table->counters.size());
  for (const hw_counter& c : gpu.table->counters) {
    s.counters.push_back(
        {std::string(counter_name(*gpu.table, c, o.names)), "events", column_kind::counter});
  }
  if (o.per_instance) {
    for (const block_instance& b : instances_of(*o.per_instance)) {
      for (const hw_counter& c : gpu.table->counters) {
        if (c.id.block != b.type) continue;
        s.counters.push_back({b.label() + "." + std::string(counter_name(*gpu.table, c, o.names)),
                              "events", column_kind::counter});
      }
    }
  }
  if (ev != nullptr) {
    for (std::size_t i = 0; i < ev->size(); ++i) {
      const auto& m = ev->metrics()[i];
      s.metrics.push_back({m.symbol_name, m.units, column_kind::metric});
    }
  }
  s.clock = clock_kind::cpu_ns;
  s.ticks_per_second = o.timed ? 1'000'000'000 : 0;
  s.has_losses = o.losses;
  return s;
}

inline row_schema schema_of(const gpu_product& gpu, const evaluator* ev, bool timed) {
  return schema_of(gpu, ev, row_options{timed, false, std::nullopt});
}

// Fills a row per sample in buffers it owns (valid until the next call).
class row_builder {
 public:
  // `gpu` and `ev` must outlive the builder; `ev` may be null (no metrics).
  row_builder(const gpu_product& gpu, const evaluator* ev, bool timed)
      : row_builder(gpu, ev, row_options{timed, false, std::nullopt}) {}
  row_builder(const gpu_product& gpu, const evaluator* ev, const row_options& o)
      : table_(gpu.table), ev_(ev), schema_(schema_of(gpu, ev, o)) {
    counters_.resize(schema_.counters.size());
    for (const hw_counter& c : table_->counters) shifts_ = shifts_ || c.shift != 0;
    if (o.per_instance) {
      const auto inst = instances_of(*o.per_instance);
      std::uint32_t cores = 0, slot = 0;
      for (const block_instance& b : inst) {
        if (b.type == block_type::shader_core) {
          core_slot_[b.number] = o.per_instance->l2_slices + cores++;
          core_has_slot_[b.number] = true;
        }
        for (const hw_counter& c : table_->counters) {
          if (c.id.block == b.type) columns_.push_back({slot, c.id.index, c.shift});
        }
        ++slot;
      }
      values_per_block_ = table_->values_per_block;
      slots_ = inst.size();
      l2_slices_ = o.per_instance->l2_slices;
      instance_values_.assign(slots_ * values_per_block_, 0);
    }
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
  bool per_instance() const noexcept { return slots_ != 0; }

  // Per-instance values of the next sample: clear, then put each block.
  // `number`: the L2 slice, or for a shader core its core-mask bit (vinstr)
  // or its dense index (kinstr_prfcnt, `dense`).
  void clear_instances() noexcept {
    std::fill(instance_values_.begin(), instance_values_.end(), 0);
  }
  template <class ValueAt>
  void put_instance(block_type t, std::uint32_t number, bool dense, ValueAt&& value_at) {
    std::size_t slot = 0;
    if (t == block_type::memory) {
      slot = number;
    } else if (t != block_type::shader_core) {
      return;  // one instance: the sums hold it
    } else if (dense) {
      slot = l2_slices_ + number;
    } else if (number < 64 && core_has_slot_[number]) {
      slot = core_slot_[number];
    } else {
      return;
    }
    if (slot >= slots_) return;
    for (std::size_t i = header_counters; i < values_per_block_; ++i) {
      instance_values_[slot * values_per_block_ + i] = value_at(i);
    }
  }

  // The row of one sample's summed counters (as the readers give them: each
  // counter is scaled here by its shift, in the sums, the per-instance
  // columns and the derived counters alike).
  result<const row*> make(std::uint64_t report, std::uint64_t offset, std::uint64_t begin,
                          std::uint64_t end, const block_sums& raw_sums, std::string_view reason) {
    // Most layouts have no shift: no 4-KiB copy for them.
    if (shifts_) scaled_ = scaled_sums(*table_, raw_sums);
    const block_sums& sums = shifts_ ? scaled_ : raw_sums;
    const std::size_t n = table_->counters.size();
    for (std::size_t i = 0; i < n; ++i) counters_[i] = sums[table_->counters[i].id];
    for (std::size_t j = 0; j < columns_.size(); ++j) {
      const instance_column& c = columns_[j];
      counters_[n + j] =
          scale_counter(instance_values_[c.slot * values_per_block_ + c.index], c.shift);
    }
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

  // A lost row: samples are missing before the sample `report` at `offset`.
  const row* make_lost(std::uint64_t report, std::uint64_t offset, std::string_view reason) {
    lost_ = row{};
    lost_.report = report;
    lost_.offset = offset;
    lost_.reason = reason;
    lost_.lost = true;
    return &lost_;
  }

  // The metrics of counter totals in schema order (--summary): the same
  // formulas over the sums of the rows (already scaled).
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
  // `sums` are scaled (scaled_sums).
  result<void> evaluate(const block_sums& sums) {
    if (ev_ == nullptr) return {};
    ev_->scaled_inputs(sums, raw_);
    if (auto ok = ev_->metrics().evaluate(raw_, values_); !ok) return ok;
    for (std::size_t i = 0; i < values_.size(); ++i) {
      cells_[i] = values_[i].is_u64() ? cell::u(values_[i].bits) : cell::f(values_[i].as_double());
    }
    return {};
  }

  struct instance_column {
    std::size_t slot;
    std::size_t index;
    unsigned shift;
  };
  const gpu_table* table_;
  const evaluator* ev_;
  row_schema schema_;
  std::vector<std::uint64_t> counters_;
  std::vector<std::uint64_t> raw_;
  std::vector<expr::value> values_;
  std::vector<cell> cells_;
  std::vector<instance_column> columns_;        // per-instance columns after the sums
  std::vector<std::uint64_t> instance_values_;  // [slot][value index] of the current sample
  std::array<std::size_t, 64> core_slot_{};     // core-mask bit -> slot
  std::array<bool, 64> core_has_slot_{};
  std::size_t values_per_block_ = 0, slots_ = 0;
  std::uint32_t l2_slices_ = 0;
  bool shifts_ = false;  // some counter of the table has a shift
  block_sums scaled_;    // the current sample's sums, scaled, when shifts_
  row row_;
  row lost_;
};

// Every sample is a report and an interval (kinstr_prfcnt adds its gaps).
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
    const sample smp = cap.at(k);
    if (b.per_instance()) {
      b.clear_instances();
      smp.for_each_block([&](const block_view& v) {
        b.put_instance(v.type(), v.instance(), false, [&](std::size_t i) { return v.counter(i); });
      });
    }
    auto r = b.make(k, cap.offset(k), begin, end, smp.sums(), reason);
    if (!r) return r.error_value();
    on_row(**r);
  }
  return accounting_of_samples(cap.size());
}

// The same for a kinstr_prfcnt buffer: rows are produced as samples are
// parsed, so on a malformed sample the rows before it have been passed on
// and the error names its byte offset. The kernel numbers samples (SAMPLE
// item `seq`); a sample whose number does not follow the previous one's is
// preceded by a lost row ("sequence-gap", at the sample's report and
// offset) when the schema has losses, and counted in `gaps` either way.
inline constexpr std::string_view sequence_gap = "sequence-gap";

// The rows of kinstr_prfcnt samples fed one at a time (a live session, a
// capture still being written): the sample count and the last sequence
// number live here between calls. for_each_row below is this over a whole
// buffer, so both give the same rows.
class kinstr_row_stream {
 public:
  // `b` must outlive the stream.
  explicit kinstr_row_stream(row_builder& b) noexcept : b_(&b) {}

  // Calls on_row(const row&) for the sample (after a lost row when its
  // sequence number does not follow the previous sample's).
  template <class OnRow>
  result<void> feed(const kinstr_sample& ks, OnRow&& on_row) {
    if (has_previous_ && ks.meta.seq != previous_ + 1) {
      ++gaps_;
      if (b_->schema().has_losses) on_row(*b_->make_lost(samples_, ks.offset, sequence_gap));
    }
    previous_ = ks.meta.seq;
    has_previous_ = true;
    if (b_->per_instance()) {
      b_->clear_instances();
      for (const kinstr_block& blk : ks.blocks) {
        if (!blk.has_values()) continue;
        b_->put_instance(blk.type, blk.index, true,
                         [&](std::size_t i) { return ks.value(blk, i); });
      }
    }
    auto r = b_->make(samples_, ks.offset, ks.meta.timestamp_start, ks.meta.timestamp_end,
                      ks.sums(), kinstr_flags_name(ks.meta.flags));
    if (!r) return r.error_value();
    ++samples_;
    on_row(**r);
    return {};
  }
  std::uint64_t samples() const noexcept { return samples_; }
  accounting totals() const {
    accounting a = accounting_of_samples(samples_);
    a.gaps = gaps_;
    a.records += gaps_;
    return a;
  }

 private:
  row_builder* b_;
  // The last sample's seq. (Not a std::optional: g++ -O3 takes its value for
  // maybe-uninitialized when the stream lives on the stack.)
  std::uint64_t previous_ = 0;
  bool has_previous_ = false;
  std::uint64_t samples_ = 0, gaps_ = 0;
};

template <class OnRow>
result<accounting> for_each_row(kinstr_reader& rd, row_builder& b, OnRow&& on_row) {
  kinstr_row_stream rows(b);
  for (;;) {
    auto s = rd.next();
    if (!s) return s.error_value();
    if (!*s) return rows.totals();
    if (auto ok = rows.feed(**s, on_row); !ok) return ok.error_value();
  }
}

}  // namespace hwpc::mali
