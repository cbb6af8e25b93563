// hwpc.intel.decode: the rows of `hwpc decode` (examples/hwpc/cmd_decode.cpp)
// as columns. The same steps in the same order, through the same library
// calls: the input kind (a recording is recognised by its first record), the
// format (from the options, or from a recording's DEVICE_INFO), the metric
// set (pipeline/metric_columns.hpp, the tool's loader), rows evaluated a block at a
// time (pipeline/metric_rows.hpp), so every cell has the tool's bits.
#include "hwpc/intel.hpp"

#include <optional>
#include <string>
#include <vector>

#include "columns.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/input_kind.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/pipeline/intel_totals.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
#include "hwpc/pipeline/metric_rows.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

using intel::input_kind;

struct intel_options {
  std::optional<intel::platform> plat;
  std::optional<std::string> format_name;
  std::optional<input_kind> kind;
  std::optional<std::string> metrics_file;
  std::string metric_set;
  metrics::device_values device_overrides;
  expr::arithmetic arithmetic = expr::arithmetic::mdapi;
  metrics::mdapi::definitions definitions = metrics::mdapi::definitions::mdapi;
  std::optional<std::uint32_t> context;
  std::vector<intel::xe_stream_loss> xe_losses;
  bool unverified = false;
  bool summary = false;
  bool discard = false;     // benchmarks: decode and evaluate, keep nothing
  bool store_only = false;  // benchmarks: fill the columns in C++, hand nothing to Python
  // The schema and no row (hwpc.dask's meta): the input's header is read
  // (a recording's DEVICE_INFO), its reports are not.
  bool schema_only = false;
};

intel_options read_options(const options& o) {
  intel_options r;
  if (auto p = o.get<std::string>("platform")) {
    r.plat = intel::platform_from_name(*p);
    if (!r.plat) throw usage_failure("unknown platform '" + *p + "'");
  }
  r.format_name = o.get<std::string>("format");
  if (auto k = o.get<std::string>("input_kind")) {
    r.kind = intel::parse_input_kind(*k);
    if (!r.kind) {
      throw usage_failure("unknown input_kind '" + *k + "' (" +
                          std::string(intel::input_kind_names) + ")");
    }
  }
  r.metrics_file = o.get<std::string>("metrics");
  r.metric_set = o.get<std::string>("set").value_or("");
  if (!r.metrics_file && !r.metric_set.empty()) throw usage_failure("set needs metrics=FILE.xml");
  if (auto ar = o.get<std::string>("arithmetic")) {
    if (!r.metrics_file) {
      throw usage_failure(
          "arithmetic chooses how metric formulas compute: it needs metrics=FILE.xml");
    }
    const auto v = expr::parse_arithmetic(*ar);
    if (!v) throw usage_failure("arithmetic must be mdapi or igt, not '" + *ar + "'");
    r.arithmetic = *v;
  }
  if (auto d = o.get<std::string>("definitions")) {
    if (!r.metrics_file) {
      throw usage_failure(
          "definitions chooses which formulas a metric set computes from: it needs "
          "metrics=FILE.xml");
    }
    const std::string why = metrics::mdapi::definitions_refusal(*d, r.arithmetic);
    if (!why.empty()) throw usage_failure("definitions " + why);
    r.definitions = *metrics::mdapi::parse_definitions(*d);
  }
  if (auto vars = o.get<pyb::dict>("device_vars")) {
    for (auto [k, v] : *vars) {
      const std::string name = pyb::str(k);
      if (pyb::isinstance<pyb::bool_>(v))
        throw usage_failure("device_vars: " + name + " is a bool");
      if (pyb::isinstance<pyb::int_>(v)) {
        r.device_overrides[name] = expr::value::u(v.cast<std::uint64_t>());
      } else {
        r.device_overrides[name] = expr::value::f(v.cast<double>());
      }
    }
  }
  r.context = o.get<std::uint32_t>("context");
  if (auto losses = o.get<pyb::list>("xe_losses")) {
    for (pyb::handle l : *losses) {
      auto t = l.cast<std::pair<std::uint32_t, std::uint32_t>>();
      r.xe_losses.push_back({t.first, t.second});
    }
  }
  if (!r.xe_losses.empty() && r.kind != input_kind::xe_stream) {
    throw usage_failure("xe_losses goes with input_kind='xe-stream'");
  }
  r.unverified = o.flag("unverified_layouts");
  r.summary = o.flag("summary");
  r.discard = o.flag("_discard");
  r.store_only = o.flag("_store_only");
  r.schema_only = o.flag("_schema_only");
  return r;
}

struct capture_info {
  const intel::report_format* format = nullptr;
  const intel::xe_format* xe = nullptr;
  intel::platform plat{};
  input_kind kind = input_kind::raw;
  std::uint64_t frequency = 0;
  intel::row_options rows;
};

