// The library's pipeline steps: identify() names what the bytes prove (and
// says why nothing when they prove nothing), and the Mali options are checked
// in one place with usage errors of their own category (errc::usage), worded
// in each door's spelling of the options. hwpc::open's vendor rule
// (pipeline/open.hpp) branch by branch, and `hwpc decode` on a Mali and an
// Adreno capture printing what `hwpc mali` and `hwpc adreno --output csv` print.
// What a capture says after its rows (records dropped, partial rows) without
// a door knowing its vendor, the options checked alone per vendor, and the
// output check worded as the option parser words a choice, in each spelling.
// identify() names an i915 or Xe recording's platform from its first records
// alone: damage after DEVICE_INFO does not hide it, damage before it does.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/emu/oa_unit.hpp"
#include "hwpc/emu/outputs.hpp"
#include "hwpc/emu/recording_records.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/pipeline/identify.hpp"
#include "hwpc/pipeline/mali_open.hpp"
#include "hwpc/pipeline/open.hpp"
#include "tool_runner.hpp"

namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> b;
  for (const char c : s) b.push_back(static_cast<std::byte>(c));
  return b;
}

std::vector<std::byte> dwords(std::initializer_list<std::uint32_t> v) {
  std::vector<std::byte> b(4 * v.size());
  std::size_t i = 0;
  for (const std::uint32_t d : v) hwpc::store_le32(b.data() + 4 * i++, d);
  return b;
}

TEST(PipelineIdentify, NamesAnAdrenoRdAndItsGpu) {
  // One RD_GPU_ID section (type 13, 4 bytes): GPU id 530.
  const auto b = dwords({13, 4, 530});
  const hwpc::identity id = hwpc::identify(b);
  EXPECT_EQ(id.vendor, hwpc::vendor::adreno);
  EXPECT_EQ(id.input_kind, "rd");
  EXPECT_NE(id.device.find("530"), std::string::npos) << id.device;
}

TEST(PipelineIdentify, MaliMagicHexTextAndNothing) {
  const auto mali = bytes_of("HWPCMALI");  // the magic alone: a Mali capture file, no GPU yet
  EXPECT_EQ(hwpc::identify(mali).vendor, hwpc::vendor::mali);
  EXPECT_TRUE(hwpc::identify(mali).device.empty());
  const auto hex = bytes_of("70460004 40000016\n");
  EXPECT_EQ(hwpc::identify(hex).vendor, hwpc::vendor::adreno);
  EXPECT_EQ(hwpc::identify(hex).input_kind, "hex");
  // Binary with no header hwpc knows: unknown, and the why names the options that read it.
  const auto raw = dwords({0, 0xffffffffu, 0x12345678u, 0});
  const hwpc::identity id = hwpc::identify(raw);
  EXPECT_EQ(id.vendor, hwpc::vendor::unknown);
  EXPECT_NE(id.why.find("--platform"), std::string::npos) << id.why;
  EXPECT_EQ(hwpc::identify({}).why, "empty input");
}

// An emulated recording of either family, what its full reader says of it
// (the platform, where DEVICE_INFO ends, its last stream record) and what
// identify() says of it.
struct emulated_recording {
  bool xe = false;
  std::vector<std::byte> bytes;
  std::string platform;  // recording::make()'s, i.e. identify()'s answer before
  std::size_t info_end = 0;
  std::size_t last_record = 0;
  std::string why;  // identify()'s why for this family
};

template <class Reader>
void read_fully(emulated_recording& r) {
  auto rec = Reader::make(r.bytes);
  ASSERT_TRUE(rec.has_value()) << rec.error_value().describe();
  r.platform = std::string(hwpc::intel::name_of(rec->device_platform()));
  r.info_end = rec->device().offset + hwpc::intel::record_header_size +
               hwpc::intel::device_info_payload_size;
  for (const auto& e : *rec) r.last_record = e.offset;
}

