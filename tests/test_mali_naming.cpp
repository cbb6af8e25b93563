// Counter column names: hardware (the default, the layout's names) or
// Streamline (the database's MachineNames, as Arm's tools show them), in the
// row schema, the per-instance columns and the Perfetto track names alike.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>

#include "hwpc/mali.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/mali/tracks.hpp"

namespace {

using namespace hwpc;

const mali::gpu_product& gpu_named(const char* name) {
  auto g = mali::find_gpu(name);
  EXPECT_TRUE(g.has_value()) << name;
  return **g;
}

TEST(MaliNaming, HardwareNamesByDefault) {
  const mali::gpu_product& gpu = gpu_named("g78");
  const row_schema s = mali::schema_of(gpu, nullptr, mali::row_options{});
  ASSERT_EQ(s.counters.size(), gpu.table->counters.size());
  for (std::size_t i = 0; i < s.counters.size(); ++i) {
    EXPECT_EQ(s.counters[i].name, gpu.table->counters[i].name);
  }
}

// By hand from Mali-CounterInfo-*.xml: what Streamline calls these counters.
TEST(MaliNaming, StreamlineNamesWorkedByHand) {
  mali::row_options o;
  o.names = mali::counter_naming::streamline;
  o.per_instance = mali::sample_layout{.l2_slices = 1, .core_mask = 0b101};
  struct {
    const char* gpu;
    std::size_t column;  // in table order
    const char* hw;
    const char* streamline;
  } cases[] = {
      {"g72", 0, "GPU_ACTIVE", "MaliGPUActiveCy"},
      {"g78", 0, "GPU_ACTIVE", "MaliGPUActiveCy"},
      {"g715", 0, "GPU_ACTIVE", "MaliGPUActiveRawCy"},  // the erratum (FACTS-mali section 7)
      {"g720", 0, "GPU_ACTIVE", "MaliGPUActiveCy"},
  };
  for (const auto& c : cases) {
    const mali::gpu_product& gpu = gpu_named(c.gpu);
    ASSERT_EQ(gpu.table->counters[c.column].name, c.hw) << c.gpu;
    const row_schema s = mali::schema_of(gpu, nullptr, o);
    EXPECT_EQ(s.counters[c.column].name, c.streamline) << c.gpu;
  }
  // Per-instance columns and Perfetto tracks take the same names.
  const mali::gpu_product& gpu = gpu_named("g715");
  const row_schema s = mali::schema_of(gpu, nullptr, o);
  std::set<std::string> names;
  for (const auto& col : s.counters) names.insert(col.name);
  EXPECT_EQ(names.count("MaliFragThread"), 1u);  // FRAG_SHADER_THREADS
  EXPECT_EQ(names.count("core0.MaliFragThread"), 1u);
  EXPECT_EQ(names.count("core2.MaliFragThread"), 1u);
  EXPECT_EQ(names.count("core0.FRAG_SHADER_THREADS"), 0u);
  const auto tracks = mali::track_layout_of(gpu, s, o);
  ASSERT_EQ(tracks.counter_names.size(), s.counters.size());
  for (std::size_t i = 0; i < s.counters.size(); ++i) {
    // The schema's per-instance names are "<instance>.<track name>".
    const std::string& col = s.counters[i].name;
    EXPECT_EQ(col.substr(col.find('.') == std::string::npos ? 0 : col.find('.') + 1),
              tracks.counter_names[i]);
  }
}

// Every counter of every GPU gets a Streamline name of its own: the columns
// stay distinct, and each is the table's Streamline entry for that counter.
TEST(MaliNaming, EveryGpuHasAStreamlineNamePerCounter) {
  mali::row_options o;
  o.names = mali::counter_naming::streamline;
  for (const mali::gpu_product& gpu : mali::gpus::products) {
    const row_schema s = mali::schema_of(gpu, nullptr, o);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < s.counters.size(); ++i) {
      const auto& c = gpu.table->counters[i];
      const std::string& n = s.counters[i].name;
      EXPECT_TRUE(n.rfind("Mali", 0) == 0) << gpu.name << " " << c.name << " -> " << n;
      bool found = false;
      for (const auto& sl : gpu.table->streamline) {
        if (sl.name == n) {
          found = true;
          EXPECT_EQ(sl.hw_name, c.name);
          EXPECT_TRUE(sl.id == c.id);
        }
      }
      EXPECT_TRUE(found) << n;
      EXPECT_TRUE(seen.insert(n).second) << gpu.name << " " << n << " twice";
    }
  }
}

}  // namespace
