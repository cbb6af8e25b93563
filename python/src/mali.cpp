// hwpc.mali.decode: the rows of `hwpc mali` as columns. The options are
// checked, the capture opened and its rows made by the library
// (pipeline/mali_capture.hpp), as for the tool: a capture file's header names what the options
// leave out and must agree with what they give, the GPU is never guessed, derived counters come
// with bus_width_bits.
#include "hwpc/mali.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columns.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/mali_capture.hpp"
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
  std::unique_ptr<capture> cap;  // outlives the sinks (the totals' derived counters)
  std::vector<std::string> warnings;
  std::uint64_t warnings_total = 0;
  {
    pyb::gil_scoped_release unlocked;
    auto opened = mali::open_capture(capture_source::borrow(in.bytes(), path), mo, sp);
    if (!opened) fail(path, opened.error_value());
    cap = std::move(*opened);
    schema = cap->schema();
    output::row_writer* w = nullptr;
    if (summary) {
      w = &totals.emplace(*schema,
                          cap->writer_parts({output::writer_kind::csv, true}).totals_metrics);
    } else {
      w = &columns.emplace(*schema);
    }
    if (schema_only) {
      w->end(accounting{});
    } else {
      // The rows pass the tool's physics checks (its stderr warnings).
      auto acc = cap->write_rows(*w);
      if (!acc) fail_input(path, acc.error_value());
      if (const auto* checker = mali::mali_side(*cap)->plausibility()) {
        for (const auto& f : checker->findings()) warnings.push_back(f.describe());
        warnings_total = checker->total_findings();
      }
    }
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
