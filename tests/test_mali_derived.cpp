// Arm's derived counters for every GPU: the generated Streamline names and
// formulas against Mali-CounterInfo-*.xml, every GPU's set compiling and
// binding, values worked out by hand (the G715's GPU_ACTIVE erratum included,
// FACTS-mali section 7), and division by zero giving 0, never inf or NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/gpus/index.hpp"

namespace {

namespace fs = std::filesystem;
namespace gpus = hwpc::mali::gpus;
using hwpc::mali::block_sums;
using hwpc::mali::block_type;
using hwpc::mali::evaluator;
using hwpc::mali::gpu_table;

// The text between <tag> and </tag> at or after `from`, white space collapsed.
std::string tag_text(const std::string& s, const std::string& tag, std::size_t from,
                     std::size_t to) {
  const auto a = s.find("<" + tag + ">", from);
  if (a == std::string::npos || a > to) return {};
  const auto b = s.find("</" + tag + ">", a);
  std::istringstream words(s.substr(a + tag.size() + 2, b - a - tag.size() - 2));
  std::string w, out;
  while (words >> w) out += (out.empty() ? "" : " ") + w;
  return out;
}

struct expected_gpu {
  std::vector<std::pair<std::string, std::string>> derived;       // name, equation
  std::map<std::string, std::pair<std::string, std::string>> hw;  // name -> source, alias
};

std::map<std::string, expected_gpu> read_counter_info(const fs::path& dir) {
  std::map<std::string, expected_gpu> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("Mali-CounterInfo-", 0) == 0) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t at = s.find("<CounterInfo>"); at != std::string::npos;
         at = s.find("<CounterInfo>", at + 1)) {
      const std::size_t end = s.find("</CounterInfo>", at);
      const std::string name = tag_text(s, "MachineName", at, end);
      const bool has_equation = s.find("<Equation>", at) < end;
      const std::string equation = tag_text(s, "Equation", at, end);
      for (std::size_t g = s.find("<GPU>", at); g < end; g = s.find("<GPU>", g + 1)) {
        const std::string gpu = tag_text(s, "GPU", g, end);
        if (has_equation) {
          out[gpu].derived.emplace_back(name, equation);
        } else {
          out[gpu].hw[name] = {tag_text(s, "SourceName", at, end),
                               tag_text(s, "SourceAlias", at, end)};
        }
      }
    }
  }
  return out;
}

TEST(MaliDerived, GeneratedNamesAndFormulasMatchTheCounterInfo) {
  const fs::path dir = fs::path(HWPC_SHARED_DIR) / "data" / "mali";
  if (!fs::exists(dir / "Mali-CounterInfo-00a-Constants.xml")) {
    GTEST_SKIP() << "../shared is absent: " << dir;
  }
  const auto expected = read_counter_info(dir);
  ASSERT_EQ(expected.size(), std::size(gpus::tables));
  for (const gpu_table* t : gpus::tables) {
    SCOPED_TRACE(std::string(t->key));
    const auto it = expected.find(std::string(t->key));
    ASSERT_NE(it, expected.end());
    const expected_gpu& e = it->second;
    ASSERT_EQ(t->derived.size(), e.derived.size());
    for (std::size_t i = 0; i < e.derived.size(); ++i) {
      EXPECT_EQ(t->derived[i].name, e.derived[i].first);
      EXPECT_EQ(t->derived[i].equation, e.derived[i].second) << e.derived[i].first;
    }
    // Every hardware counter has exactly one Streamline name, reading it.
    ASSERT_EQ(t->streamline.size(), e.hw.size());
    EXPECT_EQ(t->streamline.size(), t->counters.size());
    for (const auto& s : t->streamline) {
      const auto h = e.hw.find(std::string(s.name));
      ASSERT_NE(h, e.hw.end()) << s.name;
      EXPECT_TRUE(s.hw_name == h->second.first || s.hw_name == h->second.second) << s.name;
      EXPECT_EQ(t->name_of(s.id.block, s.id.index), s.hw_name) << s.name;
    }
  }
}

