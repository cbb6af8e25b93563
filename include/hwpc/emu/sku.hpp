// The GPU the emulator pretends to be on each platform: one real SKU's
// topology (slices, subslices / dual-subslices / Xe-cores, EUs, with its
// fused-off units), its GT frequency range and its hardware threads per EU.
//
// The same table feeds the workload model (how many EUs aggregate counters
// sum over, how many subslices and slices carry memory and sampler traffic)
// and the DEVICE_TOPOLOGY / DEVICE_INFO records of a recording, so the
// device variables a decoder derives from a recording ($EuCoresTotalCount,
// $SliceMask, $SubsliceMask, $GpuMaxFrequency, ...) describe exactly the GPU
// whose counters the reports hold. Sources and the SKU behind each row:
// docs/emulator.md "Platforms".
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

// A subslice (bit s * max_subslices + ss of sku::subslice_mask) whose EUs
// are not all present: its EU mask.
struct fused_subslice {
  std::uint8_t subslice = 0xff;  // global index s * max_subslices + ss; 0xff: unused entry
  std::uint16_t eu_mask = 0;
};

struct sku {
  intel::platform platform{};
  std::string_view name;  // the part this row describes
  std::uint16_t max_slices = 1;
  std::uint16_t max_subslices = 1;  // per slice (i915: dual-subslices on Gen12)
  std::uint16_t max_eus = 8;        // per subslice
  std::uint64_t subslice_mask = 1;  // bit s * max_subslices + ss: present
  std::array<fused_subslice, 2> fused{};
  std::uint32_t min_mhz = 350;  // GT frequency range
  std::uint32_t max_mhz = 1150;
  // Hardware threads per EU (the metric files' $EuThreadsCount). The model
  // keeps loaded-thread counts within one per EU per clock, below any of them.
  std::uint8_t threads_per_eu = 7;
  // EU-mask bits per vector engine the counters count over. The Xe driver
  // reports Xe2/Xe3 topology in legacy EUs, two per XVE (Mesa halves the
  // count; FACTS-xe section 5): the masks say 16 per Xe-core, the counter
  // model works on the 8 XVEs. 1 elsewhere.
  std::uint8_t mask_eus_per_xve = 1;

  constexpr bool subslice_present(unsigned s, unsigned ss) const noexcept {
    const unsigned bit = s * max_subslices + ss;
    return bit < 64 && ((subslice_mask >> bit) & 1u) != 0;
  }
  constexpr bool slice_present(unsigned s) const noexcept {
    for (unsigned ss = 0; ss < max_subslices; ++ss) {
      if (subslice_present(s, ss)) return true;
    }
    return false;
  }
  constexpr std::uint16_t eu_mask(unsigned s, unsigned ss) const noexcept {
    if (!subslice_present(s, ss)) return 0;
    const unsigned bit = s * max_subslices + ss;
    for (const auto& f : fused) {
      if (f.subslice == bit) return f.eu_mask;
    }
    return static_cast<std::uint16_t>((1u << max_eus) - 1u);
  }
  constexpr unsigned slices() const noexcept {
    unsigned n = 0;
    for (unsigned s = 0; s < max_slices; ++s) n += slice_present(s) ? 1u : 0u;
    return n;
  }
  constexpr unsigned subslices() const noexcept {
    return static_cast<unsigned>(std::popcount(subslice_mask));
  }
  constexpr unsigned eus() const noexcept {
    unsigned n = 0;
    for (unsigned s = 0; s < max_slices; ++s) {
      for (unsigned ss = 0; ss < max_subslices; ++ss) {
        n += static_cast<unsigned>(std::popcount(eu_mask(s, ss)));
      }
    }
    return n;
  }
  // The vector engines the counters observe (eus() unless the masks count
  // legacy EUs).
  constexpr unsigned model_eus() const noexcept { return eus() / mask_eus_per_xve; }
  // EUs in the present subslices [first, first + n) of the global order,
  // for workloads split into groups (Gen12's four EU counter groups).
  constexpr unsigned eus_in_group(unsigned group, unsigned groups) const noexcept {
    unsigned n = 0;
    unsigned k = 0;
    for (unsigned s = 0; s < max_slices; ++s) {
      for (unsigned ss = 0; ss < max_subslices; ++ss) {
        const unsigned c = static_cast<unsigned>(std::popcount(eu_mask(s, ss)));
        for (unsigned e = 0; e < c; ++e, ++k) {
          if (k % groups == group) ++n;
        }
      }
    }
    return n;
  }
};

inline constexpr std::uint64_t all_subslices(unsigned slices, unsigned per_slice) {
  const unsigned n = slices * per_slice;
  return n >= 64 ? ~0ull : (1ull << n) - 1;
}

