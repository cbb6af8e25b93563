// hwpc mali: hand-built captures through the tool; one CSV row per sample for
// both readers, --summary, --list-gpus, exit status 2 with the byte offset for
// malformed input, 1 for usage errors (no GPU given, unknown GPU).
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mali_test_util.hpp"
#include "tool_runner.hpp"

namespace {

using hwpc::testing::run_tool;

struct csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string at(std::size_t row, const std::string& column) const {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == column) return rows.at(row).at(i);
    }
    ADD_FAILURE() << "no column " << column;
    return {};
  }
};

csv parse_csv(const std::string& text) {
  csv out;
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    if (first) {
      out.header = cells;
      first = false;
    } else {
      EXPECT_EQ(cells.size(), out.header.size()) << line;
      out.rows.push_back(cells);
    }
  }
  return out;
}

class MaliTool : public hwpc::testing::tool_test {
 protected:
  std::string write(const std::vector<std::byte>& bytes, std::size_t size,
                    const std::string& name = "capture.bin") {
    const auto path = dir_ / name;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(size));
    return path.string();
  }
};

// Two G72 vinstr samples, cores 0 and 2 (bit 1 a gap), one L2 slice.
std::vector<std::byte> g72_capture() {
  std::vector<std::byte> all;
  for (std::uint32_t k = 0; k < 2; ++k) {
    mali_test::sample_bytes b({.l2_slices = 1, .core_mask = 0b101});
    b.front_end(6, 1000 * (k + 1));  // GPU_ACTIVE
    b.core(0, 4, 300);               // FRAG_ACTIVE
    b.core(1, 4, 7777);              // the gap
    b.core(2, 4, 500);
    b.memory(0, 32, 3);  // L2_EXT_READ_BEATS: 3 beats of 16 bytes
    b.core(2, 28, 42);   // G72 EXEC_INSTR_COUNT; G78 EXEC_INSTR_CVT
    all.insert(all.end(), b.bytes.begin(), b.bytes.end());
  }
  return all;
}

