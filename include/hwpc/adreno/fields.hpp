// Payload fields of the packets hwpc decodes by field, as one line of text
// (docs/adreno.md, "Fields"). Layouts from FACTS-adreno sections 2-4.
#pragma once

#include <cstdint>
#include <string>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/explain.hpp"
#include "hwpc/adreno/names.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/walk.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno {

namespace detail {
inline std::string reg_text(std::uint32_t r) {
  std::string n = register_label(r);
  return n.empty() ? to_hex(r) : n;
}
}  // namespace detail

// "" when the packet has no decoded fields (or too few payload dwords for them).
inline std::string describe_fields(const packet& p) {
  if (p.hdr.type == packet_type::type4) {
    std::string s = detail::reg_text(p.hdr.id);
    if (p.hdr.count > 1) s += " .. " + detail::reg_text(p.hdr.id + p.hdr.count - 1);
    return s;
  }
  const std::uint32_t n = p.hdr.count;
  switch (p.hdr.id) {
    case op::cp_event_write: {
      if (n < 1) return {};
      const std::uint32_t d0 = p.dword(0);
      const std::string_view name = event_name(event::type_of(d0));
      std::string s = "event=" + (name.empty() ? to_hex(event::type_of(d0)) : std::string(name));
      if (d0 & event::timestamp_bit) s += " TIMESTAMP";
      if (d0 & event::irq_bit) s += " IRQ";
      if (n >= 3) s += " addr=" + to_hex(p.qword(1));
      if (n >= 4) s += " value=" + to_hex(p.dword(3));
      return s;
    }
    case op::cp_mem_write:
      if (n < 2) return {};
      return "addr=" + to_hex(p.qword(0)) + " dwords=" + std::to_string(n - 2);
    case op::cp_mem_to_mem: {
      if (n != mem_to_mem_count) return {};
      return detail::describe_m2m(
          mem_to_mem{p.dword(0), p.qword(1), p.qword(3), p.qword(5), p.qword(7)});
    }
    case op::cp_wait_reg_mem: {
      if (n < 6) return {};
      static constexpr const char* fn[] = {"always", "<", "<=", "==", "!=", ">=", ">", "?"};
      static constexpr const char* poll[] = {"register", "memory", "scratch", "?"};
      const std::uint32_t d0 = p.dword(0);
      return std::string("function=") + fn[d0 & 7] + ((d0 & 8) ? " signed" : "") +
             " poll=" + poll[(d0 >> 4) & 3] + ((d0 & 0x100) ? " write-memory" : "") +
             " addr=" + to_hex(p.qword(1)) + " ref=" + to_hex(p.dword(3)) +
             " mask=" + to_hex(p.dword(4)) + " delay=" + std::to_string(p.dword(5));
    }
    case op::cp_reg_to_mem: {
      if (n < 3) return {};
      const std::uint32_t d0 = p.dword(0);
      const std::uint32_t cnt = (d0 >> 18) & 0xfff;
      std::string s = "reg=" + detail::reg_text(d0 & 0x3ffff) + " cnt=" + std::to_string(cnt) +
                      " dst=" + to_hex(p.qword(1));
      if (d0 & (1u << 30)) s += " 64B";
      if (d0 & (1u << 31)) s += " ACCUMULATE";
      return s;
    }
    case op::cp_indirect_buffer:
    case op::cp_indirect_buffer_pfd:
    case op::cp_indirect_buffer_chain: {
      if (n < 3) return {};
      return "ib=" + to_hex(p.qword(0)) + " dwords=" + std::to_string(p.dword(2) & ib_size_mask);
    }
    default:
      return {};
  }
}

}  // namespace hwpc::adreno
