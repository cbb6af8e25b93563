// hwpc adreno: disassembly and query explanations of the seed's sequences,
// bad input (exit 2 with the byte offset), usage errors (exit 1).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "adreno_seed.hpp"
#include "tool_runner.hpp"

namespace {

class AdrenoTool : public hwpc::testing::tool_test {
 protected:
  std::string write(const std::string& name, const std::vector<std::uint32_t>& dws) {
    const auto bytes = adreno_seed::bytes_of(dws);
    const auto path = dir_ / name;
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
    return path.string();
  }
};

TEST_F(AdrenoTool, DisassemblesAndExplainsTheSeed) {
  const auto file = write(
      "seed.bin", adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end,
                                       adreno_seed::timestamp_begin, adreno_seed::timestamp_end}));
  auto r = hwpc::testing::run_tool("adreno " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("00000000: 48e1d101  pkt4 write RB_SAMPLE_COUNT_CONTROL"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("00000050: 70bc8006  pkt7 CP_WAIT_REG_MEM"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("00000014 c0456014 00000000 ffffffff ffffffff 00000010"), std::string::npos);
  EXPECT_NE(r.out.find("0000001c: occlusion end of slot 0xc0456000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time-elapsed begin of slot 0xc0456000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time-elapsed end of slot 0xc0456000"), std::string::npos) << r.out;

  auto q = hwpc::testing::run_tool("adreno --queries " + file, true);
  ASSERT_EQ(q.status, 0);
  EXPECT_EQ(q.out.find("pkt7"), std::string::npos);
  EXPECT_EQ(q.out.rfind("00000000: occlusion begin of slot 0xc0456000", 0), 0u) << q.out;
}

TEST_F(AdrenoTool, BadInputExitsTwoWithTheOffset) {
  auto dws = adreno_seed::occlusion_end;
  dws[13] ^= 1u << 23;  // CP_WAIT_REG_MEM header at byte 52
  auto r = hwpc::testing::run_tool("adreno " + write("bad.bin", dws));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("at byte offset 52"), std::string::npos) << r.out;
  auto t = adreno_seed::timestamp_begin;
  t.pop_back();
  auto tr = hwpc::testing::run_tool("adreno " + write("short.bin", t));
  EXPECT_EQ(tr.status, 2);
  EXPECT_NE(tr.out.find("truncated at byte offset 24"), std::string::npos) << tr.out;
  EXPECT_EQ(hwpc::testing::run_tool("adreno " + (dir_ / "missing.bin").string()).status, 2);
}

TEST_F(AdrenoTool, UsageErrorsExitOne) {
  EXPECT_EQ(hwpc::testing::run_tool("adreno").status, 1);
  EXPECT_EQ(hwpc::testing::run_tool("adreno --bogus x").status, 1);
  auto h = hwpc::testing::run_tool("adreno --help");
  EXPECT_EQ(h.status, 0);
  EXPECT_NE(h.out.find("usage: hwpc adreno"), std::string::npos);
}

}  // namespace
