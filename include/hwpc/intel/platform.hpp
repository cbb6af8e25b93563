// Intel GPU platforms and generations that have an OA unit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hwpc::intel {

// Generations as the PRMs and i915 group them. Gen12.5 is Xe-HPG (DG2),
// Gen12.7 is Xe-LPG (Meteor Lake, with its OAM unit).
enum class generation : std::uint8_t {
  gen6,
  gen7,
  gen7_5,
  gen8,
  gen9,
  gen10,
  gen11,
  gen12,
  gen12_5,
  gen12_7,
  xe2,  // Xe2 (graphics IP 20.x: Lunar Lake, Battlemage), Xe driver only
  xe3,  // Xe3 (graphics IP 30.x: Panther Lake), Xe driver only
};

enum class platform : std::uint8_t {
  snb,
  ivb,
  vlv,
  hsw,  // Gen6 .. Gen7.5
  bdw,
  chv,  // Gen8
  skl,
  bxt,
  kbl,
  glk,
  cfl,  // Gen9
  cnl,  // Gen10
  icl,
  ehl,  // Gen11
  tgl,
  rkl,
  adl,
  dg1,  // Gen12
  dg2,  // Gen12.5
  mtl,  // Gen12.7
  lnl,  // Xe2, graphics IP 20.04
  bmg,  // Xe2, graphics IP 20.01
  ptl,  // Xe3, graphics IP 30.00
};

struct platform_info {
  platform id;
  std::string_view name;  // lowercase, as in the metric files (oa-<name>*.xml)
  generation gen;
  // Default TIME_STAMP frequency (FACTS.md "Timing"); a recording's device
  // info overrides it.
  std::uint64_t timestamp_frequency_hz;
};

inline constexpr std::array platform_table{
    platform_info{platform::snb, "snb", generation::gen6, 12'500'000},
    platform_info{platform::ivb, "ivb", generation::gen7, 12'500'000},
    platform_info{platform::vlv, "vlv", generation::gen7, 12'500'000},
    platform_info{platform::hsw, "hsw", generation::gen7_5, 12'500'000},
    platform_info{platform::bdw, "bdw", generation::gen8, 12'500'000},
    platform_info{platform::chv, "chv", generation::gen8, 12'500'000},
    platform_info{platform::skl, "skl", generation::gen9, 12'000'000},
    platform_info{platform::bxt, "bxt", generation::gen9, 19'200'000},
    platform_info{platform::kbl, "kbl", generation::gen9, 12'000'000},
    platform_info{platform::glk, "glk", generation::gen9, 19'200'000},
    platform_info{platform::cfl, "cfl", generation::gen9, 12'000'000},
    platform_info{platform::cnl, "cnl", generation::gen10, 19'200'000},
    platform_info{platform::icl, "icl", generation::gen11, 12'000'000},
    platform_info{platform::ehl, "ehl", generation::gen11, 12'000'000},
    platform_info{platform::tgl, "tgl", generation::gen12, 19'200'000},
    platform_info{platform::rkl, "rkl", generation::gen12, 19'200'000},
    platform_info{platform::adl, "adl", generation::gen12, 19'200'000},
    platform_info{platform::dg1, "dg1", generation::gen12, 19'200'000},
    platform_info{platform::dg2, "dg2", generation::gen12_5, 19'200'000},
    platform_info{platform::mtl, "mtl", generation::gen12_7, 19'200'000},
    // Xe2/Xe3: the Xe driver reports the OA timestamp frequency per OA unit
    // (drm_xe_oa_unit.oa_timestamp_freq); 19.2 MHz is only a default.
    platform_info{platform::lnl, "lnl", generation::xe2, 19'200'000},
    platform_info{platform::bmg, "bmg", generation::xe2, 19'200'000},
    platform_info{platform::ptl, "ptl", generation::xe3, 19'200'000},
};