emulated_recording emulate_recording(bool xe) {
  hwpc::emu::config c;
  c.platform = xe ? hwpc::intel::platform::lnl : hwpc::intel::platform::tgl;
  c.format = xe ? "PEC64u64" : "A32u40_A4u32_B8_C8";
  c.reports = 2000;  // far past identify()'s prefix
  c.exponent = 9;
  c.seed = 5;
  emulated_recording r;
  r.xe = xe;
  auto cap = hwpc::emu::emulate(c);
  EXPECT_TRUE(cap.has_value());
  if (!cap) return r;
  auto b = hwpc::emu::output_bytes(
      *cap, xe ? hwpc::emu::output_kind::xe_recording : hwpc::emu::output_kind::recording);
  EXPECT_TRUE(b.has_value()) << (b ? "" : b.error_value().describe());
  if (!b) return r;
  r.bytes = std::move(*b);
  if (xe) {
    read_fully<hwpc::intel::xe_recording>(r);
  } else {
    read_fully<hwpc::intel::recording>(r);
  }
  r.why = hwpc::identify(r.bytes).why;
  return r;
}

bool reads_fully(bool xe, hwpc::byte_span b) {
  return xe ? hwpc::intel::xe_recording::make(b).has_value()
            : hwpc::intel::recording::make(b).has_value();
}
bool reads_fully(const emulated_recording& r) { return reads_fully(r.xe, r.bytes); }

// What identify() says of a recording whose device it cannot name: the same
// vendor, kind and why as of a whole one, and no device.
void expect_unnamed(const emulated_recording& r, hwpc::byte_span b, const char* what) {
  const hwpc::identity id = hwpc::identify(b);
  EXPECT_EQ(id.vendor, hwpc::vendor::intel) << what;
  EXPECT_EQ(id.input_kind, r.xe ? "xe-recording" : "recording") << what;
  EXPECT_EQ(id.why, r.why) << what;
  EXPECT_EQ(id.device, "") << what;
}

TEST(PipelineIdentify, NamesARecordingsPlatformAsItsReaderDoes) {
  for (const bool xe : {false, true}) {
    const emulated_recording r = emulate_recording(xe);
    ASSERT_FALSE(r.platform.empty());
    const hwpc::identity id = hwpc::identify(r.bytes);
    EXPECT_EQ(id.vendor, hwpc::vendor::intel);
    EXPECT_EQ(id.input_kind, xe ? "xe-recording" : "recording");
    EXPECT_EQ(id.device, xe ? "lnl" : "tgl");
    EXPECT_EQ(id.device, r.platform);
  }
}

TEST(PipelineIdentify, ReadsARecordingOnlyUpToItsDeviceRecord) {
  for (const bool xe : {false, true}) {
    emulated_recording r = emulate_recording(xe);
    ASSERT_GT(r.last_record, hwpc::intel::recording::device_prefix_bytes)
        << "the damage must lie past identify()'s prefix";
    // A size of 0 in the last stream record: the full reader refuses the
    // file, identify() never reaches that record.
    hwpc::store_le16(r.bytes.data() + r.last_record + 6, 0);
    EXPECT_FALSE(reads_fully(r));
    EXPECT_EQ(hwpc::identify(r.bytes).device, r.platform) << (xe ? "xe" : "i915");
    // So does a file cut anywhere after DEVICE_INFO, and none cut before it.
    for (std::size_t n = 0; n < r.info_end + 64; ++n) {
      const hwpc::byte_span cut(r.bytes.data(), n);
      const hwpc::identity id = hwpc::identify(cut);
      if (n < hwpc::intel::record_header_size) {
        EXPECT_EQ(id.device, "") << n;  // too short to be a recording
      } else if (n < r.info_end) {
        expect_unnamed(r, cut, "cut before DEVICE_INFO's end");
      } else {
        EXPECT_EQ(id.device, r.platform) << n;
      }
    }
  }
}

