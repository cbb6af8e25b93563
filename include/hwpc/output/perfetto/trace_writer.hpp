// A native Perfetto trace (protobuf, `.pftrace`) of a capture's rows
// (`hwpc decode --output perfetto`).
//
// Tracks (TrackDescriptor packets first, then values):
//   <title>                      the capture (root)
//     raw counters               group: one counter track per schema counter
//     <metric set>               group: one counter track per metric (when there are metrics)
//     losses                     instant events, one per loss in the input (when it can lose)
// A caller may place each column under its own path of groups instead
// (`track_layout`: Mali per GPU / block / core, Adreno per query kind and
// counter group); a group is declared before the first track under it.
// Each counter track's CounterDescriptor carries the column's units: "ns" as
// UNIT_TIME_NS, "us" as UNIT_TIME_NS x 1000, "bytes" as UNIT_SIZE_BYTES,
// "events" and "number" as UNIT_COUNT, any other text ("cycles", "percent",
// "hz", ...) as unit_name.
//
// Values: each interval's values are TrackEvent counter events at the
// interval's end, mapped to nanoseconds by `to_ns` (CPU time when the
// caller can correlate, else GPU time). Counter increments are int64
// counter_value (double_counter_value above 2^63 - 1); metrics are
// counter_value when integer, double_counter_value when floating; a metric
// that could not be evaluated, or is not finite, has no value at that time.
// A loss is a TYPE_INSTANT event named by its kind on the losses track,
// placed where reports resume: the begin of the next interval (loss rows
// carry no time of their own), or the end of the last interval when none
// follows. Times before zero are written as 0.
//
// Every packet is on trusted_packet_sequence_id 1; the first clears its
// incremental state (nothing interned, so nothing depends on it).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/perfetto/fields.hpp"
#include "hwpc/output/perfetto/proto_writer.hpp"
#include "hwpc/output/perfetto/track_layout.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output::perfetto {

// Track uuids: every value packet names its track, so they are kept to
// three varint bytes (below 2^21) rather than random 64-bit ones (nine
// bytes: a quarter of a value's packet). A trace holds one capture; uuids
// are unique within it.
inline constexpr std::uint64_t uuid_base = std::uint64_t{1} << 20;
inline constexpr std::uint64_t root_uuid = uuid_base + 1;
inline constexpr std::uint64_t raw_group_uuid = uuid_base + 2;
inline constexpr std::uint64_t metric_group_uuid = uuid_base + 3;
inline constexpr std::uint64_t losses_uuid = uuid_base + 4;
inline constexpr std::uint64_t first_counter_uuid = uuid_base + 0x100;
// Groups of a track_layout other than the two above; below 2^21 as well.
inline constexpr std::uint64_t first_layout_group_uuid = uuid_base + (std::uint64_t{1} << 19);
inline constexpr std::uint32_t sequence_id = 1;

// How a column's units go into a CounterDescriptor.
struct unit_spec {
  std::uint32_t unit = counter_descriptor::unit_unspecified;
  std::int64_t multiplier = 1;
  std::string_view name;  // unit_name when no builtin unit fits
};

inline unit_spec unit_of(std::string_view units) {
  if (units == "ns") return {counter_descriptor::unit_time_ns, 1, {}};
  if (units == "us") return {counter_descriptor::unit_time_ns, 1000, {}};
  if (units == "bytes") return {counter_descriptor::unit_size_bytes, 1, {}};
  if (units == "events" || units == "number") return {counter_descriptor::unit_count, 1, {}};
  return {counter_descriptor::unit_unspecified, 1, units};
}

class trace_writer final : public row_writer {
 public:
  using clock_map = std::function<std::int64_t(std::uint64_t)>;
  // `title` names the root track, `metric_group` the metrics' group track
  // ("metrics" when empty); `to_ns` defaults to the schema's tick rate.
  trace_writer(text_buffer& out, const row_schema& s, std::string_view title,
               std::string_view metric_group = {}, clock_map to_ns = {})
      : trace_writer(out, s, title, default_layout(s, metric_group), std::move(to_ns)) {}

  // Each column under the groups `layout` names for it.
  trace_writer(text_buffer& out, const row_schema& s, std::string_view title, track_layout layout,
               clock_map to_ns = {})
      : out_(out), s_(s), to_ns_(std::move(to_ns)) {
    if (!to_ns_) {
      const std::uint64_t hz = s.ticks_per_second;
      to_ns_ = [hz](std::uint64_t t) { return ticks_to_ns(t, hz); };
    }
    layout.counters.resize(s.counters.size());
    layout.metrics.resize(s.metrics.size());
    group(root_uuid, 0, title);
    for (std::size_t c = 0; c < s.counters.size(); ++c) {
      counter_track(first_counter_uuid + c, parent_of(layout.counters[c]), s.counters[c],
                    c < layout.counter_names.size() ? layout.counter_names[c] : std::string_view{});
    }
    for (std::size_t j = 0; j < s.metrics.size(); ++j) {
      counter_track(first_counter_uuid + s.counters.size() + j, parent_of(layout.metrics[j]),
                    s.metrics[j]);
    }
    if (s.has_losses) declare_losses();
    emit();
  }

  // Intel's layout: counters under "raw counters", metrics under the set's name.
  static track_layout default_layout(const row_schema& s, std::string_view metric_group) {
    return perfetto::default_layout(s, metric_group);
  }