TEST_F(MaliTool, VinstrRowsPerSampleWithTheG72Guide) {
  const auto bytes = g72_capture();
  const std::string file = write(bytes, bytes.size());
  auto r = run_tool(
      "mali --gpu mali-g72 --l2-slices 1 --core-mask 0x5 --bus-width-bits 128 " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const csv t = parse_csv(r.out);
  ASSERT_EQ(t.rows.size(), 2u) << r.out;
  EXPECT_EQ(t.header.front(), "report");
  EXPECT_EQ(t.header.at(2), "timestamp");
  EXPECT_EQ(t.at(1, "report"), "1");
  EXPECT_EQ(t.at(0, "offset"), "0");
  EXPECT_EQ(t.at(1, "offset"), "1536");  // 6 blocks: front-end, tiler, memory, cores 0-2
  EXPECT_EQ(t.at(0, "timestamp"), "0") << "raw vinstr samples carry no time";
  EXPECT_EQ(t.at(0, "reason"), "");
  EXPECT_EQ(t.at(0, "ctx_id"), "");
  EXPECT_EQ(t.at(0, "GPU_ACTIVE"), "1000");
  EXPECT_EQ(t.at(1, "GPU_ACTIVE"), "2000");
  EXPECT_EQ(t.at(0, "FRAG_ACTIVE"), "800");
  // FRAG_ACTIVE 800 over 2 cores = 400 per core, of GPU_ACTIVE 1000 -> 40%; of 2000 -> 20%.
  EXPECT_EQ(t.at(0, "FragmentUtilization"), "40");
  EXPECT_EQ(t.at(1, "FragmentUtilization"), "20");
  EXPECT_EQ(t.at(0, "OutputExternalReadBytes"), "48");
  EXPECT_EQ(t.at(1, "GPUActiveCycles"), "2000");

  // By GPU_ID (32-bit form, arch 6 product 1), counters only, and totals.
  r = run_tool("mali --gpu 0x60010011 --l2-slices 1 --core-mask 5 --summary " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const csv s = parse_csv(r.out);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.at(0, "intervals"), "2");
  EXPECT_EQ(s.at(0, "reports"), "2");
  EXPECT_EQ(s.at(0, "GPU_ACTIVE"), "3000");
  EXPECT_EQ(s.at(0, "FRAG_ACTIVE"), "1600");
  EXPECT_EQ(r.out.find("FragmentUtilization"), std::string::npos);
}

TEST_F(MaliTool, TheSameBytesAsAnotherGpuGetThatGpusNames) {
  const auto bytes = g72_capture();
  const std::string file = write(bytes, bytes.size());
  auto r = run_tool("mali --gpu G78 --l2-slices 1 --core-mask 0x5 " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const csv t = parse_csv(r.out);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.at(0, "GPU_ACTIVE"), "1000");  // front-end 6 on the G78 too
  EXPECT_EQ(t.at(0, "EXEC_INSTR_CVT"), "42");

  // Arm's database's derived counters for the G78, with its constants.
  r = run_tool("mali --gpu G78 --l2-slices 1 --core-mask 0x5 --bus-width-bits 128 " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const csv d = parse_csv(r.out);
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.at(1, "MaliConfigExtBusBeatSize"), "16");
  EXPECT_EQ(d.at(1, "MaliConfigCoreCount"), "2");
  EXPECT_EQ(d.at(1, "MaliGPUIRQUtil"), "0");
  EXPECT_EQ(r.out.find("EXEC_INSTR_COUNT"), std::string::npos) << "not a G78 counter name";
}

TEST_F(MaliTool, KinstrRowsWithTheirMetadata) {
  mali_test::kinstr_buffer b(128);
  for (std::uint64_t k = 0; k < 2; ++k) {
    mali_test::kinstr_sample_spec s;
    s.ts_start = 1000 * k;
    s.ts_end = 1000 * k + 900;
    s.seq = 7 + k;
    s.flags = k == 1 ? 0x40000000u : 0u;  // error flag on the second
    std::vector<std::uint64_t> fe(128);
    fe[4] = 5'000'000'000ull + k;  // G720 GPU_ACTIVE, past 32 bits
    s.blocks = {{0, 0, 0, 0x15, fe}, {3, 0, 0, 0x15, {}}, {3, 1, 0, 0x0a, {}}};  // core 1 off
    b.add(s);
  }
  const std::string file = write(b.bytes, b.bytes.size());
  auto r = run_tool(
      "mali --gpu Immortalis-G720 --reader kinstr --l2-slices 1 --core-mask 3 " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const csv t = parse_csv(r.out);
  ASSERT_EQ(t.rows.size(), 2u) << r.out;
  EXPECT_EQ(t.at(1, "offset"), std::to_string(b.sample_offsets[1]));
  EXPECT_EQ(t.at(1, "timestamp"), "1900");
  EXPECT_EQ(t.at(0, "reason"), "");
  EXPECT_EQ(t.at(1, "reason"), "error");
  EXPECT_EQ(t.at(1, "GPU_ACTIVE"), "5000000001");

  // Cut inside the second sample's block list: the first row, then status 2.
  const std::string cut = write(b.bytes, b.sample_offsets[1] + 100, "cut.bin");
  r = run_tool("mali --gpu g720 --reader kinstr --l2-slices 1 --core-mask 3 " + cut);
  EXPECT_EQ(r.status, 2) << r.out;
  // The second sample's front-end BLOCK item: its values lie past the cut.
  EXPECT_NE(r.out.find("truncated at byte offset " + std::to_string(b.block_item_offsets[3])),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n0," + std::to_string(b.sample_offsets[0]) + ",900,"), std::string::npos)
      << r.out;
}

// --output json / chrome-json and --summary in JSON: the shared writers' shapes;
// the file name in the timeline's title is escaped.
TEST_F(MaliTool, JsonTimelineAndSummaryOutputs) {
  const auto bytes = g72_capture();
  const std::string file = write(bytes, bytes.size(), "we\"ird.bin");
  const std::string opts = "mali --gpu g72 --l2-slices 1 --core-mask 5 --bus-width-bits 128 '";
  auto r = run_tool(opts + file + "' --output json", true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("[\n  {\"report\": 0, \"offset\": 0, \"timestamp\": 0, ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\"GPU_ACTIVE\": 2000, "), std::string::npos);
  EXPECT_NE(r.out.find("\"FragmentUtilization\": 20"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - 4), "}\n]\n");
  EXPECT_EQ(r.out.find("accounting"), std::string::npos) << "nothing was lost or skipped";

  r = run_tool(opts + file + "' --output chrome-json", true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("we\\\"ird.bin"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"name\": \"GPU_ACTIVE\", \"ph\": \"C\", \"pid\": 1, \"ts\": 0.000, "
                       "\"args\": {\"value\": 1000}}"),
            std::string::npos)
      << r.out;

  r = run_tool(opts + file + "' --summary --output json", true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("{\"intervals\": 2, \"elapsed_ticks\": 0, \"GPU_ACTIVE\": 3000, ", 0), 0u)
      << r.out;
  // Derived counters of the totals: FRAG_ACTIVE 1600 over 2 cores of GPU_ACTIVE 3000.
  EXPECT_NE(r.out.find("\"FragmentUtilization\": 26.6666"), std::string::npos) << r.out;
  EXPECT_EQ(run_tool(opts + file + "' --output xml").status, 1);
}

TEST_F(MaliTool, MalformedInputExitsTwoWithTheOffset) {
  mali_test::sample_bytes b({.l2_slices = 1, .core_mask = 0b101});
  const std::string file = write(b.bytes, 4 * 256);  // the core 2 block is missing
  auto r = run_tool("mali --gpu g72 --l2-slices 1 --core-mask 0x5 " + file);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("truncated at byte offset 1024"), std::string::npos) << r.out;
  const std::string odd = write(b.bytes, 1000, "odd.bin");
  r = run_tool("mali --gpu g72 --l2-slices 1 --core-mask 0x5 " + odd);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("misaligned at byte offset 768"), std::string::npos) << r.out;
  r = run_tool("mali --gpu g72 --l2-slices 1 --core-mask 0x5 " + (dir_ / "absent.bin").string());
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST_F(MaliTool, ListGpus) {
  auto r = run_tool("mali --list-gpus", true);
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("0x9002,Mali-G78,,Valhall,Mali-G78,64,vinstr kinstr\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0xd000,Mali-G725,Immortalis-G925,5th Generation,Mali-G725,128,kinstr\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0xa004,Mali-G310,,Valhall,Mali-G710,64,"), std::string::npos);
}

// --names streamline: the same rows under Streamline's names; the default and
// --names hardware keep the hardware names.
TEST_F(MaliTool, NamesHardwareOrStreamline) {
  const auto bytes = g72_capture();
  const std::string file = write(bytes, bytes.size());
  const std::string opts = "mali --gpu g72 --l2-slices 1 --core-mask 0x5 --per-instance ";
  auto r = run_tool(opts + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const csv plain = parse_csv(r.out);
  r = run_tool(opts + "--names hardware " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(parse_csv(r.out).header, plain.header);
  r = run_tool(opts + "--names streamline " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const csv sl = parse_csv(r.out);
  ASSERT_EQ(sl.header.size(), plain.header.size());
  EXPECT_EQ(plain.at(1, "GPU_ACTIVE"), "2000");
  EXPECT_EQ(sl.at(1, "MaliGPUActiveCy"), "2000");
  EXPECT_EQ(sl.at(1, "MaliFragActiveCy"), "800");        // FRAG_ACTIVE, cores 0 and 2
  EXPECT_EQ(sl.at(1, "core2.MaliFragActiveCy"), "500");  // per instance
  EXPECT_EQ(sl.at(1, "MaliExtBusRdBt"), "3");            // L2_EXT_READ_BEATS
  EXPECT_EQ(sl.rows, plain.rows);
  EXPECT_EQ(run_tool(opts + "--names machine " + file).status, 1);
}

TEST_F(MaliTool, UsageErrorsExitOne) {
  EXPECT_EQ(run_tool("mali --help").status, 0);
  mali_test::sample_bytes b({.l2_slices = 1, .core_mask = 1});
  const std::string raw = write(b.bytes, b.bytes.size());
  auto r = run_tool("mali --l2-slices 1 --core-mask 1 " + raw);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--gpu is required"), std::string::npos) << r.out;
  r = run_tool("mali --gpu G79 --l2-slices 1 --core-mask 1 " + raw);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("no Mali GPU is called 'G79'"), std::string::npos) << r.out;
  EXPECT_EQ(run_tool("mali --gpu 0x07500000 --l2-slices 1 --core-mask 1 " + raw).status, 1);
  EXPECT_EQ(run_tool("mali --gpu g72 --core-mask 1 " + raw).status, 1);
  EXPECT_EQ(run_tool("mali --gpu g72 --l2-slices one --core-mask 1 " + raw).status, 1);
  EXPECT_EQ(run_tool("mali --gpu g72 --l2-slices 1 --core-mask 0 " + raw).status, 1);
  EXPECT_EQ(
      run_tool("mali --gpu g72 --l2-slices 1 --core-mask 1 --bus-width-bits 12 " + raw).status, 1);
  EXPECT_EQ(run_tool("mali --gpu g78 --l2-slices 1 --core-mask 1 --bus-width-bits 128 "
                     "--derived guide " +
                     raw)
                .status,
            1)
      << "the guide's derived counters are the G72's";
  EXPECT_EQ(
      run_tool("mali --gpu g72 --l2-slices 1 --core-mask 1 --bus-width-bits 128 --derived x " + raw)
          .status,
      1);
  EXPECT_EQ(run_tool("mali --gpu g72 --l2-slices 1 --core-mask 1 --core-index x " + raw).status, 1);
  EXPECT_EQ(run_tool("mali --gpu g720 --l2-slices 1 --core-mask 1 " + raw).status, 1)
      << "vinstr has no 128-value blocks";
  EXPECT_EQ(run_tool("mali --gpu g72 --reader perf --l2-slices 1 --core-mask 1 " + raw).status, 1);
  EXPECT_EQ(run_tool("mali --gpu g72 --l2-slices 1 --core-mask 1").status, 1);
}

}  // namespace

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// hwpc mali emulate, then hwpc mali on its file: every counter column of every
// row equals the truth file's, for both readers and GPUs of each block size.
TEST_F(MaliTool, EmulatedCapturesDecodeToTheirTruth) {
  struct {
    const char* gpu;
    const char* reader;
  } cases[] = {{"mali-g72", "vinstr"}, {"G57", "vinstr"},         {"g710", "kinstr"},
               {"g720", "kinstr"},     {"Mali G1-Pro", "kinstr"}, {"immortalis-g925", "kinstr"}};
  for (const auto& c : cases) {
    const auto cap = (dir_ / "emu.bin").string(), truth = (dir_ / "truth.csv").string();
    auto r = run_tool(std::string("mali emulate --gpu '") + c.gpu + "' --reader " + c.reader +
                      " --l2-slices 2 --core-mask 0x2d --samples 4 --seed 7 --out " + cap +
                      " --truth " + truth);
    ASSERT_EQ(r.status, 0) << c.gpu << ": " << r.out;
    r = run_tool("mali " + cap, true);
    ASSERT_EQ(r.status, 0) << c.gpu << ": " << r.out;
    const csv got = parse_csv(r.out), want = parse_csv(read_text(truth));
    ASSERT_EQ(got.rows.size(), 4u) << c.gpu;
    ASSERT_EQ(want.rows.size(), 4u) << c.gpu;
    std::size_t compared = 0;
    for (std::size_t col = 2; col < want.header.size(); ++col) {
      for (std::size_t k = 0; k < 4; ++k) {
        ASSERT_EQ(got.at(k, want.header[col]), want.rows[k][col])
            << c.gpu << " sample " << k << " " << want.header[col];
        ++compared;
      }
      EXPECT_EQ(got.at(3, "timestamp"), want.rows[3][1]);
    }
    EXPECT_GT(compared, 4u * 140u) << c.gpu;
  }
  EXPECT_EQ(run_tool("mali emulate --gpu g720 --out x.bin").status, 1) << "vinstr, 128 values";
  EXPECT_EQ(run_tool("mali emulate --out x.bin").status, 1);
  EXPECT_EQ(run_tool("mali emulate --gpu g72").status, 1);
  EXPECT_EQ(run_tool("mali emulate --gpu g72 --samples 0 --out x.bin").status, 1);
}

}  // namespace
