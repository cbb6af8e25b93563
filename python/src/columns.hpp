// Rows of the row contract (core/row.hpp) collected as columns, then handed
// to NumPy without a copy.
//
// column_sink is an output::row_writer: the readers and metric_rows feed it
// exactly as they feed the CSV writer. Each column is a std::vector that
// grows as rows come (no Python object per row or per value, no GIL), and
// to_python() moves every vector into a NumPy array that owns it (a capsule
// frees it), so filling the columns is the only pass over the data.
//
// The same rows give the same columns for every vendor and input kind, the
// CSV writer's (output/csv.hpp): report and offset (int64), timestamp (the
// row's end, uint64 on the schema's clock), one uint64 per counter, reason
// (codes into a list of the distinct texts), ctx_id (uint32, with a mask of
// the rows whose context the source could not tell), one float64 per metric
// (with a mask of the empty cells, made only when a column has one), and
// lost (bool). A cell the CSV leaves empty is masked (hwpc.Rows makes the
// masks of a loss row's timestamp and counters from `lost`): missing data,
// never a number.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <sys/mman.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hwpc/core/row.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::py {

namespace pyb = pybind11;

// Moves `v` into a NumPy array that owns it.
template <class T, class A>
pyb::array_t<T> to_numpy(std::vector<T, A>&& v) {
  auto* owned = new std::vector<T, A>(std::move(v));
  pyb::capsule free_it(owned, [](void* p) { delete static_cast<std::vector<T, A>*>(p); });
  return pyb::array_t<T>({static_cast<pyb::ssize_t>(owned->size())}, owned->data(), free_it);
}

// An allocator of 2 MiB-aligned blocks with transparent huge pages asked
// for: a decode fills fresh memory, and with 4 KiB pages the kernel's page
// faults cost more than the filling (docs/performance.md, "Python").
template <class T>
struct huge_allocator {
  using value_type = T;
  static constexpr std::size_t huge = std::size_t{2} << 20;
  huge_allocator() = default;
  template <class U>
  huge_allocator(const huge_allocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < huge) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + huge - 1) & ~(huge - 1);
    void* p = std::aligned_alloc(huge, rounded);
    if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < huge) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const huge_allocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using column_vector = std::vector<T, huge_allocator<T>>;

// NaN for an empty cell, else the value as a double (what pandas holds).
inline double cell_value(const cell& c) noexcept {
  return c.is_none() ? std::numeric_limits<double>::quiet_NaN() : c.as_double();
}

inline pyb::dict schema_to_python(const row_schema& s) {
  auto columns = [](const std::vector<column>& cs) {
    pyb::list out;
    for (const column& c : cs) out.append(pyb::make_tuple(c.name, c.units));
    return out;
  };
  pyb::dict d;
  d["source"] = s.source;
  d["counters"] = columns(s.counters);
  d["metrics"] = columns(s.metrics);
  d["clock"] = s.clock == clock_kind::gpu_timestamp ? "gpu_timestamp" : "cpu_ns";
  d["ticks_per_second"] = s.ticks_per_second;
  d["has_context"] = s.has_context;
  d["has_losses"] = s.has_losses;
  return d;
}

inline pyb::dict accounting_to_python(const accounting& a) {
  pyb::dict d;
  for_each_bucket(a, [&](const char* name, std::uint64_t v) { d[name] = v; });
  return d;
}

class column_sink final : public output::row_writer {
 public:
  // Rows are staged row-major, `block` at a time, and appended to the
  // columns a column at a time: writing each value straight to its column
  // would touch one page per column per row (95 columns for TGL with
  // RenderBasic), which costs more than the decode (docs/performance.md).
  static constexpr std::size_t block = 256;

  explicit column_sink(const row_schema& s)
      : counters_(s.counters.size()),
        metrics_(s.metrics.size()),
        metric_masks_(s.metrics.size()),
        staged_counters_(block * s.counters.size()),
        staged_metrics_(block * s.metrics.size()),
        staged_empty_(block * s.metrics.size()),
        staged_none_(s.metrics.size(), 0) {}