// One row per intel::platform, in enum order.
inline constexpr std::array<sku, 23> sku_table{{
    {intel::platform::snb,
     "Sandy Bridge GT2 (HD 3000, 12 EUs)",
     1,
     2,
     6,
     all_subslices(1, 2),
     {},
     350,
     1100,
     5},
    {intel::platform::ivb,
     "Ivy Bridge GT2 (HD 4000, 16 EUs)",
     1,
     2,
     8,
     all_subslices(1, 2),
     {},
     350,
     1150,
     8},
    {intel::platform::vlv, "Bay Trail (4 EUs)", 1, 1, 4, 1, {}, 311, 667, 8},
    {intel::platform::hsw,
     "Haswell GT2 (HD 4600, 20 EUs)",
     1,
     2,
     10,
     all_subslices(1, 2),
     {},
     350,
     1150,
     7},
    // One EU fused off in subslice 2: a 23-EU part.
    {intel::platform::bdw,
     "Broadwell GT2 (HD 5500, 23 EUs)",
     1,
     3,
     8,
     all_subslices(1, 3),
     {{{2, 0x7f}, {}}},
     300,
     950,
     7},
    // Two EUs fused off in each subslice.
    {intel::platform::chv,
     "Braswell (HD 400, 12 EUs)",
     1,
     2,
     8,
     all_subslices(1, 2),
     {{{0, 0x3f}, {1, 0xfc}}},
     320,
     640,
     7},
    {intel::platform::skl,
     "Skylake GT2 (HD 520, 24 EUs)",
     1,
     3,
     8,
     all_subslices(1, 3),
     {},
     300,
     1050,
     7},
    {intel::platform::bxt,
     "Broxton (HD 505, 18 EUs)",
     1,
     3,
     6,
     all_subslices(1, 3),
     {},
     250,
     650,
     6},
    {intel::platform::kbl,
     "Kaby Lake GT2 (HD 620, 24 EUs)",
     1,
     3,
     8,
     all_subslices(1, 3),
     {},
     300,
     1050,
     7},
    // Subslice 2 fused off: the 12-EU part.
    {intel::platform::glk, "Gemini Lake (UHD 600, 12 EUs)", 1, 3, 6, 0b011, {}, 250, 650, 6},
    {intel::platform::cfl,
     "Coffee Lake GT2 (UHD 630, 24 EUs)",
     1,
     3,
     8,
     all_subslices(1, 3),
     {},
     350,
     1150,
     7},
    // Two slices of three subslices; slice 1 subslice 2 fused off (40 EUs).
    {intel::platform::cnl, "Cannon Lake GT2 (40 EUs)", 2, 3, 8, 0b011111, {}, 300, 1000, 7},
    {intel::platform::icl,
     "Ice Lake GT2 (Iris Plus G7, 64 EUs)",
     1,
     8,
     8,
     all_subslices(1, 8),
     {},
     300,
     1100,
     7},
    // Subslice 3 fused off: 24 EUs.
    {intel::platform::ehl, "Elkhart Lake (24 EUs)", 1, 4, 8, 0b0111, {}, 250, 750, 7},
    {intel::platform::tgl,
     "Tiger Lake GT2 (Iris Xe, 96 EUs)",
     1,
     6,
     16,
     all_subslices(1, 6),
     {},
     300,
     1350,
     7},
    {intel::platform::rkl,
     "Rocket Lake (UHD 750, 32 EUs)",
     1,
     2,
     16,
     all_subslices(1, 2),
     {},
     350,
     1300,
     7},
    {intel::platform::adl,
     "Alder Lake-S GT1 (UHD 770, 32 EUs)",
     1,
     2,
     16,
     all_subslices(1, 2),
     {},
     300,
     1450,
     7},
    {intel::platform::dg1,
     "DG1 (Iris Xe MAX, 96 EUs)",
     1,
     6,
     16,
     all_subslices(1, 6),
     {},
     300,
     1650,
     7},
    {intel::platform::dg2,
     "DG2 (Arc A770, 32 Xe-cores, 512 EUs)",
     8,
     4,
     16,
     all_subslices(8, 4),
     {},
     300,
     2400,
     8},
    // Slice 1 Xe-core 3 fused off: the 7-Xe-core part (112 EUs).
    {intel::platform::mtl,
     "Meteor Lake (Arc, 7 Xe-cores, 112 EUs)",
     2,
     4,
     16,
     0b01111111,
     {},
     300,
     2250,
     8},
    // Xe2/Xe3 (Xe driver): one slice, the DSS (Xe-core) mask, one EU-mask
    // bit per vector engine (8 XVEs per Xe-core), as kernels with the SIMD16
    // topology query report it (docs/expressions.md, "EU count" under the Xe2 decisions). Part
    // counts are the parts' public specifications; how many DSS positions the hwconfig reports and
    // which are fused off are INFERRED (docs/emulator.md "Platforms").
    {intel::platform::lnl,
     "Lunar Lake (Arc 140V, 8 Xe2-cores, 64 XVEs)",
     1,
     8,
     8,
     all_subslices(1, 8),
     {},
     400,
     2050,
     8,
     1},
    {intel::platform::bmg,
     "Battlemage G21 (Arc B580, 20 Xe2-cores, 160 XVEs)",
     1,
     32,
     8,
     all_subslices(1, 20),
     {},
     400,
     2670,
     8,
     1},
    {intel::platform::ptl,
     "Panther Lake (Arc B390, 12 Xe3-cores, 96 XVEs)",
     1,
     16,
     8,
     all_subslices(1, 12),
     {},
     400,
     2500,
     10,  // Xe3: 10 threads per XVE (metrics-discovery's threadsPerEuMap; docs/expressions.md)
     1},
}};

