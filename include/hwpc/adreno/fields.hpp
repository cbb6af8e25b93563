// Payload fields of the packets hwpc decodes by field, as one line of text
// (docs/adreno.md, "Fields"). Layouts from FACTS-adreno sections 2-4.
#pragma once

#include <cstdint>
#include <string>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/explain.hpp"
#include "hwpc/adreno/generation_names.hpp"
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
inline std::string reg_text(generation g, std::uint32_t r) {
  std::string n = register_label(g, r);
  return n.empty() ? to_hex(r) : n + " (" + to_hex(r) + ")";
}

inline std::string event_text(generation g, std::uint32_t e) {
  const std::string_view n = event_name(g, e);
  return n.empty() ? to_hex(e) : std::string(n) + " (" + std::to_string(e) + ")";
}

// CP_REG_TO_MEM and its offset variants share dword 0 and the destination.
inline std::string reg_to_mem_text(generation g, const packet& p) {
  const std::uint32_t d0 = p.dword(0);
  std::string s = "reg=" + reg_text(g, d0 & 0x3ffff) +
                  " cnt=" + std::to_string((d0 >> 18) & 0xfff) + " dst=" + to_hex(p.qword(1));
  if (d0 & (1u << 30)) s += " 64B";
  if (d0 & (1u << 31)) s += " ACCUMULATE";
  return s;
}

// CP_EVENT_WRITE7 dword 0 (FACTS-adreno6 section 2.3).
inline std::string event_write7_text(const packet& p) {
  const std::uint32_t d0 = p.dword(0);
  std::string s = "event=" + event_text(generation::a7xx, d0 & 0xff);
  static constexpr std::pair<unsigned, const char*> flags[] = {
      {12, "WRITE_SAMPLE_COUNT"},
      {13, "SAMPLE_COUNT_END_OFFSET"},
      {14, "WRITE_ACCUM_SAMPLE_COUNT_DIFF"},
      {16, "INC_BV_COUNT"},
      {17, "INC_BR_COUNT"},
      {18, "CLEAR_RENDER_RESOURCE"},
      {19, "CLEAR_LRZ_RESOURCE"},
      {27, "WRITE_ENABLED"},
      {31, "IRQ"}};
  for (const auto& [bit, name] : flags) {
    if (d0 & (1u << bit)) s += std::string(" ") + name;
  }
  static constexpr const char* src[] = {
      "payload32", "payload64", "timestamp-sum", "always-on", "register", "5", "6", "7"};
  s += std::string(" src=") + src[(d0 >> 20) & 7];
  const bool onchip = (d0 & (1u << 24)) != 0;
  s += onchip ? " dst=on-chip" : " dst=memory";
  if (p.hdr.count >= 3) s += " addr=" + (onchip ? to_hex(p.dword(1)) : to_hex(p.qword(1)));
  if (p.hdr.count >= 4) s += " payload0=" + to_hex(p.dword(3));
  if (p.hdr.count >= 5) s += " payload1=" + to_hex(p.dword(4));
  return s;
}

// CP_SET_DRAW_STATE: one "[group N count=C flags addr]" per 3-dword record.
inline std::string draw_state_text(const packet& p) {
  std::string s;
  for (std::uint32_t i = 0; i + 3 <= p.hdr.count && i < 3 * 8; i += 3) {
    const std::uint32_t d0 = p.dword(i);
    s += (i ? " [group " : "[group ") + std::to_string((d0 >> 24) & 0x1f) +
         " count=" + std::to_string(d0 & 0xffff);
    static constexpr std::pair<unsigned, const char*> flags[] = {
        {16, "DIRTY"},      {17, "DISABLE"}, {18, "DISABLE_ALL_GROUPS"},
        {19, "LOAD_IMMED"}, {20, "BINNING"}, {21, "GMEM"},
        {22, "SYSMEM"}};
    for (const auto& [bit, name] : flags) {
      if (d0 & (1u << bit)) s += std::string(" ") + name;
    }
    s += " addr=" + to_hex(p.qword(i + 1)) + "]";
  }
  if (p.hdr.count > 3 * 8) s += " ...";
  return s;
}

