// The A6XX/A7XX draw-state group records and render-mode passes the walker
// tags packets with (docs/adreno.md, "Generations", Walking).
#pragma once

#include <cstdint>
#include <string_view>

namespace hwpc::adreno {

// Draw-state group records (CP_SET_DRAW_STATE, FACTS-adreno6 section 2.3):
// dword 0 bits 15:0 COUNT, 16 DIRTY, 17 DISABLE, 18 DISABLE_ALL_GROUPS,
// 19 LOAD_IMMED, 20 BINNING, 21 GMEM, 22 SYSMEM, 28:24 GROUP_ID; then a
// 64-bit address.
namespace draw_state {
inline constexpr std::uint32_t record_dwords = 3;
constexpr std::uint32_t count_of(std::uint32_t d0) noexcept { return d0 & 0xffff; }
constexpr std::uint32_t group_of(std::uint32_t d0) noexcept { return (d0 >> 24) & 0x1f; }
constexpr bool disables(std::uint32_t d0) noexcept { return (d0 & (3u << 17)) != 0; }
}  // namespace draw_state

// The render mode of CP_SET_MARKER (A6XX/A7XX: bits 3:0 when bit 8 is clear),
// the pass packets run in; 0 before any marker.
constexpr std::string_view pass_name(std::uint8_t mode) noexcept {
  constexpr std::string_view names[] = {"",
                                        "RM6_DIRECT_RENDER",
                                        "RM6_BIN_VISIBILITY",
                                        "RM6_BIN_DIRECT",
                                        "RM6_BIN_RENDER_START",
                                        "RM6_BIN_END_OF_DRAWS",
                                        "RM6_BIN_RESOLVE",
                                        "RM6_BIN_RENDER_END",
                                        "RM6_COMPUTE",
                                        "9",
                                        "10",
                                        "11",
                                        "RM6_BLIT2DSCALE",
                                        "RM6_IB1LIST_START",
                                        "RM6_IB1LIST_END",
                                        "RM7_BIN_VISIBILITY_END"};
  return names[mode & 0xf];
}

}  // namespace hwpc::adreno
