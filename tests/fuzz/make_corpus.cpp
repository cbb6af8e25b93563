// Writes the fuzz targets' seed corpora into DIR/<target>/: captures from the
// emulator in every report format (raw, i915 stream, recording, OA ring, with
// faults), the A5xx query sequences of the Adreno seed, hand-built Mali
// samples, formulas and metric files written here, Xe OA streams with loss
// lists, Mali capture files and kinstr_prfcnt buffers from the Mali emulator,
// and .rd captures (plain, gzip, hex text) and address spaces built with the
// Adreno test writers, schemas and rows for the writers; the accounting and
// time targets take the same captures behind their own selector byte. Each
// file starts with the selector bytes its target reads (fuzz_common.hpp and
// each target's comment).
//
//   hwpc_fuzz_make_corpus DIR
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "../adreno_gzip_writer.hpp"
#include "../adreno_rd_writer.hpp"
#include "../adreno_seed.hpp"
#include "hwpc/adreno/emulate.hpp"
#include "hwpc/adreno/emulate6.hpp"
#include "hwpc/adreno/emulate_frames.hpp"
#include "hwpc/emu.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/gpus/index.hpp"

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
      // Ring vs raw: [0, format, platform, slots]; time: [2, format, platform, slots].
      bytes d{0, sel, 0};
      append(d, *raw);
      put("accounting", name + "_ring", d);
      d[0] = 2;
      put("time", name + "_raw", d);
    }
    if (auto st = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::i915_stream)) {
      bytes b{sel, 0, 0};
      append(b, *st);
      put("i915_stream", name, b);
      bytes d{1, sel, 0};
      append(d, *st);
      put("time", name + "_stream", d);
      if (f.name == std::string_view("A45_B8_C8") && c.platform == hwpc::intel::platform::hsw) {
        bytes s{1};  // stream vs recording: [1, stream]
        append(s, *st);
        put("accounting", name + "_stream", s);
      }
    }
    if (auto rec = hwpc::emu::output_bytes(*cap, hwpc::emu::output_kind::recording)) {
      bytes b{static_cast<std::uint8_t>(i % 2 ? 0x80 | static_cast<unsigned>(c.platform) : 0)};
      append(b, *rec);
      put("recording", name, b);
      bytes d{3};
      append(d, *rec);
      put("time", name + "_recording", d);
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

// Xe OA streams: [format, base, losses, (how, offset, status)...] then whole
// reports whose RPT_ID and TIME_STAMP (bytes 0 and 8 of the 64-bit header
// formats, 0 and 4 of the others) count up.
void xe_streams() {
  const auto& all = hwpc::intel::xe_formats;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::size_t size = all[i].layout.size;
    const bool wide = size != 256 && size != 64 && size != 128;
    for (unsigned variant = 0; variant < 2; ++variant) {
      bytes b{static_cast<std::uint8_t>(i), 0};
      if (variant == 0) {
        b.push_back(0);
      } else {
        b.push_back(2);
        b.push_back(0x03);  // report-lost | buffer-overflow at report 2
        append32(b, 2);
        b.push_back(0x08);  // MMIO trigger queue full at the end (report 6)
        append32(b, 6);
      }
      for (std::uint32_t r = 0; r < 6; ++r) {
        bytes rep(size, 0);
        const std::uint32_t id = 0x10 | r, ts = 1000 + 977 * r;
        for (int k = 0; k < 4; ++k) {
          rep[k] = static_cast<std::uint8_t>(id >> (8 * k));
          rep[(wide ? 8 : 4) + k] = static_cast<std::uint8_t>(ts >> (8 * k));
        }
        for (std::size_t k = 32; k + 4 <= size; k += 4) rep[k] = static_cast<std::uint8_t>(r * k);
        b.insert(b.end(), rep.begin(), rep.end());
      }
      put("xe_stream", std::string(all[i].name) + "_" + std::to_string(variant), b);
    }
  }
}

