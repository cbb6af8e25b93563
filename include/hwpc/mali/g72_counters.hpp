// The Mali-G72 hardware counters: name and index of every counter the G72
// implements, by block type (front-end/job manager, tiler, memory/L2, shader
// core). Indices are positions in a block of 64 (hwpc/mali/block.hpp); indices
// not listed are header words (0..3) or unused. Complete for the G72 counter
// layout described in docs/mali.md; tests/test_mali_counters.cpp checks the
// table against that layout description.
//
//   using namespace hwpc::mali;
//   g72_counter_name(block_type::shader_core, 12);   // "FRAG_QUADS_EZS_TEST"
//   find_g72_counter("GPU_ACTIVE")->id;             // {front_end, 6}
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hwpc/mali/block.hpp"

namespace hwpc::mali {

struct hw_counter {
  counter_id id;
  std::string_view name;  // hardware name, e.g. "FRAG_QUADS_EZS_TEST"
};

namespace detail {
// Block type, index, hardware name; grouped by block, ascending index.
inline constexpr hw_counter g72_table[] = {
    // front_end
    {{block_type::front_end, 6}, "GPU_ACTIVE"},
    {{block_type::front_end, 7}, "IRQ_ACTIVE"},
    {{block_type::front_end, 8}, "JS0_JOBS"},
    {{block_type::front_end, 9}, "JS0_TASKS"},
    {{block_type::front_end, 10}, "JS0_ACTIVE"},
    {{block_type::front_end, 11}, "JS0_WAIT_FLUSH"},
    {{block_type::front_end, 12}, "JS0_WAIT_READ"},
    {{block_type::front_end, 13}, "JS0_WAIT_ISSUE"},
    {{block_type::front_end, 14}, "JS0_WAIT_DEPEND"},
    {{block_type::front_end, 15}, "JS0_WAIT_FINISH"},
    {{block_type::front_end, 16}, "JS1_JOBS"},
    {{block_type::front_end, 17}, "JS1_TASKS"},
    {{block_type::front_end, 18}, "JS1_ACTIVE"},
    {{block_type::front_end, 19}, "JS1_WAIT_FLUSH"},
    {{block_type::front_end, 20}, "JS1_WAIT_READ"},
    {{block_type::front_end, 21}, "JS1_WAIT_ISSUE"},
    {{block_type::front_end, 22}, "JS1_WAIT_DEPEND"},
    {{block_type::front_end, 23}, "JS1_WAIT_FINISH"},
    {{block_type::front_end, 24}, "JS2_JOBS"},
    {{block_type::front_end, 25}, "JS2_TASKS"},
    {{block_type::front_end, 26}, "JS2_ACTIVE"},
    {{block_type::front_end, 27}, "JS2_WAIT_FLUSH"},
    {{block_type::front_end, 28}, "JS2_WAIT_READ"},
    {{block_type::front_end, 29}, "JS2_WAIT_ISSUE"},
    {{block_type::front_end, 30}, "JS2_WAIT_DEPEND"},
    {{block_type::front_end, 31}, "JS2_WAIT_FINISH"},
    {{block_type::front_end, 63}, "CACHE_FLUSH"},
    // tiler
    {{block_type::tiler, 4}, "TILER_ACTIVE"},
    {{block_type::tiler, 6}, "TRIANGLES"},
    {{block_type::tiler, 7}, "LINES"},
    {{block_type::tiler, 8}, "POINTS"},
    {{block_type::tiler, 9}, "FRONT_FACING"},
    {{block_type::tiler, 10}, "BACK_FACING"},
    {{block_type::tiler, 11}, "PRIM_VISIBLE"},
    {{block_type::tiler, 12}, "PRIM_CULLED"},
    {{block_type::tiler, 13}, "PRIM_CLIPPED"},
    {{block_type::tiler, 14}, "PRIM_SAT_CULLED"},
    {{block_type::tiler, 17}, "BUS_READ"},
    {{block_type::tiler, 19}, "BUS_WRITE"},
    {{block_type::tiler, 21}, "IDVS_POS_SHAD_REQ"},
    {{block_type::tiler, 23}, "IDVS_POS_SHAD_STALL"},
    {{block_type::tiler, 24}, "IDVS_POS_FIFO_FULL"},
    {{block_type::tiler, 26}, "VCACHE_HIT"},
    {{block_type::tiler, 27}, "VCACHE_MISS"},
    {{block_type::tiler, 34}, "IDVS_VBU_HIT"},
    {{block_type::tiler, 35}, "IDVS_VBU_MISS"},
    {{block_type::tiler, 37}, "IDVS_VAR_SHAD_REQ"},
    {{block_type::tiler, 38}, "IDVS_VAR_SHAD_STALL"},
    // memory
    {{block_type::memory, 4}, "MMU_REQUESTS"},
    {{block_type::memory, 5}, "MMU_TABLE_READS_L3"},
    {{block_type::memory, 6}, "MMU_TABLE_READS_L2"},
    {{block_type::memory, 7}, "MMU_HIT_L3"},
    {{block_type::memory, 8}, "MMU_HIT_L2"},
    {{block_type::memory, 9}, "MMU_S2_REQUESTS"},
    {{block_type::memory, 10}, "MMU_S2_TABLE_READS_L3"},
    {{block_type::memory, 11}, "MMU_S2_TABLE_READS_L2"},
    {{block_type::memory, 12}, "MMU_S2_HIT_L3"},
    {{block_type::memory, 13}, "MMU_S2_HIT_L2"},
    {{block_type::memory, 16}, "L2_RD_MSG_IN"},
    {{block_type::memory, 17}, "L2_RD_MSG_IN_STALL"},
    {{block_type::memory, 18}, "L2_WR_MSG_IN"},
    {{block_type::memory, 19}, "L2_WR_MSG_IN_STALL"},
    {{block_type::memory, 20}, "L2_SNP_MSG_IN"},
    {{block_type::memory, 21}, "L2_SNP_MSG_IN_STALL"},
    {{block_type::memory, 22}, "L2_RD_MSG_OUT"},
    {{block_type::memory, 23}, "L2_RD_MSG_OUT_STALL"},
    {{block_type::memory, 24}, "L2_WR_MSG_OUT"},
    {{block_type::memory, 25}, "L2_ANY_LOOKUP"},
    {{block_type::memory, 26}, "L2_READ_LOOKUP"},
    {{block_type::memory, 27}, "L2_WRITE_LOOKUP"},
    {{block_type::memory, 28}, "L2_EXT_SNOOP_LOOKUP"},
    {{block_type::memory, 29}, "L2_EXT_READ"},
    {{block_type::memory, 30}, "L2_EXT_READ_NOSNP"},
    {{block_type::memory, 31}, "L2_EXT_READ_UNIQUE"},
    {{block_type::memory, 32}, "L2_EXT_READ_BEATS"},
    {{block_type::memory, 33}, "L2_EXT_AR_STALL"},
    {{block_type::memory, 34}, "L2_EXT_AR_CNT_Q1"},
    {{block_type::memory, 35}, "L2_EXT_AR_CNT_Q2"},
    {{block_type::memory, 36}, "L2_EXT_AR_CNT_Q3"},
    {{block_type::memory, 37}, "L2_EXT_RRESP_0_127"},
    {{block_type::memory, 38}, "L2_EXT_RRESP_128_191"},
    {{block_type::memory, 39}, "L2_EXT_RRESP_192_255"},
    {{block_type::memory, 40}, "L2_EXT_RRESP_256_319"},
    {{block_type::memory, 41}, "L2_EXT_RRESP_320_383"},
    {{block_type::memory, 42}, "L2_EXT_WRITE"},
    {{block_type::memory, 43}, "L2_EXT_WRITE_NOSNP_FULL"},
    {{block_type::memory, 44}, "L2_EXT_WRITE_NOSNP_PTL"},
    {{block_type::memory, 45}, "L2_EXT_WRITE_SNP_FULL"},
    {{block_type::memory, 46}, "L2_EXT_WRITE_SNP_PTL"},
    {{block_type::memory, 47}, "L2_EXT_WRITE_BEATS"},
    {{block_type::memory, 48}, "L2_EXT_W_STALL"},
    {{block_type::memory, 49}, "L2_EXT_AW_CNT_Q1"},
    {{block_type::memory, 50}, "L2_EXT_AW_CNT_Q2"},
    {{block_type::memory, 51}, "L2_EXT_AW_CNT_Q3"},
    {{block_type::memory, 52}, "L2_EXT_SNOOP"},
    {{block_type::memory, 53}, "L2_EXT_SNOOP_STALL"},
    // shader_core
    {{block_type::shader_core, 4}, "FRAG_ACTIVE"},
    {{block_type::shader_core, 5}, "FRAG_PRIMITIVES"},
    {{block_type::shader_core, 6}, "FRAG_PRIM_RAST"},
    {{block_type::shader_core, 7}, "FRAG_FPK_ACTIVE"},
    {{block_type::shader_core, 9}, "FRAG_WARPS"},
    {{block_type::shader_core, 10}, "FRAG_PARTIAL_WARPS"},
    {{block_type::shader_core, 11}, "FRAG_QUADS_RAST"},
    {{block_type::shader_core, 12}, "FRAG_QUADS_EZS_TEST"},
    {{block_type::shader_core, 13}, "FRAG_QUADS_EZS_UPDATE"},
    {{block_type::shader_core, 14}, "FRAG_QUADS_EZS_KILL"},
    {{block_type::shader_core, 15}, "FRAG_LZS_TEST"},
    {{block_type::shader_core, 16}, "FRAG_LZS_KILL"},
    {{block_type::shader_core, 18}, "FRAG_PTILES"},
    {{block_type::shader_core, 19}, "FRAG_TRANS_ELIM"},
    {{block_type::shader_core, 20}, "QUAD_FPK_KILLER"},
    {{block_type::shader_core, 22}, "COMPUTE_ACTIVE"},
    {{block_type::shader_core, 23}, "COMPUTE_TASKS"},
    {{block_type::shader_core, 24}, "COMPUTE_WARPS"},
    {{block_type::shader_core, 26}, "EXEC_CORE_ACTIVE"},
    {{block_type::shader_core, 28}, "EXEC_INSTR_COUNT"},
    {{block_type::shader_core, 29}, "EXEC_INSTR_DIVERGED"},
    {{block_type::shader_core, 30}, "EXEC_INSTR_STARVING"},
    {{block_type::shader_core, 35}, "TEX_INSTR"},
    {{block_type::shader_core, 36}, "TEX_INSTR_MIPMAP"},
    {{block_type::shader_core, 37}, "TEX_INSTR_COMPRESSED"},
    {{block_type::shader_core, 38}, "TEX_INSTR_3D"},
    {{block_type::shader_core, 39}, "TEX_INSTR_TRILINEAR"},
    {{block_type::shader_core, 40}, "TEX_COORD_ISSUE"},
    {{block_type::shader_core, 41}, "TEX_COORD_STALL"},
    {{block_type::shader_core, 42}, "TEX_STARVE_CACHE"},
    {{block_type::shader_core, 43}, "TEX_STARVE_FILTER"},
    {{block_type::shader_core, 44}, "LS_MEM_READ_FULL"},
    {{block_type::shader_core, 45}, "LS_MEM_READ_SHORT"},
    {{block_type::shader_core, 46}, "LS_MEM_WRITE_FULL"},
    {{block_type::shader_core, 47}, "LS_MEM_WRITE_SHORT"},
    {{block_type::shader_core, 48}, "LS_MEM_ATOMIC"},
    {{block_type::shader_core, 49}, "VARY_INSTR"},
    {{block_type::shader_core, 50}, "VARY_SLOT_32"},
    {{block_type::shader_core, 51}, "VARY_SLOT_16"},
    {{block_type::shader_core, 52}, "ATTR_INSTR"},
    {{block_type::shader_core, 54}, "BEATS_RD_FTC"},
    {{block_type::shader_core, 55}, "BEATS_RD_FTC_EXT"},
    {{block_type::shader_core, 56}, "BEATS_RD_LSC"},
    {{block_type::shader_core, 57}, "BEATS_RD_LSC_EXT"},
    {{block_type::shader_core, 58}, "BEATS_RD_TEX"},
    {{block_type::shader_core, 59}, "BEATS_RD_TEX_EXT"},
    {{block_type::shader_core, 60}, "BEATS_RD_OTHER"},
    {{block_type::shader_core, 61}, "BEATS_WR_LSC"},
    {{block_type::shader_core, 62}, "BEATS_WR_TIB"},
    {{block_type::shader_core, 63}, "BEATS_WR_OTHER"},
};
}  // namespace detail

// All Mali-G72 hardware counters.
inline constexpr std::span<const hw_counter> g72_counters{detail::g72_table};

// The counter with this hardware name, if the G72 has one.
constexpr std::optional<hw_counter> find_g72_counter(std::string_view name) noexcept {
  for (const hw_counter& c : g72_counters) {
    if (c.name == name) return c;
  }
  return std::nullopt;
}

// The hardware name of a counter; empty for header words and unused indices.
constexpr std::string_view g72_counter_name(block_type block, std::size_t index) noexcept {
  for (const hw_counter& c : g72_counters) {
    if (c.id.block == block && c.id.index == index) return c.name;
  }
  return {};
}

namespace detail {
constexpr bool g72_table_is_well_formed() {
  for (std::size_t i = 0; i < g72_counters.size(); ++i) {
    const hw_counter& c = g72_counters[i];
    if (c.id.index < header_counters || c.id.index >= counters_per_block) return false;
    if (i > 0) {
      const hw_counter& p = g72_counters[i - 1];
      // Sorted by block, then strictly ascending index: no duplicates.
      if (p.id.block == c.id.block && p.id.index >= c.id.index) return false;
      if (p.id.block > c.id.block) return false;
    }
  }
  return true;
}
static_assert(g72_table_is_well_formed(), "G72 counter table: header index, duplicate or order");
}  // namespace detail

}  // namespace hwpc::mali