// The format of raw and stream input, from the options (cmd_decode.cpp's resolve_format).
void resolve_format(const intel_options& o, capture_info& c) {
  if (!o.plat || !o.format_name) {
    throw usage_failure("platform and format are required for raw and stream input");
  }
  c.plat = *o.plat;
  const intel::resolved_format f =
      intel::resolve_report_format(*o.plat, *o.format_name, o.kind.value_or(input_kind::raw));
  c.format = f.format;
  c.xe = f.xe;
  if (c.xe != nullptr && !c.xe->verified && !o.unverified) {
    throw usage_failure("the Xe layout " + std::string(c.xe->name) + " is not verified (" +
                        std::string(c.xe->evidence) +
                        "); unverified_layouts=True decodes it anyway");
  }
  if (c.format == nullptr) {
    const std::string p(intel::name_of(*o.plat));
    throw usage_failure("platform " + p + " has no report format '" + *o.format_name + "'");
  }
}

// Rows (or totals) of `src` into `w`, metrics a block at a time.
template <class Source>
accounting drive(const Source& src, const capture_info& c, metrics::row_metrics* m,
                 bool per_row_metrics, output::row_writer& w, std::size_t counters) {
  std::optional<pipeline::metric_rows> held;
  if (m != nullptr && per_row_metrics) held.emplace(*m, counters, w);
  const accounting acc =
      intel::for_each_row(src, intel::generation_of(c.plat), c.rows, [&](row& r) {
        if (held) {
          held->add(r);
        } else {
          w.write(r);
        }
      });
  if (held) held->flush();
  w.end(acc);
  return acc;
}

class null_sink final : public output::row_writer {
 public:
  void write(const row& r) override { rows += r.counters.size() + r.metrics.size(); }
  void end(const accounting&) override {}
  std::uint64_t rows = 0;
};

