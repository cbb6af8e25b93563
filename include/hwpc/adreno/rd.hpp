// freedreno .rd capture files: sections, and the GPU address space one submit's
// GPUADDR + BUFFER_CONTENTS sections describe (docs/adreno.md, ".rd captures").
//
// A file is a sequence of sections `u32 type; u32 size; size bytes`, no
// padding between sections (msm_rd.c and Mesa's redump.h agree). Android's
// libwrap (and Dive, built on it) writes two 0xffffffff dwords before each
// section and rounds the size up to 4, zero-filling the payload; Mesa's reader
// skips any number of such marker pairs where a header may start, so one file
// may mix both dialects, and so does this one (FACTS-live section 6). Views
// are zero-copy: every payload and buffer is a span into the caller's bytes,
// and every offset is a byte offset into those bytes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno::rd {

enum class section_type : std::uint32_t {
  none = 0,
  test = 1,
  cmd = 2,
  gpuaddr = 3,
  context = 4,
  cmdstream = 5,
  cmdstream_addr = 6,
  param = 7,
  flush = 8,
  program = 9,
  vert_shader = 10,
  frag_shader = 11,
  buffer_contents = 12,
  gpu_id = 13,
  chip_id = 14,
  shader_log_buffer = 15,  // Mesa only
  cp_log_buffer = 16,      // Mesa only
  wrbuffer = 17,           // Mesa only
};
inline constexpr std::uint32_t max_section_type = 17;

constexpr std::string_view to_string(section_type t) noexcept {
  constexpr std::string_view names[] = {"RD_NONE",
                                        "RD_TEST",
                                        "RD_CMD",
                                        "RD_GPUADDR",
                                        "RD_CONTEXT",
                                        "RD_CMDSTREAM",
                                        "RD_CMDSTREAM_ADDR",
                                        "RD_PARAM",
                                        "RD_FLUSH",
                                        "RD_PROGRAM",
                                        "RD_VERT_SHADER",
                                        "RD_FRAG_SHADER",
                                        "RD_BUFFER_CONTENTS",
                                        "RD_GPU_ID",
                                        "RD_CHIP_ID",
                                        "RD_SHADER_LOG_BUFFER",
                                        "RD_CP_LOG_BUFFER",
                                        "RD_WRBUFFER"};
  const auto i = static_cast<std::uint32_t>(t);
  return i <= max_section_type ? names[i] : std::string_view{};
}

inline constexpr std::size_t section_header_size = 8;

struct section {
  std::uint32_t type = 0;  // a section_type value, or an unknown number
  std::size_t offset = 0;  // byte offset of the section header
  byte_span payload{};
  std::size_t payload_offset() const noexcept { return offset + section_header_size; }
};

// libwrap's section marker: two 0xffffffff dwords before a header.
inline constexpr std::uint32_t marker_word = 0xffffffffu;
inline constexpr std::size_t marker_size = 8;

// True when `d` holds a marker pair at `at`.
inline bool marker_at(byte_span d, std::size_t at) noexcept {
  return d.size() >= marker_size && at <= d.size() - marker_size &&
         load_le32(d.data() + at) == marker_word && load_le32(d.data() + at + 4) == marker_word;
}

// Walks the sections, skipping marker pairs where a header may start. A
// header that does not fit, or a size running past the end, is `truncated` at
// the header's offset and ends the walk (sizes are the only framing, so
// nothing after a bad size can be trusted). Marker pairs with nothing after
// them end the file, as they end Mesa's reader.
class section_cursor {
 public:
  explicit section_cursor(byte_span data) noexcept : data_(data) { skip_markers(); }
  // Sections view the caller's bytes: a temporary vector would dangle.
  explicit section_cursor(std::vector<std::byte>&&) = delete;
  bool done() const noexcept { return failed_ || pos_ >= data_.size(); }
  std::size_t offset() const noexcept { return pos_; }
  // Marker pairs skipped so far, and the sections that had at least one.
  std::uint64_t marker_pairs() const noexcept { return marker_pairs_; }
  std::uint64_t marked_sections() const noexcept { return marked_sections_; }
  // Whether the section `next()` returned last was preceded by markers.
  bool last_marked() const noexcept { return last_marked_; }

  result<section> next() {
    const std::size_t remain = data_.size() - pos_;
    if (remain < section_header_size) {
      failed_ = true;
      return make_error(errc::truncated, pos_,
                        ".rd section header needs 8 bytes, " + std::to_string(remain) + " remain");
    }
    const std::uint32_t type = load_le32(data_.data() + pos_);
    const std::uint32_t size = load_le32(data_.data() + pos_ + 4);
    if (size > remain - section_header_size) {
      failed_ = true;
      return make_error(errc::truncated, pos_,
                        ".rd section type " + std::to_string(type) + " says " +
                            std::to_string(size) + " bytes, " +
                            std::to_string(remain - section_header_size) + " remain");
    }
    section s{type, pos_, data_.subspan(pos_ + section_header_size, size)};
    last_marked_ = pending_marked_;
    if (last_marked_) ++marked_sections_;
    pos_ += section_header_size + size;
    skip_markers();
    return s;
  }

 private:
  void skip_markers() noexcept {
    pending_marked_ = false;
    while (marker_at(data_, pos_)) {
      pos_ += marker_size;
      ++marker_pairs_;
      pending_marked_ = true;
    }
  }

  byte_span data_;
  std::size_t pos_ = 0;
  std::uint64_t marker_pairs_ = 0;
  std::uint64_t marked_sections_ = 0;
  bool pending_marked_ = false;
  bool last_marked_ = false;
  bool failed_ = false;
};

