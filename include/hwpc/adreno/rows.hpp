// Adreno query results as rows of the row contract (core/row.hpp), so
// `hwpc adreno --output ...` writes through the same CSV, JSON, Perfetto and
// summary writers as Intel and Mali (docs/adreno.md, "Rows").
//
//   auto cols = hwpc::adreno::sampled_counters(input_kind::rd, bytes);   // first pass
//   row_schema s = hwpc::adreno::schema_of(*cols);
//   auto done = hwpc::adreno::for_each_row(input_kind::rd, bytes, s, on_row, on_issue);
//
// A row is one query result: an occlusion end (`samples_passed`, the slot's
// result), a time-elapsed end (`time_elapsed`, stop - start), a timestamp or
// an always-on sample (`gpu_time`, ns), a performance-counter read (a column
// per counter sampled anywhere in the input, `<GROUP>_<n>`, the value as
// copied), and on A6XX/A7XX a pipeline-statistics or stream-out end (a column
// per count, end - begin; rows6.hpp). Columns: row_columns.hpp. A row fills
// the cells its query produces and leaves the others none.
//
// Values are read from the capture's own bytes: the buffers the .rd dumps for
// the submit that holds the query, at the query's addresses. Hex text and raw
// dwords hold no memory, so their values are none, as is a value a dump does
// not hold in full.
//
// report: the result's index among the input's reports, a report being every
// recognised event that reads or stores a value, in stream order. A begin
// that is not also a timestamp row is a stretch start: it makes no row. So
// `reports == intervals + stretch_starts` (selects are not reports).
// offset: for .rd input, the file offset of the RD_BUFFER_CONTENTS section
// (its header) holding the result's value; when no dump holds it, or for
// hex and raw input, the byte offset of the query's first packet in the
// file given (for hex text: the offset of its token in the text).
// time: always-on counter ticks (clock_kind::gpu_timestamp, 19.2 MHz, see
// queries.hpp). A time-elapsed row runs from its start to its stop value;
// a timestamp is a point (begin = end = its value); other rows carry no time
// and are placed at the last timestamp value read before them (0 before the
// first).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/result_rows.hpp"
#include "hwpc/adreno/row_columns.hpp"
#include "hwpc/adreno/walk.hpp"
#include "hwpc/core/row.hpp"

namespace hwpc::adreno {

namespace detail {

// Walks `data` as `kind` into `sink`; the hex text is parsed first (into
// `hex`, which the sink maps offsets through: it must outlive the sink's use).
// `store`: with no schema, the rows are kept there (result_rows::keep_rows_in).
inline result<walk_stats> run(input_kind kind, byte_span data, const row_schema* schema,
                              result_rows::row_fn on_row, result_rows::issue_fn on_issue,
                              result_rows** done, std::optional<result_rows>& holder,
                              std::optional<hex_dwords>& hex, row_store* store = nullptr) {
  if (data.empty()) return make_error(errc::empty_input, 0, "empty input");
  if (kind == input_kind::rd) {
    auto& sink = holder.emplace(schema, on_row, std::move(on_issue));
    if (store != nullptr) sink.keep_rows_in(store);
    rd::basic_capture_reader<result_rows> reader(sink);
    sink.attach(&reader.space());
    (void)reader.read(data);  // a framing error is also an issue, reported to the sink
    sink.finish();
    *done = &sink;
    return reader.walk();
  }
  // Hex text is walked as the dwords it spells, offsets mapped back into the text.
  if (kind == input_kind::hex) {
    const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
    auto hd = parse_hex_text(text);
    if (!hd) return hd.error_value();
    hex.emplace(std::move(*hd));
  }
  auto& sink =
      holder.emplace(schema, on_row, std::move(on_issue), hex ? &*hex : nullptr, data.size());
  if (store != nullptr) sink.keep_rows_in(store);
  basic_walker<result_rows> w(sink, nullptr);
  w.walk(hex ? byte_span(hex->bytes) : data, 0, 0);
  sink.finish();
  *done = &sink;
  return w.stats();
}

}  // namespace detail

// The performance counters the input samples, in order of first sample: the
// counter columns of its schema.
inline result<std::vector<counter_key>> sampled_counters(input_kind kind, byte_span data) {
  std::optional<hex_dwords> hex;
  std::optional<detail::result_rows> holder;
  detail::result_rows* sink = nullptr;
  auto w = detail::run(kind, data, nullptr, {}, {}, &sink, holder, hex);
  if (!w) return w.error_value();
  return sink->sampled();
}

// Calls on_row(const row&) for every query result of the input, in stream
// order, and on_issue(error, note) for every problem (note = false) and note
// found on the way, offsets into `data`. Only an unreadable hex text or empty
// input is an error; a damaged stream gives its rows and counts its issues.
// Rows are valid until the next call.
template <class OnRow, class OnIssue>
result<rows_done> for_each_row(input_kind kind, byte_span data, const row_schema& schema,
                               OnRow&& on_row, OnIssue&& on_issue) {
  std::optional<hex_dwords> hex;
  std::optional<detail::result_rows> holder;
  detail::result_rows* sink = nullptr;
  auto row_to = [&](const row& r) { on_row(r); };
  auto w = detail::run(
      kind, data, &schema, row_to, [&](const error& e, bool note) { on_issue(e, note); }, &sink,
      holder, hex);
  if (!w) return w.error_value();
  return rows_done{sink->acc(), *w, sink->issues(), sink->gpu_id(), sink->gpu()};
}

}  // namespace hwpc::adreno
