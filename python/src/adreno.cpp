// hwpc.adreno.packets: a binding of the library's packet listing
// (pipeline/adreno_packets.hpp), the one `hwpc adreno --packets` writes, as a
// table. Options are checked and worded by the library in Python's spelling;
// an .rd file, plain or gzip, is streamed from its path in bounded memory.
// The query rows (hwpc.adreno.queries) are hwpc::open's, bound in open.cpp.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columns.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_packets.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

const pipeline::spelling python{pipeline::door::python};

// The options, checked (usage errors as ValueError).
adreno::open_options open_options_of(const options& o) {
  adreno::open_options a;
  a.format = o.get<std::string>("format").value_or("auto");
  a.gpu = o.get<std::string>("gpu");
  if (auto ok = adreno::check(a, python); !ok) throw usage_failure(ok.error_value().message);
  return a;
}

[[noreturn]] void raise(const std::string& path, const error& e) {
  if (is_usage(e)) throw usage_failure(path + ": " + e.message);
  fail_input(path, e);
}

pyb::dict packets(const pyb::object& source, const pyb::dict& opts) {
  const adreno::open_options a = open_options_of(options(opts));
  std::optional<input_source> keep;
  capture_source src = source_of(source, keep);
  const std::string path = src.name();
  std::optional<adreno::packet_columns> t;
  const adreno::device* gpu = nullptr;
  {
    pyb::gil_scoped_release unlocked;
    auto in = adreno::capture_input::open(std::move(src), a, python);
    if (!in) raise(path, in.error_value());
    gpu = in->gpu();
    t.emplace(gpu != nullptr ? gpu->gen : adreno::generation::unknown);
    auto walked = adreno::walk_packets(*in, *t);
    if (!walked) fail_input(path, walked.error_value());
  }
  pyb::dict d;
  d["offset"] = to_numpy(std::move(t->offset));
  d["gpu_address"] = to_numpy(std::move(t->gpu_address));
  d["depth"] = to_numpy(std::move(t->depth));
  d["group"] = to_numpy(std::move(t->group));
  d["pass"] = pyb::cast(t->pass);
  d["type"] = to_numpy(std::move(t->type));
  d["id"] = to_numpy(std::move(t->id));
  d["name"] = pyb::cast(t->name);
  d["count"] = to_numpy(std::move(t->count));
  d["payload"] = pyb::cast(t->payload);
  d["event"] = to_numpy(std::move(t->event));
  d["event_name"] = pyb::cast(t->event_name);
  d["issues"] = pyb::cast(t->issues);
  d["gpu"] =
      gpu != nullptr ? pyb::object(pyb::str(adreno::describe(*gpu))) : pyb::object(pyb::none());
  return d;
}

}  // namespace

void bind_adreno(pyb::module_& m) {
  m.def("adreno_packets", &packets, pyb::arg("source"), pyb::arg("options"));
}

}  // namespace hwpc::py
