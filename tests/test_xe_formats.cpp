// The Xe driver's formats (formats_xe.hpp) held to layouts written out here
// from ../shared/docs/FACTS-xe.md sections 2 and 3, independently of the
// decoder's tables: every field of every format both ways (the table's field
// list equals the spec's; bytes packed by this file's own code decode to the
// values put there), a report written byte by byte, seeded random round
// trips, key / IGT-number / PCI-id lookups and the Xe2 RPT_ID rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/input_kind.hpp"
#include "hwpc/intel/pci_ids.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/intel/rpt_id.hpp"

namespace {

using namespace hwpc;
using namespace hwpc::intel;

// One field as the facts describe it: byte offset, width, and for 40-bit
// counters the byte holding bits 39:32.
struct spec_field {
  std::string name;
  unsigned offset;
  unsigned bits;
  unsigned high = 0;
};
using spec = std::vector<spec_field>;

spec header32() {  // dw0 RPT_ID, dw1 TIMESTAMP, dw2 CTX_ID, dw3 GPU_TICKS
  return {{"RPT_ID", 0, 32}, {"TIMESTAMP", 4, 32}, {"CTX_ID", 8, 32}, {"GPU_TICKS", 12, 32}};
}
spec header64() {  // qw0 RPT_ID, qw1 TIMESTAMP, dw4 CTX_ID, qw3 GPU_TICKS
  return {{"RPT_ID", 0, 64}, {"TIMESTAMP", 8, 64}, {"CTX_ID", 16, 32}, {"GPU_TICKS", 24, 64}};
}
void add(spec& s, const std::string& bank, unsigned first, unsigned count, unsigned byte,
         unsigned bits) {
  for (unsigned k = 0; k < count; ++k) {
    s.push_back({bank + std::to_string(first + k), byte + k * (bits / 8), bits});
  }
}
void add_bc(spec& s, unsigned b_byte, unsigned c_byte) {
  add(s, "B", 0, 8, b_byte, 32);
  add(s, "C", 0, 8, c_byte, 32);
}

std::map<std::string, spec> facts_layouts() {
  std::map<std::string, spec> m;
  {  // Gen8 C4_B8: B0..B7 dw8..15, C0..C3 dw4..7 (listed B first, as the tables do)
    spec s = header32();
    add(s, "B", 0, 8, 32, 32);
    add(s, "C", 0, 4, 16, 32);
    m["C4_B8"] = s;
  }
  {  // Gen8 A12: A7..A18 at dw4..15
    spec s = header32();
    add(s, "A", 7, 12, 16, 32);
    m["A12"] = s;
    add_bc(s, 64, 96);
    m["A12_B8_C8"] = s;
  }
  {  // A32u40_A4u32_B8_C8: A0..A31 40-bit (dw4+i, byte 160+i), A32..35 dw36..39
    spec s = header32();
    for (unsigned i = 0; i < 32; ++i)
      s.push_back({"A" + std::to_string(i), 16 + 4 * i, 40, 160 + i});
    add(s, "A", 32, 4, 144, 32);
    add_bc(s, 192, 224);
    m["A32u40_A4u32_B8_C8"] = s;
    m["OAR_A32u40_A4u32_B8_C8"] = s;
  }
  {  // A24u40_A14u32_B8_C8
    spec s = header32();
    for (unsigned i = 0; i < 38; ++i) {
      const std::string n = "A" + std::to_string(i);
      if (i < 4 || (i >= 24 && i < 28) || (i >= 32 && i < 36)) {
        s.push_back({n, 16 + 4 * i, 32});
      } else if (i < 32) {
        s.push_back({n, 16 + 4 * i, 40, 160 + i});
      } else if (i == 36) {
        s.push_back({n, 160, 32});  // dw40
      } else {
        s.push_back({n, 184, 32});  // dw46
      }
    }
    add_bc(s, 192, 224);
    m["A24u40_A14u32_B8_C8"] = s;
  }
  {  // OAC A24u64_B8_C8: only A28..A35 (u64 at 160..223), B at 224, C at 256 known
    spec s = header64();
    add(s, "A", 28, 8, 160, 64);
    add_bc(s, 224, 256);
    m["OAC_A24u64_B8_C8"] = s;
    m["OAC_A22u32_R2u32_B8_C8"] = header64();
  }
  {  // MPEC8u64: MPEC u64 at 32..95, B 96, C 128; MPEC8u32: MPEC dw8..15, B dw16, C dw24
    spec s = header64();
    add(s, "MPEC", 0, 8, 32, 64);
    add_bc(s, 96, 128);
    m["MPEC8u64_B8_C8"] = s;
    spec t = header64();
    add(t, "MPEC", 0, 8, 32, 32);
    add_bc(t, 64, 96);
    m["MPEC8u32_B8_C8"] = t;
  }
  {  // PEC formats
    spec s = header64();
    add(s, "PEC", 0, 64, 32, 64);
    m["PEC64u64"] = s;
    add_bc(s, 576, 608);
    m["PEC64u64_B8_C8"] = s;
    spec t = header64();
    add(t, "PEC", 0, 64, 32, 32);
    m["PEC64u32"] = t;
    for (unsigned g : {1u, 2u}) {
      spec a = header64(), b = header64();
      add(a, "PEC", g == 1 ? 0 : 32, 32, 32, 64);
      add(b, "PEC", g == 1 ? 0 : 32, 32, 32, 32);
      m["PEC32u64_G" + std::to_string(g)] = a;
      m["PEC32u32_G" + std::to_string(g)] = b;
    }
    spec c = header64();
    add(c, "PEC", 0, 32, 32, 64);
    add(c, "PEC", 32, 4, 288, 64);
    m["PEC36u64_G1_32_G2_4"] = c;
    spec d = header64();
    add(d, "PEC", 0, 4, 32, 64);
    add(d, "PEC", 32, 32, 64, 64);
    m["PEC36u64_G1_4_G2_32"] = d;
  }
  return m;
}

void pack(std::vector<std::byte>& r, const spec_field& f, std::uint64_t v) {
  const unsigned n = f.bits == 64 ? 8 : 4;
  for (unsigned k = 0; k < n; ++k) r.at(f.offset + k) = std::byte((v >> (8 * k)) & 0xff);
  if (f.bits == 40) r.at(f.high) = std::byte((v >> 32) & 0xff);
}
std::uint64_t width_mask(unsigned bits) {
  return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// The kernel's table (FACTS-xe.md section 2): name, type, select, size, counter size, BC.
struct table_row {
  const char* name;
  unsigned type, select, size, counter_size, bc;
  bool header64;
};
constexpr table_row kernel_table[] = {
    {"C4_B8", 0, 7, 64, 0, 0, false},
    {"A12", 0, 0, 64, 0, 0, false},
    {"A12_B8_C8", 0, 2, 128, 0, 0, false},
    {"A32u40_A4u32_B8_C8", 0, 5, 256, 0, 0, false},
    {"OAR_A32u40_A4u32_B8_C8", 1, 5, 256, 0, 0, false},
    {"A24u40_A14u32_B8_C8", 0, 5, 256, 0, 0, false},
    {"OAC_A24u64_B8_C8", 3, 1, 320, 0, 0, true},
    {"OAC_A22u32_R2u32_B8_C8", 3, 2, 192, 0, 0, true},
    {"MPEC8u64_B8_C8", 4, 1, 192, 0, 0, true},
    {"MPEC8u32_B8_C8", 4, 2, 128, 0, 0, true},
    {"PEC64u64", 5, 1, 576, 1, 0, true},
    {"PEC64u64_B8_C8", 5, 1, 640, 1, 1, true},
    {"PEC64u32", 5, 1, 320, 0, 0, true},
    {"PEC32u64_G1", 5, 5, 320, 1, 0, true},
    {"PEC32u32_G1", 5, 5, 192, 0, 0, true},
    {"PEC32u64_G2", 5, 6, 320, 1, 0, true},
    {"PEC32u32_G2", 5, 6, 192, 0, 0, true},
    {"PEC36u64_G1_32_G2_4", 5, 3, 320, 1, 0, true},
    {"PEC36u64_G1_4_G2_32", 5, 4, 320, 1, 0, true},
};

TEST(XeFormats, TheTableIsTheKernelsRowForRow) {
  ASSERT_EQ(xe_formats.size(), std::size(kernel_table));
  for (std::size_t i = 0; i < xe_formats.size(); ++i) {
    const xe_format& x = xe_formats[i];
    const table_row& t = kernel_table[i];
    SCOPED_TRACE(t.name);
    EXPECT_EQ(x.name, t.name);
    EXPECT_EQ(x.kernel_id, static_cast<int>(i));
    EXPECT_EQ(x.igt_id, static_cast<int>(i) + 1);
    EXPECT_EQ(x.key.pack(), t.type | (t.select << 8) | (t.counter_size << 16) | (t.bc << 24));
    EXPECT_EQ(x.layout.size, t.size);
    EXPECT_EQ(x.header64, t.header64);
  }
}

TEST(XeFormats, EveryFieldOfEveryFormatIsTheFactsLayout) {
  const auto facts = facts_layouts();
  ASSERT_EQ(facts.size(), xe_formats.size());
  for (const xe_format& x : xe_formats) {
    SCOPED_TRACE(std::string(x.name));
    const auto it = facts.find(std::string(x.name));
    ASSERT_NE(it, facts.end());
    const spec& s = it->second;
    // Table -> spec: the same fields, in the same order, at the same places.
    ASSERT_EQ(x.layout.fields.size(), s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      const field& f = x.layout.fields[i];
      EXPECT_EQ(f.name, s[i].name);
      EXPECT_EQ(f.offset, s[i].offset) << s[i].name;
      EXPECT_EQ(f.bits, s[i].bits) << s[i].name;
      EXPECT_EQ(f.high_byte_offset, s[i].high) << s[i].name;
    }
    // Spec -> decoder: distinct values packed by this file decode by name.
    std::vector<std::byte> r(x.layout.size, std::byte{0xee});
    std::uint64_t v = 0x0102030405060708ull;
    std::vector<std::uint64_t> put;
    for (const auto& f : s) {
      v = v * 0x9e3779b97f4a7c15ull + 1;
      pack(r, f, v);
      put.push_back(v & width_mask(f.bits));
    }
    const report_view view(r.data(), x.layout);
    for (std::size_t i = 0; i < s.size(); ++i) {
      EXPECT_EQ(view[s[i].name], put[i]) << s[i].name;
    }
    EXPECT_EQ(view.timestamp(), put[1]);
    EXPECT_EQ(view.ctx_id(), x.layout.find("CTX_ID") ? put[2] : 0u);
  }
}

TEST(XeFormats, SeededRandomRoundTripsThroughTheDecoder) {
  const auto facts = facts_layouts();
  std::mt19937_64 rng(0x5e2);
  for (const xe_format& x : xe_formats) {
    const spec& s = facts.at(std::string(x.name));
    for (int round = 0; round < 50; ++round) {
      std::vector<std::byte> r(x.layout.size);
      for (auto& b : r) b = std::byte(rng());
      std::vector<std::uint64_t> put;
      for (const auto& f : s) {
        const std::uint64_t v = rng() & width_mask(f.bits);
        pack(r, f, v);
        put.push_back(v);
      }
      const report_view view(r.data(), x.layout);
      for (std::size_t i = 0; i < s.size(); ++i) {
        ASSERT_EQ(view.value(x.layout.fields[i]), put[i]) << x.name << " " << s[i].name;
      }
    }
  }
}

TEST(XeFormats, APec64u64ReportWrittenByteByByte) {
  // RPT_ID 0x00090001 (timer reason, bit 16 context valid), high dword 0x11;
  // TIMESTAMP 0x0000000a_12345678; CTX_ID 0x42; GPU_TICKS 0x00000001_00000002;
  // PEC0 = 0x8877665544332211, PEC63 = 0xffffffffffffffff, PEC1 = 7.
  std::vector<std::byte> r(576, std::byte{0});
  const unsigned char head[32] = {0x01, 0x00, 0x09, 0x00, 0x11, 0x00, 0x00, 0x00,   //
                                  0x78, 0x56, 0x34, 0x12, 0x0a, 0x00, 0x00, 0x00,   //
                                  0x42, 0x00, 0x00, 0x00, 0xaa, 0xbb, 0xcc, 0xdd,   //
                                  0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};  //
  for (int i = 0; i < 32; ++i) r[i] = std::byte{head[i]};
  const unsigned char pec0[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
  for (int i = 0; i < 8; ++i) r[32 + i] = std::byte{pec0[i]};
  r[40] = std::byte{7};
  for (int i = 536; i < 544; ++i) r[i] = std::byte{0xff};
  const xe_format* x = find_xe_format(platform::lnl, 0x00010105u);
  ASSERT_NE(x, nullptr);
  const report_view v(r.data(), x->layout);
  EXPECT_EQ(v["RPT_ID"], 0x0000001100090001ull);
  EXPECT_EQ(v.rpt_id(), 0x00090001u);
  EXPECT_EQ(v.timestamp(), 0x0000000a12345678ull);
  EXPECT_EQ(v.ctx_id(), 0x42u);
  EXPECT_EQ(v["GPU_TICKS"], 0x0000000100000002ull);
  EXPECT_EQ(v["PEC0"], 0x8877665544332211ull);
  EXPECT_EQ(v["PEC1"], 7u);
  EXPECT_EQ(v["PEC2"], 0u);
  EXPECT_EQ(v["PEC63"], ~std::uint64_t{0});
  const rpt_id_fields f = v.rpt(generation::xe2);
  EXPECT_TRUE(f.context_valid);
  EXPECT_EQ(f.reasons, report_reason::timer);
  // Bytes 20..23 (0xddccbbaa) belong to no field.
  for (const auto& fd : x->layout.fields) EXPECT_FALSE(fd.offset == 20) << fd.name;
}

TEST(XeFormats, LookupByPackedValueNeedsThePlatform) {
  // OAG select 5: A32u40 on Gen12, A24u40 on DG2/MTL, nothing on Xe2.
  EXPECT_EQ(find_xe_format(platform::tgl, 0x0500u)->name, "A32u40_A4u32_B8_C8");
  EXPECT_EQ(find_xe_format(platform::dg2, 0x0500u)->name, "A24u40_A14u32_B8_C8");
  EXPECT_EQ(find_xe_format(platform::mtl, 0x0500u)->name, "A24u40_A14u32_B8_C8");
  EXPECT_EQ(find_xe_format(platform::lnl, 0x0500u), nullptr);
  EXPECT_EQ(find_xe_format(platform::mtl, 0x0501u)->name, "OAR_A32u40_A4u32_B8_C8");
  EXPECT_EQ(find_xe_format(platform::tgl, 0x0501u), nullptr);  // no OAR on Gen12
  EXPECT_EQ(find_xe_format(platform::bmg, 0x00010105u)->name, "PEC64u64");
  EXPECT_EQ(find_xe_format(platform::ptl, 0x01010105u)->name, "PEC64u64_B8_C8");
  EXPECT_EQ(find_xe_format(platform::lnl, 0x00000105u)->name, "PEC64u32");
  EXPECT_EQ(find_xe_format(platform::lnl, 0x00010305u)->name, "PEC36u64_G1_32_G2_4");
  EXPECT_EQ(find_xe_format(platform::mtl, 0x00010105u), nullptr);  // PEC is Xe2+
  EXPECT_EQ(find_xe_format(platform::lnl, 0x0204u)->name, "MPEC8u32_B8_C8");
  EXPECT_EQ(find_xe_format(platform::mtl, 0x0104u)->name, "MPEC8u64_B8_C8");
  EXPECT_EQ(find_xe_format(platform::dg2, 0x0204u), nullptr);  // no OAM on DG2
  EXPECT_EQ(find_xe_format(platform::dg2, 0x0103u)->name, "OAC_A24u64_B8_C8");
  EXPECT_EQ(find_xe_format(platform::lnl, 0x100010105ull), nullptr);  // bits above 31
  EXPECT_EQ(find_xe_format(platform::lnl, 0x00010106u), nullptr);     // no type 6
  EXPECT_EQ(find_xe_format(platform::lnl, "PEC64u64")->key.pack(), 0x00010105u);
}

TEST(XeFormats, IgtNumbersAreOneBased) {
  // The numbers IGT's metric sets use (FACTS-xe.md section 7).
  EXPECT_EQ(find_xe_format_by_igt_id(4)->name, "A32u40_A4u32_B8_C8");
  EXPECT_EQ(find_xe_format_by_igt_id(6)->name, "A24u40_A14u32_B8_C8");
  EXPECT_EQ(find_xe_format_by_igt_id(10)->name, "MPEC8u32_B8_C8");
  EXPECT_EQ(find_xe_format_by_igt_id(11)->name, "PEC64u64");
  EXPECT_EQ(find_xe_format_by_igt_id(0), nullptr);
  EXPECT_EQ(find_xe_format_by_igt_id(20), nullptr);
}

TEST(XeFormats, OnlyLayoutsThePublicSourcesShowAreVerified) {
  std::vector<std::string> verified;
  for (const auto& x : xe_formats) {
    if (x.verified) verified.emplace_back(x.name);
    EXPECT_FALSE(x.evidence.empty());
  }
  const std::vector<std::string> expect = {"C4_B8",
                                           "A32u40_A4u32_B8_C8",
                                           "OAR_A32u40_A4u32_B8_C8",
                                           "A24u40_A14u32_B8_C8",
                                           "MPEC8u64_B8_C8",
                                           "MPEC8u32_B8_C8",
                                           "PEC64u64"};
  EXPECT_EQ(verified, expect);
}

TEST(XePlatforms, NamesGenerationsAndPciIds) {
  EXPECT_EQ(platform_from_name("lnl"), platform::lnl);
  EXPECT_EQ(platform_from_name("bmg"), platform::bmg);
  EXPECT_EQ(platform_from_name("ptl"), platform::ptl);
  EXPECT_EQ(generation_of(platform::lnl), generation::xe2);
  EXPECT_EQ(generation_of(platform::bmg), generation::xe2);
  EXPECT_EQ(generation_of(platform::ptl), generation::xe3);
  const std::pair<std::uint32_t, platform> ids[] = {
      {0x6420, platform::lnl}, {0x64a0, platform::lnl}, {0x64b0, platform::lnl},
      {0xe202, platform::bmg}, {0xe20b, platform::bmg}, {0xe216, platform::bmg},
      {0xe223, platform::bmg}, {0xb080, platform::ptl}, {0xb087, platform::ptl},
      {0xb08f, platform::ptl}, {0xb0b0, platform::ptl}, {0xfd80, platform::ptl},
      {0xfd81, platform::ptl}};
  for (const auto& [id, p] : ids) EXPECT_EQ(platform_from_pci_id(id), p) << std::hex << id;
  EXPECT_FALSE(platform_from_pci_id(0xb088));  // between PTL ranges
  EXPECT_FALSE(platform_from_pci_id(0xe201));
  EXPECT_EQ(platform_from_pci_id(0x7d40), platform::mtl);  // i915 table still answers
}

TEST(XeRptId, Xe2ReasonsAreSixBitsAndBit25IsSliceClock) {
  // bits 24:19 = 0b101001 (timer, ctx-switch, clock-ratio), bit 16, bit 25 set,
  // unslice clock 0x155 in bits 8:0, bits 10:9 = 0b10.
  const std::uint32_t v = (0x29u << 19) | (1u << 16) | (1u << 25) | 0x155u | (2u << 9);
  const rpt_id_fields x = decode_rpt_id(generation::xe2, v);
  EXPECT_EQ(x.reasons,
            report_reason::timer | report_reason::context_switch | report_reason::clock_ratio);
  EXPECT_FALSE(has(x.reasons, report_reason::mmio_trigger));
  EXPECT_TRUE(x.context_valid);
  EXPECT_TRUE(x.has_clock_fields);
  EXPECT_EQ(x.slice_clock, 1u | (2u << 7));
  EXPECT_EQ(x.unslice_clock, 0x155u);
  EXPECT_EQ(reason_names(x), "timer|ctx-switch|clock-ratio");
  // The same dword on Gen12 (MTL): bit 25 is the MMIO trigger, no clock fields.
  const rpt_id_fields g = decode_rpt_id(generation::gen12_7, v);
  EXPECT_TRUE(has(g.reasons, report_reason::mmio_trigger));
  EXPECT_FALSE(g.has_clock_fields);
  // Xe3 as Xe2; context valid needs bit 16.
  EXPECT_FALSE(decode_rpt_id(generation::xe3, 1u << 19).context_valid);
  EXPECT_EQ(decode_rpt_id(generation::xe3, 1u << 19).reasons, report_reason::timer);
}

}  // namespace

// The input kinds and format names hwpc decode and the Python package share
// (input_kind.hpp): one parser, one resolution order.
TEST(InputKind, NamesNumbersAndFormatResolution) {
  EXPECT_EQ(parse_input_kind("raw"), input_kind::raw);
  EXPECT_EQ(parse_input_kind("i915-stream"), input_kind::i915_stream);
  EXPECT_EQ(parse_input_kind("xe-stream"), input_kind::xe_stream);
  EXPECT_EQ(parse_input_kind("recording"), input_kind::recording);
  EXPECT_FALSE(parse_input_kind("stream"));
  const std::vector<std::byte> zeros(256);
  EXPECT_EQ(detect_input_kind(zeros), input_kind::raw);

  EXPECT_EQ(parse_format_number("0x10"), 16u);
  EXPECT_EQ(parse_format_number("010"), 10u);  // decimal, not octal
  EXPECT_FALSE(parse_format_number("0x"));
  EXPECT_FALSE(parse_format_number(" 16"));
  EXPECT_FALSE(parse_format_number("4294967296"));

  // The i915 table's name: no Xe row.
  auto f = resolve_report_format(platform::hsw, "A45_B8_C8", input_kind::raw);
  EXPECT_EQ(f.format, find_format(platform::hsw, "A45_B8_C8"));
  ASSERT_NE(f.format, nullptr);
  EXPECT_EQ(f.xe, nullptr);
  // The Xe driver's, by name and by packed OA_FORMAT (decimal or hex).
  const xe_format* pec = find_xe_format(platform::lnl, "PEC64u64");
  ASSERT_NE(pec, nullptr);
  const std::uint64_t packed = pec->key.pack();
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(packed));
  for (const std::string& name :
       {std::string("PEC64u64"), std::to_string(packed), std::string(hex)}) {
    SCOPED_TRACE(name);
    auto r = resolve_report_format(platform::lnl, name, input_kind::xe_stream);
    EXPECT_EQ(r.xe, pec);
    EXPECT_EQ(r.format, &pec->layout);
  }
  auto none = resolve_report_format(platform::lnl, "NoSuchFormat", input_kind::raw);
  EXPECT_EQ(none.format, nullptr);
  EXPECT_EQ(none.xe, nullptr);
}
