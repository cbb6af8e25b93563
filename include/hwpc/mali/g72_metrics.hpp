// The derived counters of the Mali-G72 counter guide as a built-in metric set
// (infix syntax), evaluated over a decoded sample's summed counters.
//
//   using namespace hwpc::mali;
//   auto ev = g72_evaluator::create(layout, /*bus_width_bits=*/128);  // = evaluator over gpus::g72
//   auto s = sample::parse(layout, bytes);
//   std::vector<hwpc::expr::value> out(ev->size());
//   ev->evaluate(*s, out);           // out[i]: g72_guide_expressions[i]
//
// Every expression is parsed at compile time (a static_assert below): a typo
// in the table stops the build. Evaluation goes through metrics::metric_set, so
// the set also offers batch evaluation (ev->metrics().batch()).
//
// Six of the guide's expressions have unbalanced parentheses; the table holds
// the intended form max(min((X) * 100, 100), 0) and keeps the guide's text in
// guide_text (docs/mali.md lists the fixes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/consteval.hpp"
#include "hwpc/expr/value.hpp"
#include "hwpc/mali/block.hpp"
#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/gpus/g72.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/streamline_names.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace hwpc::mali {

struct guide_expression {
  std::string_view section;  // the guide's section, "3.2.3"
  std::string_view symbol;   // metric symbol name in the set
  std::string_view title;    // the guide's section title
  std::string_view units;
  std::string_view formula;     // infix, as evaluated
  std::string_view guide_text;  // the guide's text when `formula` repairs it, else empty
};

