// Intel metrics-discovery's (MDAPI's) own definition of a metric, as an hwpc
// formula.
//
// The metric files were converted from MDAPI, but one RPN per metric cannot
// say everything MDAPI's four equations say (mdapi_table.hpp): which integer
// divisions truncate (those of the read equation, on the deltas, and those a
// normalization spells with UDIV) and which are exact (its GpuDuration and
// EuAggrDuration normalizations). translate() writes MDAPI's definition as
// one hwpc RPN formula whose literal arithmetic is MDAPI's:
//   - a report field of the read equation (dw@/qw@/rd40@ at a byte offset)
//     becomes the counter of the set's report layout at that offset
//     (`A 7 READ`, `PEC 44 READ`; TIME_STAMP is `GPU_TIME 0 READ`, GPU_TICKS
//     `GPU_CLOCK 0 READ`): hwpc's counter values are those deltas;
//   - GpuDuration is 100 * self / clocks, EuAggrDuration 100 * self / (clocks
//     * EuCoresTotalCount), both as doubles (MDAPI: float);
//   - in a normalization, $Self is this metric's read equation, $Name another
//     metric's read equation (its delta), $$Name a reference to metric Name;
//   - an integer result (RESULT_UINT64/UINT32) truncates, as MDAPI's cast does.
// UMAX (not an hwpc operator) is a + b - min(a, b). Such a formula is compiled
// literally (metric::literal_arithmetic): it already is MDAPI's arithmetic.
// docs/expressions.md lists the sources and the decided differences.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/metrics/mdapi/index.hpp"
#include "hwpc/metrics/mdapi_differences.hpp"
#include "hwpc/metrics/report_type.hpp"
#include "hwpc/metrics/set_definition.hpp"

namespace hwpc::metrics::mdapi {

// The MDAPI definitions for a metric file's chipset attribute, or nullptr.
inline const platform_def* platform_of(std::string_view chipset) noexcept {
  for (const platform_def* p : platforms) {
    if (p->chipset == chipset) return p;
  }
  return nullptr;
}

inline std::optional<intel::platform> intel_platform_of(const platform_def& p) noexcept {
  using intel::platform;
  if (p.name == "hsw") return platform::hsw;
  if (p.name == "skl_gt2") return platform::skl;
  if (p.name == "tgl_gt2") return platform::tgl;
  if (p.name == "lnl") return platform::lnl;
  if (p.name == "bmg") return platform::bmg;
  if (p.name == "ptl") return platform::ptl;
  return std::nullopt;
}

// MDAPI's concurrent group of OA sets (the render/compute OA unit). Media
// sets (OAM groups) are not translated.
inline constexpr std::string_view oa_group = "OA";

inline const metric_def* find(const platform_def& p, std::string_view set,
                              std::string_view symbol) noexcept {
  for (const metric_def& m : p.metrics) {
    if (m.group == oa_group && m.set == set && m.symbol == symbol) return &m;
  }
  return nullptr;
}

inline bool has_set(const platform_def& p, std::string_view set) noexcept {
  for (const metric_def& m : p.metrics) {
    if (m.group == oa_group && m.set == set) return true;
  }
  return false;
}

// The layout MDAPI's byte offsets address for `set`: the set's own report
// type (the Xe2 files name one), else the platform's 256-byte i915 layout
// (A45_B8_C8 on Haswell, A32u40_A4u32_B8_C8 from Gen8 on).
inline const intel::report_format* layout_of(const platform_def& p, const metric_set& set) {
  const auto ip = intel_platform_of(p);
  if (!ip) return nullptr;
  if (const intel::report_format* f = format_for(set, *ip)) return f;
  return intel::find_format(*ip, *ip == intel::platform::hsw ? "A45_B8_C8" : "A32u40_A4u32_B8_C8");
}

namespace detail {

inline std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

inline std::optional<unsigned> hex_offset(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  unsigned v = 0;
  for (char c : s.substr(2)) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0 || v > 0xffff) return std::nullopt;
    v = v * 16 + static_cast<unsigned>(d);
  }
  return v;
}

