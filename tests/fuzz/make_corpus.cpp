// Writes the fuzz targets' seed corpora into DIR/<target>/: captures from the
// emulator in every report format (raw, i915 stream, recording, OA ring, with
// faults), the A5xx query sequences of the Adreno seed, hand-built Mali
// samples, and formulas and metric files written here. Each file starts with
// the selector bytes its target reads (fuzz_common.hpp).
//
//   hwpc_fuzz_make_corpus DIR
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../adreno_seed.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/oa_ring.hpp"

namespace fs = std::filesystem;
using bytes = std::vector<std::uint8_t>;

namespace {

fs::path root;
std::size_t written = 0;

void put(const std::string& target, const std::string& name, const bytes& b) {
  fs::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  ++written;
}
void put_text(const std::string& target, const std::string& name, const std::string& s) {
  put(target, name, bytes(s.begin(), s.end()));
}
void append(bytes& b, const std::vector<std::byte>& v) {
  for (std::byte x : v) b.push_back(static_cast<std::uint8_t>(x));
}
void append32(bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void intel_captures() {
  const char* faults[] = {"none", "wrap,ctx-switch", "report-lost,tail-ahead", "overflow,wrap"};
  const auto& all = hwpc::intel::all_formats;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& f = all[i];
    hwpc::emu::config c;
    c.platform = f.platforms[0];
    c.format = std::string(f.name);
    c.reports = 12;
    c.seed = 1000 + i;
    c.faults = hwpc::emu::parse_faults(faults[i % 4]).value();
    auto cap = hwpc::emu::emulate(c);
    if (!cap) continue;  // a format the emulator does not model
    const std::string name = std::string(f.name) + "_" + std::to_string(i);
    const auto sel = static_cast<std::uint8_t>(i);
    if (auto raw = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::raw)) {
      bytes b{sel, 0, 0xff, 0xff, 0xff, 0xff};
      append(b, *raw);
      put("raw_reports", name, b);
    }
    if (auto st = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::i915_stream)) {
      bytes b{sel, 0, 0};
      append(b, *st);
      put("i915_stream", name, b);
    }
    if (auto rec = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::recording)) {
      bytes b{static_cast<std::uint8_t>(i % 2 ? 0x80 | static_cast<unsigned>(c.platform) : 0)};
      append(b, *rec);
      put("recording", name, b);
    }
    const auto& ring = cap->ring;
    if (ring.bytes.size() == hwpc::intel::oa_ring_min_size) {
      const std::size_t size = ring.bytes.size();
      const std::size_t head = (ring.head - ring.base) % size;
      const std::size_t tail = (ring.tail - ring.base) % size;
      bytes b{sel, 0, 0};
      append32(b, static_cast<std::uint32_t>(head));
      append32(b, static_cast<std::uint32_t>(tail));
      b.push_back(
          static_cast<std::uint8_t>((ring.buffer_overflow ? 2 : 0) | (ring.report_lost ? 1 : 0)));
      b.push_back(0);
      for (std::size_t k = 0, n = (tail - head) % size; k < n; ++k) {
        b.push_back(static_cast<std::uint8_t>(ring.bytes[(head + k) % size]));
      }
      put("oa_ring", name, b);
    }
  }
}

// xe-perf recordings of every Xe driver format, on the first platform that
// enables it; the selector byte opts into unverified layouts where needed.
void xe_recordings() {
  const char* faults[] = {"none", "wrap,ctx-switch", "report-lost,tail-ahead", "overflow,wrap"};
  for (std::size_t i = 0; i < hwpc::emu::emu_xe_formats.size(); ++i) {
    const auto& f = hwpc::emu::emu_xe_formats[i];
    for (const auto& pi : hwpc::intel::platform_table) {
      if (!f.on(pi.id)) continue;
      hwpc::emu::config c;
      c.platform = pi.id;
      c.format = std::string(f.name);
      c.kernel_driver = hwpc::emu::driver::xe;
      c.reports = 12;
      c.seed = 2000 + i;
      c.faults = hwpc::emu::parse_faults(faults[i % 4]).value();
      auto cap = hwpc::emu::emulate(c);
      if (!cap) break;
      if (auto rec = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::xe_recording)) {
        bytes b{static_cast<std::uint8_t>(f.verified ? 0 : 0x40)};
        append(b, *rec);
        put("xe_recording", std::string(f.name) + "_" + std::to_string(i), b);
      }
      break;
    }
  }
}