namespace detail {
// clang-format off
inline constexpr guide_expression g72_guide_table[] = {
    {"3.1.1", "GPUActiveCycles", "GPU active cycles", "cycles",
     "$MaliGPUCyclesGPUActive",
     ""},
    {"3.1.2", "NonFragmentQueueActiveCycles", "Non-fragment queue active cycles", "cycles",
     "$MaliGPUCyclesNonFragmentQueueActive",
     ""},
    {"3.1.3", "FragmentQueueActiveCycles", "Fragment queue active cycles", "cycles",
     "$MaliGPUCyclesFragmentQueueActive",
     ""},
    {"3.1.4", "TilerActiveCycles", "Tiler active cycles", "cycles",
     "$MaliGPUCyclesTilerActive",
     ""},
    {"3.1.5", "GPUInterruptPendingCycles", "GPU interrupt pending cycles", "cycles",
     "$MaliGPUCyclesGPUInterruptActive",
     ""},
    {"3.2.1", "NonFragmentQueueUtilization", "Non-fragment queue utilization", "percent",
     "max(min(($MaliGPUCyclesNonFragmentQueueActive / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"3.2.2", "FragmentQueueUtilization", "Fragment queue utilization", "percent",
     "max(min(($MaliGPUCyclesFragmentQueueActive / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"3.2.3", "TilerUtilization", "Tiler utilization", "percent",
     "max(min(($MaliGPUCyclesTilerActive / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"3.3.1", "OutputExternalReadBytes", "Output external read bytes", "bytes",
     "$MaliExternalBusBeatsReadBeats * ($MaliConstantsBusWidthBits / 8)",
     ""},
    {"3.3.2", "OutputExternalWriteBytes", "Output external write bytes", "bytes",
     "$MaliExternalBusBeatsWriteBeats * ($MaliConstantsBusWidthBits / 8)",
     ""},
    {"3.4.1", "OutputExternalReadStallRate", "Output external read stall rate", "percent",
     "max(min(($MaliExternalBusStallsReadStallCycles / $MaliConstantsL2SliceCount / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"3.4.2", "OutputExternalWriteStallRate", "Output external write stall rate", "percent",
     "max(min(($MaliExternalBusStallsWriteStallCycles / $MaliConstantsL2SliceCount / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"3.5.1", "OutputExternalReadLatency0127Cycles", "Output external read latency 0-127 cycles", "beats",
     "$MaliExternalBusReadLatency0127Cycles",
     ""},
    {"3.5.2", "OutputExternalReadLatency128191Cycles", "Output external read latency 128-191 cycles", "beats",
     "$MaliExternalBusReadLatency128191Cycles",
     ""},
    {"3.5.3", "OutputExternalReadLatency192255Cycles", "Output external read latency 192-255 cycles", "beats",
     "$MaliExternalBusReadLatency192255Cycles",
     ""},
    {"3.5.4", "OutputExternalReadLatency256319Cycles", "Output external read latency 256-319 cycles", "beats",
     "$MaliExternalBusReadLatency256319Cycles",
     ""},
    {"3.5.5", "OutputExternalReadLatency320383Cycles", "Output external read latency 320-383 cycles", "beats",
     "$MaliExternalBusReadLatency320383Cycles",
     ""},
    {"3.5.6", "OutputExternalReadLatency384PlusCycles", "Output external read latency 384+ cycles", "beats",
     "$MaliExternalBusBeatsReadBeats - $MaliExternalBusReadLatency0127Cycles - $MaliExternalBusReadLatency128191Cycles - $MaliExternalBusReadLatency192255Cycles - $MaliExternalBusReadLatency256319Cycles - $MaliExternalBusReadLatency320383Cycles",
     ""},
    {"4.1.1", "TotalInputPrimitives", "Total input primitives", "primitives",
     "$MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives",
     ""},
    {"4.1.2", "CulledPrimitives", "Culled primitives", "primitives",
     "$MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives",
     ""},
    {"4.1.3", "VisiblePrimitives", "Visible primitives", "primitives",
     "$MaliPrimitiveCullingVisiblePrimitives",
     ""},
    {"4.2.1", "VisiblePrimitivesRate", "Visible primitives rate", "percent",
     "max(min(($MaliPrimitiveCullingVisiblePrimitives / ($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives)) * 100, 100), 0)",
     "max(min((($MaliPrimitiveCullingVisiblePrimitives / ($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives)) * 100, 100), 0)"},
    {"4.2.2", "FacingOrXYPlaneTestCullRate", "Facing or XY plane test cull rate", "percent",
     "max(min(($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives / ($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives)) * 100, 100), 0)",
     "max(min((($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives / ($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives)) * 100, 100), 0)"},
    {"4.2.3", "ZPlaneTestCullRate", "Z plane test cull rate", "percent",
     "max(min(($MaliPrimitiveCullingZPlaneTestCulledPrimitives / (($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives) - $MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives)) * 100, 100), 0)",
     "max(min((($MaliPrimitiveCullingZPlaneTestCulledPrimitives / (($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives) - $MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives)) * 100, 100), 0)"},
    {"4.2.4", "SampleTestCullRate", "Sample test cull rate", "percent",
     "max(min(($MaliPrimitiveCullingSampleTestCulledPrimitives / (($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives) - $MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives - $MaliPrimitiveCullingZPlaneTestCulledPrimitives)) * 100, 100), 0)",
     "max(min((($MaliPrimitiveCullingSampleTestCulledPrimitives / (($MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives) - $MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives - $MaliPrimitiveCullingZPlaneTestCulledPrimitives)) * 100, 100), 0)"},
    {"4.3.1", "PositionShaderThreadInvocations", "Position shader thread invocations", "threads",
     "$MaliTilerShadingRequestsPositionShadingRequests * 4",
     ""},
    {"4.3.2", "VaryingShaderThreadInvocations", "Varying shader thread invocations", "threads",
     "$MaliTilerShadingRequestsVaryingShadingRequests * 4",
     ""},
    {"4.3.3", "PositionThreadsPerInputPrimitive", "Position threads per input primitive", "threads",
     "( $MaliTilerShadingRequestsPositionShadingRequests * 4 ) / ( $MaliPrimitiveCullingFacingAndXYPlaneTestCulledPrimitives + $MaliPrimitiveCullingZPlaneTestCulledPrimitives + $MaliPrimitiveCullingSampleTestCulledPrimitives + $MaliPrimitiveCullingVisiblePrimitives )",
     ""},
    {"4.3.4", "VaryingThreadsPerInputPrimitive", "Varying threads per input primitive", "threads",
     "($MaliTilerShadingRequestsVaryingShadingRequests * 4) / $MaliPrimitiveCullingVisiblePrimitives",
     ""},
    {"4.4.1", "Pixels", "Pixels", "pixels",
     "$MaliGPUTasksFragmentTasks * 1024",
     ""},
    {"4.4.2", "CyclesPerPixel", "Cycles per pixel", "cycles",
     "$MaliGPUCyclesGPUActive / ($MaliGPUTasksFragmentTasks * 1024)",
     ""},
    {"4.4.3", "FragmentsPerPixel", "Fragments per pixel", "threads",
     "($MaliCoreWarpsFragmentWarps * 4) / ($MaliGPUTasksFragmentTasks * 1024)",
     ""},
    {"4.5.1", "EarlyZSTestedQuadPercentage", "Early ZS tested quad percentage", "percent",
     "max(min(($MaliCoreQuadsEarlyZSTestedQuads / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), 0)",
     ""},
    {"4.5.2", "EarlyZSUpdatedQuadPercentage", "Early ZS updated quad percentage", "percent",
     "max(min(($MaliCoreQuadsEarlyZSUpdatedQuads / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), 0)",
     ""},
    {"4.5.3", "EarlyZSKilledQuadPercentage", "Early ZS killed quad percentage", "percent",
     "max(min(($MaliCoreQuadsEarlyZSKilledQuads / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), 0)",
     ""},
    {"4.5.4", "FPKKilledQuadPercentage", "FPK killed quad percentage", "percent",
     "max(min((( $MaliCoreQuadsRasterizedFineQuads - $MaliCoreQuadsEarlyZSKilledQuads - $MaliCoreWarpsFragmentWarps) / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), 0)",
     ""},
    {"4.5.5", "LateZSTestedQuadPercentage", "Late ZS tested quad percentage", "percent",
     "max(min(($MaliCoreQuadsLateZSTestedQuads / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), 0)",
     "max(min($MaliCoreQuadsLateZSTestedQuads / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), 0)"},
    {"4.5.6", "LateZSKilledQuadPercentage", "Late ZS killed quad percentage", "percent",
     "max(min(($MaliCoreQuadsLateZSKilledQuads / $MaliCoreQuadsRasterizedFineQuads) * 100, 100), 0)",
     ""},
    {"5.1.1", "NonFragmentWarps", "Non-fragment warps", "warps",
     "$MaliCoreWarpsNonFragmentWarps",
     ""},
    {"5.1.2", "FragmentWarps", "Fragment warps", "warps",
     "$MaliCoreWarpsFragmentWarps",
     ""},
    {"5.2.1", "NonFragmentCyclesPerThread", "Non-fragment cycles per thread", "cycles",
     "$MaliCoreCyclesNonFragmentActive / ($MaliCoreWarpsNonFragmentWarps * 4)",
     ""},
    {"5.2.2", "FragmentCyclesPerThread", "Fragment cycles per thread", "cycles",
     "$MaliCoreCyclesFragmentActive / ($MaliCoreWarpsFragmentWarps * 4)",
     ""},
    {"5.3.1", "NonFragmentUtilization", "Non-fragment utilization", "percent",
     "max(min(($MaliCoreCyclesNonFragmentActive / $MaliConstantsShaderCoreCount / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"5.3.2", "FragmentUtilization", "Fragment utilization", "percent",
     "max(min(($MaliCoreCyclesFragmentActive / $MaliConstantsShaderCoreCount / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"5.3.3", "FragmentFPKBufferUtilization", "Fragment FPK buffer utilization", "percent",
     "max(min(($MaliCoreCyclesFragmentFPKBAActive / $MaliCoreCyclesFragmentActive) * 100, 100), 0)",
     ""},
    {"5.3.4", "ExecutionCoreUtilization", "Execution core utilization", "percent",
     "max(min(($MaliCoreCyclesExecutionCoreActive / $MaliConstantsShaderCoreCount / $MaliGPUCyclesGPUActive) * 100, 100), 0)",
     ""},
    {"6.1.1", "ArithmeticUnitUtilization", "Arithmetic unit utilization", "percent",
     "max(min(($MaliCoreInstructionsExecutedInstructions / $MaliCoreCyclesExecutionCoreActive) * 100, 100), 0)",
     ""},
    {"6.1.2", "VaryingUnitUtilization", "Varying unit utilization", "percent",
     "max(min((($MaliCoreVaryingIssues32BitInterpolationSlots + $MaliCoreVaryingIssues16BitInterpolationSlots) / $MaliCoreCyclesExecutionCoreActive) * 100, 100), 0)",
     "max(min(($MaliCoreVaryingIssues32BitInterpolationSlots + $MaliCoreVaryingIssues16BitInterpolationSlots) / $MaliCoreCyclesExecutionCoreActive) * 100, 100), 0)"},
    {"6.1.3", "TextureUnitUtilization", "Texture unit utilization", "percent",
     "max(min(($MaliCoreTextureCyclesTexturingActive / $MaliCoreCyclesExecutionCoreActive) * 100, 100), 0)",
     ""},
    {"6.1.4", "LoadStoreUnitUtilization", "Load/store unit utilization", "percent",
     "max(min((($MaliCoreLoadStoreCyclesFullReadCycles + $MaliCoreLoadStoreCyclesPartialReadCycles + $MaliCoreLoadStoreCyclesFullWriteCycles + $MaliCoreLoadStoreCyclesPartialWriteCycles + $MaliCoreLoadStoreCyclesAtomicAccessCycles) / $MaliCoreCyclesExecutionCoreActive) * 100, 100), 0)",
     ""},
    {"6.2.1", "DivergedInstructionIssueRate", "Diverged instruction issue rate", "percent",
     "max(min(($MaliCoreInstructionsDivergedInstructions / $MaliCoreInstructionsExecutedInstructions) * 100, 100), 0)",
     ""},
    {"6.3.1", "PartialCoverageRate", "Partial coverage rate", "percent",
     "max(min(($MaliCoreWarpsPartialFragmentWarps / $MaliCoreWarpsFragmentWarps) * 100, 100), 0)",
     ""},
    {"6.3.2", "UnchangedTileKillRate", "Unchanged tile kill rate", "percent",
     "max(min(($MaliCoreTilesUnchangedTilesKilled / $MaliCoreTilesTiles) * 100, 100), 0)",
     ""},
    {"7.1.1", "VaryingCycles", "Varying cycles", "cycles",
     "$MaliCoreVaryingIssues32BitInterpolationSlots + $MaliCoreVaryingIssues16BitInterpolationSlots",
     ""},
    {"7.1.2", "Interpolation16BitCycles", "16-bit interpolation cycles", "cycles",
     "$MaliCoreVaryingIssues16BitInterpolationSlots",
     ""},
    {"7.1.3", "Interpolation32BitCycles", "32-bit interpolation cycles", "cycles",
     "$MaliCoreVaryingIssues32BitInterpolationSlots",
     ""},
    {"8.1.1", "TextureFilteringCycles", "Texture filtering cycles", "cycles",
     "$MaliCoreTextureCyclesTexturingActive",
     ""},
    {"8.1.2", "TextureFilteringCyclesPerInstruction", "Texture filtering cycles per instruction", "cycles",
     "$MaliCoreTextureCyclesTexturingActive / $MaliCoreTextureRequestsTextureRequests",
     ""},
    {"8.2.1", "TextureAccessesUsingCompressedTexturePercentage", "Texture accesses using compressed texture percentage", "percent",
     "max(min(($MaliCoreTextureRequestsCompressedTextureRequests / $MaliCoreTextureRequestsTextureRequests) * 100, 100), 0)",
     ""},
    {"8.2.2", "TextureAccessesUsing3DTexturePercentage", "Texture accesses using 3D texture percentage", "percent",
     "max(min(($MaliCoreTextureRequests3DTextureRequests / $MaliCoreTextureRequestsTextureRequests) * 100, 100), 0)",
     ""},
    {"8.2.3", "TextureAccessesUsingTrilinearFilterPercentage", "Texture accesses using trilinear filter percentage", "percent",
     "max(min(($MaliCoreTextureRequestsTrilinearFilteredRequests / $MaliCoreTextureRequestsTextureRequests) * 100, 100), 0)",
     ""},
    {"8.2.4", "TextureAccessesUsingMipmappingPercentage", "Texture accesses using mipmapping percentage", "percent",
     "max(min(($MaliCoreTextureRequestsMipmappedTextureRequest / $MaliCoreTextureRequestsTextureRequests) * 100, 100), 0)",
     ""},
    {"8.3.1", "TextureBytesReadFromL2PerTextureCycle", "Texture bytes read from L2 per texture cycle", "bytes",
     "($MaliCoreL2ReadsTextureL2ReadBeats * 16) / $MaliCoreTextureCyclesTexturingActive",
     ""},
    {"8.3.2", "TextureBytesReadFromExternalMemoryPerTextureCycle", "Texture bytes read from external memory per texture cycle", "bytes",
     "($MaliCoreExternalReadsTextureExternalReadBeats * 16) / $MaliCoreTextureCyclesTexturingActive",
     ""},
    {"9.1.1", "LoadStoreTotalIssues", "Load/store total issues", "issues",
     "$MaliCoreLoadStoreCyclesFullReadCycles + $MaliCoreLoadStoreCyclesPartialReadCycles + $MaliCoreLoadStoreCyclesFullWriteCycles + $MaliCoreLoadStoreCyclesPartialWriteCycles + $MaliCoreLoadStoreCyclesAtomicAccessCycles",
     ""},
    {"9.1.2", "LoadStoreFullReadIssues", "Load/store full read issues", "issues",
     "$MaliCoreLoadStoreCyclesFullReadCycles",
     ""},
    {"9.1.3", "LoadStorePartialReadIssues", "Load/store partial read issues", "issues",
     "$MaliCoreLoadStoreCyclesPartialReadCycles",
     ""},
    {"9.1.4", "LoadStoreFullWriteIssues", "Load/store full write issues", "issues",
     "$MaliCoreLoadStoreCyclesFullWriteCycles",
     ""},
    {"9.1.5", "LoadStorePartialWriteIssues", "Load/store partial write issues", "issues",
     "$MaliCoreLoadStoreCyclesPartialWriteCycles",
     ""},
    {"9.1.6", "LoadStoreAtomicIssues", "Load/store atomic issues", "issues",
     "$MaliCoreLoadStoreCyclesAtomicAccessCycles",
     ""},
    {"9.2.1", "LoadStoreBytesReadFromL2PerAccessCycle", "Load/store bytes read from L2 per access cycle", "bytes",
     "($MaliCoreL2ReadsLoadStoreL2ReadBeats * 16) / ($MaliCoreLoadStoreCyclesFullReadCycles + $MaliCoreLoadStoreCyclesPartialReadCycles)",
     ""},
    {"9.2.2", "LoadStoreBytesReadFromExternalMemoryPerAccessCycle", "Load/store bytes read from external memory per access cycle", "bytes",
     "($MaliCoreExternalReadsLoadStoreExternalReadBeats * 16) / ($MaliCoreLoadStoreCyclesFullReadCycles + $MaliCoreLoadStoreCyclesPartialReadCycles)",
     ""},
    {"9.2.3", "LoadStoreBytesWrittenToL2PerAccessCycle", "Load/store bytes written to L2 per access cycle", "bytes",
     "($MaliCoreWritesLoadStoreWriteBeats * 16) / ($MaliCoreLoadStoreCyclesFullWriteCycles + $MaliCoreLoadStoreCyclesPartialWriteCycles)",
     ""},
    {"10.1.1", "FrontEndReadBytesFromL2Cache", "Front-end read bytes from L2 cache", "bytes",
     "$MaliCoreL2ReadsFragmentL2ReadBeats * 16",
     ""},
    {"10.1.2", "LoadStoreReadBytesFromL2Cache", "Load/store read bytes from L2 cache", "bytes",
     "$MaliCoreL2ReadsLoadStoreL2ReadBeats * 16",
     ""},
    {"10.1.3", "TextureReadBytesFromL2Cache", "Texture read bytes from L2 cache", "bytes",
     "$MaliCoreL2ReadsTextureL2ReadBeats * 16",
     ""},
    {"10.2.1", "FrontEndReadBytesFromExternalMemory", "Front-end read bytes from external memory", "bytes",
     "$MaliCoreExternalReadsFragmentExternalReadBeats * 16",
     ""},
    {"10.2.2", "LoadStoreReadBytesFromExternalMemory", "Load/store read bytes from external memory", "bytes",
     "$MaliCoreExternalReadsLoadStoreExternalReadBeats * 16",
     ""},
    {"10.2.3", "TextureReadBytesFromExternalMemory", "Texture read bytes from external memory", "bytes",
     "$MaliCoreExternalReadsTextureExternalReadBeats * 16",
     ""},
    {"10.3.1", "LoadStoreWriteBytes", "Load/store write bytes", "bytes",
     "$MaliCoreWritesLoadStoreWriteBeats * 16",
     ""},
    {"10.3.2", "TileBufferWriteBytes", "Tile buffer write bytes", "bytes",
     "$MaliCoreWritesTileBufferWriteBeats * 16",
     ""},
    {"11.1.1", "ShaderCoreCount", "Shader core count", "cores",
     "$MaliConstantsShaderCoreCount",
     ""},
    {"11.1.2", "L2CacheSliceCount", "L2 cache slice count", "slices",
     "$MaliConstantsL2SliceCount",
     ""},
    {"11.1.3", "ExternalBusBeatSize", "External bus beat size", "bytes",
     "($MaliConstantsBusWidthBits / 8)",
     ""},
};
// clang-format on
}  // namespace detail

