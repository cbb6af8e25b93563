// hwpc.mali.decode: the rows of `hwpc mali` as columns. The options are
// checked and the capture opened by the library (pipeline/mali_open.hpp),
// as the tool does: a capture file's header names what the options leave
// out and must agree with what they give, the GPU is never guessed, derived
// counters come with bus_width_bits.
#include "hwpc/mali.hpp"

#include <optional>
#include <string>

#include "columns.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/capture_input.hpp"
#include "hwpc/mali/plausibility.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/pipeline/mali_open.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

const mali::gpu_product* gpu_of(const pyb::object& v) {
  std::string text;
  if (pyb::isinstance<pyb::int_>(v)) {
    text = to_hex(v.cast<std::uint64_t>());
  } else {
    text = v.cast<std::string>();
  }
  auto g = mali::find_gpu(text);
  if (!g) throw usage_failure("gpu: " + g.error_value().describe());
  return *g;
}

// A library error: a usage error raises ValueError, bad input DecodeError.
[[noreturn]] void fail(const std::string& path, const error& e) {
  if (is_usage(e)) throw usage_failure(e.message);
  fail_input(path, e);
}

pyb::dict decode(const pyb::object& source, const pyb::dict& opts) {
  const options o(opts);
  mali::open_options mo;
  if (pyb::object g = o.raw("gpu"); !g.is_none()) mo.gpu = gpu_of(g);
  mo.reader = o.get<std::string>("reader");
  mo.core_index = o.get<std::string>("core_index");
  mo.l2_slices = o.get<std::uint64_t>("l2_slices");
  mo.core_mask = o.get<std::uint64_t>("core_mask");
  mo.bus_width_bits = o.get<std::uint64_t>("bus_width_bits");
  mo.max_clock_mhz = o.get<std::uint64_t>("max_clock_mhz");
  mo.derived = o.get<std::string>("derived");
  mo.names = o.get<std::string>("names");
  mo.per_instance = o.flag("per_instance");
  const pipeline::spelling sp{pipeline::door::python};
  if (auto ok = mali::check(mo, sp); !ok) fail("", ok.error_value());
  const bool summary = o.flag("summary");
  const bool schema_only = o.flag("_schema_only");  // hwpc.dask's meta: no sample read

  input_source in(source);
  const std::string& path = in.name();
  pyb::dict out;
  std::optional<column_sink> columns;
  std::optional<totals_sink> totals;
  std::optional<row_schema> schema;
  std::vector<std::string> warnings;
  std::uint64_t warnings_total = 0;
  {
    pyb::gil_scoped_release unlocked;
    auto opened = mali::open(in.bytes(), mo, sp);
    if (!opened) fail(path, opened.error_value());
    mali::opened_capture& c = *opened;
    std::optional<mali::evaluator>& metrics = c.metrics;
    mali::row_builder builder(*c.gpu, metrics ? &*metrics : nullptr, c.rows);
    schema = builder.schema();
    std::optional<error> metric_error;
    output::row_writer* w = nullptr;
    if (summary) {
      output::totals_metric_fn tm;
      if (metrics) {
        tm = [&](std::span<const std::uint64_t> t, std::uint64_t, std::vector<cell>& cells) {
          if (auto ok = builder.metrics_of(t, cells); !ok) metric_error = ok.error_value();
        };
      }
      w = &totals.emplace(*schema, std::move(tm));
    } else {
      w = &columns.emplace(*schema);
    }
    // The tool's physics checks on every row (its stderr warnings).
    mali::plausibility_options popt;
    if (mo.max_clock_mhz) popt.max_clock_hz = *mo.max_clock_mhz * 1'000'000;
    mali::plausibility_checker checker(*c.gpu->table, c.layout, popt,
                                       metrics ? &*metrics : nullptr);
    auto write_row = [&](const row& r) {
      checker.check(r);
      w->write(r);
    };
    if (schema_only) {
      w->end(accounting{});
    } else {
      auto acc = mali::for_each_row(c, builder, write_row);
      if (!acc) fail_input(path, acc.error_value());
      w->end(*acc);
    }
    if (metric_error) fail_input("", *metric_error);
    for (const auto& f : checker.findings()) warnings.push_back(f.describe());
    warnings_total = checker.total_findings();
  }
  out = totals ? totals->to_python() : columns->to_python();
  out["schema"] = schema_to_python(*schema);
  out["dropped"] = pyb::list();
  pyb::list wl;
  for (const auto& t : warnings) wl.append(t);
  out["warnings"] = wl;
  out["warnings_total"] = warnings_total;
  return out;
}

}  // namespace

void bind_mali(pyb::module_& m) {
  m.def("mali_decode", &decode, pyb::arg("source"), pyb::arg("options"),
        "The rows of `hwpc mali` as columns (hwpc.mali.decode wraps it).");
}

}  // namespace hwpc::py
