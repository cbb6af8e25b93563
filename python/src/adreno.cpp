// hwpc.adreno: the query results of `hwpc adreno --output csv` as columns,
// and the packet listing of `hwpc adreno` as a table (examples/hwpc/
// cmd_adreno.cpp): the same readers, recogniser and names. A gzip-compressed
// capture is inflated in memory (the tool inflates to a temporary file).
#include "hwpc/adreno.hpp"

#include <pybind11/stl.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "columns.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/pipeline/adreno_open.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

// The input's bytes, inflated when gzip-compressed; `kind` detected unless given.
struct adreno_input {
  byte_span data;
  std::vector<std::byte> inflated;
  std::string kind;
};

void open_input(const input_source& in, const std::string& format, adreno_input& a) {
  a.data = in.bytes();
  if (a.data.empty()) fail_input(in.name(), make_error(errc::empty_input, 0, "empty file"));
  if (adreno::is_gzip(a.data)) {
#ifdef HWPC_HAVE_ZLIB
    auto n = adreno::gunzip_to(a.data, [&](byte_span b) {
      a.inflated.insert(a.inflated.end(), b.begin(), b.end());
      return true;
    });
    if (!n) fail_input(in.name(), n.error_value());
    a.data = a.inflated;
    if (a.data.empty()) {
      fail_input(in.name(), make_error(errc::empty_input, 0, "empty after gunzip"));
    }
#else
    fail_input(in.name(), make_error(errc::unknown_format, 0,
                                     "gzip-compressed input, and this hwpc was built without "
                                     "zlib; gunzip it first"));
#endif
  }
  auto kind = adreno::input_kind_of(a.data, format, pipeline::spelling{pipeline::door::python});
  if (!kind) throw usage_failure(kind.error_value().message);
  a.kind = *kind == adreno::input_kind::rd    ? "rd"
           : *kind == adreno::input_kind::hex ? "hex"
                                              : "bin";
}

const adreno::device* forced_device(const options& o) {
  const std::optional<std::string> g = o.get<std::string>("gpu");
  if (!g) return nullptr;
  const adreno::device* d = adreno::parse_device(*g);
  if (d == nullptr) {
    throw usage_failure("gpu: '" + *g +
                        "' is no Adreno hwpc knows (a name like a530, a630, a740, X1-85; a GPU "
                        "id like 640; or a chip id like 0x43050a01)");
  }
  return d;
}

std::string format_of(const options& o) {
  const std::string f = o.get<std::string>("format").value_or("auto");
  if (f != "auto" && f != "rd" && f != "hex" && f != "bin") {
    throw usage_failure("format must be auto, rd, hex or bin, not '" + f + "'");
  }
  return f;
}

pyb::dict queries(const pyb::object& source, const pyb::dict& opts) {
  const options o(opts);
  const std::string format = format_of(o);
  const bool summary = o.flag("summary");
  const bool schema_only = o.flag("_schema_only");  // hwpc.dask's meta
  const adreno::device* forced = forced_device(o);
  input_source in(source);
  const std::string& path = in.name();
  adreno_input a;
  std::optional<row_schema> schema;
  std::optional<column_sink> columns;
  std::optional<totals_sink> totals;
  std::vector<std::string> issues;
  std::optional<std::uint32_t> gpu_id;
  bool decodable = false;
  {
    pyb::gil_scoped_release unlocked;
    open_input(in, format, a);
    const adreno::input_kind kind = a.kind == "rd"    ? adreno::input_kind::rd
                                    : a.kind == "hex" ? adreno::input_kind::hex
                                                      : adreno::input_kind::bin;
    // The tool's checks, from the library (pipeline/adreno_open.hpp): no GPU,
    // no meaning; the schema named by generation.
    auto plan =
        adreno::plan_queries(kind, a.data, forced, pipeline::spelling{pipeline::door::python});
    if (!plan) {
      if (is_usage(plan.error_value()))
        throw usage_failure(path + ": " + plan.error_value().message);
      fail_input(path, plan.error_value());
    }
    decodable = plan->decodable;
    if (!decodable) issues.push_back(path + ": note: " + plan->note);
    schema = plan->schema;
    adreno::result_totals result_totals(*schema);
    output::row_writer* w = nullptr;
    if (summary) {
      w = &totals.emplace(*schema, [&](std::span<const std::uint64_t>, std::uint64_t,
                                       std::vector<cell>& c) { c = result_totals.cells(); });
    } else {
      w = &columns.emplace(*schema);
    }
    if (schema_only || !decodable) {
      w->end(accounting{});
    } else {
      auto done = adreno::for_each_row(
          kind, a.data, *schema,
          [&](const row& r) {
            result_totals.add(r);
            w->write(r);
          },
          [&](const error& e, bool note) {
            issues.push_back(path + ": " + (note ? "note: " : "") + e.describe());
          });
      if (!done) fail_input(path, done.error_value());
      w->end(done->acc);
      gpu_id = done->gpu_id;
    }
  }
  pyb::dict out = totals ? totals->to_python() : columns->to_python();
  out["schema"] = schema_to_python(*schema);
  out["dropped"] = pyb::list();
  out["issues"] = pyb::cast(issues);
  out["gpu_id"] = gpu_id ? pyb::object(pyb::int_(*gpu_id)) : pyb::object(pyb::none());
  return out;
}