// Mali: emulated capture files (vinstr and kinstr_prfcnt, a few GPUs and
// configurations) for mali_capture, and their kinstr_prfcnt buffers with the
// selector bytes of mali_kinstr [product, L2 slices - 1, mode, mask].
void mali_captures() {
  namespace mali = hwpc::mali;
  struct pick {
    std::uint32_t product;
    std::uint32_t slices;
    std::uint64_t mask;
  } picks[] = {{0x6001, 1, 0x5}, {0x9002, 2, 0xf}, {0xa002, 2, 0x3}, {0xc000, 1, 0x1}};
  std::size_t n = 0;
  for (const pick& p : picks) {
    std::size_t index = 0;
    while (mali::gpus::products[index].product_id != p.product) ++index;
    const mali::gpu_product& g = mali::gpus::products[index];
    for (bool kinstr : {false, true}) {
      if (!kinstr && g.table->values_per_block != 64) continue;
      mali::emulate_options o;
      o.gpu_id = mali::gpu_id_of_product(g.product_id);
      o.csf = mali::is_csf_product(g.product_id);
      o.values_per_block = g.table->values_per_block;
      o.kinstr = kinstr;
      o.l2_slices = p.slices;
      o.core_mask = p.mask;
      o.samples = 3;
      o.seed = 7 + n;
      const mali::emulation e = mali::emulate(o);
      bytes file;
      for (std::byte x : e.file) file.push_back(static_cast<std::uint8_t>(x));
      const std::string name = std::string(g.table->key) + (kinstr ? "_kinstr" : "_vinstr");
      put("mali_capture", name, file);
      bytes timed{0};  // the time target's Mali selector
      timed.insert(timed.end(), file.begin(), file.end());
      put("time", name, timed);
      if (kinstr) {
        bytes b{static_cast<std::uint8_t>(index), static_cast<std::uint8_t>(p.slices - 1), 0,
                static_cast<std::uint8_t>(p.mask)};
        b.insert(b.end(), file.begin() + 64, file.end());
        put("mali_kinstr", name, b);
      }
      ++n;
    }
  }
}

std::vector<std::uint32_t> seed_stream() {
  return adreno_seed::concat({adreno_seed::occlusion_begin, adreno_seed::timestamp_begin,
                              adreno_seed::timestamp_end, adreno_seed::occlusion_end});
}
bytes from_bytes(const std::vector<std::byte>& v) {
  bytes b;
  for (std::byte x : v) b.push_back(static_cast<std::uint8_t>(x));
  return b;
}

// gzip_index seeds: [flags, spacing, points, level, damage at (4), damage
// xor, piece, hold, reads, (offset (4), length (2)) x reads] then the payload
// (fuzz_adreno_gzip_index.cpp): .rd captures deflated by the target (flags
// bit 0 clear; damaged, cut, and read again from a file), and one already a
// gzip stream of stored blocks (bit 0).
void adreno_gzip_index(const std::vector<std::byte>& submits) {
  hwpc::adreno::emulate_options o;
  o.rounds = 3;
  const std::vector<std::byte> a5 = hwpc::adreno::emulate_a5xx(o).file;
  o.libwrap = true;
  const std::vector<std::byte> a7 = hwpc::adreno::emulate_a6xx_a7xx(o, true).file;
  const auto seed = [](std::uint8_t flags, std::uint8_t level, std::uint32_t damage_at,
                       std::uint8_t hold, const std::vector<std::byte>& payload) {
    bytes b{flags, 4, 3, level};
    append32(b, damage_at);
    b.insert(b.end(), {0x40, 3, hold, 3});
    for (std::uint32_t off : {0u, 100u, 5000u}) {
      append32(b, off);
      b.insert(b.end(), {0x00, 0x02});
    }
    append(b, payload);
    return b;
  };
  put("adreno_gzip_index", "submits", seed(0, 6, 0, 1, submits));
  put("adreno_gzip_index", "submits_damaged", seed(2, 6, 200, 1, submits));
  put("adreno_gzip_index", "submits_cut", seed(4, 1, 300, 1, submits));
  put("adreno_gzip_index", "a5xx_members", seed(8, 6 + 64 * 2, 0, 0, a5));
  put("adreno_gzip_index", "a7xx_libwrap", seed(8, 9 + 10 * 3, 0, 2, a7));
  put("adreno_gzip_index", "a7xx_huffman", seed(0, 6 + 10 * 2 + 64, 0, 1, a7));
  put("adreno_gzip_index", "stored", seed(1, 0, 0, 1, adreno_gz::gzip_stored(submits)));
}

