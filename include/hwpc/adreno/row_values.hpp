// The values an A5XX query result's row is made of (result_rows.hpp), read
// from the capture's memory when its event is recognised: the submit that
// holds the event also holds the buffers its values are in, and the next
// submit replaces them (docs/adreno.md, "Rows").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/core/bytes.hpp"

namespace hwpc::adreno::detail {

// Reads the capture's memory: the little-endian value of `n` (4 or 8)
// bytes at `addr`, none when no dump holds them all (or there is no memory:
// hex text and raw dwords), and the file offset of the section holding it.
struct memory_reader {
  const rd::address_space* space = nullptr;
  std::optional<std::uint64_t> operator()(std::uint64_t addr, std::size_t n,
                                          std::optional<std::size_t>* section) const {
    if (space == nullptr) return std::nullopt;
    auto loc = space->find(addr, n);
    if (!loc || loc->bytes.size() < n) return std::nullopt;
    // The payload of a section follows its 8-byte header (type, size).
    if (section != nullptr) *section = loc->buffer_offset - 8;
    return n == 8 ? load_le64(loc->bytes.data()) : std::uint64_t{load_le32(loc->bytes.data())};
  }
};

// What one event's row reads: up to three values (by the event's slot
// layout) and the dump section holding its result.
struct value_snapshot {
  std::optional<std::uint64_t> v[3];
  std::optional<std::size_t> section;  // the BUFFER_CONTENTS header holding the result
};

// The values of `ev`. read(address, bytes, std::optional<std::size_t>* section)
// gives the little-endian value at `address` (none when no dump holds it),
// and the section holding it through `section` when that is not null.
template <class Read>
value_snapshot take_values(const query_event& ev, const Read& read) {
  value_snapshot s;
  switch (ev.op) {
    case query_op::occlusion_end:
      s.v[0] = read(ev.slot + occlusion_slot::start_offset, 8, nullptr);
      s.v[1] = read(ev.slot + occlusion_slot::result_offset, 8, &s.section);
      s.v[2] = read(ev.slot + occlusion_slot::stop_offset, 8, nullptr);
      break;
    case query_op::timestamp:
      if (ev.role == timestamp_role::end && ev.slot_size == time_elapsed_slot24::size) {
        s.v[0] = read(ev.slot + time_elapsed_slot24::start_offset, 8, nullptr);
        s.v[1] = read(ev.slot + time_elapsed_slot24::result_offset, 8, &s.section);
        s.v[2] = read(ev.slot + time_elapsed_slot24::stop_offset, 8, nullptr);
      } else if (ev.role == timestamp_role::end) {
        s.v[0] = read(ev.slot + time_elapsed_slot::start_offset, 8, nullptr);
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

}  // namespace hwpc::adreno::detail
