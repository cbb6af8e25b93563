// hwpc._hwpc: the C++ half of the Python package. The pure-Python half
// (python/hwpc/) turns what these functions return into hwpc.Rows and
// pandas DataFrames; everything that reads bytes or computes a value is here,
// in the library's own code.
#include "module.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "hwpc/expr.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/open.hpp"
#include "source.hpp"

#ifndef HWPC_VERSION
#define HWPC_VERSION "0.0.0"
#endif

namespace hwpc::py {

namespace {

// One entry per format, the keys of `hwpc formats --json` (cmd_formats.cpp).
pyb::list formats() {
  pyb::list out;
  auto one = [&](const intel::report_format& f, const intel::xe_format* xe) {
    pyb::dict d;
    d["name"] = std::string(f.name);
    pyb::list aliases, plats, fields;
    for (auto a : f.aliases) aliases.append(std::string(a));
    for (auto p : f.platforms) plats.append(std::string(intel::name_of(p)));
    for (const auto& fd : f.fields) {
      pyb::dict x;
      x["name"] = std::string(fd.name);
      x["offset"] = fd.offset;
      x["bits"] = fd.bits;
      if (fd.bits == 40) x["high_byte_offset"] = fd.high_byte_offset;
      fields.append(x);
    }
    d["aliases"] = aliases;
    d["platforms"] = plats;
    d["counter_select"] = f.counter_select;
    d["uapi_id"] = f.uapi_id < 0 ? pyb::object(pyb::none()) : pyb::object(pyb::int_(f.uapi_id));
    d["size"] = f.size;
    d["fields"] = fields;
    d["driver"] = xe != nullptr ? "xe" : "i915";
    if (xe != nullptr) {
      d["xe_oa_format"] = xe->key.pack();
      d["igt_id"] = xe->igt_id;
      d["verified"] = xe->verified;
      d["evidence"] = std::string(xe->evidence);
    }
    out.append(d);
  };
  for (const auto& f : intel::all_formats) one(f, nullptr);
  for (const auto& x : intel::xe_formats) one(x.layout, &x);
  return out;
}

// `hwpc eval`: the value of EXPR with `vars` bound (cmd_eval.cpp).
pyb::object eval(const std::string& text, const pyb::dict& vars, const std::string& syntax_name) {
  expr::syntax syntax{};
  if (syntax_name == "rpn") {
    syntax = expr::syntax::rpn;
  } else if (syntax_name == "infix") {
    syntax = expr::syntax::infix;
  } else {
    throw usage_failure("syntax: expected rpn or infix, not '" + syntax_name + "'");
  }
  expr::symbol_table symbols;
  std::vector<expr::value> values;
  for (auto [k, v] : vars) {
    expr::value val{};
    if (pyb::isinstance<pyb::bool_>(v)) throw usage_failure("vars: a bool is not a number");
    if (pyb::isinstance<pyb::int_>(v)) {
      const auto big = v.cast<pyb::int_>();
      if (big < pyb::int_(0)) {
        val = expr::value::f(v.cast<double>());  // as the tool reads "-2"
      } else {
        val = expr::value::u(v.cast<std::uint64_t>());
      }
    } else {
      val = expr::value::f(v.cast<double>());
    }
    const std::uint32_t index = symbols.add(std::string(pyb::str(k)), val.type);
    if (index < values.size()) {
      values[index] = val;
    } else {
      values.push_back(val);
    }
  }
  auto compiled = expr::compile(text, syntax, symbols);
  if (!compiled) fail_input("", compiled.error_value());
  std::vector<expr::slot> inputs;
  for (const expr::value& v : values) inputs.push_back(v.bits);
  const expr::value r = compiled->evaluate(inputs);
  if (r.is_u64()) return pyb::int_(r.bits);
  return pyb::float_(r.as_double());
}

}  // namespace

}  // namespace hwpc::py