// Adreno .rd captures: [mode] then the file. A submit whose command stream
// calls an IB holding the seed's query sequences (plus a chain and padding),
// in plain, gzip and hex-text form.
void adreno_captures() {
  using namespace adreno_rd;
  const dwords queries = seed_stream();
  const std::uint64_t top = 0x100000, inner = 0x200000, chained = 0x300000;
  const dwords chain_target = cat({{pkt7(0x26, 0)}, {0, 0}});  // CP_WAIT_FOR_IDLE, padding
  const dwords inner_ib = cat({queries,
                               {pkt7(0x57, 3), static_cast<std::uint32_t>(chained), 0,
                                static_cast<std::uint32_t>(chain_target.size())}});
  const dwords top_ib = cat({ib(inner, static_cast<std::uint32_t>(inner_ib.size())), {0, 0}});
  writer w;
  w.gpu_id(540);
  w.buffer(top, top_ib);
  w.buffer(inner, inner_ib);
  w.buffer(chained, chain_target);
  w.cmdstream(top, static_cast<std::uint32_t>(top_ib.size()));
  // A second submit: the old 8-byte GPUADDR form, and a stream the seed alone.
  w.gpuaddr(0x400000, static_cast<std::uint32_t>(4 * queries.size()), true);
  w.contents(queries);
  w.cmdstream(0x400000, static_cast<std::uint32_t>(queries.size()));
  bytes rd{0};
  const bytes file = from_bytes(w.bytes);
  rd.insert(rd.end(), file.begin(), file.end());
  put("adreno_rd", "submits.rd", rd);
  bytes gz{2};
  const bytes packed = from_bytes(adreno_gz::gzip_stored(w.bytes));
  gz.insert(gz.end(), packed.begin(), packed.end());
  put("adreno_rd", "submits.rd.gz", gz);
  std::string text = "\x01; the seed's query sequences\n";
  char line[32];
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (i % 4 == 0) {
      std::snprintf(line, sizeof line, "%s%04zx:", i ? "\n" : "", 4 * i);
      text += line;
    }
    std::snprintf(line, sizeof line, " %08x", static_cast<unsigned>(queries[i]));
    text += line;
  }
  text += "\n";
  put_text("adreno_rd", "seed.txt", text);
  adreno_gzip_index(w.bytes);
}

// Address spaces for adreno_walk: [options, buffers, (where, len/4, len%4,
// bytes)...] then the top-level stream. Buffer k sits at 0x10000 * (k + 1)
// when `where` is k.
void adreno_walks() {
  using namespace adreno_rd;
  const dwords queries = seed_stream();
  const dwords second = cat({queries, ib(0x10000, 4)});  // calls the first: a cycle
  const dwords first = cat({ib(0x20000, static_cast<std::uint32_t>(second.size())), {0}});
  auto buf = [](bytes& b, std::uint8_t where, const dwords& d) {
    b.push_back(where);
    b.push_back(static_cast<std::uint8_t>(d.size()));
    b.push_back(0);
    for (std::uint32_t v : d) append32(b, v);
  };
  bytes b{0x04 | 0x30, 2};
  buf(b, 0, first);
  buf(b, 1, second);
  for (std::uint32_t v : cat({ib(0x10000, static_cast<std::uint32_t>(first.size())),
                              queries,
                              {pkt7(0x57, 3), 0x20000, 0, 4}}))
    append32(b, v);
  put("adreno_walk", "cycle_and_chain", b);
  bytes flat{0x07, 0};
  for (std::uint32_t v : cat({queries, {0, 0, 0xdeadbeef, 0x12345678}, queries})) append32(flat, v);
  flat.push_back(0xaa);
  put("adreno_walk", "flat_resync", flat);
}

}  // namespace

