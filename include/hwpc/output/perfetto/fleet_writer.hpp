// Several captures in one Perfetto trace, each its own GPU: capture k is
// GPU k (its GpuInfo entry, its interned descriptor's gpu_id) on packet
// sequence k + 1 (its own incremental state, interned ids and clock 64), so
// trace_processor keeps every capture's tracks apart (a track is keyed by
// GPU and counter name) and the UI shows one "<name> Counters" group per
// capture. Used by `hwpc decode --output perfetto A B ...` and by
// hwpc.dask.to_perfetto().
//
// Captures are written one after another, each streamed as its rows come:
//   fleet_writer f;
//   auto a = f.next(out, schema_a, capture_a);  ... a->write(row) ...  a->end(acc);
//   auto b = f.next(out, schema_b, capture_b);  ...
// or, with every capture's rows at hand, write_fleet(out, streams).
#pragma once

#include <functional>
#include <memory>
#include <span>

#include "hwpc/core/row.hpp"
#include "hwpc/output/perfetto/gpu_counter_writer.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output::perfetto {

class fleet_writer {
 public:
  // The slot of the next capture: GPU id = captures so far, sequence = that + 1.
  gpu_slot next_slot() noexcept {
    const gpu_slot s{static_cast<std::int32_t>(count_), static_cast<std::uint32_t>(count_ + 1)};
    ++count_;
    return s;
  }
  // The writer of the next capture; `s` must outlive it.
  std::unique_ptr<gpu_counter_writer> next(text_buffer& out, const row_schema& s, gpu_capture c) {
    return std::make_unique<gpu_counter_writer>(out, s, std::move(c), next_slot());
  }
  std::size_t captures() const noexcept { return count_; }

 private:
  std::size_t count_ = 0;
};

// One capture of a fleet: its schema, what it is, and a function that
// hands every row (and then the accounting, through end()) to a writer.
struct capture_stream {
  const row_schema* schema = nullptr;
  gpu_capture capture;
  std::function<void(row_writer&)> rows;
};

inline void write_fleet(text_buffer& out, std::span<capture_stream> streams) {
  fleet_writer f;
  for (capture_stream& c : streams) {
    auto w = f.next(out, *c.schema, std::move(c.capture));
    c.rows(*w);
  }
}

}  // namespace hwpc::output::perfetto
