// hwpc._hwpc.perfetto_fleet: several captures' rows (NumPy columns, as
// hwpc.Rows holds them) written as one Perfetto trace by the library's
// fleet writer (output/perfetto/fleet_writer.hpp), capture k as GPU k.
// hwpc.dask.to_perfetto() decodes on the workers and calls it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "hwpc/output/perfetto/fleet_writer.hpp"
#include "module.hpp"

namespace hwpc::py {

namespace {

namespace pyb = pybind11;
using u64_array = pyb::array_t<std::uint64_t, pyb::array::c_style | pyb::array::forcecast>;
using f64_array = pyb::array_t<double, pyb::array::c_style | pyb::array::forcecast>;
using bool_array = pyb::array_t<bool, pyb::array::c_style | pyb::array::forcecast>;

// One capture: its schema and its columns, checked for equal lengths.
struct capture_columns {
  row_schema schema;
  output::perfetto::gpu_capture capture;
  u64_array begin, end;
  std::vector<u64_array> counters;
  std::vector<f64_array> metrics;
  std::optional<bool_array> lost;
  std::size_t rows = 0;
};

capture_columns from_python(const pyb::dict& d) {
  capture_columns c;
  c.capture.gpu.name = d["name"].cast<std::string>();
  c.capture.gpu.vendor = d["vendor"].cast<std::string>();
  c.schema.source = d["source"].cast<std::string>();
  c.schema.clock =
      d["clock"].cast<std::string>() == "cpu_ns" ? clock_kind::cpu_ns : clock_kind::gpu_timestamp;
  c.schema.ticks_per_second = d["ticks_per_second"].cast<std::uint64_t>();
  c.begin = d["begin"].cast<u64_array>();
  c.end = d["end"].cast<u64_array>();
  c.rows = static_cast<std::size_t>(c.end.size());
  auto check = [&](std::size_t n, const std::string& what) {
    if (n != c.rows)
      throw std::invalid_argument(what + ": " + std::to_string(n) + " rows, not " +
                                  std::to_string(c.rows));
  };
  check(static_cast<std::size_t>(c.begin.size()), "begin");
  for (const auto& t : d["counters"].cast<pyb::list>()) {
    const auto [name, units, a] = t.cast<std::tuple<std::string, std::string, u64_array>>();
    c.schema.counters.push_back({name, units, column_kind::counter});
    check(static_cast<std::size_t>(a.size()), name);
    c.counters.push_back(a);
  }
  for (const auto& t : d["metrics"].cast<pyb::list>()) {
    const auto [name, units, a] = t.cast<std::tuple<std::string, std::string, f64_array>>();
    c.schema.metrics.push_back({name, units, column_kind::metric});
    check(static_cast<std::size_t>(a.size()), name);
    c.metrics.push_back(a);
  }
  if (!d["lost"].is_none()) {
    c.lost = d["lost"].cast<bool_array>();
    check(static_cast<std::size_t>(c.lost->size()), "lost");
    c.schema.has_losses = true;
  }
  return c;
}

// Hands capture `c`'s rows to `w`, a NaN metric as an empty cell.
void feed(const capture_columns& c, output::row_writer& w) {
  std::vector<std::uint64_t> counters(c.counters.size());
  std::vector<cell> metrics(c.metrics.size());
  const auto begin = c.begin.unchecked<1>();
  const auto end = c.end.unchecked<1>();
  for (std::size_t i = 0; i < c.rows; ++i) {
    row r{};
    r.report = i;
    r.begin = begin(static_cast<pyb::ssize_t>(i));
    r.end = end(static_cast<pyb::ssize_t>(i));
    r.lost = c.lost && c.lost->unchecked<1>()(static_cast<pyb::ssize_t>(i));
    if (!r.lost) {
      for (std::size_t k = 0; k < counters.size(); ++k) {
        counters[k] = c.counters[k].unchecked<1>()(static_cast<pyb::ssize_t>(i));
      }
      for (std::size_t k = 0; k < metrics.size(); ++k) {
        const double v = c.metrics[k].unchecked<1>()(static_cast<pyb::ssize_t>(i));
        metrics[k] = std::isnan(v) ? cell::none() : cell::f(v);
      }
      r.counters = counters;
      r.metrics = metrics;
    }
    w.write(r);
  }
  w.end(accounting{});
}

void perfetto_fleet(const std::string& path, const pyb::list& captures) {
  std::vector<std::unique_ptr<capture_columns>> cols;
  for (const auto& c : captures)
    cols.push_back(std::make_unique<capture_columns>(from_python(c.cast<pyb::dict>())));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw std::invalid_argument("cannot write " + path);
  {
    output::text_buffer out(f.get());
    std::vector<output::perfetto::capture_stream> streams;
    for (const auto& c : cols) {
      const capture_columns* p = c.get();
      streams.push_back({&p->schema, p->capture, [p](output::row_writer& w) { feed(*p, w); }});
    }
    output::perfetto::write_fleet(out, streams);
    out.flush();
  }
}

}  // namespace

void bind_perfetto(pyb::module_& m) {
  m.def("perfetto_fleet", &perfetto_fleet, pyb::arg("path"), pyb::arg("captures"),
        "Writes captures' rows (dicts of columns) as one Perfetto trace, capture k as GPU k.");
}

}  // namespace hwpc::py