// The guide's expressions from section 3 to 11, in the guide's order. Not
// included: the CPU counters of section 2 and the cycle-budget pseudo-code of
// section 4.4.
inline constexpr std::span<const guide_expression> g72_guide_expressions{detail::g72_guide_table};

namespace detail {
inline constexpr std::size_t g72_name_count = g72_streamline_counters.size() + 3;
// Every name an expression may read: the Streamline counters, then the constants.
inline constexpr std::array<std::string_view, g72_name_count> g72_formula_names = [] {
  std::array<std::string_view, g72_name_count> a{};
  std::size_t i = 0;
  for (const streamline_counter& c : g72_streamline_counters) a[i++] = c.name;
  a[i++] = constant_shader_core_count;
  a[i++] = constant_l2_slice_count;
  a[i++] = constant_bus_width_bits;
  return a;
}();

constexpr bool g72_expression_parses(std::string_view text) {
  return static_cast<bool>(
      expr::detail::compile_with_names(text, expr::syntax::infix, g72_formula_names).status);
}
constexpr bool every_g72_expression_parses() {
  for (const guide_expression& e : g72_guide_expressions) {
    if (!g72_expression_parses(e.formula)) return false;
  }
  return true;
}
// Clang's default constexpr step budget is smaller than GCC's and runs out
// here; tests/test_mali_metrics.cpp checks the same at run time everywhere.
#if !defined(__clang__)
static_assert(every_g72_expression_parses(), "a Mali-G72 guide expression does not parse");
#endif
}  // namespace detail

