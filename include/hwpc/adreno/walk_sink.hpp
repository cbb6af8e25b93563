// What a walk hands out: each packet with where it was found, the sink that
// receives packets, issues and notes, the walk's options and its counts
// (docs/adreno.md, "Walking a stream").
#pragma once

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

// Receives what a walk finds. `note` is information (a conditional IB not
// followed, an IB in input without an address space); `issue` is something
// wrong with the input.
class walk_sink {
 public:
  virtual ~walk_sink() = default;
  virtual void on_packet(const walked_packet& p) = 0;
  virtual void on_issue(const error& e) = 0;
  virtual void on_note(const error& n) { (void)n; }
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
