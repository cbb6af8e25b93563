// Format identity apart from layout (format_keys.hpp) and the limits derived
// from the tables (format_limits.hpp).
#include <gtest/gtest.h>

#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/format_keys.hpp"
#include "hwpc/intel/format_limits.hpp"
#include "hwpc/intel/wrap_count.hpp"

namespace {

using namespace hwpc::intel;

TEST(FormatKeys, XePackedFormatMatchesTheUapiLayout) {
  // Mesa's Xe1 request for A24u40_A14u32_B8_C8: type OAG, select 5 -> 0x0500
  // (FACTS-xe.md section 1); its Xe2 PEC64u64 request: type 5, sel 1, size 1 -> 0x00010105.
  const auto* f = find_format(platform::mtl, "A24u40_A14u32_B8_C8");
  ASSERT_NE(f, nullptr);
  const auto k = xe_key_of(*f, platform::mtl);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->pack(), 0x0500u);
  EXPECT_EQ(find_format(platform::mtl, *k), f);
  const xe_format_key pec{xe_format_type::pec, 1, 1, 0};
  EXPECT_EQ(pec.pack(), 0x00010105u);
  EXPECT_EQ(xe_format_key::unpack(0x00010105u), pec);
  EXPECT_EQ(find_format(platform::mtl, pec), nullptr);  // no PEC layouts yet
  EXPECT_FALSE(xe_format_key::unpack(0x100000500ull));  // bits above 31
  EXPECT_FALSE(xe_format_key::unpack(0x06));            // no type 6
  // OAM MPEC on MTL: type 4, select 2.
  const auto* mpec = find_format(platform::mtl, "MPEC8u32_B8_C8");
  ASSERT_NE(mpec, nullptr);
  EXPECT_EQ(xe_key_of(*mpec, platform::mtl)->pack(), 0x0204u);
  // Xe does not drive Gen8..11.
  EXPECT_FALSE(xe_key_of(*find_format(platform::skl, "A36_B8_C8"), platform::skl));
  EXPECT_EQ(xe_key_of(*find_format(platform::tgl, "C4_B8"), platform::tgl)->pack(), 0x0700u);
}

TEST(FormatKeys, I915KeysAreTheUapiIds) {
  const auto* f = find_format(platform::hsw, "A45_B8_C8");
  EXPECT_EQ(i915_key_of(*f), i915_format_key{5});
  EXPECT_EQ(find_format(platform::hsw, i915_format_key{5}), f);
  EXPECT_FALSE(i915_key_of(*find_format(platform::hsw, "A29_B8_C8")));  // i915 has none
  EXPECT_EQ(find_format(platform::hsw, i915_format_key{-1}), nullptr);
  // The same key names different layouts on different generations.
  EXPECT_NE(find_format(platform::hsw, i915_format_key{7}),
            find_format(platform::skl, i915_format_key{7}));
}

TEST(FormatLimits, DerivedFromTheTablesAndSizingTheKernels) {
  std::size_t bytes = 0, counters = 0;
  for (const auto& f : all_formats) {
    bytes = std::max<std::size_t>(bytes, f.size);
    counters = std::max(counters, f.counter_count());
    EXPECT_TRUE(fits_limits(f)) << f.name;
  }
  for (const auto& x : xe_formats) {  // the Xe driver's table (formats_xe.hpp)
    bytes = std::max<std::size_t>(bytes, x.layout.size);
    counters = std::max(counters, x.layout.counter_count());
    EXPECT_TRUE(fits_limits(x.layout)) << x.name;
  }
  EXPECT_EQ(limits.report_bytes, bytes);
  EXPECT_EQ(limits.counters, counters);
  EXPECT_EQ(max_counters, counters);
  EXPECT_EQ(wrap_counts{}.dword.size(), bytes / 4);
  EXPECT_EQ(wrap_counts{}.u40.size(), limits.u40_slots);
  // A36_B8_C8: A0 (slot 0) low dword 4, high byte 160.
  const auto* a36 = find_format(platform::skl, "A36_B8_C8");
  EXPECT_EQ(a36->find("A0")->offset / 4, limits.u40_low_dword);
  EXPECT_EQ(a36->find("A0")->high_byte_offset, limits.u40_high_byte);
  // A run-time format one dword larger than any table's does not fit.
  report_format big = *a36;
  big.size = static_cast<std::uint16_t>(limits.report_bytes + 64);
  EXPECT_FALSE(fits_limits(big));
}

}  // namespace