TEST(PipelineIdentify, ARecordingWhoseFirstRecordsAreBadNamesNoDevice) {
  for (const bool xe : {false, true}) {
    const emulated_recording r = emulate_recording(xe);
    const std::size_t info =
        r.info_end - hwpc::intel::device_info_payload_size - hwpc::intel::record_header_size;
    const auto damaged = [&](std::size_t at, std::uint32_t v, bool wide, const char* what) {
      std::vector<std::byte> b = r.bytes;
      if (wide) {
        hwpc::store_le32(b.data() + at, v);
      } else {
        hwpc::store_le16(b.data() + at, static_cast<std::uint16_t>(v));
      }
      EXPECT_FALSE(reads_fully(xe, b)) << what;
      expect_unnamed(r, b, what);
    };
    damaged(6, 0, false, "VERSION of size 0");
    damaged(8, 2, true, "version 2");
    damaged(info + 6, 16, false, "DEVICE_INFO of 16 bytes");
    damaged(info + 8 + 8, 0xfffe, true, "a device id in no table");
    damaged(info + 8 + 32, 999, true, "an OA format the platform lacks");
    damaged(info, 1, true, "a SAMPLE where DEVICE_INFO was");
  }
}

TEST(PipelineIdentify, ADeviceRecordPastThePrefixIsNotLookedFor) {
  // Records IGT never writes before DEVICE_INFO, 80 KiB of them: the full
  // reader skips them, identify() stops looking after 64 KiB.
  for (const bool xe : {false, true}) {
    const emulated_recording r = emulate_recording(xe);
    std::vector<std::byte> b(r.bytes.begin(), r.bytes.begin() + 16);  // VERSION
    for (int i = 0; i < 2; ++i) {
      hwpc::emu::records::put_header(b, 12345, 40000);
      b.resize(b.size() + 40000 - hwpc::emu::records::header_size);
    }
    b.insert(b.end(), r.bytes.begin() + 16, r.bytes.end());
    ASSERT_TRUE(reads_fully(xe, b));
    expect_unnamed(r, b, "DEVICE_INFO past 64 KiB");
  }
}

TEST(PipelineMaliOptions, UsageErrorsAreTheirOwnCategoryInEachSpelling) {
  using hwpc::pipeline::door;
  hwpc::mali::open_options o;
  o.derived = "database";  // without the bus width
  auto tool = hwpc::mali::check(o, {door::tool});
  auto py = hwpc::mali::check(o, {door::python});
  ASSERT_FALSE(tool);
  ASSERT_FALSE(py);
  EXPECT_TRUE(hwpc::is_usage(tool.error_value()));
  EXPECT_EQ(tool.error_value().anchor, hwpc::error_anchor::none);
  EXPECT_EQ(tool.error_value().message.rfind("--derived needs --bus-width-bits:", 0), 0u)
      << tool.error_value().message;
  EXPECT_EQ(py.error_value().message.rfind("derived needs bus_width_bits:", 0), 0u)
      << py.error_value().message;

  hwpc::mali::open_options both;
  both.bus_width_bits = 128;
  both.counters_only = true;
  EXPECT_TRUE(hwpc::is_usage(hwpc::mali::check(both, {door::tool}).error_value()));
  hwpc::mali::open_options bad;
  bad.core_index = "diagonal";
  EXPECT_EQ(hwpc::mali::check(bad, {door::python}).error_value().message,
            "core_index: expected dense or sparse, not 'diagonal'");
}

TEST(PipelineMaliOpen, CoreIndexOnVinstrAndAMissingGpuAreRefused) {
  using hwpc::pipeline::door;
  const std::vector<std::byte> samples(4096);  // bare samples: the options say everything
  hwpc::mali::open_options o;
  auto no_gpu = hwpc::mali::open(samples, o, {door::tool});
  ASSERT_FALSE(no_gpu);
  EXPECT_TRUE(hwpc::is_usage(no_gpu.error_value()));
  EXPECT_EQ(no_gpu.error_value().message.rfind("--gpu is required", 0), 0u);

  auto g72 = hwpc::mali::find_gpu("G72");
  ASSERT_TRUE(g72);
  o.gpu = *g72;
  o.l2_slices = 1;
  o.core_mask = 0xF;
  o.core_index = "dense";  // vinstr, the default reader: no core index to choose
  auto refused = hwpc::mali::open(samples, o, {door::python});
  ASSERT_FALSE(refused);
  EXPECT_TRUE(hwpc::is_usage(refused.error_value()));
  EXPECT_NE(refused.error_value().message.find("give reader='kinstr'"), std::string::npos)
      << refused.error_value().message;
  o.reader = "kinstr";
  auto opened = hwpc::mali::open(samples, o, {door::python});
  ASSERT_TRUE(opened) << opened.error_value().describe();
  EXPECT_EQ(opened->reader, "kinstr");
  EXPECT_TRUE(opened->rows.losses);
  EXPECT_FALSE(opened->metrics.has_value());
}

