// The Adreno pipeline (pipeline/adreno_capture.hpp, pipeline/adreno_packets.hpp)
// against the readers it is built from: open_capture on A5XX, A6XX and A7XX
// .rd captures (both dialects), gzip, hex text and raw dwords, from a file
// (streamed from its path) and from memory, gives the rows adreno::for_each_row
// gives over the whole input; walk_packets lists what rd::capture_reader
// walks; usage errors are worded in the tool's and Python's spelling; and
// Mesa's CI captures (tests/data/mesa-freedreno) read the same both ways.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "adreno_gzip_writer.hpp"
#include "adreno_read_peak.hpp"
#include "adreno_seed.hpp"
#include "hwpc/adreno/emulate.hpp"
#include "hwpc/adreno/emulate6.hpp"
#include "hwpc/adreno/emulate_frames.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_packets.hpp"
#include "sanitizer.hpp"

#ifndef HWPC_TEST_DATA_DIR
#define HWPC_TEST_DATA_DIR ""
#endif

namespace {

namespace a = hwpc::adreno;
using bytes = std::vector<std::byte>;

// A row as text: every field the writers see.
std::string text_of(const hwpc::row& r) {
  std::string s = std::to_string(r.report) + " @" + std::to_string(r.offset) + " " +
                  std::to_string(r.begin) + ".." + std::to_string(r.end) + " " +
                  std::string(r.reason);
  for (const hwpc::cell& c : r.metrics) s += c.is_u64() ? " " + std::to_string(c.bits) : " -";
  return s;
}

struct collect final : hwpc::row_writer {
  std::vector<std::string> rows;
  hwpc::accounting acc;
  bool ended = false;
  void write(const hwpc::row& r) override { rows.push_back(text_of(r)); }
  void end(const hwpc::accounting& x) override {
    acc = x;
    ended = true;
  }
};

// The reference: the whole input in memory, through for_each_row.
std::vector<std::string> reference_rows(a::input_kind kind, const bytes& data,
                                        std::string* source = nullptr) {
  auto cols = a::sampled_counters(kind, data);
  EXPECT_TRUE(cols);
  hwpc::row_schema s = a::schema_of(*cols);
  std::vector<std::string> out;
  auto done = a::for_each_row(
      kind, data, s, [&](const hwpc::row& r) { out.push_back(text_of(r)); },
      [](const hwpc::error&, bool) {});
  EXPECT_TRUE(done);
  if (source != nullptr) *source = s.source;
  return out;
}

class PipelineAdreno : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hwpc-pipeline-adreno-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const bytes& b) {
    const auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    return p;
  }

  // The rows of open_capture from a file and from memory, and the schema's source.
  std::vector<std::string> opened_rows(const bytes& b, const a::open_options& o,
                                       std::string* source = nullptr) {
    const std::string path = write("in", b);
    auto src = hwpc::capture_source::map(path);
    EXPECT_TRUE(src);
    auto c = a::open_capture(std::move(*src), o, {});
    EXPECT_TRUE(c) << (c ? "" : c.error_value().describe());
    if (!c) return {};
    EXPECT_EQ((*c)->vendor(), hwpc::vendor::adreno);
    collect from_file;
    auto acc = (*c)->write_rows(from_file);
    EXPECT_TRUE(acc && from_file.ended);
    if (source != nullptr) *source = (*c)->schema().source;
    // The same bytes lent from memory (no path: read in blocks from the span).
    auto m = a::open_capture(hwpc::capture_source::borrow(b, "<memory>"), o, {});
    EXPECT_TRUE(m);
    collect from_memory;
    EXPECT_TRUE((*m)->write_rows(from_memory));
    EXPECT_EQ(from_memory.rows, from_file.rows);
    // A second write gives the same rows again (the rows kept by open() replayed).
    collect again;
    EXPECT_TRUE((*c)->write_rows(again));
    EXPECT_EQ(again.rows, from_file.rows);
    return from_file.rows;
  }

  std::filesystem::path dir_;
};

bytes hex_text_of(const std::vector<std::uint32_t>& dws) {
  std::string t = "PM4 dwords, four a line\n";
  for (std::size_t i = 0; i < dws.size(); ++i) {
    char b[16];
    std::snprintf(b, sizeof b, "%08x%c", static_cast<unsigned>(dws[i]), i % 4 == 3 ? '\n' : ' ');
    t += b;
  }
  t += "\n";
  const auto* p = reinterpret_cast<const std::byte*>(t.data());
  return bytes(p, p + t.size());
}