// The writers target reads a schema and rows from its input (fuzz_writers.cpp):
// a flags byte, the source's text, counter and metric counts, names and units,
// then rows. Seeds: small schemas with hostile names, and the emulator's
// flavour of rows (timer reasons, losses), from a fixed generator.
void writer_rows() {
  std::uint64_t s = 0x243f6a8885a308d3ull;
  auto next = [&s] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<std::uint8_t>(s);
  };
  for (int k = 0; k < 24; ++k) {
    bytes b{static_cast<std::uint8_t>(k * 37), static_cast<std::uint8_t>(k),
            static_cast<std::uint8_t>(k % 6), static_cast<std::uint8_t>(k % 5)};
    for (int c = 0; c < 9; ++c) {
      b.push_back(static_cast<std::uint8_t>(k % 2 ? c * 7 : 64 + 8 * c));  // hostile or bytes
      for (int j = 0; j < 8; ++j) b.push_back(next());
    }
    for (int r = 0; r < 6 + k; ++r) {
      b.push_back(static_cast<std::uint8_t>(r % 5 == 0 ? 5 : 1 + (r % 4)));  // a loss every fifth
      for (int j = 0; j < 40; ++j) b.push_back(next());
    }
    put("writers", "rows_" + std::to_string(k), b);
  }
}

// A6XX/A7XX captures for adreno_drawstate: [generation, .rd bytes] with
// draw-state groups (one nested, one disabled), markers, bins, an A7XX event
// write and a thread control; the A5xx emulator's capture read as each.
void adreno_drawstates() {
  using namespace adreno_rd;
  writer w;
  w.gpu_id(0);
  w.chip_id(0x000343051401);  // A750 with a fuse, as the kernel writes it
  const dwords main = {pkt7(0x65, 1),
                       2,
                       pkt7(0x43, 6),
                       (3u << 24) | (1u << 20) | 3,
                       0x30000,
                       0,
                       (5u << 24) | (1u << 17),
                       0,
                       0,
                       pkt7(0x17, 1),
                       0x80000002,
                       pkt7(0x46, 3),
                       0x08300016,
                       0x50000,
                       0,
                       pkt7(0x50, 5),
                       2,
                       0x40000,
                       0,
                       2,
                       1,
                       pkt7(0x26, 0),
                       pkt7(0x51, 0)};
  w.buffer(0x10000, main);
  w.buffer(0x30000, {pkt4(0x8891, 1), 2, pkt7(0x43, 3), (7u << 24) | 2, 0x40000, 0});
  w.buffer(0x40000, {pkt7(0x10, 1), 1, pkt7(0x10, 1), 2});
  w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  for (std::uint8_t g : {0, 1, 2, 3}) {
    bytes b{g};
    const bytes rd = from_bytes(w.bytes);
    b.insert(b.end(), rd.begin(), rd.end());
    put("adreno_drawstate", "groups_" + std::to_string(g) + ".rd", b);
  }
  const auto e = hwpc::adreno::emulate_a5xx({.seed = 3, .rounds = 2});
  for (std::uint8_t g : {1, 2, 3}) {
    bytes b{g};
    const bytes rd = from_bytes(e.file);
    b.insert(b.end(), rd.begin(), rd.end());
    put("adreno_drawstate", "emulated_" + std::to_string(g) + ".rd", b);
  }
  // Android libwrap's dialect: marker pairs before each section, padded sizes.
  w.libwrap = true;
  w.bytes.clear();
  w.gpu_id(0);
  w.text(2, "perfcounter_get: groupid=0, countable=1");
  w.chip_id(0x000343051401);
  w.buffer(0x10000, main);
  w.buffer(0x30000, {pkt4(0x8891, 1), 2});
  w.cmdstream(0x10000, static_cast<std::uint32_t>(main.size()));
  for (std::uint8_t g : {1, 3}) {
    bytes b{g};
    const bytes rd = from_bytes(w.bytes);
    b.insert(b.end(), rd.begin(), rd.end());
    put("adreno_drawstate", "libwrap_" + std::to_string(g) + ".rd", b);
  }
  hwpc::adreno::frames_options fo;
  fo.bytes = 4096;
  fo.libwrap = true;
  fo.draw_ibs = 3;
  fo.draws = 2;
  bytes f{3};
  const bytes frames = from_bytes(hwpc::adreno::emulate_frames_file(fo, nullptr));
  f.insert(f.end(), frames.begin(), frames.end());
  put("adreno_drawstate", "libwrap_frames.rd", f);
}

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
  xe_streams();
  mali_captures();
  adreno_captures();
  adreno_walks();
  writer_rows();
  adreno_drawstates();
  std::printf("%zu seed files in %s\n", written, argv[1]);
  return 0;
}
