// Mali-G72 hardware-counter samples: a layout from the input (L2 slices and
// core mask, often invalid), sample::parse over the rest, block sums, and
// every derived metric.
// Invariants: parse errors name an offset inside the input; every block view
// lies inside the sample; evaluation of a parsed sample succeeds.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/mali/g72_metrics.hpp"
#include "hwpc/mali/sample.hpp"

using namespace hwpc::mali;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  sample_layout layout;
  layout.l2_slices = in.u8() % (max_l2_slices + 2);  // one past the limit too
  const std::uint32_t lo = in.u32();
  const std::uint8_t hi_sel = in.u8();
  layout.core_mask = (hi_sel & 1) ? (std::uint64_t{in.u32()} << 32 | lo) : (lo & 0xffffu);
  const std::uint32_t bus = 32u << (in.u8() % 4);
  const hwpc::byte_span bytes = in.rest();
  if (auto ok = layout.validate(); !ok) return 0;
  auto s = sample::parse(layout, bytes);
  if (!s) {
    fuzz::check_error(s.error_value(), bytes.size());
    return 0;
  }
  std::size_t blocks = 0;
  s->for_each_block([&](const block_view&) { ++blocks; });
  FUZZ_CHECK(blocks == 2 + layout.l2_slices + layout.shader_core_count(), "every present block");
  auto ev = g72_evaluator::create(layout, bus);
  FUZZ_CHECK(static_cast<bool>(ev), "a valid layout has an evaluator");
  std::vector<hwpc::expr::value> out(ev->size());
  FUZZ_CHECK(static_cast<bool>(ev->evaluate(*s, out)), "evaluation of a parsed sample");
  return 0;
}
