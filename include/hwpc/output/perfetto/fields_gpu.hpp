// The Perfetto trace fields of the GPU counter path, by number.
//
// Source: Perfetto's merged trace schema, protos/perfetto/trace/perfetto_trace.proto
// (messages TracePacket, GpuCounterEvent, GpuCounterDescriptor,
// InternedGpuCounterDescriptor, InternedData, GpuInfo, ClockSnapshot; enums
// BuiltinClock, MeasureUnit, ValueDirection). tests/test_output_perfetto.cpp
// reads the schema as text and checks every entry of `gpu_table` against it,
// as it does fields.hpp's `table`.
#pragma once

#include <array>
#include <cstdint>

#include "hwpc/output/perfetto/fields.hpp"

namespace hwpc::output::perfetto {

namespace trace_packet {
inline constexpr std::uint32_t clock_snapshot = 6;               // ClockSnapshot
inline constexpr std::uint32_t interned_data = 12;               // InternedData
inline constexpr std::uint32_t gpu_counter_event = 52;           // GpuCounterEvent
inline constexpr std::uint32_t timestamp_clock_id = 58;          // uint32
inline constexpr std::uint32_t first_packet_on_sequence = 87;    // bool
inline constexpr std::uint32_t gpu_info = 128;                   // GpuInfo
inline constexpr std::uint32_t seq_needs_incremental_state = 2;  // SequenceFlags
}  // namespace trace_packet

namespace interned_data {
inline constexpr std::uint32_t gpu_counter_descriptors = 47;  // InternedGpuCounterDescriptor
}

namespace interned_gpu_counter_descriptor {
inline constexpr std::uint32_t iid = 1;                 // uint64
inline constexpr std::uint32_t counter_descriptor = 2;  // GpuCounterDescriptor
inline constexpr std::uint32_t gpu_id = 3;              // int32
}  // namespace interned_gpu_counter_descriptor

namespace gpu_counter_event {
inline constexpr std::uint32_t counters = 2;                // repeated GpuCounter
inline constexpr std::uint32_t counter_descriptor_iid = 4;  // uint64
}  // namespace gpu_counter_event

namespace gpu_counter {
inline constexpr std::uint32_t counter_id = 1;    // uint32
inline constexpr std::uint32_t int_value = 2;     // int64
inline constexpr std::uint32_t double_value = 3;  // double
}  // namespace gpu_counter

namespace gpu_counter_descriptor {
inline constexpr std::uint32_t specs = 1;           // repeated GpuCounterSpec
inline constexpr std::uint32_t counter_groups = 6;  // repeated GpuCounterGroupSpec
}  // namespace gpu_counter_descriptor

namespace gpu_counter_spec {
inline constexpr std::uint32_t counter_id = 1;         // uint32
inline constexpr std::uint32_t name = 2;               // string
inline constexpr std::uint32_t description = 3;        // string
inline constexpr std::uint32_t numerator_units = 7;    // repeated MeasureUnit
inline constexpr std::uint32_t denominator_units = 8;  // repeated MeasureUnit
inline constexpr std::uint32_t value_direction = 11;   // ValueDirection
inline constexpr std::uint32_t backwards_looking = 1;  // VALUE_DIRECTION_BACKWARDS_LOOKING
}  // namespace gpu_counter_spec

namespace gpu_counter_group_spec {
inline constexpr std::uint32_t group_id = 1;     // uint32
inline constexpr std::uint32_t name = 2;         // string
inline constexpr std::uint32_t description = 3;  // string
inline constexpr std::uint32_t counter_ids = 4;  // repeated uint32
}  // namespace gpu_counter_group_spec

// GpuCounterDescriptor.MeasureUnit, the ones hwpc's units map to.
namespace measure_unit {
inline constexpr std::uint32_t none = 0;
inline constexpr std::uint32_t byte = 7;
inline constexpr std::uint32_t gigabyte = 10;
inline constexpr std::uint32_t hertz = 13;
inline constexpr std::uint32_t megahertz = 15;
inline constexpr std::uint32_t nanosecond = 19;
inline constexpr std::uint32_t microsecond = 20;
inline constexpr std::uint32_t second = 22;
inline constexpr std::uint32_t pixel = 26;
inline constexpr std::uint32_t primitive = 38;
inline constexpr std::uint32_t percent = 37;
inline constexpr std::uint32_t instruction = 40;
}  // namespace measure_unit

namespace gpu_info {
inline constexpr std::uint32_t gpus = 1;  // repeated Gpu; the index is the gpu_id
}
namespace gpu {
inline constexpr std::uint32_t name = 1;
inline constexpr std::uint32_t vendor = 2;
inline constexpr std::uint32_t model = 3;
inline constexpr std::uint32_t architecture = 4;
}  // namespace gpu

namespace clock_snapshot {
inline constexpr std::uint32_t clocks = 1;               // repeated Clock
inline constexpr std::uint32_t primary_trace_clock = 2;  // BuiltinClock
inline constexpr std::uint32_t clock_id = 1;             // Clock.clock_id, uint32
inline constexpr std::uint32_t clock_timestamp = 2;      // Clock.timestamp, uint64
}  // namespace clock_snapshot

namespace builtin_clock {
inline constexpr std::uint32_t monotonic = 3;  // BUILTIN_CLOCK_MONOTONIC
// The first clock id scoped to one trusted_packet_sequence_id (64..127).
inline constexpr std::uint32_t first_sequence_clock = 64;
}  // namespace builtin_clock

inline constexpr std::array<field_entry, 47> gpu_table{{
    {"message TracePacket", "clock_snapshot", trace_packet::clock_snapshot},
    {"message TracePacket", "interned_data", trace_packet::interned_data},
    {"message TracePacket", "gpu_counter_event", trace_packet::gpu_counter_event},
    {"message TracePacket", "timestamp_clock_id", trace_packet::timestamp_clock_id},
    {"message TracePacket", "first_packet_on_sequence", trace_packet::first_packet_on_sequence},
    {"message TracePacket", "gpu_info", trace_packet::gpu_info},
    {"message TracePacket/enum SequenceFlags", "SEQ_NEEDS_INCREMENTAL_STATE",
     trace_packet::seq_needs_incremental_state},
    {"message InternedData", "gpu_counter_descriptors", interned_data::gpu_counter_descriptors},
    {"message InternedGpuCounterDescriptor", "iid", interned_gpu_counter_descriptor::iid},
    {"message InternedGpuCounterDescriptor", "counter_descriptor",
     interned_gpu_counter_descriptor::counter_descriptor},
    {"message InternedGpuCounterDescriptor", "gpu_id", interned_gpu_counter_descriptor::gpu_id},
    {"message GpuCounterEvent", "counters", gpu_counter_event::counters},
    {"message GpuCounterEvent", "counter_descriptor_iid",
     gpu_counter_event::counter_descriptor_iid},
    {"message GpuCounterEvent/message GpuCounter", "counter_id", gpu_counter::counter_id},
    {"message GpuCounterEvent/message GpuCounter", "int_value", gpu_counter::int_value},
    {"message GpuCounterEvent/message GpuCounter", "double_value", gpu_counter::double_value},
    {"message GpuCounterDescriptor", "specs", gpu_counter_descriptor::specs},
    {"message GpuCounterDescriptor", "counter_groups", gpu_counter_descriptor::counter_groups},
    {"message GpuCounterDescriptor/message GpuCounterSpec", "counter_id",
     gpu_counter_spec::counter_id},
    {"message GpuCounterDescriptor/message GpuCounterSpec", "name", gpu_counter_spec::name},
    {"message GpuCounterDescriptor/message GpuCounterSpec", "description",
     gpu_counter_spec::description},
    {"message GpuCounterDescriptor/message GpuCounterSpec", "numerator_units",
     gpu_counter_spec::numerator_units},
    {"message GpuCounterDescriptor/message GpuCounterSpec", "denominator_units",
     gpu_counter_spec::denominator_units},
    {"message GpuCounterDescriptor/message GpuCounterSpec", "value_direction",
     gpu_counter_spec::value_direction},
    {"message GpuCounterDescriptor/message GpuCounterSpec/enum ValueDirection",
     "VALUE_DIRECTION_BACKWARDS_LOOKING", gpu_counter_spec::backwards_looking},
    {"message GpuCounterDescriptor/message GpuCounterGroupSpec", "group_id",
     gpu_counter_group_spec::group_id},
    {"message GpuCounterDescriptor/message GpuCounterGroupSpec", "name",
     gpu_counter_group_spec::name},
    {"message GpuCounterDescriptor/message GpuCounterGroupSpec", "description",
     gpu_counter_group_spec::description},
    {"message GpuCounterDescriptor/message GpuCounterGroupSpec", "counter_ids",
     gpu_counter_group_spec::counter_ids},
    {"message GpuCounterDescriptor/enum MeasureUnit", "NONE", measure_unit::none},
    {"message GpuCounterDescriptor/enum MeasureUnit", "BYTE", measure_unit::byte},
    {"message GpuCounterDescriptor/enum MeasureUnit", "GIGABYTE", measure_unit::gigabyte},
    {"message GpuCounterDescriptor/enum MeasureUnit", "HERTZ", measure_unit::hertz},
    {"message GpuCounterDescriptor/enum MeasureUnit", "MEGAHERTZ", measure_unit::megahertz},
    {"message GpuCounterDescriptor/enum MeasureUnit", "NANOSECOND", measure_unit::nanosecond},
    {"message GpuCounterDescriptor/enum MeasureUnit", "MICROSECOND", measure_unit::microsecond},
    {"message GpuCounterDescriptor/enum MeasureUnit", "SECOND", measure_unit::second},
    {"message GpuCounterDescriptor/enum MeasureUnit", "PIXEL", measure_unit::pixel},
    {"message GpuCounterDescriptor/enum MeasureUnit", "PRIMITIVE", measure_unit::primitive},
    {"message GpuCounterDescriptor/enum MeasureUnit", "PERCENT", measure_unit::percent},
    {"message GpuCounterDescriptor/enum MeasureUnit", "INSTRUCTION", measure_unit::instruction},
    {"message GpuInfo", "gpus", gpu_info::gpus},
    {"message GpuInfo/message Gpu", "name", gpu::name},
    {"message ClockSnapshot", "clocks", clock_snapshot::clocks},
    {"message ClockSnapshot", "primary_trace_clock", clock_snapshot::primary_trace_clock},
    {"message ClockSnapshot/message Clock", "clock_id", clock_snapshot::clock_id},
    {"enum BuiltinClock", "BUILTIN_CLOCK_MONOTONIC", builtin_clock::monotonic},
}};

}  // namespace hwpc::output::perfetto
