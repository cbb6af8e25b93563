// Mali kinstr_prfcnt samples: a GPU table and a configuration from the input
// (any product, L2 slices, core mask, dense or sparse core numbering, a base
// offset), kinstr_reader over the rest, every sample's block sums, and the
// rows of mali/rows.hpp.
// Invariants: errors name an offset in [base, base + size]; after an error
// next() repeats it; samples start inside the input, in increasing order, each
// after the values of the one before; every block's item and values lie inside
// the buffer, its index within the configuration, no two blocks alike; sums
// equal the values added up here; rows = samples = accounting, each row at its
// sample's offset; a second reader over the same bytes yields the same samples.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/mali/gpus/index.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/rows.hpp"

using namespace hwpc::mali;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const gpu_product& gpu = gpus::products[in.u8() % std::size(gpus::products)];
  const gpu_table& table = *gpu.table;
  sample_layout layout;
  layout.l2_slices = 1 + in.u8() % 4;
  const std::uint8_t mode = in.u8();
  layout.core_mask = (mode & 1) ? std::uint64_t{in.u32()} << 32 | in.u32() : in.u8();
  const core_index cores = (mode & 2) ? core_index::sparse : core_index::dense;
  const std::size_t base = (mode & 4) ? 64 : 0;
  const hwpc::byte_span bytes = in.rest();
  if (!layout.validate()) return 0;

  auto r = kinstr_reader::make(table, layout, bytes, base, cores);
  if (!r) {
    fuzz::check_error(r.error_value(), base + bytes.size());
    FUZZ_CHECK(r.error_value().offset >= base, r.error_value().describe());
    return 0;
  }
  const std::size_t span = std::size_t{table.values_per_block} * 8;
  const std::size_t instances[] = {1, 1, layout.l2_slices, layout.shader_core_count()};
  std::vector<std::size_t> offsets;
  std::optional<hwpc::error> failed;
  std::size_t next_start = 0;  // no sample starts before the values of the one before
  while (true) {
    auto s = r->next();
    if (!s) {
      failed = s.error_value();
      fuzz::check_error(*failed, base + bytes.size());
      FUZZ_CHECK(failed->offset >= base, failed->describe());
      auto again = r->next();
      FUZZ_CHECK(!again && again.error_value().offset == failed->offset &&
                     again.error_value().message == failed->message,
                 "after an error next() repeats it");
      break;
    }
    if (!*s) break;
    const kinstr_sample& k = **s;
    FUZZ_CHECK(k.offset >= base + next_start && k.offset < base + bytes.size(),
               "sample starts inside the input, after the one before");
    FUZZ_CHECK(k.offset % 8 == base % 8, "samples are 8-byte aligned");
    FUZZ_CHECK(k.clock_domains <= kinstr::max_clock_domains, "clock domains");
    FUZZ_CHECK(k.meta.timestamp_start <= k.meta.timestamp_end, "sample time runs forwards");
    FUZZ_CHECK(k.blocks.size() <= kinstr::max_blocks_per_sample, "block count bounded");
    FUZZ_CHECK(k.values_per_block() == table.values_per_block, "values per block from the table");
    block_sums mine;
    std::size_t end = k.offset - base + kinstr::item_bytes * (k.blocks.size() + 2);
    for (std::size_t i = 0; i < k.blocks.size(); ++i) {
      const kinstr_block& b = k.blocks[i];
      const auto t = static_cast<std::size_t>(b.type);
      FUZZ_CHECK(t < block_type_count && b.index < instances[t], "block within the configuration");
      FUZZ_CHECK(b.item_offset + kinstr::item_bytes <= bytes.size(), "block item inside");
      FUZZ_CHECK(b.values_offset % 8 == 0 && b.values_offset + span <= bytes.size(),
                 "block values inside the buffer");
      FUZZ_CHECK(b.values_offset >= k.offset - base, "values after their sample's start");
      for (std::size_t j = 0; j < i; ++j) {
        FUZZ_CHECK(k.blocks[j].type != b.type || k.blocks[j].index != b.index, "blocks distinct");
        const std::size_t a = k.blocks[j].values_offset;
        FUZZ_CHECK(a + span <= b.values_offset || b.values_offset + span <= a,
                   "block values do not overlap");
      }
      if (b.values_offset + span > end) end = b.values_offset + span;
      if (!b.has_values()) continue;
      for (std::size_t v = header_counters; v < table.values_per_block; ++v) {
        mine.values[t][v] += hwpc::load_le64(bytes.data() + b.values_offset + 8 * v);
      }
    }
    const block_sums sums = k.sums();
    for (std::size_t t = 0; t < block_type_count; ++t) {
      for (std::size_t v = 0; v < table.values_per_block; ++v) {
        FUZZ_CHECK(sums.values[t][v] == mine.values[t][v], "sums add the block values up");
      }
    }
    next_start = end;
    offsets.push_back(k.offset);
  }

  // The rows of the same bytes: one per sample, at its offset, up to the same error.
  auto again = kinstr_reader::make(table, layout, bytes, base, cores);
  FUZZ_CHECK(static_cast<bool>(again), "a second reader over the same bytes");
  row_builder b(gpu, nullptr, true);
  std::size_t rows = 0, lost_rows = 0;
  auto acc = for_each_row(*again, b, [&](const hwpc::row& row) {
    if (row.lost) {  // a sequence gap, before the sample it names
      FUZZ_CHECK(rows < offsets.size() && row.offset == offsets[rows] && row.report == rows,
                 "a gap at the sample after it");
      ++lost_rows;
      return;
    }
    FUZZ_CHECK(rows < offsets.size() && row.offset == offsets[rows], "row at its sample");
    FUZZ_CHECK(row.report == rows, "row numbers count samples");
    FUZZ_CHECK(row.begin <= row.end, "row time runs forwards");
    FUZZ_CHECK(row.counters.size() == table.counters.size(), "one counter column per counter");
    ++rows;
  });
  FUZZ_CHECK(rows == offsets.size(), "one row per sample");
  FUZZ_CHECK(static_cast<bool>(acc) == !failed, "rows stop at the same error");
  if (acc) {
    // Every sample is a report and an interval; sequence gaps are lost records.
    FUZZ_CHECK(acc->reports == rows && acc->intervals == rows && acc->records == rows + acc->gaps &&
                   acc->balanced() && (lost_rows == 0 || lost_rows == acc->gaps),
               "accounting adds up");
  } else {
    FUZZ_CHECK(acc.error_value().offset == failed->offset, "rows stop at the same offset");
  }
  return 0;
}