// CP_SET_MARKER (A6XX/A7XX): render mode (walk.hpp's pass_name), or IFPC
// mode when bit 8 is set.
inline std::string marker_text(const packet& p) {
  const std::uint32_t d0 = p.dword(0);
  if (d0 & 0x100) return std::string("ifpc=") + ((d0 & 1) ? "disable" : "enable");
  const std::string_view mode = pass_name(static_cast<std::uint8_t>(d0 & 0xf));
  return "mode=" + (mode.empty() ? std::string("0") : std::string(mode)) +
         ((d0 & 0x10) ? " USES_GMEM" : "");
}
}  // namespace detail

// The fields of a packet as `g` lays them out: "" for none (an unknown
// generation has none: its numbers are all the listing gives).
inline std::string describe_fields(const packet& p, generation g);

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

inline std::string describe_fields(const packet& p, generation g) {
  if (g == generation::a5xx) return describe_fields(p);
  if (g == generation::unknown) return {};
  const std::uint32_t n = p.hdr.count;
  if (p.hdr.type == packet_type::type4) {
    std::string s = detail::reg_text(g, p.hdr.id);
    if (n > 1) s += " .. " + detail::reg_text(g, p.hdr.id + n - 1);
    return s;
  }
  const bool a7 = g == generation::a7xx;
  switch (p.hdr.id) {
    case op::cp_event_write: {
      if (n < 1) return {};
      if (a7) return detail::event_write7_text(p);
      const std::uint32_t d0 = p.dword(0);
      std::string s = "event=" + detail::event_text(g, d0 & 0xff);
      if (d0 & event::timestamp_bit) s += " TIMESTAMP";
      if (d0 & event::irq_bit) s += " IRQ";
      if (n >= 3) s += " addr=" + to_hex(p.qword(1));
      if (n >= 4) s += " value=" + to_hex(p.dword(3));
      return s;
    }
    case op::cp_reg_to_mem:
      return n < 3 ? std::string() : detail::reg_to_mem_text(g, p);
    case op::cp_reg_to_mem_offset_reg:
      return n < 4 ? std::string()
                   : detail::reg_to_mem_text(g, p) + " offset0=" + to_hex(p.dword(3) & 0x3ffff) +
                         ((p.dword(3) & (1u << 19)) ? " (scratch)" : "");
    case op::cp_reg_to_mem_offset_mem:
      return n < 5 ? std::string()
                   : detail::reg_to_mem_text(g, p) + " offset_addr=" + to_hex(p.qword(3));
    case op::cp_set_draw_state:
      return detail::draw_state_text(p);
    case op::cp_set_marker:
      return n < 1 ? std::string() : detail::marker_text(p);
    case op::cp_thread_control:  // A7XX
      if (!a7 || n < 1) return {};
      {
        static constexpr const char* th[] = {"none", "BR", "BV", "BR+BV"};
        const std::uint32_t d0 = p.dword(0);
        return std::string("thread=") + th[d0 & 3] +
               ((d0 >> 27) & 1 ? " CONCURRENT_BIN_DISABLE" : "") +
               ((d0 >> 31) ? " SYNC_THREADS" : "");
      }
    case op::cp_start_bin:
      if (n < 5) return {};
      return "bins=" + std::to_string(p.dword(0)) + " prefix=" + to_hex(p.qword(1)) +
             " prefix_dwords=" + std::to_string(p.dword(3)) +
             " body_dwords=" + std::to_string(p.dword(4));
    case op::cp_reg_write:  // A6XX only
      if (a7 || n < 3) return {};
      return "reg=" + detail::reg_text(g, p.dword(1) & 0xffff) + " value=" + to_hex(p.dword(2));
    case op::cp_cond_indirect_buffer_pfe:
      return {};  // 0x3a: not an IB after A5XX
    default:
      return describe_fields(p);  // layouts unchanged since A5XX; names below are generic
  }
}

}  // namespace hwpc::adreno
