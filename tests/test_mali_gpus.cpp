// The generated GPU tables and index against Arm's database files (every
// hardware layout, both ways; ProductInfo's ids, names and keys), the
// hand-written Mali-G72 table against the generated one, GPU_ID decoding and
// name lookup against FACTS-mali.md section 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/mali/g72_counters.hpp"
#include "hwpc/mali/gpu.hpp"

namespace {

namespace fs = std::filesystem;
using hwpc::mali::block_type;
using hwpc::mali::gpu_table;

const fs::path data_dir = fs::path(HWPC_SHARED_DIR) / "data" / "mali";

std::string attribute(std::string_view line, std::string_view name) {
  const std::string key = " " + std::string(name) + "=\"";
  const auto at = line.find(key);
  if (at == std::string_view::npos) return {};
  const auto from = at + key.size();
  return std::string(line.substr(from, line.find('"', from) - from));
}

// <Tag>text</Tag> on one line, else nothing.
std::optional<std::string> element(std::string_view line, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const auto at = line.find(open);
  if (at == std::string_view::npos) return std::nullopt;
  const auto from = at + open.size();
  return std::string(line.substr(from, line.find('<', from) - from));
}

struct layout_file {
  std::string gpu;
  std::set<std::string> sizes;
  std::map<std::pair<block_type, int>, std::string> counters;
};

layout_file read_layout(const fs::path& file) {
  const std::map<std::string, block_type, std::less<>> types = {
      {"GPU Front-end", block_type::front_end},
      {"Tiler", block_type::tiler},
      {"Memory System", block_type::memory},
      {"Shader Core", block_type::shader_core}};
  layout_file out;
  std::ifstream in(file);
  std::string line;
  std::optional<block_type> block;
  while (std::getline(in, line)) {
    if (line.find("<HardwareLayout") != std::string::npos) {
      out.gpu = attribute(line, "gpu");
    } else if (line.find("<CounterBlock") != std::string::npos) {
      const auto it = types.find(attribute(line, "type"));
      EXPECT_NE(it, types.end()) << line;
      if (it != types.end()) block = it->second;
      out.sizes.insert(attribute(line, "size"));
    } else if (line.find("<Counter ") != std::string::npos && block) {
      out.counters[{*block, std::stoi(attribute(line, "index"))}] = attribute(line, "name");
    }
  }
  return out;
}

const gpu_table* table_for_key(std::string_view key) {
  for (const gpu_table* t : hwpc::mali::gpus::tables) {
    if (t->key == key) return t;
  }
  return nullptr;
}

TEST(MaliGpus, EveryLayoutFileMatchesItsTableBothWays) {
  const fs::path dir = data_dir / "hardwarelayout";
  if (!fs::exists(dir)) GTEST_SKIP() << "../shared is absent: " << dir;
  std::set<std::string_view> seen;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".xml") continue;
    ++files;
    const layout_file f = read_layout(entry.path());
    SCOPED_TRACE(entry.path().filename().string());
    const gpu_table* t = table_for_key(f.gpu);
    ASSERT_NE(t, nullptr) << "no table for " << f.gpu;
    seen.insert(t->key);
    ASSERT_EQ(f.sizes.size(), 1u);
    EXPECT_EQ(*f.sizes.begin(), std::to_string(t->values_per_block));
    ASSERT_FALSE(f.counters.empty());
    for (const auto& [pos, name] : f.counters) {
      EXPECT_EQ(t->name_of(pos.first, static_cast<std::size_t>(pos.second)), name)
          << to_string(pos.first) << " " << pos.second;
      const auto c = t->find(name);
      ASSERT_TRUE(c) << name;
      EXPECT_EQ(c->id.block, pos.first) << name;
      EXPECT_EQ(c->id.index, pos.second) << name;
    }
    for (const auto& c : t->counters) {
      const auto it = f.counters.find({c.id.block, c.id.index});
      ASSERT_NE(it, f.counters.end()) << c.name;
      EXPECT_EQ(it->second, c.name);
    }
    EXPECT_EQ(f.counters.size(), t->counters.size());
  }
  EXPECT_EQ(files, 13u);
  EXPECT_EQ(seen.size(), std::size(hwpc::mali::gpus::tables));
}

