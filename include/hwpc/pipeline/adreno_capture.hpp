// An Adreno capture opened for its query rows (`hwpc adreno --output`,
// hwpc.adreno.queries, `hwpc report`): the one pipeline both doors hold.
//
//   auto c = hwpc::adreno::open_capture(hwpc::capture_source::map(path).value(), opts, sp);
//   (*c)->write({choice}, out);   // or write_rows(sink)
//
// Which rows an input has is decided here once: A5XX input (any kind), and
// A6XX/A7XX .rd captures whose own ids name the GPU whose names apply; for
// any other GPU there are none, and warnings() says why. No GPU at all (hex
// text and raw dwords carry none) is a usage error.
//
// The schema needs every counter the input samples, known only at its end,
// and a writer needs the schema before the first row. So open() reads the
// input once, learning the counters and making the rows with provisional
// columns, and keeps the rows in a bounded store (adreno/row_store.hpp); a
// write replays them against the schema, the input not read again. Why not
// the alternatives: columns for every counter of the generation's table
// would change the column set (it is exactly the counters sampled), and a
// pre-scan for the counters alone still walks the capture and must find
// exactly what the recogniser finds. Only a capture with more rows than the
// store's budget (tens of thousands) is read a second time for its rows, as
// before. An .rd capture, plain or gzip, is streamed (adreno_input.hpp), so
// memory stays bounded whatever its size (docs/performance.md, "Adreno rows
// in one pass").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/rd_stream.hpp"
#include "hwpc/adreno/result_rows.hpp"
#include "hwpc/adreno/row_columns.hpp"
#include "hwpc/adreno/row_store.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/adreno/tracks.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/pipeline/adreno_input.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::adreno {

namespace detail {

// The query rows of `in` into on_row (schema null: the sampled counters
// only, in `sampled`): an .rd capture through rd::stream_reader as its bytes
// come, hex text and raw dwords whole, as for_each_row reads them.
// `totals`: added to as each row is made. `store` (schema null): the rows
// and issues kept there, with provisional columns, within its budget.
inline result<rows_done> input_rows(const capture_input& in, const row_schema* schema,
                                    result_rows::row_fn on_row, result_rows::issue_fn on_issue,
                                    std::vector<counter_key>* sampled = nullptr,
                                    result_totals* totals = nullptr, row_store* store = nullptr) {
  if (in.kind() != input_kind::rd) {
    std::optional<hex_dwords> hex;
    std::optional<result_rows> holder;
    result_rows* sink = nullptr;
    // The sink is made inside run(): the totals are given through a row
    // callback that adds nothing, and added here from the row's cells.
    auto add = [&](const row& r) {
      if (totals != nullptr) totals->add(r);
      on_row(r);
    };
    auto w =
        run(in.kind(), in.whole(), schema, add, std::move(on_issue), &sink, holder, hex, store);
    if (!w) return w.error_value();
    if (sampled != nullptr) *sampled = sink->sampled();
    return rows_done{sink->acc(), *w, sink->issues(), sink->gpu_id(), sink->gpu()};
  }
  result_rows sink(schema, on_row, std::move(on_issue));
  if (store != nullptr) sink.keep_rows_in(store);
  sink.total_into(totals);
  rd::basic_stream_reader<result_rows> reader(sink);
  sink.attach(&reader.reader().space());
  sink.keep_copies();
  // Framing errors are issues the reader reports to the sink; feed() fails
  // only after finish().
  auto fed = in.feed_rd(reader, [&] { sink.finish(); });
  if (!fed) return fed.error_value();
  if (sampled != nullptr) *sampled = sink.sampled();
  return rows_done{sink.acc(), reader.walk(), sink.issues(), sink.gpu_id(), sink.gpu()};
}

}  // namespace detail