  void write(const row& r) override {
    if (r.lost) {
      pending_losses_.emplace_back(r.reason);
      return;
    }
    if (!pending_losses_.empty()) losses(clamp(to_ns_(r.begin)));
    last_ns_ = clamp(to_ns_(r.end));
    for (std::size_t c = 0; c < r.counters.size(); ++c) {
      value(first_counter_uuid + c, cell::u(r.counters[c]));
    }
    for (std::size_t j = 0; j < r.metrics.size(); ++j) {
      if (r.metrics[j].is_finite_number()) {
        value(first_counter_uuid + s_.counters.size() + j, r.metrics[j]);
      }
    }
    emit();
  }
  void end(const accounting&) override {
    losses(last_ns_);
    emit();
  }

 private:
  static std::uint64_t clamp(std::int64_t ns) noexcept {
    return ns < 0 ? 0 : static_cast<std::uint64_t>(ns);
  }
  // The uuid of the group at `path`, declaring it and its parents when new.
  // The first two groups keep the uuids of the default layout's two groups.
  std::uint64_t parent_of(const std::vector<std::string>& path) {
    std::uint64_t parent = root_uuid;
    std::string key;
    for (const std::string& name : path) {
      key += name;
      key += '\0';
      auto it = groups_.find(key);
      if (it == groups_.end()) {
        const std::size_t n = groups_.size();
        const std::uint64_t uuid = n == 0   ? raw_group_uuid
                                   : n == 1 ? metric_group_uuid
                                            : first_layout_group_uuid + n;
        it = groups_.emplace(key, uuid).first;
        group(uuid, parent, name);
      }
      parent = it->second;
    }
    return parent;
  }
  void declare_losses() {
    group(losses_uuid, root_uuid, "losses");
    losses_declared_ = true;
  }
  void losses(std::uint64_t ts) {
    // A schema that said it cannot lose reports gets the track when it does.
    if (!pending_losses_.empty() && !losses_declared_) declare_losses();
    for (const std::string& reason : pending_losses_) {
      auto p = packet(ts);
      auto e = w_.begin(trace_packet::track_event);
      w_.varint(track_event::type, track_event::type_instant);
      w_.varint(track_event::track_uuid, losses_uuid);
      w_.string(track_event::name, reason);
      w_.end(e);
      w_.end(p);
    }
    pending_losses_.clear();
  }
  // Opens a packet (Trace.packet) with its timestamp and sequence.
  proto::writer::nested packet(std::uint64_t ts) {
    auto p = w_.begin(trace::packet);
    w_.varint(trace_packet::timestamp, ts);
    sequence();
    return p;
  }
  void sequence() {
    w_.varint(trace_packet::trusted_packet_sequence_id, sequence_id);
    if (first_) {
      w_.varint(trace_packet::sequence_flags, trace_packet::seq_incremental_state_cleared);
      first_ = false;
    }
  }
  void group(std::uint64_t uuid, std::uint64_t parent, std::string_view name) {
    auto p = w_.begin(trace::packet);
    sequence();
    auto d = w_.begin(trace_packet::track_descriptor);
    w_.varint(track_descriptor::uuid, uuid);
    if (parent != 0) w_.varint(track_descriptor::parent_uuid, parent);
    w_.string(track_descriptor::name, name);
    w_.end(d);
    w_.end(p);
  }
  void counter_track(std::uint64_t uuid, std::uint64_t parent, const column& col,
                     std::string_view name = {}) {
    auto p = w_.begin(trace::packet);
    sequence();
    auto d = w_.begin(trace_packet::track_descriptor);
    w_.varint(track_descriptor::uuid, uuid);
    w_.varint(track_descriptor::parent_uuid, parent);
    w_.string(track_descriptor::name, name.empty() ? std::string_view(col.name) : name);
    auto c = w_.begin(track_descriptor::counter);
    const unit_spec u = unit_of(col.units);
    if (u.unit != counter_descriptor::unit_unspecified) {
      w_.varint(counter_descriptor::unit, u.unit);
    }
    if (u.multiplier != 1) w_.int64(counter_descriptor::unit_multiplier, u.multiplier);
    if (!u.name.empty()) w_.string(counter_descriptor::unit_name, u.name);
    w_.end(c);
    w_.end(d);
    w_.end(p);
  }
  void value(std::uint64_t uuid, cell v) {
    auto p = packet(last_ns_);
    auto e = w_.begin(trace_packet::track_event);
    w_.varint(track_event::type, track_event::type_counter);
    w_.varint(track_event::track_uuid, uuid);
    if (v.is_u64() && v.bits <= static_cast<std::uint64_t>(INT64_MAX)) {
      w_.varint(track_event::counter_value, v.bits);
    } else {
      w_.double_(track_event::double_counter_value, v.as_double());
    }
    w_.end(e);
    w_.end(p);
  }
  void emit() {
    out_ << std::string_view(w_.data());
    w_.clear();
  }

  text_buffer& out_;
  const row_schema& s_;
  clock_map to_ns_;
  proto::writer w_;
  std::map<std::string, std::uint64_t> groups_;  // path (names, each ended by NUL) -> uuid
  std::vector<std::string> pending_losses_;      // lost rows since the last interval
  std::uint64_t last_ns_ = 0;
  bool first_ = true;
  bool losses_declared_ = false;
};

}  // namespace hwpc::output::perfetto
