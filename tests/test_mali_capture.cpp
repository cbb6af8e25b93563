// The hwpc Mali capture file: the 64-byte header packed by the test byte by
// byte (docs/mali.md), its errors at their offsets, vinstr records (32-byte
// kernel metadata + sample) and a kinstr_prfcnt buffer behind it, and the
// tool taking GPU, reader and configuration from the header.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/capture_input.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/vinstr.hpp"
#include "mali_test_util.hpp"
#include "tool_runner.hpp"

namespace {

using hwpc::errc;
using hwpc::mali::capture_header;
using hwpc::mali::sample_layout;
using mali_test::put_le;
namespace gpus = hwpc::mali::gpus;

std::vector<std::byte> header(std::uint16_t reader, std::uint32_t slices, std::uint64_t gpu_id,
                              std::uint64_t mask) {
  std::vector<std::byte> h(64);
  const char magic[] = "HWPCMALI";
  for (std::size_t i = 0; i < 8; ++i) h[i] = std::byte(magic[i]);
  put_le(h, 8, 1, 2);
  put_le(h, 10, reader, 2);
  put_le(h, 12, slices, 4);
  put_le(h, 16, gpu_id, 8);
  put_le(h, 24, mask, 8);
  return h;
}

constexpr std::uint64_t g76_gpu_id = 0x7001'0000;  // arch 7, product 1 (32-bit form)
constexpr sample_layout g76_layout{.l2_slices = 2, .core_mask = 0b110};

// Three vinstr records on a Mali-G76: metadata then sample.
std::vector<std::byte> g76_vinstr_file() {
  auto file = header(1, 2, g76_gpu_id, 0b110);
  for (std::uint64_t k = 0; k < 3; ++k) {
    std::vector<std::byte> meta;
    put_le(meta, 0, 1'000'000 * (k + 1), 8);  // timestamp
    put_le(meta, 8, 1, 4);                    // event: periodic
    put_le(meta, 12, static_cast<std::uint32_t>(k), 4);
    put_le(meta, 16, 500 + k, 8);
    put_le(meta, 24, 400 + k, 8);
    mali_test::sample_bytes b(g76_layout);
    b.front_end(6, static_cast<std::uint32_t>(100 * (k + 1)));  // GPU_ACTIVE
    b.core(1, 4, 3);
    b.core(2, 4, 4);
    file.insert(file.end(), meta.begin(), meta.end());
    file.insert(file.end(), b.bytes.begin(), b.bytes.end());
  }
  return file;
}

TEST(MaliCapture, HeaderFieldsAndEncode) {
  const auto bytes = header(2, 3, 0xa002'0000ull << 32 | 0xf000'0000u, 0xff);
  ASSERT_TRUE(hwpc::mali::is_capture_file(bytes));
  auto h = capture_header::parse(bytes);
  ASSERT_TRUE(h) << h.error_value().describe();
  EXPECT_EQ(h->reader, hwpc::mali::reader_kind::kinstr_prfcnt);
  EXPECT_EQ(h->layout.l2_slices, 3u);
  EXPECT_EQ(h->layout.core_mask, 0xffu);
  EXPECT_EQ(h->gpu_id, 0xa002'0000'f000'0000ull);
  const auto enc = h->encode();
  EXPECT_TRUE(std::equal(enc.begin(), enc.end(), bytes.begin()));
}

TEST(MaliCapture, HeaderErrorsAtTheirOffsets) {
  auto good = header(1, 1, g76_gpu_id, 1);
  struct {
    std::size_t at;
    std::uint64_t value;
    std::size_t n;
    errc code;
    std::size_t offset;
  } cases[] = {{8, 2, 2, errc::unknown_format, 8}, {10, 3, 2, errc::unknown_format, 10},
               {12, 0, 4, errc::inconsistent, 12}, {12, 65, 4, errc::out_of_range, 12},
               {24, 0, 8, errc::inconsistent, 24}, {40, 1, 1, errc::inconsistent, 40}};
  for (const auto& c : cases) {
    auto b = good;
    put_le(b, c.at, c.value, c.n);
    auto h = capture_header::parse(b);
    ASSERT_FALSE(h) << c.at;
    EXPECT_EQ(h.error_value().code, c.code) << c.at;
    EXPECT_EQ(h.error_value().offset, c.offset) << c.at;
  }
  auto h = capture_header::parse(std::span(good).first(40));
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error_value().code, errc::truncated);
  EXPECT_EQ(h.error_value().offset, 40u);
}

// open_capture and gpu_of: the first steps hwpc mali and the Python package share.
TEST(MaliCapture, OpenCaptureSplitsHeaderAndSamples) {
  auto file = header(1, 2, g76_gpu_id, 0b110);
  file.resize(64 + 40, std::byte{0x5a});
  auto in = hwpc::mali::open_capture(file);
  ASSERT_TRUE(in);
  ASSERT_TRUE(in->header.has_value());
  EXPECT_EQ(in->base, 64u);
  EXPECT_EQ(in->payload.data(), file.data() + 64);
  EXPECT_EQ(in->payload.size(), 40u);
  EXPECT_EQ(hwpc::mali::reader_name(in->header->reader), "vinstr");
  auto g = hwpc::mali::gpu_of(*in->header);
  ASSERT_TRUE(g);
  ASSERT_NE(*g, nullptr);
  EXPECT_EQ(*g, *hwpc::mali::find_gpu_by_id(g76_gpu_id));

  // Bare samples: no header, the samples from byte 0.
  const std::vector<std::byte> bare(40, std::byte{0x5a});
  auto b = hwpc::mali::open_capture(bare);
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->header.has_value());
  EXPECT_EQ(b->base, 0u);
  EXPECT_EQ(b->payload.data(), bare.data());
  EXPECT_EQ(b->payload.size(), 40u);