TEST(MaliGpus, ProductInfoMatchesTheIndex) {
  const fs::path file = data_dir / "Mali-ProductInfo.xml";
  if (!fs::exists(file)) GTEST_SKIP() << "../shared is absent: " << file;
  std::ifstream in(file);
  std::string line;
  std::vector<std::uint32_t> ids;
  std::vector<std::string> names;
  std::size_t products = 0, product_ids = 0, product_names = 0;
  auto check = [&](const std::string& key) {
    ++products;
    for (const std::uint32_t id : ids) {
      ++product_ids;
      const auto* p = hwpc::mali::find_product(id);
      ASSERT_NE(p, nullptr) << std::hex << id;
      EXPECT_EQ(p->table->key, key) << names.front();
      EXPECT_EQ(p->name, names.front());
    }
    for (const std::string& n : names) {
      ++product_names;
      const auto* p = hwpc::mali::find_gpu_by_name(n);
      ASSERT_NE(p, nullptr) << n;
      EXPECT_EQ(p->table->key, key) << n;
      EXPECT_NE(std::find(ids.begin(), ids.end(), p->product_id), ids.end()) << n;
    }
  };
  std::string key;
  while (std::getline(in, line)) {
    if (line.find("<ProductInfo>") != std::string::npos) {
      ids.clear();
      names.clear();
    } else if (auto id = element(line, "Id")) {
      ids.push_back(static_cast<std::uint32_t>(std::stoul(*id, nullptr, 16)));
    } else if (auto n = element(line, "Name")) {
      names.push_back(*n);
    } else if (auto k = element(line, "DatabaseKey")) {
      key = *k;
    } else if (line.find("</ProductInfo>") != std::string::npos) {
      check(key);
    }
  }
  EXPECT_EQ(products, 24u);
  EXPECT_EQ(product_ids, std::size(hwpc::mali::gpus::products));
  EXPECT_EQ(product_names, 27u);
}

