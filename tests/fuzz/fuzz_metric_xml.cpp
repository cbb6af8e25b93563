// Intel metric XML: load_xml over arbitrary bytes (any encoding pugixml
// detects), then compile every set, bind it to a device, and evaluate every
// equation with the scalar and the batch evaluator.
// Invariants: load errors name a byte inside the input (or none); compile
// and bind errors are values, never crashes; scalar = batch bit for bit.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/xml_loader.hpp"

using namespace hwpc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto sets = metrics::load_xml(text);
  if (!sets) {
    const error& e = sets.error_value();
    if (e.anchor == error_anchor::byte_offset) {
      FUZZ_CHECK(size == 0 ? e.offset == 0 : e.offset < size, e.describe());
    }
    return 0;
  }
  metrics::device_values dev = metrics::to_device_values(metrics::device_of(intel::platform::skl));
  for (const metrics::metric_set& set : *sets) {
    auto compiled = metrics::compile(set);
    if (!compiled) continue;
    auto bound = compiled->bind(dev);
    if (!bound) continue;
    const std::size_t ni = bound->inputs().size(), no = bound->size();
    constexpr std::size_t rows = 9;
    fuzz::rng g{size};
    std::vector<std::vector<std::uint64_t>> in(ni, std::vector<std::uint64_t>(rows));
    for (auto& c : in)
      for (auto& v : c) v = g() % 1000;
    std::vector<std::vector<std::uint64_t>> out(no, std::vector<std::uint64_t>(rows));
    std::vector<const std::uint64_t*> ip;
    std::vector<std::uint64_t*> op;
    for (auto& c : in) ip.push_back(c.data());
    for (auto& c : out) op.push_back(c.data());
    auto ev = bound->batch();
    FUZZ_CHECK(static_cast<bool>(ev.evaluate(ip, rows, op)), "batch evaluation");
    std::vector<std::uint64_t> raw(ni);
    std::vector<expr::value> vals(no);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < ni; ++i) raw[i] = in[i][r];
      FUZZ_CHECK(static_cast<bool>(bound->evaluate(raw, vals)), "scalar evaluation");
      for (std::size_t m = 0; m < no; ++m) FUZZ_CHECK(vals[m].bits == out[m][r], "scalar = batch");
    }
  }
  return 0;
}