// The vendor rule of pipeline/open.hpp, one branch at a time, on identities
// made by hand (what identify() would say) so each branch is reached alone.
using hwpc::pipeline::door;

hwpc::identity said(hwpc::vendor v, std::string why = "the bytes") {
  hwpc::identity id;
  id.vendor = v;
  id.why = std::move(why);
  return id;
}

hwpc::vendor chosen(const hwpc::identity& id, const hwpc::open_options& o, door d = door::tool) {
  auto v = hwpc::choose_vendor(id, "f.bin", o, {d});
  EXPECT_TRUE(v) << v.error_value().message;
  return v ? *v : hwpc::vendor::unknown;
}

std::string refused(const hwpc::identity& id, const hwpc::open_options& o, door d) {
  auto v = hwpc::choose_vendor(id, "f.bin", o, {d});
  EXPECT_FALSE(v);
  if (v) return {};
  EXPECT_TRUE(hwpc::is_usage(v.error_value()));
  return v.error_value().message;
}

TEST(PipelineOpenVendorRule, TheUsersVendorComesFirst) {
  hwpc::open_options o;
  o.vendor = hwpc::vendor::adreno;  // over a Mali magic number
  EXPECT_EQ(chosen(said(hwpc::vendor::mali), o), hwpc::vendor::adreno);
  o.vendor = hwpc::vendor::intel;
  o.intel.platform = "hsw";
  EXPECT_EQ(chosen(said(hwpc::vendor::adreno), o), hwpc::vendor::intel);
}

TEST(PipelineOpenVendorRule, AMagicNumberBeatsTheOptions) {
  hwpc::open_options o;
  o.format = "hex";  // an Adreno format name: rule 3, after the magic
  o.mali.reader = "kinstr";
  EXPECT_EQ(chosen(said(hwpc::vendor::intel), hwpc::open_options{}), hwpc::vendor::intel);
  hwpc::open_options m;
  m.mali.reader = "kinstr";
  EXPECT_EQ(chosen(said(hwpc::vendor::mali), m), hwpc::vendor::mali);
  // ...and the options that contradict it are refused, in each door's words.
  EXPECT_NE(refused(said(hwpc::vendor::intel), o, door::tool)
                .find("--reader is not an option for Intel captures (f.bin is intel: the bytes)"),
            std::string::npos);
  EXPECT_NE(refused(said(hwpc::vendor::intel), o, door::python)
                .find("reader is not an option for Intel captures"),
            std::string::npos);
}

TEST(PipelineOpenVendorRule, AdrenoFormatNamesThenMaliOptionsThenWeakAdreno) {
  const hwpc::identity unknown = said(hwpc::vendor::unknown);
  for (const char* f : {"auto", "rd", "hex", "bin"}) {
    hwpc::open_options o;
    o.format = f;
    o.gpu = "a530";  // the GPU is shared: it does not make the capture Mali's
    EXPECT_EQ(chosen(unknown, o), hwpc::vendor::adreno) << f;
  }
  hwpc::open_options mali;
  mali.gpu = "G72";
  EXPECT_EQ(chosen(unknown, mali), hwpc::vendor::mali);
  hwpc::open_options bare;
  bare.mali.l2_slices = 1;
  EXPECT_EQ(chosen(said(hwpc::vendor::adreno), bare), hwpc::vendor::mali);
  // .rd sections, gzip or hex text: Adreno, unless an Intel-only option says Intel.
  EXPECT_EQ(chosen(said(hwpc::vendor::adreno), hwpc::open_options{}), hwpc::vendor::adreno);
  hwpc::open_options intel;
  intel.intel.platform = "hsw";
  EXPECT_EQ(chosen(said(hwpc::vendor::adreno), intel), hwpc::vendor::intel);
  hwpc::open_options named_format;
  named_format.format = "A45_B8_C8";  // an Intel format name is an Intel-only option
  EXPECT_EQ(chosen(said(hwpc::vendor::adreno), named_format), hwpc::vendor::intel);
}