TEST_F(PipelineAdreno, RdCapturesOfEveryGenerationGiveTheReadersRows) {
  struct input {
    const char* what;
    bytes file;
    const char* source;
  };
  const std::vector<input> inputs = {
      {"A5XX", a::emulate_a5xx({}).file, ""},
      {"A5XX libwrap", a::emulate_a5xx({7, 6, true}).file, ""},
      {"A6XX", a::emulate_a6xx_a7xx({}, false).file, "adreno a6xx queries"},
      {"A7XX", a::emulate_a6xx_a7xx({3, 4, false}, true).file, "adreno a7xx queries"},
      {"A7XX libwrap", a::emulate_a6xx_a7xx({5, 4, true}, true).file, "adreno a7xx queries"},
  };
  for (const input& in : inputs) {
    SCOPED_TRACE(in.what);
    std::string want_source;
    const auto want = reference_rows(a::input_kind::rd, in.file, &want_source);
    ASSERT_FALSE(want.empty());
    std::string source;
    EXPECT_EQ(opened_rows(in.file, {}, &source), want);
    EXPECT_EQ(source, in.source[0] ? std::string(in.source) : want_source);
    // gzip: inflated a block at a time as it is read, the same rows.
#ifdef HWPC_HAVE_ZLIB
    EXPECT_EQ(opened_rows(adreno_gz::gzip_stored(in.file), {}), want);
#endif
  }
}

TEST_F(PipelineAdreno, HexTextAndRawDwordsGiveTheReadersRows) {
  const auto dws = adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end,
                                        adreno_seed::timestamp_begin, adreno_seed::timestamp_end});
  const bytes bin = adreno_seed::bytes_of(dws);
  const bytes hex = hex_text_of(dws);
  a::open_options o;
  o.gpu = "a530";
  const auto want_bin = reference_rows(a::input_kind::bin, bin);
  const auto want_hex = reference_rows(a::input_kind::hex, hex);
  ASSERT_EQ(want_bin.size(), 2u);
  ASSERT_EQ(want_hex.size(), 2u);
  EXPECT_EQ(opened_rows(bin, o), want_bin);
  EXPECT_EQ(opened_rows(hex, o), want_hex);
  o.format = "bin";
  EXPECT_EQ(opened_rows(bin, o), want_bin);
#ifdef HWPC_HAVE_ZLIB
  o.format = "auto";
  EXPECT_EQ(opened_rows(adreno_gz::gzip_stored(hex), o), want_hex);
  EXPECT_EQ(opened_rows(adreno_gz::gzip_stored(bin), o), want_bin);
#endif
}

// What a write gives: the rows, the issues reported during it, the totals
// (`--summary`) and the accounting.
struct written {
  std::vector<std::string> rows, issues, totals;
  hwpc::accounting acc;
  std::vector<std::string> columns;
};

written write_of(a::query_capture& c, std::vector<std::string>& issues) {
  written w;
  issues.clear();
  collect rows;
  EXPECT_TRUE(c.write_rows(rows));
  w.rows = std::move(rows.rows);
  w.issues = issues;
  w.acc = rows.acc;
  std::vector<hwpc::cell> t;
  c.writer_parts({}).totals_metrics({}, 0, t);
  for (const hwpc::cell& x : t) w.totals.push_back(x.is_u64() ? std::to_string(x.bits) : "-");
  for (const auto& m : c.schema().metrics) w.columns.push_back(m.name + "/" + m.units);
  return w;
}

bool operator==(const written& x, const written& y) {
  return x.rows == y.rows && x.issues == y.issues && x.totals == y.totals &&
         x.columns == y.columns && x.acc.records == y.acc.records &&
         x.acc.reports == y.acc.reports && x.acc.intervals == y.acc.intervals &&
         x.acc.stretch_starts == y.acc.stretch_starts;
}

