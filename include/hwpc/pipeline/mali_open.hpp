// Opening a Mali capture for rows: every option and combination checked
// here, once, for every door (`hwpc mali`, hwpc.mali.decode), with one
// message each (worded in the door's spelling of the options, spelling.hpp).
//
// check() looks at the options alone (a door calls it before touching the
// file); open() then reads the capture header, if any, takes from it what
// the options leave out, refuses what contradicts it, and returns what the
// rows need: the GPU, the layout, the reader, the derived-counter evaluator
// and the row options. Usage errors carry errc::usage; bad input any other
// code (core/error.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/mali/capture_input.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::mali {

struct open_options {
  const gpu_product* gpu = nullptr;       // required unless a capture header names it
  std::optional<std::string> reader;      // "vinstr" (default) or "kinstr"
  std::optional<std::string> core_index;  // "dense" (default) or "sparse"; kinstr only
  std::optional<std::uint64_t> l2_slices, core_mask, bus_width_bits, max_clock_mhz;
  std::optional<std::string> derived;  // "guide" (the G72's default) or "database"
  bool counters_only = false;          // the tool's: no derived counters at all
  std::optional<std::string> names;    // "hardware" (default) or "streamline"
  bool per_instance = false;
};

// The options alone: values and combinations. A value outside its choices
// is refused as the tool's option parser words it ("--reader: expected
// vinstr or kinstr, not 'perf'"), in the door's spelling.
inline result<void> check(const open_options& o, const pipeline::spelling& sp) {
  const auto given = [](const std::string& v) { return ", not '" + v + "'"; };
  if (o.reader && *o.reader != "vinstr" && *o.reader != "kinstr") {
    return usage_error(sp.option("reader") + ": expected vinstr or kinstr" + given(*o.reader));
  }
  if (o.core_index && *o.core_index != "dense" && *o.core_index != "sparse") {
    return usage_error(sp.option("core_index") + ": expected dense or sparse" +
                       given(*o.core_index));
  }
  if (o.l2_slices && *o.l2_slices > max_l2_slices) {
    return usage_error(sp.option("l2_slices") + ": at most 64");
  }
  if (o.bus_width_bits && *o.bus_width_bits > 0xffffffffu) {
    return usage_error(sp.option("bus_width_bits") + ": out of range");
  }
  if (o.derived && !o.bus_width_bits) {
    return usage_error(sp.option("derived") + " needs " + sp.option("bus_width_bits") +
                       ": the derived counters read the external bus width, which the samples "
                       "do not carry");
  }
  if (o.counters_only && (o.bus_width_bits || o.derived)) {
    return usage_error(sp.option("counters_only") + " leaves out the derived counters that " +
                       sp.option("bus_width_bits") + " and " + sp.option("derived") +
                       " ask for: drop one");
  }
  if (o.max_clock_mhz && (*o.max_clock_mhz == 0 || *o.max_clock_mhz > 4000)) {
    return usage_error(sp.option("max_clock_mhz") + ": expected 1..4000");
  }
  if (o.names && *o.names != "hardware" && *o.names != "streamline") {
    return usage_error(sp.option("names") + ": expected hardware or streamline" + given(*o.names));
  }
  if (o.derived && *o.derived != "guide" && *o.derived != "database") {
    return usage_error(sp.option("derived") + ": expected guide or database" + given(*o.derived));
  }
  return {};
}

// What the rows of an opened capture need.
struct opened_capture {
  const gpu_product* gpu = nullptr;
  sample_layout layout;
  std::string reader;   // "vinstr" or "kinstr"
  std::string derived;  // the derived counters' source, empty without them
  core_index cores = core_index::dense;
  std::optional<capture_header> header;
  std::span<const std::byte> payload;
  std::size_t base = 0;
  std::optional<evaluator> metrics;
  row_options rows;
};