  // A header that does not parse fails at its offset.
  auto bad = file;
  put_le(bad, 12, 65, 4);
  auto e = hwpc::mali::open_capture(bad);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error_value().offset, 12u);

  // GPU_ID 0 names no GPU (the caller must be told); an unknown one is an error.
  auto h0 = capture_header::parse(header(2, 1, 0, 1));
  ASSERT_TRUE(h0);
  EXPECT_EQ(hwpc::mali::reader_name(h0->reader), "kinstr");
  auto g0 = hwpc::mali::gpu_of(*h0);
  ASSERT_TRUE(g0);
  EXPECT_EQ(*g0, nullptr);
  auto hx = capture_header::parse(header(1, 1, 0xe00e'0000, 1));
  ASSERT_TRUE(hx);
  EXPECT_FALSE(hwpc::mali::gpu_of(*hx));
}

TEST(MaliCapture, VinstrRecordsWithKernelMetadata) {
  const auto file = g76_vinstr_file();
  auto h = capture_header::parse(file);
  ASSERT_TRUE(h);
  auto gpu = hwpc::mali::find_gpu_by_id(h->gpu_id);
  ASSERT_TRUE(gpu);
  EXPECT_EQ((*gpu)->name, "Mali-G76");
  auto cap =
      hwpc::mali::vinstr_capture::make(*(*gpu)->table, h->layout, h->payload(file), 64, true);
  ASSERT_TRUE(cap) << cap.error_value().describe();
  ASSERT_EQ(cap->size(), 3u);
  const std::size_t record = 32 + 256 * (2 + 2 + 3);
  EXPECT_EQ(cap->record_bytes(), record);
  for (std::uint64_t k = 0; k < 3; ++k) {
    EXPECT_EQ(cap->offset(k), 64 + k * record);
    const auto m = cap->meta(k);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->timestamp, 1'000'000 * (k + 1));
    EXPECT_EQ(m->event_id, 1u);
    EXPECT_EQ(m->buffer_idx, k);
    EXPECT_EQ(m->cycles_top, 500 + k);
    EXPECT_EQ(m->cycles_shader_cores, 400 + k);
    const auto sums = cap->at(k).sums();
    EXPECT_EQ(sums[gpus::g76.find("GPU_ACTIVE")->id], 100 * (k + 1));
    EXPECT_EQ(sums.at(hwpc::mali::block_type::shader_core, 4), 7u);
  }
  // Cut inside the third record's metadata, then inside its second block.
  auto r = hwpc::mali::vinstr_capture::make(gpus::g76, g76_layout,
                                            std::span(file).subspan(64, 2 * record + 16), 64, true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().code, errc::truncated);
  EXPECT_EQ(r.error_value().offset, 64 + 2 * record + 16);
  EXPECT_NE(r.error_value().message.find("record 2 (at offset " + std::to_string(64 + 2 * record)),
            std::string::npos)
      << r.error_value().message;
  EXPECT_NE(r.error_value().message.find("metadata is cut short"), std::string::npos);
  r = hwpc::mali::vinstr_capture::make(
      gpus::g76, g76_layout, std::span(file).subspan(64, 2 * record + 32 + 300), 64, true);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error_value().message.find("tiler block is cut short"), std::string::npos)
      << r.error_value().message;
}

