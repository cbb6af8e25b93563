// A Mali capture (kbase vinstr or kinstr_prfcnt samples, with or without an
// hwpc capture header) as a hwpc::capture (pipeline/capture.hpp): every door
// (`hwpc mali`, `hwpc report`, hwpc.mali.decode) opens it here and only
// chooses where the rows go.
//
// open_capture() checks the options and reads the header through
// pipeline/mali_open.hpp, then holds what the rows need: the bytes, the row
// builder, the derived counters, and the physics checks every row passes
// through (mali/plausibility.hpp). The findings are known only after the
// rows, so they are not among warnings(): a door reads them from
// plausibility() (mali::sample_capture) once write_rows() has returned.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/mali.hpp"
#include "hwpc/mali/plausibility.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/mali/tracks.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/mali_open.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::mali {

// The HTML report's facts of an opened capture: the GPU, the reader, the
// device values and where the derived counters come from. `name`: what the
// report calls the input (its path).
inline output::html::report_options report_facts(const std::string& name, const opened_capture& c) {
  output::html::report_options r;
  r.title = "hwpc report: " + name;
  auto fact = [&](std::string key, std::string value) {
    r.facts.push_back({std::move(key), std::move(value)});
  };
  const gpu_product& gpu = *c.gpu;
  // A header's GPU_ID of 0 names no GPU (the options did).
  std::optional<std::uint64_t> gpu_id;
  if (c.header && c.header->gpu_id != 0) gpu_id = c.header->gpu_id;
  fact("vendor", "Arm Mali");
  fact("GPU", std::string(gpu.name) + " (" + std::string(gpu.architecture) + ", " +
                  std::string(gpu.table->key) + " counter layout)");
  fact("format", c.reader == "kinstr" ? "kinstr_prfcnt samples" : "vinstr samples");
  std::string device = gpu_id ? "GPU_ID " + to_hex(*gpu_id) + ", " : "";
  device += "L2 slices " + std::to_string(c.layout.l2_slices) + ", core mask " +
            to_hex(c.layout.core_mask) + " (" + std::to_string(std::popcount(c.layout.core_mask)) +
            " shader cores)";
  fact("device", device);
  fact("input", name + (gpu_id ? " (hwpc Mali capture file)" : " (samples without a header)"));
  r.counter_total = "sum over the samples (each summed over its block instances)";
  r.metric_total = "computed from the counter totals";
  if (!c.derived.empty()) {
    r.metric_group = c.derived == "guide" ? "Mali-G72 counter guide" : "Arm counter database";
    fact("metrics", "derived counters of the " + r.metric_group);
  }
  return r;
}

class sample_capture final : public hwpc::capture {
 public:
  hwpc::vendor vendor() const noexcept override { return hwpc::vendor::mali; }
  const row_schema& schema() const noexcept override { return builder_->schema(); }

  // Each row passes the physics checks on its way to `w`; a failure of the
  // derived counters of the totals (a summary's, the report's) is returned
  // after w.end(), since the rows before it are written.
  result<accounting> write_rows(row_writer& w) override {
    totals_error_.reset();
    plausibility_options popt;
    if (options_.max_clock_mhz) popt.max_clock_hz = *options_.max_clock_mhz * 1'000'000;
    // The rows' own derived counters are checked when they are the database's.
    checker_.emplace(*c_.gpu->table, c_.layout, popt, metrics());
    auto acc = for_each_row(c_, *builder_, [&](const row& r) {
      checker_->check(r);
      w.write(r);
    });
    if (!acc) return acc;
    w.end(*acc);
    if (totals_error_) return *totals_error_;
    return acc;
  }

  // The totals' derived counters call into this capture: it outlives the
  // writer made from the parts (as write() and the doors keep it).
  output::writer_parts writer_parts(const output::output_choice& choice) const override {
    output::writer_parts p;
    if (c_.metrics) {
      p.totals_metrics = [this](std::span<const std::uint64_t> t, std::uint64_t,
                                std::vector<cell>& cells) {
        if (auto ok = builder_->metrics_of(t, cells); !ok && !totals_error_) {
          totals_error_ = ok.error_value();
        }
      };
    }
    p.title = "hwpc mali " + schema().source + ": " + src_.name();
    if (choice.kind == output::writer_kind::html) p.report = report_facts(src_.name(), c_);
    if (choice.kind == output::writer_kind::perfetto && !choice.summary) {
      p.tracks = track_layout_of(*c_.gpu, schema(), c_.rows);
      p.vendor = "Arm";
      p.model = std::string(c_.gpu->name);
    }
    return p;
  }

