// Several captures in one Perfetto trace, each its own GPU: capture k is
// GPU k (its GpuInfo entry, its interned descriptor's gpu_id) on packet
// sequence k + 1 (its own incremental state, interned ids and clock 64), so
// trace_processor keeps every capture's tracks apart (a track is keyed by
// GPU and counter name) and the UI shows one "<name> Counters" group per
// capture. Used by `hwpc decode --output perfetto A B ...` and by
// hwpc.dask.to_perfetto().
//
// Captures are written one after another, each streamed as its rows come:
//   fleet_writer f(out);
//   auto& w = f.next(schema_a, capture_a);  ... w.write(row) ...  w.end(acc);
//   auto& v = f.next(schema_b, capture_b);  ...
// or, with every capture's rows at hand, write_fleet(out, streams).
#pragma once

#include <functional>
#include <optional>
#include <span>

#include "hwpc/core/row.hpp"
#include "hwpc/output/perfetto/gpu_counter_writer.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output::perfetto {

class fleet_writer {
 public:
  explicit fleet_writer(text_buffer& out) : out_(out) {}

  // The writer of the next capture (the previous one must have ended).
  // `s` must outlive it.
  gpu_counter_writer& next(const row_schema& s, gpu_capture c) {
    const gpu_slot slot{static_cast<std::int32_t>(count_), static_cast<std::uint32_t>(count_ + 1)};
    ++count_;
    return current_.emplace(out_, s, std::move(c), slot);
  }
  std::size_t captures() const noexcept { return count_; }

 private:
  text_buffer& out_;
  std::optional<gpu_counter_writer> current_;
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
  fleet_writer f(out);
  for (capture_stream& c : streams) c.rows(f.next(*c.schema, std::move(c.capture)));
}

}  // namespace hwpc::output::perfetto
