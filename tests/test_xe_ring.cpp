// The OA ring on the Xe driver (FACTS-xe section 5): on Xe2+ the OAG ring is
// the buffer rounded down to whole reports, so 576-byte PEC reports never
// straddle its end; other units may wrap a report across the end, which the
// reader copies in two parts; Xe buffers go up to 128 MiB.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/oa_ring.hpp"

namespace {

namespace intel = hwpc::intel;
using intel::platform;

constexpr std::size_t kib128 = 128 * 1024;

void put64(std::byte* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

// A 64-bit-header report at `at` (possibly wrapping at `circ` in 64-byte
// lines, as the hardware writes): RPT_ID = id, TIME_STAMP = 100 * id,
// GPU_TICKS = 7 * id, then the counter at byte 32 = id + 1000.
void write_report(std::vector<std::byte>& ring, std::size_t circ, std::size_t at, std::size_t rs,
                  std::uint64_t id) {
  std::vector<std::byte> r(rs, std::byte{0});
  put64(r.data(), id);
  put64(r.data() + 8, 100 * id);
  put64(r.data() + 24, 7 * id);
  put64(r.data() + 32, id + 1000);
  for (std::size_t i = 0; i < rs; ++i) ring[(at + i) % circ] = r[i];
}

struct seen {
  std::vector<std::uint64_t> ids;
  std::vector<std::size_t> offsets;
};
seen read_ids(const intel::oa_ring& r) {
  seen s;
  for (const auto& e : r) {
    if (e.is_discontinuity()) continue;
    s.ids.push_back(hwpc::load_le64(e.report().data()));
    s.offsets.push_back(e.offset);
    EXPECT_EQ(hwpc::load_le64(e.report().data() + 32), s.ids.back() + 1000);
  }
  return s;
}

const intel::report_format& pec64() {
  return intel::find_xe_format(platform::lnl, "PEC64u64")->layout;
}

TEST(XeRing, OptionsByGenerationAndUnit) {
  EXPECT_TRUE(intel::oa_ring_options::xe(intel::generation::xe2).round_to_reports);
  EXPECT_TRUE(intel::oa_ring_options::xe(intel::generation::xe3).round_to_reports);
  EXPECT_FALSE(intel::oa_ring_options::xe(intel::generation::xe2, false).round_to_reports);
  EXPECT_FALSE(intel::oa_ring_options::xe(intel::generation::gen12_7).round_to_reports);
  EXPECT_TRUE(intel::oa_ring_options::xe(intel::generation::gen12_7).xe_driver);
  EXPECT_EQ(intel::oa_ring_circ_size(kib128, 576, true), 227u * 576u);
  EXPECT_EQ(intel::oa_ring_circ_size(kib128, 576, false), kib128);
}

// Head at slot 225 of 227, tail two reports past the wrap: slots 225, 226,
// 0, 1, each whole, at their own offsets.
TEST(XeRing, Xe2OagRingWrapsAtWholeReports) {
  const std::size_t rs = 576, circ = 227 * rs;
  std::vector<std::byte> ring(kib128, std::byte{0xee});  // bytes past circ: never written
  for (std::uint64_t id : {225u, 226u}) write_report(ring, circ, id * rs, rs, id);
  write_report(ring, circ, 0, rs, 1227);
  write_report(ring, circ, rs, rs, 1228);
  const auto opts = intel::oa_ring_options::xe(intel::generation::xe2);
  for (std::size_t extra : {0u, 64u, 512u}) {  // the tail may stop inside the next report
    const auto regs =
        intel::oa_ring_registers::gen8(0x100000, 0x100000 + 225 * rs, 0x100000 + 2 * rs + extra, 0);
    auto r = intel::oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), pec64(), regs, opts);
    ASSERT_TRUE(r.has_value()) << r.error_value().describe();
    EXPECT_EQ(r->circ_size(), circ);
    EXPECT_EQ(r->report_slots(), 4u);
    const seen s = read_ids(*r);
    EXPECT_EQ(s.ids, (std::vector<std::uint64_t>{225, 226, 1227, 1228}));
    EXPECT_EQ(s.offsets, (std::vector<std::size_t>{225 * rs, 226 * rs, 0, rs}));
    EXPECT_EQ(r->new_head_offset(), 2 * rs);
  }
  // Deltas across the wrap, through the delta layer.
  const auto regs = intel::oa_ring_registers::offsets(225 * rs, 2 * rs);
  auto r =
      intel::oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), pec64(), regs, opts).value();
  std::vector<std::uint64_t> ticks;
  intel::for_each_delta(
      r, intel::generation::xe2,
      [&](const intel::capture_interval& iv) { ticks.push_back(iv.deltas[0]); },
      [](const intel::capture_discontinuity&) {});
  EXPECT_EQ(ticks, (std::vector<std::uint64_t>{7, 7 * (1227 - 226), 7}));
}