// The Mali-G72 table as it was written by hand before the generator (from
// the G72 layout description), kept here as an independent check: the
// generated table must equal it entry for entry.
// clang-format off
constexpr hwpc::mali::hw_counter hand_written_g72[] = {
    // front_end
    {{block_type::front_end, 6}, "GPU_ACTIVE"},
    {{block_type::front_end, 7}, "IRQ_ACTIVE"},
    {{block_type::front_end, 8}, "JS0_JOBS"},
    {{block_type::front_end, 9}, "JS0_TASKS"},
    {{block_type::front_end, 10}, "JS0_ACTIVE"},
    {{block_type::front_end, 11}, "JS0_WAIT_FLUSH"},
    {{block_type::front_end, 12}, "JS0_WAIT_READ"},
    {{block_type::front_end, 13}, "JS0_WAIT_ISSUE"},
    {{block_type::front_end, 14}, "JS0_WAIT_DEPEND"},
    {{block_type::front_end, 15}, "JS0_WAIT_FINISH"},
    {{block_type::front_end, 16}, "JS1_JOBS"},
    {{block_type::front_end, 17}, "JS1_TASKS"},
    {{block_type::front_end, 18}, "JS1_ACTIVE"},
    {{block_type::front_end, 19}, "JS1_WAIT_FLUSH"},
    {{block_type::front_end, 20}, "JS1_WAIT_READ"},
    {{block_type::front_end, 21}, "JS1_WAIT_ISSUE"},
    {{block_type::front_end, 22}, "JS1_WAIT_DEPEND"},
    {{block_type::front_end, 23}, "JS1_WAIT_FINISH"},
    {{block_type::front_end, 24}, "JS2_JOBS"},
    {{block_type::front_end, 25}, "JS2_TASKS"},
    {{block_type::front_end, 26}, "JS2_ACTIVE"},
    {{block_type::front_end, 27}, "JS2_WAIT_FLUSH"},
    {{block_type::front_end, 28}, "JS2_WAIT_READ"},
    {{block_type::front_end, 29}, "JS2_WAIT_ISSUE"},
    {{block_type::front_end, 30}, "JS2_WAIT_DEPEND"},
    {{block_type::front_end, 31}, "JS2_WAIT_FINISH"},
    {{block_type::front_end, 63}, "CACHE_FLUSH"},
    // tiler
    {{block_type::tiler, 4}, "TILER_ACTIVE"},
    {{block_type::tiler, 6}, "TRIANGLES"},
    {{block_type::tiler, 7}, "LINES"},
    {{block_type::tiler, 8}, "POINTS"},
    {{block_type::tiler, 9}, "FRONT_FACING"},
    {{block_type::tiler, 10}, "BACK_FACING"},
    {{block_type::tiler, 11}, "PRIM_VISIBLE"},
    {{block_type::tiler, 12}, "PRIM_CULLED"},
    {{block_type::tiler, 13}, "PRIM_CLIPPED"},
    {{block_type::tiler, 14}, "PRIM_SAT_CULLED"},
    {{block_type::tiler, 17}, "BUS_READ"},
    {{block_type::tiler, 19}, "BUS_WRITE"},
    {{block_type::tiler, 21}, "IDVS_POS_SHAD_REQ"},
    {{block_type::tiler, 23}, "IDVS_POS_SHAD_STALL"},
    {{block_type::tiler, 24}, "IDVS_POS_FIFO_FULL"},
    {{block_type::tiler, 26}, "VCACHE_HIT"},
    {{block_type::tiler, 27}, "VCACHE_MISS"},
    {{block_type::tiler, 34}, "IDVS_VBU_HIT"},
    {{block_type::tiler, 35}, "IDVS_VBU_MISS"},
    {{block_type::tiler, 37}, "IDVS_VAR_SHAD_REQ"},
    {{block_type::tiler, 38}, "IDVS_VAR_SHAD_STALL"},
    // memory
    {{block_type::memory, 4}, "MMU_REQUESTS"},
    {{block_type::memory, 5}, "MMU_TABLE_READS_L3"},
    {{block_type::memory, 6}, "MMU_TABLE_READS_L2"},
    {{block_type::memory, 7}, "MMU_HIT_L3"},
    {{block_type::memory, 8}, "MMU_HIT_L2"},
    {{block_type::memory, 9}, "MMU_S2_REQUESTS"},
    {{block_type::memory, 10}, "MMU_S2_TABLE_READS_L3"},
    {{block_type::memory, 11}, "MMU_S2_TABLE_READS_L2"},
    {{block_type::memory, 12}, "MMU_S2_HIT_L3"},
    {{block_type::memory, 13}, "MMU_S2_HIT_L2"},
    {{block_type::memory, 16}, "L2_RD_MSG_IN"},
    {{block_type::memory, 17}, "L2_RD_MSG_IN_STALL"},
    {{block_type::memory, 18}, "L2_WR_MSG_IN"},
    {{block_type::memory, 19}, "L2_WR_MSG_IN_STALL"},
    {{block_type::memory, 20}, "L2_SNP_MSG_IN"},
    {{block_type::memory, 21}, "L2_SNP_MSG_IN_STALL"},
    {{block_type::memory, 22}, "L2_RD_MSG_OUT"},
    {{block_type::memory, 23}, "L2_RD_MSG_OUT_STALL"},
    {{block_type::memory, 24}, "L2_WR_MSG_OUT"},
    {{block_type::memory, 25}, "L2_ANY_LOOKUP"},
    {{block_type::memory, 26}, "L2_READ_LOOKUP"},
    {{block_type::memory, 27}, "L2_WRITE_LOOKUP"},
    {{block_type::memory, 28}, "L2_EXT_SNOOP_LOOKUP"},
    {{block_type::memory, 29}, "L2_EXT_READ"},
    {{block_type::memory, 30}, "L2_EXT_READ_NOSNP"},
    {{block_type::memory, 31}, "L2_EXT_READ_UNIQUE"},
    {{block_type::memory, 32}, "L2_EXT_READ_BEATS"},
    {{block_type::memory, 33}, "L2_EXT_AR_STALL"},
    {{block_type::memory, 34}, "L2_EXT_AR_CNT_Q1"},
    {{block_type::memory, 35}, "L2_EXT_AR_CNT_Q2"},
    {{block_type::memory, 36}, "L2_EXT_AR_CNT_Q3"},
    {{block_type::memory, 37}, "L2_EXT_RRESP_0_127"},
    {{block_type::memory, 38}, "L2_EXT_RRESP_128_191"},
    {{block_type::memory, 39}, "L2_EXT_RRESP_192_255"},
    {{block_type::memory, 40}, "L2_EXT_RRESP_256_319"},
    {{block_type::memory, 41}, "L2_EXT_RRESP_320_383"},
    {{block_type::memory, 42}, "L2_EXT_WRITE"},
    {{block_type::memory, 43}, "L2_EXT_WRITE_NOSNP_FULL"},
    {{block_type::memory, 44}, "L2_EXT_WRITE_NOSNP_PTL"},
    {{block_type::memory, 45}, "L2_EXT_WRITE_SNP_FULL"},
    {{block_type::memory, 46}, "L2_EXT_WRITE_SNP_PTL"},
    {{block_type::memory, 47}, "L2_EXT_WRITE_BEATS"},
    {{block_type::memory, 48}, "L2_EXT_W_STALL"},
    {{block_type::memory, 49}, "L2_EXT_AW_CNT_Q1"},
    {{block_type::memory, 50}, "L2_EXT_AW_CNT_Q2"},
    {{block_type::memory, 51}, "L2_EXT_AW_CNT_Q3"},
    {{block_type::memory, 52}, "L2_EXT_SNOOP"},
    {{block_type::memory, 53}, "L2_EXT_SNOOP_STALL"},
    // shader_core
    {{block_type::shader_core, 4}, "FRAG_ACTIVE"},
    {{block_type::shader_core, 5}, "FRAG_PRIMITIVES"},
    {{block_type::shader_core, 6}, "FRAG_PRIM_RAST"},
    {{block_type::shader_core, 7}, "FRAG_FPK_ACTIVE"},
    {{block_type::shader_core, 9}, "FRAG_WARPS"},
    {{block_type::shader_core, 10}, "FRAG_PARTIAL_WARPS"},
    {{block_type::shader_core, 11}, "FRAG_QUADS_RAST"},
    {{block_type::shader_core, 12}, "FRAG_QUADS_EZS_TEST"},
    {{block_type::shader_core, 13}, "FRAG_QUADS_EZS_UPDATE"},
    {{block_type::shader_core, 14}, "FRAG_QUADS_EZS_KILL"},
    {{block_type::shader_core, 15}, "FRAG_LZS_TEST"},
    {{block_type::shader_core, 16}, "FRAG_LZS_KILL"},
    {{block_type::shader_core, 18}, "FRAG_PTILES"},
    {{block_type::shader_core, 19}, "FRAG_TRANS_ELIM"},
    {{block_type::shader_core, 20}, "QUAD_FPK_KILLER"},
    {{block_type::shader_core, 22}, "COMPUTE_ACTIVE"},
    {{block_type::shader_core, 23}, "COMPUTE_TASKS"},
    {{block_type::shader_core, 24}, "COMPUTE_WARPS"},
    {{block_type::shader_core, 26}, "EXEC_CORE_ACTIVE"},
    {{block_type::shader_core, 28}, "EXEC_INSTR_COUNT"},
    {{block_type::shader_core, 29}, "EXEC_INSTR_DIVERGED"},
    {{block_type::shader_core, 30}, "EXEC_INSTR_STARVING"},
    {{block_type::shader_core, 35}, "TEX_INSTR"},
    {{block_type::shader_core, 36}, "TEX_INSTR_MIPMAP"},
    {{block_type::shader_core, 37}, "TEX_INSTR_COMPRESSED"},
    {{block_type::shader_core, 38}, "TEX_INSTR_3D"},
    {{block_type::shader_core, 39}, "TEX_INSTR_TRILINEAR"},
    {{block_type::shader_core, 40}, "TEX_COORD_ISSUE"},
    {{block_type::shader_core, 41}, "TEX_COORD_STALL"},
    {{block_type::shader_core, 42}, "TEX_STARVE_CACHE"},
    {{block_type::shader_core, 43}, "TEX_STARVE_FILTER"},
    {{block_type::shader_core, 44}, "LS_MEM_READ_FULL"},
    {{block_type::shader_core, 45}, "LS_MEM_READ_SHORT"},
    {{block_type::shader_core, 46}, "LS_MEM_WRITE_FULL"},
    {{block_type::shader_core, 47}, "LS_MEM_WRITE_SHORT"},
    {{block_type::shader_core, 48}, "LS_MEM_ATOMIC"},
    {{block_type::shader_core, 49}, "VARY_INSTR"},
    {{block_type::shader_core, 50}, "VARY_SLOT_32"},
    {{block_type::shader_core, 51}, "VARY_SLOT_16"},
    {{block_type::shader_core, 52}, "ATTR_INSTR"},
    {{block_type::shader_core, 54}, "BEATS_RD_FTC"},
    {{block_type::shader_core, 55}, "BEATS_RD_FTC_EXT"},
    {{block_type::shader_core, 56}, "BEATS_RD_LSC"},
    {{block_type::shader_core, 57}, "BEATS_RD_LSC_EXT"},
    {{block_type::shader_core, 58}, "BEATS_RD_TEX"},
    {{block_type::shader_core, 59}, "BEATS_RD_TEX_EXT"},
    {{block_type::shader_core, 60}, "BEATS_RD_OTHER"},
    {{block_type::shader_core, 61}, "BEATS_WR_LSC"},
    {{block_type::shader_core, 62}, "BEATS_WR_TIB"},
    {{block_type::shader_core, 63}, "BEATS_WR_OTHER"},
};
// clang-format on

