// JSON (RFC 8259) of a capture's rows: an array with one object per row.
//
// An interval: {"report", "offset", "timestamp" (its end on the schema's
// clock), one key per counter, "reason", "ctx_id" (null when the source
// could not tell), one key per metric (null when the formula could not be
// evaluated or its value is NaN or infinite)}. A loss: {"report", "offset",
// "lost": true, "reason"}. When anything in the input did not become a row
// (skipped or lost), a last element {"accounting": {...}} says where every
// record went (output/accounting.hpp). Every key and string is escaped.
#pragma once

#include "hwpc/core/row.hpp"
#include "hwpc/output/accounting.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output {

class json_writer final : public row_writer {
 public:
  json_writer(text_buffer& out, const row_schema& s) : out_(out), s_(s) { out_ << "["; }
  void write(const row& r) override {
    next();
    out_ << "\"report\": " << r.report << ", \"offset\": " << r.offset;
    if (r.lost) {
      out_ << ", \"lost\": true, \"reason\": ";
      out_.json_string(r.reason) << "}";
      return;
    }
    out_ << ", \"timestamp\": " << r.end;
    for (std::size_t c = 0; c < r.counters.size(); ++c) {
      out_ << ", ";
      out_.json_string(s_.counters[c].name) << ": " << r.counters[c];
    }
    out_ << ", \"reason\": ";
    out_.json_string(r.reason) << ", \"ctx_id\": ";
    if (r.has_context) {
      out_ << std::uint64_t{r.context};
    } else {
      out_ << "null";
    }
    for (std::size_t j = 0; j < r.metrics.size(); ++j) {
      out_ << ", ";
      out_.json_string(s_.metrics[j].name) << ": ";
      out_.json_cell(r.metrics[j]);
    }
    out_ << "}";
  }
  void end(const accounting& acc) override {
    if (acc.anything_dropped()) {
      next();
      out_ << "\"accounting\": ";
      write_accounting_json(out_, acc);
      out_ << "}";
    }
    out_ << "\n]\n";
  }

 private:
  void next() {
    out_ << (first_ ? "\n  {" : ",\n  {");
    first_ = false;
  }
  text_buffer& out_;
  const row_schema& s_;
  bool first_ = true;
};

}  // namespace hwpc::output
