// Every writer of output/ over any rows under any schema: columns, names,
// units, reasons, flags and clock from the input; rows that are intervals
// (any begin and end, any counter, metrics of every kind: none, integers,
// any double bits, NaN and infinities included) or losses, under a schema
// that may say it cannot lose reports. Names and reasons are the input's
// bytes (control bytes, quotes, markup, invalid UTF-8) or hostile templates.
// Invariants, each output checked by a strict parser of its format
// (strict_formats.hpp): CSV parses and every record has the header's field
// count, one record per row; JSON, Chrome JSON and the JSON summary are one
// UTF-8 JSON text; the Perfetto trace decodes, every name UTF-8 and every
// event on a declared track, one instant per loss; the HTML page is UTF-8 and
// opens no element but the writer's own.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/core/row.hpp"
#include "hwpc/output/chrome_json.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/json.hpp"
#include "hwpc/output/perfetto/trace_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "strict_formats.hpp"

using namespace hwpc;

namespace {

const char* const hostile[] = {"<script>alert(1)</script>",
                               "\",\"x\":1,\"",
                               "a,b\r\nc",
                               "\xff\xfe",
                               "\xed\xa0\x80",
                               "\xc0\xaf",
                               "</td><td>",
                               "&amp;<!--",
                               "\x1b[31m",
                               "\xf4\x90\x80\x80",
                               "",
                               "caf\xc3\xa9 \xe2\x82\xac",
                               "\\u0000\\",
                               "'\"<>&",
                               "\x7f\x01\t"};

std::string text_from(fuzz::input& in) {
  const std::uint8_t sel = in.u8();
  if (sel < 64) return hostile[sel % std::size(hostile)];
  std::string s;
  for (std::size_t n = sel % 12; n != 0; --n) s.push_back(static_cast<char>(in.u8()));
  return s;
}

const char* const units[] = {"ns", "us", "bytes", "events", "number", "percent", "", "hz"};

std::string must(bool ok, const std::string& why, const std::string& out) {
  return ok ? std::string() : why + "\n--- output (first 2000 bytes) ---\n" + out.substr(0, 2000);
}

// The elements report_writer and svg_chart open (and their end tags).
const std::set<std::string>& html_elements() {
  static const std::set<std::string> e = {
      "!doctype", "html",       "head",    "meta",  "title", "style", "body",
      "h1",       "h2",         "section", "table", "tr",    "td",    "th",
      "figure",   "figcaption", "svg",     "path",  "rect",  "text",  "span",
      "div",      "p",          "b",       "code",  "line",  "g",     "polyline"};
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  row_schema s;
  const std::uint8_t flags = in.u8();
  s.source = text_from(in);
  s.has_losses = (flags & 1) != 0;
  s.has_context = (flags & 2) != 0;
  s.clock = (flags & 4) != 0 ? clock_kind::cpu_ns : clock_kind::gpu_timestamp;
  static constexpr std::uint64_t rates[] = {0, 1, 12'500'000, 1'000'000'000, ~0ull};
  s.ticks_per_second = rates[(flags >> 3) % std::size(rates)];
  const std::size_t nc = in.u8() % 6;
  const std::size_t nm = in.u8() % 5;
  for (std::size_t i = 0; i < nc; ++i) {
    s.counters.push_back({text_from(in), units[in.u8() % std::size(units)], column_kind::counter});
  }
  for (std::size_t j = 0; j < nm; ++j) {
    s.metrics.push_back({text_from(in), units[in.u8() % std::size(units)], column_kind::metric});
  }

  // The rows, kept so that every writer sees the same ones.
  struct kept {
    row r;
    std::vector<std::uint64_t> counters;
    std::vector<cell> metrics;
    std::string reason;
  };
  std::vector<kept> rows;
  accounting acc;
  for (std::size_t k = 0; in.n != 0 && k < 64; ++k) {
    kept x;
    const std::uint8_t kind = in.u8();
    x.r.report = k;
    x.r.offset = in.u32();
    x.reason = text_from(in);
    if (kind % 5 == 0) {
      x.r.lost = true;
      ++acc.report_lost;
    } else {
      const std::uint64_t b = in.u32();
      const std::uint64_t len = (kind & 0x80) ? in.u32() : in.u8();
      x.r.begin = (kind & 0x40) ? ~std::uint64_t{0} - b : b;
      // Mostly end >= begin; sometimes not (a row need not be sensible here).
      x.r.end = (kind & 0x20) ? x.r.begin - len : x.r.begin + len;
      for (std::size_t i = 0; i < nc; ++i)
        x.counters.push_back(in.u32() * (in.u8() % 3 == 0 ? 1ull << 32 : 1));
      for (std::size_t j = 0; j < nm; ++j) {
        const std::uint8_t m = in.u8();
        const std::uint64_t bits = (std::uint64_t{in.u32()} << 32) | in.u32();
        x.metrics.push_back(m % 3 == 0   ? cell::none()
                            : m % 3 == 1 ? cell::u(bits)
                                         : cell{cell::kind::f64, bits});
      }
      x.r.has_context = s.has_context && (kind & 2) != 0;
      x.r.context = x.r.has_context ? in.u32() : 0;
      ++acc.intervals;
    }
    rows.push_back(std::move(x));
  }
  acc.reports = acc.intervals + (acc.intervals != 0 ? 1 : 0);
  acc.stretch_starts = acc.intervals != 0 ? 1 : 0;
  acc.records = acc.reports + acc.lost();
  std::size_t losses = 0;
  const auto feed = [&](output::row_writer& w) {
    for (kept& x : rows) {
      x.r.counters = x.counters;
      x.r.metrics = x.metrics;
      x.r.reason = x.reason;
      w.write(x.r);
    }
    w.end(acc);
  };
  for (const kept& x : rows) losses += x.r.lost ? 1 : 0;

  std::string why;
  {
    output::text_buffer out;
    output::csv_writer w(out, s);
    feed(w);
    std::vector<std::vector<std::string>> recs;
    const bool ok = strict::csv(out.str(), recs, &why);
    FUZZ_CHECK(ok, must(ok, "CSV parses: " + why, out.str()));
    FUZZ_CHECK(recs.size() == rows.size() + 1, must(false, "one CSV record per row", out.str()));
    for (const auto& r : recs) {
      FUZZ_CHECK(r.size() == recs[0].size(), must(false, "header's field count", out.str()));
    }
    FUZZ_CHECK(strict::utf8(out.str()), must(false, "CSV is UTF-8", out.str()));
  }
  for (int kind = 0; kind < 4; ++kind) {
    output::text_buffer out;
    if (kind == 0) {
      output::json_writer w(out, s);
      feed(w);
    } else if (kind == 1) {
      output::chrome_json_writer w(out, s, text_from(in));
      feed(w);
    } else {
      output::summary_writer w(out, s, kind == 2);
      feed(w);
      if (kind == 3) {
        std::vector<std::vector<std::string>> recs;
        const bool ok = strict::csv(out.str(), recs, &why) && recs.size() == 2 &&
                        recs[0].size() == recs[1].size();
        FUZZ_CHECK(ok, must(ok, "summary CSV: " + why, out.str()));
        continue;
      }
    }
    const bool ok = strict::json::valid(out.str(), &why);
    FUZZ_CHECK(ok, must(ok, "JSON kind " + std::to_string(kind) + ": " + why, out.str()));
  }
  {
    output::text_buffer out;
    output::perfetto::trace_writer w(out, s, text_from(in), text_from(in));
    feed(w);
    strict::perfetto_summary sum;
    const bool ok = strict::perfetto_trace(out.str(), sum, &why);
    FUZZ_CHECK(ok, "Perfetto trace: " + why);
    FUZZ_CHECK(sum.instants.size() == losses, "one instant per loss");
  }
  {
    output::text_buffer out;
    output::html::report_options o;
    o.title = text_from(in);
    o.facts.push_back({text_from(in), text_from(in)});
    o.metric_group = text_from(in);
    o.x_by_report = (flags & 0x80) != 0;
    output::html::report_writer w(out, s, o);
    feed(w);
    FUZZ_CHECK(strict::utf8(out.str()), "HTML is UTF-8");
    for (const std::string& tag : strict::html_tags(out.str())) {
      FUZZ_CHECK(html_elements().count(tag) != 0,
                 must(false, "HTML opens <" + tag + "> (not the writer's)", out.str()));
    }
  }
  return 0;
}
