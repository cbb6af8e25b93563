// The counters of a format, in the order every output uses.
//
// Columns, totals and the emulator's truth all list counters the same way:
// GPU_TICKS (where the format has it), then A, B, C and MPEC counters by
// number. The format tables are written in that order, so this is the
// tables' order of the fields that are counters.
#pragma once

#include <array>
#include <cstddef>

#include "hwpc/intel/format_limits.hpp"
#include "hwpc/intel/formats.hpp"

namespace hwpc::intel {

// The most counters any format has (format_limits.hpp).
inline constexpr std::size_t max_counters = limits.counters;

class counter_list {
 public:
  constexpr explicit counter_list(const report_format& f) noexcept {
    for (const auto& fd : f.fields) {
      if (fd.is_counter()) items_[n_++] = &fd;
    }
  }
  constexpr std::size_t size() const noexcept { return n_; }
  constexpr const field& operator[](std::size_t i) const noexcept { return *items_[i]; }
  constexpr const field* const* begin() const noexcept { return items_.data(); }
  constexpr const field* const* end() const noexcept { return items_.data() + n_; }
  // Position of a counter by name, or size() when absent.
  constexpr std::size_t index_of(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < n_; ++i) {
      if (items_[i]->name == name) return i;
    }
    return n_;
  }

 private:
  std::array<const field*, max_counters> items_{};
  std::size_t n_ = 0;
};

namespace detail {
consteval bool counters_are_in_canonical_order() {
  auto rank = [](field_kind k) {
    switch (k) {
      case field_kind::gpu_ticks:
        return 0;
      case field_kind::mpec:
      case field_kind::pec:  // never in the same format as MPEC
        return 1;
      case field_kind::a:
        return 2;
      case field_kind::b:
        return 3;
      case field_kind::c:
        return 4;
      default:
        return 9;
    }
  };
  auto ordered = [&](const report_format& f) {
    counter_list c(f);
    if (c.size() > max_counters) return false;
    for (std::size_t i = 1; i < c.size(); ++i) {
      const int r0 = rank(c[i - 1].kind), r1 = rank(c[i].kind);
      if (r0 > r1 || (r0 == r1 && c[i - 1].index >= c[i].index)) return false;
    }
    return true;
  };
  for (const auto& f : all_formats) {
    if (!ordered(f)) return false;
  }
  for (const auto& x : xe_formats) {
    if (!ordered(x.layout)) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::counters_are_in_canonical_order(),
              "format tables must list GPU_TICKS, MPEC, A, B, C counters in ascending order");

}  // namespace hwpc::intel
