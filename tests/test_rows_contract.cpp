// The row contract of `hwpc decode` on every input kind and emulator fault:
// `report` is the later report's index among all the input's reports (the
// truth CSV of `hwpc emulate` and the decoder agree row for row), `offset`
// is the byte offset of that report's record in the file, `ctx_id` is the
// earlier report's CTX_ID (empty when its context-valid bit is clear), and
// the accounting on stderr and in the JSON trailer adds up.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_tool;

using hwpc::testing::split;

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

std::uint32_t le32(const std::string& b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

// Where each report of the file sits, and how many records of each kind it
// holds, walked here from the record headers (type u32, pad u16, size u16),
// not with the decoder's readers.
struct file_map {
  std::vector<std::size_t> report_offsets;  // report i -> its record's (raw: its own) offset
  std::vector<std::size_t> report_data;     // report i -> offset of its bytes
  std::size_t loss_records = 0;
  std::size_t other_records = 0;  // header and correlation records of a recording
};

file_map map_file(const std::string& b, const std::string& kind, std::size_t report_size) {
  file_map m;
  if (kind == "raw") {
    for (std::size_t at = 0; at + report_size <= b.size(); at += report_size) {
      m.report_offsets.push_back(at);
      m.report_data.push_back(at);
    }
    return m;
  }
  for (std::size_t at = 0; at + 8 <= b.size();) {
    const std::uint32_t type = le32(b, at);
    const std::size_t size = static_cast<unsigned char>(b[at + 6]) |
                             (std::size_t{static_cast<unsigned char>(b[at + 7])} << 8);
    if (size == 0) break;
    if (type == 1) {
      m.report_offsets.push_back(at);
      m.report_data.push_back(at + 8);
    } else if (type == 2 || type == 3) {
      ++m.loss_records;
    } else {
      ++m.other_records;
    }
    at += size;
  }
  return m;
}

struct platform_case {
  const char* platform;
  const char* format;
  std::size_t report_size;
  int ctx_valid_bit;  // -1: the format has no CTX_ID
};

class RowsContract : public hwpc::testing::tool_test {};

TEST_F(RowsContract, TruthAndDecoderAgreeRowForRowOnEveryKindAndFault) {
  const platform_case platforms[] = {{"hsw", "A45_B8_C8", 256, -1},
                                     {"bdw", "A36_B8_C8", 256, 25},
                                     {"skl", "A36_B8_C8", 256, 16},
                                     {"tgl", "C4_B8", 64, 16}};
  const char* faults[] = {"", "wrap", "ctx-switch", "tail-ahead", "overflow", "report-lost"};
  const char* kinds[] = {"raw", "i915-stream", "recording"};
  int cases = 0;
  for (const auto& p : platforms) {
    for (const char* fault : faults) {
      for (const char* kind : kinds) {
        SCOPED_TRACE(std::string(p.platform) + " " + p.format + " fault=" + fault + " " + kind);
        const std::string cap = (dir_ / "cap.bin").string();
        const std::string truth = (dir_ / "truth.csv").string();
        const std::string fl = *fault != '\0' ? std::string(" --faults ") + fault : "";
        auto e = run_tool("emulate --platform " + std::string(p.platform) + " --format " +
                          p.format + " --reports 40 --seed 3" + fl + " --output-kind " + kind +
                          " --out " + cap + " --truth " + truth);
        ASSERT_EQ(e.status, 0) << e.out;
        const std::string pf = std::string(kind) == "recording"
                                   ? ""
                                   : std::string(" --platform ") + p.platform + " --format " +
                                         p.format + " --input-kind " + kind;
        auto d = run_tool("decode" + pf + " " + cap, true);
        ASSERT_EQ(d.status, 0) << d.out;
        const auto out = lines(d.out);
        const auto want = lines(slurp(truth));
        ASSERT_FALSE(out.empty());
        const auto head = split(out[0]);
        ASSERT_GE(head.size(), 3u);
        EXPECT_EQ(head[0], "report");
        EXPECT_EQ(head[1], "offset");
        EXPECT_EQ(head[2], "timestamp");
        std::map<std::string, std::size_t> col;
        for (std::size_t i = 0; i < head.size(); ++i) col[head[i]] = i;
        const bool has_lost = col.count("lost") != 0;
        EXPECT_EQ(has_lost, std::string(kind) != "raw");

        const std::string bytes = slurp(cap);
        const file_map fm = map_file(bytes, kind, p.report_size);

        // Rows that are intervals, projected onto the truth's columns.
        std::vector<std::string> got;
        std::size_t lost_rows = 0, across_rows = 0;
        for (std::size_t i = 1; i < out.size(); ++i) {
          const auto f = split(out[i]);
          ASSERT_EQ(f.size(), head.size()) << out[i];
          const std::size_t report = std::stoul(f[0]);
          const std::size_t offset = std::stoul(f[1]);
          if (has_lost && f[col["lost"]] == "1") {
            ++lost_rows;
            // A loss row: the number of reports before it; its record's offset.
            ASSERT_LE(report, fm.report_offsets.size());
            if (report < fm.report_offsets.size()) {
              EXPECT_LT(offset, fm.report_offsets[report]);
            }
            const std::uint32_t type = le32(bytes, offset);
            EXPECT_TRUE(type == 2 || type == 3) << "offset " << offset;
            continue;
          }
          ASSERT_LT(report, fm.report_offsets.size());
          EXPECT_EQ(offset, fm.report_offsets[report]) << out[i];
          // ctx_id: the earlier report's, when valid.
          const std::string& ctx = f[col["ctx_id"]];
          if (p.ctx_valid_bit < 0) {
            EXPECT_EQ(ctx, "");
          } else {
            std::size_t prev = report;  // the previous report with a non-zero RPT_ID
            while (prev > 0 && le32(bytes, fm.report_data[--prev]) == 0) {
            }
            const std::uint32_t rpt = le32(bytes, fm.report_data[prev]);
            const bool valid = ((rpt >> p.ctx_valid_bit) & 1u) != 0;
            EXPECT_EQ(ctx, valid ? std::to_string(le32(bytes, fm.report_data[prev] + 8)) : "")
                << out[i];
          }
          if (f[col["reason"]] == "across-loss") ++across_rows;
          std::string row = f[0] + "," + f[2];
          for (std::size_t c = 3; c < col["reason"]; ++c) row += "," + f[c];
          got.push_back(row);
        }
        ASSERT_EQ(got.size() + 1, want.size());
        for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i + 1]);
        EXPECT_EQ(lost_rows, fm.loss_records);

        // The accounting: stderr line when anything was skipped or lost, the
        // same numbers in the JSON trailer, and they add up to the file's records.
        auto j = run_tool("decode" + pf + " " + cap + " --output json", true);
        ASSERT_EQ(j.status, 0);
        // JSON rows say the same as the CSV rows: report, offset, ctx_id (null
        // where the CSV is empty), lost.
        {
          const auto jl = lines(j.out);
          std::size_t row = 1;
          for (const std::string& l : jl) {
            if (l.rfind("  {\"report\": ", 0) != 0) continue;
            ASSERT_LT(row, out.size());
            const auto f = split(out[row++]);
            std::string want = "  {\"report\": " + f[0] + ", \"offset\": " + f[1];
            if (has_lost && f[col["lost"]] == "1") {
              want += ", \"lost\": true, \"reason\": \"" + f[col["reason"]] + "\"}";
              EXPECT_TRUE(l == want || l == want + ",") << l << "\n" << want;
              continue;
            }
            EXPECT_EQ(l.rfind(want + ", \"timestamp\": " + f[2] + ",", 0), 0u) << l;
            const std::string& ctx = f[col["ctx_id"]];
            EXPECT_NE(l.find(", \"ctx_id\": " + (ctx.empty() ? std::string("null") : ctx)),
                      std::string::npos)
                << l;
          }
          EXPECT_EQ(row, out.size());
        }
        const std::string err = (dir_ / "stderr.txt").string();
        // (run_tool redirects stderr after the command; `exit` keeps ours.)
        ASSERT_EQ(
            run_tool("decode" + pf + " " + cap + " --output json >/dev/null 2>" + err + "; exit $?")
                .status,
            0);
        const hwpc::testing::run_result both{0, slurp(err)};
        const std::size_t zero = [&] {
          std::size_t n = 0;
          for (std::size_t at : fm.report_data) n += le32(bytes, at) == 0 ? 1 : 0;
          return n;
        }();
        const bool dropped = zero != 0 || fm.loss_records != 0;
        EXPECT_EQ(j.out.find("\"accounting\"") != std::string::npos, dropped);
        EXPECT_EQ(both.out.find("records read") != std::string::npos, dropped) << both.out;
        if (dropped) {
          const std::size_t records = fm.report_offsets.size() + fm.loss_records;
          std::size_t report_lost = 0, buffer_lost = 0;
          if (std::string(kind) != "raw") {
            for (std::size_t at = 0; at + 8 <= bytes.size();) {
              const std::uint32_t type = le32(bytes, at);
              report_lost += type == 2 ? 1 : 0;
              buffer_lost += type == 3 ? 1 : 0;
              at += static_cast<unsigned char>(bytes[at + 6]) |
                    (std::size_t{static_cast<unsigned char>(bytes[at + 7])} << 8);
            }
          }
          const std::size_t reports = fm.report_offsets.size();
          // The first valid report starts the only stretch (no gaps here);
          // every other report without an interval follows a loss the bound
          // could not span.
          const std::size_t starts = reports > zero ? 1 : 0;
          const std::string acc =
              "{\"accounting\": {\"records\": " + std::to_string(records) +
              ", \"reports\": " + std::to_string(reports) +
              ", \"intervals\": " + std::to_string(got.size()) +
              ", \"across_loss\": " + std::to_string(across_rows) +
              ", \"filtered\": 0, \"stretch_starts\": " + std::to_string(starts) +
              ", \"unbridged\": " + std::to_string(reports - got.size() - zero - starts) +
              ", \"skipped_zero\": " + std::to_string(zero) +
              ", \"report_lost\": " + std::to_string(report_lost) +
              ", \"buffer_lost\": " + std::to_string(buffer_lost) +
              ", \"overflow\": 0, \"gaps\": 0, \"unknown\": 0}}\n]\n";
          ASSERT_GE(j.out.size(), acc.size());
          EXPECT_EQ(j.out.substr(j.out.size() - acc.size()), acc);
          const std::string line = std::to_string(records) +
                                   " records read = " + std::to_string(fm.report_offsets.size()) +
                                   " reports (" + std::to_string(got.size()) + " intervals decoded";
          EXPECT_NE(both.out.find(line), std::string::npos) << both.out;
        }
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 4 * 6 * 3);
}

}  // namespace

