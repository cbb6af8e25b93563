// A capture's rows as Perfetto GPU counters (`--output perfetto`): the
// packets trace_processor imports into gpu_counter_track and the UI shows
// under GPU > Counters (../shared/docs/FACTS-perfetto-gpu.md; docs/perfetto.md).
//
// Packets of one capture, all on its trusted_packet_sequence_id (gpu_slot):
//   ClockSnapshot x K  when the capture has correlation points: CLOCK_MONOTONIC
//                      and the sequence's clock 64 (GPU nanoseconds), with
//                      primary_trace_clock MONOTONIC, so every GPU time lands
//                      on the CPU clock of a system trace. All of them come
//                      first: trace_processor converts a timestamp with the
//                      snapshots read so far.
//   GpuInfo            the GPU's name, vendor and model, at index gpu_id
//                      (lower indices empty: they are other captures').
//   descriptor         InternedData.gpu_counter_descriptors {iid 1, gpu_id,
//                      GpuCounterDescriptor (gpu_descriptor.hpp)}.
//   samples            GpuCounterEvent {counter_descriptor_iid 1, counters}:
//                      one packet per row holding all that row's values.
// The first packet clears the sequence's incremental state; the rest that
// use the interned descriptor say they need it. Every packet has a
// timestamp (GPU nanoseconds, on clock 64 when correlated, else on the
// trace clock): the header packets take the first sample's.
//
// Placement: a spec is VALUE_DIRECTION_BACKWARDS_LOOKING, so trace_processor
// gives a sample's value to the track's previous counter row (the sample
// before it) and puts a 0 placeholder at the sample's own time. A row's
// value is sent at its interval's end (the CSV's timestamp); when the track's
// previous sample is not at the interval's begin (the first interval, the
// first after a loss, a metric with no value in the rows before), an opening
// sample at the begin comes first, holding NaN: for the first it is
// discarded, otherwise it marks the time since the previous sample as a gap
// (trace_processor keeps the NaN; SQL reads it as NULL), never a value of
// another interval. So every counter row holds the value of the interval
// from its ts to the next row's ts, as the CSV does.
// An interval that begins where it ends (or before) is given 1 ns, one that
// begins at 0 begins at 1 ns (every timestamp is positive); one that
// begins before the track's previous sample (overlapping results) has no
// opening: its value covers the time since that sample. Rows whose schema
// has no clock (ticks_per_second 0: raw Mali vinstr samples) are placed at
// their position, row k over (k + 1, k + 2] ns.
//
// Values: int_value for counter increments up to 2^63 - 1 (double_value
// above), double_value for metrics (int_value when an integer cell); a
// metric without a finite value sends nothing (the next value opens a gap).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/perfetto/fields_gpu.hpp"
#include "hwpc/output/perfetto/gpu_capture.hpp"
#include "hwpc/output/perfetto/gpu_descriptor.hpp"
#include "hwpc/output/perfetto/proto_writer.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output::perfetto {

inline constexpr std::uint64_t descriptor_iid = 1;