TEST(PipelineOpenVendorRule, IntelNeedsItsPlatformAndFormatOrSaysEveryWayOut) {
  const hwpc::identity unknown = said(hwpc::vendor::unknown, "no header hwpc knows");
  hwpc::open_options o;
  const std::string tool = refused(unknown, o, door::tool);
  EXPECT_EQ(tool.rfind("f.bin: cannot tell what the capture is: --platform and --format are "
                       "required",
                       0),
            0u)
      << tool;
  EXPECT_NE(tool.find("no header hwpc knows"), std::string::npos) << tool;
  EXPECT_NE(refused(unknown, o, door::python).find("platform and format are required"),
            std::string::npos);
  o.intel.platform = "hsw";
  o.format = "A45_B8_C8";
  EXPECT_EQ(chosen(unknown, o), hwpc::vendor::intel);
  hwpc::open_options rec;
  rec.intel.input_kind = "recording";
  EXPECT_EQ(chosen(unknown, rec), hwpc::vendor::intel);
}

TEST(PipelineOpenVendorRule, AnotherVendorsOptionsAreRefused) {
  hwpc::open_options o;
  o.intel.context = 1;
  const std::string tool = refused(said(hwpc::vendor::mali, "magic"), o, door::tool);
  EXPECT_EQ(tool.rfind("--context is not an option for Mali captures (f.bin is mali: magic; ", 0),
            0u)
      << tool;
  EXPECT_NE(tool.find("--device-var"), std::string::npos) << tool;
  EXPECT_NE(tool.find("are Intel OA options"), std::string::npos) << tool;
  const std::string py = refused(said(hwpc::vendor::mali, "magic"), o, door::python);
  EXPECT_EQ(py.rfind("context is not an option for Mali captures", 0), 0u) << py;
  EXPECT_NE(py.find("device_vars"), std::string::npos) << py;
  // Adreno takes the GPU but none of Mali's layout options; Mali takes no format.
  hwpc::open_options a;
  a.vendor = hwpc::vendor::adreno;
  a.gpu = "a530";
  EXPECT_EQ(chosen(said(hwpc::vendor::unknown), a), hwpc::vendor::adreno);
  a.mali.core_mask = 0xf;
  EXPECT_EQ(refused(said(hwpc::vendor::unknown), a, door::tool)
                .rfind("--core-mask is not an option for Adreno captures (--vendor", 0),
            0u);
  hwpc::open_options m;
  m.vendor = hwpc::vendor::mali;
  m.format = "rd";
  EXPECT_EQ(refused(said(hwpc::vendor::unknown), m, door::python)
                .rfind("format is not an option for Mali captures (vendor", 0),
            0u);
}

TEST(PipelineOpen, OpensTheVendorTheRulePicks) {
  using hwpc::capture_source;
  const auto rd = dwords({13, 4, 530});  // one RD_GPU_ID section
  auto a = hwpc::open(capture_source::borrow(rd, "a.rd"), {}, {door::tool});
  ASSERT_TRUE(a) << a.error_value().message;
  EXPECT_EQ((*a)->vendor(), hwpc::vendor::adreno);
  const auto raw = dwords({0, 0xffffffffu, 0x12345678u, 0});
  auto none = hwpc::open(capture_source::borrow(raw, "r.bin"), {}, {door::python});
  ASSERT_FALSE(none);
  EXPECT_TRUE(hwpc::is_usage(none.error_value()));
  hwpc::open_options g;
  g.vendor = hwpc::vendor::mali;
  g.gpu = "no-such-gpu";
  auto bad_gpu = hwpc::open(capture_source::borrow(raw, "r.bin"), g, {door::tool});
  ASSERT_FALSE(bad_gpu);
  EXPECT_TRUE(hwpc::is_usage(bad_gpu.error_value()));
  EXPECT_EQ(bad_gpu.error_value().message.rfind("--gpu: ", 0), 0u);
}

