// Reading an OA ring buffer the way a driver or a user-space profiler with a
// mapped OA buffer does: take head and tail from the registers, read the
// reports between them (wrapping at the end of the ring), zero their RPT_IDs,
// and write the new head back.
//
// The ring here is simulated: a 128 KiB buffer holding a few Haswell A13
// reports that wrap around its end, described by Gen7 register values.
#include <cstdio>
#include <vector>

#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/oa_ring.hpp"

namespace hi = hwpc::intel;

int main() {
  const hi::report_format& format = *hi::find_format(hi::platform::hsw, "A13");
  std::vector<std::byte> ring(128 * 1024);

  // The OA unit wrote five reports starting two reports before the end.
  const std::size_t head = ring.size() - 2 * format.size;
  for (std::uint32_t k = 0; k < 5; ++k) {
    std::byte* r = ring.data() + (head + k * format.size) % ring.size();
    hwpc::store_le32(r, 0x1000 + k);            // RPT_ID (never 0 for a written report)
    hwpc::store_le32(r + 4, 10'000 + 640 * k);  // TIME_STAMP
    hwpc::store_le32(r + 12, 7 * k);            // A0
  }
  const std::size_t tail = (head + 5 * format.size) % ring.size();

  // What the registers would say: OABUFFER (the GGTT offset), OASTATUS1 (tail
  // | size | status bits), OASTATUS2 (head | GGTT memory select).
  const std::uint32_t base = 0x0100'0000;
  const auto regs = hi::oa_ring_registers::gen7(base, base + static_cast<std::uint32_t>(tail),
                                                (base + static_cast<std::uint32_t>(head)) | 1u);

  auto reader = hi::oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), format, regs);
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error_value().describe().c_str());
    return 2;
  }
  hi::delta_tracker deltas(format, hi::generation::gen7_5);
  for (const hi::capture_event& e : *reader) {
    switch (deltas.feed(e)) {
      case hi::delta_step::interval: {
        const auto& iv = deltas.interval();
        std::printf("report at ring offset %6zu: %llu ticks, A0 +%llu\n", iv.offset,
                    static_cast<unsigned long long>(iv.elapsed_ticks),
                    static_cast<unsigned long long>(iv.deltas[0]));
        break;
      }
      case hi::delta_step::discontinuity:
        std::printf("%s\n", std::string(hi::to_string(deltas.discontinuity().kind)).c_str());
        break;
      case hi::delta_step::nothing:
        break;
    }
  }
  // As the driver does: clear RPT_ID of what was read, then move the head.
  if (auto z = reader->zero_consumed(std::span<std::byte>(ring.data(), ring.size())); !z) {
    std::fprintf(stderr, "%s\n", z.error_value().describe().c_str());
    return 2;
  }
  std::printf("new OASTATUS2 head: 0x%08llx (%zu reports, %zu never written)\n",
              static_cast<unsigned long long>(reader->new_head()), reader->report_slots(),
              reader->skipped_zero());
  return 0;
}
