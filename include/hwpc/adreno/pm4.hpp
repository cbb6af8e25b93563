// Adreno A5xx PM4 packet headers: type-7 (opcode packets) and type-4
// (register writes), with their odd-parity bits.
//
// Encodings (docs/adreno.md, FACTS "Qualcomm Adreno (A5xx)"):
//   type-7: 0x70000000 | count | p(count) << 15 | (opcode & 0x7f) << 16 | p(opcode) << 23
//   type-4: 0x40000000 | count | p(count) << 7  | reg << 8            | p(reg) << 27
// where p(x) is 1 when x has an even number of set bits, so that the field
// together with its parity bit always has an odd number of set bits.
// `count` is the number of payload dwords that follow the header.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "hwpc/adreno/names.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno {

// Opcodes of type-7 packets that hwpc decodes by field (names.hpp names all).
namespace op {
inline constexpr std::uint32_t cp_nop = 0x10;
inline constexpr std::uint32_t cp_wait_mem_writes = 0x12;
inline constexpr std::uint32_t cp_wait_for_idle = 0x26;
inline constexpr std::uint32_t cp_wait_reg_mem = 0x3c;
inline constexpr std::uint32_t cp_mem_write = 0x3d;
inline constexpr std::uint32_t cp_reg_to_mem = 0x3e;
inline constexpr std::uint32_t cp_indirect_buffer_pfd = 0x37;
inline constexpr std::uint32_t cp_cond_indirect_buffer_pfe = 0x3a;
inline constexpr std::uint32_t cp_indirect_buffer = 0x3f;  // CP_INDIRECT_BUFFER_PFE
inline constexpr std::uint32_t cp_indirect_buffer_chain = 0x57;
inline constexpr std::uint32_t cp_event_write = 0x46;
inline constexpr std::uint32_t cp_mem_to_mem = 0x73;
// A6XX/A7XX (FACTS-adreno6 section 2.3); 0x43 is CP_SET_DRAW_STATE from A5XX on.
inline constexpr std::uint32_t cp_thread_control = 0x17;  // A7XX
inline constexpr std::uint32_t cp_set_draw_state = 0x43;
inline constexpr std::uint32_t cp_start_bin = 0x50;
inline constexpr std::uint32_t cp_end_bin = 0x51;
inline constexpr std::uint32_t cp_set_marker = 0x65;
inline constexpr std::uint32_t cp_set_amble = 0x55;                // A6XX, A7XX
inline constexpr std::uint32_t cp_fixed_stride_draw_table = 0x7f;  // A7XX
inline constexpr std::uint32_t cp_reg_write = 0x6d;                // A6XX
inline constexpr std::uint32_t cp_reg_to_mem_offset_reg = 0x72;
inline constexpr std::uint32_t cp_reg_to_mem_offset_mem = 0x74;
// A5XX only (0x6c is CP_PREEMPT_DISABLE on A6XX, CP_SCOPE_CNTL on A7XX).
inline constexpr std::uint32_t cp_set_render_mode = 0x6c;
inline constexpr std::uint32_t cp_compute_checkpoint = 0x6e;
}  // namespace op

// Registers written by type-4 packets in the A5xx query sequences.
namespace reg {
inline constexpr std::uint32_t rb_sample_count_control = 0xe1d1;
inline constexpr std::uint32_t rb_sample_count_addr_lo = 0xe267;
inline constexpr std::uint32_t rb_sample_count_addr_hi = 0xe268;
}  // namespace reg

// Field limits of the two header types.
inline constexpr std::uint32_t pkt7_max_count = 0x7fff;  // bits 14..0
inline constexpr std::uint32_t pkt7_max_opcode = 0x7f;   // bits 22..16
inline constexpr std::uint32_t pkt4_max_count = 0x7f;    // bits 6..0
inline constexpr std::uint32_t pkt4_max_reg = 0x7ffff;   // bits 26..8

// 1 when x has an even number of set bits (the bit that makes the total odd).
constexpr std::uint32_t odd_parity_bit(std::uint32_t x) noexcept {
  return (std::popcount(x) & 1) == 0 ? 1u : 0u;
}

// Encoders. Fields wider than the header allows are masked to their width;
// callers that need to know should check against the limits above.
constexpr std::uint32_t pkt7_header(std::uint32_t opcode, std::uint32_t count) noexcept {
  opcode &= pkt7_max_opcode;
  count &= pkt7_max_count;
  return 0x70000000u | count | odd_parity_bit(count) << 15 | opcode << 16 |
         odd_parity_bit(opcode) << 23;
}

constexpr std::uint32_t pkt4_header(std::uint32_t reg, std::uint32_t count) noexcept {
  reg &= pkt4_max_reg;
  count &= pkt4_max_count;
  return 0x40000000u | count | odd_parity_bit(count) << 7 | reg << 8 | odd_parity_bit(reg) << 27;
}

// FACTS check values.
static_assert(pkt7_header(op::cp_event_write, 4) == 0x70460004u);
static_assert(pkt7_header(op::cp_wait_reg_mem, 6) == 0x70bc8006u);

enum class packet_type : std::uint8_t { type4, type7 };

enum class header_status : std::uint8_t {
  ok,
  unknown_type,       // bits 31..28 are neither 4 nor 7
  bad_count_parity,   // count parity bit does not make the count field odd
  bad_id_parity,      // opcode (type-7) or register (type-4) parity bit wrong
  reserved_bits_set,  // type-7 bits 27..24 are not zero
};

