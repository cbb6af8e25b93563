// The rows of a Mali capture file while it is recorded: give it every piece
// of bytes live::record_mali writes (the 64-byte header, then kinstr_prfcnt
// samples whose values offsets count from the payload's start), and it
// calls back with the rows `hwpc mali FILE` prints for the finished file.
// Each sample goes through the reader that decodes capture files
// (mali::kinstr_reader) and mali::kinstr_row_stream, the same row producer
// as mali::for_each_row; there is no decoder of its own.
//
//   live::mali_rows rows({}, [&](const row_schema& s, const mali::gpu_product&) {...},
//                        [&](const row& r) { writer.write(r); });
//   live::record_mali(sys, opts, [&](std::span<const std::byte> b) {
//     return write_file(b) && rows(b);
//   }, stop);
//   auto acc = rows.finish();
//
// Pieces may split anywhere: bytes are held until a whole sample is there
// (its metadata list to the NONE item, and every block's values), at most
// one sample's worth; a sample becomes a row as soon as it is whole.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/capture_input.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/rows.hpp"

namespace hwpc::live {

struct mali_rows_options {
  bool per_instance = false;  // each L2 slice's and shader core's columns after the sums
  mali::counter_naming names = mali::counter_naming::hardware;
};

class mali_rows {
 public:
  using schema_fn = std::function<void(const row_schema&, const mali::gpu_product&)>;
  using row_fn = std::function<void(const row&)>;

  mali_rows(mali_rows_options o, schema_fn on_schema, row_fn on_row)
      : o_(o), on_schema_(std::move(on_schema)), on_row_(std::move(on_row)) {}
  mali_rows(const mali_rows&) = delete;
  mali_rows& operator=(const mali_rows&) = delete;

  // The next bytes of the capture. False after bad bytes (error_value()).
  bool operator()(std::span<const std::byte> piece) {
    if (error_) return false;
    pending_.insert(pending_.end(), piece.begin(), piece.end());
    if (auto ok = take(); !ok) {
      error_ = ok.error_value();
      return false;
    }
    return true;
  }

  // The end of the capture: the last sample, then the accounting.
  result<accounting> finish() {
    if (error_) return *error_;
    if (!builder_) {
      return make_error(errc::truncated, pending_.size(),
                        "a Mali capture header has 64 bytes; the capture ended before");
    }
    if (auto ok = take(); !ok) return ok.error_value();
    if (!pending_.empty()) {
      return make_error(errc::truncated, mali::capture_header_bytes + payload_at_,
                        "the capture ends inside a sample");
    }
    return rows_->totals();
  }

  // The accounting of the samples so far (finish() gives the last).
  accounting totals() const { return rows_ ? rows_->totals() : accounting{}; }

  const std::optional<error>& error_value() const noexcept { return error_; }
  const std::optional<row_schema>& schema() const noexcept { return schema_; }
  const mali::capture_header& header() const noexcept { return header_; }
  // The rows' options (meaningful once the schema is known).
  const mali::row_options& row_options() const noexcept { return ro_; }

 private:
  result<void> start() {
    auto h = mali::capture_header::parse(pending_);
    if (!h) return h.error_value();
    if (h->reader != mali::reader_kind::kinstr_prfcnt) {
      return make_error(errc::unknown_format, 10, "live rows read kinstr_prfcnt samples only");
    }
    auto g = mali::gpu_of(*h);
    if (!g) return g.error_value();
    if (*g == nullptr) return make_error(errc::inconsistent, 16, "the header names no GPU_ID");
    header_ = *h;
    gpu_ = *g;
    // What mali::open gives a kinstr_prfcnt capture file without options.
    mali::row_options ro;
    ro.timed = true;
    ro.losses = true;
    ro.names = o_.names;
    if (o_.per_instance) ro.per_instance = h->layout;
    ro_ = ro;
    builder_.emplace(*gpu_, nullptr, ro);
    rows_.emplace(*builder_);
    schema_ = builder_->schema();
    pending_.erase(pending_.begin(),
                   pending_.begin() + static_cast<std::ptrdiff_t>(mali::capture_header_bytes));
    if (on_schema_) on_schema_(*schema_, *gpu_);
    return {};
  }

