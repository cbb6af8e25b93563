// The records IGT's recorders write around the stream (FACTS.md "IGT
// recording file", FACTS-xe section 7), packed from plain fields: VERSION,
// DEVICE_INFO, DEVICE_TOPOLOGY and TIMESTAMP_CORRELATION. The emulator's
// recordings (outputs.hpp, xe_outputs.hpp) and `hwpc record` (live/) both
// write through these, so there is one writer of the format. Also the
// drm_i915_query_topology_info block of a part (sku.hpp), which the
// emulator writes and the simulated kernel answers QUERY with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/emu/sku.hpp"

namespace hwpc::emu::records {

inline constexpr std::size_t header_size = 8;
inline constexpr std::size_t device_info_size = 336;
inline constexpr std::uint32_t version = 1;

inline void put_u16(std::vector<std::byte>& out, std::uint16_t v) {
  const std::size_t at = out.size();
  out.resize(at + 2);
  store_le16(out.data() + at, v);
}
inline void put_u32(std::vector<std::byte>& out, std::uint32_t v) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  store_le32(out.data() + at, v);
}
inline void put_u64(std::vector<std::byte>& out, std::uint64_t v) {
  const std::size_t at = out.size();
  out.resize(at + 8);
  store_le64(out.data() + at, v);
}
// `struct { u32 type; u16 pad; u16 size; }`, size including the header.
inline void put_header(std::vector<std::byte>& out, std::uint32_t type, std::size_t size) {
  put_u32(out, type);
  put_u16(out, 0);
  put_u16(out, static_cast<std::uint16_t>(size));
}
// `s` in a NUL-terminated field of `field` bytes (truncated to field - 1).
inline void put_text(std::vector<std::byte>& out, std::string_view s, std::size_t field) {
  for (std::size_t i = 0; i < field; ++i) {
    out.push_back(i < s.size() && i + 1 < field ? static_cast<std::byte>(s[i]) : std::byte{0});
  }
}

// VERSION {u32 version; u32 pad}.
inline void put_version(std::vector<std::byte>& out, std::uint32_t type) {
  put_header(out, type, header_size + 8);
  put_u32(out, version);
  put_u32(out, 0);
}

// DEVICE_INFO's fields (frequencies in Hz; oa_format in the family's numbering).
struct device_fields {
  std::uint64_t timestamp_hz = 0;
  std::uint32_t device_id = 0;
  std::uint32_t revision = 0;
  std::uint32_t gt_min_hz = 0;
  std::uint32_t gt_max_hz = 0;
  std::uint32_t engine_class = 0;
  std::uint32_t engine_instance = 0;
  std::uint32_t oa_format = 0;
  std::string metric_set_name;
  std::string metric_set_uuid;
};

inline result<void> put_device_info(std::vector<std::byte>& out, std::uint32_t type,
                                    const device_fields& d) {
  if (d.metric_set_name.size() >= 256 || d.metric_set_uuid.size() >= 40) {
    return make_error(errc::out_of_range, 0,
                      "metric set name (255 bytes) or uuid (39 bytes) too long for DEVICE_INFO");
  }
  put_header(out, type, header_size + device_info_size);
  const std::size_t info_at = out.size();
  put_u64(out, d.timestamp_hz);
  put_u32(out, d.device_id);
  put_u32(out, d.revision);
  put_u32(out, d.gt_min_hz);
  put_u32(out, d.gt_max_hz);
  put_u32(out, d.engine_class);
  put_u32(out, d.engine_instance);
  put_u32(out, d.oa_format);
  put_text(out, d.metric_set_name, 256);
  put_text(out, d.metric_set_uuid, 40);
  put_u32(out, 0);  // pad
  if (out.size() - info_at != device_info_size) {
    return make_error(errc::inconsistent, info_at, "device info is not 336 bytes");
  }
  return {};
}

// DEVICE_TOPOLOGY: the kernel's drm_i915_query_topology_info, padded to 8 bytes.
inline void put_topology(std::vector<std::byte>& out, std::uint32_t type,
                         std::span<const std::byte> info) {
  const std::size_t padded = (info.size() + 7) / 8 * 8;
  put_header(out, type, header_size + padded);
  out.insert(out.end(), info.begin(), info.end());
  out.resize(out.size() + (padded - info.size()), std::byte{0});
}

// TIMESTAMP_CORRELATION {u64 cpu ns; u64 gpu timestamp}.
inline void put_correlation(std::vector<std::byte>& out, std::uint32_t type, std::uint64_t cpu_ns,
                            std::uint64_t gpu_ts) {
  put_header(out, type, header_size + 16);
  put_u64(out, cpu_ns);
  put_u64(out, gpu_ts);
}

// drm_i915_query_topology_info of a part (fused-off units cleared), unpadded:
// 8 x u16 (flags, max_slices, max_subslices, max_eus_per_subslice,
// subslice_offset, subslice_stride, eu_offset, eu_stride), then the masks.
inline std::vector<std::byte> topology_info(const sku& t) {
  const std::uint16_t ss_stride = static_cast<std::uint16_t>((t.max_subslices + 7) / 8);
  const std::uint16_t eu_stride = static_cast<std::uint16_t>((t.max_eus + 7) / 8);
  const std::uint16_t ss_offset = static_cast<std::uint16_t>((t.max_slices + 7) / 8);
  const std::uint16_t eu_offset = static_cast<std::uint16_t>(ss_offset + t.max_slices * ss_stride);
  const std::size_t data = eu_offset + std::size_t{t.max_slices} * t.max_subslices * eu_stride;
  std::vector<std::byte> out;
  for (std::uint16_t v : {std::uint16_t{0}, t.max_slices, t.max_subslices, t.max_eus, ss_offset,
                          ss_stride, eu_offset, eu_stride}) {
    put_u16(out, v);
  }
  std::vector<std::byte> mask(data, std::byte{0});
  for (unsigned s = 0; s < t.max_slices; ++s) {
    if (t.slice_present(s)) mask[s / 8] |= std::byte{1} << (s % 8);
    for (unsigned ss = 0; ss < t.max_subslices; ++ss) {
      if (!t.subslice_present(s, ss)) continue;
      mask[ss_offset + s * ss_stride + ss / 8] |= std::byte{1} << (ss % 8);
      const std::uint16_t eus = t.eu_mask(s, ss);
      for (unsigned e = 0; e < t.max_eus; ++e) {
        if (((eus >> e) & 1u) == 0) continue;
        mask[eu_offset + (s * t.max_subslices + ss) * eu_stride + e / 8] |= std::byte{1} << (e % 8);
      }
    }
  }
  out.insert(out.end(), mask.begin(), mask.end());
  return out;
}

}  // namespace hwpc::emu::records