  // A hint: about `rows` rows will come (the columns then grow in place).
  void reserve(std::size_t rows) {
    for (auto* v : {&report_, &offset_}) v->reserve(rows);
    ctx_.reserve(rows);
    ctx_unknown_.reserve(rows);
    begin_.reserve(rows);
    end_.reserve(rows);
    lost_.reserve(rows);
    reason_.reserve(rows);
    for (auto& c : counters_) c.reserve(rows);
    for (auto& m : metrics_) m.reserve(rows);
  }

  void write(const row& r) override {
    report_.push_back(static_cast<std::int64_t>(r.report));
    offset_.push_back(static_cast<std::int64_t>(r.offset));
    begin_.push_back(r.begin);
    end_.push_back(r.end);
    lost_.push_back(r.lost);
    reason_.push_back(reason_code(r.reason));
    ctx_.push_back(r.has_context ? r.context : 0);
    ctx_unknown_.push_back(r.has_context ? 0 : 1);
    const std::size_t nc = counters_.size(), nm = metrics_.size();
    std::uint64_t* c = staged_counters_.data() + staged_ * nc;
    const std::size_t have_c = r.counters.size() < nc ? r.counters.size() : nc;
    for (std::size_t i = 0; i < have_c; ++i) c[i] = r.counters[i];
    for (std::size_t i = have_c; i < nc; ++i) c[i] = 0;
    double* m = staged_metrics_.data() + staged_ * nm;
    const std::size_t have_m = r.metrics.size() < nm ? r.metrics.size() : nm;
    std::uint8_t* e = staged_empty_.data() + staged_ * nm;
    for (std::size_t j = 0; j < have_m; ++j) {
      m[j] = cell_value(r.metrics[j]);
      e[j] = r.metrics[j].is_none() ? 1 : 0;
      staged_none_[j] |= e[j];
    }
    for (std::size_t j = have_m; j < nm; ++j) {
      m[j] = std::numeric_limits<double>::quiet_NaN();
      e[j] = 1;
      staged_none_[j] = 1;
    }
    if (++staged_ == block) flush();
  }
  void end(const accounting& acc) override {
    flush();
    acc_ = acc;
  }
  const accounting& acc() const noexcept { return acc_; }

  // {"report": ..., ..., "counters": [arrays], "metrics": [arrays],
  //  "metric_masks": [bool array or None], "ctx_unknown": bool array,
  //  "reason_codes": int32 array, "reasons": [texts]}; needs the GIL.
  pyb::dict to_python() {
    pyb::dict d;
    d["report"] = to_numpy(std::move(report_));
    d["offset"] = to_numpy(std::move(offset_));
    d["begin"] = to_numpy(std::move(begin_));  // not a column: the fleet trace places values
    d["end"] = to_numpy(std::move(end_));
    d["lost"] = to_numpy(std::move(lost_)).attr("view")("bool");
    d["reason_codes"] = to_numpy(std::move(reason_));
    pyb::list reasons;
    for (const std::string& t : reasons_) reasons.append(pyb::str(t));
    d["reasons"] = reasons;
    d["ctx_id"] = to_numpy(std::move(ctx_));
    d["ctx_unknown"] = to_numpy(std::move(ctx_unknown_)).attr("view")("bool");
    pyb::list counters, metrics, masks;
    for (auto& c : counters_) counters.append(to_numpy(std::move(c)));
    for (auto& m : metrics_) metrics.append(to_numpy(std::move(m)));
    for (auto& k : metric_masks_) {
      if (k.made) {
        masks.append(to_numpy(std::move(k.none)).attr("view")("bool"));
      } else {
        masks.append(pyb::none());
      }
    }
    d["counters"] = counters;
    d["metrics"] = metrics;
    d["metric_masks"] = masks;
    d["accounting"] = accounting_to_python(acc_);
    return d;
  }

 private:
  // Rows of one capture repeat a handful of reason texts: the last one is
  // checked first, the map only when the text changes.
  std::int32_t reason_code(std::string_view text) {
    if (last_code_ >= 0 && reasons_[static_cast<std::size_t>(last_code_)] == text) {
      return last_code_;
    }
    auto [it, added] =
        codes_.try_emplace(std::string(text), static_cast<std::int32_t>(reasons_.size()));
    if (added) reasons_.emplace_back(text);
    last_code_ = it->second;
    return last_code_;
  }

