// The Perfetto trace fields hwpc writes, by number.
//
// Source: Perfetto's merged trace schema, protos/perfetto/trace/perfetto_trace.proto
// (messages Trace, TracePacket, TrackDescriptor, CounterDescriptor, TrackEvent).
// Field numbers are facts of the wire format; tests/test_output_perfetto_fields.cpp
// reads the schema as text and checks every entry of `table` against it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace hwpc::output::perfetto {

namespace trace {
inline constexpr std::uint32_t packet = 1;  // repeated TracePacket
}  // namespace trace

namespace trace_packet {
inline constexpr std::uint32_t timestamp = 8;                    // uint64, ns on the trace clock
inline constexpr std::uint32_t trusted_packet_sequence_id = 10;  // uint32
inline constexpr std::uint32_t track_event = 11;                 // TrackEvent
inline constexpr std::uint32_t sequence_flags = 13;              // uint32, SequenceFlags
inline constexpr std::uint32_t track_descriptor = 60;            // TrackDescriptor
// TracePacket.SequenceFlags
inline constexpr std::uint32_t seq_incremental_state_cleared = 1;
}  // namespace trace_packet

namespace track_descriptor {
inline constexpr std::uint32_t uuid = 1;         // uint64
inline constexpr std::uint32_t name = 2;         // string
inline constexpr std::uint32_t parent_uuid = 5;  // uint64
inline constexpr std::uint32_t counter = 8;      // CounterDescriptor
}  // namespace track_descriptor

namespace counter_descriptor {
inline constexpr std::uint32_t unit = 3;             // Unit
inline constexpr std::uint32_t unit_multiplier = 4;  // int64
inline constexpr std::uint32_t unit_name = 6;        // string
// CounterDescriptor.Unit
inline constexpr std::uint32_t unit_unspecified = 0;
inline constexpr std::uint32_t unit_time_ns = 1;
inline constexpr std::uint32_t unit_count = 2;
inline constexpr std::uint32_t unit_size_bytes = 3;
}  // namespace counter_descriptor

namespace track_event {
inline constexpr std::uint32_t type = 9;                   // Type
inline constexpr std::uint32_t track_uuid = 11;            // uint64
inline constexpr std::uint32_t name = 23;                  // string
inline constexpr std::uint32_t counter_value = 30;         // int64
inline constexpr std::uint32_t double_counter_value = 44;  // double
// TrackEvent.Type
inline constexpr std::uint32_t type_instant = 3;
inline constexpr std::uint32_t type_counter = 4;
}  // namespace track_event

// Every number above with the message (or enum) and name the schema gives it.
struct field_entry {
  // A top-level message ("message Trace"), or a path into one
  // ("message CounterDescriptor/enum Unit").
  std::string_view scope;
  std::string_view name;
  std::uint32_t number;
};

inline constexpr std::array<field_entry, 24> table{{
    {"message Trace", "packet", trace::packet},
    {"message TracePacket", "timestamp", trace_packet::timestamp},
    {"message TracePacket", "trusted_packet_sequence_id", trace_packet::trusted_packet_sequence_id},
    {"message TracePacket", "track_event", trace_packet::track_event},
    {"message TracePacket", "sequence_flags", trace_packet::sequence_flags},
    {"message TracePacket", "track_descriptor", trace_packet::track_descriptor},
    {"message TracePacket/enum SequenceFlags", "SEQ_INCREMENTAL_STATE_CLEARED",
     trace_packet::seq_incremental_state_cleared},
    {"message TrackDescriptor", "uuid", track_descriptor::uuid},
    {"message TrackDescriptor", "name", track_descriptor::name},
    {"message TrackDescriptor", "parent_uuid", track_descriptor::parent_uuid},
    {"message TrackDescriptor", "counter", track_descriptor::counter},
    {"message CounterDescriptor", "unit", counter_descriptor::unit},
    {"message CounterDescriptor", "unit_multiplier", counter_descriptor::unit_multiplier},
    {"message CounterDescriptor", "unit_name", counter_descriptor::unit_name},
    {"message CounterDescriptor/enum Unit", "UNIT_TIME_NS", counter_descriptor::unit_time_ns},
    {"message CounterDescriptor/enum Unit", "UNIT_COUNT", counter_descriptor::unit_count},
    {"message CounterDescriptor/enum Unit", "UNIT_SIZE_BYTES", counter_descriptor::unit_size_bytes},
    {"message TrackEvent", "type", track_event::type},
    {"message TrackEvent", "track_uuid", track_event::track_uuid},
    {"message TrackEvent", "counter_value", track_event::counter_value},
    {"message TrackEvent", "name", track_event::name},
    {"message TrackEvent", "double_counter_value", track_event::double_counter_value},
    {"message TrackEvent/enum Type", "TYPE_INSTANT", track_event::type_instant},
    {"message TrackEvent/enum Type", "TYPE_COUNTER", track_event::type_counter},
}};

}  // namespace hwpc::output::perfetto