TEST(PipelineOpen, EachVendorsOptionsAreCheckedBeforeAnyByte) {
  hwpc::open_options o;
  o.mali.reader = "perf";
  auto m = hwpc::check_options(o, hwpc::vendor::mali, {door::python});
  ASSERT_FALSE(m);
  EXPECT_TRUE(hwpc::is_usage(m.error_value()));
  EXPECT_EQ(m.error_value().message, "reader: expected vinstr or kinstr, not 'perf'");
  // Another vendor's options are not this vendor's to check.
  EXPECT_TRUE(hwpc::check_options(o, hwpc::vendor::adreno, {door::python}));
  hwpc::open_options a;
  a.format = "elf";
  EXPECT_EQ(hwpc::check_options(a, hwpc::vendor::adreno, {door::tool}).error_value().message,
            "--format: expected auto, rd, hex or bin, not 'elf'");
  hwpc::open_options g;
  g.gpu = "no-such-gpu";
  EXPECT_EQ(hwpc::check_options(g, hwpc::vendor::mali, {door::python})
                .error_value()
                .message.rfind("gpu: ", 0),
            0u);
  hwpc::open_options i;
  i.intel.platform = "hsw";
  i.format = "nope";
  auto bad = hwpc::check_options(i, hwpc::vendor::intel, {door::tool});
  ASSERT_FALSE(bad);
  EXPECT_TRUE(hwpc::is_usage(bad.error_value()));
  i.format = "A45_B8_C8";
  EXPECT_TRUE(hwpc::check_options(i, hwpc::vendor::intel, {door::tool}));
}

TEST(PipelineOutputCheck, AWrongNameIsWordedAsTheOptionParserWordsAChoice) {
  namespace output = hwpc::output;
  auto tool = output::check_output("xml", false, "interval", false);
  ASSERT_FALSE(tool);
  EXPECT_TRUE(hwpc::is_usage(tool.error_value()));
  EXPECT_EQ(tool.error_value().message,
            "--output: expected csv, json, perfetto, chrome-json or html, not 'xml'");
  auto py = output::check_output("xml", false, "interval", false, {door::python});
  ASSERT_FALSE(py);
  EXPECT_EQ(py.error_value().message,
            "output: expected csv, json, perfetto, chrome-json or html, not 'xml'");
  EXPECT_EQ(output::check_output("html", true, "interval", false).error_value().message,
            "--summary and --output html: the report holds the totals already");
  EXPECT_EQ(
      output::check_output("html", true, "sample", false, {door::python}).error_value().message,
      "summary and output='html': the report holds the totals already");
  EXPECT_TRUE(output::check_output("json", true, "sample", false, {door::python}));
}

class PipelineOpenTool : public hwpc::testing::tool_test {};

// Counts the rows, keeps nothing.
class row_count final : public hwpc::row_writer {
 public:
  void write(const hwpc::row&) override { ++rows; }
  void end(const hwpc::accounting&) override {}
  std::size_t rows = 0;
};

std::vector<std::byte> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<std::byte> b;
  for (auto it = std::istreambuf_iterator<char>(f); it != std::istreambuf_iterator<char>(); ++it) {
    b.push_back(static_cast<std::byte>(*it));
  }
  return b;
}

