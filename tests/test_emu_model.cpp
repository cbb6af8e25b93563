// The emulator's model: determinism, timer spacing, wraps, RPT_ID bits,
// registers, the ring under faults, and the sizes of stream and recording
// records.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "hwpc/emu.hpp"

namespace {

namespace emu = hwpc::emu;
using hwpc::intel::platform;

emu::capture run(emu::config c) {
  auto cap = emu::emulate(c);
  EXPECT_TRUE(cap.has_value()) << (cap ? "" : cap.error_value().describe());
  return cap ? std::move(*cap) : emu::capture{};
}

emu::config make(platform p, std::string fmt, std::string faults = "", std::uint64_t seed = 1) {
  emu::config c;
  c.platform = p;
  c.format = std::move(fmt);
  c.seed = seed;
  c.faults = emu::parse_faults(faults).value();
  return c;
}

TEST(EmuModel, SameSeedSameBytes) {
  const auto c = make(platform::skl, "A36_B8_C8", "wrap,ctx-switch,tail-ahead,report-lost", 42);
  const auto a = run(c);
  const auto b = run(c);
  EXPECT_EQ(a.packed, b.packed);
  EXPECT_EQ(emu::raw_file(a), emu::raw_file(b));
  EXPECT_EQ(emu::recording(a).value(), emu::recording(b).value());
  auto c2 = c;
  c2.seed = 43;
  EXPECT_NE(run(c2).packed, a.packed);
}

TEST(EmuModel, TimerReportsAreAPeriodApart) {
  for (unsigned e : {0u, 5u, 10u, 14u}) {
    auto c = make(platform::hsw, "A13");
    c.exponent = e;
    const auto cap = run(c);
    const std::uint64_t period = std::uint64_t{1} << (e + 1);
    EXPECT_EQ(cap.period_ticks, period);
    const emu::report_record* prev = nullptr;
    std::size_t timers = 0;
    for (const auto& r : cap.reports) {
      if (r.why != emu::trigger::timer) continue;
      ++timers;
      // The raw TIME_STAMP is a multiple of the period at every strobe.
      EXPECT_EQ((cap.start.timestamp + r.at.timestamp) % period, 0u);
      if (prev != nullptr) {
        EXPECT_EQ(r.at.timestamp - prev->at.timestamp, period);
      }
      prev = &r;
    }
    EXPECT_EQ(timers, c.reports);
  }
  // SNB strobes every 2^(n+4) ticks [PRM67 OACONTROL 11:6].
  auto c = make(platform::snb, "A13");
  c.exponent = 3;
  EXPECT_EQ(run(c).period_ticks, 128u);
}

TEST(EmuModel, WrapHappensWhenAsked) {
  for (auto [p, fmt] : {std::pair{platform::hsw, "A45_B8_C8"},
                        {platform::bdw, "A36_B8_C8"},
                        {platform::mtl, "MPEC8u32_B8_C8"},
                        {platform::dg2, "A24u40_A14u32_B8_C8"}}) {
    const auto cap = run(make(p, fmt, "wrap"));
    const auto& l = cap.format->layout;
    const auto seq = emu::report_sequence(cap, emu::output_kind::raw).value();
    for (const auto& s : l.slots()) {
      const std::uint64_t mask = emu::width_mask(s.bits);
      bool wrapped = false;
      for (std::size_t i = 1; i < seq.size(); ++i) {
        const std::uint64_t v0 =
            cap.start.counter(s.k, s.index) + cap.reports[seq[i - 1]].at.counter(s.k, s.index);
        const std::uint64_t v1 =
            cap.start.counter(s.k, s.index) + cap.reports[seq[i]].at.counter(s.k, s.index);
        if ((v1 & mask) < (v0 & mask)) wrapped = true;
      }
      EXPECT_TRUE(wrapped) << fmt << " " << emu::counter_name(s);
    }
    // TIME_STAMP wraps too, inside the capture, at the width of ticks the
    // report keeps (31 bits on DG2).
    const std::uint64_t tmask = emu::width_mask(emu::ts_packing_of(p, l).bits);
    const std::uint64_t t0 = (cap.start.timestamp + cap.reports[seq.front()].at.timestamp) & tmask;
    const std::uint64_t t1 = (cap.start.timestamp + cap.reports[seq.back()].at.timestamp) & tmask;
    EXPECT_LT(t1, t0) << fmt;
  }
}

TEST(EmuModel, RptIdReasonAndContextBits) {
  auto bits_of = [](const emu::capture& cap, emu::trigger t) {
    for (const auto& r : cap.reports) {
      if (r.why == t && (t != emu::trigger::ctx_switch || r.ctx_valid)) return r.rpt_id;
    }
    return 0u;
  };
  const auto bdw = run(make(platform::bdw, "A36_B8_C8", "ctx-switch"));
  const std::uint32_t bt = bits_of(bdw, emu::trigger::timer);
  EXPECT_EQ(bt & (1u << 19), 1u << 19);
  EXPECT_EQ(bt & (1u << 25), 1u << 25);  // Gen8 context valid
  EXPECT_EQ(bt & (1u << 16), 1u << 16);  // Gen8 timer enabled
  const std::uint32_t bc = bits_of(bdw, emu::trigger::ctx_switch);
  EXPECT_EQ((bc >> 19) & 0x3f, 1u << 3);
  const auto skl = run(make(platform::skl, "A36_B8_C8", "ctx-switch"));
  const std::uint32_t st = bits_of(skl, emu::trigger::timer);
  EXPECT_EQ((st >> 19) & 0x3f, 1u);
  EXPECT_EQ(st & (1u << 16), 1u << 16);  // Gen9 context valid
  // Squashed clocks: unslice 8:0 equals slice (31:25 | 10:9 << 7).
  EXPECT_EQ(st & 0x1ff, ((st >> 25) & 0x7f) | (((st >> 9) & 3) << 7));
  EXPECT_GT(st & 0x1ff, 0u);
  // Context switch reports carry the new context id in dw2.
  std::size_t switches = 0;
  for (std::size_t i = 0; i < skl.reports.size(); ++i) {
    const auto& r = skl.reports[i];
    if (r.why != emu::trigger::ctx_switch) continue;
    ++switches;
    EXPECT_EQ(hwpc::load_le32(skl.report_bytes(i).data() + 8), r.ctx_valid ? r.ctx_id : 0u);
  }
  EXPECT_GE(switches, 5u);
  // GO transitions when the GT goes to sleep.
  bool go = false;
  for (const auto& r : skl.reports) go |= r.why == emu::trigger::go_transition;
  EXPECT_TRUE(go);
  EXPECT_EQ((bits_of(skl, emu::trigger::go_transition) >> 19) & 0x3f, 1u << 4);
  // Gen7: no context-switch reports; timer reports are never zero.
  const auto hsw = run(make(platform::hsw, "A13", "ctx-switch"));
  for (const auto& r : hsw.reports) {
    EXPECT_NE(r.why, emu::trigger::ctx_switch);
    EXPECT_NE(r.rpt_id, 0u);
  }
  EXPECT_GT(hsw.stats.ctx_switches, 0u);
}

TEST(EmuModel, GpuTicksFreezeWhileAsleep) {
  // Sleep phases come with the seed; a few seeds are sure to hold one.
  std::size_t sleeps = 0;
  for (std::uint64_t seed = 5; seed < 15; ++seed) {
    const auto cap = run(make(platform::icl, "C4_B8", "", seed));
    for (std::size_t i = 1; i < cap.reports.size(); ++i) {
      const auto& a = cap.reports[i - 1].at;
      const auto& b = cap.reports[i].at;
      EXPECT_GT(b.timestamp - a.timestamp + (cap.reports[i].why != emu::trigger::timer), 0u);
      if (b.gpu_ticks == a.gpu_ticks && b.timestamp > a.timestamp) {
        ++sleeps;
        for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(b.b[k], a.b[k]);
        for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(b.c[k], a.c[k]);
      }
    }
  }
  EXPECT_GT(sleeps, 0u);
}

TEST(EmuModel, RegistersHoldTheProgrammedFields) {
  emu::oa_registers g7(hwpc::intel::generation::gen7_5);
  g7.program_buffer(0x01000000, 2, true);
  g7.program_control(5, 10, true, true, 0x0002c000);
  const std::uint32_t ctl = g7.read(0x2360);
  EXPECT_EQ(ctl, (0x2cu << 12) | (10u << 6) | (1u << 5) | (5u << 2) | (1u << 1) | 1u);
  EXPECT_EQ(g7.read(0x2364), 0x01000000u | (2u << 3));  // tail | size field
  EXPECT_EQ(g7.read(0x2368), 0x01000000u | 1u);         // head | GGTT
  EXPECT_EQ(g7.read(0x23b0), 0x01000000u | (1u << 3));  // base | overrun disable
  EXPECT_EQ(g7.buffer_bytes(), 512u * 1024u);
  g7.set_tail(0x01000100);
  g7.set_report_lost(true);
  EXPECT_EQ(g7.read(0x2364), 0x01000100u | (2u << 3) | 1u);

  emu::oa_registers g8(hwpc::intel::generation::gen9);
  g8.program_buffer(0x01000000, 0, false);
  g8.program_control(5, 7, true, false, 0);
  EXPECT_EQ(g8.read(0x2b00), (5u << 2) | 1u);
  EXPECT_EQ(g8.read(0x2360), (7u << 2) | (1u << 1));
  EXPECT_EQ(g8.read(0x2b14), 0x01000000u | 1u);
  g8.set_buffer_overflow(true);
  EXPECT_EQ(g8.read(0x2b08), (1u << 3) | (1u << 1));
  EXPECT_EQ(emu::oa_buffer_bytes(hwpc::intel::generation::gen7, 2), 48u * 1024u);
}

TEST(EmuModel, OverflowLosesTheBufferAndRestarts) {
  const auto cap = run(make(platform::hsw, "A45_B8_C8", "overflow"));
  EXPECT_GE(cap.stats.restarts, 1u);
  EXPECT_GT(cap.stats.overwritten, 0u);
  const auto stream = emu::i915_stream(cap).value();
  std::size_t lost = 0;
  for (std::size_t at = 0; at < stream.size();) {
    const std::uint32_t type = hwpc::load_le32(stream.data() + at);
    const std::uint16_t size = hwpc::load_le16(stream.data() + at + 6);
    if (type == emu::record_type::oa_buffer_lost) {
      ++lost;
      EXPECT_EQ(size, 8u);
    }
    ASSERT_GT(size, 0u);
    at += size;
  }
  EXPECT_EQ(lost, cap.stats.restarts);
  // The stream's truth leaves out the interval across the loss; the raw file's keeps it.
  EXPECT_EQ(emu::truth_for(cap, emu::output_kind::raw)->rows.size(),
            emu::truth_for(cap, emu::output_kind::i915_stream)->rows.size() + lost);
  EXPECT_TRUE(emu::truth_for(cap, emu::output_kind::raw)->representable);
}

TEST(EmuModel, OverrunDisabledStopsAndResumes) {
  auto c = make(platform::hsw, "A45_B8_C8", "overflow");
  c.overrun_disable = true;
  const auto cap = run(c);
  EXPECT_EQ(cap.stats.restarts, 0u);
  EXPECT_GT(cap.stats.dropped_stopped, 0u);
  EXPECT_EQ(cap.stats.overwritten, 0u);
  // Reporting resumed: timer reports after the stop are a whole number of periods apart.
  const auto raw = emu::truth_for(cap, emu::output_kind::raw).value();
  bool gap = false;
  for (std::size_t i = 1; i < raw.rows.size(); ++i) {
    if (raw.rows[i].timestamp - raw.rows[i - 1].timestamp > 4 * cap.period_ticks) gap = true;
  }
  EXPECT_TRUE(gap);
  EXPECT_EQ(raw.rows.back().report + 1, emu::raw_file(cap).size() / 256);
}

TEST(EmuModel, TailAheadLeavesZeroReports) {
  const auto cap = run(make(platform::tgl, "A36_B8_C8", "tail-ahead"));
  EXPECT_GT(cap.stats.unlanded_reads, 0u);
  const auto raw = emu::raw_file(cap);
  std::size_t zeros = 0;
  for (std::size_t at = 0; at < raw.size(); at += 256)
    zeros += hwpc::load_le32(raw.data() + at) == 0;
  EXPECT_EQ(zeros, cap.stats.unlanded_reads);
  // The ring snapshot: the tail moves in 64-byte steps and the newest report
  // is in flight, so the tail may stop inside it, or cover it unlanded.
  bool mid_report = false;
  bool unlanded_last = false;
  for (std::uint64_t seed = 1; seed < 40; ++seed) {
    const auto c = run(make(platform::tgl, "A36_B8_C8", "tail-ahead", seed));
    EXPECT_EQ(c.ring.tail % 64, 0u);
    mid_report |= (c.ring.tail - c.ring.base) % 256 != 0;
    unlanded_last |= !c.ring.window.empty() && c.ring.window.back() == emu::read_item::npos;
  }
  EXPECT_TRUE(mid_report);
  EXPECT_TRUE(unlanded_last);
}

TEST(EmuModel, ReportLostCollisions) {
  const auto cap = run(make(platform::hsw, "A29", "report-lost"));
  EXPECT_GE(cap.stats.lost_collisions, 1u);
  EXPECT_EQ(cap.mi_rpc.size(), cap.stats.lost_collisions);
  std::size_t records = 0;
  for (const auto& it : cap.read) records += it.k == emu::read_item::kind::report_lost;
  EXPECT_GE(records, 1u);
  // MI_RPC reports carry the software report id and are not in the ring.
  for (std::size_t i : cap.mi_rpc) {
    EXPECT_FALSE(cap.reports[i].to_ring);
    EXPECT_GE(cap.reports[i].rpt_id, 0x1000u);
  }
}

TEST(EmuModel, RingHeadAndTail) {
  auto c = make(platform::hsw, "A13");
  c.reports = 300;
  const auto cap = run(c);
  EXPECT_EQ(cap.ring.bytes.size(), 128u * 1024u);
  EXPECT_EQ(cap.ring.base, 0x01000000u);
  const std::uint32_t used = (cap.ring.tail - cap.ring.head) % (128u * 1024u);
  EXPECT_EQ(used / 64, cap.ring.window.size());
  for (std::size_t k = 0; k < cap.ring.window.size(); ++k) {
    const std::size_t at = (cap.ring.head - cap.ring.base + 64 * k) % (128u * 1024u);
    EXPECT_EQ(hwpc::load_le32(cap.ring.bytes.data() + at), cap.reports[cap.ring.window[k]].rpt_id);
  }
  // Consumed slots have RPT_ID cleared, as i915 does after copying.
  const std::size_t before = (cap.ring.head - cap.ring.base + 128u * 1024u - 64) % (128u * 1024u);
  EXPECT_EQ(hwpc::load_le32(cap.ring.bytes.data() + before), 0u);
}

TEST(EmuModel, StreamAndRecordingRecordSizes) {
  const auto cap = run(make(platform::kbl, "A12_B8_C8", "report-lost"));
  const auto rec = emu::recording(cap).value();
  std::vector<std::pair<std::uint32_t, std::uint16_t>> recs;
  for (std::size_t at = 0; at < rec.size();) {
    recs.emplace_back(hwpc::load_le32(rec.data() + at), hwpc::load_le16(rec.data() + at + 6));
    ASSERT_GE(recs.back().second, 8u);
    EXPECT_EQ(recs.back().second % 8, 0u);
    at += recs.back().second;
    ASSERT_LE(at, rec.size());
  }
  ASSERT_GE(recs.size(), 6u);
  EXPECT_EQ(recs[0], (std::pair<std::uint32_t, std::uint16_t>{65536, 16}));
  EXPECT_EQ(recs[1], (std::pair<std::uint32_t, std::uint16_t>{65537, 8 + 336}));
  EXPECT_EQ(recs[2].first, 65538u);
  EXPECT_EQ(recs[3], (std::pair<std::uint32_t, std::uint16_t>{65539, 24}));
  EXPECT_EQ(recs.back(), (std::pair<std::uint32_t, std::uint16_t>{65539, 24}));
  std::size_t samples = 0;
  for (const auto& [type, size] : recs) {
    if (type == 1) {
      ++samples;
      EXPECT_EQ(size, 8u + 128u);
    }
    if (type == 2 || type == 3) {
      EXPECT_EQ(size, 8u);
    }
  }
  EXPECT_EQ(samples, emu::report_sequence(cap, emu::output_kind::i915_stream)->size());
  // DEVICE_INFO: timestamp frequency, device id, oa_format (uapi 9 = A12_B8_C8).
  EXPECT_EQ(hwpc::load_le64(rec.data() + 16 + 8), 12'000'000u);
  EXPECT_EQ(hwpc::load_le32(rec.data() + 24 + 32), 9u);
  // Topology: 8 u16 then masks: 1 slice, 3 subslices, 8 EUs each.
  const std::byte* topo = rec.data() + 16 + 344 + 8;
  EXPECT_EQ(hwpc::load_le16(topo + 2), 1u);
  EXPECT_EQ(hwpc::load_le16(topo + 4), 3u);
  EXPECT_EQ(hwpc::load_le16(topo + 6), 8u);
  // Formats without a uapi id cannot be named by a recording.
  EXPECT_FALSE(emu::recording(run(make(platform::ivb, "A16"))).has_value());
}

TEST(EmuModel, FormatsThatFitNoBufferUseMiRpc) {
  const auto cap = run(make(platform::hsw, "A29_B8_C8"));
  EXPECT_TRUE(cap.mi_rpc_mode);
  EXPECT_EQ(emu::raw_file(cap).size(), 64u * 192u);
  EXPECT_FALSE(emu::i915_stream(cap).has_value());
  // IVB's A29_B4 is 192 bytes too, but 48 KiB (size field 2) holds whole reports.
  const auto ivb = run(make(platform::ivb, "A29_B4"));
  EXPECT_FALSE(ivb.mi_rpc_mode);
  EXPECT_EQ(ivb.buffer_bytes, 48u * 1024u);
}

TEST(EmuModel, TruthCsvHeaderAndRows) {
  const auto cap = run(make(platform::bdw, "C4_B8"));
  const auto t = emu::truth_for(cap, emu::output_kind::raw).value();
  const std::string csv = emu::truth_csv(t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "report,timestamp,GPU_TICKS,B0,B1,B2,B3,B4,B5,B6,B7,C0,C1,C2,C3");
  EXPECT_EQ(t.rows.front().report, 1u);
  EXPECT_EQ(t.rows.size() + 1, emu::raw_file(cap).size() / 64);
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), t.rows.size() + 1);
}

TEST(EmuModel, ConfigErrors) {
  EXPECT_FALSE(emu::emulate(make(platform::tgl, "A12")).has_value());
  auto c = make(platform::hsw, "A13");
  c.exponent = 30;
  EXPECT_EQ(emu::emulate(c).error_value().code, hwpc::errc::out_of_range);
  c.exponent = 10;
  c.reports = 1;
  EXPECT_FALSE(emu::emulate(c).has_value());
  EXPECT_FALSE(emu::parse_faults("wrap,bogus").has_value());
  EXPECT_EQ(emu::to_string(emu::parse_faults("report-lost,wrap").value()), "wrap,report-lost");
}

TEST(EmuModel, DefaultCapture) {
  const auto d = emu::default_capture();
  EXPECT_EQ(d.raw.size(), 64u * 256u);
  EXPECT_EQ(d.truth.rows.size(), 63u);
  EXPECT_EQ(d.truth.names.size(), 61u);
  EXPECT_EQ(emu::default_capture().raw, d.raw);
  EXPECT_TRUE(d.truth.representable);
}

}  // namespace
