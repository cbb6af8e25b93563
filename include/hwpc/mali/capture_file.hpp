// The hwpc Mali capture file: a 64-byte header that says what the kernel's
// samples do not (which GPU, which reader, L2 slices, core mask), followed by
// the samples as the reader delivered them. Defined here, documented in
// docs/mali.md ("Capture file"). Little-endian.
//
//   0   8  magic "HWPCMALI"
//   8   2  version (1)
//   10  2  reader: 1 vinstr, 2 kinstr_prfcnt
//   12  4  L2 slices
//   16  8  GPU_ID register (32- or 64-bit form; 0: not recorded, --gpu needed)
//   24  8  shader core mask
//   32 32  reserved, zero
//   64     payload: vinstr: records of vinstr_meta (32 bytes) + one sample;
//          kinstr_prfcnt: the mapped buffer, values offsets counted from byte 64
//
//   if (hwpc::mali::is_capture_file(bytes)) {
//     auto h = hwpc::mali::capture_header::parse(bytes);   // errors name the offset
//     h->payload(bytes);                                     // from byte 64
//   }
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/sample.hpp"

namespace hwpc::mali {

enum class reader_kind : std::uint16_t { vinstr = 1, kinstr_prfcnt = 2 };

constexpr std::string_view to_string(reader_kind r) noexcept {
  return r == reader_kind::vinstr ? "vinstr" : "kinstr_prfcnt";
}

inline constexpr std::string_view capture_magic = "HWPCMALI";
inline constexpr std::size_t capture_header_bytes = 64;
inline constexpr std::uint16_t capture_version = 1;

constexpr bool is_capture_file(std::span<const std::byte> data) noexcept {
  if (data.size() < capture_magic.size()) return false;
  for (std::size_t i = 0; i < capture_magic.size(); ++i) {
    if (static_cast<char>(data[i]) != capture_magic[i]) return false;
  }
  return true;
}

struct capture_header {
  reader_kind reader = reader_kind::vinstr;
  std::uint64_t gpu_id = 0;  // 0: not recorded
  sample_layout layout;

  // Errors: truncated header, wrong magic, unknown version or reader, a
  // layout without slices or cores, nonzero reserved bytes (each at its offset).
  static result<capture_header> parse(std::span<const std::byte> data) {
    if (data.size() < capture_header_bytes) {
      return make_error(
          errc::truncated, data.size(),
          "a Mali capture header has 64 bytes; the file has " + std::to_string(data.size()));
    }
    if (!is_capture_file(data)) {
      return make_error(errc::unknown_format, 0, "not a Mali capture file (magic HWPCMALI)");
    }
    const std::byte* p = data.data();
    if (const std::uint16_t v = load_le16(p + 8); v != capture_version) {
      return make_error(errc::unknown_format, 8,
                        "capture file version " + std::to_string(v) + " (this reader knows 1)");
    }
    capture_header h;
    const std::uint16_t r = load_le16(p + 10);
    if (r != 1 && r != 2) {
      return make_error(errc::unknown_format, 10,
                        "reader " + std::to_string(r) + " (1 vinstr, 2 kinstr_prfcnt)");
    }
    h.reader = static_cast<reader_kind>(r);
    h.layout.l2_slices = load_le32(p + 12);
    h.gpu_id = load_le64(p + 16);
    h.layout.core_mask = load_le64(p + 24);
    if (auto ok = h.layout.validate(); !ok) {
      const bool slices_bad = h.layout.l2_slices == 0 || h.layout.l2_slices > max_l2_slices;
      return make_error(ok.error_value().code, slices_bad ? 12 : 24, ok.error_value().message);
    }
    for (std::size_t i = 32; i < capture_header_bytes; ++i) {
      if (p[i] != std::byte{0}) return make_error(errc::inconsistent, i, "reserved byte not zero");
    }
    return h;
  }

  std::span<const std::byte> payload(std::span<const std::byte> file) const noexcept {
    return file.subspan(capture_header_bytes);
  }

  std::array<std::byte, capture_header_bytes> encode() const noexcept {
    std::array<std::byte, capture_header_bytes> out{};
    for (std::size_t i = 0; i < capture_magic.size(); ++i) {
      out[i] = static_cast<std::byte>(capture_magic[i]);
    }
    store_le16(out.data() + 8, capture_version);
    store_le16(out.data() + 10, static_cast<std::uint16_t>(reader));
    store_le32(out.data() + 12, layout.l2_slices);
    store_le64(out.data() + 16, gpu_id);
    store_le64(out.data() + 24, layout.core_mask);
    return out;
  }
};

}  // namespace hwpc::mali