// open_capture reads an input once and keeps its rows (adreno/row_store.hpp)
// unless they pass open_options::rows_kept_bytes; 0 reads it twice, as
// before. Whatever is kept (all, none, or dropped part way), a write gives
// the same rows, issues in the same order, totals, columns and accounting.
TEST_F(PipelineAdreno, RowsKeptFromTheOnePassAreTheRowsOfASecondPass) {
  struct input {
    const char* what;
    bytes file;
    const char* gpu;
  };
  bytes damaged = a::emulate_a5xx({3, 40, false}).file;
  for (std::size_t i = 300; i < damaged.size(); i += 211) damaged[i] = std::byte{0xff};
  bytes bent = a::emulate_a6xx_a7xx({9, 30, false}, false).file;
  for (std::size_t i = 200; i < bent.size(); i += 997) bent[i] = std::byte{0xff};
  const auto dws = adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end,
                                        adreno_seed::timestamp_begin, adreno_seed::timestamp_end});
  const std::vector<input> inputs = {
      {"A5XX", a::emulate_a5xx({1, 60, false}).file, nullptr},
      {"A5XX libwrap", a::emulate_a5xx({7, 6, true}).file, nullptr},
      {"A5XX damaged", damaged, nullptr},
      {"A6XX", a::emulate_a6xx_a7xx({2, 50, false}, false).file, nullptr},
      {"A6XX damaged", bent, nullptr},
      {"A7XX libwrap", a::emulate_a6xx_a7xx({5, 20, true}, true).file, nullptr},
      {"hex text", hex_text_of(dws), "a530"},
      {"raw dwords", adreno_seed::bytes_of(dws), "a530"},
  };
  std::size_t with_issues = 0;
  for (const input& in : inputs) {
    SCOPED_TRACE(in.what);
    std::vector<std::string> issues;
    const auto open = [&](std::size_t kept) {
      a::open_options o;
      if (in.gpu != nullptr) o.gpu = in.gpu;
      o.rows_kept_bytes = kept;
      o.on_issue = [&issues](const hwpc::error& e, bool note) {
        issues.push_back((note ? "note " : "issue ") + e.describe());
      };
      auto c = a::query_capture::open(hwpc::capture_source::borrow(in.file, "in"), o, {});
      EXPECT_TRUE(c) << (c ? "" : c.error_value().describe());
      return c;
    };
    auto twice = open(0);
    ASSERT_TRUE(twice);
    const written want = write_of(**twice, issues);
    ASSERT_FALSE(want.rows.empty());
    with_issues += want.issues.empty() ? 0 : 1;
    // 1 KiB keeps a few rows and drops them part way through the larger inputs.
    for (const std::size_t kept : {std::size_t{4} << 20, std::size_t{1} << 10}) {
      SCOPED_TRACE(kept);
      auto c = open(kept);
      ASSERT_TRUE(c);
      const written got = write_of(**c, issues);
      EXPECT_TRUE(got == want);
      EXPECT_EQ(got.rows, want.rows);
      EXPECT_EQ(got.issues, want.issues);
      EXPECT_EQ(got.totals, want.totals);
      EXPECT_EQ(got.columns, want.columns);
      // A second write gives them again.
      EXPECT_TRUE(write_of(**c, issues) == want);
      EXPECT_EQ((*c)->done().issues, (*twice)->done().issues);
      EXPECT_EQ((*c)->done().walk.packets, (*twice)->done().walk.packets);
    }
  }
  EXPECT_GE(with_issues, 2u);  // the damaged ones, at least: issues in order with rows
}

// The rows kept are written without reading the input again: the bytes lent
// are overwritten between open and write, and the rows do not change; with
// nothing kept, or more rows than the budget, they are read from the new bytes.
TEST_F(PipelineAdreno, KeptRowsAreWrittenWithoutReadingTheInputAgain) {
  bytes file = a::emulate_a5xx({4, 12, false}).file;
  a::open_options once, again, past;
  again.rows_kept_bytes = 0;
  past.rows_kept_bytes = 1024;
  auto c1 = a::query_capture::open(hwpc::capture_source::borrow(file, "in"), once, {});
  auto c2 = a::query_capture::open(hwpc::capture_source::borrow(file, "in"), again, {});
  auto c3 = a::query_capture::open(hwpc::capture_source::borrow(file, "in"), past, {});
  ASSERT_TRUE(c1 && c2 && c3);
  std::vector<std::string> issues;
  const written before = write_of(**c1, issues);
  ASSERT_FALSE(before.rows.empty());
  std::fill(file.begin(), file.end(), std::byte{0});
  EXPECT_TRUE(write_of(**c1, issues) == before);
  collect reread;
  (void)(*c2)->write_rows(reread);
  EXPECT_NE(reread.rows, before.rows);
  collect past_budget;
  (void)(*c3)->write_rows(past_budget);
  EXPECT_EQ(past_budget.rows, reread.rows);
}

