// Name resolution.
//
// A formula names three kinds of things: raw counters (A0.., B0.., C0..,
// PERFCNT0.., PEC0.. (Xe2 and later), GPU_TIME, GPU_CLOCK), device variables ($EuCoresTotalCount,
// $GpuTimestampFrequency, $SliceMask, ...) and, inside a metric set, other
// metrics of the same set. The parsers do not know which is which: they hand
// every name (without its '$') to a resolver callable
//
//   resolved resolve(std::string_view name);
//
// which returns the node holding that value. symbol_table is the resolver for
// stand-alone formulas; the metric-set compiler has its own, which also
// compiles referenced metrics on demand (metrics/metric_set.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/ir.hpp"

namespace hwpc::expr {

struct resolved {
  enum status_t : std::uint8_t {
    found,    // node holds the value
    unknown,  // no such name: the parser reports errc::unknown_name at the name
    failed,   // the resolver failed (e.g. a metric dependency cycle); code/message say why
  } status = unknown;
  std::uint32_t node = 0;
  errc code = errc::unknown_name;
  std::string_view message;

  static constexpr resolved at(std::uint32_t n) noexcept {
    return {found, n, errc::unknown_name, {}};
  }
};

// Raw counter names as the formulas spell them after READ: a bank name and an
// index. GPU_TIME and GPU_CLOCK have one value each and drop index 0. PEC is
// the Xe2/Xe3 counter class (`PEC n READ`, the 64-bit PEC counter n of the
// PEC report formats; docs/expressions.md).
constexpr bool is_counter_bank(std::string_view w) noexcept {
  return w == "A" || w == "B" || w == "C" || w == "PEC" || w == "PERFCNT" || w == "GPU_TIME" ||
         w == "GPU_CLOCK";
}

constexpr bool is_raw_counter_name(std::string_view n) noexcept {
  std::size_t digits = n.size();
  while (digits > 0 && n[digits - 1] >= '0' && n[digits - 1] <= '9') --digits;
  const std::string_view bank = n.substr(0, digits);
  if (bank == "GPU_TIME" || bank == "GPU_CLOCK") return true;
  return digits < n.size() && digits + 6 >= n.size() && is_counter_bank(bank);
}

// Inputs known by name, for stand-alone formulas.
class symbol_table {
 public:
  // Declares an input and returns its index; declaring a name twice returns
  // the first index.
  std::uint32_t add(std::string_view name, vtype type = vtype::u64,
                    input_kind kind = input_kind::variable) {
    if (!name.empty() && name.front() == '$') name.remove_prefix(1);
    if (auto i = find(name)) return *i;
    inputs_.push_back({std::string(name), type, kind});
    return static_cast<std::uint32_t>(inputs_.size() - 1);
  }
  std::uint32_t add_counter(std::string_view name) {
    return add(name, vtype::u64, input_kind::counter);
  }

  // When set, raw counter names that were not declared become counter inputs
  // on first use (appended to the program's inputs).
  void allow_raw_counters(bool on = true) noexcept { raw_counters_ = on; }
  bool raw_counters_allowed() const noexcept { return raw_counters_; }

  std::optional<std::uint32_t> find(std::string_view name) const {
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      if (inputs_[i].name == name) return static_cast<std::uint32_t>(i);
    }
    return std::nullopt;
  }
  const std::vector<input_desc>& inputs() const noexcept { return inputs_; }

 private:
  std::vector<input_desc> inputs_;
  bool raw_counters_ = false;
};

}  // namespace hwpc::expr
