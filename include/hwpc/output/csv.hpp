// CSV (RFC 4180) of a capture's rows.
//
// Header: report,offset,timestamp, one column per counter, reason, ctx_id,
// one column per metric, and `lost` when the source can lose reports. A row
// is one interval: `timestamp` is its end on the schema's clock, counters
// hold the increments, `ctx_id` the context it ran in (empty when the
// source could not tell), metrics their values (empty when a formula could
// not be evaluated). A loss is a row with lost=1, its kind as the reason
// and every value empty. Names from the schema are escaped (text.hpp).
#pragma once

#include "hwpc/core/row.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output {

class csv_writer final : public row_writer {
 public:
  csv_writer(text_buffer& out, const row_schema& s) : out_(out), s_(s) {
    out_ << "report,offset,timestamp";
    for (const column& c : s.counters) out_.csv_field_after_comma(c.name);
    out_ << ",reason,ctx_id";
    for (const column& c : s.metrics) out_.csv_field_after_comma(c.name);
    out_ << (s.has_losses ? ",lost\n" : "\n");
  }
  void write(const row& r) override {
    out_ << r.report << ',' << r.offset << ',';
    if (r.lost) {
      for (std::size_t i = 0; i < s_.counters.size(); ++i) out_ << ',';
      out_ << ',';
      out_.csv_field(r.reason) << ',';
      for (std::size_t j = 0; j < s_.metrics.size(); ++j) out_ << ',';
      out_ << ",1\n";
      return;
    }
    out_ << r.end;
    for (std::uint64_t v : r.counters) out_ << ',' << v;
    out_ << ',';
    out_.csv_field(r.reason) << ',';
    if (r.has_context) out_ << std::uint64_t{r.context};
    for (const cell& v : r.metrics) {
      out_ << ',';
      out_.csv_cell(v);
    }
    out_ << (s_.has_losses ? ",0\n" : "\n");
  }
  void end(const accounting&) override {}

 private:
  text_buffer& out_;
  const row_schema& s_;
};

}  // namespace hwpc::output
