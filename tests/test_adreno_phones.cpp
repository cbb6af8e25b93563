// What a user sees on captures from Android phones (tests/data/dive/README.md,
// tests/data/mesa-freedreno/README.md): the A540 compute job libwrap wrote for
// Mesa's CI, and Dive's A640 frame and A620 trimmed capture, all in libwrap's
// marker dialect. Through the library: the GPU named from the capture with its
// generation, and query rows as for a Linux capture: these captures run no
// query (cffdump's logs hold no counter select or sample, no ZPASS_DONE and no
// RB_DONE_TS timestamp, only cache-flush fences and the binning visibility
// copy), so the CSV is its header alone and the accounting is balanced.
// Through the tool: the same, and the listing's exit status 0 (no issue).
// tests/test_adreno_mesa_traces.cpp compares the packet listing with cffdump.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "hwpc/adreno/gzip.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_input.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_TEST_DATA_DIR
#define HWPC_TEST_DATA_DIR ""
#endif

namespace {

namespace a = hwpc::adreno;

struct phone {
  const char* file;  // under tests/data
  std::string_view gpu;
  a::generation gen;
};

constexpr phone a540{"mesa-freedreno/compute-a540.rd.gz", "A540", a::generation::a5xx};
constexpr phone a640{"dive/bloom-frame-0080-compressed.rd", "A640", a::generation::a6xx};
constexpr phone a620{"dive/bigwheels-cube-trim.rd", "A620", a::generation::a6xx};

// The columns of an Adreno capture whose queries sample no counter.
constexpr std::string_view csv_header =
    "report,offset,timestamp,reason,ctx_id,samples_passed,time_elapsed,gpu_time\n";

std::string path_of(const phone& p) { return std::string(HWPC_TEST_DATA_DIR) + "/" + p.file; }

// One pass over the capture: open, name the GPU, write the rows as CSV.
void library_reads(const phone& p) {
  if (!a::have_gzip) GTEST_SKIP() << "built without zlib: the captures are gzip-compressed";
  const std::string path = path_of(p);
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  auto c = a::open_capture(hwpc::capture_source::map(path).value(), {}, {});
  ASSERT_TRUE(c) << c.error_value().describe();
  const auto* q = dynamic_cast<const a::query_capture*>(c->get());
  ASSERT_NE(q, nullptr);
  ASSERT_NE(q->gpu(), nullptr) << "the GPU is named by the capture's own ids";
  EXPECT_EQ(q->gpu()->name, p.gpu);
  EXPECT_EQ(q->gpu()->gen, p.gen);
  // The model a Perfetto trace of the rows names.
  EXPECT_EQ((*c)->writer_parts({hwpc::output::writer_kind::perfetto}).model, p.gpu);
  EXPECT_TRUE((*c)->warnings().empty()) << (*c)->warnings().front();

  hwpc::output::text_buffer csv;
  auto acc = (*c)->write({hwpc::output::output_choice{}}, csv);
  ASSERT_TRUE(acc) << acc.error_value().describe();
  EXPECT_EQ(csv.str(), csv_header);
  EXPECT_TRUE(acc->balanced());
  EXPECT_EQ(acc->intervals, 0u);
  EXPECT_FALSE(acc->anything_dropped());
}

TEST(AdrenoPhones, A540ComputeJobNamesItsGpuAndHasNoQueryRows) { library_reads(a540); }
TEST(AdrenoPhones, A640FrameNamesItsGpuAndHasNoQueryRows) { library_reads(a640); }
TEST(AdrenoPhones, A620TrimmedCaptureNamesItsGpuAndHasNoQueryRows) { library_reads(a620); }

class AdrenoPhonesTool : public hwpc::testing::tool_test {};

// The tool on the two small captures (the A620's 373 MB are read by the
// library test above and by the packet comparison): the listing names the GPU
// and exits 0, --output csv writes the header alone and exits 0.
TEST_F(AdrenoPhonesTool, ListingAndCsvAsAUserSeesThem) {
  if (!a::have_gzip) GTEST_SKIP() << "built without zlib: the captures are gzip-compressed";
  for (const phone& p : {a540, a640}) {
    SCOPED_TRACE(p.file);
    const auto list = hwpc::testing::run_tool("adreno " + path_of(p), true);
    EXPECT_EQ(list.status, 0) << "no issue in the listing";
    EXPECT_EQ(list.out.rfind("GPU " + std::string(p.gpu) +
                                 (p.gen == a::generation::a5xx ? " (A5XX)\n" : " (A6XX)\n"),
                             0),
              0u)
        << list.out.substr(0, 200);
    const auto csv = hwpc::testing::run_tool("adreno --output csv " + path_of(p), true);
    EXPECT_EQ(csv.status, 0);
    EXPECT_EQ(csv.out, csv_header);
  }
}

}  // namespace
