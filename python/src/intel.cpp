// hwpc.intel.decode: the rows of `hwpc decode` as columns. The pipeline is the
// library's (pipeline/intel_capture.hpp), the one the tool runs: this binding
// turns the keywords into its options, opens the capture and hands its rows
// to a column sink (columns.hpp), or its totals to a totals sink.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "columns.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

const pipeline::spelling python_spelling{pipeline::door::python};

// A library error as the exception its kind calls for (its message is the
// whole text: pipeline/intel_capture.hpp).
[[noreturn]] void raise(const error& e) {
  if (is_usage(e)) throw usage_failure(e.message);
  throw decode_failure(
      e.message,
      e.anchor == error_anchor::byte_offset ? std::optional<std::size_t>(e.offset) : std::nullopt,
      e.anchor == error_anchor::column ? std::optional<std::size_t>(e.offset) : std::nullopt);
}

intel::open_options read_options(const options& o) {
  intel::open_options r;
  r.platform = o.get<std::string>("platform");
  r.format = o.get<std::string>("format");
  r.input_kind = o.get<std::string>("input_kind");
  r.metrics = o.get<std::string>("metrics");
  r.set = o.get<std::string>("set").value_or("");
  r.arithmetic = o.get<std::string>("arithmetic");
  r.definitions = o.get<std::string>("definitions");
  if (auto vars = o.get<pyb::dict>("device_vars")) {
    for (auto [k, v] : *vars) {
      const std::string name = pyb::str(k);
      if (pyb::isinstance<pyb::bool_>(v))
        throw usage_failure("device_vars: " + name + " is a bool");
      r.device_vars[name] = pyb::isinstance<pyb::int_>(v) ? expr::value::u(v.cast<std::uint64_t>())
                                                          : expr::value::f(v.cast<double>());
    }
  }
  r.context = o.get<std::uint32_t>("context");
  if (auto losses = o.get<pyb::list>("xe_losses")) {
    for (pyb::handle l : *losses) {
      auto t = l.cast<std::pair<std::uint32_t, std::uint32_t>>();
      r.xe_losses.push_back({t.first, t.second});
    }
  }
  r.unverified_layouts = o.flag("unverified_layouts");
  r.summary = o.flag("summary");
  return r;
}

// Benchmarks: decode and evaluate, keep nothing.
class null_sink final : public row_writer {
 public:
  void write(const row& r) override { rows += r.counters.size() + r.metrics.size(); }
  void end(const accounting&) override {}
  std::uint64_t rows = 0;
};

pyb::dict decode(const pyb::object& source, const pyb::dict& opts) {
  const options p(opts);
  intel::open_options o = read_options(p);
  const bool discard = p.flag("_discard");        // benchmarks: keep nothing
  const bool store_only = p.flag("_store_only");  // benchmarks: columns freed in C++
  // The schema and no row (hwpc.dask's meta): the input's header is read
  // (a recording's DEVICE_INFO), its reports are not.
  const bool schema_only = p.flag("_schema_only");
  const bool summary = p.flag("summary");
  // Usage errors before the input is touched, as the tool reports them.
  if (auto c = intel::check(o, python_spelling); !c) raise(c.error_value());
  input_source in(source);

  std::unique_ptr<intel::oa_capture> cap;
  std::optional<column_sink> columns;
  std::optional<totals_sink> totals;
  null_sink nothing;
  {
    // Nothing below touches a Python object: other threads (a Dask client's
    // event loop) run while the capture is decoded.
    pyb::gil_scoped_release unlocked;
    auto opened =
        intel::open(capture_source::borrow(in.bytes(), in.name()), std::move(o), python_spelling);
    if (!opened) raise(opened.error_value());
    cap = std::move(*opened);
    row_writer* w = &nothing;
    if (summary) {
      w = &totals.emplace(cap->schema(), cap->totals_metrics());
    } else if (!discard) {
      w = &columns.emplace(cap->schema());
      // At most one row per report slot (and per loss record, fewer still).
      columns->reserve(in.bytes().size() / cap->format().size + 1);
    }
    if (schema_only) {
      w->end(accounting{});
    } else if (totals && cap->totals_whole()) {
      // The tool's way to total a raw capture (pipeline/intel_totals.hpp).
      intel::raw_totals r = cap->total_whole();
      if (auto bad = cap->all_unwritten(r.acc)) raise(*bad);
      totals->set(std::move(r.totals), r.acc);
    } else {
      auto acc = totals ? cap->write_rows_for_totals(*w) : cap->write_rows(*w);
      if (!acc) raise(acc.error_value());
    }
  }
  pyb::dict out;
  if (totals) {
    out = totals->to_python();
  } else if (columns && store_only) {
    out["values"] = columns->acc().intervals;
  } else if (columns) {
    out = columns->to_python();
  } else {
    out["values"] = nothing.rows;
  }
  out["schema"] = schema_to_python(cap->schema());
  pyb::list dropped;
  for (const auto& d : cap->dropped()) dropped.append(d);
  out["dropped"] = dropped;
  out["platform"] = std::string(intel::name_of(cap->plat()));
  out["format"] = std::string(cap->format().name);
  out["metric_set"] = cap->metric_set();
  return out;
}

}  // namespace

void bind_intel(pyb::module_& m) {
  m.def("intel_decode", &decode, pyb::arg("source"), pyb::arg("options"),
        "The rows of `hwpc decode` as columns (hwpc.intel.decode wraps it).");
}

}  // namespace hwpc::py
