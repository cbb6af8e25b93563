// live::recording, the one object both doors of a live recording drive, on
// the simulated kernels: its rows are the finished file's (i915 as they
// come, Xe from the file, Mali as they come), a refused device leaves no
// file behind, stop() ends it, and its usage errors are worded once in each
// door's spelling.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/live/recording.hpp"
#include "hwpc/live/sim/i915.hpp"
#include "hwpc/live/sim/kbase.hpp"
#include "hwpc/live/sim/xe.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "hwpc/pipeline/mali_capture.hpp"
#include "live_sim_fixture.hpp"

namespace {

namespace live = hwpc::live;
namespace sim = hwpc::live::sim;
namespace intel = hwpc::intel;
namespace output = hwpc::output;
using hwpc::pipeline::door;
using hwpc::pipeline::spelling;

// Rows as CSV; stops the recording once `want` reports have become rows
// (the simulated units write in real time: no fixed wait).
struct csv_rows final : live::recording_rows {
  output::text_buffer out;
  hwpc::row_schema schema;
  std::optional<output::csv_writer> w;
  live::recording* rec = nullptr;
  std::size_t want = 0;
  bool opened = false;
  std::function<bool()> enough;  // else `want` reports

  hwpc::row_writer& start(const hwpc::row_schema& s, const hwpc::capture*) override {
    schema = s;
    w.emplace(out, schema);
    return *w;
  }
  void progress(const hwpc::accounting& so_far, std::size_t) override {
    opened = true;
    if (rec != nullptr && (enough ? enough() : want != 0 && so_far.reports >= want)) rec->stop();
  }
};

// The SAMPLE records of the recording at `path` so far.
std::size_t samples_in(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<char> b{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  std::size_t n = 0;
  for (std::size_t at = 0; at + 8 <= b.size();) {
    const auto* p = reinterpret_cast<const std::byte*>(b.data() + at);
    const std::size_t size = hwpc::load_le16(p + 6);
    if (size < 8 || at + size > b.size()) break;
    n += hwpc::load_le32(p) == intel::record_type::sample;
    at += size;
  }
  return n;
}

// The finished file's rows, as `hwpc decode` / `hwpc mali` write them as CSV.
std::string file_rows(const std::string& path, bool mali) {
  auto src = hwpc::capture_source::map(path);
  EXPECT_TRUE(src);
  if (!src) return {};
  auto cap = mali ? hwpc::mali::open_capture(std::move(*src), {}, spelling{})
                  : intel::open_capture(std::move(*src), {}, spelling{});
  EXPECT_TRUE(cap) << cap.error_value().describe();
  if (!cap) return {};
  output::text_buffer out;
  output::csv_writer w(out, (*cap)->schema());
  EXPECT_TRUE((*cap)->write_rows(w));
  return out.str();
}

class LiveRecording : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hwpc_live_recording_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }

  // Records `o` on `k` until `want` reports are rows (or the duration).
  hwpc::result<live::recording_summary> run(live::syscalls& k, live::recording_options o,
                                            csv_rows& rows, std::size_t want) {
    o.poll_ms = 2;
    if (!o.duration_ns) o.duration_ns = 5'000'000'000;  // room for a loaded machine
    auto rec = live::recording::make(o, spelling{}, k);
    EXPECT_TRUE(rec) << rec.error_value().message;
    if (!rec) return rec.error_value();
    rows.rec = rec->get();
    rows.want = want;
    return (*rec)->run(&rows);
  }

  std::filesystem::path dir_;
};

TEST_F(LiveRecording, I915RowsAreTheFinishedFilesRows) {
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = intel::platform::hsw;
  cfg.reports = 40;
  sim::add_i915(k, live::default_render_node, cfg);
  live::recording_options o;
  o.set_id = 1;
  o.exponent = 12;
  o.out = path("i915.rec");
  csv_rows rows;
  auto s = run(k, o, rows, 40);
  ASSERT_TRUE(s) << s.error_value().message;
  EXPECT_FALSE(s->xe);
  ASSERT_TRUE(s->rows);
  EXPECT_EQ(s->rows->reports, 40u);
  EXPECT_EQ(s->samples, 40u);
  EXPECT_EQ(s->bytes, std::filesystem::file_size(*o.out));
  EXPECT_EQ(rows.out.str(), file_rows(*o.out, false));
  const auto lines = s->lines(*o.out, spelling{});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("40 reports, 0 OA_REPORT_LOST and 0 OA_BUFFER_LOST records"),
            std::string::npos)
      << lines[0];
}