// True when `data` starts like an .rd file: after any marker pairs, a known
// section type whose size fits. PM4 streams start with a header (bits 31..28
// = 4 or 7), so a first dword <= 17 cannot be one, and a stream of
// 0xffffffff dwords followed by a small number is not PM4 either (type 0xf
// headers do not exist).
inline bool looks_like_rd(byte_span data) noexcept {
  std::size_t at = 0;
  while (marker_at(data, at)) at += marker_size;
  if (data.size() - at < section_header_size) return false;
  const std::uint32_t type = load_le32(data.data() + at);
  const std::uint32_t size = load_le32(data.data() + at + 4);
  return type >= 1 && type <= max_section_type && size <= data.size() - at - section_header_size;
}

// RD_GPUADDR and RD_CMDSTREAM_ADDR payloads: {u32 iova_lo; u32 size; u32 iova_hi}
// as the kernel writes them today, or the older 8-byte {u32 iova; u32 size}.
// GPUADDR sizes are in bytes, CMDSTREAM_ADDR sizes in dwords.
struct address_range {
  std::uint64_t iova = 0;
  std::uint32_t size = 0;
};

inline result<address_range> parse_address(const section& s) {
  if (s.payload.size() != 8 && s.payload.size() != 12) {
    return make_error(errc::inconsistent, s.offset,
                      std::string(to_string(static_cast<section_type>(s.type))) + " payload has " +
                          std::to_string(s.payload.size()) + " bytes, expected 8 or 12");
  }
  address_range r;
  r.iova = load_le32(s.payload.data());
  r.size = load_le32(s.payload.data() + 4);
  if (s.payload.size() == 12) r.iova |= std::uint64_t{load_le32(s.payload.data() + 8)} << 32;
  return r;
}

// One dumped buffer: GPU address `iova`, its bytes, and where they sit in the file.
// A buffer whose bytes are not held (a large one in a gzip stream, rd_stream.hpp)
// has empty `contents` and its length in `fetched_size`: its bytes are asked of
// the address space's range_fetch when a lookup lands in it.
struct gpu_buffer {
  std::uint64_t iova = 0;
  byte_span contents{};
  std::size_t file_offset = 0;
  std::size_t fetched_size = 0;
};

// Gives the bytes [at, at + n) of the buffer whose payload starts at stream
// offset `buffer_offset` and is `buffer_size` bytes long, valid as long as a
// held buffer's would be; fewer (none) when they cannot be had, the reason
// kept by the implementation for its reader to report.
class range_fetch {
 public:
  virtual byte_span fetch(std::size_t buffer_offset, std::size_t buffer_size, std::size_t at,
                          std::size_t n) = 0;

 protected:
  ~range_fetch() = default;
};

// A view of [addr, addr + n) inside one dumped buffer (n may be cut short by
// the end of the buffer: `bytes.size()` says how much is there).
struct located {
  byte_span bytes{};
  std::size_t file_offset = 0;
  std::size_t buffer_offset = 0;  // file offset of the buffer's first byte (its section's payload)
};

// The GPU buffers of one submit. Lookups use the buffer with the highest base
// at or below the address (buffers of one submit do not overlap; if a file
// makes them overlap, that rule decides).
class address_space {
 public:
  void clear() noexcept {
    buffers_.clear();
    sorted_ = true;
    last_ = none;
  }
  void add(const gpu_buffer& b) {
    if (!buffers_.empty() && b.iova < buffers_.back().iova) {
      sorted_ = false;
      last_ = none;
    }
    buffers_.push_back(b);
  }
  std::size_t size() const noexcept { return buffers_.size(); }
  // Where the bytes of buffers not held come from (null: such buffers read as empty).
  void set_fetch(range_fetch* f) noexcept { fetch_ = f; }

  // The dumped bytes at `addr`, at most `n`; nullopt when no buffer holds `addr`.
  std::optional<located> find(std::uint64_t addr, std::uint64_t n) const {
    if (!sorted_) {
      std::stable_sort(buffers_.begin(), buffers_.end(),
                       [](const gpu_buffer& a, const gpu_buffer& b) { return a.iova < b.iova; });
      sorted_ = true;
    }
    // Reads come in runs at one buffer (a query slot's values): the buffer
    // found last is tested first, and is the answer when it is the one the
    // search would find (its base at or below `addr`, the next one's above).
    auto it = buffers_.begin();
    if (last_ < buffers_.size() && buffers_[last_].iova <= addr &&
        (last_ + 1 == buffers_.size() || addr < buffers_[last_ + 1].iova)) {
      it += static_cast<std::ptrdiff_t>(last_);
    } else {
      it = std::upper_bound(buffers_.begin(), buffers_.end(), addr,
                            [](std::uint64_t a, const gpu_buffer& b) { return a < b.iova; });
      if (it == buffers_.begin()) return std::nullopt;
      --it;
      last_ = static_cast<std::size_t>(it - buffers_.begin());
    }
    const std::uint64_t at = addr - it->iova;
    const std::size_t len = it->contents.empty() ? it->fetched_size : it->contents.size();
    if (at >= len) return std::nullopt;
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, len - at));
    byte_span bytes;
    if (!it->contents.empty()) {
      bytes = it->contents.subspan(static_cast<std::size_t>(at), take);
    } else if (fetch_ != nullptr) {
      bytes = fetch_->fetch(it->file_offset, len, static_cast<std::size_t>(at), take);
    }
    return located{bytes, it->file_offset + static_cast<std::size_t>(at), it->file_offset};
  }

 private:
  mutable std::vector<gpu_buffer> buffers_;
  mutable bool sorted_ = true;
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  mutable std::size_t last_ = none;  // the buffer found last (sorted order)
  range_fetch* fetch_ = nullptr;
};

}  // namespace hwpc::adreno::rd
