// decode(emulate(config)) == truth for the Xe driver: every format of the
// Xe driver's table (emu/xe_layouts.hpp, packed from FACTS-xe) on every
// platform that enables it, decoded with the library's table
// (intel/formats_xe.hpp) from every Xe output kind (raw reports, the Xe OA
// stream with its out-of-band losses, the xe-perf recording), under every
// fault mix.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "emu_crosscheck_util.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/intel/xe_stream.hpp"

namespace {

namespace emu = hwpc::emu;
namespace intel = hwpc::intel;
using crosscheck::decoded_row;
using crosscheck::via_capture;

bool decode(const emu::capture& cap, emu::output_kind k, const intel::xe_format& xf,
            std::vector<decoded_row>& out, std::string& why) {
  const intel::generation gen = cap.gen;
  if (k == emu::output_kind::xe_stream) {
    auto st = emu::xe_stream_of(cap);
    if (!crosscheck::accepted(st, why)) return false;
    std::vector<intel::xe_stream_loss> losses;
    for (const auto& l : st->losses) losses.push_back({l.offset, l.oa_status});
    auto s =
        intel::xe_stream::make(hwpc::byte_span(st->bytes.data(), st->bytes.size()), xf, losses);
    if (!crosscheck::accepted(s, why)) return false;
    out = via_capture(*s, gen);
    return true;
  }
  if (k == emu::output_kind::ring) {
    // The emulator's registers: the Gen8 addresses (docs/emulator.md).
    auto reg = [&](std::uint32_t addr) { return crosscheck::ring_register(cap.ring, addr); };
    const auto regs =
        intel::oa_ring_registers::gen8(cap.ring.base, reg(0x2b0c), reg(0x2b10), reg(0x2b08));
    const bool oag =
        xf.key.type == intel::xe_format_type::oag || xf.key.type == intel::xe_format_type::pec;
    auto r = intel::oa_ring::make(hwpc::byte_span(cap.ring.bytes.data(), cap.ring.bytes.size()),
                                  xf.layout, regs, intel::oa_ring_options::xe(gen, oag));
    if (!crosscheck::accepted(r, why)) return false;
    out = via_capture(*r, gen);
    return true;
  }
  const auto bytes = emu::output_bytes(cap, k);
  if (!crosscheck::accepted(bytes, why)) return false;
  const hwpc::byte_span bs(bytes->data(), bytes->size());
  if (k == emu::output_kind::xe_recording) {
    intel::xe_recording_options o;
    o.unverified_layouts = true;
    auto r = intel::xe_recording::make(bs, o);
    if (!crosscheck::accepted(r, why)) return false;
    if (&r->xe() != &xf || r->device_platform() != cap.cfg.platform) {
      why = "recording names another format or platform";
      return false;
    }
    out = via_capture(*r, gen);
    return true;
  }
  if (bs.empty()) return true;
  auto buf = intel::report_buffer::make(bs, xf.layout);
  if (!crosscheck::accepted(buf, why)) return false;
  out = crosscheck::via_intervals(*buf, gen);
  return true;
}

TEST(EmuXeCrosscheck, EveryXeFormatEveryFaultEveryOutput) {
  std::size_t checked = 0;
  std::size_t failures = 0;
  std::size_t with_losses = 0;
  for (const auto& pi : intel::platform_table) {
    for (const auto& ef : emu::emu_xe_formats) {
      if (!ef.on(pi.id)) continue;
      const intel::xe_format* xf = intel::find_xe_format(pi.id, ef.name);
      ASSERT_NE(xf, nullptr) << pi.name << " " << ef.name;
      EXPECT_EQ(xf->igt_id, ef.igt_id) << ef.name;
      EXPECT_EQ(xf->verified, ef.verified) << ef.name;
      EXPECT_EQ(xf->layout.size, ef.size()) << ef.name;
      for (unsigned seed = 0; seed < 2; ++seed) {
        for (unsigned faults = 0; faults < 32; ++faults) {
          if (crosscheck::overflow_run_skipped(faults, seed, pi.id)) continue;
          if ((faults & 8) == 0 && faults % 3 != seed) continue;  // a third of the rest
          emu::config c = crosscheck::matrix_config(pi.id, ef.name, seed, faults);
          c.kernel_driver = emu::driver::xe;
          auto cap = emu::emulate(c);
          ASSERT_TRUE(cap.has_value()) << cap.error_value().describe();
          ASSERT_EQ(cap->kernel_driver, emu::driver::xe);
          // The ring as the Xe driver keeps it: rounded to whole reports on
          // Xe2+ OAG (PEC), the whole buffer elsewhere, which the emulator's
          // rounded ring matches only where the report size divides it.
          const bool ring_ok =
              (pi.gen >= intel::generation::xe2 && xf->key.type == intel::xe_format_type::pec) ||
              cap->buffer_bytes % ef.size() == 0;
          for (auto k : {emu::output_kind::raw, emu::output_kind::xe_stream,
                         emu::output_kind::xe_recording, emu::output_kind::ring}) {
            if (k == emu::output_kind::ring && !ring_ok) continue;
            auto truth = emu::truth_for(*cap, k);
            ASSERT_TRUE(truth.has_value()) << truth.error_value().describe();
            ASSERT_TRUE(truth->representable);
            if (k == emu::output_kind::xe_stream && !emu::xe_stream_of(*cap)->losses.empty()) {
              ++with_losses;
            }
            std::vector<decoded_row> got;
            std::string why;
            const bool ok = decode(*cap, k, *xf, got, why);
            ++checked;
            // Report indices are compared on every output but the ring.
            crosscheck::matches_truth(ok, got, *truth, k != emu::output_kind::ring, pi.name, c, k,
                                      why, failures);
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0u);
  RecordProperty("decodes", static_cast<int>(checked));
  EXPECT_GT(checked, 2500u);
  EXPECT_GT(with_losses, 50u);
}

// Xe2 rounds the ring down to whole reports: 576-byte reports in a 128 KiB
// buffer go round in 227 slots (130752 bytes), and an overflow run wraps.
TEST(EmuXeCrosscheck, RingRoundedDownToWholeReports) {
  emu::config c;
  c.platform = intel::platform::bmg;
  c.format = "PEC64u64";
  c.faults = emu::parse_faults("overflow").value();
  auto cap = emu::emulate(c).value();
  EXPECT_EQ(cap.buffer_bytes, 128u * 1024u);
  EXPECT_EQ(cap.ring_bytes, 227u * 576u);
  EXPECT_GT(cap.stats.ring_reports, 227u);
}

// Unlanded slots of a raw Xe dump have RPT_ID and TIME_STAMP zero (the Xe
// driver clears both), the rest of the stale report kept.
TEST(EmuXeCrosscheck, UnlandedSlotsClearIdAndTimestamp) {
  emu::config c;
  c.platform = intel::platform::lnl;
  c.format = "PEC64u64";
  c.faults = emu::parse_faults("tail-ahead").value();
  c.reports = 100;
  auto cap = emu::emulate(c).value();
  ASSERT_GT(cap.stats.unlanded_reads, 0u);
  const auto raw = emu::raw_file(cap);
  std::size_t unlanded = 0;
  for (std::size_t at = 0; at < raw.size(); at += 576) {
    if (hwpc::load_le64(raw.data() + at) != 0) continue;
    ++unlanded;
    EXPECT_EQ(hwpc::load_le64(raw.data() + at + 8), 0u) << "TIME_STAMP of slot at " << at;
  }
  EXPECT_EQ(unlanded, cap.stats.unlanded_reads);
}

// The Xe driver's names only: no i915 names on lnl, no i915 outputs.
TEST(EmuXeCrosscheck, DriverChoosesNamesAndOutputs) {
  using emu::driver;
  EXPECT_NE(emu::find_emu_format(intel::platform::lnl, "PEC64u64", driver::xe), nullptr);
  EXPECT_EQ(emu::find_emu_format(intel::platform::lnl, "PEC64u64", driver::i915), nullptr);
  EXPECT_EQ(emu::find_emu_format(intel::platform::tgl, "A36_B8_C8", driver::xe), nullptr);
  EXPECT_NE(emu::find_emu_format(intel::platform::tgl, "A32u40_A4u32_B8_C8", driver::xe), nullptr);
  EXPECT_EQ(emu::find_emu_format(intel::platform::bmg, "OAC_A24u64_B8_C8", driver::xe), nullptr);
  emu::config c;
  c.platform = intel::platform::lnl;
  c.format = "MPEC8u32_B8_C8";
  auto cap = emu::emulate(c).value();
  EXPECT_EQ(cap.kernel_driver, driver::xe);
  EXPECT_FALSE(emu::i915_stream(cap).has_value());
  EXPECT_FALSE(emu::truth_for(cap, emu::output_kind::recording).has_value());
  c.platform = intel::platform::tgl;
  c.format = "A36_B8_C8";
  auto i915 = emu::emulate(c).value();
  EXPECT_FALSE(emu::xe_stream_of(i915).has_value());
}

}  // namespace
