// hwpc mali: a hand-built sample file through the tool; CSV rows, exit status 2
// with the byte offset for a malformed sample, 1 for usage errors.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "mali_test_util.hpp"
#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_tool;

class MaliTool : public hwpc::testing::tool_test {
 protected:
  std::string write(const std::vector<std::byte>& bytes, std::size_t size) {
    const auto path = dir_ / "sample.bin";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(size));
    return path.string();
  }
};

TEST_F(MaliTool, CountersAndMetricsAsCsv) {
  // Cores 0 and 2 (bit 1 a gap), one L2 slice: FRAG_ACTIVE 300 + 500 = 800 over
  // 2 cores = 400 per core, of GPU_ACTIVE 1000: fragment utilization 40%.
  mali_test::sample_bytes b({.l2_slices = 1, .core_mask = 0b101});
  b.front_end(6, 1000);
  b.core(0, 4, 300);
  b.core(1, 4, 7777);  // the gap
  b.core(2, 4, 500);
  b.memory(0, 32, 3);  // L2_EXT_READ_BEATS: 3 beats of 16 bytes
  const std::string file = write(b.bytes, b.bytes.size());
  auto r = run_tool("mali --l2-slices 1 --core-mask 0x5 --bus-width-bits 128 " + file, true);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("kind,name,where,units,value\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("counter,GPU_ACTIVE,front-end:6,,1000\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counter,FRAG_ACTIVE,shader core:4,,800\n"), std::string::npos);
  EXPECT_NE(r.out.find("metric,FragmentUtilization,5.3.2,percent,40\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("metric,OutputExternalReadBytes,3.3.1,bytes,48\n"), std::string::npos);
  EXPECT_NE(r.out.find("metric,GPUActiveCycles,3.1.1,cycles,1000\n"), std::string::npos);

  r = run_tool("mali --l2-slices 1 --core-mask 5 --bus-width-bits 128 --counters-only " + file,
               true);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.find("metric,"), std::string::npos);
}

TEST_F(MaliTool, MalformedSampleExitsTwoWithTheOffset) {
  mali_test::sample_bytes b({.l2_slices = 1, .core_mask = 0b101});
  const std::string file = write(b.bytes, 4 * 256);  // the core 2 block is missing
  auto r = run_tool("mali --l2-slices 1 --core-mask 0x5 --bus-width-bits 128 " + file);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("truncated at byte offset 1024"), std::string::npos) << r.out;
  const std::string odd = write(b.bytes, 1000);
  r = run_tool("mali --l2-slices 1 --core-mask 0x5 --bus-width-bits 128 " + odd);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("misaligned at byte offset 768"), std::string::npos) << r.out;
  r = run_tool("mali --l2-slices 1 --core-mask 0x5 --bus-width-bits 128 " +
               (dir_ / "absent.bin").string());
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST_F(MaliTool, UsageErrorsExitOne) {
  EXPECT_EQ(run_tool("mali --help").status, 0);
  EXPECT_EQ(run_tool("mali --core-mask 1 --bus-width-bits 128 x.bin").status, 1);
  EXPECT_EQ(run_tool("mali --l2-slices 1 --core-mask 1 x.bin").status, 1);
  EXPECT_EQ(run_tool("mali --l2-slices one --core-mask 1 --bus-width-bits 128 x.bin").status, 1);
  EXPECT_EQ(run_tool("mali --l2-slices 1 --core-mask 0 --bus-width-bits 128 x.bin").status, 1);
  EXPECT_EQ(run_tool("mali --l2-slices 1 --core-mask 1 --bus-width-bits 12 x.bin").status, 1);
  EXPECT_EQ(run_tool("mali --l2-slices 1 --core-mask 1 --bus-width-bits 128").status, 1);
}

}  // namespace
