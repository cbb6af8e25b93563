// A format's identity per driver, kept apart from its layout.
//
// formats.hpp says what a report looks like (fields, size); how a driver
// names that layout is a key of its own:
//   - the OA unit's counter select (OACONTROL / OAG_OACONTROL bits 4:2),
//   - i915: `enum drm_i915_oa_format` (the uapi id; DEVICE_INFO of a recording),
//   - Xe: DRM_XE_OA_PROPERTY_OA_FORMAT, a u64 packing four 8-bit fields:
//     bits 7:0 format type (`enum drm_xe_oa_format_type`: 0 OAG, 1 OAR, 2 OAM,
//     3 OAC, 4 OAM_MPEC, 5 PEC), 15:8 counter select, 23:16 counter size,
//     31:24 BC report (../shared/docs/FACTS-xe.md section 1, from the Xe uapi
//     header and IGT's copy). Mesa asks for Xe1 A24u40_A14u32_B8_C8 as 0x0500.
// Lookups go from a key to a layout with the platform, since the same key
// names different layouts on different generations.
#pragma once

#include <cstdint>
#include <optional>

#include "hwpc/intel/formats.hpp"

namespace hwpc::intel {

struct i915_format_key {
  int uapi_id = -1;
  friend constexpr bool operator==(const i915_format_key&, const i915_format_key&) = default;
};

enum class xe_format_type : std::uint8_t {
  oag = 0,
  oar = 1,
  oam = 2,
  oac = 3,
  oam_mpec = 4,
  pec = 5
};

struct xe_format_key {
  xe_format_type type = xe_format_type::oag;
  std::uint8_t counter_select = 0;
  std::uint8_t counter_size = 0;  // PEC: 1 = 64-bit counters
  std::uint8_t bc_report = 0;     // PEC: 1 = B and C counters appended
  friend constexpr bool operator==(const xe_format_key&, const xe_format_key&) = default;

  constexpr std::uint64_t pack() const noexcept {
    return std::uint64_t{static_cast<std::uint8_t>(type)} | (std::uint64_t{counter_select} << 8) |
           (std::uint64_t{counter_size} << 16) | (std::uint64_t{bc_report} << 24);
  }
  // nullopt for bits above 31 or a type the uapi does not define.
  static constexpr std::optional<xe_format_key> unpack(std::uint64_t v) noexcept {
    if ((v >> 32) != 0 || (v & 0xff) > static_cast<std::uint8_t>(xe_format_type::pec)) {
      return std::nullopt;
    }
    return xe_format_key{
        static_cast<xe_format_type>(v & 0xff), static_cast<std::uint8_t>((v >> 8) & 0xff),
        static_cast<std::uint8_t>((v >> 16) & 0xff), static_cast<std::uint8_t>((v >> 24) & 0xff)};
  }
};

constexpr std::optional<i915_format_key> i915_key_of(const report_format& f) noexcept {
  if (f.uapi_id < 0) return std::nullopt;
  return i915_format_key{f.uapi_id};
}

// The Xe key of a layout hwpc has, on a platform the Xe driver supports
// (Gen12 and later): OAM MPEC layouts are type OAM_MPEC, the others OAG;
// none of them has 64-bit counters or a BC report.
constexpr std::optional<xe_format_key> xe_key_of(const report_format& f, platform p) noexcept {
  if (!f.on(p) || generation_of(p) < generation::gen12) return std::nullopt;
  // (A loop rather than first_of() != nullptr: GCC with sanitizers cannot
  // compare that pointer in a constant expression.)
  bool mpec = false;
  for (const auto& fd : f.fields) mpec = mpec || fd.kind == field_kind::mpec;
  return xe_format_key{mpec ? xe_format_type::oam_mpec : xe_format_type::oag, f.counter_select, 0,
                       0};
}

constexpr const report_format* find_format(platform p, i915_format_key k) noexcept {
  return k.uapi_id < 0 ? nullptr : find_format_by_uapi(p, k.uapi_id);
}

constexpr const report_format* find_format(platform p, xe_format_key k) noexcept {
  for (const auto& f : all_formats) {
    const auto key = xe_key_of(f, p);
    if (key && *key == k) return &f;
  }
  return nullptr;
}

namespace detail {
// On one platform an Xe key names at most one layout.
consteval bool xe_keys_are_unique() {
  for (std::size_t i = 0; i < all_formats.size(); ++i) {
    for (platform p : all_formats[i].platforms) {
      const auto a = xe_key_of(all_formats[i], p);
      if (!a) continue;
      for (std::size_t j = i + 1; j < all_formats.size(); ++j) {
        const auto b = xe_key_of(all_formats[j], p);
        if (b && *a == *b) return false;
      }
    }
  }
  return true;
}
}  // namespace detail
static_assert(detail::xe_keys_are_unique(), "two layouts share an Xe format key on a platform");

}  // namespace hwpc::intel