// The store itself: past its budget it drops every row it kept and keeps no more.
TEST(AdrenoRowStore, DropsEverythingPastItsBudget) {
  a::detail::row_store s(4096);
  hwpc::row r;
  r.reason = "occlusion";
  std::vector<hwpc::cell> cells(4);
  cells[3] = hwpc::cell::u(7);
  const std::vector<std::size_t> set = {3};
  std::size_t kept = 0;
  while (s.add_row(r, cells, set)) ++kept;
  EXPECT_GT(kept, 10u);
  EXPECT_TRUE(s.dropped());
  EXPECT_EQ(s.rows(), 0u);
  EXPECT_FALSE(s.add_row(r, cells, set));
  EXPECT_FALSE(s.add_issue(hwpc::make_error(hwpc::errc::truncated, 8, "x"), false));
  EXPECT_EQ(s.bytes(), 0u);
}

TEST_F(PipelineAdreno, A6xxWithoutItsOwnIdsHasNoRowsAndSaysWhy) {
  const auto dws = adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end});
  a::open_options o;
  o.gpu = "a630";
  auto c = a::open_capture(hwpc::capture_source::own(adreno_seed::bytes_of(dws), "x"), o, {});
  ASSERT_TRUE(c);
  ASSERT_EQ((*c)->warnings().size(), 1u);
  EXPECT_NE((*c)->warnings()[0].find("query rows are decoded on A5XX and on A6XX/A7XX .rd "
                                     "captures that name their GPU; none are written"),
            std::string::npos);
  collect w;
  ASSERT_TRUE((*c)->write_rows(w));
  EXPECT_TRUE(w.ended);
  EXPECT_TRUE(w.rows.empty());
}

TEST_F(PipelineAdreno, UsageErrorsInBothSpellings) {
  const hwpc::pipeline::spelling tool{hwpc::pipeline::door::tool};
  const hwpc::pipeline::spelling python{hwpc::pipeline::door::python};
  const bytes bin = adreno_seed::bytes_of(adreno_seed::occlusion_begin);
  const auto refused = [&](a::open_options o, const hwpc::pipeline::spelling& sp) {
    auto c = a::open_capture(hwpc::capture_source::borrow(bin, "b"), o, sp);
    EXPECT_FALSE(c);
    if (c) return std::string();
    EXPECT_EQ(c.error_value().code, hwpc::errc::usage);
    return c.error_value().message;
  };
  a::open_options bad_format;
  bad_format.format = "elf";
  EXPECT_EQ(refused(bad_format, tool), "--format: expected auto, rd, hex or bin, not 'elf'");
  EXPECT_EQ(refused(bad_format, python), "format: expected auto, rd, hex or bin, not 'elf'");
  a::open_options bad_gpu;
  bad_gpu.gpu = "a999x";
  EXPECT_EQ(refused(bad_gpu, tool).rfind("--gpu: 'a999x' is no Adreno hwpc knows", 0), 0u);
  EXPECT_EQ(refused(bad_gpu, python).rfind("gpu: 'a999x' is no Adreno hwpc knows", 0), 0u);
  // Raw dwords name no GPU: rows need one.
  EXPECT_EQ(refused({}, tool),
            "the input names no GPU, and query rows need one: give --gpu (e.g. --gpu a530)");
  EXPECT_EQ(refused({}, python),
            "the input names no GPU, and query rows need one: give gpu (e.g. gpu='a530')");
  // Bad input is not a usage error: it names its offset.
  auto empty = a::open_capture(hwpc::capture_source::own({}, "e"), {}, tool);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error_value().code, hwpc::errc::empty_input);
}

// The packets walk_packets lists, as "offset depth header".
struct lister final : a::listing_sink {
  std::vector<std::string> seen;
  std::size_t issues = 0;
  void on_packet(const a::walked_packet& w) override {
    seen.push_back(std::to_string(file_offset(w.pkt.offset)) + " " + std::to_string(w.depth) + " " +
                   std::to_string(a::encode(w.pkt.hdr)) + " " + std::to_string(w.group));
  }
  void on_issue(const hwpc::error&) override { ++issues; }
};

TEST_F(PipelineAdreno, ListingStreamsWhatTheWholeFileReaderWalks) {
  for (const bytes& file :
       {a::emulate_a6xx_a7xx({}, false).file, a::emulate_a5xx({2, 3, true}).file}) {
    lister whole;
    a::rd::capture_reader r(whole);
    ASSERT_TRUE(r.read(file));
    ASSERT_FALSE(whole.seen.empty());
    for (const bytes& b : {file, adreno_gz::gzip_stored(file)}) {
      if (a::is_gzip(b) && !a::have_gzip) continue;
      auto in = a::capture_input::open(hwpc::capture_source::map(write("l", b)).value(), {}, {});
      ASSERT_TRUE(in);
      EXPECT_EQ(in->kind(), a::input_kind::rd);
      EXPECT_EQ(in->gpu(), r.gpu());
      lister streamed;
      ASSERT_TRUE(a::walk_packets(*in, streamed));
      EXPECT_EQ(streamed.seen, whole.seen);
      EXPECT_EQ(streamed.issues, whole.issues);
    }
  }
}

