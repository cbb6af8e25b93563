// Golden tests of every report format, built byte by byte from the PRM tables.
//
// Each table below is a transcription of the layout as the PRM prints it:
// rows of eight dword cells, the leftmost cell the highest dword and the
// rightmost the lowest (RPT_ID "is always stored in the lowest addressed
// DWORD"). Cell notation:
//   "-"        reserved,  "."  the empty cell the Gen6/7 tables show beside
//              TIME_STAMP (decided: reserved dword, docs/formats.md),
//   "A7"       a 32-bit value (or the low dword of a 40-bit counter),
//   "T:lo" / "T:hi"  the halves of a 64-bit field,
//   "A3^A2^A1^A0"    a dword of 40-bit high bytes, highest byte first.
// The test fills every dword with a distinct value, lays the bytes out
// little-endian by hand, and checks that the decoder reads every field of
// its table exactly as the transcription says — and that the two agree on
// which fields exist.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/report.hpp"

namespace {

using namespace hwpc::intel;

struct transcription {
  platform plat;
  unsigned counter_select;
  const char* name;
  std::vector<std::string> rows;  // top row first (dw7..dw0)
};

std::string desc(int hi, int lo, const char* prefix) {  // "A4 A3 A2 A1 A0" style, descending
  std::string s;
  for (int i = hi; i >= lo; --i) s += std::string(prefix) + std::to_string(i) + " ";
  return s;
}
std::string asc(int lo, int hi, const char* prefix) {  // SNB rows: ascending left to right
  std::string s;
  for (int i = lo; i <= hi; ++i) s += std::string(prefix) + std::to_string(i) + " ";
  return s;
}
std::string hi_bytes(int top) {  // "A{top}^A{top-1}^A{top-2}^A{top-3}"
  return "A" + std::to_string(top) + "^A" + std::to_string(top - 1) + "^A" +
         std::to_string(top - 2) + "^A" + std::to_string(top - 3);
}

const std::string reserved_row = "- - - - - - - -";
const std::string gen7_hdr = "TIME_STAMP . RPT_ID";
const std::string gen8_hdr = "GPU_TICKS CTX_ID TIME_STAMP RPT_ID";

std::vector<transcription> prm_tables() {
  std::vector<transcription> t;
  // SNB PRM, "[DevSNB]" tables: A0 leftmost in each row.
  const std::string snb_r0 = asc(0, 4, "A") + gen7_hdr, snb_r1 = asc(5, 12, "A");
  const std::string snb_r2 = asc(13, 20, "A"), snb_r3 = asc(21, 28, "A");
  const std::string snb_b = "- - - - B3 B2 B1 B0";
  t.push_back({platform::snb, 0, "A13", {snb_r0, snb_r1}});
  t.push_back({platform::snb, 1, "A29", {snb_r0, snb_r1, snb_r2, snb_r3}});
  t.push_back({platform::snb, 2, "A13_B4", {snb_r0, snb_r1, snb_b, reserved_row}});
  t.push_back({platform::snb, 3, "A29_B4", {snb_r0, snb_r1, snb_r2, snb_r3, snb_b, reserved_row}});
  // IVB/VLV PRM tables: A0 rightmost after the header.
  const std::string r0 = desc(4, 0, "A") + gen7_hdr, r1 = desc(12, 5, "A");
  const std::string r2 = desc(20, 13, "A"), r3 = desc(28, 21, "A");
  const std::string r4 = desc(36, 29, "A"), r5 = desc(44, 37, "A");
  const std::string b4 = "- - - - B3 B2 B1 B0", b8 = desc(7, 0, "B"), c8 = desc(7, 0, "C");
  for (platform p : {platform::ivb, platform::vlv}) {
    t.push_back({p, 0, "A13", {r0, r1}});
    t.push_back({p, 1, "A29", {r0, r1, r2, r3}});
    t.push_back({p, 2, "A13_B4", {r0, r1, b4, reserved_row}});
    t.push_back({p, 3, "A29_B4", {r0, r1, r2, r3, b4, reserved_row}});
    t.push_back({p, 5, "A45_B4", {r0, r1, r2, r3, r4, r5, b4, reserved_row}});
    t.push_back({p, 6, "A16", {"- - - - - " + gen7_hdr, reserved_row, r4, r5}});
  }
  // HSW PRM tables. Rows the PRM marks "Reserved" where the uapi name
  // promises C counters are transcribed as C counters (docs/formats.md).
  const std::string inst = "B3 B2 B1 B0 INST_ADD " + gen7_hdr;
  t.push_back({platform::hsw, 0, "A13", {r0, r1}});
  t.push_back({platform::hsw, 1, "A29", {r0, r1, r2, r3}});
  t.push_back({platform::hsw, 2, "A13_B8_C8", {r0, r1, b8, c8}});
  t.push_back({platform::hsw, 3, "A29_B8_C8", {r0, r1, r2, r3, b8, c8}});
  t.push_back({platform::hsw, 4, "B4_C8", {inst, c8}});
  t.push_back({platform::hsw, 5, "A45_B8_C8", {r0, r1, r2, r3, r4, r5, b8, c8}});
  t.push_back({platform::hsw, 6, "B4_C8_A16", {inst, c8, r4, r5}});
  t.push_back({platform::hsw, 7, "C4_B8", {"C3 C2 C1 C0 INST_ADD " + gen7_hdr, b8}});
  // SKL PRM vol 14 (Gen8+), counter select 000, 010, 111; 101b per FACTS.md.
  const std::string g0 = desc(10, 7, "A") + gen8_hdr, g1 = desc(18, 11, "A");
  for (platform p : {platform::bdw, platform::skl, platform::icl}) {
    t.push_back({p, 0, "A12", {g0, g1}});
    t.push_back({p, 2, "A12_B8_C8", {g0, g1, b8, c8}});
  }
  const std::string u40_hi = hi_bytes(31) + " " + hi_bytes(27) + " " + hi_bytes(23) + " " +
                             hi_bytes(19) + " " + hi_bytes(15) + " " + hi_bytes(11) + " " +
                             hi_bytes(7) + " " + hi_bytes(3);
  const std::vector<std::string> a36 = {desc(3, 0, "A") + gen8_hdr,
                                        desc(11, 4, "A"),
                                        desc(19, 12, "A"),
                                        desc(27, 20, "A"),
                                        desc(35, 28, "A"),
                                        u40_hi,
                                        b8,
                                        c8};
  for (platform p : {platform::bdw, platform::skl, platform::tgl}) {
    t.push_back({p, 5, "A36_B8_C8", a36});
    t.push_back({p, 7, "C4_B8", {"C3 C2 C1 C0 " + gen8_hdr, b8}});
  }
  // Xe-HPG A24u40_A14u32_B8_C8 (FACTS.md): A0..A3 and A24..A27 are 32-bit.
  const std::string hpg_hi = hi_bytes(31) + " A37 " + hi_bytes(23) + " " + hi_bytes(19) + " " +
                             hi_bytes(15) + " " + hi_bytes(11) + " " + hi_bytes(7) + " A36";
  t.push_back({platform::dg2,
               5,
               "A24u40_A14u32_B8_C8",
               {desc(3, 0, "A") + gen8_hdr, desc(11, 4, "A"), desc(19, 12, "A"), desc(27, 20, "A"),
                desc(35, 28, "A"), hpg_hi, b8, c8}});
  // MTL OAM MPEC8u32_B8_C8 (FACTS.md): 64-bit TIME_STAMP and clock.
  t.push_back({platform::mtl,
               2,
               "MPEC8u32_B8_C8",
               {"GPU_TICKS:hi GPU_TICKS:lo - - TIMESTAMP:hi TIMESTAMP:lo - RPT_ID",
                desc(7, 0, "MPEC"), b8, c8}});
  return t;
}

std::vector<std::string> cells_of(const std::string& row) {
  std::istringstream in(row);
  std::vector<std::string> cells;
  for (std::string c; in >> c;) cells.push_back(c == "TIME_STAMP" ? "TIMESTAMP" : c);
  // Decision (docs/formats.md): on Gen6/7 "TIME_STAMP" and the empty cell to
  // its right are one merged cell; the 32-bit TIME_STAMP is its lower dword
  // (dw1, where i915 and IGT read it) and the upper dword (dw2) is reserved.
  for (std::size_t i = 0; i + 1 < cells.size(); ++i) {
    if (cells[i] == "TIMESTAMP" && cells[i + 1] == ".") {
      cells[i] = "-";
      cells[i + 1] = "TIMESTAMP";
    }
  }
  return cells;
}

class GoldenLayout : public ::testing::TestWithParam<transcription> {};

TEST_P(GoldenLayout, EveryFieldReadsTheBytesThePrmTableNames) {
  const transcription& tr = GetParam();
  const report_format* f = find_format(tr.plat, static_cast<std::uint8_t>(tr.counter_select));
  ASSERT_NE(f, nullptr) << name_of(tr.plat) << " select " << tr.counter_select;
  EXPECT_EQ(f->name, tr.name);
  ASSERT_EQ(f->size, tr.rows.size() * 32) << tr.name;

  std::mt19937 rng(tr.counter_select * 131 + static_cast<unsigned>(tr.plat));
  std::vector<std::byte> bytes(f->size);
  std::map<std::string, std::uint64_t> lo, hi, hibyte;
  std::set<std::string> named;
  for (std::size_t row = 0; row < tr.rows.size(); ++row) {
    const auto cells = cells_of(tr.rows[row]);
    ASSERT_EQ(cells.size(), 8u) << tr.name << " row " << row << ": " << tr.rows[row];
    for (std::size_t col = 0; col < 8; ++col) {
      const std::size_t dw = row * 8 + (7 - col);                // rightmost cell = lowest dword
      std::uint32_t v = static_cast<std::uint32_t>(rng()) | 1u;  // never zero (RPT_ID)
      for (int k = 0; k < 4; ++k) bytes[4 * dw + k] = static_cast<std::byte>((v >> (8 * k)) & 0xff);
      const std::string& c = cells[col];
      if (c == "-" || c == ".") continue;
      if (c.find('^') != std::string::npos) {  // four high bytes, highest first
        std::istringstream parts(c);
        std::vector<std::string> names;
        for (std::string n; std::getline(parts, n, '^');) names.push_back(n);
        ASSERT_EQ(names.size(), 4u);
        for (int k = 0; k < 4; ++k) hibyte[names[3 - k]] = (v >> (8 * k)) & 0xff;
        continue;
      }
      if (auto colon = c.find(':'); colon != std::string::npos) {
        const std::string n = c.substr(0, colon);
        (c.substr(colon + 1) == "lo" ? lo : hi)[n] = v;
        named.insert(n);
        continue;
      }
      lo[c] = v;
      named.insert(c);
    }
  }
  // The decoder's fields are exactly the transcription's named cells.
  std::set<std::string> decoded;
  for (const auto& fd : f->fields) decoded.insert(std::string(fd.name));
  EXPECT_EQ(decoded, named) << tr.name << " on " << name_of(tr.plat);

  report_view r(bytes.data(), *f);
  for (const auto& fd : f->fields) {
    const std::string n(fd.name);
    std::uint64_t expect = lo[n];
    if (fd.bits == 64) {
      ASSERT_TRUE(hi.count(n)) << n;
      expect |= hi[n] << 32;
    } else if (fd.bits == 40) {
      ASSERT_TRUE(hibyte.count(n)) << n << " has no high byte in the transcription";
      expect |= hibyte[n] << 32;
    } else {
      EXPECT_FALSE(hibyte.count(n)) << n << " is 32-bit in the decoder but has a high byte";
    }
    EXPECT_EQ(r.value(fd), expect) << tr.name << " field " << n;
    EXPECT_EQ(r[n], expect) << tr.name << " field " << n << " by name";
  }
}

INSTANTIATE_TEST_SUITE_P(PrmTables, GoldenLayout, ::testing::ValuesIn(prm_tables()),
                         [](const ::testing::TestParamInfo<transcription>& i) {
                           return std::string(name_of(i.param.plat)) + "_" + i.param.name;
                         });

TEST(Formats, EveryFormatHasAGoldenTable) {
  // Each (format, platform) pair listed in all_formats is covered by at
  // least one transcription above for one of its platforms.
  const auto tables = prm_tables();
  for (const auto& f : all_formats) {
    bool covered = false;
    for (const auto& t : tables) covered |= (find_format(t.plat, t.counter_select) == &f);
    EXPECT_TRUE(covered) << f.name << " on " << name_of(f.platforms[0]);
  }
}

TEST(Formats, LookupByUapiIdFollowsI915) {
  // enum drm_i915_oa_format: 1..7 HSW, 8 A12, 9 A12_B8_C8, 10 A32u40_A4u32_B8_C8,
  // 12 A24u40_A14u32_B8_C8, 14 MPEC8u32_B8_C8; 7 (C4_B8) exists on Gen8+ too.
  const std::pair<int, const char*> hsw[] = {{1, "A13"},   {2, "A29"},       {3, "A13_B8_C8"},
                                             {4, "B4_C8"}, {5, "A45_B8_C8"}, {6, "B4_C8_A16"},
                                             {7, "C4_B8"}};
  for (auto [id, name] : hsw) {
    const report_format* f = find_format_by_uapi(platform::hsw, id);
    ASSERT_NE(f, nullptr) << id;
    EXPECT_EQ(f->name, name);
  }
  EXPECT_EQ(find_format_by_uapi(platform::skl, 8)->name, "A12");
  EXPECT_EQ(find_format_by_uapi(platform::skl, 9)->name, "A12_B8_C8");
  EXPECT_EQ(find_format_by_uapi(platform::skl, 10)->name, "A36_B8_C8");
  EXPECT_EQ(find_format_by_uapi(platform::tgl, 10)->size, 256);
  EXPECT_EQ(find_format_by_uapi(platform::skl, 7)->fields.size(), 16u);  // Gen8 C4_B8 has GPU_TICKS
  EXPECT_EQ(find_format_by_uapi(platform::dg2, 12)->name, "A24u40_A14u32_B8_C8");
  EXPECT_EQ(find_format_by_uapi(platform::mtl, 14)->name, "MPEC8u32_B8_C8");
  EXPECT_EQ(find_format_by_uapi(platform::hsw, 8), nullptr);
  EXPECT_EQ(find_format_by_uapi(platform::hsw, 0), nullptr);
  EXPECT_EQ(find_format(platform::hsw, "A29_B8_C8")->uapi_id, -1);  // i915 refuses 192-byte reports
}

TEST(Formats, LookupByNameAcceptsAliasesAndNeedsAPlatformForAmbiguousNames) {
  EXPECT_EQ(find_format(platform::skl, "A32u40_A4u32_B8_C8"),
            find_format(platform::skl, "A36_B8_C8"));
  EXPECT_EQ(find_format(platform::tgl, "A32u40_A4u32_B8_C8")->counter_select, 5);
  // A13 differs between SNB (reversed rows) and HSW.
  EXPECT_NE(find_format(platform::snb, "A13"), find_format(platform::hsw, "A13"));
  EXPECT_EQ(find_format(platform::snb, "A13")->find("A0")->offset, 28);
  EXPECT_EQ(find_format(platform::hsw, "A13")->find("A0")->offset, 12);
  EXPECT_EQ(find_format(platform::hsw, "A12"), nullptr);
  EXPECT_EQ(find_format(platform::skl, "nope"), nullptr);
  EXPECT_EQ(platform_from_name("byt"), platform::vlv);
  EXPECT_FALSE(platform_from_name("HSW").has_value());
}

TEST(Formats, CounterSelectCodesPerGeneration) {
  // SNB 000-011; IVB/VLV 000-011, 101, 110; HSW 000-111; Gen8+ 000, 010, 101, 111.
  auto selects = [](platform p) {
    std::set<unsigned> s;
    for (unsigned c = 0; c < 8; ++c) {
      if (find_format(p, static_cast<std::uint8_t>(c)) != nullptr) s.insert(c);
    }
    return s;
  };
  EXPECT_EQ(selects(platform::snb), (std::set<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(selects(platform::ivb), (std::set<unsigned>{0, 1, 2, 3, 5, 6}));
  EXPECT_EQ(selects(platform::hsw), (std::set<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(selects(platform::bdw), (std::set<unsigned>{0, 2, 5, 7}));
  EXPECT_EQ(selects(platform::tgl), (std::set<unsigned>{5, 7}));
  EXPECT_EQ(selects(platform::mtl), (std::set<unsigned>{2, 5}));
}

TEST(Formats, FortyBitCountersKeepTheirHighByteApart) {
  const report_format* f = find_format(platform::bdw, "A36_B8_C8");
  for (int i = 0; i < 32; ++i) {
    const field* fd = f->find("A" + std::to_string(i));
    ASSERT_NE(fd, nullptr);
    EXPECT_EQ(fd->bits, 40);
    EXPECT_EQ(fd->offset, 16 + 4 * i);
    EXPECT_EQ(fd->high_byte_offset, 160 + i);
  }
  for (int i = 32; i < 36; ++i) EXPECT_EQ(f->find("A" + std::to_string(i))->bits, 32);
}

}  // namespace