  // The empty cells of one metric column: made on the first one (most
  // columns never have one, and then cost nothing).
  struct metric_mask {
    bool made = false;
    column_vector<std::uint8_t> none;
  };
  column_vector<std::int64_t> report_, offset_;
  column_vector<std::uint32_t> ctx_;
  column_vector<std::uint64_t> begin_, end_;
  column_vector<std::uint8_t> lost_, ctx_unknown_;
  column_vector<std::int32_t> reason_;
  std::vector<column_vector<std::uint64_t>> counters_;
  std::vector<column_vector<double>> metrics_;
  std::vector<metric_mask> metric_masks_;
  std::vector<std::string> reasons_;
  std::unordered_map<std::string, std::int32_t> codes_;
  // The staged rows to their columns, one column at a time.
  void flush() {
    if (staged_ == 0) return;
    const std::size_t nc = counters_.size(), nm = metrics_.size();
    for (std::size_t c = 0; c < nc; ++c) {
      // push_back, not resize: resize would clear the memory first.
      column_vector<std::uint64_t>& col = counters_[c];
      for (std::size_t i = 0; i < staged_; ++i) col.push_back(staged_counters_[i * nc + c]);
    }
    for (std::size_t j = 0; j < nm; ++j) {
      column_vector<double>& col = metrics_[j];
      const std::size_t before = col.size();
      for (std::size_t i = 0; i < staged_; ++i) col.push_back(staged_metrics_[i * nm + j]);
      metric_mask& k = metric_masks_[j];
      if (!k.made && staged_none_[j] == 0) continue;
      if (!k.made) {
        k.made = true;
        k.none.reserve(col.capacity());
        k.none.assign(before, 0);
      }
      for (std::size_t i = 0; i < staged_; ++i) {
        k.none.push_back(staged_empty_[i * nm + j]);
      }
      staged_none_[j] = 0;
    }
    staged_ = 0;
  }

  std::int32_t last_code_ = -1;
  accounting acc_;
  std::vector<std::uint64_t> staged_counters_;  // staged row i's counters at [i * counters]
  std::vector<double> staged_metrics_;          // staged row i's metrics at [i * metrics]
  std::vector<std::uint8_t> staged_empty_;      // 1 where staged row i's metric is empty
  std::vector<std::uint8_t> staged_none_;       // 1 where some staged row's metric j is empty
  std::size_t staged_ = 0;
};

// The totals of `hwpc decode --summary` (output/summary.hpp) as one row:
// the capture's totals() (pipeline/capture.hpp), handed to Python.
class totals_sink {
 public:
  totals_sink(const row_schema& s, output::totals t, const accounting& acc)
      : s_(s), t_(std::move(t)), acc_(acc) {}

  pyb::dict to_python() const {
    auto one = [](auto v) { return to_numpy(std::vector<decltype(v)>{v}); };
    pyb::dict d;
    d["intervals"] = one(t_.intervals);
    d["elapsed_ticks"] = one(t_.elapsed);
    pyb::list counters, metrics, masks;
    for (std::uint64_t v : t_.counters) counters.append(one(v));
    for (std::size_t j = 0; j < s_.metrics.size(); ++j) {
      const bool none = j >= t_.metrics.size() || t_.metrics[j].is_none();
      metrics.append(
          one(none ? std::numeric_limits<double>::quiet_NaN() : t_.metrics[j].as_double()));
      masks.append(none ? pyb::object(one(std::uint8_t{1}).attr("view")("bool"))
                        : pyb::object(pyb::none()));
    }
    d["metric_masks"] = masks;
    d["counters"] = counters;
    d["reports"] = one(t_.reports);
    d["skipped_zero"] = one(t_.skipped_zero);
    if (t_.discontinuities) d["discontinuities"] = one(*t_.discontinuities);
    d["metrics"] = metrics;
    d["accounting"] = accounting_to_python(acc_);
    return d;
  }

 private:
  const row_schema& s_;
  output::totals t_;
  accounting acc_;
};

}  // namespace hwpc::py
