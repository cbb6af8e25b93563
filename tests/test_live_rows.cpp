// Rows while recording (live/intel_rows.hpp, live/mali_rows.hpp, over
// intel::recording_feed + intel::row_stream and mali::kinstr_row_stream):
// fed the bytes a recording through the simulated kernel writes, in pieces
// cut anywhere, they give the rows and the accounting the whole-file readers
// give for the finished file, CSV byte for byte. Bad bytes are refused with
// the file offset the whole-file reader names.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/recording_feed.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/intel_capture_rows.hpp"
#include "hwpc/live/intel_rows.hpp"
#include "hwpc/live/kbase_record.hpp"
#include "hwpc/live/mali_rows.hpp"
#include "hwpc/live/sim/i915.hpp"
#include "hwpc/live/sim/kbase.hpp"
#include "hwpc/output/csv.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/output/summary.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/intel_capture.hpp"
#include "hwpc/pipeline/mali_open.hpp"
#include "live_sim_fixture.hpp"

namespace {

namespace live = hwpc::live;
namespace sim = hwpc::live::sim;
namespace intel = hwpc::intel;
namespace mali = hwpc::mali;
namespace output = hwpc::output;
using hwpc::row;
using hwpc::row_schema;

// Splits every piece the recorder writes into pieces of 1, 2, ... 13 bytes
// (then 1 again), so records and samples arrive cut at every position.
template <class Feed>
bool feed_cut(Feed& f, std::span<const std::byte> b, std::size_t& next_cut) {
  bool ok = true;
  for (std::size_t at = 0; at < b.size();) {
    const std::size_t n = std::min(b.size() - at, next_cut);
    ok = f(b.subspan(at, n)) && ok;
    at += n;
    next_cut = next_cut % 13 + 1;
  }
  return ok;
}

// CSV of rows into a string.
struct csv_text {
  output::text_buffer out;
  row_schema schema;  // the writer keeps a reference
  std::optional<output::csv_writer> w;
  void start(const row_schema& s) {
    schema = s;
    w.emplace(out, schema);
  }
  void write(const row& r) { w->write(r); }
  std::string finish(const hwpc::accounting& a) {
    w->end(a);
    return out.str() + "\n" + output::describe(a);
  }
};

std::string offline_intel(const std::vector<std::byte>& bytes) {
  auto rec = intel::recording::make({bytes.data(), bytes.size()});
  EXPECT_TRUE(rec) << rec.error_value().describe();
  if (!rec) return {};
  csv_text t;
  t.start(
      intel::schema_of(rec->format(), rec->device_platform(), true, rec->timestamp_frequency()));
  intel::row_options o;
  o.unknown_records = rec->unknown_records();
  const auto acc = intel::for_each_row(*rec, intel::generation_of(rec->device_platform()), o,
                                       [&](row& r) { t.write(r); });
  return t.finish(acc);
}

void intel_same_rows(intel::platform p, bool overflow) {
  SCOPED_TRACE(std::string(intel::name_of(p)) + (overflow ? " overflow" : ""));
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = p;
  cfg.reports = 48;
  cfg.seed = 3;
  cfg.faults.overflow = overflow;
  sim::add_i915(k, live::default_render_node, cfg);
  auto o = hwpc::testing::sim_intel_options();
  o.exponent = 12;
  csv_text live_csv;
  std::size_t rows = 0;
  live::intel_rows feed(
      [&](const row_schema& s, const intel::recording_feed&) { live_csv.start(s); },
      [&](row& r) {
        ++rows;
        live_csv.write(r);
      });
  std::vector<std::byte> file;
  std::size_t cut = 1;
  // 48 reports at 2^13 ticks take tens of ms; the deadline is room for a
  // loaded machine, and the comparison does not depend on how many came.
  // (With overflow fewer rows come: a second is far more than the reports' 35 ms.)
  auto counts = live::record_i915(
      k, o,
      [&](std::span<const std::byte> b) {
        file.insert(file.end(), b.begin(), b.end());
        return feed_cut(feed, b, cut);
      },
      hwpc::testing::stop_when([&] { return !overflow && rows >= 40; },
                               std::chrono::milliseconds(overflow ? 1000 : 5000)));
  ASSERT_TRUE(counts) << counts.error_value().describe();
  auto acc = feed.finish();
  ASSERT_TRUE(acc) << acc.error_value().describe();
  EXPECT_GT(acc->reports, 1u);
  if (overflow) {
    EXPECT_GT(acc->buffer_lost, 0u);
  }
  EXPECT_EQ(feed.feed().consumed(), file.size());
  EXPECT_EQ(live_csv.finish(*acc), offline_intel(file));
}

TEST(LiveRows, IntelRowsWhileRecordingAreTheFilesRows) {
  intel_same_rows(intel::platform::hsw, false);
  intel_same_rows(intel::platform::tgl, false);
  intel_same_rows(intel::platform::skl, true);
}

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR ""
#endif

// The rows of the capture decode opens, while recording: live::intel_capture_rows
// fed the recorder's bytes cut anywhere writes, with a metric set's columns,
// what intel::open of the finished file writes (JSON: the title, the metric
// group and the accounting too).
TEST(LiveRows, IntelCaptureRowsAreTheFinishedCapturesRows) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = intel::platform::hsw;
  cfg.reports = 48;
  cfg.seed = 5;
  sim::add_i915(k, live::default_render_node, cfg);
  auto o = hwpc::testing::sim_intel_options();
  o.exponent = 12;
  intel::open_options io;
  io.metrics = xml;
  io.set = "RenderBasic";
  auto choice = output::check_output("json", false, "interval", false);
  ASSERT_TRUE(choice);
  output::text_buffer live_out;
  output::made_writer made;
  live::intel_capture_rows feed(
      io, "live.rec", [&](const intel::oa_capture& c) -> hwpc::row_writer& {
        made = output::make_writer(*choice, live_out, c.schema(), c.writer_parts(*choice));
        return *made.writer;
      });
  std::vector<std::byte> file;
  std::size_t cut = 1;
  auto counts = live::record_i915(
      k, o,
      [&](std::span<const std::byte> b) {
        file.insert(file.end(), b.begin(), b.end());
        const bool ok = feed_cut(feed, b, cut);
        feed.flush();
        return ok;
      },
      hwpc::testing::stop_when([&] { return feed.totals().reports >= 40; }));
  ASSERT_TRUE(counts) << counts.error_value().describe();
  auto acc = feed.finish();
  ASSERT_TRUE(acc) << acc.error_value().message;
  ASSERT_NE(feed.capture(), nullptr);
  EXPECT_FALSE(feed.metrics_error());
  EXPECT_FALSE(feed.capture()->schema().metrics.empty());
  made.writer->end(*acc);

