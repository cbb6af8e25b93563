// The emulator's large captures: frames the size real applications submit
// (tens to hundreds of megabytes of command stream), for scale tests and
// benchmarks (docs/adreno.md, "Emulator"; docs/performance.md, "Adreno").
//
// Each submit is what a driver's frame looks like to the walker: a top-level
// command buffer that sets the render mode and calls many draw IBs; each draw
// IB sets draw-state groups (A6XX/A7XX) whose buffers hold register writes,
// then runs many draws (register writes, CP_DRAW_INDX_OFFSET, a CP_NOP with a
// payload). Submits are written one at a time to the caller's output, so the
// emulator holds one submit whatever the size asked for. The counts say what
// a walk must find, computed from the emulator's own packing, never from the
// decoder. Packed with emulate.hpp's encoder (own parity count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hwpc/adreno/emulate.hpp"
#include "hwpc/adreno/generation.hpp"

namespace hwpc::adreno {

struct frames_options {
  std::uint64_t bytes = std::uint64_t{64} << 20;  // stop once the file holds at least this much
  std::uint64_t seed = 1;
  generation gen = generation::a6xx;  // A5XX: no draw-state groups (its walk has none)
  bool libwrap = false;               // Android libwrap's dialect (emulate_options::libwrap)
  std::uint32_t draw_ibs = 32;        // draw IBs per submit
  std::uint32_t draws = 48;           // draws per draw IB
  // A data buffer of this many bytes (rounded down to dwords) in every
  // submit, before its command buffers, as real captures dump textures and
  // memory pools: never walked, so the walk's counts do not change.
  std::uint64_t texture_bytes = 0;
};

// What the capture holds, as a walk must find it.
struct frames_counts {
  std::uint64_t bytes = 0;    // file size
  std::uint64_t submits = 0;  // RD_CMDSTREAM_ADDR sections
  std::uint64_t sections = 0;
  std::uint64_t packets = 0;  // packets the walker lists (group buffers once per record)
  std::uint64_t draws = 0;
  std::uint64_t ibs = 0;            // CP_INDIRECT_BUFFER packets followed
  std::uint64_t group_records = 0;  // CP_SET_DRAW_STATE records walked
  std::uint64_t stream_bytes = 0;   // bytes of dumped command buffers
};

// Writes the capture to `out(const std::byte*, std::size_t)`, which returns
// false to stop (the counts so far are returned with `bytes` = 0 then).
template <class Out>
frames_counts emulate_frames(const frames_options& o, Out&& out) {
  using namespace emu_detail;
  const bool groups = o.gen != generation::a5xx;
  constexpr std::uint64_t top = 0x1'0000'0000, group_base = 0x1'0010'0000, ib_base = 0x1'0100'0000,
                          texture_base = 0x2'0000'0000;
  constexpr std::uint32_t n_groups = 4;
  rng r{o.seed * 2 + 1};
  frames_counts c;

  // The draw-state group buffers: register writes of 1 to 4 dwords (registers
  // of the 0xa800 block, which holds no counter or query register).
  std::vector<std::vector<std::uint32_t>> group(n_groups);
  std::vector<std::uint32_t> group_packets(n_groups, 0);
  for (std::uint32_t g = 0; g < n_groups; ++g) {
    const std::uint32_t writes = 4 + g * 3;
    for (std::uint32_t w = 0; w < writes; ++w) {
      const std::uint32_t n = 1 + static_cast<std::uint32_t>(r.next() % 4);
      group[g].push_back(type4(0xa800 + 16 * g + w, n));
      for (std::uint32_t k = 0; k < n; ++k)
        group[g].push_back(static_cast<std::uint32_t>(r.next()));
      ++group_packets[g];
    }
  }

  bool first = true;
  while (c.bytes < o.bytes) {
    rd_file f;
    f.libwrap = o.libwrap;
    std::uint64_t sections = 0;
    if (first) {
      if (o.libwrap) {
        f.start();
        ++sections;
      }
      if (o.gen == generation::a7xx) {
        f.section(13, {0});
        f.section(14, {0x43051401, 0x0003});  // A750, fuse 3, as the kernel writes it
        sections += 2;
      } else {
        f.section(13, {o.gen == generation::a5xx ? 530u : 630u});
        ++sections;
      }
      first = false;
    }
    f.text(2, "hwpc-emulate/1: fence=" + std::to_string(c.submits + 1));
    ++sections;
    std::uint64_t packets = 0, draws = 0, ibs = 0, records = 0, stream = 0;
    if (o.texture_bytes >= 4) {
      // Texel-like data: runs of one value with a random dword now and then
      // (compressible, as real textures mostly are).
      std::vector<std::uint32_t> tex(static_cast<std::size_t>(o.texture_bytes / 4));
      const std::uint32_t base = static_cast<std::uint32_t>(r.next());
      for (std::size_t i = 0; i < tex.size(); ++i) {
        tex[i] = (i & 255) == 0 ? static_cast<std::uint32_t>(r.next())
                                : base + static_cast<std::uint32_t>(i >> 12);
      }
      f.buffer(texture_base, tex);
      sections += 2;
    }
    if (groups) {
      for (std::uint32_t g = 0; g < n_groups; ++g) {
        f.buffer(group_base + 0x1000 * g, group[g]);
        stream += 4 * group[g].size();
        sections += 2;
      }
    }
    std::vector<std::uint32_t> top_words;
    if (o.gen == generation::a7xx) {
      top_words.insert(top_words.end(), {type7(0x17, 1), 0x80000001});  // CP_THREAD_CONTROL BR
      ++packets;
    }
    if (groups) {
      top_words.insert(top_words.end(), {type7(0x65, 1), 1});  // CP_SET_MARKER RM6_DIRECT_RENDER
      ++packets;
    }
    for (std::uint32_t i = 0; i < o.draw_ibs; ++i) {
      std::vector<std::uint32_t> d;
      if (groups) {
        // Two records: groups (i % 4) and ((i + 1) % 4) with ids 1 and 2, SYSMEM.
        d.push_back(type7(0x43, 6));
        ++packets;
        for (std::uint32_t k = 0; k < 2; ++k) {
          const std::uint32_t g = (i + k) % n_groups;
          const std::uint64_t at = group_base + 0x1000 * g;
          d.insert(d.end(),
                   {((k + 1) << 24) | (1u << 22) | static_cast<std::uint32_t>(group[g].size()),
                    static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at >> 32)});
          packets += group_packets[g];
          ++records;
        }
      }
      for (std::uint32_t k = 0; k < o.draws; ++k) {
        const std::uint32_t reg = 0xb000 + static_cast<std::uint32_t>(r.next() % 64);
        d.insert(d.end(), {type4(reg, 2), static_cast<std::uint32_t>(r.next()),
                           static_cast<std::uint32_t>(r.next())});
        d.insert(d.end(), {type4(0xb100, 1), k});
        // CP_DRAW_INDX_OFFSET: draw initiator, instances, index count.
        d.insert(d.end(), {type7(0x38, 3), 0x00200004, 1, 3 + k % 300});
        d.insert(d.end(), {type7(0x10, 2), 0x11111111, 0x22222222});  // CP_NOP
        packets += 4;
        ++draws;
      }
      const std::uint64_t at = ib_base + 0x10'0000 * i;
      f.buffer(at, d);
      stream += 4 * d.size();
      sections += 2;
      top_words.insert(top_words.end(), {type7(0x3f, 3), static_cast<std::uint32_t>(at),
                                         static_cast<std::uint32_t>(at >> 32),
                                         static_cast<std::uint32_t>(d.size())});
      ++packets;
      ++ibs;
    }
    top_words.push_back(type7(0x26, 0));  // CP_WAIT_FOR_IDLE
    ++packets;
    f.buffer(top, top_words);
    stream += 4 * top_words.size();
    f.section(6, {static_cast<std::uint32_t>(top), static_cast<std::uint32_t>(top_words.size()),
                  static_cast<std::uint32_t>(top >> 32)});
    sections += 3;
    if (!out(f.bytes.data(), f.bytes.size())) {
      c.bytes = 0;
      return c;
    }
    c.bytes += f.bytes.size();
    c.sections += sections;
    c.packets += packets;
    c.draws += draws;
    c.ibs += ibs;
    c.group_records += records;
    c.stream_bytes += stream;
    ++c.submits;
  }
  return c;
}

// The same into memory.
inline std::vector<std::byte> emulate_frames_file(const frames_options& o, frames_counts* counts) {
  std::vector<std::byte> file;
  const frames_counts c = emulate_frames(o, [&](const std::byte* p, std::size_t n) {
    file.insert(file.end(), p, p + n);
    return true;
  });
  if (counts != nullptr) *counts = c;
  return file;
}

}  // namespace hwpc::adreno
