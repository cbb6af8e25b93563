// Copies of the packets a recogniser still looks back at. The recogniser
// (recognise.hpp) reads a packet's payload up to window_size packets after
// the walker has moved on; a caller whose input is read piece by piece (hex
// text, a buffer refilled) hands it copies instead, kept in a ring one longer
// than the window, so each piece can be freed as soon as it is walked.
//
//   hwpc::adreno::packet_copies copies;
//   rec.add(copies.keep(p));   // p's payload may go away now
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/recognise.hpp"

namespace hwpc::adreno {

class packet_copies {
 public:
  // `p` with its payload in a slot of the ring; valid until window_size + 1
  // more packets have been kept.
  packet keep(const packet& p) {
    std::vector<std::byte>& slot = ring_[next_slot_++ % ring_.size()];
    slot.assign(p.payload.begin(), p.payload.end());
    packet q = p;
    q.payload = slot;
    return q;
  }

 private:
  std::array<std::vector<std::byte>, recogniser::window_size + 1> ring_;
  std::size_t next_slot_ = 0;
};

}  // namespace hwpc::adreno
