// The library's pipeline steps: identify() names what the bytes prove (and
// says why nothing when they prove nothing), and the Mali options are checked
// in one place with usage errors of their own category (errc::usage), worded
// in each door's spelling of the options.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/mali_open.hpp"

namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> b;
  for (const char c : s) b.push_back(static_cast<std::byte>(c));
  return b;
}

std::vector<std::byte> dwords(std::initializer_list<std::uint32_t> v) {
  std::vector<std::byte> b(4 * v.size());
  std::size_t i = 0;
  for (const std::uint32_t d : v) hwpc::store_le32(b.data() + 4 * i++, d);
  return b;
}

TEST(PipelineIdentify, NamesAnAdrenoRdAndItsGpu) {
  // One RD_GPU_ID section (type 13, 4 bytes): GPU id 530.
  const auto b = dwords({13, 4, 530});
  const hwpc::identity id = hwpc::identify(b);
  EXPECT_EQ(id.vendor, hwpc::vendor::adreno);
  EXPECT_EQ(id.input_kind, "rd");
  EXPECT_NE(id.device.find("530"), std::string::npos) << id.device;
}

TEST(PipelineIdentify, MaliMagicHexTextAndNothing) {
  const auto mali = bytes_of("HWPCMALI");  // the magic alone: a Mali capture file, no GPU yet
  EXPECT_EQ(hwpc::identify(mali).vendor, hwpc::vendor::mali);
  EXPECT_TRUE(hwpc::identify(mali).device.empty());
  const auto hex = bytes_of("70460004 40000016\n");
  EXPECT_EQ(hwpc::identify(hex).vendor, hwpc::vendor::adreno);
  EXPECT_EQ(hwpc::identify(hex).input_kind, "hex");
  // Binary with no header hwpc knows: unknown, and the why names the options that read it.
  const auto raw = dwords({0, 0xffffffffu, 0x12345678u, 0});
  const hwpc::identity id = hwpc::identify(raw);
  EXPECT_EQ(id.vendor, hwpc::vendor::unknown);
  EXPECT_NE(id.why.find("--platform"), std::string::npos) << id.why;
  EXPECT_EQ(hwpc::identify({}).why, "empty input");
}

TEST(PipelineMaliOptions, UsageErrorsAreTheirOwnCategoryInEachSpelling) {
  using hwpc::pipeline::door;
  hwpc::mali::open_options o;
  o.derived = "database";  // without the bus width
  auto tool = hwpc::mali::check(o, {door::tool});
  auto py = hwpc::mali::check(o, {door::python});
  ASSERT_FALSE(tool);
  ASSERT_FALSE(py);
  EXPECT_TRUE(hwpc::is_usage(tool.error_value()));
  EXPECT_EQ(tool.error_value().anchor, hwpc::error_anchor::none);
  EXPECT_EQ(tool.error_value().message.rfind("--derived needs --bus-width-bits:", 0), 0u)
      << tool.error_value().message;
  EXPECT_EQ(py.error_value().message.rfind("derived needs bus_width_bits:", 0), 0u)
      << py.error_value().message;

  hwpc::mali::open_options both;
  both.bus_width_bits = 128;
  both.counters_only = true;
  EXPECT_TRUE(hwpc::is_usage(hwpc::mali::check(both, {door::tool}).error_value()));
  hwpc::mali::open_options bad;
  bad.core_index = "diagonal";
  EXPECT_EQ(hwpc::mali::check(bad, {door::python}).error_value().message,
            "core_index: expected dense or sparse, not 'diagonal'");
}

TEST(PipelineMaliOpen, CoreIndexOnVinstrAndAMissingGpuAreRefused) {
  using hwpc::pipeline::door;
  const std::vector<std::byte> samples(4096);  // bare samples: the options say everything
  hwpc::mali::open_options o;
  auto no_gpu = hwpc::mali::open(samples, o, {door::tool});
  ASSERT_FALSE(no_gpu);
  EXPECT_TRUE(hwpc::is_usage(no_gpu.error_value()));
  EXPECT_EQ(no_gpu.error_value().message.rfind("--gpu is required", 0), 0u);

  auto g72 = hwpc::mali::find_gpu("G72");
  ASSERT_TRUE(g72);
  o.gpu = *g72;
  o.l2_slices = 1;
  o.core_mask = 0xF;
  o.core_index = "dense";  // vinstr, the default reader: no core index to choose
  auto refused = hwpc::mali::open(samples, o, {door::python});
  ASSERT_FALSE(refused);
  EXPECT_TRUE(hwpc::is_usage(refused.error_value()));
  EXPECT_NE(refused.error_value().message.find("give reader='kinstr'"), std::string::npos)
      << refused.error_value().message;
  o.reader = "kinstr";
  auto opened = hwpc::mali::open(samples, o, {door::python});
  ASSERT_TRUE(opened) << opened.error_value().describe();
  EXPECT_EQ(opened->reader, "kinstr");
  EXPECT_TRUE(opened->rows.losses);
  EXPECT_FALSE(opened->metrics.has_value());
}

}  // namespace
