// The other half of the row contract (row.hpp): what receives a capture's
// rows. Every reader's row producer feeds one, and every writer of output/
// (CSV, JSON, the traces, the summary, the HTML report) and every door's sink
// (Python's columns) is one, so no writer knows which vendor made its rows.
#pragma once

#include "hwpc/core/row.hpp"

namespace hwpc {

// Receives a capture's rows in order.
class row_writer {
 public:
  virtual ~row_writer() = default;
  virtual void write(const row& r) = 0;
  // After the last row; `acc` says where every record went.
  virtual void end(const accounting& acc) = 0;
};

}  // namespace hwpc
