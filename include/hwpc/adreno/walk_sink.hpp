// What a walk hands out: each packet with where it was found, the sink that
// receives packets, issues and notes, the walk's options and its counts
// (docs/adreno.md, "Walking a stream").
#pragma once

#include <array>
#include <cstdint>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno {

struct walk_options {
  unsigned max_depth = 64;  // frames on the stack, the top level included
  // Dwords walked in total, over all IBs; 0 = 2^26 plus 16 per dword of input,
  // so any input is walked whole at least 16 times over, and work stays linear.
  std::uint64_t max_dwords = 0;
  unsigned max_chain = 4096;  // CP_INDIRECT_BUFFER_CHAIN hops per level
};

struct walked_packet {
  packet pkt;                  // pkt.offset: byte offset of the header in the input
  std::uint64_t gpu_addr = 0;  // GPU address of the header (0-based for flat input)
  unsigned depth = 0;          // 0 = the stream walked, 1 = an IB it calls, ...
  int group = -1;              // the draw-state group whose buffer holds it (A6XX/A7XX), else -1
  std::uint8_t pass = 0;       // the last CP_SET_MARKER render mode (A6XX/A7XX; pass_name)
};

// The packets a sink wants handed on (docs/performance.md, "Adreno: packets
// that matter"): most packets of a stream mean nothing to a recogniser, and
// the walker then spends no call on them. A type-7 packet is wanted when its
// opcode's bit is set; a type-4 write when it writes a register of
// [cover_first, cover_last], or when its first register lies in
// [start_first, start_last].
struct packet_interest {
  std::array<std::uint64_t, 2> type7{};
  std::uint32_t cover_first = 1, cover_last = 0;  // empty
  std::uint32_t start_first = 1, start_last = 0;  // empty
  bool all_type4 = false;

  constexpr void want_op(std::uint32_t op) noexcept { type7[(op >> 6) & 1] |= 1ull << (op & 63); }
  constexpr bool wants(const header& h) const noexcept {
    if (h.type == packet_type::type7) return ((type7[(h.id >> 6) & 1] >> (h.id & 63)) & 1) != 0;
    if (all_type4) return true;
    const std::uint64_t last = std::uint64_t{h.id} + h.count;  // one past
    return (h.id <= cover_last && last > cover_first) ||
           (h.id >= start_first && h.id <= start_last);
  }
};

// Receives what a walk finds. `note` is information (a conditional IB not
// followed, an IB in input without an address space); `issue` is something
// wrong with the input.
class walk_sink {
 public:
  virtual ~walk_sink() = default;
  virtual void on_packet(const walked_packet& p) = 0;
  virtual void on_issue(const error& e) = 0;
  virtual void on_note(const error& n) { (void)n; }

  // The packets handed to on_packet(): every one while null; else those the
  // interest names, the walker adding one to skipped() for each other packet.
  // A sink may change it from on_packet() (it applies from the next packet).
  void set_interest(const packet_interest* i) noexcept { interest_ = i; }
  const packet_interest* interest() const noexcept { return interest_; }
  // Packets not handed on since the sink last took the count.
  std::uint64_t take_skipped() noexcept {
    const std::uint64_t n = skipped_;
    skipped_ = 0;
    return n;
  }
  void add_skipped(std::uint64_t n = 1) noexcept { skipped_ += n; }

 private:
  const packet_interest* interest_ = nullptr;
  std::uint64_t skipped_ = 0;
};

struct walk_stats {
  std::uint64_t packets = 0;
  std::uint64_t padding_dwords = 0;  // zero dwords skipped
  std::uint64_t skipped_bytes = 0;   // bytes skipped to resynchronise
  std::uint64_t issues = 0;
  std::uint64_t ibs_followed = 0;
  std::uint64_t dwords = 0;  // dwords walked (budget)
  bool budget_exhausted = false;
};

}  // namespace hwpc::adreno
