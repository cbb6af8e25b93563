// A small sequential interpreter for the PM4 packets of the A5xx query
// sequences, over a memory image of GPU addresses.
//
// It models only what the queries need (docs/adreno.md, "Interpreter"):
//   type-4 writes         -> a register file
//   CP_MEM_WRITE          -> 32-bit stores of payload dwords 2.. at the address in dwords 0..1
//   CP_EVENT_WRITE, 1 dw  -> ZPASS_DONE with RB_SAMPLE_COUNT_CONTROL.COPY stores the
//                            64-bit sample counter at RB_SAMPLE_COUNT_ADDR_LO/HI
//   CP_EVENT_WRITE, bit 30 of dword 0, >= 3 dw -> stores the 64-bit always-on counter at
//                            the address in dwords 1..2
//   CP_MEM_TO_MEM         -> dst = ±srcA ± srcB ± srcC (32- or 64-bit)
//   waits                 -> nothing: every store has landed when the next packet runs
// Other packets are counted and skipped. An access outside the image is an
// error at the packet's byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno {

class memory_image {
 public:
  // Maps `size` zeroed bytes at GPU address `base`. Regions must not overlap.
  void map(std::uint64_t base, std::size_t size) {
    regions_.push_back({base, std::vector<std::byte>(size)});
  }

  // The bytes backing [addr, addr + size), or nullptr when not wholly mapped.
  std::byte* at(std::uint64_t addr, std::size_t size) noexcept {
    for (auto& r : regions_) {
      if (addr >= r.base && addr - r.base <= r.bytes.size() &&
          size <= r.bytes.size() - (addr - r.base)) {
        return r.bytes.data() + (addr - r.base);
      }
    }
    return nullptr;
  }
  const std::byte* at(std::uint64_t addr, std::size_t size) const noexcept {
    return const_cast<memory_image*>(this)->at(addr, size);
  }

  std::optional<std::uint32_t> read32(std::uint64_t addr) const noexcept {
    if (const std::byte* p = at(addr, 4)) return load_le32(p);
    return std::nullopt;
  }
  std::optional<std::uint64_t> read64(std::uint64_t addr) const noexcept {
    if (const std::byte* p = at(addr, 8)) return load_le64(p);
    return std::nullopt;
  }
  bool write32(std::uint64_t addr, std::uint32_t v) noexcept {
    std::byte* p = at(addr, 4);
    if (p) store_le32(p, v);
    return p != nullptr;
  }
  bool write64(std::uint64_t addr, std::uint64_t v) noexcept {
    std::byte* p = at(addr, 8);
    if (p) store_le64(p, v);
    return p != nullptr;
  }

 private:
  struct region {
    std::uint64_t base;
    std::vector<std::byte> bytes;
  };
  std::vector<region> regions_;
};

struct machine {
  memory_image memory;
  std::map<std::uint32_t, std::uint32_t> registers;
  std::uint64_t sample_count = 0;  // what ZPASS_DONE copies out
  std::uint64_t always_on = 0;     // what a timestamp CP_EVENT_WRITE stores
  std::size_t skipped_packets = 0;

  std::uint32_t reg(std::uint32_t r) const {
    auto it = registers.find(r);
    return it == registers.end() ? 0 : it->second;
  }
};

namespace detail {
inline error unmapped(const packet& p, std::uint64_t addr, std::size_t size) {
  return make_error(errc::out_of_range, p.offset,
                    std::to_string(size) + "-byte access at GPU address " + to_hex(addr, 16) +
                        " outside the memory image");
}
}  // namespace detail

// Executes CP_MEM_TO_MEM against memory.
inline result<void> execute_mem_to_mem(memory_image& mem, const packet& p) {
  auto m = decode_mem_to_mem(p);
  if (!m) return m.error_value();
  const std::size_t w = m->is_double() ? 8 : 4;
  std::uint64_t v[3];
  const std::uint64_t src[3] = {m->src_a, m->src_b, m->src_c};
  for (int i = 0; i < 3; ++i) {
    if (w == 8) {
      auto r = mem.read64(src[i]);
      if (!r) return detail::unmapped(p, src[i], w);
      v[i] = *r;
    } else {
      auto r = mem.read32(src[i]);
      if (!r) return detail::unmapped(p, src[i], w);
      v[i] = *r;
    }
  }
  const std::uint64_t out = mem_to_mem_combine(m->flags, v[0], v[1], v[2]);
  const bool ok =
      w == 8 ? mem.write64(m->dst, out) : mem.write32(m->dst, static_cast<std::uint32_t>(out));
  if (!ok) return detail::unmapped(p, m->dst, w);
  return {};
}

inline result<void> execute(machine& mc, const packet& p) {
  if (p.hdr.type == packet_type::type4) {
    for (std::uint32_t i = 0; i < p.hdr.count; ++i) mc.registers[p.hdr.id + i] = p.dword(i);
    return {};
  }
  switch (p.hdr.id) {
    case op::cp_mem_to_mem:
      return execute_mem_to_mem(mc.memory, p);
    case op::cp_mem_write: {
      if (p.hdr.count < 2) {
        return make_error(errc::inconsistent, p.offset, "CP_MEM_WRITE needs an address");
      }
      const std::uint64_t addr = p.qword(0);
      for (std::uint32_t i = 2; i < p.hdr.count; ++i) {
        if (!mc.memory.write32(addr + 4 * (i - 2), p.dword(i))) {
          return detail::unmapped(p, addr + 4 * (i - 2), 4);
        }
      }
      return {};
    }
    case op::cp_event_write: {
      if (p.hdr.count == 0) {
        return make_error(errc::inconsistent, p.offset, "CP_EVENT_WRITE without an event");
      }
      const std::uint32_t dw0 = p.dword(0);
      if ((dw0 & event::timestamp_bit) && p.hdr.count >= 3) {
        if (!mc.memory.write64(p.qword(1), mc.always_on)) {
          return detail::unmapped(p, p.qword(1), 8);
        }
      } else if (event::type_of(dw0) == event::zpass_done &&
                 (mc.reg(reg::rb_sample_count_control) & rb_sample_count_control_copy)) {
        const std::uint64_t addr = std::uint64_t{mc.reg(reg::rb_sample_count_addr_lo)} |
                                   std::uint64_t{mc.reg(reg::rb_sample_count_addr_hi)} << 32;
        if (!mc.memory.write64(addr, mc.sample_count)) return detail::unmapped(p, addr, 8);
      }
      return {};
    }
    case op::cp_wait_mem_writes:
    case op::cp_wait_for_idle:
    case op::cp_wait_reg_mem:
      return {};
    default:
      ++mc.skipped_packets;
      return {};
  }
}

// Walks a stream and executes every packet; stops at the first error.
inline result<void> execute(machine& mc, byte_span stream) {
  packet_cursor c(stream);
  while (!c.done()) {
    auto p = c.next();
    if (!p) return p.error_value();
    auto r = execute(mc, *p);
    if (!r) return r;
  }
  return {};
}

}  // namespace hwpc::adreno