constexpr std::string_view to_string(header_status s) noexcept {
  switch (s) {
    case header_status::ok:
      return "ok";
    case header_status::unknown_type:
      return "unknown packet type";
    case header_status::bad_count_parity:
      return "bad count parity";
    case header_status::bad_id_parity:
      return "bad opcode/register parity";
    case header_status::reserved_bits_set:
      return "reserved bits 27..24 set in type-7 header";
  }
  return "?";
}

struct header {
  packet_type type = packet_type::type7;
  std::uint32_t id = 0;     // opcode (type-7) or first register (type-4)
  std::uint32_t count = 0;  // payload dwords after the header
  friend constexpr bool operator==(const header&, const header&) = default;
};

struct decoded_header {
  header_status status = header_status::ok;
  header hdr{};
};

// Decodes and validates one header dword. Checks are made in the order
// type, reserved bits, count parity, id parity; the first failure is reported.
constexpr decoded_header decode_header(std::uint32_t dw) noexcept {
  decoded_header d;
  const std::uint32_t type = dw >> 28;
  if (type == 7) {
    d.hdr.type = packet_type::type7;
    d.hdr.count = dw & pkt7_max_count;
    d.hdr.id = (dw >> 16) & pkt7_max_opcode;
    if (((dw >> 24) & 0xf) != 0) {
      d.status = header_status::reserved_bits_set;
    } else if (((dw >> 15) & 1) != odd_parity_bit(d.hdr.count)) {
      d.status = header_status::bad_count_parity;
    } else if (((dw >> 23) & 1) != odd_parity_bit(d.hdr.id)) {
      d.status = header_status::bad_id_parity;
    }
  } else if (type == 4) {
    d.hdr.type = packet_type::type4;
    d.hdr.count = dw & pkt4_max_count;
    d.hdr.id = (dw >> 8) & pkt4_max_reg;
    if (((dw >> 7) & 1) != odd_parity_bit(d.hdr.count)) {
      d.status = header_status::bad_count_parity;
    } else if (((dw >> 27) & 1) != odd_parity_bit(d.hdr.id)) {
      d.status = header_status::bad_id_parity;
    }
  } else {
    d.status = header_status::unknown_type;
  }
  return d;
}

static_assert(decode_header(0x70460004u).status == header_status::ok);
static_assert(decode_header(0x70bc8006u).hdr == header{packet_type::type7, 0x3c, 6});
static_assert(decode_header(0x70bc0006u).status == header_status::bad_count_parity);

namespace detail {
// 1 when `x` has an odd number of bits set. __builtin_parity compiles to the
// parity flag of a few xors where std::popcount, without -mpopcnt, is a
// longer sequence.
constexpr std::uint32_t odd_bits(std::uint32_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return static_cast<std::uint32_t>(__builtin_parity(x));
#else
  return static_cast<std::uint32_t>(std::popcount(x) & 1);
#endif
}
}  // namespace detail

// What decode_header() says of `dw`, as a yes or no: whether it is a
// well-formed header, its fields in `h` when it is. The walker's plain loop
// asks this of every packet; there the field-by-field checks and their
// status were about a third of the walk (docs/performance.md). A parity bit
// and the field it covers are checked as one: the bit makes the field odd,
// so the bits of both together are odd.
constexpr bool header_ok(std::uint32_t dw, header& h) noexcept {
  const std::uint32_t type = dw >> 28;
  if (type == 7) {
    h.type = packet_type::type7;
    h.count = dw & pkt7_max_count;
    h.id = (dw >> 16) & pkt7_max_opcode;
    // Reserved bits 27..24 zero; bits 23..16 (parity, opcode) and 15..0
    // (parity, count) odd.
    return ((dw & 0x0f000000u) == 0) &
           ((detail::odd_bits(dw & 0x00ff0000u) & detail::odd_bits(dw & 0xffffu)) != 0);
  }
  if (type == 4) {
    h.type = packet_type::type4;
    h.count = dw & pkt4_max_count;
    h.id = (dw >> 8) & pkt4_max_reg;
    // Bits 27..8 (parity, register) and 7..0 (parity, count) odd.
    return (detail::odd_bits(dw & 0x0fffff00u) & detail::odd_bits(dw & 0xffu)) != 0;
  }
  return false;
}

constexpr std::uint32_t encode(const header& h) noexcept {
  return h.type == packet_type::type7 ? pkt7_header(h.id, h.count) : pkt4_header(h.id, h.count);
}

// As decode_header, but as a result whose error names `offset` (the byte
// offset of the header in its buffer).
inline result<header> parse_header(std::uint32_t dw, std::size_t offset) {
  const decoded_header d = decode_header(dw);
  if (d.status == header_status::ok) return d.hdr;
  std::string msg = std::string(to_string(d.status)) + " in PM4 header " + to_hex(dw, 8);
  return make_error(
      d.status == header_status::unknown_type ? errc::unknown_format : errc::inconsistent, offset,
      std::move(msg));
}

// The A5xx name of a type-7 opcode (names.hpp), or empty.
constexpr std::string_view opcode_name(std::uint32_t opcode) noexcept {
  return a5xx_opcode_name(opcode);
}

constexpr std::string_view register_name(std::uint32_t r) noexcept {
  switch (r) {
    case reg::rb_sample_count_control:
      return "RB_SAMPLE_COUNT_CONTROL";
    case reg::rb_sample_count_addr_lo:
      return "RB_SAMPLE_COUNT_ADDR_LO";
    case reg::rb_sample_count_addr_hi:
      return "RB_SAMPLE_COUNT_ADDR_HI";
    default:
      return {};
  }
}

}  // namespace hwpc::adreno
