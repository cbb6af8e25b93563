// The first steps of reading a user's Mali file, shared by every caller
// (hwpc mali, the Python package): a file that starts with the hwpc capture
// header (capture_file.hpp) has its header parsed and its samples after it;
// any other file is samples from byte 0. The GPU a header names is looked up
// in Arm's product list.
//
//   auto in = hwpc::mali::open_capture(bytes);          // errors name the offset
//   if (in->header) { auto gpu = hwpc::mali::gpu_of(*in->header); ... }
//   hwpc::mali::kinstr_reader::make(table, layout, in->payload, in->base, ...);
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "hwpc/core/error.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/gpu.hpp"

namespace hwpc::mali {

struct capture_input {
  std::optional<capture_header> header;  // absent: bare samples
  std::span<const std::byte> payload;    // the samples
  std::size_t base = 0;                  // the payload's byte offset in the file
};

inline result<capture_input> open_capture(std::span<const std::byte> file) {
  capture_input in;
  in.payload = file;
  if (!is_capture_file(file)) return in;
  auto h = capture_header::parse(file);
  if (!h) return h.error_value();
  in.header = *h;
  in.payload = h->payload(file);
  in.base = capture_header_bytes;
  return in;
}

// The GPU the header's GPU_ID names; null when the header recorded none
// (GPU_ID 0: the caller must be told which GPU).
inline result<const gpu_product*> gpu_of(const capture_header& h) {
  if (h.gpu_id == 0) return static_cast<const gpu_product*>(nullptr);
  return find_gpu_by_id(h.gpu_id);
}

// The reader the header names, as the options spell it.
constexpr std::string_view reader_name(reader_kind r) noexcept {
  return r == reader_kind::vinstr ? "vinstr" : "kinstr";
}

}  // namespace hwpc::mali
