// The guide's Streamline names and their hardware counters: the evidence kept
// with each entry is what the counter descriptions in ../shared/data/mali say
// today, and the table covers exactly the names the guide's expressions use.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/mali/g72_metrics.hpp"
#include "hwpc/mali/streamline_names.hpp"

namespace {

using hwpc::mali::block_type;

static_assert(hwpc::mali::find_streamline_counter("$MaliCoreQuadsEarlyZSTestedQuads")->hw_name ==
              "FRAG_QUADS_EZS_TEST");
static_assert(hwpc::mali::find_streamline_counter("MaliGPUCyclesGPUActive")->id ==
              hwpc::mali::counter_id{block_type::front_end, 6});
static_assert(!hwpc::mali::find_streamline_counter("MaliConstantsL2SliceCount"),
              "a constant, not a counter");

TEST(MaliNames, ExactlyTheNamesTheExpressionsUse) {
  std::set<std::string, std::less<>> used;
  for (const auto& e : hwpc::mali::g72_guide_expressions) {
    const std::string_view f = e.formula;
    for (std::size_t at = f.find('$'); at != std::string_view::npos; at = f.find('$', at + 1)) {
      std::size_t end = at + 1;
      while (end < f.size() && std::isalnum(static_cast<unsigned char>(f[end]))) ++end;
      used.emplace(f.substr(at + 1, end - at - 1));
    }
  }
  std::set<std::string, std::less<>> table;
  for (const auto& c : hwpc::mali::g72_streamline_counters) table.emplace(c.name);
  table.emplace(hwpc::mali::constant_shader_core_count);
  table.emplace(hwpc::mali::constant_l2_slice_count);
  table.emplace(hwpc::mali::constant_bus_width_bits);
  EXPECT_EQ(used, table);
  EXPECT_EQ(hwpc::mali::g72_streamline_counters.size(), 59u);
}

struct description {
  std::string source, group, group_human, human;
  bool g72 = false;
};

std::string tag(const std::string& record, std::string_view name) {
  const std::string open = "<" + std::string(name) + ">";
  const auto at = record.find(open);
  if (at == std::string::npos) return {};
  const auto from = at + open.size();
  const auto to = record.find("</" + std::string(name) + ">", from);
  std::string s = record.substr(from, to - from);
  const auto b = s.find_first_not_of(" \n\t");
  const auto e = s.find_last_not_of(" \n\t");
  return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
}

TEST(MaliNames, EvidenceMatchesTheCounterDescriptions) {
  const std::filesystem::path dir = std::filesystem::path(HWPC_SHARED_DIR) / "data" / "mali";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "../shared is absent: " << dir;
  std::map<std::string, description, std::less<>> by_source;  // Mali-G72 entries only
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("Mali-CounterInfo-", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::stringstream all;
    all << in.rdbuf();
    const std::string text = all.str();
    for (std::size_t at = text.find("<CounterInfo>"); at != std::string::npos;
         at = text.find("<CounterInfo>", at + 1)) {
      const std::string record = text.substr(at, text.find("</CounterInfo>", at) - at);
      description d{tag(record, "SourceName"), tag(record, "GroupName"),
                    tag(record, "GroupHumanName"), tag(record, "HumanName"),
                    record.find("<GPU>Mali-G72</GPU>") != std::string::npos};
      if (d.g72 && !d.source.empty()) by_source[d.source] = d;
    }
  }
  ASSERT_FALSE(by_source.empty());
  for (const auto& c : hwpc::mali::g72_streamline_counters) {
    const auto it = by_source.find(c.hw_name);
    ASSERT_NE(it, by_source.end()) << c.name << ": no Mali-G72 description of " << c.hw_name;
    EXPECT_EQ(it->second.group, c.group) << c.name;
    EXPECT_EQ(it->second.group_human, c.group_human) << c.name;
  }
}

}  // namespace
