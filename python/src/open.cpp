// hwpc.decode, hwpc.intel.decode, hwpc.mali.decode and hwpc.adreno.queries:
// one binding of the library's hwpc::open (pipeline/open.hpp), the call
// `hwpc decode FILE` and `hwpc report` make. The keywords become
// hwpc::open_options (every vendor's, read while the GIL is held), the
// library picks the vendor by its one rule (or takes the one a vendor's call
// names), opens the capture and hands its rows to a column sink
// (columns.hpp), or its totals to a totals sink, with the GIL released.
//
// What a capture says beyond the row contract comes from the library's
// capture (capture::facts(), capture::totals()), so nothing here asks which
// vendor's capture it holds; the vendor only picks the dict's keys and the
// errors' wording (a vendor's messages name the input as the tool's command
// for that vendor does).
#include "hwpc/pipeline/open.hpp"

#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columns.hpp"
#include "hwpc/core/hex.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

const pipeline::spelling python{pipeline::door::python};

// What the call asks beyond the library's options.
struct call_options {
  bool own_call = false;     // a vendor's own call (hwpc.mali.decode): the vendor is given
  bool summary = false;      // one row of totals
  bool schema_only = false;  // hwpc.dask's meta: the schema, no row read
  bool discard = false;      // benchmarks: decode and evaluate, keep nothing
  bool store_only = false;   // benchmarks: columns freed in C++
  // A GPU given as an int: Mali reads it as a GPU_ID (hex), Adreno as a GPU
  // id (decimal, in open_options::gpu).
  std::optional<std::string> gpu_id_hex;
  // Mali's keywords the vendor rule does not read (they pick no vendor):
  // refused for another vendor's capture.
  std::vector<std::string_view> mali_only;
};

hwpc::vendor vendor_named(const std::string& v) {
  if (v != "intel" && v != "mali" && v != "adreno") {
    throw usage_failure("vendor: expected intel, mali or adreno, not '" + v + "'");
  }
  return v == "mali" ? vendor::mali : v == "adreno" ? vendor::adreno : vendor::intel;
}

// Every keyword, read from its Python object now: nothing is read once the
// GIL is released.
hwpc::open_options read_options(const options& p, call_options& c) {
  hwpc::open_options o;
  if (auto v = p.get<std::string>("vendor")) o.vendor = vendor_named(*v);
  c.own_call = p.flag("_own_call");
  c.summary = p.flag("summary");
  c.schema_only = p.flag("_schema_only");
  c.discard = p.flag("_discard");
  c.store_only = p.flag("_store_only");
  o.format = p.get<std::string>("format");
  if (pyb::object g = p.raw("gpu"); !g.is_none()) {
    o.gpu = std::string(pyb::str(g));
    if (pyb::isinstance<pyb::int_>(g) && !(g < pyb::int_(0))) {
      c.gpu_id_hex = to_hex(g.cast<std::uint64_t>());
    }
  }

  intel::open_options& i = o.intel;
  i.platform = p.get<std::string>("platform");
  i.input_kind = p.get<std::string>("input_kind");
  i.metrics = p.get<std::string>("metrics");
  i.set = p.get<std::string>("set").value_or("");
  i.arithmetic = p.get<std::string>("arithmetic");
  i.definitions = p.get<std::string>("definitions");
  if (auto vars = p.get<pyb::dict>("device_vars")) {
    for (auto [k, v] : *vars) {
      const std::string name = pyb::str(k);
      if (pyb::isinstance<pyb::bool_>(v)) {
        throw usage_failure("device_vars: " + name + " is a bool");
      }
      i.device_vars[name] = pyb::isinstance<pyb::int_>(v) ? expr::value::u(v.cast<std::uint64_t>())
                                                          : expr::value::f(v.cast<double>());
    }
  }
  i.context = p.get<std::uint32_t>("context");
  if (auto losses = p.get<pyb::list>("xe_losses")) {
    for (pyb::handle l : *losses) {
      auto t = l.cast<std::pair<std::uint32_t, std::uint32_t>>();
      i.xe_losses.push_back({t.first, t.second});
    }
  }
  i.unverified_layouts = p.flag("unverified_layouts");
  i.summary = c.summary;

  mali::open_options& m = o.mali;
  m.reader = p.get<std::string>("reader");
  m.core_index = p.get<std::string>("core_index");
  m.l2_slices = p.get<std::uint64_t>("l2_slices");
  m.core_mask = p.get<std::uint64_t>("core_mask");
  m.bus_width_bits = p.get<std::uint64_t>("bus_width_bits");
  m.max_clock_mhz = p.get<std::uint64_t>("max_clock_mhz");
  m.derived = p.get<std::string>("derived");
  m.names = p.get<std::string>("names");
  m.per_instance = p.flag("per_instance");
  if (m.names) c.mali_only.push_back("names");
  if (m.per_instance) c.mali_only.push_back("per_instance");
  if (m.max_clock_mhz) c.mali_only.push_back("max_clock_mhz");
  return o;
}

// A library error as the exception its kind calls for, worded as the tool's
// command for the vendor words it: Intel's errors carry the whole line
// (pipeline/intel_capture.hpp), Mali's and Adreno's bad input names the
// input, and so does an Adreno usage error found while opening.
[[noreturn]] void raise(hwpc::vendor v, const std::string& path, const error& e, bool opening) {
  if (is_usage(e)) {
    throw usage_failure(v == vendor::adreno && opening ? path + ": " + e.message : e.message);
  }
  if (v != vendor::intel) fail_input(path, e);
  throw decode_failure(
      e.message,
      e.anchor == error_anchor::byte_offset ? std::optional<std::size_t>(e.offset) : std::nullopt,
      e.anchor == error_anchor::column ? std::optional<std::size_t>(e.offset) : std::nullopt);
}

