// A Mali sample emulator: writes a capture file (hwpc/mali/capture_file.hpp
// layout) of vinstr or kinstr_prfcnt samples for any GPU, with a seeded
// workload, and the truth: every sample's values summed per block type and
// index. It packs bytes with its own code from the kernel's layouts
// (FACTS-mali sections 4 and 5), never through the decoders, so decoding its
// output and comparing with the truth checks the decoders.
//
//   hwpc::mali::emulation e = hwpc::mali::emulate({.gpu_id = 0x92000000, ...});
//   write(e.file); e.truth[k].at(block_type::front_end, 6);
//
// Workload: per sample, the GPU is active for C cycles (C from the sample
// period at 1 GHz, less a seeded idle share); GPU_ACTIVE (front-end 6 on
// Job-Manager GPUs, 4 on CSF GPUs: FACTS-mali section 7) holds C and every
// other counter of every block a seeded value in 0..C, so no counter exceeds
// the active cycles. With the GPU's table (emulate_options::table) the values
// also keep the relations of hwpc/mali/emulate_physics.hpp, so every derived
// counter stays in its range. vinstr gap blocks (cores absent from the mask) hold
// garbage that must never be read. kinstr_prfcnt blocks are now and then off
// or protected: their values are garbage and left out of the truth.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "hwpc/mali/block.hpp"
#include "hwpc/mali/emulate_physics.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali {

struct emulate_options {
  std::uint64_t gpu_id = 0;  // written to the header (0: not recorded)
  bool csf = false;          // GPU_ACTIVE at front-end 4 (CSF) or 6 (Job Manager)
  std::uint16_t values_per_block = 64;
  bool kinstr = false;  // kinstr_prfcnt (else vinstr)
  std::uint32_t l2_slices = 1;
  std::uint64_t core_mask = 1;
  std::size_t samples = 1;
  std::uint64_t seed = 1;
  std::uint64_t period_ns = 1'000'000;
  // The GPU's counter table: with it, the workload keeps the physics of
  // emulate_physics.hpp (its values_per_block must equal the option's).
  const gpu_table* table = nullptr;
};

struct emulation {
  std::vector<std::byte> file;
  std::vector<block_sums> truth;             // per sample
  std::vector<std::uint64_t> end_ns;         // per sample
  std::vector<std::uint64_t> active_cycles;  // per sample: GPU_ACTIVE of the front-end
};

namespace detail {
// splitmix64: small, seeded, the same everywhere.
struct emu_rng {
  std::uint64_t s;
  std::uint64_t next() noexcept {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }
};
inline void emu_put(std::vector<std::byte>& b, std::size_t at, std::uint64_t v, std::size_t n) {
  if (b.size() < at + n) b.resize(at + n);
  // Bytes past the eighth are zero (n may cover padding).
  for (std::size_t i = 0; i < n; ++i) {
    b[at + i] = static_cast<std::byte>(i < 8 ? (v >> (8 * i)) & 0xff : 0);
  }
}
}  // namespace detail

// The values of one block instance for one sample, and their share of the truth.
inline void emulate_block(detail::emu_rng& rng, const emulate_options& o, std::size_t type,
                          std::uint64_t active, std::vector<std::uint64_t>& values) {
  values.assign(o.values_per_block, 0);
  values[2] = 0xffffffffu;  // PRFCNT_EN header: everything enabled
  for (std::size_t i = 4; i < o.values_per_block; ++i) values[i] = rng.below(active + 1);
  if (type == 0) values[o.csf ? 4 : 6] = active;
}