  // What open() found: the GPU, the reader, the layout, the header.
  const opened_capture& opened() const noexcept { return c_; }
  // The physics checks of the last write_rows() (null before the first).
  const plausibility_checker* plausibility() const noexcept {
    return checker_ ? &*checker_ : nullptr;
  }
  // The physics findings of the last write (none before one).
  capture_facts facts() const override {
    capture_facts f;
    if (checker_) {
      for (const auto& finding : checker_->findings()) f.findings.push_back(finding.describe());
      f.findings_total = checker_->total_findings();
    }
    return f;
  }
  // The physics findings, as plausibility_lines() words them.
  std::vector<std::string> warnings_after_rows(std::size_t shown,
                                               const pipeline::spelling& sp) const override;

 private:
  friend result<std::unique_ptr<hwpc::capture>> open_capture(capture_source, const open_options&,
                                                             const pipeline::spelling&);
  // open_capture() makes one and opens it.
  sample_capture(capture_source src, const open_options& o) : src_(std::move(src)), options_(o) {}
  const evaluator* metrics() const noexcept { return c_.metrics ? &*c_.metrics : nullptr; }

  capture_source src_;  // what c_.payload points into
  open_options options_;
  opened_capture c_;
  // mutable: the builder's metric buffers serve the totals of a const writer_parts().
  mutable std::optional<row_builder> builder_;
  std::optional<plausibility_checker> checker_;
  mutable std::optional<error> totals_error_;

  // Reads the header and builds the rows' state once the bytes sit where
  // they stay (in *this).
  result<void> open(const pipeline::spelling& sp) {
    auto opened = mali::open(src_.bytes(), options_, sp);
    if (!opened) return opened.error_value();
    c_ = std::move(*opened);
    builder_.emplace(*c_.gpu, metrics(), c_.rows);
    return {};
  }
};

// Opens a Mali capture: the options are checked (usage errors, errc::usage,
// in the door's spelling), then the header read. With a header the options
// may repeat it but not contradict it.
inline result<std::unique_ptr<hwpc::capture>> open_capture(capture_source src,
                                                           const open_options& o,
                                                           const pipeline::spelling& sp) {
  if (auto ok = check(o, sp); !ok) return ok.error_value();
  std::unique_ptr<sample_capture> cap(new sample_capture(std::move(src), o));
  if (auto ok = cap->open(sp); !ok) return ok.error_value();
  return std::unique_ptr<hwpc::capture>(std::move(cap));
}

// The Mali side of an opened capture (null for another vendor's).
inline const sample_capture* mali_side(const hwpc::capture& c) noexcept {
  return dynamic_cast<const sample_capture*>(&c);
}

// The physics findings of the rows written, for a door's warnings: the
// first `shown`, then a line with their number, the GPU they were checked
// against and a hint that the GPU option may be wrong (empty: no finding).
inline std::vector<std::string> plausibility_lines(const sample_capture& c, std::size_t shown,
                                                   const pipeline::spelling& sp) {
  std::vector<std::string> lines;
  const plausibility_checker* pc = c.plausibility();
  if (pc == nullptr || pc->total_findings() == 0) return lines;
  const auto& f = pc->findings();
  for (std::size_t i = 0; i < f.size() && i < shown; ++i) lines.push_back(f[i].describe());
  lines.push_back(std::to_string(pc->total_findings()) + " value(s) break physical bounds under " +
                  std::string(c.opened().gpu->name) +
                  " (docs/mali.md, \"Plausibility checks\"): is " + sp.option("gpu") + " right?");
  return lines;
}

inline std::vector<std::string> sample_capture::warnings_after_rows(
    std::size_t shown, const pipeline::spelling& sp) const {
  return plausibility_lines(*this, shown, sp);
}

}  // namespace hwpc::mali