  auto whole = intel::open(hwpc::capture_source::own(file, "live.rec"), io, {});
  ASSERT_TRUE(whole) << whole.error_value().message;
  output::text_buffer file_out;
  hwpc::write_options w;
  w.choice = *choice;
  auto file_acc = (*whole)->write(w, file_out);
  ASSERT_TRUE(file_acc) << file_acc.error_value().message;
  EXPECT_EQ(live_out.str(), file_out.str());
  EXPECT_NE(live_out.str().find("GpuBusy"), std::string::npos);
  EXPECT_EQ(output::describe(*acc), output::describe(*file_acc));
}

// A set the metric file lacks leaves the rows without metric columns, and says why.
TEST(LiveRows, IntelCaptureRowsWithoutTheSetSayWhy) {
#ifndef HWPC_HAVE_PUGIXML
  GTEST_SKIP() << "the metric XML loader needs pugixml";
#endif
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << "../shared is absent: " << xml;
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = intel::platform::hsw;
  cfg.reports = 8;
  sim::add_i915(k, live::default_render_node, cfg);
  auto o = hwpc::testing::sim_intel_options();
  o.exponent = 12;
  intel::open_options io;
  io.metrics = xml;
  io.set = "NoSuchSet";
  auto choice = output::check_output("csv", false, "interval", false);
  ASSERT_TRUE(choice);
  output::text_buffer out;
  output::made_writer made;
  std::size_t rows_seen = 0;
  live::intel_capture_rows feed(
      io, "live.rec", [&](const intel::oa_capture& c) -> hwpc::row_writer& {
        made = output::make_writer(*choice, out, c.schema(), c.writer_parts(*choice));
        return *made.writer;
      });
  auto counts = live::record_i915(
      k, o, [&](std::span<const std::byte> b) { return feed(b); }, hwpc::testing::stop_when([&] {
        rows_seen = feed.totals().reports;
        return rows_seen >= 4;
      }));
  ASSERT_TRUE(counts) << counts.error_value().describe();
  ASSERT_TRUE(feed.finish());
  ASSERT_NE(feed.capture(), nullptr);
  EXPECT_TRUE(feed.capture()->schema().metrics.empty());
  ASSERT_TRUE(feed.metrics_error());
  EXPECT_NE(feed.metrics_error()->message.find("--metrics: "), std::string::npos)
      << feed.metrics_error()->message;
  EXPECT_NE(feed.metrics_error()->message.find("NoSuchSet"), std::string::npos)
      << feed.metrics_error()->message;
}

