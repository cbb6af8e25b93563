// One writer factory and one check of the output options for every door and
// vendor: `--output csv|json|perfetto|chrome-json|html` with or without
// `--summary` is checked here once (check_output), and make_writer builds the
// row_writer the choice names from the parts a vendor supplies (the HTML
// report's facts, the Perfetto track tree, the clock, the metrics of the
// totals). The writers themselves know no vendor (core/row.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/json.hpp"
#include "hwpc/output/perfetto/make_trace.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::output {

enum class writer_kind : unsigned char { csv, json, perfetto, chrome_json, html };

struct output_choice {
  writer_kind kind = writer_kind::csv;
  bool summary = false;  // one row of totals (csv or json)
};

// `output`: the option's text; `rows`: what one row is ("interval",
// "sample", "result"), for the message; `binary_to_terminal`: standard
// output is a terminal (a Perfetto trace is binary). Errors are usage
// errors, in the door's spelling (`sp`), a wrong name worded as the tool's
// option parser words a choice (cli.hpp).
inline result<output_choice> check_output(std::string_view output, bool summary,
                                          std::string_view rows, bool binary_to_terminal,
                                          const pipeline::spelling& sp = {}) {
  output_choice c;
  c.summary = summary;
  if (output == "csv") {
    c.kind = writer_kind::csv;
  } else if (output == "json") {
    c.kind = writer_kind::json;
  } else if (output == "perfetto") {
    c.kind = writer_kind::perfetto;
  } else if (output == "chrome-json") {
    c.kind = writer_kind::chrome_json;
  } else if (output == "html") {
    c.kind = writer_kind::html;
  } else {
    return usage_error(sp.option("output") +
                       ": expected csv, json, perfetto, chrome-json or html, not '" +
                       std::string(output) + "'");
  }
  if (summary && c.kind == writer_kind::html) {
    return usage_error(sp.option("summary") + " and " + sp.with("output", "html") +
                       ": the report holds the totals already");
  }
  if (summary && (c.kind == writer_kind::perfetto || c.kind == writer_kind::chrome_json)) {
    return usage_error("--summary writes one row of totals as csv or json, not " +
                       std::string(output) + ": drop --summary for a trace of every " +
                       std::string(rows) + ", or use --output csv|json");
  }
  if (c.kind == writer_kind::perfetto && !summary && binary_to_terminal) {
    return usage_error("--output perfetto writes binary; redirect stdout to a file");
  }
  return c;
}

// `--perfetto-layout`: which Perfetto packets `--output perfetto` writes (GPU
// counters by default). Given with any other output, or with an unknown
// name, it is a usage error, the same for every door.
inline result<perfetto::trace_layout> check_perfetto_layout(const output_choice& c,
                                                            std::string_view layout) {
  const auto v = perfetto::parse_trace_layout(layout);
  if (!v || c.kind != writer_kind::perfetto || c.summary) {
    return usage_error("--perfetto-layout goes with --output perfetto and is " +
                       std::string(perfetto::trace_layout_names) + ", not '" + std::string(layout) +
                       "'");
  }
  return *v;
}

// What a vendor adds to the rows for some writers.
struct writer_parts {
  std::string title;                             // the trace's root track / process name
  totals_metric_fn totals_metrics;               // the metrics of the totals (summary, HTML)
  html::report_options report;                   // html: the page's title and facts
  std::optional<perfetto::track_layout> tracks;  // perfetto: the vendor's track tree
  std::string metric_group;  // perfetto without `tracks`: the metrics' group track
  std::function<std::int64_t(std::uint64_t)> to_ns;  // traces: ticks to ns (else the schema's)
  // perfetto: which packets (check_perfetto_layout), the GPU's GpuInfo, the
  // recording's CPU/GPU correlation points (clock snapshots), and the fleet
  // trace this capture joins as its next GPU (gpu-counters only; null: alone).
  perfetto::trace_layout layout = perfetto::trace_layout::gpu_counters;
  std::string vendor;
  std::string model;
  std::vector<perfetto::clock_pair> correlation;
  perfetto::fleet_writer* fleet = nullptr;
};

struct made_writer {
  std::unique_ptr<row_writer> writer;
  html::report_writer* report = nullptr;  // the HTML writer, for facts known after the rows
};

inline made_writer make_writer(const output_choice& c, text_buffer& out, const row_schema& s,
                               writer_parts parts) {
  made_writer m;
  if (c.summary) {
    m.writer = std::make_unique<summary_writer>(out, s, c.kind == writer_kind::json,
                                                std::move(parts.totals_metrics));
    return m;
  }
  switch (c.kind) {
    case writer_kind::json:
      m.writer = std::make_unique<json_writer>(out, s);
      break;
    case writer_kind::html: {
      auto r = std::make_unique<html::report_writer>(out, s, std::move(parts.report),
                                                     std::move(parts.totals_metrics));
      m.report = r.get();
      m.writer = std::move(r);
      break;
    }
    case writer_kind::perfetto: {
      perfetto::trace_options o;
      o.layout = parts.layout;
      o.title = std::move(parts.title);
      o.vendor = std::move(parts.vendor);
      o.model = std::move(parts.model);
      o.metric_group = std::move(parts.metric_group);
      if (parts.tracks) o.columns = std::move(*parts.tracks);
      o.to_ns = std::move(parts.to_ns);
      o.correlation = std::move(parts.correlation);
      m.writer = perfetto::make_trace_writer(out, s, std::move(o), parts.fleet);
      break;
    }
    case writer_kind::chrome_json:
      m.writer = std::make_unique<chrome_json_writer>(out, s, parts.title, std::move(parts.to_ns));
      break;
    case writer_kind::csv:
      m.writer = std::make_unique<csv_writer>(out, s);
      break;
  }
  return m;
}

}  // namespace hwpc::output