namespace {

// A record of a type the reader does not know is skipped, and said so.
TEST_F(RowsContract, UnknownRecordsAreCountedAndReported) {
  const std::string cap = (dir_ / "cap.bin").string();
  ASSERT_EQ(run_tool("emulate --platform skl --format C4_B8 --reports 10 --output-kind "
                     "i915-stream --out " +
                     cap)
                .status,
            0);
  std::string b = slurp(cap);
  // Insert a 16-byte record of type 99 after the first SAMPLE (8 + 64 bytes).
  std::string unknown(16, '\0');
  unknown[0] = 99;
  unknown[6] = 16;
  b.insert(72, unknown);
  const std::string f = (dir_ / "unknown.bin").string();
  std::ofstream(f, std::ios::binary) << b;
  const std::string err = (dir_ / "err.txt").string();
  auto j = run_tool("decode --platform skl --format C4_B8 --input-kind i915-stream --output json " +
                        f + " 2>" + err + "; exit $?",
                    true);
  ASSERT_EQ(j.status, 0) << j.out;
  EXPECT_NE(j.out.find("{\"accounting\": {\"records\": 11, \"reports\": 10, \"intervals\": 9, "
                       "\"across_loss\": 0, \"filtered\": 0, \"stretch_starts\": 1, "
                       "\"unbridged\": 0, \"skipped_zero\": 0, "
                       "\"report_lost\": 0, \"buffer_lost\": 0, \"overflow\": 0, \"gaps\": 0, "
                       "\"unknown\": 1}}"),
            std::string::npos)
      << j.out;
  EXPECT_NE(slurp(err).find(": 11 records read = 10 reports (9 intervals decoded"),
            std::string::npos)
      << slurp(err);
  // The report after the unknown record is report 1, at its own offset.
  auto c = run_tool("decode --platform skl --format C4_B8 --input-kind i915-stream " + f, true);
  EXPECT_NE(c.out.find("\n1,88,"), std::string::npos) << c.out;
}

}  // namespace

namespace {

// A raw file of reports the OA unit never wrote: no rows, but not silence.
TEST_F(RowsContract, AFileOfZeroRptIdReportsSaysSo) {
  const std::string f = (dir_ / "zeros.raw").string();
  std::ofstream(f, std::ios::binary) << std::string(4 * 64, '\0');
  const std::string err = (dir_ / "err.txt").string();
  auto r = run_tool("decode --platform skl --format C4_B8 " + f + " 2>" + err + "; exit $?", true);
  ASSERT_EQ(r.status, 2) << "no report was ever written: bad input";
  EXPECT_NE(slurp(err).find("all 4 reports have RPT_ID 0"), std::string::npos) << slurp(err);
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "a header and no rows: " << r.out;
  EXPECT_NE(slurp(err).find(": 4 records read = 4 reports (0 intervals decoded + 0 filtered by "
                            "context + 0 stretch starts + 4 zero RPT_ID skipped)"),
            std::string::npos)
      << slurp(err);
  auto s = run_tool("decode --platform skl --format C4_B8 --summary --output json " + f, true);
  EXPECT_NE(s.out.find("\"accounting\": {\"records\": 4, \"reports\": 4, \"intervals\": 0"),
            std::string::npos)
      << s.out;
}

}  // namespace
