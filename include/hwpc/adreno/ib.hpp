// The indirect-buffer call packets (CP_INDIRECT_BUFFER, _PFD, _CHAIN) and
// their target: what the walker follows (docs/adreno.md, "Indirect buffers");
// and the command buffer an A5XX preemption packet names.
#pragma once

#include <cstdint>
#include <string>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

// CP_INDIRECT_BUFFER payload: address low, address high, dword 2 bits 19..0
// the size in dwords (FACTS-adreno section 2; bits 31..20 ignored).
inline constexpr std::uint32_t ib_size_mask = 0xfffff;

constexpr bool is_ib_call(std::uint32_t opcode) noexcept {
  return opcode == op::cp_indirect_buffer || opcode == op::cp_indirect_buffer_pfd;
}

struct ib_target {
  std::uint64_t address = 0;
  std::uint32_t dwords = 0;
};

// The target of CP_INDIRECT_BUFFER / _PFD / _CHAIN, or an error when the
// packet has fewer than 3 payload dwords.
inline result<ib_target> decode_ib(const packet& p) {
  if (p.hdr.count < 3) {
    return make_error(errc::inconsistent, p.offset,
                      std::string(opcode_name(p.hdr.id)) + " needs 3 payload dwords, has " +
                          std::to_string(p.hdr.count));
  }
  return ib_target{p.qword(0), p.dword(2) & ib_size_mask};
}

// A5XX CP_SET_RENDER_MODE (8 payload dwords: dw5 the length in dwords, dw6-7
// the address; dw1-2 name a data buffer, and a payload of 1 or 5 dwords names
// no command buffer) and CP_COMPUTE_CHECKPOINT (dw5-6 the address, the length
// in dw7 when the payload has 8 dwords, else in dw4) name a command buffer
// the CP runs at a preemption switch (Mesa's decoder, docs/adreno.md
// "Captures from phones"). A target of 0 dwords when there is none.
inline result<ib_target> decode_preemption_buffer(const packet& p) {
  if (p.hdr.id == op::cp_set_render_mode) {
    if (p.hdr.count < 8) return ib_target{};
    return ib_target{p.qword(6), p.dword(5)};
  }
  if (p.hdr.count < 7) {
    return make_error(
        errc::inconsistent, p.offset,
        "CP_COMPUTE_CHECKPOINT needs 7 payload dwords, has " + std::to_string(p.hdr.count));
  }
  return ib_target{p.qword(5), p.hdr.count >= 8 ? p.dword(7) : p.dword(4)};
}

}  // namespace hwpc::adreno
