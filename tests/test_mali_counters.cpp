// The Mali-G72 counter table against the G72 hardware layout description in
// ../shared/data/mali/Mali-G72.xml: same blocks, indices and names, both ways.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "hwpc/mali/g72_counters.hpp"

namespace {

using hwpc::mali::block_type;

static_assert(hwpc::mali::g72_counter_name(block_type::shader_core, 12) == "FRAG_QUADS_EZS_TEST");
static_assert(hwpc::mali::g72_counter_name(block_type::front_end, 3).empty(), "header word");
static_assert(hwpc::mali::find_g72_counter("GPU_ACTIVE")->id ==
              hwpc::mali::counter_id{block_type::front_end, 6});
static_assert(!hwpc::mali::find_g72_counter("NOT_A_COUNTER"));

TEST(MaliCounters, Lookups) {
  EXPECT_EQ(hwpc::mali::g72_counter_name(block_type::memory, 32), "L2_EXT_READ_BEATS");
  EXPECT_EQ(hwpc::mali::g72_counter_name(block_type::tiler, 4), "TILER_ACTIVE");
  EXPECT_TRUE(hwpc::mali::g72_counter_name(block_type::tiler, 5).empty()) << "unused index";
  EXPECT_EQ(hwpc::mali::g72_counters.size(), 146u);
}

std::string attribute(std::string_view line, std::string_view name) {
  const std::string key = " " + std::string(name) + "=\"";
  const auto at = line.find(key);
  if (at == std::string_view::npos) return {};
  const auto from = at + key.size();
  return std::string(line.substr(from, line.find('"', from) - from));
}

TEST(MaliCounters, TableMatchesTheLayoutDescription) {
  const std::filesystem::path file =
      std::filesystem::path(HWPC_SHARED_DIR) / "data" / "mali" / "Mali-G72.xml";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "../shared is absent: " << file;
  const std::map<std::string, block_type, std::less<>> types = {
      {"GPU Front-end", block_type::front_end},
      {"Tiler", block_type::tiler},
      {"Memory System", block_type::memory},
      {"Shader Core", block_type::shader_core}};
  std::ifstream in(file);
  std::string line;
  std::optional<block_type> block;
  std::map<std::pair<block_type, int>, std::string> listed;
  while (std::getline(in, line)) {
    if (line.find("<HardwareLayout") != std::string::npos) {
      EXPECT_EQ(attribute(line, "gpu"), "Mali-G72");
    } else if (line.find("<CounterBlock") != std::string::npos) {
      const auto it = types.find(attribute(line, "type"));
      ASSERT_NE(it, types.end()) << line;
      block = it->second;
      EXPECT_EQ(attribute(line, "size"), "64");
    } else if (line.find("<Counter ") != std::string::npos) {
      ASSERT_TRUE(block) << line;
      const int index = std::stoi(attribute(line, "index"));
      listed[{*block, index}] = attribute(line, "name");
    }
  }
  ASSERT_FALSE(listed.empty());
  for (const auto& [key, name] : listed) {
    EXPECT_EQ(hwpc::mali::g72_counter_name(key.first, static_cast<std::size_t>(key.second)), name)
        << to_string(key.first) << " " << key.second;
  }
  for (const auto& c : hwpc::mali::g72_counters) {
    const auto it = listed.find({c.id.block, c.id.index});
    ASSERT_NE(it, listed.end()) << c.name << " is not in " << file;
    EXPECT_EQ(it->second, c.name);
  }
  EXPECT_EQ(listed.size(), hwpc::mali::g72_counters.size());
}

}  // namespace