// Benchmarks: decode and evaluate, keep nothing.
class null_sink final : public row_writer {
 public:
  void write(const row& r) override { rows += r.counters.size() + r.metrics.size(); }
  void end(const accounting&) override {}
  std::uint64_t rows = 0;
};

// What one decode leaves for the Python objects made once the GIL is back.
struct decoded {
  std::unique_ptr<capture> cap;  // outlives the sinks (their totals' metrics)
  std::optional<column_sink> columns;
  std::optional<totals_sink> totals;
  null_sink nothing;
  capture_facts facts;  // what the capture says of itself once written
  // Adreno's problems and notes, as the tool prints them on stderr.
  std::vector<std::string> issues;
};

// Opens the capture and writes its rows into the sink the call asks for.
// Runs without the GIL: no Python object is touched.
void run(capture_source src, hwpc::open_options o, const call_options& c, decoded& d) {
  const std::string path = src.name();
  // A vendor's own call has its vendor: the bytes need not say it (the
  // identity only words a refusal, and its call passes none of another
  // vendor's options). Else they are identified once, for the rule and open.
  const identity id = c.own_call ? identity{} : identify(src.bytes());
  auto chosen = choose_vendor(id, path, o, python);
  if (!chosen) throw usage_failure(chosen.error_value().message);
  const hwpc::vendor v = *chosen;
  if (v == vendor::mali && c.gpu_id_hex) o.gpu = c.gpu_id_hex;
  if (!c.own_call) {
    if (v != vendor::mali && !c.mali_only.empty()) {
      throw usage_failure(
          hwpc::detail::not_an_option(c.mali_only.front(), v, path, id, python).message);
    }
    if (auto ok = check_options(o, v, python); !ok) throw usage_failure(ok.error_value().message);
  }
  o.vendor = v;
  auto opened = hwpc::open(std::move(src), o, python, id);
  if (!opened) raise(v, path, opened.error_value(), true);
  d.cap = std::move(*opened);
  capture& cap = *d.cap;
  if (v == vendor::adreno) {
    for (const std::string& w : cap.warnings()) d.issues.push_back(path + ": note: " + w);
  }
  if (c.summary) {
    if (c.schema_only) {
      // The totals of no row, as the schema's meta (hwpc.dask).
      output::totals_writer none(cap.schema(),
                                 cap.writer_parts({output::writer_kind::csv, true}).totals_metrics);
      none.end(accounting{});
      d.totals.emplace(cap.schema(), none.result(), accounting{});
      return;
    }
    auto t = cap.totals();
    if (!t) raise(v, path, t.error_value(), false);
    d.totals.emplace(cap.schema(), std::move(t->totals), t->acc);
  } else {
    row_writer* w = &d.nothing;
    if (!c.discard) {
      w = &d.columns.emplace(cap.schema());
      if (const std::size_t n = cap.rows_at_most(); n != 0) d.columns->reserve(n);
    }
    if (c.schema_only) {
      w->end(accounting{});
      return;
    }
    auto acc = cap.write_rows(*w);
    if (!acc) raise(v, path, acc.error_value(), false);
  }
  d.facts = cap.facts();
}

pyb::dict decode(const pyb::object& source, const pyb::dict& opts) {
  call_options c;
  hwpc::open_options o = read_options(options(opts), c);
  // A vendor's own call checks its options before the input is touched, as
  // the tool's vendor commands do.
  if (c.own_call && o.vendor) {
    if (*o.vendor == vendor::mali && c.gpu_id_hex) o.gpu = c.gpu_id_hex;
    if (auto ok = check_options(o, *o.vendor, python); !ok) {
      throw usage_failure(ok.error_value().message);
    }
  }
  std::optional<input_source> keep;
  capture_source src = source_of(source, keep);
  const std::string path = src.name();
  decoded d;
  o.adreno.on_issue = [&d, &path](const error& e, bool note) {
    d.issues.push_back(path + ": " + (note ? "note: " : "") + e.describe());
  };
  {
    pyb::gil_scoped_release unlocked;
    run(std::move(src), std::move(o), c, d);
  }
  const capture& cap = *d.cap;
  pyb::dict out;
  if (d.totals) {
    out = d.totals->to_python();
  } else if (d.columns && c.store_only) {
    out["values"] = d.columns->acc().intervals;
  } else if (d.columns) {
    out = d.columns->to_python();
  } else {
    out["values"] = d.nothing.rows;
  }
  out["schema"] = schema_to_python(cap.schema());
  const capture_facts& f = d.facts;
  if (cap.vendor() == vendor::intel) {
    out["platform"] = f.platform;
    out["format"] = f.format;
    out["metric_set"] = f.metric_set;
  }
  out["dropped"] = pyb::cast(f.dropped_metrics);
  if (cap.vendor() == vendor::mali) {
    out["warnings"] = pyb::cast(f.findings);
    out["warnings_total"] = f.findings_total;
  }
  if (cap.vendor() == vendor::adreno) {
    out["issues"] = pyb::cast(d.issues);
    out["gpu_id"] = f.gpu_id ? pyb::object(pyb::int_(*f.gpu_id)) : pyb::object(pyb::none());
  }
  return out;
}

}  // namespace

void bind_open(pyb::module_& m) {
  m.def("decode", &decode, pyb::arg("source"), pyb::arg("options"),
        "The rows of any capture as columns, opened by the library's hwpc::open (hwpc.decode "
        "and the vendors' decodes wrap it).");
}

}  // namespace hwpc::py