// Every platform of intel::platform has a part (kept as a check for callers
// that take a platform from outside).
inline constexpr bool has_sku(intel::platform p) noexcept {
  return static_cast<std::size_t>(p) < sku_table.size();
}

// Callers check has_sku() first (oa_unit's run() refuses other platforms); an
// index past the table never reads out of bounds.
inline constexpr const sku& sku_of(intel::platform p) noexcept {
  return sku_table[has_sku(p) ? static_cast<std::size_t>(p) : 0];
}

// Larger parts of the platforms whose metric files come per GT level
// (oa-sklgt3.xml, oa-sklgt4.xml, oa-kblgt3.xml, oa-tglgt1.xml).
struct sku_variant {
  std::uint8_t gt = 2;
  sku device;
};
inline constexpr std::array<sku_variant, 4> sku_variants{{
    {3,
     {intel::platform::skl,
      "Skylake GT3 (Iris 540, 48 EUs)",
      2,
      3,
      8,
      all_subslices(2, 3),
      {},
      300,
      1050,
      7}},
    {4,
     {intel::platform::skl,
      "Skylake GT4 (Iris Pro 580, 72 EUs)",
      3,
      3,
      8,
      all_subslices(3, 3),
      {},
      300,
      1000,
      7}},
    {3,
     {intel::platform::kbl,
      "Kaby Lake GT3 (Iris Plus 640, 48 EUs)",
      2,
      3,
      8,
      all_subslices(2, 3),
      {},
      300,
      1050,
      7}},
    // Two of the six dual-subslices enabled.
    {1,
     {intel::platform::tgl, "Tiger Lake GT1 (UHD, 32 EUs)", 1, 6, 16, 0b000011, {}, 350, 1250, 7}},
}};

// The platform's part at GT level `gt`: a variant when there is one, else
// the platform's row.
inline constexpr const sku& sku_of(intel::platform p, unsigned gt) noexcept {
  for (const auto& v : sku_variants) {
    if (v.device.platform == p && v.gt == gt) return v.device;
  }
  return sku_of(p);
}

// The topology a recording describes (drm_i915_query_topology_info sizes).
struct topology {
  std::uint16_t slices = 1;     // max_slices
  std::uint16_t subslices = 3;  // max_subslices, per slice
  std::uint16_t eus = 8;        // max_eus_per_subslice
};

inline constexpr topology topology_of(intel::platform p) noexcept {
  const sku& s = sku_of(p);
  return {s.max_slices, s.max_subslices, s.max_eus};
}

// The default capture's GT range (Haswell's row), for tools that describe
// it without a recording.
inline constexpr std::uint32_t modelled_gt_min_frequency_hz =
    sku_of(intel::platform::hsw).min_mhz * 1'000'000u;
inline constexpr std::uint32_t modelled_gt_max_frequency_hz =
    sku_of(intel::platform::hsw).max_mhz * 1'000'000u;

namespace detail {
consteval bool sku_table_in_enum_order() {
  for (std::size_t i = 0; i < sku_table.size(); ++i) {
    if (static_cast<std::size_t>(sku_table[i].platform) != i) return false;
    const sku& s = sku_table[i];
    if (s.eus() == 0 || s.max_eus > 16 || s.min_mhz >= s.max_mhz) return false;
  }
  return true;
}
static_assert(sku_table_in_enum_order(), "sku_table: one valid row per platform, in enum order");
// The uniform topology tools build for the default capture must be the SKU.
static_assert(sku_of(intel::platform::hsw).eus() == 20);
}  // namespace detail

}  // namespace hwpc::emu