// What the recorder writes, for the error cases below.
std::vector<std::byte> small_recording() {
  sim::kernel k;
  sim::i915_config cfg;
  cfg.platform = intel::platform::hsw;
  cfg.reports = 4;
  sim::add_i915(k, live::default_render_node, cfg);
  auto o = hwpc::testing::sim_intel_options();
  o.exponent = 12;
  std::vector<std::byte> file;
  std::size_t samples = 0;
  auto counts = live::record_i915(
      k, o,
      [&](std::span<const std::byte> b) {
        file.insert(file.end(), b.begin(), b.end());
        for (std::size_t at = 0; at + 8 <= file.size(); at += hwpc::load_le16(&file[at + 6])) {
          samples += at + 8 > file.size() - b.size() && hwpc::load_le32(&file[at]) == 1;
        }
        return true;
      },
      hwpc::testing::stop_when([&] { return samples >= 2; }));
  EXPECT_TRUE(counts);
  return file;
}

// The error of feeding `bytes` (cut at every byte) and finishing.
std::string feed_error(const std::vector<std::byte>& bytes) {
  intel::recording_feed f;
  for (const std::byte& b : bytes) {
    if (auto ok = f.feed({&b, 1}, [](const intel::capture_event&) {}); !ok) {
      return ok.error_value().describe();
    }
  }
  auto ok = f.finish();
  return ok ? std::string() : ok.error_value().describe();
}

std::string whole_file_error(const std::vector<std::byte>& bytes) {
  auto r = intel::recording::make({bytes.data(), bytes.size()});
  return r ? std::string() : r.error_value().describe();
}

TEST(LiveRows, IntelFeedRefusesWhatTheFileReaderRefusesAtTheSameOffset) {
  const std::vector<std::byte> good = small_recording();
  ASSERT_GT(good.size(), 400u);
  EXPECT_EQ(feed_error(good), "");
  // Where the first SAMPLE record is.
  std::size_t sample = 0;
  for (std::size_t at = 0; at + 8 <= good.size(); at += hwpc::load_le16(&good[at + 6])) {
    if (hwpc::load_le32(&good[at]) == intel::record_type::sample) {
      sample = at;
      break;
    }
  }
  ASSERT_NE(sample, 0u);
  struct bad {
    const char* what;
    std::vector<std::byte> bytes;
  };
  std::vector<bad> cases;
  auto with = [&](const char* what, auto change) {
    std::vector<std::byte> b = good;
    change(b);
    cases.push_back({what, std::move(b)});
  };
  with("not a recording", [](auto& b) { hwpc::store_le32(b.data(), 1); });
  with("a record of size 0", [&](auto& b) { hwpc::store_le16(&b[sample + 6], 0); });
  with("a record smaller than its header", [&](auto& b) { hwpc::store_le16(&b[sample + 6], 4); });
  with("a sample of the wrong size", [&](auto& b) { hwpc::store_le16(&b[sample + 6], 16); });
  with("the file ends inside a record", [](auto& b) { b.resize(b.size() - 3); });
  with("version 2", [](auto& b) { hwpc::store_le32(&b[8], 2); });
  for (const bad& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string want = whole_file_error(c.bytes);
    EXPECT_NE(want, "");
    EXPECT_EQ(feed_error(c.bytes), want);
  }
  // After an error, the feed keeps refusing.
  intel::recording_feed f;
  std::vector<std::byte> b = good;
  hwpc::store_le16(&b[sample + 6], 0);
  EXPECT_FALSE(f.feed({b.data(), b.size()}, [](const intel::capture_event&) {}));
  EXPECT_FALSE(f.feed({good.data(), 8}, [](const intel::capture_event&) {}));
}