// A pointer into the never-written end past circ_size is refused; so is a
// head between reports.
TEST(XeRing, PointersPastTheRoundedRingAreRefused) {
  const std::size_t rs = 576, circ = 227 * rs;
  std::vector<std::byte> ring(kib128, std::byte{0});
  const auto opts = intel::oa_ring_options::xe(intel::generation::xe2);
  const hwpc::byte_span s(ring.data(), ring.size());
  EXPECT_FALSE(
      intel::oa_ring::make(s, pec64(), intel::oa_ring_registers::offsets(0, circ + 64), opts)
          .has_value());
  EXPECT_FALSE(
      intel::oa_ring::make(s, pec64(), intel::oa_ring_registers::offsets(circ + 64, 0), opts)
          .has_value());
  // The end of the ring is the same place as its start.
  EXPECT_TRUE(intel::oa_ring::make(s, pec64(), intel::oa_ring_registers::offsets(circ, 0), opts)
                  .has_value());
  auto mis = intel::oa_ring::make(s, pec64(), intel::oa_ring_registers::offsets(64, 0), opts);
  ASSERT_FALSE(mis.has_value());
  EXPECT_EQ(mis.error_value().code, hwpc::errc::misaligned);
  EXPECT_EQ(mis.error_value().offset, 64u);
}

// Other units keep the whole buffer: a report may straddle its end and is
// copied out in two parts (192-byte MPEC8u64 on OAM; a 640-byte PEC report
// when nothing rounds the ring).
TEST(XeRing, OtherUnitsStraddleAndAreCopiedInTwoParts) {
  for (const char* name : {"MPEC8u64_B8_C8", "PEC64u64_B8_C8"}) {
    const auto& f = intel::find_xe_format(platform::bmg, name)->layout;
    const std::size_t rs = f.size;
    std::vector<std::byte> ring(kib128, std::byte{0});
    const std::size_t at = kib128 - 128;  // 128 bytes at the end, the rest at the start
    write_report(ring, kib128, at - rs, rs, 41);
    write_report(ring, kib128, at, rs, 42);
    write_report(ring, kib128, at + rs, rs, 43);
    const auto regs = intel::oa_ring_registers::offsets(at - rs, (at + 2 * rs) % kib128);
    auto r = intel::oa_ring::make(hwpc::byte_span(ring.data(), ring.size()), f, regs,
                                  intel::oa_ring_options::xe(intel::generation::xe2, false));
    ASSERT_TRUE(r.has_value()) << name << ": " << r.error_value().describe();
    EXPECT_EQ(r->circ_size(), kib128);
    const seen s = read_ids(*r);
    EXPECT_EQ(s.ids, (std::vector<std::uint64_t>{41, 42, 43})) << name;
    EXPECT_EQ(s.offsets[1], at) << name;
  }
}

// Xe buffers go up to 128 MiB; i915's stop at 16 MiB.
TEST(XeRing, XeBuffersUpTo128MiB) {
  std::vector<std::byte> ring(std::size_t{32} << 20, std::byte{0});
  const hwpc::byte_span s(ring.data(), ring.size());
  const auto regs = intel::oa_ring_registers::offsets(0, 0);
  EXPECT_FALSE(intel::oa_ring::make(s, pec64(), regs).has_value());
  EXPECT_TRUE(
      intel::oa_ring::make(s, pec64(), regs, intel::oa_ring_options::xe(intel::generation::xe2))
          .has_value());
}

}  // namespace
