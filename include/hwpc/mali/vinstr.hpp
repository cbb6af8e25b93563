// Captures from kbase's legacy vinstr reader: a sequence of samples, each the
// non-v4 block order of hwpc/mali/sample.hpp (64 u32 values per block), for
// any GPU whose table has 64-value blocks. The samples carry no framing and
// do not describe themselves, so the GPU (its table) and the configuration
// (L2 slices, core mask) come from the caller, and every sample has the same
// size.
//
//   auto cap = hwpc::mali::vinstr_capture::make(gpus::g78, {.l2_slices = 2, .core_mask = 0xf},
//                                               bytes);
//   if (!cap) fail(cap.error_value().describe());          // names the byte offset
//   for (std::size_t k = 0; k < cap->size(); ++k) {
//     hwpc::mali::sample s = cap->at(k);                     // zero-copy
//     s.sums()[*gpus::g78.find("GPU_ACTIVE")->id];
//   }
//
// Only the sample size is structure here: two GPUs with 64-value blocks and
// the same configuration cannot be told apart from vinstr bytes (docs/mali.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali {

// The kernel's per-buffer metadata (GET_BUFFER with cycles): u64 timestamp
// (ns); u32 event_id (0 manual, 1 periodic, 2 pre-job, 3 post-job); u32
// buffer_idx; u64 cycles_top; u64 cycles_shader_cores. 32 bytes, kept before
// each sample in a capture file (hwpc/mali/capture_file.hpp).
struct vinstr_meta {
  std::uint64_t timestamp = 0;
  std::uint32_t event_id = 0;
  std::uint32_t buffer_idx = 0;
  std::uint64_t cycles_top = 0;
  std::uint64_t cycles_shader_cores = 0;
};
inline constexpr std::size_t vinstr_meta_bytes = 32;

class vinstr_capture {
 public:
  // Checks, in this order: the table has 64-value blocks (vinstr delivers no
  // other; anchor none), the configuration, a non-empty input, whole 256-byte
  // blocks (misaligned, at the partial block), whole samples (truncated, at
  // the first missing block of the last sample). `base` is added to every
  // offset, for captures inside a larger file. The bytes must outlive the
  // capture.
  //
  // With `with_meta`, every sample is preceded by its 32-byte vinstr_meta
  // (records of 32 + sample bytes; the 256-byte block check then applies to
  // each record's sample part only), and a timestamp before the previous
  // record's is refused (inconsistent, at that timestamp: the sample would
  // end before it starts).
  static result<vinstr_capture> make(const gpu_table& table, const sample_layout& layout,
                                     std::span<const std::byte> data, std::size_t base = 0,
                                     bool with_meta = false) {
    if (table.values_per_block != counters_per_block) {
      return error{errc::inconsistent, 0,
                   std::string(table.key) + " has " + std::to_string(table.values_per_block) +
                       "-value blocks; the vinstr reader delivers 64-value blocks only (read its "
                       "captures as kinstr_prfcnt)",
                   error_anchor::none};
    }
    if (auto ok = layout.validate(); !ok) return ok.error_value();
    const std::size_t size = layout.size_bytes();
    const std::string shape = std::string(table.key) + " with " + std::to_string(layout.l2_slices) +
                              " L2 slice(s) and core mask " + to_hex(layout.core_mask) + ": " +
                              std::to_string(size) + " bytes per sample";
    if (data.empty()) return make_error(errc::empty_input, base, "empty capture; " + shape);
    const std::size_t meta = with_meta ? vinstr_meta_bytes : 0;
    if (with_meta) {
      const std::size_t record = meta + size;
      if (const std::size_t partial = data.size() % record; partial != 0) {
        const std::size_t first = data.size() - partial;
        const std::string what =
            partial < meta
                ? "its 32-byte metadata is cut short"
                : "its " + layout.describe_block((partial - meta) / block_bytes) + " block is " +
                      ((partial - meta) % block_bytes ? "cut short" : "missing");
        return make_error(errc::truncated, base + data.size(),
                          "record " + std::to_string(data.size() / record) + " (at offset " +
                              std::to_string(base + first) + ") ends after " +
                              std::to_string(partial) + " bytes: " + what + " (" + shape +
                              ", after 32 bytes of metadata)");
      }
      // A sample's interval runs from the previous dump to its own (rows.hpp):
      // a dump timestamped before the previous one would end its sample
      // before it starts. The kinstr reader refuses the same
      // (kinstr_prfcnt.hpp); the error is at the later record's timestamp.
      for (std::size_t at = record, prev = load_le64(data.data()); at < data.size(); at += record) {
        const std::uint64_t ts = load_le64(data.data() + at);
        if (ts < prev) {
          return make_error(errc::inconsistent, base + at,
                            "sample " + std::to_string(at / record) + " ends (" +
                                std::to_string(ts) + " ns) before it starts (" +
                                std::to_string(prev) + " ns, the previous sample's dump)");
        }
        prev = ts;
      }
      return vinstr_capture(table, layout, data, base, meta);
    }
    if (const std::size_t partial = data.size() % block_bytes; partial != 0) {
      const std::size_t at = data.size() - partial;
      return make_error(errc::misaligned, base + at,
                        "capture of " + std::to_string(data.size()) +
                            " bytes is not a whole number of 256-byte blocks: the block at "
                            "offset " +
                            std::to_string(base + at) + " has " + std::to_string(partial) +
                            " bytes");
    }
    if (const std::size_t partial = data.size() % size; partial != 0) {
      const std::size_t first = data.size() - partial;
      return make_error(errc::truncated, base + data.size(),
                        "sample " + std::to_string(data.size() / size) + " (at offset " +
                            std::to_string(base + first) + ") ends after " +
                            std::to_string(partial) + " bytes: its " +
                            layout.describe_block(partial / block_bytes) + " block is missing (" +
                            shape + ")");
    }
    return vinstr_capture(table, layout, data, base, 0);
  }