TEST(MaliCapture, KinstrBufferBehindTheHeader) {
  mali_test::kinstr_buffer b(64);
  mali_test::kinstr_sample_spec s;
  s.seq = 4;
  s.blocks = {{0, 0, 0, 0x15, {0, 0, 0, 0, 11}}};  // G710 GPU_ACTIVE at front-end 4
  b.add(s);
  auto file = header(2, 1, 0xa002'0000u, 1);  // 32-bit form: arch 10, product 2
  file.insert(file.end(), b.bytes.begin(), b.bytes.end());
  auto h = capture_header::parse(file);
  ASSERT_TRUE(h);
  auto gpu = hwpc::mali::find_gpu_by_id(h->gpu_id);
  ASSERT_TRUE(gpu);
  auto r = hwpc::mali::kinstr_reader::make(*(*gpu)->table, h->layout, h->payload(file), 64);
  ASSERT_TRUE(r);
  auto x = r->next();
  ASSERT_TRUE(x && *x);
  EXPECT_EQ((*x)->offset, 64u);
  EXPECT_EQ((*x)->sums()[gpus::g710.find("GPU_ACTIVE")->id], 11u);
  // A bad values offset is reported at its item's offset in the file.
  put_le(file, 64 + b.block_item_offsets[0] + 16, 4, 4);
  r = hwpc::mali::kinstr_reader::make(gpus::g710, h->layout, h->payload(file), 64);
  x = r->next();
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error_value().offset, 64 + b.block_item_offsets[0]);
}

class MaliCaptureTool : public hwpc::testing::tool_test {
 protected:
  std::string write(const std::vector<std::byte>& bytes) {
    const auto path = dir_ / "capture.hwpcmali";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    return path.string();
  }
};

TEST_F(MaliCaptureTool, TheHeaderNamesTheGpu) {
  const std::string file = write(g76_vinstr_file());
  auto r = hwpc::testing::run_tool("mali " + file, true);
  ASSERT_EQ(r.status, 0) << r.out;
  // Rows (report,offset,timestamp,counters...,reason): each ends at its dump's
  // timestamp; the reason is the dump's event (periodic).
  EXPECT_NE(r.out.find("\n0,64,1000000,100,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n1," + std::to_string(64 + 32 + 1792) + ",2000000,200,"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",periodic,\n"), std::string::npos) << r.out;
  // Options may repeat the header, not contradict it.
  EXPECT_EQ(hwpc::testing::run_tool("mali --gpu mali-g76 --core-mask 6 " + file).status, 0);
  r = hwpc::testing::run_tool("mali --gpu g72 " + file);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("contradicts the capture's GPU_ID 0x70010000 (Mali-G76)"), std::string::npos)
      << r.out;
  EXPECT_EQ(hwpc::testing::run_tool("mali --core-mask 7 " + file).status, 1);
  EXPECT_EQ(hwpc::testing::run_tool("mali --reader kinstr " + file).status, 1);

  // No GPU_ID recorded: --gpu is needed.
  auto anon = g76_vinstr_file();
  put_le(anon, 16, 0, 8);
  const std::string anon_file = write(anon);
  r = hwpc::testing::run_tool("mali " + anon_file);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--gpu is required"), std::string::npos);
  EXPECT_EQ(hwpc::testing::run_tool("mali --gpu g76 " + anon_file).status, 0);
}

}  // namespace