std::string offline_mali(const std::vector<std::byte>& bytes) {
  mali::open_options mo;
  auto c = mali::open(bytes, mo, hwpc::pipeline::spelling{hwpc::pipeline::door::tool});
  EXPECT_TRUE(c) << c.error_value().describe();
  if (!c) return {};
  mali::row_builder b(*c->gpu, nullptr, c->rows);
  csv_text t;
  t.start(b.schema());
  auto acc = mali::for_each_row(*c, b, [&](const row& r) { t.write(r); });
  EXPECT_TRUE(acc) << acc.error_value().describe();
  return acc ? t.finish(*acc) : std::string();
}

void mali_same_rows(const char* name, std::uint64_t mask, std::size_t full_every) {
  SCOPED_TRACE(std::string(name) + " full every " + std::to_string(full_every));
  auto g = mali::find_gpu(name);
  ASSERT_TRUE(g);
  sim::kernel k;
  sim::kbase_config cfg;
  cfg.gpu = *g;
  cfg.l2_slices = 2;
  cfg.core_mask = mask;
  cfg.samples = 16;
  cfg.seed = 7;
  cfg.full_every = full_every;
  sim::add_kbase(k, live::kbase::default_node, cfg);
  const auto o = hwpc::testing::sim_mali_options();
  csv_text live_csv;
  std::size_t rows = 0;
  live::mali_rows feed(
      {}, [&](const row_schema& s, const mali::gpu_product&) { live_csv.start(s); },
      [&](const row& r) {
        ++rows;
        live_csv.write(r);
      });
  std::vector<std::byte> file;
  std::size_t cut = 1;
  // Rows (lost ones included) once every sample has come or been lost; the
  // deadline is room for a loaded machine.
  const std::size_t want = full_every == 0 ? cfg.samples : cfg.samples - cfg.samples / full_every;
  auto counts = live::record_mali(
      k, o,
      [&](std::span<const std::byte> b) {
        file.insert(file.end(), b.begin(), b.end());
        return feed_cut(feed, b, cut);
      },
      hwpc::testing::stop_when([&] { return rows >= want; }));
  ASSERT_TRUE(counts) << counts.error_value().describe();
  auto acc = feed.finish();
  ASSERT_TRUE(acc) << acc.error_value().describe();
  EXPECT_GT(acc->reports, 0u);
  if (full_every != 0) {
    EXPECT_GT(acc->gaps, 0u);
  }
  EXPECT_EQ(live_csv.finish(*acc), offline_mali(file));
}

TEST(LiveRows, MaliRowsWhileRecordingAreTheFilesRows) {
  mali_same_rows("Mali-G78", 0xf, 0);
  mali_same_rows("Mali-G720", 0x3b, 0);  // CSF, 128-value blocks, a core gap
}

TEST(LiveRows, MaliRowsOfAFullRingHaveTheirGaps) {
  // Every 4th sample finds the ring full: lost, and the next is flagged.
  mali_same_rows("Mali-G78", 0x3, 4);
}

TEST(LiveRows, MaliRowsRefuseACaptureThatEndsInsideASample) {
  mali::emulate_options o;
  auto g = mali::find_gpu("Mali-G78");
  ASSERT_TRUE(g);
  o.gpu_id = mali::gpu_id_of_product((*g)->product_id);
  o.values_per_block = (*g)->table->values_per_block;
  o.table = (*g)->table;
  o.kinstr = true;
  o.l2_slices = 1;
  o.core_mask = 0x3;
  o.samples = 3;
  const mali::emulation e = mali::emulate(o);
  {
    live::mali_rows rows({}, nullptr, [](const row&) {});
    ASSERT_TRUE(rows(std::span<const std::byte>(e.file.data(), e.file.size() - 8)));
    auto acc = rows.finish();
    ASSERT_FALSE(acc);
    EXPECT_NE(acc.error_value().describe().find("ends inside a sample"), std::string::npos)
        << acc.error_value().describe();
  }
  {
    live::mali_rows rows({}, nullptr, [](const row&) {});
    std::vector<std::byte> b = e.file;
    b[0] = std::byte{'X'};
    EXPECT_FALSE(rows(b));
    ASSERT_TRUE(rows.error_value());
    EXPECT_NE(rows.error_value()->describe().find("HWPCMALI"), std::string::npos);
  }
  {
    std::size_t n = 0;
    live::mali_rows rows({}, nullptr, [&](const row&) { ++n; });
    ASSERT_TRUE(rows(e.file));
    auto acc = rows.finish();
    ASSERT_TRUE(acc) << acc.error_value().describe();
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(acc->reports, 3u);
  }
}

}  // namespace
