// decode(emulate(config)) == truth: the emulator packs with its own tables,
// the decoder reads with hwpc/intel's, and every reader path (raw reports,
// OA ring, i915 stream, recording) must find the emulator's exact increments
// and timestamps, for every format of every platform under every fault mix.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "emu_crosscheck_util.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/recording.hpp"

namespace {

namespace emu = hwpc::emu;
namespace intel = hwpc::intel;
using crosscheck::decoded_row;
using crosscheck::via_capture;

// Decodes one output of a capture with the library's readers; nullopt-like
// empty + ok=false when the reader refused it.
bool decode(const emu::capture& cap, emu::output_kind k, const intel::report_format& f,
            std::vector<decoded_row>& out, std::string& why) {
  const auto bytes = emu::output_bytes(cap, k);
  if (!crosscheck::accepted(bytes, why)) return false;
  const hwpc::byte_span bs(bytes->data(), bytes->size());
  const intel::generation gen = cap.gen;
  switch (k) {
    case emu::output_kind::raw: {
      if (bs.empty()) return true;
      auto buf = intel::report_buffer::make(bs, f);
      if (!buf) break;
      out = crosscheck::via_intervals(*buf, gen);
      return true;
    }
    case emu::output_kind::i915_stream: {
      if (bs.empty()) return true;
      auto s = intel::i915_stream::make(bs, f);
      if (!crosscheck::accepted(s, why)) return false;
      out = via_capture(*s, gen);
      return true;
    }
    case emu::output_kind::recording: {
      intel::recording_options o;
      o.fallback_platform = cap.cfg.platform;
      auto r = intel::recording::make(bs, o);
      if (!crosscheck::accepted(r, why)) return false;
      out = via_capture(*r, gen);
      return true;
    }
    case emu::output_kind::ring: {
      const auto& rs = cap.ring;
      auto reg = [&](std::uint32_t addr) { return crosscheck::ring_register(rs, addr); };
      const auto regs =
          intel::is_gen7_family(gen)
              ? intel::oa_ring_registers::gen7(reg(0x23b0), reg(0x2364), reg(0x2368))
              : intel::oa_ring_registers::gen8(rs.base, reg(0x2b0c), reg(0x2b10), reg(0x2b08));
      auto r = intel::oa_ring::make(bs, f, regs);
      if (!crosscheck::accepted(r, why)) return false;
      out = via_capture(*r, gen);
      return true;
    }
    case emu::output_kind::mi_rpc:
    case emu::output_kind::xe_stream:     // test_emu_xe_crosscheck.cpp
    case emu::output_kind::xe_recording:  // test_emu_xe_crosscheck.cpp
      break;
  }
  why = "unsupported";
  return false;
}

TEST(EmuCrosscheck, EveryFormatEveryFaultEveryOutput) {
  std::size_t checked = 0;
  std::size_t failures = 0;
  for (const auto& pi : intel::platform_table) {
    for (const auto& ef : emu::emu_formats) {
      if (!ef.on(pi.id)) continue;
      const intel::report_format* df = intel::find_format(pi.id, ef.name);
      ASSERT_NE(df, nullptr) << pi.name << " " << ef.name;
      for (unsigned seed = 0; seed < 2; ++seed) {
        for (unsigned faults = 0; faults < 32; ++faults) {
          // Overflow runs write 2048 reports of 64 bytes more.
          if (crosscheck::overflow_run_skipped(faults, seed, pi.id)) continue;
          emu::config c = crosscheck::matrix_config(pi.id, ef.name, seed, faults);
          c.mi_rpc_every = faults % 3 == 0 ? 5 : 0;
          auto cap = emu::emulate(c);
          ASSERT_TRUE(cap.has_value()) << cap.error_value().describe();
          for (auto k : {emu::output_kind::raw, emu::output_kind::i915_stream,
                         emu::output_kind::recording, emu::output_kind::ring}) {
            auto truth = emu::truth_for(*cap, k);
            if (!truth) continue;  // the output does not exist (MI_RPC-only formats)
            if (k == emu::output_kind::recording && ef.uapi_id < 0) continue;
            // The ring reader takes i915's power-of-two buffers (HSW and later).
            if (k == emu::output_kind::ring && cap->buffer_bytes < 128u * 1024u) continue;
            ASSERT_TRUE(truth->representable);
            std::vector<decoded_row> got;
            std::string why;
            const bool ok = decode(*cap, k, *df, got, why);
            ++checked;
            // Report indices are compared on raw reports only.
            crosscheck::matches_truth(ok, got, *truth, k == emu::output_kind::raw, pi.name, c, k,
                                      why, failures);
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(checked, 4000u);
}

// The raw truth's `report` column is the decoder's report index, zero slots included.
TEST(EmuCrosscheck, RawReportIndexCountsZeroSlots) {
  emu::config c;
  c.platform = intel::platform::bdw;
  c.format = "A36_B8_C8";
  c.faults = emu::parse_faults("tail-ahead").value();
  c.reports = 100;
  auto cap = emu::emulate(c).value();
  ASSERT_GT(cap.stats.unlanded_reads, 0u);
  auto truth = emu::truth_for(cap, emu::output_kind::raw).value();
  std::vector<decoded_row> got;
  std::string why;
  ASSERT_TRUE(decode(cap, emu::output_kind::raw,
                     *intel::find_format(intel::platform::bdw, "A36_B8_C8"), got, why));
  ASSERT_EQ(got.size(), truth.rows.size());
  bool jumped = false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].report, truth.rows[i].report);
    if (i > 0 && truth.rows[i].report > truth.rows[i - 1].report + 1) jumped = true;
  }
  EXPECT_TRUE(jumped);
}

// The embedded default capture decodes to its truth.
TEST(EmuCrosscheck, DefaultCapture) {
  const auto d = emu::default_capture();
  const auto* f = intel::find_format(intel::platform::hsw, "A45_B8_C8");
  auto buf = intel::report_buffer::make(hwpc::byte_span(d.raw.data(), d.raw.size()), *f).value();
  std::size_t i = 0;
  intel::for_each_interval(buf, intel::generation::gen7_5, [&](const intel::interval& iv) {
    ASSERT_LT(i, d.truth.rows.size());
    EXPECT_EQ(iv.report, d.truth.rows[i].report);
    EXPECT_EQ(iv.timestamp, d.truth.rows[i].timestamp);
    EXPECT_TRUE(std::equal(iv.deltas.begin(), iv.deltas.end(), d.truth.rows[i].deltas.begin()));
    ++i;
  });
  EXPECT_EQ(i, d.truth.rows.size());
}

}  // namespace