TEST_F(PipelineAdreno, MesaCiCapturesReadTheSameStreamed) {
#ifndef HWPC_HAVE_ZLIB
  GTEST_SKIP() << "built without zlib: the Mesa captures are gzip-compressed";
#else
  const std::string dir = std::string(HWPC_TEST_DATA_DIR) + "/mesa-freedreno/";
  for (const char* name : {"fd-clouds", "vk-indirect-draw-count"}) {
    SCOPED_TRACE(name);
    const std::string path = dir + name + ".rd.gz";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
    std::ifstream f(path, std::ios::binary);
    const std::string gz((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto* p = reinterpret_cast<const std::byte*>(gz.data());
    auto rd = a::gunzip(hwpc::byte_span(p, gz.size()));
    ASSERT_TRUE(rd);
    // The packets, as the whole-file reader walks the inflated capture.
    lister whole;
    a::rd::capture_reader r(whole);
    (void)r.read(*rd);
    auto in = a::capture_input::open(hwpc::capture_source::map(path).value(), {}, {});
    ASSERT_TRUE(in);
    EXPECT_TRUE(in->gzip());
    ASSERT_NE(in->gpu(), nullptr);
    EXPECT_EQ(in->gpu(), r.gpu());
    lister streamed;
    ASSERT_TRUE(a::walk_packets(*in, streamed));
    EXPECT_GT(streamed.seen.size(), 200u);
    EXPECT_EQ(streamed.seen, whole.seen);
    EXPECT_EQ(streamed.issues, whole.issues);
    // The rows, as for_each_row gives them over the inflated capture.
    const auto want = reference_rows(a::input_kind::rd, *rd);
    auto c = a::open_capture(hwpc::capture_source::map(path).value(), {}, {});
    ASSERT_TRUE(c);
    collect got;
    ASSERT_TRUE((*c)->write_rows(got));
    EXPECT_EQ(got.rows, want);
  }
#endif
}

// The rows and the listing of a 48 MiB capture, plain and gzip, read from its
// file: the process's resident memory grows by far less than the file (the
// whole-file reader over the mapping grew by the file's size). Each read runs
// in a child, whose peak is reset first (/proc/self/clear_refs 5), so the
// figure is the read's alone.
TEST_F(PipelineAdreno, LargeCapturesAreReadInBoundedMemory) {
  a::frames_options fo;
  fo.bytes = std::uint64_t{48} << 20;
  fo.libwrap = true;
  std::string plain, gz;
  {
    const bytes file = a::emulate_frames_file(fo, nullptr);
    plain = write("big.rd", file);
#ifdef HWPC_HAVE_ZLIB
    // zlib's own deflate, level 1: stored blocks would not shrink it.
    std::vector<std::byte> z;
    z_stream zs{};
    deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.resize(deflateBound(&zs, static_cast<uLong>(file.size())));
    zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(file.data()));
    zs.avail_in = static_cast<uInt>(file.size());
    zs.next_out = reinterpret_cast<Bytef*>(z.data());
    zs.avail_out = static_cast<uInt>(z.size());
    deflate(&zs, Z_FINISH);
    z.resize(zs.total_out);
    deflateEnd(&zs);
    gz = write("big.rd.gz", z);
#endif
  }
  for (const std::string& path : {plain, gz}) {
    if (path.empty()) continue;
    SCOPED_TRACE(path);
    for (const bool rows : {true, false}) {
      const hwpc::testing::read_peak r = hwpc::testing::adreno_read_peak(path, rows);
      if (!r.measured) GTEST_SKIP() << "no /proc/self/clear_refs";
      ASSERT_TRUE(r.read) << (rows ? "rows" : "listing");
#if !defined(HWPC_TEST_UNDER_ASAN)
      // The sanitizer's shadow and quarantine would be measured, not hwpc.
      EXPECT_LT(r.grew_kib, 16u * 1024) << (rows ? "rows" : "listing");
#endif
    }
  }
}

}  // namespace