constexpr const platform_info& info(platform p) noexcept {
  return platform_table[static_cast<std::size_t>(p)];
}
static_assert(
    [] {
      for (std::size_t i = 0; i < platform_table.size(); ++i) {
        if (static_cast<std::size_t>(platform_table[i].id) != i) return false;
      }
      return true;
    }(),
    "platform_table is indexed by platform");

constexpr generation generation_of(platform p) noexcept { return info(p).gen; }
constexpr std::string_view name_of(platform p) noexcept { return info(p).name; }

constexpr bool is_gen7_family(generation g) noexcept { return g <= generation::gen7_5; }

// Other names of a platform: Bay Trail, and the names the Xe driver's tools
// give Gen12+ parts (IGT's lib/xe metric files and its platform checks,
// ../shared/docs/FACTS-xe.md sections 8 and 9): DG2 is Alchemist (ACM, GT1
// .. GT3 by die), Arrow Lake (ARL) runs as Meteor Lake, Wildcat Lake (WCL) is
// folded into Panther Lake as IGT does, and the GT-level metric file names
// name their platform. docs/formats.md lists them.
struct platform_alias {
  std::string_view name;
  platform id;
};
inline constexpr std::array platform_aliases{
    platform_alias{"byt", platform::vlv},    platform_alias{"tglgt1", platform::tgl},
    platform_alias{"tglgt2", platform::tgl}, platform_alias{"acm", platform::dg2},
    platform_alias{"acmgt1", platform::dg2}, platform_alias{"acmgt2", platform::dg2},
    platform_alias{"acmgt3", platform::dg2}, platform_alias{"mtlgt2", platform::mtl},
    platform_alias{"mtlgt3", platform::mtl}, platform_alias{"arl", platform::mtl},
    platform_alias{"wcl", platform::ptl},
};

// Accepts the lowercase short names and the aliases above.
constexpr std::optional<platform> platform_from_name(std::string_view name) noexcept {
  for (const auto& a : platform_aliases) {
    if (a.name == name) return a.id;
  }
  for (const auto& p : platform_table) {
    if (p.name == name) return p.id;
  }
  return std::nullopt;
}
static_assert(
    [] {
      for (const auto& a : platform_aliases) {
        for (const auto& p : platform_table) {
          if (a.name == p.name) return false;
        }
      }
      return true;
    }(),
    "an alias hides a platform name");

// How OA reports carry TIME_STAMP (docs/formats.md, "TIME_STAMP on DG2 and
// MTL"). On graphics 12.55 (DG2) and 12.70+ (Meteor Lake, Arrow Lake) the
// report's field counts twice as fast as the timestamp the reported
// frequency describes: the ticks are the field shifted right by one, and only
// 31 bits of a 32-bit field are valid. IGT's i915 reader and Mesa (MTL is
// verx10 125 there) both shift on both platforms; the kernel reports both
// platforms' OA frequency apart from the CS timestamp's. Every other platform
// uses the field as it is.
struct oa_timestamp_encoding {
  unsigned shift = 0;  // ticks = field >> shift
  unsigned bits = 32;  // valid bits of the ticks (they wrap at 2^bits)
};

constexpr oa_timestamp_encoding oa_timestamp_encoding_of(generation g) noexcept {
  if (g == generation::gen12_5 || g == generation::gen12_7) return {1, 31};
  return {};
}

// The timestamp ticks a report's 32-bit TIME_STAMP field stands for, modulo
// 2^bits of the encoding.
constexpr std::uint64_t oa_timestamp_ticks(generation g, std::uint64_t field) noexcept {
  const oa_timestamp_encoding e = oa_timestamp_encoding_of(g);
  return (field >> e.shift) & ((std::uint64_t{1} << e.bits) - 1);
}

// The report field that carries `ticks` (the emulator's direction).
constexpr std::uint32_t oa_timestamp_field(generation g, std::uint64_t ticks) noexcept {
  return static_cast<std::uint32_t>(ticks << oa_timestamp_encoding_of(g).shift);
}

}  // namespace hwpc::intel
