// Names of every A5xx type-7 opcode and CP_EVENT_WRITE event, as constexpr
// tables indexed by value (docs/adreno.md, "Names").
//
// Sources: Mesa's adreno_pm4.xml (opcodes valid on A5XX, vgt_event_type values
// valid on A5XX), cross-checked where possible against the 2016 envytools
// rnndb; FACTS-adreno sections 3 and 4. Where A5XX gives one value two names
// (0x1c, 0x3f) both are listed, the first being the one printed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace hwpc::adreno {

namespace detail {
struct named_value {
  std::uint32_t value;
  std::string_view name;
};

inline constexpr named_value a5xx_opcodes[] = {
    {0x04, "PKT4"},
    {0x10, "CP_NOP"},
    {0x11, "CP_RECORD_PFP_TIMESTAMP"},
    {0x12, "CP_WAIT_MEM_WRITES"},
    {0x13, "CP_WAIT_FOR_ME"},
    {0x19, "CP_DRAW_PRED_ENABLE_GLOBAL"},
    {0x1a, "CP_DRAW_PRED_ENABLE_LOCAL"},
    {0x1c, "CP_PREEMPT_ENABLE"},  // also CP_YIELD_ENABLE on A5XX
    {0x1d, "CP_SKIP_IB2_ENABLE_GLOBAL"},
    {0x1e, "CP_PREEMPT_TOKEN"},
    {0x21, "CP_REG_RMW"},
    {0x22, "CP_DRAW_INDX"},
    {0x23, "CP_SKIP_IB2_ENABLE_LOCAL"},
    {0x24, "CP_DRAW_AUTO"},
    {0x25, "CP_SET_STATE"},
    {0x26, "CP_WAIT_FOR_IDLE"},
    {0x28, "CP_DRAW_INDIRECT"},
    {0x29, "CP_DRAW_INDX_INDIRECT"},
    {0x2c, "CP_BLIT"},
    {0x2f, "CP_SET_BIN_DATA5"},
    {0x30, "CP_LOAD_STATE4"},
    {0x31, "CP_RUN_OPENCL"},
    {0x33, "CP_EXEC_CS"},
    {0x35, "CP_SET_SUBDRAW_SIZE"},
    {0x37, "CP_INDIRECT_BUFFER_PFD"},
    {0x38, "CP_DRAW_INDX_OFFSET"},
    {0x39, "CP_REG_TEST"},
    {0x3a, "CP_COND_INDIRECT_BUFFER_PFE"},
    {0x3b, "CP_INVALIDATE_STATE"},
    {0x3c, "CP_WAIT_REG_MEM"},
    {0x3d, "CP_MEM_WRITE"},
    {0x3e, "CP_REG_TO_MEM"},
    {0x3f, "CP_INDIRECT_BUFFER"},  // CP_INDIRECT_BUFFER_PFE in the A5XX naming
    {0x40, "CP_INTERRUPT"},
    {0x41, "CP_EXEC_CS_INDIRECT"},
    {0x42, "CP_MEM_TO_REG"},
    {0x43, "CP_SET_DRAW_STATE"},
    {0x44, "CP_COND_EXEC"},
    {0x45, "CP_COND_WRITE5"},
    {0x46, "CP_EVENT_WRITE"},
    {0x47, "CP_COND_REG_EXEC"},
    {0x48, "CP_ME_INIT"},
    {0x4a, "CP_REG_TO_SCRATCH"},
    {0x4b, "CP_SET_DRAW_INIT_FLAGS"},
    {0x4d, "CP_SCRATCH_TO_REG"},
    {0x4e, "CP_DRAW_PRED_SET"},
    {0x4f, "CP_MEM_WRITE_CNTR"},
    {0x50, "CP_PERFCOUNTER_ACTION"},
    {0x52, "CP_WAIT_REG_EQ"},
    {0x53, "CP_SMMU_TABLE_UPDATE"},
    {0x57, "CP_INDIRECT_BUFFER_CHAIN"},
    {0x5c, "CP_CONTEXT_REG_BUNCH"},
    {0x5e, "CP_CONTEXT_UPDATE"},
    {0x5f, "CP_SET_PROTECTED_MODE"},
    {0x62, "CP_WHERE_AM_I"},
    {0x64, "CP_SET_VISIBILITY_OVERRIDE"},
    {0x66, "CP_SET_SECURE_MODE"},
    {0x69, "CP_PREEMPT_ENABLE_GLOBAL"},
    {0x6a, "CP_PREEMPT_ENABLE_LOCAL"},
    {0x6b, "CP_CONTEXT_SWITCH_YIELD"},
    {0x6c, "CP_SET_RENDER_MODE"},
    {0x6e, "CP_COMPUTE_CHECKPOINT"},
    {0x6f, "CP_BOOTSTRAP_UCODE"},
    {0x71, "CP_TEST_TWO_MEMS"},
    {0x73, "CP_MEM_TO_MEM"},
    {0x78, "CP_REG_WR_NO_CTXT"},
};

inline constexpr named_value a5xx_events[] = {
    {0x00, "VS_DEALLOC"},
    {0x01, "PS_DEALLOC"},
    {0x02, "VS_DONE_TS"},
    {0x03, "PS_DONE_TS"},
    {0x04, "CACHE_FLUSH_TS"},
    {0x05, "CONTEXT_DONE"},
    {0x08, "WT_DONE_TS"},
    {0x0d, "START_FRAGMENT_CTRS"},
    {0x0e, "STOP_FRAGMENT_CTRS"},
    {0x0f, "START_COMPUTE_CTRS"},
    {0x10, "STOP_COMPUTE_CTRS"},
    {0x11, "FLUSH_SO_0"},
    {0x12, "FLUSH_SO_1"},
    {0x13, "FLUSH_SO_2"},
    {0x14, "FLUSH_SO_3"},
    {0x15, "ZPASS_DONE"},
    {0x16, "RB_DONE_TS"},
    {0x18, "PC_CCU_INVALIDATE_DEPTH"},
    {0x19, "PC_CCU_INVALIDATE_COLOR"},
    {0x1b, "VS_FETCH_DONE"},
    {0x1c, "PC_CCU_FLUSH_DEPTH_TS"},
    {0x1d, "PC_CCU_FLUSH_COLOR_TS"},
    {0x1e, "CCU_RESOLVE"},
    {0x25, "LRZ_CLEAR"},
    {0x26, "LRZ_FLUSH_INVALIDATE"},
    {0x27, "BLIT_OP_FILL_2D"},
    {0x28, "BLIT_OP_COPY_2D"},
    {0x2a, "BLIT_OP_SCALE_2D"},
    {0x2b, "CONTEXT_DONE_2D"},
    {0x2c, "VSC_BINNING_START"},
    {0x2d, "VSC_BINNING_END"},
};

// Binary search of a list sorted by value (the static_asserts below check it).
template <std::size_t M>
constexpr std::string_view find_name(const named_value (&list)[M], std::uint32_t v) noexcept {
  const auto* it =
      std::lower_bound(std::begin(list), std::end(list), v,
                       [](const named_value& e, std::uint32_t x) { return e.value < x; });
  return it != std::end(list) && it->value == v ? it->name : std::string_view{};
}

constexpr bool strictly_increasing(const auto& list) {
  for (std::size_t i = 1; i < std::size(list); ++i) {
    if (list[i - 1].value >= list[i].value) return false;
  }
  return true;
}
static_assert(strictly_increasing(a5xx_opcodes) && std::size(a5xx_opcodes) == 66);
static_assert(strictly_increasing(a5xx_events) && std::size(a5xx_events) == 31);
}  // namespace detail

// The A5xx name of a type-7 opcode, or empty when A5xx has none.
constexpr std::string_view a5xx_opcode_name(std::uint32_t opcode) noexcept {
  return detail::find_name(detail::a5xx_opcodes, opcode);
}

// The A5xx name of a CP_EVENT_WRITE event number (bits 7..0), or empty.
constexpr std::string_view event_name(std::uint32_t event) noexcept {
  return detail::find_name(detail::a5xx_events, event);
}

static_assert(a5xx_opcode_name(0x46) == "CP_EVENT_WRITE");
static_assert(a5xx_opcode_name(0x3f) == "CP_INDIRECT_BUFFER");
static_assert(a5xx_opcode_name(0x01).empty() && a5xx_opcode_name(0x80).empty());
static_assert(event_name(0x15) == "ZPASS_DONE" && event_name(0x55).empty());

}  // namespace hwpc::adreno