// `bytes`: the whole file (a capture file or bare samples).
inline result<opened_capture> open(std::span<const std::byte> bytes, const open_options& o,
                                   const pipeline::spelling& sp) {
  if (auto ok = check(o, sp); !ok) return ok.error_value();
  auto input = open_capture(bytes);
  if (!input) return input.error_value();
  opened_capture c;
  c.payload = input->payload;
  c.base = input->base;
  c.header = input->header;
  c.gpu = o.gpu;
  if (c.header) {
    auto g = gpu_of(*c.header);
    if (!g) {
      error e = g.error_value();
      e.message = "header: " + e.message;
      return e;
    }
    if (*g != nullptr && o.gpu && o.gpu->product_id != (*g)->product_id) {
      return usage_error(sp.option("gpu") + " " + std::string(o.gpu->name) +
                         " contradicts the capture's GPU_ID " + to_hex(c.header->gpu_id) + " (" +
                         std::string((*g)->name) + ")");
    }
    if (*g != nullptr) c.gpu = *g;
  }
  if (c.gpu == nullptr) {
    return usage_error(sp.option("gpu") +
                       " is required: vinstr and kinstr_prfcnt samples do not say which GPU took "
                       "them (hwpc mali --list-gpus lists the names)");
  }
  const gpu_table& table = *c.gpu->table;
  c.reader = o.reader.value_or("");
  if (c.header) {
    const std::string from_file(reader_name(c.header->reader));
    if (!c.reader.empty() && c.reader != from_file) {
      return usage_error(sp.with("reader", c.reader) + " contradicts the capture (" + from_file +
                         ")");
    }
    c.reader = from_file;
  }
  if (c.reader.empty()) c.reader = "vinstr";
  if (c.reader == "vinstr" && o.core_index) {
    return usage_error(sp.option("core_index") +
                       " numbers kinstr_prfcnt blocks; vinstr samples have one block per "
                       "core-mask bit: drop " +
                       sp.option("core_index") + " or give " + sp.with("reader", "kinstr"));
  }
  if (c.reader == "vinstr" && table.values_per_block != counters_per_block) {
    return usage_error(std::string(c.gpu->name) + " has " + std::to_string(table.values_per_block) +
                       "-value blocks, which the vinstr reader cannot deliver (use " +
                       sp.with("reader", "kinstr") + ")");
  }
  c.cores = o.core_index.value_or("dense") == "sparse" ? core_index::sparse : core_index::dense;
  std::optional<std::uint64_t> numbers[2] = {o.l2_slices, o.core_mask};
  const char* keys[2] = {"l2_slices", "core_mask"};
  for (int i = 0; i < 2; ++i) {
    if (c.header) {
      const std::uint64_t from_file =
          i == 0 ? std::uint64_t{c.header->layout.l2_slices} : c.header->layout.core_mask;
      if (numbers[i] && *numbers[i] != from_file) {
        return usage_error(sp.option(keys[i]) + " contradicts the capture (" +
                           std::to_string(from_file) + ")");
      }
      numbers[i] = from_file;
    }
    if (!numbers[i]) return usage_error(sp.option(keys[i]) + " is required");
  }
  c.layout.l2_slices = static_cast<std::uint32_t>(*numbers[0]);
  c.layout.core_mask = *numbers[1];
  if (auto ok = c.layout.validate(); !ok) return usage_error(ok.error_value().describe());

  // Derived counters: with the bus width (a constant the samples do not
  // carry); the G72 guide's by default on the Mali-G72, Arm's database's
  // otherwise.
  const bool g72 = &table == &gpus::g72;
  const std::string derived = o.derived.value_or(g72 ? "guide" : "database");
  if (derived == "guide" && !g72) {
    return usage_error(sp.with("derived", "guide") +
                       ": the counter guide's expressions are the Mali-G72's");
  }
  if (o.bus_width_bits && !o.counters_only) {
    const auto bits = static_cast<std::uint32_t>(*o.bus_width_bits);
    auto ev = derived == "guide" ? evaluator::create(table, g72_metric_set(),
                                                     g72_streamline_counters, c.layout, bits)
                                 : evaluator::database(table, c.layout, bits);
    if (!ev) return usage_error(ev.error_value().describe());
    c.metrics.emplace(std::move(*ev));
    c.derived = derived;
  }
  c.rows.names = o.names.value_or("hardware") == "streamline" ? counter_naming::streamline
                                                              : counter_naming::hardware;
  c.rows.timed = c.reader == "kinstr" || c.header.has_value();
  c.rows.losses = c.reader == "kinstr";
  if (o.per_instance) c.rows.per_instance = c.layout;
  return c;
}

// The rows of an opened capture through `builder` (made from c.gpu,
// c.metrics and c.rows) into `fn(const row&)`.
template <class Fn>
result<accounting> for_each_row(const opened_capture& c, row_builder& builder, Fn&& fn) {
  const gpu_table& table = *c.gpu->table;
  if (c.reader == "vinstr") {
    auto cap = vinstr_capture::make(table, c.layout, c.payload, c.base, c.header.has_value());
    if (!cap) return cap.error_value();
    return for_each_row(*cap, builder, fn);
  }
  auto rd = kinstr_reader::make(table, c.layout, c.payload, c.base, c.cores);
  if (!rd) return rd.error_value();
  auto acc = for_each_row(*rd, builder, fn);
  if (acc && acc->reports == 0) {
    return error{errc::empty_input, 0, "no sample in the buffer", error_anchor::none};
  }
  return acc;
}

}  // namespace hwpc::mali
