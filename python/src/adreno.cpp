// hwpc.adreno: the query results of `hwpc adreno --output csv` as columns,
// and the packet listing of `hwpc adreno` as a table (examples/hwpc/
// cmd_adreno.cpp): the same readers, recogniser and names. A gzip-compressed
// capture is inflated in memory (the tool inflates to a temporary file).
#include "hwpc/adreno.hpp"

#include <pybind11/stl.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "columns.hpp"
#include "hwpc/adreno/packet_copies.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/core/hex.hpp"
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
  a.kind = format;
  if (a.kind == "auto") {
    a.kind = adreno::rd::looks_like_rd(a.data) ? "rd"
             : adreno::looks_like_text(a.data) ? "hex"
                                               : "bin";
  }
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
  input_source in(source);
  const std::string& path = in.name();
  adreno_input a;
  std::optional<row_schema> schema;
  std::optional<column_sink> columns;
  std::optional<totals_sink> totals;
  std::vector<std::string> issues;
  std::optional<std::uint32_t> gpu_id;
  {
    pyb::gil_scoped_release unlocked;
    open_input(in, format, a);
    const adreno::input_kind kind = a.kind == "rd"    ? adreno::input_kind::rd
                                    : a.kind == "hex" ? adreno::input_kind::hex
                                                      : adreno::input_kind::bin;
    auto cols = adreno::sampled_counters(kind, a.data);
    if (!cols) fail_input(path, cols.error_value());
    schema = adreno::schema_of(*cols);
    adreno::result_totals result_totals(*schema);
    output::row_writer* w = nullptr;
    if (summary) {
      w = &totals.emplace(*schema, [&](std::span<const std::uint64_t>, std::uint64_t,
                                       std::vector<cell>& c) { c = result_totals.cells(); });
    } else {
      w = &columns.emplace(*schema);
    }
    if (schema_only) {
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

// Collects the packet listing: one entry per walked packet, and the
// recognised queries at the offset of their first packet.
class packet_table final : public adreno::rd::capture_sink {
 public:
  void on_packet(const adreno::walked_packet& w) override {
    const adreno::packet& p = w.pkt;
    offset.push_back(static_cast<std::int64_t>(p.offset));
    gpu_addr.push_back(w.gpu_addr);
    depth.push_back(static_cast<std::int32_t>(w.depth));
    type.push_back(p.hdr.type == adreno::packet_type::type7 ? 7 : 4);
    id.push_back(p.hdr.id);
    count.push_back(p.hdr.count);
    std::string n;
    if (p.hdr.type == adreno::packet_type::type7) {
      n = std::string(adreno::opcode_name(p.hdr.id));
      if (n.empty()) n = "opcode " + to_hex(p.hdr.id);
      const std::string f = adreno::describe_fields(p);
      fields.push_back(f);
    } else {
      const std::string label = adreno::register_label(p.hdr.id);
      n = "write " + (label.empty() ? to_hex(p.hdr.id) : label);
      fields.emplace_back();
    }
    name.push_back(std::move(n));
    event.emplace_back();
    rec_.push(copies_.keep(p));
    rec_.release([this](const adreno::query_event& ev) { attach(ev); });
  }
  void on_issue(const error& e) override { issues.push_back(e.describe()); }
  void on_note(const error& e) override { issues.push_back("note: " + e.describe()); }
  void finish() {
    rec_.finish();
    rec_.release([this](const adreno::query_event& ev) { attach(ev); }, true);
  }

  std::vector<std::int64_t> offset;
  std::vector<std::uint64_t> gpu_addr;
  std::vector<std::int32_t> depth, type;
  std::vector<std::uint32_t> id, count;
  std::vector<std::string> name, fields, event, issues;

 private:
  void attach(const adreno::query_event& ev) {
    if (ev.packet_index >= event.size()) return;
    std::string& e = event[ev.packet_index];
    e += (e.empty() ? "" : "\n") + adreno::describe(ev);
  }
  adreno::recogniser rec_{std::size_t{1} << 16};
  // The recogniser reads a packet up to its window later: it gets copies.
  adreno::packet_copies copies_;
};

pyb::dict packets(const pyb::object& source, const pyb::dict& opts) {
  const options o(opts);
  const std::string format = format_of(o);
  input_source in(source);
  adreno_input a;
  packet_table t;
  {
    pyb::gil_scoped_release unlocked;
    open_input(in, format, a);
    if (a.kind == "rd") {
      adreno::rd::capture_reader reader(t);
      (void)reader.read(a.data);  // a framing error is an issue too
    } else if (a.kind == "bin") {
      adreno::walker w(t, nullptr);
      w.walk(a.data, 0, 0);
    } else {
      throw usage_failure(
          "packets of hex text: convert it to .rd or raw dwords (`hwpc adreno` lists it)");
    }
    t.finish();
  }
  pyb::dict d;
  d["offset"] = to_numpy(std::move(t.offset));
  d["gpu_address"] = to_numpy(std::move(t.gpu_addr));
  d["depth"] = to_numpy(std::move(t.depth));
  d["type"] = to_numpy(std::move(t.type));
  d["id"] = to_numpy(std::move(t.id));
  d["count"] = to_numpy(std::move(t.count));
  d["name"] = pyb::cast(t.name);
  d["fields"] = pyb::cast(t.fields);
  d["event"] = pyb::cast(t.event);
  d["issues"] = pyb::cast(t.issues);
  return d;
}

}  // namespace

void bind_adreno(pyb::module_& m) {
  m.def("adreno_queries", &queries, pyb::arg("source"), pyb::arg("options"));
  m.def("adreno_packets", &packets, pyb::arg("source"), pyb::arg("options"));
}

}  // namespace hwpc::py
