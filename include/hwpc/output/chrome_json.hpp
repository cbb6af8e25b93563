// Chrome trace-event JSON of a capture's rows, for ui.perfetto.dev and
// chrome://tracing (`hwpc decode --output chrome-json`).
//
// One "ph":"C" counter track per counter and per metric; each interval's
// values are placed at the interval's begin. A loss is a global instant
// event ("ph":"i") named by its kind, and sets every counter track to 0
// until reports resume, so no value is drawn across it. Times are in
// microseconds with three decimals; `to_ns` maps the schema's clock to
// nanoseconds (CPU time when the caller can correlate, else GPU time).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hwpc/core/row.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output {

// Nanoseconds as microseconds with three decimals ("-1.500" for -1500).
inline void write_us(text_buffer& out, std::int64_t ns) {
  std::uint64_t u = static_cast<std::uint64_t>(ns);
  if (ns < 0) {
    out << '-';
    u = ~u + 1;  // the magnitude, INT64_MIN included
  }
  out << u / 1000 << '.';
  const auto frac = u % 1000;
  if (frac < 100) out << '0';
  if (frac < 10) out << '0';
  out << frac;
}

// Ticks of a `hz` clock as nanoseconds, without overflow for any tick count
// below 2^64 / 1e9 * hz.
inline std::int64_t ticks_to_ns(std::uint64_t ticks, std::uint64_t hz) noexcept {
  const std::uint64_t f = hz != 0 ? hz : 1;
  return static_cast<std::int64_t>(ticks / f * 1'000'000'000 + ticks % f * 1'000'000'000 / f);
}

class chrome_json_writer final : public row_writer {
 public:
  using clock_map = std::function<std::int64_t(std::uint64_t)>;
  // `title` names the process track; `to_ns` defaults to the schema's tick rate.
  chrome_json_writer(text_buffer& out, const row_schema& s, const std::string& title,
                     clock_map to_ns = {})
      : out_(out), s_(s), to_ns_(std::move(to_ns)) {
    if (!to_ns_) {
      const std::uint64_t hz = s.ticks_per_second;
      to_ns_ = [hz](std::uint64_t t) { return ticks_to_ns(t, hz); };
    }
    out_ << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    out_ << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": ";
    out_.json_string(title) << "}}";
  }
  void write(const row& r) override {
    if (r.lost) {
      if (open_) close_tracks();
      out_ << ",\n{\"name\": ";
      out_.json_string(r.reason)
          << ", \"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \"tid\": 1, \"ts\": ";
      write_us(out_, last_ns_);
      out_ << ", \"args\": {\"offset\": " << r.offset << "}}";
      return;
    }
    const std::int64_t start = to_ns_(r.begin);
    last_ns_ = to_ns_(r.end);
    for (std::size_t c = 0; c < r.counters.size(); ++c) {
      event(s_.counters[c].name, start);
      out_ << r.counters[c] << "}}";
    }
    for (std::size_t j = 0; j < r.metrics.size(); ++j) {
      event(s_.metrics[j].name, start);
      out_.json_cell(r.metrics[j]) << "}}";
    }
    open_ = true;
  }
  void end(const accounting&) override {
    if (open_) close_tracks();
    out_ << "\n]}\n";
  }

 private:
  // Opens a counter event up to its value.
  void event(const std::string& name, std::int64_t ns) {
    out_ << ",\n{\"name\": ";
    out_.json_string(name) << ", \"ph\": \"C\", \"pid\": 1, \"ts\": ";
    write_us(out_, ns);
    out_ << ", \"args\": {\"value\": ";
  }
  void close_tracks() {
    for (const column& c : s_.counters) {
      event(c.name, last_ns_);
      out_ << "0}}";
    }
    open_ = false;
  }
  text_buffer& out_;
  const row_schema& s_;
  clock_map to_ns_;
  std::int64_t last_ns_ = 0;
  bool open_ = false;
};

}  // namespace hwpc::output