void formulas() {
  const char* rpn[] = {
      "GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV",
      "A 7 READ $A UDIV 100 FMUL",
      "$A $B UADD 2 USUB $F FMAX",
      "B 3 READ C 1 READ USUB 0 UMAX",
      "1 2 3 UADD",
      "$A 0 UDIV",
      "A 300 READ",
      "18446744073709551615 1 UADD",
  };
  const char* infix[] = {
      "max(min(($A / $B) * 100, 100), 0)",
      "$A > $B ? $A - $B : 0",
      "udiv(uadd($A, 3), $B) << 2",
      "-(-$F) + 1.5e3 * fmax($A, $F)",
      "!($A && $B) || $A >= 7",
      "((((((((1))))))))",
      "0x10 & $A >> 1",
      "$F / 0.0",
  };
  int n = 0;
  for (const char* t : rpn)
    put_text("formula", "rpn_" + std::to_string(n++), std::string("\x00", 1) + t);
  n = 0;
  for (const char* t : infix)
    put_text("formula", "infix_" + std::to_string(n++), std::string("\x01") + t);
}

void metric_files() {
  const std::string set =
      "<?xml version=\"1.0\"?>\n<metrics version=\"1\">\n"
      " <set symbol_name=\"RenderBasic\" name=\"Render\" chipset=\"SKL\" "
      "hw_config_guid=\"x\">\n"
      "  <counter symbol_name=\"GpuTime\" name=\"GPU Time\" data_type=\"uint64\" "
      "semantic_type=\"duration\" units=\"ns\" "
      "equation=\"GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV\"/>\n"
      "  <counter symbol_name=\"Busy\" name=\"Busy\" data_type=\"float\" semantic_type=\"ratio\" "
      "units=\"percent\" equation=\"A 7 READ $GpuTime FDIV 100 FMUL\" max_equation=\"100\"/>\n"
      "  <counter symbol_name=\"Eus\" name=\"EUs\" data_type=\"uint64\" "
      "equation=\"$EuCoresTotalCount\" availability=\"$SliceMask 1 AND\"/>\n"
      "  <register_config type=\"OA\" availability=\"$SliceMask 1 AND\"/>\n"
      " </set>\n</metrics>\n";
  put_text("metric_xml", "renderbasic.xml", set);
  put_text("metric_xml", "cycle.xml",
           "<metrics><set symbol_name='S'><counter symbol_name='A' equation='$B'/>"
           "<counter symbol_name='B' equation='$A'/></set></metrics>");
  std::string u16 = "\xff\xfe";
  for (char ch : set) {
    u16 += ch;
    u16 += '\0';
  }
  put_text("metric_xml", "renderbasic_utf16.xml", u16);
}

void mali_samples() {
  // One L2 slice, cores 0 and 2 (mask 0x5), 128-bit bus: 6 blocks of 256 bytes.
  for (std::uint32_t mask : {0x1u, 0x5u, 0xfu}) {
    bytes b{1};
    append32(b, mask);
    b.push_back(0);  // the high half of the core mask is 0
    b.push_back(2);  // 32 << 2 = 128-bit bus
    const std::size_t blocks = 3 + static_cast<std::size_t>(32 - __builtin_clz(mask));
    for (std::size_t k = 0; k < blocks * 64; ++k)
      append32(b, static_cast<std::uint32_t>(k * 37 % 5000));
    put("mali_sample", "mask_" + std::to_string(mask), b);
  }
}

void adreno_streams() {
  const std::vector<std::uint32_t>* seqs[] = {
      &adreno_seed::occlusion_begin, &adreno_seed::occlusion_end, &adreno_seed::timestamp_begin,
      &adreno_seed::timestamp_end};
  bytes all;
  int n = 0;
  for (const auto* s : seqs) {
    bytes b;
    for (std::uint32_t dw : *s) append32(b, dw);
    put("adreno", "seq_" + std::to_string(n++), b);
    all.insert(all.end(), b.begin(), b.end());
  }
  put("adreno", "all", all);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 1;
  }
  root = argv[1];
  intel_captures();
  xe_recordings();
  formulas();
  metric_files();
  mali_samples();
  adreno_streams();
  std::printf("%zu seed files in %s\n", written, argv[1]);
  return 0;
}