// The guide's expressions as a metric set (syntax infix). Metric i is
// g72_guide_expressions[i]; its description names the guide section.
inline metrics::metric_set g72_metric_set() {
  metrics::metric_set set;
  set.symbol_name = "MaliG72Guide";
  set.name = "Mali-G72 performance counter guide";
  set.chipset = "Mali-G72";
  set.syntax = expr::syntax::infix;
  for (const guide_expression& e : g72_guide_expressions) {
    metrics::metric m;
    m.symbol_name = std::string(e.symbol);
    m.name = std::string(e.title);
    m.description = "Mali-G72 counter guide, section " + std::string(e.section);
    m.units = std::string(e.units);
    m.type = metrics::data_type::float64;
    m.semantic =
        e.units == "percent" ? metrics::semantic_type::ratio : metrics::semantic_type::event;
    m.equation = std::string(e.formula);
    set.metrics.push_back(std::move(m));
  }
  return set;
}

// The guide's compile options and constants (forwarding to the GPU-neutral
// forms in hwpc/mali/evaluator.hpp).
inline metrics::compile_options g72_compile_options() {
  return mali_compile_options(g72_streamline_counters);
}
inline metrics::device_values g72_device_values(const sample_layout& layout,
                                                std::uint32_t bus_width_bits) {
  return mali_device_values(layout, bus_width_bits);
}

// The guide's set bound to the Mali-G72 table and one configuration: the
// GPU-neutral evaluator with the G72 as its instance.
class g72_evaluator : public evaluator {
 public:
  static result<g72_evaluator> create(const sample_layout& layout, std::uint32_t bus_width_bits) {
    auto ev = evaluator::create(gpus::g72, g72_metric_set(), g72_streamline_counters, layout,
                                bus_width_bits);
    if (!ev) return ev.error_value();
    return g72_evaluator(std::move(*ev));
  }

 private:
  explicit g72_evaluator(evaluator ev) : evaluator(std::move(ev)) {}
};

}  // namespace hwpc::mali