namespace hwpc::py {
namespace {

// hwpc.identify: the library's identify() (pipeline/identify.hpp).
pyb::dict identify_source(const pyb::object& source) {
  input_source in(source);
  identity id;
  {
    pyb::gil_scoped_release unlocked;
    id = identify(in.bytes());
  }
  pyb::dict d;
  d["vendor"] = std::string(to_string(id.vendor));
  d["input_kind"] = id.input_kind;
  d["device"] = id.device;
  d["why"] = id.why;
  return d;
}

// The vendor hwpc.decode reads a capture as: the library's one vendor rule
// (pipeline/open.hpp, as `hwpc decode FILE` and `hwpc report`), from the
// bytes and which options are given (their values only where the rule reads
// them). hwpc.decode itself runs the rule inside hwpc::open (open.cpp).
std::string vendor_of(const pyb::object& source, const pyb::dict& opts) {
  const options o(opts);
  hwpc::open_options h;
  const auto given = [&](const char* key) { return !o.raw(key).is_none(); };
  if (auto v = o.get<std::string>("vendor")) {
    if (*v != "intel" && *v != "mali" && *v != "adreno") {
      throw usage_failure("vendor: expected intel, mali or adreno, not '" + *v + "'");
    }
    h.vendor = *v == "mali" ? vendor::mali : *v == "adreno" ? vendor::adreno : vendor::intel;
  }
  h.format = o.get<std::string>("format");
  if (given("gpu")) h.gpu = std::string(pyb::str(o.raw("gpu")));
  h.intel.platform = o.get<std::string>("platform");
  h.intel.input_kind = o.get<std::string>("input_kind");
  if (given("context")) h.intel.context = 0;
  h.intel.metrics = o.get<std::string>("metrics");
  h.intel.set = o.get<std::string>("set").value_or("");
  if (given("device_vars") && pyb::len(o.raw("device_vars")) != 0) h.intel.device_vars["_"] = {};
  h.intel.arithmetic = o.get<std::string>("arithmetic");
  h.intel.definitions = o.get<std::string>("definitions");
  if (given("xe_losses") && pyb::len(o.raw("xe_losses")) != 0) h.intel.xe_losses.push_back({});
  h.intel.unverified_layouts = o.flag("unverified_layouts");
  if (given("reader")) h.mali.reader = "";
  if (given("core_index")) h.mali.core_index = "";
  if (given("derived")) h.mali.derived = "";
  if (given("l2_slices")) h.mali.l2_slices = 0;
  if (given("core_mask")) h.mali.core_mask = 0;
  if (given("bus_width_bits")) h.mali.bus_width_bits = 0;
  input_source in(source);
  auto v = choose_vendor(identify(in.bytes()), in.name(), h, {pipeline::door::python});
  if (!v) throw usage_failure(v.error_value().message);
  return std::string(to_string(*v));
}

}  // namespace
}  // namespace hwpc::py

PYBIND11_MODULE(_hwpc, m) {
  namespace pyb = pybind11;
  using namespace hwpc::py;
  m.doc() = "hwpc: GPU performance-counter captures as columns (the C++ half)";
  m.attr("version") = HWPC_VERSION;
  m.attr("have_pugixml") =
#ifdef HWPC_HAVE_PUGIXML
      true;
#else
      false;
#endif
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const decode_failure& e) {
      pyb::object cls = pyb::module_::import("hwpc._errors").attr("DecodeError");
      pyb::object off = e.offset ? pyb::object(pyb::int_(*e.offset)) : pyb::object(pyb::none());
      pyb::object col = e.column ? pyb::object(pyb::int_(*e.column)) : pyb::object(pyb::none());
      PyErr_SetObject(cls.ptr(), cls(e.what(), off, col).ptr());
    } catch (const usage_failure& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("formats", &formats, "Every Intel OA report format, as `hwpc formats --json` lists them.");
  m.def("eval", &eval, pyb::arg("expr"), pyb::arg("vars"), pyb::arg("syntax"));
  m.def("identify", &hwpc::py::identify_source, pyb::arg("source"),
        "What a capture is: vendor, input kind, platform or GPU, and why.");
  m.def("vendor_of", &hwpc::py::vendor_of, pyb::arg("source"), pyb::arg("options"),
        "The vendor hwpc.decode reads `source` as (the library's vendor rule).");
  bind_open(m);
  bind_adreno(m);
  bind_perfetto(m);
  bind_record(m);
}