TEST(MaliGpus, HandWrittenG72TableEqualsTheGenerated) {
  const gpu_table& g = hwpc::mali::gpus::g72;
  ASSERT_EQ(std::size(hand_written_g72), g.counters.size());
  for (std::size_t i = 0; i < g.counters.size(); ++i) {
    EXPECT_EQ(hand_written_g72[i].id, g.counters[i].id) << i;
    EXPECT_EQ(hand_written_g72[i].name, g.counters[i].name) << i;
  }
  EXPECT_EQ(g.values_per_block, 64);
  // The old G72 names forward to the generated table.
  EXPECT_EQ(hwpc::mali::g72_counters.data(), g.counters.data());
  EXPECT_EQ(hwpc::mali::find_g72_counter("GPU_ACTIVE")->id, g.find("GPU_ACTIVE")->id);
  EXPECT_EQ(hwpc::mali::g72_counter_name(block_type::shader_core, 12), "FRAG_QUADS_EZS_TEST");
}

// FACTS-mali.md section 1, typed in by hand: (arch_major, product_major) ->
// product name and database key. Checked through both GPU_ID forms.
struct fact_row {
  unsigned arch, product;
  std::string_view name, key;
};
constexpr fact_row facts[] = {
    {6, 0, "Mali-G71", "Mali-G71"},      {6, 1, "Mali-G72", "Mali-G72"},
    {7, 0, "Mali-G51", "Mali-G51"},      {7, 1, "Mali-G76", "Mali-G76"},
    {7, 2, "Mali-G52", "Mali-G52"},      {7, 3, "Mali-G31", "Mali-G31"},
    {9, 0, "Mali-G77", "Mali-G77"},      {9, 1, "Mali-G57", "Mali-G77"},
    {9, 3, "Mali-G57", "Mali-G77"},      {9, 2, "Mali-G78", "Mali-G78"},
    {9, 4, "Mali-G68", "Mali-G78"},      {9, 5, "Mali-G78AE", "Mali-G78"},
    {10, 2, "Mali-G710", "Mali-G710"},   {10, 3, "Mali-G510", "Mali-G710"},
    {10, 4, "Mali-G310", "Mali-G710"},   {10, 7, "Mali-G610", "Mali-G710"},
    {11, 2, "Mali-G715", "Mali-G715"},   {11, 3, "Mali-G615", "Mali-G715"},
    {12, 0, "Mali-G720", "Mali-G720"},   {12, 1, "Mali-G620", "Mali-G720"},
    {13, 0, "Mali-G725", "Mali-G725"},   {13, 1, "Mali-G625", "Mali-G725"},
    {14, 0, "Mali G1-Ultra", "Mali G1"}, {14, 1, "Mali G1-Premium", "Mali G1"},
    {14, 3, "Mali G1-Pro", "Mali G1"},
};