inline emulation emulate(const emulate_options& o) {
  using detail::emu_put;
  detail::emu_rng rng{o.seed};
  emulation e;
  std::optional<detail::emu_physics> physics;
  if (o.table != nullptr && o.table->values_per_block == o.values_per_block) {
    physics.emplace(*o.table);
  }
  // Header: magic, version 1, reader, L2 slices, GPU_ID, core mask.
  const char magic[] = "HWPCMALI";
  for (std::size_t i = 0; i < 8; ++i) emu_put(e.file, i, static_cast<unsigned char>(magic[i]), 1);
  emu_put(e.file, 8, 1, 2);
  emu_put(e.file, 10, o.kinstr ? 2 : 1, 2);
  emu_put(e.file, 12, o.l2_slices, 4);
  emu_put(e.file, 16, o.gpu_id, 8);
  emu_put(e.file, 24, o.core_mask, 8);
  emu_put(e.file, 32, 0, 32);
  const std::size_t cores = static_cast<std::size_t>(std::popcount(o.core_mask));
  const std::size_t positions = static_cast<std::size_t>(std::bit_width(o.core_mask));
  std::vector<std::uint64_t> values;
  for (std::size_t k = 0; k < o.samples; ++k) {
    const std::uint64_t cycles = o.period_ns;  // 1 GHz
    const std::uint64_t active = cycles - rng.below(cycles / 4 + 1);
    const std::uint64_t busy = physics ? physics->busy_cycles(rng, active) : active;
    auto emulate_one = [&](std::size_t type) {
      if (physics) {
        physics->fill(rng, static_cast<block_type>(type), active, busy, values);
      } else {
        emulate_block(rng, o, type, active, values);
      }
    };
    block_sums truth;
    const std::uint64_t end = o.period_ns * (k + 1);
    auto count = [&](std::size_t type) {
      for (std::size_t i = 4; i < o.values_per_block; ++i) truth.values[type][i] += values[i];
    };
    if (!o.kinstr) {
      // 32-byte kernel metadata, then FE, tiler, L2 slices, core positions (gaps included).
      const std::size_t at = e.file.size();
      emu_put(e.file, at, end, 8);
      emu_put(e.file, at + 8, 1, 4);  // periodic
      emu_put(e.file, at + 12, static_cast<std::uint32_t>(k % 4), 4);
      emu_put(e.file, at + 16, cycles, 8);
      emu_put(e.file, at + 24, cycles, 8);
      std::size_t block_at = at + 32;
      auto put_block = [&](std::size_t type, bool present) {
        if (present) {
          emulate_one(type);
          count(type);
        } else {
          values.assign(o.values_per_block, 0xa5a5a5a5u);
        }
        for (std::size_t i = 0; i < 64; ++i) emu_put(e.file, block_at + 4 * i, values[i], 4);
        block_at += 256;
      };
      put_block(0, true);
      put_block(1, true);
      for (std::uint32_t s = 0; s < o.l2_slices; ++s) put_block(2, true);
      for (std::size_t bit = 0; bit < positions; ++bit) put_block(3, (o.core_mask >> bit) & 1u);
    } else {
      // Metadata list (SAMPLE, CLOCK, BLOCKs, NONE; 48-byte items), then values;
      // values offsets count from the buffer's start, byte 64 of the file.
      const std::size_t buffer = 64;
      const std::size_t start = e.file.size();
      const std::size_t nblocks = 2 + o.l2_slices + cores;
      const std::size_t values_at = start + 48 * (2 + nblocks + 1);
      std::size_t item = start;
      auto header = [&](std::uint16_t type) {
        emu_put(e.file, item, type, 2);
        emu_put(e.file, item + 2, 0, 6);
        emu_put(e.file, item + 8, 0, 40);
      };
      header(0x2000);
      emu_put(e.file, item + 8, end - o.period_ns, 8);
      emu_put(e.file, item + 16, end, 8);
      emu_put(e.file, item + 24, k + 1, 8);
      emu_put(e.file, item + 32, o.seed, 8);
      emu_put(e.file, item + 40, 0, 4);
      item += 48;
      header(0x2001);
      emu_put(e.file, item + 8, 2, 4);
      emu_put(e.file, item + 16, cycles, 8);
      emu_put(e.file, item + 24, cycles, 8);
      item += 48;
      std::size_t n = 0;
      auto put_block = [&](std::size_t type, std::size_t index) {
        // One block in eight is off or protected: garbage values, not counted.
        const std::uint64_t pick = rng.below(16);
        const std::uint32_t state = pick == 0 ? 0x02u : pick == 1 ? 0x21u : 0x15u;
        const std::size_t at = values_at + n * o.values_per_block * 8;
        header(0x2002);
        emu_put(e.file, item + 8, type, 1);
        emu_put(e.file, item + 9, index, 1);
        emu_put(e.file, item + 10, 0, 2);
        emu_put(e.file, item + 12, state, 4);
        emu_put(e.file, item + 16, at - buffer, 4);
        item += 48;
        if (state == 0x15u) {
          emulate_one(type);
          count(type);
        } else {
          values.assign(o.values_per_block, 0x5a5a5a5a5a5a5a5aull);
        }
        for (std::size_t i = 0; i < o.values_per_block; ++i)
          emu_put(e.file, at + 8 * i, values[i], 8);
        ++n;
      };
      put_block(0, 0);
      put_block(1, 0);
      for (std::uint32_t s = 0; s < o.l2_slices; ++s) put_block(2, s);
      for (std::size_t c = 0; c < cores; ++c) put_block(3, c);
      header(0x0000);
    }
    e.truth.push_back(truth);
    e.end_ns.push_back(end);
    e.active_cycles.push_back(active);
  }
  return e;
}

}  // namespace hwpc::mali
