// The A5xx query packet sequences of ../shared/seeds/adreno-a5xx-queries.txt,
// transcribed dword by dword. Dwords the seed prints raw are copied as printed;
// headers the seed gives only as "opcode (count dwords)" or "write REG" are
// written out from the FACTS encodings and checked against the encoder in the
// tests. COPY (bit 1) and ZPASS_DONE (0x15) are the values docs/adreno.md gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "hwpc/core/bytes.hpp"

namespace adreno_seed {

// Occlusion query start (seed "Occlusion Query / Start").
inline const std::vector<std::uint32_t> occlusion_begin = {
    0x48e1d101, 0x00000002,              // write RB_SAMPLE_COUNT_CONTROL { COPY }
    0x40e26702, 0xc0456000, 0x00000000,  // write RB_SAMPLE_COUNT_ADDR_LO/HI
    0x70460001, 0x00000015,              // CP_EVENT_WRITE (2 dwords) { ZPASS_DONE }
};

// Occlusion query stop (seed "Occlusion Query / Stop").
inline const std::vector<std::uint32_t> occlusion_end = {
    0x703d0004, 0xc0456010, 0x00000000, 0xffffffff, 0xffffffff,  // CP_MEM_WRITE (5 dwords)
    0x70928000,                                                  // CP_WAIT_MEM_WRITES (1)
    0x48e1d101, 0x00000002,                                      // RB_SAMPLE_COUNT_CONTROL
    0x40e26702, 0xc0456010, 0x00000000,                          // RB_SAMPLE_COUNT_ADDR_LO/HI
    0x70460001, 0x00000015,                                      // CP_EVENT_WRITE { ZPASS_DONE }
    // CP_WAIT_REG_MEM (7 dwords), printed raw in the seed:
    0x70bc8006, 0x00000014, 0xc0456014, 0x00000000, 0xffffffff, 0xffffffff, 0x00000010,
    // CP_MEM_TO_MEM (10 dwords) { NEG_C | DOUBLE }:
    0x70738009, 0x20000004, 0xc0456008, 0x00000000,  // dst
    0xc0456008, 0x00000000,                          // srcA (result)
    0xc0456010, 0x00000000,                          // srcB (stop)
    0xc0456000, 0x00000000,                          // srcC (start)
};

// Timestamp query start (seed "Timestamp Query / Start").
inline const std::vector<std::uint32_t> timestamp_begin = {
    0x70460004, 0x40000016, 0xc0456000, 0x00000000, 0x0000dead,  // printed raw in the seed
    0x70268000,                                                  // CP_WAIT_FOR_IDLE (1)
    0x70738009, 0xe0000004,  // CP_MEM_TO_MEM { NEG_C | DOUBLE | 0xc0000000 }
    0xc0456000, 0x00000000,  // dst
    0xc0456000, 0x00000000,  // srcA
    0xc021c008, 0x00000000,  // srcB
    0xc021c000, 0x00000000,  // srcC
};

// Timestamp query stop (seed "Timestamp Query / Stop").
inline const std::vector<std::uint32_t> timestamp_end = {
    0x70460004, 0x40000016, 0xc0456008, 0x00000000, 0x0000dead,  // printed raw in the seed
    0x70268000,                                                  // CP_WAIT_FOR_IDLE (1)
    0x70738009, 0xe0000004,  // CP_MEM_TO_MEM { NEG_C | DOUBLE | 0xc0000000 }
    0xc0456008, 0x00000000,  // dst
    0xc0456008, 0x00000000,  // srcA
    0xc021c008, 0x00000000,  // srcB
    0xc021c000, 0x00000000,  // srcC
};

inline std::vector<std::byte> bytes_of(const std::vector<std::uint32_t>& dws) {
  std::vector<std::byte> out(dws.size() * 4);
  for (std::size_t i = 0; i < dws.size(); ++i) hwpc::store_le32(out.data() + 4 * i, dws[i]);
  return out;
}

inline std::vector<std::uint32_t> concat(std::initializer_list<std::vector<std::uint32_t>> parts) {
  std::vector<std::uint32_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace adreno_seed
