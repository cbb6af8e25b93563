// The OA ring reader: a ring of 128 KiB (or a size the input picks, often a
// bad one) with the input's bytes written at the head, wrapping, and head,
// tail and status registers from the input; then every event through the
// delta tracker, zero_consumed(), and a second read of the same ring.
// Invariants: errors name an offset inside the ring or none; every report
// slot is yielded (unlanded ones too, as raw_capture yields them), landed
// reports + skipped = slots; the tracker's counts are the ring's; event
// offsets inside the ring; the new head is inside the ring; after
// zero_consumed() a re-read yields no landed report.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/oa_ring.hpp"

using namespace hwpc::intel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const auto [f, plat] = fuzz::pick_format(in);
  const std::uint8_t size_sel = in.u8();
  const std::uint32_t head_reg = in.u32();
  const std::uint32_t tail_reg = in.u32();
  const std::uint32_t status = in.u8();
  const std::size_t margin = in.u8() * 64u;
  const bool discard = (status & 0x80) != 0;
  // Mostly the smallest legal ring; sometimes 256 KiB; sometimes an illegal size.
  std::size_t ring_size = oa_ring_min_size;
  if (size_sel % 8 == 1) ring_size = 2 * oa_ring_min_size;
  if (size_sel % 8 == 2) ring_size = oa_ring_min_size - 64 * (1 + size_sel / 8);
  const hwpc::byte_span payload = in.rest();
  std::vector<std::byte> ring(ring_size);
  // Head and tail as offsets mostly, GGTT addresses with a base sometimes.
  const std::uint64_t base = (size_sel & 0x40) ? 0x100000 : 0;
  const std::uint64_t head = (size_sel & 0x20) ? head_reg : head_reg % (ring_size + 64);
  const std::uint64_t tail = (size_sel & 0x20) ? tail_reg : tail_reg % (ring_size + 64);
  const std::size_t at = static_cast<std::size_t>(head) % ring.size();
  for (std::size_t i = 0; i < payload.size() && i < ring.size(); ++i) {
    ring[(at + i) % ring.size()] = payload[i];
  }
  const oa_ring_registers regs{base, base + head, base + tail, status & 0xf};
  oa_ring_options opts;
  opts.tail_margin = margin;
  opts.discard_on_buffer_overflow = discard;
  auto r = oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), *f, regs, opts);
  if (!r) {
    fuzz::check_error(r.error_value(), ring.size());
    FUZZ_CHECK(r.error_value().anchor != hwpc::error_anchor::byte_offset ||
                   r.error_value().offset < ring.size(),
               r.error_value().describe());
    return 0;
  }
  std::size_t reports = 0, slots = 0;
  delta_tracker t(*f, generation_of(plat));
  for (const capture_event& e : *r) {
    FUZZ_CHECK(e.offset < ring.size(), "event offset inside the ring");
    // Unlanded slots are yielded too (as raw_capture yields them).
    slots += e.kind == event_kind::report;
    reports += e.kind == event_kind::report && e.report().is_valid();
    t.feed(e);
  }
  FUZZ_CHECK(reports + r->skipped_zero() == r->report_slots(), "slots = reports + skipped");
  FUZZ_CHECK(r->new_head_offset() < ring.size(), "new head inside the ring");
  FUZZ_CHECK(slots == r->report_slots(), "every slot yielded");
  FUZZ_CHECK(t.stats().reports == reports && t.stats().skipped_zero == r->skipped_zero(),
             "tracker counts = the ring's");
  auto z = r->zero_consumed(std::span<std::byte>(ring.data(), ring.size()));
  FUZZ_CHECK(static_cast<bool>(z), "zero_consumed on its own ring");
  auto again = oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), *f, regs, opts);
  FUZZ_CHECK(static_cast<bool>(again), "the same registers read again");
  std::size_t left = 0;
  for (const capture_event& e : *again) {
    left += e.kind == event_kind::report && e.report().is_valid();
  }
  FUZZ_CHECK(left == 0, "consumed slots read as unwritten");
  return 0;
}
