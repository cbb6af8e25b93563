// CSV (RFC 4180) of a capture's rows.
//
// Header: report,offset,timestamp, one column per counter, reason, ctx_id,
// one column per metric, and `lost` when the source can lose reports. A row
// is one interval: `timestamp` is its end on the schema's clock, counters
// hold the increments, `ctx_id` the context it ran in (empty when the
// source could not tell), metrics their values (empty when a formula could
// not be evaluated). A loss is a row with lost=1, its kind as the reason
// and every value empty (without the `lost` field under a schema that said
// it cannot lose reports: every row has the header's fields, and only a
// loss has an empty timestamp). Names from the schema are escaped (text.hpp).
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
    // report, offset, timestamp and ctx_id, each counter and each metric with
    // its comma; the reason's share is added per row; the tail.
    row_room_ = 4 * (text_buffer::max_u64_chars + 1) +
                s.counters.size() * (text_buffer::max_u64_chars + 1) +
                s.metrics.size() * (text_buffer::max_cell_chars + 1) + 8;
  }
  // One reserve() for the row's worst case, then every number straight into
  // the buffer (text.hpp): the writer is the tool's hot loop for CSV.
  void write(const row& r) override {
    using tb = text_buffer;
    char* p = out_.reserve(row_room_ + tb::csv_field_room(r.reason.size()));
    p = tb::put_u64(p, r.report);
    *p++ = ',';
    p = tb::put_u64(p, r.offset);
    *p++ = ',';
    if (r.lost) {
      for (std::size_t i = 0; i <= s_.counters.size(); ++i) *p++ = ',';
      p = tb::put_csv_field(p, r.reason);
      *p++ = ',';
      for (std::size_t j = 0; j < s_.metrics.size(); ++j) *p++ = ',';
      // A schema that said it cannot lose reports has no `lost` column: the
      // row keeps the header's fields, told apart by its empty timestamp.
      p = s_.has_losses ? put(p, ",1\n") : put(p, "\n");
      out_.commit(p);
      return;
    }
    p = tb::put_u64(p, r.end);
    for (std::uint64_t v : r.counters) {
      *p++ = ',';
      p = tb::put_u64(p, v);
    }
    *p++ = ',';
    p = tb::put_csv_field(p, r.reason);
    *p++ = ',';
    if (r.has_context) p = tb::put_u64(p, r.context);
    for (const cell& v : r.metrics) {
      *p++ = ',';
      p = tb::put_csv_cell(p, v);
    }
    p = s_.has_losses ? put(p, ",0\n") : put(p, "\n");
    out_.commit(p);
  }
  void end(const accounting&) override {}

 private:
  template <std::size_t N>
  static char* put(char* p, const char (&lit)[N]) noexcept {
    for (std::size_t i = 0; i + 1 < N; ++i) *p++ = lit[i];
    return p;
  }
  text_buffer& out_;
  const row_schema& s_;
  std::size_t row_room_ = 0;
};

}  // namespace hwpc::output
