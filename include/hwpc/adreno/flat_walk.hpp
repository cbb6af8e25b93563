// Where a walk of input produced piece by piece (hex text) may stop and go on
// (docs/adreno.md, "Hex text").
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwpc/adreno/pm4.hpp"
#include "hwpc/core/bytes.hpp"

namespace hwpc::adreno {

// Where a flat walk (no address space) of `data` can stop and go on later
// with the rest appended and reach the same packets: the end of the last
// whole unit (a zero dword, a bad header, a packet whose payload is there)
// before a packet whose payload runs past the end. Lets callers walk input
// they produce piecewise (hex text) in bounded memory; a bad run that spans
// two pieces is reported as two issues.
inline std::size_t flat_walk_prefix(byte_span data) noexcept {
  std::size_t pos = 0;
  while (data.size() - pos >= 4) {
    const std::uint32_t dw = load_le32(data.data() + pos);
    const decoded_header d = decode_header(dw);
    if (dw == 0 || d.status != header_status::ok) {
      pos += 4;
      continue;
    }
    const std::size_t need = std::size_t{d.hdr.count} * 4;
    if (need > data.size() - pos - 4) break;
    pos += 4 + need;
  }
  return pos;
}

}  // namespace hwpc::adreno
