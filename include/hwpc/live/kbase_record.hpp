// Records a kbase kinstr_prfcnt session into the hwpc Mali capture file
// (mali/capture_file.hpp): the 64-byte header from the kernel's GPU
// properties (GPU_ID, L2 slices, core mask; reader kinstr_prfcnt), then each
// sample as live::kbase_session copies it out of the ring. The samples the
// ring holds when the recording stops are read before the file ends.
//
//   live::record_mali(live::real_kernel(), {.device = "/dev/mali0", .period_ns = 1'000'000},
//                     write_bytes, stop_requested);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/live/kbase_session.hpp"
#include "hwpc/live/kbase_uapi.hpp"
#include "hwpc/live/sys.hpp"

namespace hwpc::live {

struct mali_record_options {
  std::string device = kbase::default_node;
  std::uint64_t period_ns = 1'000'000;
  int poll_ms = 100;
};

template <class Write, class Stop>
result<kbase_counts> record_mali(syscalls& sys, const mali_record_options& o, Write&& write,
                                 Stop&& stop) {
  auto s = kbase_session::open(sys, o.device, o.period_ns);
  if (!s) return s.error_value();
  const auto header = s->header().encode();
  if (!write(std::span<const std::byte>(header.data(), header.size()))) {
    return live_error("cannot write the capture");
  }
  std::size_t written = 0;  // payload bytes so far: values offsets count from there
  std::vector<std::byte> chunk;
  const auto drain = [&]() -> result<void> {
    for (;;) {
      chunk.clear();
      auto got = s->take_sample(chunk, written);
      if (!got) return got.error_value();
      if (!*got) return {};
      if (!write(std::span<const std::byte>(chunk.data(), chunk.size()))) {
        return live_error("cannot write the capture");
      }
      written += chunk.size();
    }
  };
  if (auto e = s->start(); !e) return e.error_value();
  while (!stop()) {
    auto ready = s->wait(o.poll_ms);
    if (!ready) return ready.error_value();
    if (*ready) {
      if (auto e = drain(); !e) return e.error_value();
    }
  }
  if (auto e = s->stop(); !e) return e.error_value();
  if (auto e = drain(); !e) return e.error_value();
  return s->counts();
}

}  // namespace hwpc::live