TEST(MaliGpus, GpuIdBothFormsGiveTheFactsProduct) {
  for (const fact_row& f : facts) {
    SCOPED_TRACE(std::string(f.name));
    // 64-bit form: arch_major in 63:56, product_major in 39:32, bits 31:28 = 0xf
    // (other bits: version fields, arbitrary).
    const std::uint64_t id64 = (std::uint64_t{f.arch} << 56) | (std::uint64_t{f.product} << 32) |
                               0xf0000000u | 0x00ab0123u;
    auto p = hwpc::mali::find_gpu_by_id(id64);
    ASSERT_TRUE(p) << p.error_value().describe();
    EXPECT_EQ((*p)->name, f.name);
    EXPECT_EQ((*p)->table->key, f.key);
    EXPECT_EQ((*p)->product_id, (f.arch << 12) | f.product);
    if (f.arch < 15) {
      // 32-bit form: arch_major 31:28, product_major 19:16; low half: revision.
      const std::uint64_t id32 =
          (std::uint64_t{f.arch} << 28) | (std::uint64_t{f.product} << 16) | 0x0010u;
      p = hwpc::mali::find_gpu_by_id(id32);
      ASSERT_TRUE(p) << p.error_value().describe();
      EXPECT_EQ((*p)->name, f.name);
    }
    // By text, the GPU_ID in hex.
    auto q = hwpc::mali::find_gpu("0x" + [&] {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(id64));
      return std::string(buf);
    }());
    ASSERT_TRUE(q);
    EXPECT_EQ((*q)->name, f.name);
  }
}