// What the HTML report says about an Adreno input beyond its rows (the GPU
// is added once the rows are read, from the ids they carried).
inline output::html::report_options report_facts(const std::string& path, input_kind kind,
                                                 bool gzip, std::size_t metric_columns) {
  output::html::report_options r;
  r.title = "hwpc report: " + path;
  r.metric_group = "query results and counter reads";
  r.x_by_report = true;  // results are events; untimed ones sit at the last timestamp read
  r.facts.push_back({"vendor", "Qualcomm Adreno (A5xx command stream)"});
  r.facts.push_back({"format", kind == input_kind::rd    ? "freedreno .rd capture"
                               : kind == input_kind::hex ? "hex dword text"
                                                         : "raw PM4 dwords"});
  r.facts.push_back({"input", path + (gzip ? " (gzip)" : "")});
  // Query results add up; gpu_time and the counters are running values read
  // now and then, whose increase is the last value read minus the first.
  r.metric_totals.resize(metric_columns);
  for (std::size_t j = 0; j < metric_columns; ++j) {
    r.metric_totals[j] = j <= col_time_elapsed ? "sum over the results"
                                               : "last value read minus the first (not a sum)";
  }
  return r;
}

// The reader skipped bad data: the rows written are partial.
inline std::string partial_line(const std::string& name, std::size_t issues,
                                std::uint64_t skipped) {
  return name + ": " + std::to_string(issues) + " problem" + (issues == 1 ? "" : "s") + " (" +
         std::to_string(skipped) + " bytes skipped); the output above is partial";
}

class query_capture final : public capture {
 public:
  static result<std::unique_ptr<query_capture>> open(capture_source src, const open_options& o,
                                                     const pipeline::spelling& sp) {
    // An .rd capture's ids are found on the first pass, with its counters.
    auto in = capture_input::open(std::move(src), o, sp, false);
    if (!in) return in.error_value();
    std::unique_ptr<query_capture> c(new query_capture(std::move(*in), o, sp));
    const bool rd = c->in_.kind() == input_kind::rd;
    if (o.rows_kept_bytes != 0) c->store_.emplace(o.rows_kept_bytes);
    detail::row_store* store = c->store_ ? &*c->store_ : nullptr;
    if (rd) {
      auto first = detail::input_rows(c->in_, nullptr, {}, {}, &c->counters_, nullptr, store);
      if (!first) return first.error_value();
      c->in_.set_own(first->gpu);
      c->kept_ = std::move(*first);
    }
    const device* gpu = c->in_.gpu();
    if (gpu == nullptr) {
      return usage_error("the input names no GPU, and query rows need one: give " +
                         sp.option("gpu") + " (e.g. " + sp.with("gpu", "a530") + ")");
    }
    c->decodable_ =
        gpu->gen == generation::a5xx || (c->in_.kind() == input_kind::rd && c->in_.own() == gpu);
    if (!c->decodable_) {
      c->warnings_.push_back(describe(*gpu) +
                             ": query rows are decoded on A5XX and on A6XX/A7XX .rd captures "
                             "that name their GPU; none are written");
      c->counters_.clear();
    } else if (!rd) {
      auto first = detail::input_rows(c->in_, nullptr, {}, {}, &c->counters_, nullptr, store);
      if (!first) return first.error_value();
      c->kept_ = std::move(*first);
    }
    // Rows past the budget were dropped: the write reads the input again.
    if (!c->decodable_ || (store != nullptr && store->dropped())) c->store_.reset();
    c->schema_ = schema_of(c->counters_);
    if (gpu->gen == generation::a6xx) c->schema_.source = "adreno a6xx queries";
    if (gpu->gen == generation::a7xx) c->schema_.source = "adreno a7xx queries";
    c->totals_.emplace(c->schema_);
    return c;
  }

  hwpc::vendor vendor() const noexcept override { return hwpc::vendor::adreno; }
  const row_schema& schema() const noexcept override { return schema_; }
  result<accounting> write_rows(row_writer& w) override { return run(w, nullptr); }