  // The capture keeps pointers to the table and the bytes: temporaries would
  // dangle, so they do not compile.
  static result<vinstr_capture> make(gpu_table&&, const sample_layout&, std::span<const std::byte>,
                                     std::size_t = 0, bool = false) = delete;
  static result<vinstr_capture> make(const gpu_table&, const sample_layout&,
                                     std::vector<std::byte>&&, std::size_t = 0,
                                     bool = false) = delete;

  const gpu_table& table() const noexcept { return *table_; }
  const sample_layout& layout() const noexcept { return layout_; }
  // Number of samples.
  std::size_t size() const noexcept { return data_.size() / record_bytes(); }
  std::size_t sample_bytes() const noexcept { return layout_.size_bytes(); }
  // Metadata (when present) and sample.
  std::size_t record_bytes() const noexcept { return meta_ + sample_bytes(); }
  bool has_meta() const noexcept { return meta_ != 0; }
  // Byte offset of record k (its metadata, else its sample) in the caller's file.
  std::size_t offset(std::size_t k) const noexcept { return base_ + k * record_bytes(); }

  // Sample k (< size()); its block offsets are relative to the sample.
  sample at(std::size_t k) const {
    return *sample::parse(layout_, data_.subspan(k * record_bytes() + meta_, sample_bytes()));
  }
  // Metadata of sample k, when the capture has it.
  std::optional<vinstr_meta> meta(std::size_t k) const noexcept {
    if (!meta_) return std::nullopt;
    const std::byte* p = data_.data() + k * record_bytes();
    return vinstr_meta{load_le64(p), load_le32(p + 8), load_le32(p + 12), load_le64(p + 16),
                       load_le64(p + 24)};
  }

 private:
  vinstr_capture(const gpu_table& t, const sample_layout& l, std::span<const std::byte> d,
                 std::size_t base, std::size_t meta)
      : table_(&t), layout_(l), data_(d), base_(base), meta_(meta) {}

  const gpu_table* table_;
  sample_layout layout_;
  std::span<const std::byte> data_;
  std::size_t base_;
  std::size_t meta_;
};

}  // namespace hwpc::mali
