// Adreno query rows: the steps every door takes before the first row, once
// (`hwpc adreno --output`, hwpc.adreno.queries): which input kind the bytes
// are, which GPU's meaning applies (the door's --gpu / gpu=, else the ids an
// .rd capture carries, through the device table), whether rows can be
// decoded for it, and the schema, named by generation.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::adreno {

// "auto" looks at the bytes: .rd sections, hex dword text, else raw dwords.
// Any other `format` is a usage error.
inline result<input_kind> input_kind_of(byte_span data, std::string_view format,
                                        const pipeline::spelling& sp) {
  if (format == "rd") return input_kind::rd;
  if (format == "hex") return input_kind::hex;
  if (format == "bin") return input_kind::bin;
  if (format != "auto") {
    return usage_error(sp.option("format") + " must be auto, rd, hex or bin, not '" +
                       std::string(format) + "'");
  }
  return rd::looks_like_rd(data) ? input_kind::rd
         : looks_like_text(data) ? input_kind::hex
                                 : input_kind::bin;
}

// The GPU whose names apply: `forced` (the door's option), else the ids of an
// .rd capture; hex and raw dwords carry none (nullptr).
inline const device* device_of(input_kind kind, byte_span data, const device* forced) noexcept {
  if (forced != nullptr) return forced;
  return kind == input_kind::rd ? rd::capture_device(data) : nullptr;
}

struct query_plan {
  const device* gpu = nullptr;
  // Rows are decoded on A5XX input and on A6XX/A7XX .rd captures that name
  // their GPU; otherwise there are none, and `note` says why.
  bool decodable = false;
  std::string note;
  std::vector<counter_key> counters;  // the sampled counters' columns
  row_schema schema;
};

// No GPU at all gets no meaning: a usage error (the door adds the path).
inline result<query_plan> plan_queries(input_kind kind, byte_span data, const device* forced,
                                       const pipeline::spelling& sp) {
  query_plan p;
  p.gpu = device_of(kind, data, forced);
  if (p.gpu == nullptr) {
    return usage_error("the input names no GPU, and query rows need one: give " + sp.option("gpu") +
                       " (e.g. " + sp.with("gpu", "a530") + ")");
  }
  p.decodable = p.gpu->gen == generation::a5xx ||
                (kind == input_kind::rd && rd::capture_device(data) == p.gpu);
  if (!p.decodable) {
    p.note = describe(*p.gpu) +
             ": query rows are decoded on A5XX and on A6XX/A7XX .rd captures that name their "
             "GPU; none are written";
  } else {
    auto cols = sampled_counters(kind, data);
    if (!cols) return cols.error_value();
    p.counters = std::move(*cols);
  }
  p.schema = schema_of(p.counters);
  if (p.gpu->gen == generation::a6xx) p.schema.source = "adreno a6xx queries";
  if (p.gpu->gen == generation::a7xx) p.schema.source = "adreno a7xx queries";
  return p;
}

}  // namespace hwpc::adreno