TEST(MaliDerived, EveryGpusSetCompilesAndBinds) {
  for (const gpu_table* t : gpus::tables) {
    auto ev = evaluator::database(*t, {.l2_slices = 2, .core_mask = 0xf}, 128);
    ASSERT_TRUE(ev) << t->key << ": " << ev.error_value().describe();
    // Only the two byte-rate counters read the sample's duration.
    EXPECT_EQ(ev->size(), t->derived.size() - 2) << t->key;
    EXPECT_FALSE(ev->metrics().find("MaliExtBusRdBPS")) << t->key;
    EXPECT_TRUE(ev->metrics().find("MaliGPUIRQUtil")) << t->key;
  }
}

double metric(const evaluator& ev, const std::vector<hwpc::expr::value>& out,
              std::string_view name) {
  const auto i = ev.metrics().find(name);
  EXPECT_TRUE(i) << name;
  return i ? out[*i].as_double() : -1.0;
}

TEST(MaliDerived, WorkedByHandOnTheG78) {
  auto ev = evaluator::database(gpus::g78, {.l2_slices = 2, .core_mask = 0b111}, 256);
  ASSERT_TRUE(ev);
  block_sums s;
  s.values[0][6] = 1000;  // GPU_ACTIVE
  s.values[0][7] = 250;   // IRQ_ACTIVE
  s.values[0][10] = 400;  // JS0_ACTIVE
  std::vector<hwpc::expr::value> out(ev->size());
  ASSERT_TRUE(ev->evaluate(s, out));
  EXPECT_DOUBLE_EQ(metric(*ev, out, "MaliGPUIRQUtil"), 25.0);            // 250 / 1000 * 100
  EXPECT_DOUBLE_EQ(metric(*ev, out, "MaliFragQueueUtil"), 40.0);         // 400 / 1000 * 100
  EXPECT_DOUBLE_EQ(metric(*ev, out, "MaliConfigExtBusBeatSize"), 32.0);  // 256 bits
  EXPECT_DOUBLE_EQ(metric(*ev, out, "MaliConfigL2CacheCount"), 2.0);
  EXPECT_DOUBLE_EQ(metric(*ev, out, "MaliConfigCoreCount"), 3.0);
}

// FACTS-mali section 7: on the G715 the database's MaliGPUActiveCy is
// GPU_ITER_ACTIVE (front-end 6), not GPU_ACTIVE (front-end 4), so utilizations
// divide by 500 here, not 900.
TEST(MaliDerived, TheG715DividesByIterActive) {
  auto ev = evaluator::database(gpus::g715, {.l2_slices = 1, .core_mask = 1}, 128);
  ASSERT_TRUE(ev);
  block_sums s;
  s.values[0][4] = 900;  // GPU_ACTIVE (erratum: includes idle CSF operations)
  s.values[0][6] = 500;  // GPU_ITER_ACTIVE
  s.values[0][10] = 50;  // GPU_IRQ_ACTIVE
  std::vector<hwpc::expr::value> out(ev->size());
  ASSERT_TRUE(ev->evaluate(s, out));
  EXPECT_DOUBLE_EQ(metric(*ev, out, "MaliGPUActiveCy"), 500.0);
  EXPECT_DOUBLE_EQ(metric(*ev, out, "MaliGPUIRQUtil"), 10.0);
  // The G720 goes back to GPU_ACTIVE (a counter, not a derived formula).
  EXPECT_EQ(gpus::g720.name_of(block_type::front_end, 4), "GPU_ACTIVE");
  bool counter = false;
  for (const auto& n : gpus::g720.streamline) counter |= n.name == "MaliGPUActiveCy";
  EXPECT_TRUE(counter);
}

// Decision (docs/mali.md): a division by zero yields 0 for every kind of
// derived counter, as everywhere in hwpc, so an idle sample gives no inf or NaN.
TEST(MaliDerived, AnIdleSampleGivesFiniteValuesEverywhere) {
  for (const gpu_table* t : gpus::tables) {
    auto ev = evaluator::database(*t, {.l2_slices = 1, .core_mask = 1}, 128);
    ASSERT_TRUE(ev);
    std::vector<hwpc::expr::value> out(ev->size());
    ASSERT_TRUE(ev->evaluate(block_sums{}, out));
    for (std::size_t i = 0; i < out.size(); ++i) {
      EXPECT_TRUE(std::isfinite(out[i].as_double()))
          << t->key << " " << ev->metrics()[i].symbol_name;
      if (ev->metrics()[i].units == "percent") {
        EXPECT_EQ(out[i].as_double(), 0.0) << t->key << " " << ev->metrics()[i].symbol_name;
      }
    }
  }
}

}  // namespace
