// hwpc.mali.decode: the rows of `hwpc mali` (examples/hwpc/cmd_mali.cpp) as
// columns, through the same steps: a capture file's header names what the
// options leave out and must agree with what they give, the GPU is never
// guessed, derived counters come with bus_width_bits.
#include "hwpc/mali.hpp"

#include <optional>
#include <string>

#include "columns.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/capture_input.hpp"
#include "hwpc/mali/plausibility.hpp"
#include "hwpc/mali/rows.hpp"
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

pyb::dict decode(const pyb::object& source, const pyb::dict& opts) {
  const options o(opts);
  const std::string reader_text = o.get<std::string>("reader").value_or("");
  if (!reader_text.empty() && reader_text != "vinstr" && reader_text != "kinstr") {
    throw usage_failure("reader: expected vinstr or kinstr");
  }
  const std::string core_index = o.get<std::string>("core_index").value_or("dense");
  if (core_index != "dense" && core_index != "sparse") {
    throw usage_failure("core_index: expected dense or sparse");
  }
  const mali::core_index cores =
      core_index == "dense" ? mali::core_index::dense : mali::core_index::sparse;
  const mali::gpu_product* gpu_opt = nullptr;
  if (pyb::object g = o.raw("gpu"); !g.is_none()) gpu_opt = gpu_of(g);
  std::optional<std::uint64_t> numbers[3] = {o.get<std::uint64_t>("l2_slices"),
                                             o.get<std::uint64_t>("core_mask"),
                                             o.get<std::uint64_t>("bus_width_bits")};
  const char* names[3] = {"l2_slices", "core_mask", "bus_width_bits"};
  if (numbers[0] && *numbers[0] > mali::max_l2_slices) {
    throw usage_failure("l2_slices: at most 64");
  }
  if (numbers[2] && *numbers[2] > 0xffffffffu) throw usage_failure("bus_width_bits: out of range");
  const std::optional<std::string> derived_opt = o.get<std::string>("derived");
  const std::string naming = o.get<std::string>("names").value_or("hardware");
  if (naming != "hardware" && naming != "streamline") {
    throw usage_failure("names: expected hardware or streamline");
  }
  const std::optional<std::uint64_t> max_clock_mhz = o.get<std::uint64_t>("max_clock_mhz");
  if (max_clock_mhz && (*max_clock_mhz == 0 || *max_clock_mhz > 4000)) {
    throw usage_failure("max_clock_mhz: expected 1..4000");
  }
  const bool per_instance = o.flag("per_instance");
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
    auto input = mali::open_capture(in.bytes());
    if (!input) fail_input(path, input.error_value());
    const std::span<const std::byte> payload = input->payload;
    const std::size_t base = input->base;
    const std::optional<mali::capture_header>& header = input->header;
    const mali::gpu_product* gpu = gpu_opt;
    if (header) {
      auto g = mali::gpu_of(*header);
      if (!g) fail_input(path + ": header", g.error_value());
      if (*g != nullptr && gpu_opt && gpu_opt->product_id != (*g)->product_id) {
        throw usage_failure("gpu " + std::string(gpu_opt->name) +
                            " contradicts the capture's GPU_ID " + to_hex(header->gpu_id) + " (" +
                            std::string((*g)->name) + ")");
      }
      if (*g != nullptr) gpu = *g;
    }
    if (gpu == nullptr) {
      throw usage_failure(
          "gpu is required: vinstr and kinstr_prfcnt samples do not say which GPU took them");
    }
    const mali::gpu_table& table = *gpu->table;
    std::string reader = reader_text;
    if (header) {
      const std::string from_file(mali::reader_name(header->reader));
      if (!reader.empty() && reader != from_file) {
        throw usage_failure("reader " + reader + " contradicts the capture (" + from_file + ")");
      }
      reader = from_file;
    }
    if (reader.empty()) reader = "vinstr";
    if (reader == "vinstr" && table.values_per_block != mali::counters_per_block) {
      throw usage_failure(std::string(gpu->name) + " has " +
                          std::to_string(table.values_per_block) +
                          "-value blocks, which the vinstr reader cannot deliver (use "
                          "reader='kinstr')");
    }
    for (int i = 0; i < 2; ++i) {
      if (header) {
        const std::uint64_t from_file =
            i == 0 ? std::uint64_t{header->layout.l2_slices} : header->layout.core_mask;
        if (numbers[i] && *numbers[i] != from_file) {
          throw usage_failure(std::string(names[i]) + " contradicts the capture (" +
                              std::to_string(from_file) + ")");
        }
        numbers[i] = from_file;
      }
      if (!numbers[i]) throw usage_failure(std::string(names[i]) + " is required");
    }
    mali::sample_layout layout;
    layout.l2_slices = static_cast<std::uint32_t>(*numbers[0]);
    layout.core_mask = *numbers[1];
    if (auto ok = layout.validate(); !ok) throw usage_failure(ok.error_value().describe());

    const std::string derived =
        derived_opt.value_or(&table == &mali::gpus::g72 ? "guide" : "database");
    if (derived != "guide" && derived != "database") {
      throw usage_failure("derived: expected guide or database");
    }
    if (derived == "guide" && &table != &mali::gpus::g72) {
      throw usage_failure("derived='guide': the counter guide's expressions are the Mali-G72's");
    }
    std::optional<mali::evaluator> metrics;
    if (numbers[2]) {
      const auto bits = static_cast<std::uint32_t>(*numbers[2]);
      auto ev = derived == "guide"
                    ? mali::evaluator::create(table, mali::g72_metric_set(),
                                              mali::g72_streamline_counters, layout, bits)
                    : mali::evaluator::database(table, layout, bits);
      if (!ev) throw usage_failure(ev.error_value().describe());
      metrics.emplace(std::move(*ev));
    }
    mali::row_options ropt;
    ropt.names =
        naming == "streamline" ? mali::counter_naming::streamline : mali::counter_naming::hardware;
    ropt.timed = reader == "kinstr" || header.has_value();
    ropt.losses = reader == "kinstr";
    if (per_instance) ropt.per_instance = layout;
    mali::row_builder builder(*gpu, metrics ? &*metrics : nullptr, ropt);
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
    if (max_clock_mhz) popt.max_clock_hz = *max_clock_mhz * 1'000'000;
    mali::plausibility_checker checker(table, layout, popt, metrics ? &*metrics : nullptr);
    auto write_row = [&](const row& r) {
      checker.check(r);
      w->write(r);
    };
    if (schema_only) {
      w->end(accounting{});
    } else {
      result<accounting> acc = accounting{};
      if (reader == "vinstr") {
        auto cap = mali::vinstr_capture::make(table, layout, payload, base, header.has_value());
        if (!cap) fail_input(path, cap.error_value());
        acc = mali::for_each_row(*cap, builder, write_row);
      } else {
        auto rd = mali::kinstr_reader::make(table, layout, payload, base, cores);
        if (!rd) fail_input(path, rd.error_value());
        acc = mali::for_each_row(*rd, builder, write_row);
        if (acc && acc->reports == 0) throw decode_failure(path + ": no sample in the buffer");
      }
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
