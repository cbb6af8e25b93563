// An opened capture, whatever its vendor: the one object every door holds
// between "open this" and "write its rows". `hwpc::open` (pipeline/open.hpp)
// and the vendors' `open_capture` return one; the tool's commands, the Python
// module, `hwpc report` and the recorder only choose a writer and call
// write() (or hand write_rows() a sink of their own), so no door assembles a
// pipeline of its own.
//
// The object owns what its rows point into (the mapped file, the embedded
// default capture's bytes) unless the caller lent the bytes
// (capture_source::borrow), in which case they must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/core/row_writer.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/mapped_file.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc {

// Where a capture's bytes are.
class capture_source {
 public:
  // A file, mapped (never copied). Errors name the path.
  static result<capture_source> map(std::string path) {
    auto f = pipeline::mapped_file::open(path);
    if (!f) return f.error_value();
    capture_source s;
    s.name_ = std::move(path);
    s.path_ = s.name_;
    s.file_.emplace(std::move(*f));
    return s;
  }
  // Bytes the capture keeps (the embedded default capture, a recorder's buffer).
  static capture_source own(std::vector<std::byte> bytes, std::string name) {
    capture_source s;
    s.name_ = std::move(name);
    s.owned_ = std::move(bytes);
    return s;
  }
  // Bytes the caller keeps alive for as long as the capture lives.
  static capture_source borrow(byte_span bytes, std::string name) {
    capture_source s;
    s.name_ = std::move(name);
    s.borrowed_ = bytes;
    return s;
  }

  byte_span bytes() const noexcept {
    if (file_) return file_->bytes();
    if (!owned_.empty()) return {owned_.data(), owned_.size()};
    return borrowed_;
  }
  // What messages call the input: the path, or the name given with the bytes.
  const std::string& name() const noexcept { return name_; }
  // The file's path when the input is a file (a reader that streams may
  // reopen it), else empty.
  const std::string& path() const noexcept { return path_; }

 private:
  std::string name_;
  std::string path_;
  std::optional<pipeline::mapped_file> file_;
  std::vector<std::byte> owned_;
  byte_span borrowed_;
};

// How a door wants the rows written (output/make_writer.hpp checks the choice).
struct write_options {
  output::output_choice choice;
  output::perfetto::trace_layout layout = output::perfetto::trace_layout::gpu_counters;
  output::perfetto::fleet_writer* fleet = nullptr;  // a trace of several captures, else null
};

// What a capture says of itself beyond its rows, for a door that hands it
// on as data (Python's decode dict): each vendor fills what it knows, so no
// door asks which vendor's capture it holds.
struct capture_facts {
  std::string platform;    // Intel: the platform's name
  std::string format;      // Intel: the report format's name
  std::string metric_set;  // Intel: the metric set computed; empty without metrics
  std::vector<std::string> dropped_metrics;  // Intel: the metrics left out, and why
  // Mali, after a write: the physics findings kept (each worded), and how many there were.
  std::vector<std::string> findings;
  std::size_t findings_total = 0;
  std::optional<std::uint32_t> gpu_id;  // Adreno: the GPU id the capture names
};

// The totals of every row (`--summary`) and where every record went.
struct capture_totals {
  output::totals totals;
  accounting acc;
};

class capture {
 public:
  virtual ~capture() = default;

  virtual hwpc::vendor vendor() const noexcept = 0;
  // The rows' columns, metric columns included, known before the first row.
  virtual const row_schema& schema() const noexcept = 0;
  // One line each, found while opening (a metric left out and why, a note
  // that the input has no decodable rows): the door shows them before the rows.
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

  // Every row, in order, into `w`, then `w.end(acc)`. Returns the accounting
  // (where every record went), or the bad input's error, offsets into the
  // user's file.
  virtual result<accounting> write_rows(row_writer& w) = 0;

  // What the writers need beyond the rows: title, vendor and model, the
  // clock, the metrics of the totals, the HTML report's facts.
  virtual output::writer_parts writer_parts(const output::output_choice& c) const = 0;

  // The writer `o` names, fed every row. A vendor with a faster way to the
  // same bytes (Intel's totals of raw reports) or with facts only known after
  // the rows (the HTML report's) overrides it.
  virtual result<accounting> write(const write_options& o, output::text_buffer& out) {
    output::writer_parts p = writer_parts(o.choice);
    p.layout = o.layout;
    p.fleet = o.fleet;
    output::made_writer m = output::make_writer(o.choice, out, schema(), std::move(p));
    return write_rows(*m.writer);
  }

  // The totals of every row, the metrics computed from them: the rows summed
  // (output::totals_writer), unless a vendor has a faster way to the same
  // numbers (Intel's raw reports are totalled whole).
  virtual result<capture_totals> totals() {
    output::totals_writer sum(schema(),
                              writer_parts({output::writer_kind::csv, true}).totals_metrics);
    auto acc = write_rows(sum);
    if (!acc) return acc.error_value();
    return capture_totals{std::move(sum.result()), *acc};
  }

  // What the capture says of itself (capture_facts); some facts are known
  // only after a write.
  virtual capture_facts facts() const { return {}; }

  // At most this many rows will be written (for a door that reserves
  // columns), or 0 when the capture cannot say.
  virtual std::size_t rows_at_most() const noexcept { return 0; }

  // Warnings known only once the rows are written (Mali's physics checks),
  // for a door to show after them: the first `shown`, then a line that
  // counts them. Empty for a vendor that has none, and before write_rows().
  virtual std::vector<std::string> warnings_after_rows(std::size_t shown,
                                                       const pipeline::spelling& sp) const {
    (void)shown;
    (void)sp;
    return {};
  }

  // Lines for a door to show after the rows (and after warnings_after_rows()),
  // whatever the write returned, each naming the input: what the reading
  // dropped on the way (Intel's lost and unknown records). Empty for a vendor
  // that has none, and before a write.
  virtual std::vector<std::string> notes_after_rows() const { return {}; }

  // Set when a write that succeeded gave partial rows (Adreno's reader
  // skipped bad data): the line that says so, naming the input, for a door
  // that then ends as for bad input. Empty before a write.
  virtual std::optional<std::string> partial_output() const { return std::nullopt; }

 protected:
  std::vector<std::string> warnings_;
};

}  // namespace hwpc