// Bytes of a varint.
constexpr std::size_t varint_size(std::uint64_t v) noexcept {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

class gpu_counter_writer final : public row_writer {
 public:
  gpu_counter_writer(text_buffer& out, const row_schema& s, gpu_capture c, gpu_slot slot = {})
      : out_(out), s_(s), c_(std::move(c)), slot_(slot) {
    if (c_.layout.counters.empty() && c_.layout.metrics.empty()) {
      c_.layout = default_layout(s, {});
    }
    const std::size_t n = s.counters.size() + s.metrics.size();
    last_.assign(n, none_);
    clock_id_ = c_.correlation.empty() ? 0 : builtin_clock::first_sequence_clock;
  }

  void write(const row& r) override {
    if (r.lost) return;  // the next interval begins later: its opening marks the gap
    std::uint64_t b = 0, e = 0;
    if (s_.ticks_per_second == 0) {
      b = ++untimed_;
      e = b + 1;
    } else {
      b = ns(r.begin);
      e = ns(r.end);
    }
    if (b >= e) b = e == 0 ? 0 : e - 1;
    if (b == 0 && e > 1) b = 1;  // no packet at 0: timestamps are positive
    if (!header_done_) header(b);
    opening_.clear();
    values_.clear();
    for (std::size_t k = 0; k < r.counters.size() && k < s_.counters.size(); ++k) {
      add(k, cell::u(r.counters[k]), b, e);
    }
    for (std::size_t k = 0; k < r.metrics.size() && k < s_.metrics.size(); ++k) {
      if (r.metrics[k].is_finite_number()) add(s_.counters.size() + k, r.metrics[k], b, e);
    }
    if (!opening_.empty()) {
      auto p = packet(b);
      auto ev = w_.begin(trace_packet::gpu_counter_event);
      w_.varint(gpu_counter_event::counter_descriptor_iid, descriptor_iid);
      for (std::uint32_t id : opening_)
        counter(id, cell::f(std::numeric_limits<double>::quiet_NaN()));
      w_.end(ev);
      w_.end(p);
    }
    if (!values_.empty()) {
      auto p = packet(e);
      auto ev = w_.begin(trace_packet::gpu_counter_event);
      w_.varint(gpu_counter_event::counter_descriptor_iid, descriptor_iid);
      for (const auto& [id, v] : values_) counter(id, v);
      w_.end(ev);
      w_.end(p);
    }
    emit();
  }

  void end(const accounting&) override {
    if (!header_done_) header(c_.correlation.empty() ? 1 : c_.correlation.front().gpu_ns);
    emit();
  }

  // Nanoseconds of a time on the schema's clock.
  std::uint64_t ns(std::uint64_t t) const noexcept {
    if (s_.clock == clock_kind::cpu_ns) return t;
    return static_cast<std::uint64_t>(ticks_to_ns(t, s_.ticks_per_second));
  }

 private:
  static constexpr std::uint64_t none_ = std::numeric_limits<std::uint64_t>::max();

  void add(std::size_t col, cell v, std::uint64_t b, std::uint64_t e) {
    const auto id = static_cast<std::uint32_t>(col + 1);
    std::uint64_t& last = last_[col];
    if (last == none_ || last < b) opening_.push_back(id);
    values_.emplace_back(id, v);
    last = e;
  }

  // One GpuCounter: its length is known before it is written, so it takes
  // one length byte rather than the writer's four (most of a value's bytes).
  void counter(std::uint32_t id, cell v) {
    const bool as_int = v.is_u64() && v.bits <= static_cast<std::uint64_t>(INT64_MAX);
    const bool int_double = !as_int && v.is_f64() && is_small_integer(v.as_double());
    // Only a value int_value carries is converted (a NaN or a fraction is not).
    const std::uint64_t iv = as_int       ? v.bits
                             : int_double ? static_cast<std::uint64_t>(v.as_double())
                                          : 0;
    const std::size_t len = 1 + varint_size(id) + 1 + (as_int || int_double ? varint_size(iv) : 8);
    w_.key(gpu_counter_event::counters, proto::wire_type::length_delimited);
    w_.raw_varint(len);
    w_.varint(gpu_counter::counter_id, id);
    if (as_int || int_double) {
      w_.varint(gpu_counter::int_value, iv);
    } else {
      w_.double_(gpu_counter::double_value, v.as_double());
    }
  }
  // A double that int_value carries exactly (its value as an integer).
  static bool is_small_integer(double d) noexcept {
    return std::isfinite(d) && d == std::trunc(d) && d >= 0 && d < 9007199254740992.0;
  }

  // Opens a packet at `ts` on this capture's clock and sequence.
  proto::writer::nested packet(std::uint64_t ts, std::uint32_t clock = 0) {
    auto p = w_.begin(trace::packet);
    w_.varint(trace_packet::timestamp, ts);
    if (clock == 0) clock = clock_id_;
    if (clock != 0) w_.varint(trace_packet::timestamp_clock_id, clock);
    w_.varint(trace_packet::trusted_packet_sequence_id, slot_.sequence_id);
    if (first_) {
      w_.varint(trace_packet::sequence_flags, trace_packet::seq_incremental_state_cleared);
      w_.varint(trace_packet::first_packet_on_sequence, 1);
      first_ = false;
    } else {
      w_.varint(trace_packet::sequence_flags, trace_packet::seq_needs_incremental_state);
    }
    return p;
  }

  void header(std::uint64_t t0) {
    header_done_ = true;
    namespace cs = clock_snapshot;
    for (const clock_pair& cp : c_.correlation) {
      auto p = packet(cp.cpu_ns, builtin_clock::monotonic);
      auto snap = w_.begin(trace_packet::clock_snapshot);
      auto a = w_.begin(cs::clocks);
      w_.varint(cs::clock_id, builtin_clock::monotonic);
      w_.varint(cs::clock_timestamp, cp.cpu_ns);
      w_.end(a);
      auto g = w_.begin(cs::clocks);
      w_.varint(cs::clock_id, builtin_clock::first_sequence_clock);
      w_.varint(cs::clock_timestamp, cp.gpu_ns);
      w_.end(g);
      w_.varint(cs::primary_trace_clock, builtin_clock::monotonic);
      w_.end(snap);
      w_.end(p);
    }
    {
      auto p = packet(t0);
      auto info = w_.begin(trace_packet::gpu_info);
      for (std::int32_t k = 0; k < slot_.gpu_id; ++k) w_.end(w_.begin(gpu_info::gpus));
      auto g = w_.begin(gpu_info::gpus);
      const gpu_identity& id = c_.gpu;
      if (!id.name.empty()) w_.string(gpu::name, id.name);
      if (!id.vendor.empty()) w_.string(gpu::vendor, id.vendor);
      if (!id.model.empty()) w_.string(gpu::model, id.model);
      if (!id.architecture.empty()) w_.string(gpu::architecture, id.architecture);
      w_.end(g);
      w_.end(info);
      w_.end(p);
    }
    auto p = packet(t0);
    auto in = w_.begin(trace_packet::interned_data);
    auto d = w_.begin(interned_data::gpu_counter_descriptors);
    w_.varint(interned_gpu_counter_descriptor::iid, descriptor_iid);
    w_.int64(interned_gpu_counter_descriptor::gpu_id, slot_.gpu_id);
    auto desc = w_.begin(interned_gpu_counter_descriptor::counter_descriptor);
    write_descriptor(w_, s_, c_.layout);
    w_.end(desc);
    w_.end(d);
    w_.end(in);
    auto ev = w_.begin(trace_packet::gpu_counter_event);
    w_.varint(gpu_counter_event::counter_descriptor_iid, descriptor_iid);
    w_.end(ev);
    w_.end(p);
  }

  void emit() {
    out_ << std::string_view(w_.data());
    w_.clear();
  }

  text_buffer& out_;
  const row_schema& s_;
  gpu_capture c_;
  gpu_slot slot_;
  std::uint32_t clock_id_ = 0;
  proto::writer w_;
  std::vector<std::uint64_t> last_;  // per column: ns of its track's last sample
  std::vector<std::uint32_t> opening_;
  std::vector<std::pair<std::uint32_t, cell>> values_;
  std::uint64_t untimed_ = 0;
  bool first_ = true;
  bool header_done_ = false;
};

}  // namespace hwpc::output::perfetto