TEST_F(LiveRecording, XeRowsComeFromTheFinishedFile) {
  sim::kernel k;
  sim::xe_config cfg;
  cfg.reports = 24;
  sim::add_xe(k, live::default_render_node, cfg);
  live::recording_options o;
  o.set_id = 1;
  o.exponent = 12;
  o.out = path("xe.rec");
  csv_rows rows;
  // Xe's rows come once the file is finished: it stops once the file holds
  // every report.
  rows.enough = [&] { return samples_in(*o.out) >= cfg.reports; };
  auto s = run(k, o, rows, 0);
  ASSERT_TRUE(s) << s.error_value().message;
  EXPECT_TRUE(s->xe);
  ASSERT_TRUE(s->rows);
  EXPECT_EQ(s->rows->reports, cfg.reports);
  EXPECT_EQ(rows.out.str(), file_rows(*o.out, false));
}

TEST_F(LiveRecording, MaliRowsAreTheFinishedFilesRows) {
  sim::kernel k;
  sim::kbase_config cfg;
  auto g = hwpc::mali::find_gpu("G78");
  ASSERT_TRUE(g);
  cfg.gpu = *g;
  cfg.samples = 12;
  sim::add_kbase(k, live::kbase::default_node, cfg);
  live::recording_options o;
  o.vendor = live::record_vendor::mali;
  o.period_ns = 1'000'000;
  o.out = path("m.hwpcmali");
  csv_rows rows;
  auto s = run(k, o, rows, 12);
  ASSERT_TRUE(s) << s.error_value().message;
  ASSERT_TRUE(s->rows);
  EXPECT_EQ(s->rows->reports, 12u);
  EXPECT_EQ(rows.out.str(), file_rows(*o.out, true));
}

TEST_F(LiveRecording, ARefusedDeviceLeavesNoFile) {
  sim::kernel k;
  sim::i915_config cfg;
  cfg.paranoid = true;
  cfg.perfmon = false;
  sim::add_i915(k, live::default_render_node, cfg);
  live::recording_options o;
  o.set_id = 1;
  o.out = path("refused.rec");
  csv_rows rows;
  auto s = run(k, o, rows, 1);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error_value().message.find("perf_stream_paranoid"), std::string::npos)
      << s.error_value().message;
  EXPECT_FALSE(std::filesystem::exists(*o.out));
  o.device = "/dev/dri/renderD140";  // no such node
  o.vendor = live::record_vendor::intel;
  s = run(k, o, rows, 1);
  ASSERT_FALSE(s);
  EXPECT_FALSE(std::filesystem::exists(*o.out));
  EXPECT_FALSE(rows.opened);
}

TEST_F(LiveRecording, UsageErrorsInEachDoorsSpelling) {
  const auto message = [](live::recording_options o, door d) {
    auto r = live::recording::make(o, spelling{d});
    EXPECT_FALSE(r);
    if (r) return std::string();
    EXPECT_TRUE(hwpc::is_usage(r.error_value())) << r.error_value().message;
    return r.error_value().message;
  };
  live::recording_options o;
  EXPECT_EQ(message(o, door::tool),
            "name the metric set: --metrics FILE.xml with --set SYMBOL, or --set-id N");
  EXPECT_EQ(message(o, door::python),
            "name the metric set: metrics=FILE.xml with set=SYMBOL, or set_id=N");
  o.set_id = 0;
  EXPECT_EQ(message(o, door::tool), "--set-id: the kernel's config id (1 or more)");
  EXPECT_EQ(message(o, door::python), "set_id: the kernel's config id (1 or more)");
  o.set_id = 2;
  o.exponent = 32;
  EXPECT_EQ(message(o, door::python), "exponent: 0..31 (the kernel's range)");
  o.period_ns = 1000;
  EXPECT_EQ(message(o, door::tool),
            "--period and --exponent both set the sampling period: give one");
  o = {};
  o.metrics = "oa-tgl.xml";
  EXPECT_EQ(message(o, door::tool), "--metrics needs --set SYMBOL");
  EXPECT_EQ(message(o, door::python), "metrics needs set=SYMBOL");
  o = {};
  o.set_id = 2;
  o.ctx = 1ull << 32;
  EXPECT_EQ(message(o, door::tool), "--ctx: a GEM context handle (32 bits)");
  o = {};
  o.vendor = live::record_vendor::mali;
  o.names = "arm";
  EXPECT_EQ(message(o, door::python), "names: expected hardware or streamline");
}

}  // namespace