  output::writer_parts writer_parts(const output::output_choice& c) const override {
    output::writer_parts p;
    p.totals_metrics = [this](std::span<const std::uint64_t>, std::uint64_t,
                              std::vector<cell>& cells) { cells = totals_->cells(); };
    p.title = "hwpc adreno " + std::string(input_kind_name(in_.kind())) + ": " + in_.name();
    if (c.kind == output::writer_kind::html) {
      p.report = report_facts(in_.name(), in_.kind(), in_.gzip(), schema_.metrics.size());
    }
    if (c.kind == output::writer_kind::perfetto) {
      p.tracks = track_layout_of(counters_);
      p.vendor = "Qualcomm";
      p.model = std::string(in_.gpu()->name);
    }
    return p;
  }

  // The HTML report names the GPU from the ids the rows carried: the fact is
  // added before the writer ends.
  result<accounting> write(const write_options& o, output::text_buffer& out) override {
    output::writer_parts p = writer_parts(o.choice);
    p.layout = o.layout;
    p.fleet = o.fleet;
    output::made_writer m = output::make_writer(o.choice, out, schema_, std::move(p));
    return run(*m.writer, m.report);
  }

  const capture_input& input() const noexcept { return in_; }
  const device* gpu() const noexcept { return in_.gpu(); }
  bool decodable() const noexcept { return decodable_; }
  // After a write: the problems counted, the walk's figures, the capture's GPU id.
  const rows_done& done() const noexcept { return done_; }
  // The GPU id the capture names (known after a write).
  capture_facts facts() const override {
    capture_facts f;
    f.gpu_id = done_.gpu_id;
    return f;
  }
  std::optional<std::string> partial_output() const override {
    if (done_.issues == 0) return std::nullopt;
    return partial_line(in_.name(), done_.issues, done_.walk.skipped_bytes);
  }

 private:
  query_capture(capture_input in, const open_options& o, const pipeline::spelling& sp)
      : in_(std::move(in)), on_issue_(o.on_issue), sp_(sp) {}

  result<accounting> run(row_writer& w, output::html::report_writer* report) {
    totals_.emplace(schema_);
    done_ = rows_done{};
    if (decodable_ && store_) {
      // The rows kept by open(): the schema's cells, totals and issues as a
      // second pass would give them (row_store.hpp).
      store_->replay(
          schema_, &*totals_, [&](const row& r) { w.write(r); },
          [this](const error& e, bool note) {
            if (on_issue_) on_issue_(e, note);
          });
      done_ = kept_;
    } else if (decodable_) {
      auto write = [&](const row& r) { w.write(r); };
      auto d = detail::input_rows(in_, &schema_, write, on_issue_, nullptr, &*totals_);
      if (!d) return d.error_value();
      done_ = std::move(*d);
    }
    if (report != nullptr) {
      // "Adreno 530 (A530, A5XX; the capture's ids)": the GPU id first when there is one.
      const device* gpu = in_.gpu();
      const std::string named = std::string(gpu->name) + ", " + std::string(to_string(gpu->gen));
      const std::string from =
          done_.gpu == gpu ? "; the capture's ids)" : "; " + sp_.option("gpu") + ")";
      report->add_fact("GPU", done_.gpu_id && *done_.gpu_id != 0
                                  ? "Adreno " + std::to_string(*done_.gpu_id) + " (" + named + from
                                  : "Adreno (" + named + from);
    }
    w.end(done_.acc);
    return done_.acc;
  }

  capture_input in_;
  detail::result_rows::issue_fn on_issue_;
  pipeline::spelling sp_;
  bool decodable_ = false;
  std::vector<counter_key> counters_;
  row_schema schema_;
  std::optional<result_totals> totals_;
  std::optional<detail::row_store> store_;  // the rows of open()'s pass, when kept
  rows_done kept_;                          // and what that pass found
  rows_done done_;
};

// The query rows of an Adreno capture, for any door.
inline result<std::unique_ptr<capture>> open_capture(capture_source src, const open_options& o,
                                                     const pipeline::spelling& sp) {
  auto c = query_capture::open(std::move(src), o, sp);
  if (!c) return c.error_value();
  return std::unique_ptr<capture>(std::move(*c));
}

}  // namespace hwpc::adreno