TEST(MaliGpus, MidgardAndUnknownIdsAreRefused) {
  for (const std::uint64_t midgard : {0x69560000ull, 0x07500000ull, 0x08800000ull, 0x0ull}) {
    auto p = hwpc::mali::find_gpu_by_id(midgard);
    ASSERT_FALSE(p) << std::hex << midgard;
    EXPECT_EQ(p.error_value().code, hwpc::errc::unknown_format);
    EXPECT_NE(p.error_value().message.find("Midgard"), std::string::npos);
  }
  auto p = hwpc::mali::find_gpu_by_id(0x60050000);  // arch 6, product 5: none
  ASSERT_FALSE(p);
  EXPECT_NE(p.error_value().message.find("product id 0x6005"), std::string::npos)
      << p.error_value().message;
  p = hwpc::mali::find_gpu_by_id(0x1'6001'0000ull);  // bits above 31, not the 64-bit form
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error_value().code, hwpc::errc::out_of_range);
}

TEST(MaliGpus, NamesAnyCaseWithOrWithoutBrand) {
  struct {
    std::string_view text;
    std::uint32_t product_id;
  } cases[] = {{"Mali-G78", 0x9002},
               {"mali-g78", 0x9002},
               {"G78", 0x9002},
               {"g78ae", 0x9005},
               {"Immortalis-G925", 0xd000},
               {"G925", 0xd000},
               {"immortalis_g715", 0xb002},
               {"Mali-G57", 0x9001},
               {"mali-g1-pro", 0xe003},
               {"Mali G1", 0xe000},
               {"g1", 0xe000},
               {"G310", 0xa004}};
  for (const auto& c : cases) {
    auto p = hwpc::mali::find_gpu(c.text);
    ASSERT_TRUE(p) << c.text;
    EXPECT_EQ((*p)->product_id, c.product_id) << c.text;
  }
  for (std::string_view bad : {"", "G79", "Mali-", "Adreno-530", "g7"}) {
    auto p = hwpc::mali::find_gpu(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error_value().code, hwpc::errc::unknown_name);
  }
  // The message quotes the input bounded and without control bytes.
  auto p = hwpc::mali::find_gpu(std::string(1000, 'x') + "\x1b[31m");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error_value().message.find('\x1b'), std::string::npos);
  EXPECT_LT(p.error_value().message.size(), 1000u);
}