  // The length of the sample at the front of `bytes`, or nothing while it
  // is incomplete. Values offsets count from the payload's start.
  result<std::optional<std::size_t>> sample_length(std::span<const std::byte> bytes) const {
    const std::size_t span = std::size_t{gpu_->table->values_per_block} * 8;
    std::size_t end = 0;
    for (std::size_t at = 0;; at += mali::kinstr::item_bytes) {
      if (at > (mali::kinstr::max_blocks_per_sample + 3) * mali::kinstr::item_bytes) {
        return make_error(errc::oversized, base() + at, "a sample's metadata list has no end");
      }
      if (bytes.size() < at + mali::kinstr::item_bytes) return std::optional<std::size_t>{};
      const std::byte* p = bytes.data() + at;
      const std::uint16_t type = load_le16(p);
      if (type == mali::kinstr::item_none) {
        end = std::max(end, at + mali::kinstr::item_bytes);
        break;
      }
      if (type != mali::kinstr::item_block) continue;
      const std::uint32_t v = load_le32(p + 16);
      if (v < payload_at_ || v - payload_at_ > (std::size_t{1} << 24)) {
        return make_error(errc::inconsistent, base() + at,
                          "block values at offset " + std::to_string(v) +
                              " lie outside the sample (which starts at " +
                              std::to_string(payload_at_) + ")");
      }
      end = std::max(end, v - payload_at_ + span);
    }
    if (bytes.size() < end) return std::optional<std::size_t>{};
    return std::optional<std::size_t>(end);
  }

  std::size_t base() const noexcept { return mali::capture_header_bytes + payload_at_; }

  // Takes every whole sample.
  result<void> take() {
    if (!builder_) {
      if (pending_.size() < mali::capture_header_bytes) return {};
      if (auto ok = start(); !ok) return ok;
    }
    // Whole samples from the front; what they fill is dropped once, after.
    std::size_t front = 0;
    while (front < pending_.size()) {
      const std::span<const std::byte> rest(pending_.data() + front, pending_.size() - front);
      auto n = sample_length(rest);
      if (!n) return n.error_value();
      if (!*n) break;
      // A copy whose values offsets count from its own start, read as the
      // capture's reader reads the file (offsets in errors: the file's).
      std::vector<std::byte> one(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(**n));
      for (std::size_t at = 0;; at += mali::kinstr::item_bytes) {
        std::byte* p = one.data() + at;
        const std::uint16_t type = load_le16(p);
        if (type == mali::kinstr::item_none) break;
        if (type == mali::kinstr::item_block) {
          store_le32(p + 16, static_cast<std::uint32_t>(load_le32(p + 16) - payload_at_));
        }
      }
      auto rd = mali::kinstr_reader::make(*gpu_->table, header_.layout, one, base());
      if (!rd) return rd.error_value();
      auto s = rd->next();
      if (!s) return s.error_value();
      if (*s) {
        if (auto ok = rows_->feed(**s, on_row_); !ok) return ok;
      }
      front += **n;
      payload_at_ += **n;
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(front));
    return {};
  }

  mali_rows_options o_;
  schema_fn on_schema_;
  row_fn on_row_;
  std::vector<std::byte> pending_;
  std::size_t payload_at_ = 0;  // where pending_ starts in the payload
  mali::capture_header header_;
  const mali::gpu_product* gpu_ = nullptr;
  mali::row_options ro_;
  std::optional<mali::row_builder> builder_;
  std::optional<mali::kinstr_row_stream> rows_;
  std::optional<row_schema> schema_;
  std::optional<error> error_;
};

}  // namespace hwpc::live
