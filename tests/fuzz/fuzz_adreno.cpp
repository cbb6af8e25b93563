// Adreno A5xx command streams: the PM4 header parser, the packet walker, the
// interpreter (with a small mapped memory image), and the query recogniser.
// Invariants: errors name the offset of a header inside the input; packets
// tile the input exactly up to an error; recognised events point at packet
// boundaries inside the input, in stream order (sharing a first packet, or
// one after another); the interpreter stops with a value, never a crash;
// query-result rows lie inside the input and their accounting balances.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/explain.hpp"
#include "hwpc/adreno/interp.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/adreno/rows.hpp"

using namespace hwpc::adreno;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const hwpc::byte_span bytes(reinterpret_cast<const std::byte*>(data), size);
  // Walk: packets are contiguous from offset 0.
  packet_cursor c(bytes);
  std::size_t expect = 0, n = 0;
  bool failed = false;
  while (!c.done()) {
    auto p = c.next();
    if (!p) {
      fuzz::check_error(p.error_value(), size);
      FUZZ_CHECK(p.error_value().offset == expect, "error at the next header");
      failed = true;
      break;
    }
    FUZZ_CHECK(p->offset == expect, "packets are contiguous");
    FUZZ_CHECK(p->offset + p->size_bytes() <= size, "packet inside the input");
    expect += p->size_bytes();
    ++n;
  }
  FUZZ_CHECK(failed || expect == size, "packets tile the input");
  auto all = read_packets(bytes);
  FUZZ_CHECK(static_cast<bool>(all) == !failed, "read_packets agrees with the cursor");
  if (all) {
    FUZZ_CHECK(all->size() == n, "read_packets count");
    const auto events = recognise(std::span<const packet>(*all));
    // One packet may yield several events (a register write that selects
    // several counters, a CP_REG_TO_MEM that samples several): those share
    // their first packet; otherwise an event starts after the one before ends.
    std::size_t first = 0, end = 0;
    for (const query_event& ev : events) {
      FUZZ_CHECK(ev.packet_index >= first, "events in stream order");
      FUZZ_CHECK(ev.packet_index == first || ev.packet_index >= end,
                 "events overlap only when they start at the same packet");
      FUZZ_CHECK(ev.packet_index + ev.packet_count <= all->size(), "event packets exist");
      FUZZ_CHECK(ev.offset == (*all)[ev.packet_index].offset, "event at its first packet");
      first = ev.packet_index;
      end = std::max(end, ev.packet_index + ev.packet_count);
      (void)describe(ev);
    }
  }
  // Interpret with memory where the seeds put their query slots.
  machine mc;
  mc.memory.map(0xc0456000, 4096);
  mc.memory.map(0xc021c000, 64);
  mc.always_on = 19'200'000;
  mc.sample_count = 1234;
  auto r = execute(mc, bytes);
  if (!r) fuzz::check_error(r.error_value(), size);

  // Query results as rows, the input read as an .rd capture and as raw
  // dwords: offsets inside the input, the accounting balanced, one cell per column.
  for (const input_kind kind : {input_kind::rd, input_kind::bin}) {
    auto cols = sampled_counters(kind, bytes);
    if (!cols) {
      fuzz::check_error(cols.error_value(), size);
      continue;
    }
    const hwpc::row_schema s = schema_of(*cols);
    auto done = for_each_row(
        kind, bytes, s,
        [&](const hwpc::row& row) {
          FUZZ_CHECK(row.offset < size, "row offset inside the input");
          FUZZ_CHECK(row.metrics.size() == s.metrics.size(), "one cell per column");
        },
        [&](const hwpc::error& e, bool) { fuzz::check_error(e, size); });
    if (done) FUZZ_CHECK(done->acc.balanced(), "every report in one bucket");
  }
  return 0;
}
