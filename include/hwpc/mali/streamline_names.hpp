// The Streamline counter names of the Mali-G72 counter guide ($MaliXxx in its
// expressions) and the hardware counters they read. Only the names the guide's
// expressions use. The guide's names no longer match the current counter
// descriptions word for word; each entry keeps, as evidence of the match, the
// group name and the name within the group under which the counter
// description lists the hardware counter today (docs/mali.md has the table;
// tests/test_mali_names.cpp checks it against the descriptions).
//
//   auto c = hwpc::mali::find_streamline_counter("MaliCoreQuadsEarlyZSTestedQuads");
//   c->hw_name;   // "FRAG_QUADS_EZS_TEST"
//   c->id;        // {shader_core, 12}
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "hwpc/mali/block.hpp"
#include "hwpc/mali/g72_counters.hpp"

namespace hwpc::mali {

namespace detail {
// clang-format off
inline constexpr streamline_counter streamline_table[] = {
    {"MaliGPUCyclesGPUActive", "GPU_ACTIVE", {block_type::front_end, 6}, "GPU Cycles", "GPU active"},
    {"MaliGPUCyclesNonFragmentQueueActive", "JS1_ACTIVE", {block_type::front_end, 18}, "GPU Cycles", "Non-fragment queue active"},
    {"MaliGPUCyclesFragmentQueueActive", "JS0_ACTIVE", {block_type::front_end, 10}, "GPU Cycles", "Fragment queue active"},
    {"MaliGPUCyclesGPUInterruptActive", "IRQ_ACTIVE", {block_type::front_end, 7}, "GPU Cycles", "GPU interrupt active"},
    {"MaliGPUTasksFragmentTasks", "JS0_TASKS", {block_type::front_end, 9}, "GPU Tasks", "Fragment tasks"},
    {"MaliGPUCyclesTilerActive", "TILER_ACTIVE", {block_type::tiler, 4}, "GPU Cycles", "Tiler active"},
    {"MaliPrimitiveCullingVisiblePrimitives", "PRIM_VISIBLE", {block_type::tiler, 11}, "Primitive Culling", "Visible primitives"},
    {"MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives", "PRIM_CULLED", {block_type::tiler, 12}, "Primitive Culling", "Facing or XY plane test culled primitives"},
    {"MaliPrimitiveCullingZPlaneTestCulledPrimitives", "PRIM_CLIPPED", {block_type::tiler, 13}, "Primitive Culling", "Z plane test culled primitives"},
    {"MaliPrimitiveCullingSampleTestCulledPrimitives", "PRIM_SAT_CULLED", {block_type::tiler, 14}, "Primitive Culling", "Sample test culled primitives"},
    {"MaliTilerShadingRequestsPositionShadingRequests", "IDVS_POS_SHAD_REQ", {block_type::tiler, 21}, "Tiler Shading Requests", "Position shading requests"},
    {"MaliTilerShadingRequestsVaryingShadingRequests", "IDVS_VAR_SHAD_REQ", {block_type::tiler, 37}, "Tiler Shading Requests", "Varying shading requests"},
    {"MaliExternalBusBeatsReadBeats", "L2_EXT_READ_BEATS", {block_type::memory, 32}, "External Bus Beats", "Read beats"},
    {"MaliExternalBusBeatsWriteBeats", "L2_EXT_WRITE_BEATS", {block_type::memory, 47}, "External Bus Beats", "Write beats"},
    {"MaliExternalBusStallsReadStallCycles", "L2_EXT_AR_STALL", {block_type::memory, 33}, "External Bus Stall Cycles", "Read stalls"},
    {"MaliExternalBusStallsWriteStallCycles", "L2_EXT_W_STALL", {block_type::memory, 48}, "External Bus Stall Cycles", "Write stalls"},
    {"MaliExternalBusReadLatency0127Cycles", "L2_EXT_RRESP_0_127", {block_type::memory, 37}, "External Bus Read Latency", "0-127 cycles"},
    {"MaliExternalBusReadLatency128191Cycles", "L2_EXT_RRESP_128_191", {block_type::memory, 38}, "External Bus Read Latency", "128-191 cycles"},
    {"MaliExternalBusReadLatency192255Cycles", "L2_EXT_RRESP_192_255", {block_type::memory, 39}, "External Bus Read Latency", "192-255 cycles"},
    {"MaliExternalBusReadLatency256319Cycles", "L2_EXT_RRESP_256_319", {block_type::memory, 40}, "External Bus Read Latency", "256-319 cycles"},
    {"MaliExternalBusReadLatency320383Cycles", "L2_EXT_RRESP_320_383", {block_type::memory, 41}, "External Bus Read Latency", "320-383 cycles"},
    {"MaliCoreCyclesFragmentActive", "FRAG_ACTIVE", {block_type::shader_core, 4}, "Shader Core Cycles", "Fragment active"},
    {"MaliCoreCyclesFragmentFPKBAActive", "FRAG_FPK_ACTIVE", {block_type::shader_core, 7}, "Shader Core Cycles", "Fragment pre-pipe buffer active"},
    {"MaliCoreCyclesNonFragmentActive", "COMPUTE_ACTIVE", {block_type::shader_core, 22}, "Shader Core Cycles", "Non-fragment active"},
    {"MaliCoreCyclesExecutionCoreActive", "EXEC_CORE_ACTIVE", {block_type::shader_core, 26}, "Shader Core Cycles", "Execution core active"},
    {"MaliCoreWarpsFragmentWarps", "FRAG_WARPS", {block_type::shader_core, 9}, "Shader Warps", "Fragment warps"},
    {"MaliCoreWarpsPartialFragmentWarps", "FRAG_PARTIAL_WARPS", {block_type::shader_core, 10}, "Shader Warps", "Partial fragment warps"},
    {"MaliCoreWarpsNonFragmentWarps", "COMPUTE_WARPS", {block_type::shader_core, 24}, "Shader Warps", "Non-fragment warps"},
    {"MaliCoreQuadsRasterizedFineQuads", "FRAG_QUADS_RAST", {block_type::shader_core, 11}, "Fragment Quads", "Rasterized fine quads"},
    {"MaliCoreQuadsEarlyZSTestedQuads", "FRAG_QUADS_EZS_TEST", {block_type::shader_core, 12}, "Fragment ZS Quads", "Early ZS tested quads"},
    {"MaliCoreQuadsEarlyZSUpdatedQuads", "FRAG_QUADS_EZS_UPDATE", {block_type::shader_core, 13}, "Fragment ZS Quads", "Early ZS updated quads"},
    {"MaliCoreQuadsEarlyZSKilledQuads", "FRAG_QUADS_EZS_KILL", {block_type::shader_core, 14}, "Fragment ZS Quads", "Early ZS killed quads"},
    {"MaliCoreQuadsLateZSTestedQuads", "FRAG_LZS_TEST", {block_type::shader_core, 15}, "Fragment ZS Quads", "Late ZS tested quads"},
    {"MaliCoreQuadsLateZSKilledQuads", "FRAG_LZS_KILL", {block_type::shader_core, 16}, "Fragment ZS Quads", "Late ZS killed quads"},
    {"MaliCoreTilesTiles", "FRAG_PTILES", {block_type::shader_core, 18}, "Fragment Tiles", "Tiles"},
    {"MaliCoreTilesUnchangedTilesKilled", "FRAG_TRANS_ELIM", {block_type::shader_core, 19}, "Fragment Tiles", "Killed unchanged tiles"},
    {"MaliCoreInstructionsExecutedInstructions", "EXEC_INSTR_COUNT", {block_type::shader_core, 28}, "ALU Instructions", "Executed instructions"},
    {"MaliCoreInstructionsDivergedInstructions", "EXEC_INSTR_DIVERGED", {block_type::shader_core, 29}, "ALU Instructions", "Diverged instructions"},
    {"MaliCoreTextureRequestsTextureRequests", "TEX_INSTR", {block_type::shader_core, 35}, "Texture Unit Requests", "Texture requests"},
    {"MaliCoreTextureRequestsMipmappedTextureRequest", "TEX_INSTR_MIPMAP", {block_type::shader_core, 36}, "Texture Unit Requests", "Mipmapped texture requests"},
    {"MaliCoreTextureRequestsCompressedTextureRequests", "TEX_INSTR_COMPRESSED", {block_type::shader_core, 37}, "Texture Unit Requests", "Compressed texture requests"},
    {"MaliCoreTextureRequests3DTextureRequests", "TEX_INSTR_3D", {block_type::shader_core, 38}, "Texture Unit Requests", "3D texture requests"},
    {"MaliCoreTextureRequestsTrilinearFilteredRequests", "TEX_INSTR_TRILINEAR", {block_type::shader_core, 39}, "Texture Unit Requests", "Trilinear filtered requests"},
    {"MaliCoreTextureCyclesTexturingActive", "TEX_COORD_ISSUE", {block_type::shader_core, 40}, "Texture Unit Cycles", "Filtering active"},
    {"MaliCoreLoadStoreCyclesFullReadCycles", "LS_MEM_READ_FULL", {block_type::shader_core, 44}, "Load/Store Unit Cycles", "Full reads"},
    {"MaliCoreLoadStoreCyclesPartialReadCycles", "LS_MEM_READ_SHORT", {block_type::shader_core, 45}, "Load/Store Unit Cycles", "Partial reads"},
    {"MaliCoreLoadStoreCyclesFullWriteCycles", "LS_MEM_WRITE_FULL", {block_type::shader_core, 46}, "Load/Store Unit Cycles", "Full writes"},
    {"MaliCoreLoadStoreCyclesPartialWriteCycles", "LS_MEM_WRITE_SHORT", {block_type::shader_core, 47}, "Load/Store Unit Cycles", "Partial writes"},
    {"MaliCoreLoadStoreCyclesAtomicAccessCycles", "LS_MEM_ATOMIC", {block_type::shader_core, 48}, "Load/Store Unit Cycles", "Atomic accesses"},
    {"MaliCoreVaryingIssues32BitInterpolationSlots", "VARY_SLOT_32", {block_type::shader_core, 50}, "Varying Unit Requests", "32-bit interpolation slots"},
    {"MaliCoreVaryingIssues16BitInterpolationSlots", "VARY_SLOT_16", {block_type::shader_core, 51}, "Varying Unit Requests", "16-bit interpolation slots"},
    {"MaliCoreL2ReadsFragmentL2ReadBeats", "BEATS_RD_FTC", {block_type::shader_core, 54}, "Shader Core L2 Reads", "Fragment front-end beats"},
    {"MaliCoreL2ReadsLoadStoreL2ReadBeats", "BEATS_RD_LSC", {block_type::shader_core, 56}, "Shader Core L2 Reads", "Load/store unit beats"},
    {"MaliCoreL2ReadsTextureL2ReadBeats", "BEATS_RD_TEX", {block_type::shader_core, 58}, "Shader Core L2 Reads", "Texture unit beats"},
    {"MaliCoreExternalReadsFragmentExternalReadBeats", "BEATS_RD_FTC_EXT", {block_type::shader_core, 55}, "Shader Core External Reads", "Fragment front-end beats"},
    {"MaliCoreExternalReadsLoadStoreExternalReadBeats", "BEATS_RD_LSC_EXT", {block_type::shader_core, 57}, "Shader Core External Reads", "Load/store unit beats"},
    {"MaliCoreExternalReadsTextureExternalReadBeats", "BEATS_RD_TEX_EXT", {block_type::shader_core, 59}, "Shader Core External Reads", "Texture unit beats"},
    {"MaliCoreWritesLoadStoreWriteBeats", "BEATS_WR_LSC", {block_type::shader_core, 61}, "Shader Core L2 Writes", "Load/store unit beats"},
    {"MaliCoreWritesTileBufferWriteBeats", "BEATS_WR_TIB", {block_type::shader_core, 62}, "Shader Core L2 Writes", "Tile unit beats"},
};
// clang-format on
}  // namespace detail

inline constexpr std::span<const streamline_counter> g72_streamline_counters{
    detail::streamline_table};

// Configuration constants the guide's expressions use: not counters, their
// values come from the GPU (hwpc/mali/g72_metrics.hpp binds them).
inline constexpr std::string_view constant_shader_core_count = "MaliConstantsShaderCoreCount";
inline constexpr std::string_view constant_l2_slice_count = "MaliConstantsL2SliceCount";
inline constexpr std::string_view constant_bus_width_bits = "MaliConstantsBusWidthBits";

// The counter behind a Streamline name (with or without '$').
constexpr std::optional<streamline_counter> find_streamline_counter(
    std::string_view name) noexcept {
  if (!name.empty() && name.front() == '$') name.remove_prefix(1);
  for (const streamline_counter& c : g72_streamline_counters) {
    if (c.name == name) return c;
  }
  return std::nullopt;
}

namespace detail {
// Every entry's hardware name is the G72 counter at its (block, index), and no
// Streamline name appears twice.
constexpr bool streamline_table_matches_g72() {
  for (std::size_t i = 0; i < g72_streamline_counters.size(); ++i) {
    const streamline_counter& c = g72_streamline_counters[i];
    if (g72_counter_name(c.id.block, c.id.index) != c.hw_name) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (g72_streamline_counters[j].name == c.name) return false;
    }
  }
  return true;
}
static_assert(streamline_table_matches_g72(), "Streamline table disagrees with the G72 table");
}  // namespace detail

}  // namespace hwpc::mali