// Collects the packet listing of `hwpc adreno --packets --output csv`: the
// same fields (the tool's adreno_listing::fields_of, with the generation's
// names), typed, and the issues.
class packet_table final : public adreno::rd::capture_sink {
 public:
  explicit packet_table(adreno::generation g) : gen_(g) {}
  void on_packet(const adreno::walked_packet& w) override {
    const adreno::packet& p = w.pkt;
    const bool t7 = p.hdr.type == adreno::packet_type::type7;
    offset.push_back(static_cast<std::int64_t>(map_ ? map_->text_offset(p.offset) : p.offset));
    gpu_addr.push_back(w.gpu_addr);
    depth.push_back(static_cast<std::int32_t>(w.depth));
    group.push_back(w.group);
    pass.emplace_back(adreno::pass_name(w.pass));
    type.push_back(t7 ? 7 : 4);
    id.push_back(p.hdr.id);
    name.push_back(t7 ? std::string(adreno::opcode_name(gen_, p.hdr.id))
                      : adreno::register_label(gen_, p.hdr.id));
    count.push_back(p.hdr.count);
    std::string pl;
    for (std::uint32_t i = 0; i < p.hdr.count; ++i) {
      char b[12];
      std::snprintf(b, sizeof b, i ? " %08x" : "%08x", static_cast<unsigned>(p.dword(i)));
      pl += b;
    }
    payload.push_back(std::move(pl));
    // CP_EVENT_WRITE (0x46 on every generation): its event, -1 elsewhere.
    if (t7 && p.hdr.id == adreno::op::cp_event_write && p.hdr.count >= 1) {
      event.push_back(static_cast<std::int32_t>(p.dword(0) & 0xff));
      event_name.emplace_back(adreno::event_name(gen_, p.dword(0) & 0xff));
    } else {
      event.push_back(-1);
      event_name.emplace_back();
    }
  }
  void on_issue(const error& e) override { issues.push_back(e.describe()); }
  void on_note(const error& e) override { issues.push_back("note: " + e.describe()); }
  void map_offsets(adreno::hex_offset_index* m) { map_ = m; }

  std::vector<std::int64_t> offset;
  std::vector<std::uint64_t> gpu_addr;
  std::vector<std::int32_t> depth, group, type, event;
  std::vector<std::uint32_t> id, count;
  std::vector<std::string> pass, name, payload, event_name, issues;

 private:
  adreno::generation gen_;
  adreno::hex_offset_index* map_ = nullptr;
};

pyb::dict packets(const pyb::object& source, const pyb::dict& opts) {
  const options o(opts);
  const std::string format = format_of(o);
  const adreno::device* forced = forced_device(o);
  input_source in(source);
  adreno_input a;
  std::optional<packet_table> t;
  const adreno::device* gpu = nullptr;
  {
    pyb::gil_scoped_release unlocked;
    open_input(in, format, a);
    gpu = adreno::device_of(a.kind == "rd" ? adreno::input_kind::rd : adreno::input_kind::bin,
                            a.data, forced);
    const adreno::generation gen = gpu != nullptr ? gpu->gen : adreno::generation::unknown;
    t.emplace(gen);
    if (a.kind == "rd") {
      adreno::rd::capture_reader reader(*t);
      if (forced != nullptr) reader.force_device(forced);
      (void)reader.read(a.data);  // a framing error is an issue too
    } else if (a.kind == "bin") {
      adreno::walker w(*t, nullptr);
      w.set_generation(gen);
      w.walk(a.data, 0, 0);
    } else {
      // Hex text: its dwords walked as one buffer, offsets mapped back to the text.
      const std::string_view text(reinterpret_cast<const char*>(a.data.data()), a.data.size());
      adreno::hex_offset_index index;
      auto n = index.build(text);
      if (!n) fail_input(in.name(), n.error_value());
      std::vector<std::byte> dwords(4 * *n);
      adreno::hex_reader reader(text);
      std::uint32_t v = 0;
      std::size_t at = 0;
      for (std::size_t i = 0; i < *n; ++i) {
        (void)reader.next(v, at);  // index.build() read it all
        store_le32(dwords.data() + 4 * i, v);
      }
      t->map_offsets(&index);
      adreno::walker w(*t, nullptr);
      w.set_generation(gen);
      w.set_input_bytes(dwords.size());
      w.walk(dwords, 0, 0);
      t->map_offsets(nullptr);
    }
  }
  pyb::dict d;
  d["offset"] = to_numpy(std::move(t->offset));
  d["gpu_address"] = to_numpy(std::move(t->gpu_addr));
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
  m.def("adreno_queries", &queries, pyb::arg("source"), pyb::arg("options"));
  m.def("adreno_packets", &packets, pyb::arg("source"), pyb::arg("options"));
}

}  // namespace hwpc::py