pyb::dict decode(const pyb::object& source, const pyb::dict& opts) {
  intel_options o = read_options(options(opts));
  capture_info c;
  const bool have_pf = o.plat && o.format_name;
  if (have_pf) resolve_format(o, c);
  if (!have_pf && o.kind && *o.kind != input_kind::recording) resolve_format(o, c);

  input_source in(source);
  const byte_span bytes = in.bytes();
  const std::string& name = in.name();

  pyb::dict out;
  std::optional<column_sink> columns;
  std::optional<totals_sink> totals;
  null_sink discard;
  std::vector<std::string> dropped;
  row_schema schema;
  {
    pyb::gil_scoped_release unlocked;
    c.kind = o.kind ? *o.kind : intel::detect_input_kind(bytes);
    std::optional<intel::recording> rec;
    std::optional<intel::xe_recording> xrec;
    if (c.kind == input_kind::recording && intel::xe_recording::looks_like_xe_recording(bytes)) {
      intel::xe_recording_options ro;
      ro.fallback_platform = o.plat;
      ro.unverified_layouts = true;
      auto r = intel::xe_recording::make(bytes, ro);
      if (!r) fail_input(name, r.error_value());
      xrec.emplace(std::move(*r));
      if (!xrec->xe().verified && !o.unverified) {
        throw usage_failure(name + ": the recording's Xe layout " + std::string(xrec->xe().name) +
                            " is not verified (" + std::string(xrec->xe().evidence) +
                            "); unverified_layouts=True decodes it anyway");
      }
      c.plat = xrec->device_platform();
      c.xe = &xrec->xe();
      c.format = &xrec->format();
      if (o.format_name && *o.format_name != c.xe->name) {
        throw usage_failure("format " + *o.format_name + " does not match the recording's " +
                            std::string(c.xe->name) + " (its DEVICE_INFO gives the format)");
      }
      c.frequency = xrec->timestamp_frequency();
      if (o.metrics_file && o.metric_set.empty()) {
        o.metric_set = std::string(xrec->metric_set_name());
      }
    } else if (c.kind == input_kind::recording) {
      intel::recording_options ro;
      ro.fallback_platform = o.plat;
      auto r = intel::recording::make(bytes, ro);
      if (!r) fail_input(name, r.error_value());
      rec.emplace(std::move(*r));
      c.plat = rec->device_platform();
      c.format = &rec->format();
      if (o.format_name && !c.format->named(*o.format_name)) {
        throw usage_failure("format " + *o.format_name + " does not match the recording's " +
                            std::string(c.format->name) + " (its DEVICE_INFO gives the format)");
      }
      c.frequency = rec->timestamp_frequency();
      if (o.metrics_file && o.metric_set.empty()) {
        o.metric_set = std::string(rec->device().metric_set_name);
      }
    } else {
      resolve_format(o, c);
      c.frequency = intel::info(c.plat).timestamp_frequency_hz;
    }
    if (o.context) {
      if (intel::is_gen7_family(intel::generation_of(c.plat))) {
        throw usage_failure("context: " + std::string(intel::name_of(c.plat)) +
                            " reports carry no context id");
      }
      c.rows.filter = intel::context_filter::from_reports();
      c.rows.context = *o.context;
    }

    schema = intel::schema_of(*c.format, c.plat, c.kind != input_kind::raw, c.frequency);
    std::optional<metrics::row_metrics> metric_columns;
    if (o.metrics_file && o.metric_set.empty()) {
      throw usage_failure("metrics needs set=SYMBOL: the input names no metric set");
    }
    if (o.metrics_file) {
      metrics::intel_device dev = rec    ? metrics::device_of(*rec)
                                  : xrec ? metrics::device_of(*xrec)
                                         : metrics::device_of(c.plat);
      if (dev.timestamp_frequency_hz == 0) dev.timestamp_frequency_hz = c.frequency;
      metrics::device_values values = metrics::to_device_values(dev);
      for (const auto& [k, v] : o.device_overrides) values[k] = v;
      auto m = pipeline::load_metric_columns(*o.metrics_file, o.metric_set, schema, values,
                                             o.arithmetic, o.definitions);
      if (!m) {
        if (m.error_value().code == errc::unknown_name) {
          throw usage_failure("--metrics: " + m.error_value().describe());
        }
        const error& e = m.error_value();
        throw decode_failure(
            "--metrics: " + e.describe(),
            e.anchor == error_anchor::byte_offset ? std::optional<std::size_t>(e.offset)
                                                  : std::nullopt,
            e.anchor == error_anchor::column ? std::optional<std::size_t>(e.offset) : std::nullopt);
      }
      for (const auto& d : m->dropped()) dropped.push_back(metrics::describe(d));
      metric_columns.emplace(std::move(*m));
      schema.metrics = metric_columns->columns();
    }
    metrics::row_metrics* mc = metric_columns ? &*metric_columns : nullptr;

    output::row_writer* w = &discard;
    if (o.summary) {
      output::totals_metric_fn tm;
      if (mc != nullptr) {
        tm = [mc](std::span<const std::uint64_t> t, std::uint64_t elapsed,
                  std::vector<cell>& cells) {
          cells.resize(mc->size());
          mc->evaluate(t, elapsed, cells);
        };
      }
      w = &totals.emplace(schema, std::move(tm));
    } else if (!o.discard) {
      w = &columns.emplace(schema);
      // At most one row per report slot (and per loss record, fewer still).
      columns->reserve(bytes.size() / c.format->size + 1);
    }
    const bool per_row = !o.summary;
    const std::size_t nc = schema.counters.size();
    accounting acc;
    if (o.schema_only) {
      w->end(acc);
    } else if (c.kind == input_kind::raw) {
      auto buf = intel::report_buffer::make(bytes, *c.format);
      if (!buf) fail_input(name, buf.error_value());
      if (totals && !o.context) {
        // The tool's way to total a raw capture (pipeline/intel_totals.hpp).
        intel::raw_totals r = intel::total_raw(*buf, intel::generation_of(c.plat), mc);
        acc = r.acc;
        totals->set(std::move(r.totals), r.acc);
      } else {
        acc = drive(intel::raw_capture(*buf), c, mc, per_row, *w, nc);
      }
    } else if (c.kind == input_kind::xe_stream) {
      auto st = intel::xe_stream::make(bytes, *c.xe, o.xe_losses);
      if (!st) fail_input(name, st.error_value());
      acc = drive(*st, c, mc, per_row, *w, nc);
    } else if (c.kind == input_kind::i915_stream) {
      auto st = intel::i915_stream::make(bytes, *c.format);
      if (!st) fail_input(name, st.error_value());
      c.rows.unknown_records = st->unknown_records();
      acc = drive(*st, c, mc, per_row, *w, nc);
    } else if (xrec) {
      c.rows.unknown_records = xrec->unknown_records();
      acc = drive(*xrec, c, mc, per_row, *w, nc);
    } else {
      c.rows.unknown_records = rec->unknown_records();
      acc = drive(*rec, c, mc, per_row, *w, nc);
    }
    if (acc.reports != 0 && acc.skipped_zero == acc.reports) {
      const char* what = c.format->xe_landed_rule ? " reports have RPT_ID and TIMESTAMP 0"
                                                  : " reports have RPT_ID 0";
      throw decode_failure(name + ": all " + std::to_string(acc.reports) + what +
                           " (slots the OA unit never wrote); nothing to decode");
    }
  }
  if (totals) {
    out = totals->to_python();
  } else if (columns && o.store_only) {
    out["values"] = columns->acc().intervals;
  } else if (columns) {
    out = columns->to_python();
  } else {
    out["values"] = discard.rows;
  }
  out["schema"] = schema_to_python(schema);
  pyb::list dl;
  for (const auto& d : dropped) dl.append(d);
  out["dropped"] = dl;
  out["platform"] = std::string(intel::name_of(c.plat));
  out["format"] = std::string(c.format->name);
  out["metric_set"] = o.metric_set;
  return out;
}

}  // namespace

void bind_intel(pyb::module_& m) {
  m.def("intel_decode", &decode, pyb::arg("source"), pyb::arg("options"),
        "The rows of `hwpc decode` as columns (hwpc.intel.decode wraps it).");
}

}  // namespace hwpc::py