// FACTS-mali.md section 7: GPU_ACTIVE is front-end 6 on every Job-Manager GPU
// and 4 on every CSF GPU; CSF GPUs have MCU_ACTIVE at 5.
TEST(MaliGpus, GpuActiveMovesWithTheFrontEnd) {
  for (const auto& p : hwpc::mali::gpus::products) {
    const bool csf = p.product_id >= 0xa000;
    const auto c = p.table->find("GPU_ACTIVE");
    ASSERT_TRUE(c) << p.name;
    EXPECT_EQ(c->id, (hwpc::mali::counter_id{block_type::front_end, std::uint8_t(csf ? 4 : 6)}))
        << p.name;
    if (csf) {
      EXPECT_EQ(p.table->name_of(block_type::front_end, 5), "MCU_ACTIVE") << p.name;
    }
  }
  // FACTS-mali.md section 2: block sizes.
  for (const gpu_table* t : hwpc::mali::gpus::tables) {
    const bool wide = t->key == "Mali-G715" || t->key == "Mali-G720" || t->key == "Mali-G725" ||
                      t->key == "Mali G1";
    EXPECT_EQ(t->values_per_block, wide ? 128 : 64) << t->key;
  }
}

// Issue 12's observation: positions that hold different counters on the G72
// and on later GPUs (the reason a G78 dump must not be read with G72 names).
TEST(MaliGpus, G72AndG78DifferAtSomePositions) {
  std::size_t differ = 0;
  for (const auto& c : hwpc::mali::gpus::g72.counters) {
    if (hwpc::mali::gpus::g78.name_of(c.id.block, c.id.index) != c.name) ++differ;
  }
  EXPECT_GT(differ, 10u);
}

}  // namespace

namespace {

// GPU_IDs the emulator writes decode back to their product, for every product.
TEST(MaliGpus, GpuIdOfProductRoundTrips) {
  for (const auto& p : hwpc::mali::gpus::products) {
    auto q = hwpc::mali::find_gpu_by_id(hwpc::mali::gpu_id_of_product(p.product_id));
    ASSERT_TRUE(q) << p.name;
    EXPECT_EQ((*q)->product_id, p.product_id);
    EXPECT_EQ(hwpc::mali::is_csf_product(p.product_id), p.product_id >= 0xa000) << p.name;
  }
  static_assert(hwpc::mali::gpu_id_of_product(0x6001) == 0x60010000u);
  static_assert(hwpc::mali::gpu_id_of_product(0xf001) == 0x0f000001f0000000ull);
}

}  // namespace

namespace {

// is_well_formed, which every generated table static_asserts, refuses the
// mistakes a table could carry.
using hwpc::mali::hw_counter;
using hwpc::mali::streamline_counter;
constexpr hw_counter two[] = {{{block_type::front_end, 6}, "GPU_ACTIVE"},
                              {{block_type::tiler, 4}, "TILER_ACTIVE"}};
constexpr hw_counter unsorted[] = {{{block_type::tiler, 4}, "TILER_ACTIVE"},
                                   {{block_type::front_end, 6}, "GPU_ACTIVE"}};
constexpr hw_counter header[] = {{{block_type::front_end, 3}, "PRFCNT_EN"}};
constexpr streamline_counter good_name[] = {
    {"MaliTilerActiveCy", "TILER_ACTIVE", {block_type::tiler, 4}, "", ""}};
constexpr streamline_counter wrong_name[] = {
    {"MaliTilerActiveCy", "GPU_ACTIVE", {block_type::tiler, 4}, "", ""}};
constexpr streamline_counter no_counter[] = {
    {"MaliTilerActiveCy", "TILER_ACTIVE", {block_type::tiler, 5}, "", ""}};
static_assert(hwpc::mali::is_well_formed({"t", "a", 64, two, good_name}));
static_assert(!hwpc::mali::is_well_formed({"t", "a", 64, two, wrong_name}));
static_assert(!hwpc::mali::is_well_formed({"t", "a", 64, two, no_counter}));
static_assert(!hwpc::mali::is_well_formed({"t", "a", 64, unsorted}));
static_assert(!hwpc::mali::is_well_formed({"t", "a", 64, header}));
static_assert(!hwpc::mali::is_well_formed({"t", "a", 96, two}));

}  // namespace