// An RPN counter read for a report field: `dw@0x1c`, `qw@0x160`, `rd40@0x14:0xa1`.
inline std::optional<std::string> field_read(std::string_view tok, const intel::report_format& f) {
  const std::size_t at = tok.find('@');
  const std::string_view kind = tok.substr(0, at);
  std::string_view where = tok.substr(at + 1);
  std::optional<unsigned> high;
  if (kind == "rd40") {
    const std::size_t colon = where.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    high = hex_offset(where.substr(colon + 1));
    if (!high) return std::nullopt;
    where = where.substr(0, colon);
  } else if (kind != "dw" && kind != "qw") {
    return std::nullopt;
  }
  const auto off = hex_offset(where);
  if (!off) return std::nullopt;
  for (const intel::field& fd : f.fields) {
    if (fd.offset != *off) continue;
    if (high && (fd.bits != 40 || fd.high_byte_offset != *high)) continue;
    switch (fd.kind) {
      case intel::field_kind::timestamp:
        return std::string("GPU_TIME 0 READ");
      case intel::field_kind::gpu_ticks:
        return std::string("GPU_CLOCK 0 READ");
      case intel::field_kind::a:
      case intel::field_kind::mpec:
        return "A " + std::to_string(fd.index) + " READ";
      case intel::field_kind::b:
        return "B " + std::to_string(fd.index) + " READ";
      case intel::field_kind::c:
        return "C " + std::to_string(fd.index) + " READ";
      case intel::field_kind::pec:
        return "PEC " + std::to_string(fd.index) + " READ";
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

inline bool is_number(std::string_view t) {
  if (t.empty()) return false;
  for (char c : t) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'x' || (c >= 'a' && c <= 'f') ||
          (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return t[0] >= '0' && t[0] <= '9';
}

inline bool is_binary_op(std::string_view t) {
  for (std::string_view o : {"UADD", "USUB", "UMUL", "UDIV", "FADD", "FSUB", "FMUL", "FDIV", "UMIN",
                             "FMAX", "AND", ">>", "<<", "UGT", "ULT", "UGTE", "ULTE"}) {
    if (t == o) return true;
  }
  return false;
}

class translator {
 public:
  translator(const platform_def& p, std::string_view set, const intel::report_format& f,
             const metric_set& file)
      : p_(p), set_(set), f_(f), file_(file) {}

  // MDAPI's delta of metric `m` (its read equation), as RPN.
  std::optional<std::string> read(const metric_def& m, int depth = 0) {
    if (m.read.empty()) return std::string("0");
    if (depth > 4) return fail("read equations refer to each other too deeply");
    return rpn(m.read, [&](std::string_view t) -> std::optional<std::string> {
      if (t.find('@') != std::string_view::npos) {
        auto r = field_read(t, f_);
        if (!r) fail("no counter of " + std::string(f_.name) + " at " + std::string(t));
        return r;
      }
      if (t.starts_with("$")) return symbol(t.substr(1), nullptr, depth);
      return std::nullopt;
    });
  }

  // MDAPI's value of `m`: read equation, normalization, result cast.
  std::optional<std::string> value(const metric_def& m) {
    if (m.result == result_type::bool32) return fail("a boolean result");
    std::optional<std::string> v;
    if (m.normalization.empty()) {
      v = read(m);
    } else if (m.normalization == "GpuDuration" || m.normalization == "EuAggrDuration") {
      auto self = read(m);
      const metric_def* clocks = find(p_, set_, "GpuCoreClocks");
      if (!clocks) return fail("no GpuCoreClocks in the set");
      auto c = read(*clocks, 1);
      if (!self || !c) return std::nullopt;
      std::string den = *c;
      if (m.normalization == "EuAggrDuration") den += " $EuCoresTotalCount UMUL";
      v = "100 " + *self + " FMUL " + den + " FDIV";
    } else {
      v = rpn(m.normalization, [&](std::string_view t) -> std::optional<std::string> {
        if (t == "$Self") return read(m);
        if (t.starts_with("$$")) {
          const std::string_view name = t.substr(2);
          for (const metric& x : file_.metrics) {
            if (x.symbol_name == name) return "$" + std::string(name);
          }
          return fail("refers to " + std::string(name) + ", which the metric file lacks");
        }
        if (t.starts_with("$")) return symbol(t.substr(1), &m, 0);
        return std::nullopt;
      });
    }
    if (!v) return std::nullopt;
    if (m.result == result_type::uint64) return *v + " 1 UMUL";
    if (m.result == result_type::uint32) return *v + " 1 UMUL 4294967295 AND";
    return v;
  }

  const std::string& why() const noexcept { return why_; }

 private:
  std::nullopt_t fail(std::string w) {
    if (why_.empty()) why_ = std::move(w);
    return std::nullopt;
  }

  // `$Name` in an equation: another metric of the set (its delta) or a
  // device variable.
  std::optional<std::string> symbol(std::string_view name, const metric_def* self, int depth) {
    if (const metric_def* x = find(p_, set_, name); x && x != self) return read(*x, depth + 1);
    for (const std::string& v : intel_device_variables()) {
      if (v == name) return "$" + std::string(name);
    }
    if (is_intel_topology_variable(name)) return "$" + std::string(name);
    return fail("reads " + std::string(name) + ", which is no device variable hwpc knows");
  }

  template <class Leaf>
  std::optional<std::string> rpn(std::string_view eq, Leaf leaf) {
    std::vector<std::string> st;
    for (std::string_view t : tokens(eq)) {
      if (is_binary_op(t) || t == "UMAX") {
        if (st.size() < 2) return fail("malformed equation '" + std::string(eq) + "'");
        std::string b = std::move(st.back());
        st.pop_back();
        std::string a = std::move(st.back());
        st.pop_back();
        if (t == "UMAX") {
          st.push_back(a + " " + b + " UADD " + a + " " + b + " UMIN USUB");
        } else {
          st.push_back(a + " " + b + " " + std::string(t));
        }
      } else if (is_number(t)) {
        st.emplace_back(t);
      } else if (auto r = leaf(t)) {
        st.push_back(std::move(*r));
      } else {
        return fail("cannot translate '" + std::string(t) + "'");
      }
    }
    if (st.size() != 1) return fail("malformed equation '" + std::string(eq) + "'");
    return std::move(st.back());
  }

  const platform_def& p_;
  std::string_view set_;
  const intel::report_format& f_;
  const metric_set& file_;
  std::string why_;
};

}  // namespace detail

// MDAPI's definition of metric `symbol` of `file` (a set of a metric file
// whose chipset MDAPI defines) as an hwpc RPN formula, or nullopt with the
// reason in `why` (no such metric, a field no counter of the layout holds, an
// operator hwpc lacks, ...).
inline std::optional<std::string> translate(const platform_def& p, const metric_set& file,
                                            std::string_view symbol, std::string* why = nullptr) {
  const metric_def* m = find(p, file.symbol_name, symbol);
  const intel::report_format* f = layout_of(p, file);
  if (!m || !f) {
    if (why) *why = !m ? "metrics-discovery does not define it" : "no report layout";
    return std::nullopt;
  }
  detail::translator t(p, file.symbol_name, *f, file);
  auto r = t.value(*m);
  if (!r && why) *why = t.why();
  return r;
}

// `set` with MDAPI's definition of every metric both define (and `choice`
// allows), each marked literal_arithmetic; the set itself when MDAPI does not
// define its chipset or set. definitions::newer also appends the metrics only
// MDAPI defines (named after their symbol; no units: the tables keep none). A metric whose
// definition cannot be translated keeps the file's formula (tests/test_metrics_mdapi.cpp names
// none).
inline metric_set with_definitions(const metric_set& set, definitions choice) {
  // The translations are RPN: only the Intel files' syntax takes them.
  const platform_def* p = choice == definitions::file || set.syntax != expr::syntax::rpn
                              ? nullptr
                              : platform_of(set.chipset);
  if (!p || !has_set(*p, set.symbol_name)) return set;
  metric_set out = set;
  for (metric& m : out.metrics) {
    if (m.literal_arithmetic) continue;  // already MDAPI's
    if (choice != definitions::newer && differs(set.chipset, set.symbol_name, m.symbol_name)) {
      continue;
    }
    if (auto eq = translate(*p, set, m.symbol_name)) {
      m.equation = std::move(*eq);
      m.literal_arithmetic = true;
    }
  }
  if (choice != definitions::newer) return out;
  // The metrics only MDAPI defines, appended in its order.
  for (const metric_def& d : p->metrics) {
    if (d.group != oa_group || d.set != set.symbol_name) continue;
    bool in_file = false;
    for (const metric& m : set.metrics) in_file = in_file || m.symbol_name == d.symbol;
    if (in_file) continue;
    if (auto eq = translate(*p, out, d.symbol)) {
      metric m;
      m.symbol_name = std::string(d.symbol);
      m.name = m.symbol_name;
      m.type = d.result == result_type::float32 ? data_type::float32 : data_type::uint64;
      m.equation = std::move(*eq);
      m.availability = std::string(d.availability);
      m.literal_arithmetic = true;
      out.metrics.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace hwpc::metrics::mdapi