// The lines a door shows after the rows come from the capture itself: an
// Intel stream's lost records, an Adreno capture that ends inside a section.
TEST_F(PipelineOpenTool, TheCaptureSaysWhatFollowsItsRows) {
  using hwpc::capture_source;
  using hwpc::testing::run_tool;
  const std::string skl = (dir_ / "skl.bin").string();
  ASSERT_EQ(run_tool("emulate --platform skl --format A32u40_A4u32_B8_C8 --output-kind "
                     "i915-stream --faults report-lost --reports 300 --seed 4 --out " +
                     skl)
                .status,
            0);
  hwpc::open_options o;
  o.intel.platform = "skl";
  o.intel.input_kind = "i915-stream";
  o.format = "A32u40_A4u32_B8_C8";
  auto src = capture_source::map(skl);
  ASSERT_TRUE(src);
  auto c = hwpc::open(std::move(*src), o, {door::tool});
  ASSERT_TRUE(c) << c.error_value().message;
  EXPECT_TRUE((*c)->notes_after_rows().empty());  // nothing written yet
  row_count rows;
  ASSERT_TRUE((*c)->write_rows(rows));
  const auto notes = (*c)->notes_after_rows();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind(skl + ": 303 records read = 300 reports", 0), 0u) << notes[0];
  EXPECT_NE(notes[0].find("+ 3 lost (3 report-lost"), std::string::npos) << notes[0];
  EXPECT_FALSE((*c)->partial_output());

  const std::string rd = (dir_ / "a630.rd").string();
  ASSERT_EQ(run_tool("adreno emulate --gpu a630 --rounds 3 --seed 7 --out " + rd).status, 0);
  const std::vector<std::byte> whole = file_bytes(rd);
  ASSERT_GT(whole.size(), 2000u);
  auto a = hwpc::open(capture_source::borrow(whole, "a630.rd"), {}, {door::tool});
  ASSERT_TRUE(a) << a.error_value().message;
  EXPECT_FALSE((*a)->facts().gpu_id.has_value());  // known once written
  ASSERT_TRUE((*a)->write_rows(rows));
  EXPECT_FALSE((*a)->partial_output());
  EXPECT_EQ((*a)->facts().gpu_id, std::optional<std::uint32_t>(630));
  EXPECT_EQ((*a)->rows_at_most(), 0u);
  EXPECT_TRUE((*a)->notes_after_rows().empty());
  const std::vector<std::byte> cut(whole.begin(), whole.begin() + 2000);
  auto p = hwpc::open(capture_source::borrow(cut, "cut.rd"), {}, {door::tool});
  ASSERT_TRUE(p) << p.error_value().message;
  EXPECT_FALSE((*p)->partial_output());  // nothing written yet
  ASSERT_TRUE((*p)->write_rows(rows));
  ASSERT_TRUE((*p)->partial_output());
  EXPECT_EQ(*(*p)->partial_output(),
            "cut.rd: 1 problem (0 bytes skipped); the output above is partial");
}

// `hwpc decode FILE` goes through hwpc::open in the same process and prints
// the same bytes as the vendor's own command, stdout and stderr.
TEST_F(PipelineOpenTool, DecodeOfMaliAndAdrenoPrintsTheirCommandsBytes) {
  using hwpc::testing::run_tool;
  const std::string mali = (dir_ / "m.hwpcmali").string();
  const std::string rd = (dir_ / "a.rd").string();
  ASSERT_EQ(
      run_tool("mali emulate --gpu G72 --l2-slices 1 --core-mask 0xf --samples 12 --out " + mali)
          .status,
      0);
  ASSERT_EQ(run_tool("adreno emulate --gpu a630 --out " + rd).status, 0);
  for (const std::string extra : {"", " --output json", " --summary", " --output chrome-json"}) {
    const auto d = run_tool("decode " + mali + extra);
    const auto m = run_tool("mali " + mali + extra);
    EXPECT_EQ(d.status, 0) << extra;
    EXPECT_FALSE(d.out.empty());
    EXPECT_EQ(d.out, m.out) << extra;
    const auto da = run_tool("decode " + rd + extra);
    const auto a = run_tool("adreno " + rd + (extra.empty() ? " --output csv" : extra));
    EXPECT_EQ(da.status, a.status) << extra;
    EXPECT_FALSE(da.out.empty()) << extra;
    EXPECT_EQ(da.out, a.out) << extra;
  }
  const auto refused = run_tool("decode " + mali + " --context 1");
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.out.find("are Intel OA options"), std::string::npos) << refused.out;
  const auto fleet = run_tool("decode " + rd + " " + rd + " --output perfetto");
  EXPECT_EQ(fleet.status, 1);
  EXPECT_NE(fleet.out.find("write this one alone"), std::string::npos) << fleet.out;
}

}  // namespace
