// The Mali capture file as `hwpc mali` reads it: the 64-byte header, then
// vinstr records (metadata + sample) or a kinstr_prfcnt buffer, turned into
// rows with the database's derived counters. Inputs without the magic are
// read as raw vinstr samples of a GPU and configuration chosen by the input's
// last bytes (the header's fields otherwise).
// Invariants: header errors name a byte of the header (or the input's size
// when it is short); a parsed header encodes back to the same 64 bytes;
// errors name an offset in [64, size] past the header; rows = samples =
// accounting; row offsets inside the input, increasing, one record apart for
// vinstr; row counters are the samples' sums; every row evaluates.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>

#include "fuzz_common.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/gpus/index.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/mali/vinstr.hpp"

using namespace hwpc::mali;

namespace {

// Compiling the database's formulas is slow: one evaluator per (table,
// configuration), kept for the next inputs (a few dozen at most).
const evaluator* evaluator_for(const gpu_table& t, const sample_layout& l) {
  static std::map<std::tuple<const gpu_table*, std::uint32_t, std::uint64_t>,
                  std::optional<evaluator>>
      cache;
  if (cache.size() > 64) cache.clear();
  auto [it, added] = cache.try_emplace({&t, l.l2_slices, l.core_mask});
  if (added) {
    if (auto ev = evaluator::database(t, l, 128)) it->second.emplace(std::move(*ev));
  }
  return it->second ? &*it->second : nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const hwpc::byte_span file(reinterpret_cast<const std::byte*>(data), size);
  const gpu_product* gpu = nullptr;
  sample_layout layout;
  hwpc::byte_span payload = file;
  std::size_t base = 0;
  bool with_meta = false;
  reader_kind reader = reader_kind::vinstr;
  if (is_capture_file(file)) {
    auto h = capture_header::parse(file);
    if (!h) {
      fuzz::check_error(h.error_value(), size);
      FUZZ_CHECK(h.error_value().offset < capture_header_bytes || h.error_value().offset == size,
                 "header errors name a header byte");
      return 0;
    }
    const auto again = h->encode();
    for (std::size_t i = 0; i < capture_header_bytes; ++i) {
      FUZZ_CHECK(again[i] == file[i], "a parsed header encodes to the same bytes");
    }
    layout = h->layout;
    reader = h->reader;
    if (h->gpu_id != 0) {
      auto g = find_gpu_by_id(h->gpu_id);
      if (!g) {
        fuzz::check_error(g.error_value(), size);
        return 0;
      }
      gpu = *g;
    }
    payload = h->payload(file);
    base = capture_header_bytes;
    with_meta = true;
  } else {
    // Raw vinstr samples: the configuration from the last three bytes.
    if (size < 3) return 0;
    layout.l2_slices = 1 + data[size - 1] % 4;
    layout.core_mask = data[size - 2] | 1u;
    payload = file.first(size - 3);
  }
  if (gpu == nullptr) {
    gpu = &gpus::products[(size != 0 ? data[size / 2] : 0) % std::size(gpus::products)];
  }
  const gpu_table& table = *gpu->table;
  const evaluator* ev = (size % 4 == 0) ? evaluator_for(table, layout) : nullptr;
  row_builder builder(*gpu, ev, with_meta);
  const std::size_t ncounters = table.counters.size();

  std::size_t rows = 0;
  std::uint64_t last_offset = 0;
  std::size_t record = 0;
  std::optional<vinstr_capture> cap;
  std::size_t lost_rows = 0;
  const auto check_row = [&](const hwpc::row& r) {
    if (r.lost) {  // a kinstr_prfcnt sequence gap, before the sample it names
      FUZZ_CHECK(r.report == rows && r.offset >= base && r.offset < size, "gap at its sample");
      ++lost_rows;
      return;
    }
    FUZZ_CHECK(r.report == rows, "row numbers count samples");
    FUZZ_CHECK(r.offset >= base && r.offset < size, "row offset inside the input");
    FUZZ_CHECK(rows == 0 || r.offset > last_offset, "row offsets increase");
    FUZZ_CHECK(r.counters.size() == ncounters, "one column per counter");
    FUZZ_CHECK(r.metrics.size() == (ev ? ev->size() : 0), "one column per metric");
    if (cap) {
      FUZZ_CHECK(r.offset == base + rows * record, "vinstr rows one record apart");
      const block_sums sums = cap->at(rows).sums();
      for (std::size_t i = 0; i < ncounters; ++i) {
        FUZZ_CHECK(r.counters[i] == sums[table.counters[i].id], "row counters are the sums");
      }
    }
    last_offset = r.offset;
    ++rows;
  };
  hwpc::result<hwpc::accounting> acc = hwpc::accounting{};
  if (reader == reader_kind::vinstr) {
    auto c = vinstr_capture::make(table, layout, payload, base, with_meta);
    if (!c) {
      fuzz::check_error(c.error_value(), size);
      FUZZ_CHECK(c.error_value().anchor != hwpc::error_anchor::byte_offset ||
                     c.error_value().offset >= base,
                 "payload errors past the header");
      return 0;
    }
    FUZZ_CHECK(c->size() * c->record_bytes() == payload.size(), "records tile the payload");
    record = c->record_bytes();
    cap.emplace(*c);
    acc = for_each_row(*cap, builder, check_row);
  } else {
    auto rd = kinstr_reader::make(table, layout, payload, base);
    if (!rd) {
      fuzz::check_error(rd.error_value(), size);
      FUZZ_CHECK(rd.error_value().offset >= base, "payload errors past the header");
      return 0;
    }
    acc = for_each_row(*rd, builder, check_row);
  }
  if (!acc) {
    fuzz::check_error(acc.error_value(), size);
    FUZZ_CHECK(acc.error_value().anchor != hwpc::error_anchor::byte_offset ||
                   acc.error_value().offset >= base,
               "payload errors past the header");
    return 0;
  }
  // Every sample is a report and an interval; sequence gaps are lost records.
  FUZZ_CHECK(acc->reports == rows && acc->intervals == rows && acc->records == rows + acc->gaps &&
                 acc->balanced() && (lost_rows == 0 || lost_rows == acc->gaps),
             "accounting: one report and interval per row, a record per gap");
  if (cap) FUZZ_CHECK(rows == cap->size(), "a row per vinstr sample");
  return 0;
}
