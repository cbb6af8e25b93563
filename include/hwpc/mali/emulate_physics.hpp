// The Mali emulator's physics: per block instance, counter values that keep
// the relations real hardware keeps, so that every derived counter of Arm's
// database stays in its range on emulated captures (docs/mali.md,
// "Emulator physics"). Counters are found by their Streamline names
// (gpu_table::streamline), the same on every GPU that has them, so one set of
// rules serves all thirteen layouts.
//
// Per sample the GPU is active for A cycles (GPU_ACTIVE) and its queues for
// B <= A (GPU_ITER_ACTIVE on CSF GPUs, the G715's MaliGPUActiveCy; B = A
// elsewhere). Every cycle counter of the front end, tiler and memory is at
// most B; each shader core is active for at most B, and its counters are
// bounded by its own active cycles. Within those bounds:
//   misses within lookups      MaliExtBusRd <= MaliL2CacheRdLookup (and Wr)
//   beats and transactions     transactions <= beats <= B per L2 slice
//   histograms sum to totals   MaliExtBusRdLat0..320 <= MaliExtBusRdBt in all,
//                              MaliExtBus{Rd,Wr}OTQ1..3 <= the transactions
//   queues                     *QueueAssignStallCy <= *QueuedCy <= B
//   subsets                    killed, tested, partial, diverged, narrow, mip,
//                              tri, ... <= the counter they are a part of
//   threads                    fragment threads <= warps x warp size
// Values are what the hardware writes: a counter with a shift is written as
// value >> shift, so that Arm's value << shift keeps the relation.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/mali/block.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali::detail {

// The numbers a physics model needs from its caller's random source.
template <class Rng>
concept emu_random = requires(Rng r, std::uint64_t n) {
  { r.below(n) } -> std::convertible_to<std::uint64_t>;
};

class emu_physics {
 public:
  explicit emu_physics(const gpu_table& t) : table_(&t) {
    for (const derived_counter& d : t.derived) {
      if (d.name != "MaliGPUWarpSize") continue;
      std::uint64_t v = 0;
      for (char c : d.equation) {
        if (c < '0' || c > '9') {
          v = 0;
          break;
        }
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
      }
      if (v != 0) warp_size_ = v;
    }
    busy_is_iter_ = t.find("GPU_ITER_ACTIVE").has_value();
  }

  // The queues' active cycles for a GPU active `active` cycles.
  template <emu_random Rng>
  std::uint64_t busy_cycles(Rng& rng, std::uint64_t active) const {
    return busy_is_iter_ ? active - rng.below(active / 8 + 1) : active;
  }

  // Values of one block instance (header words: PRFCNT_EN all set).
  template <emu_random Rng>
  void fill(Rng& rng, block_type type, std::uint64_t active, std::uint64_t busy,
            std::vector<std::uint64_t>& values) const {
    block b{this, type, values};
    values.assign(table_->values_per_block, 0);
    values[2] = 0xffffffffu;
    // Positions the layout does not name count something unnamed: any value
    // up to half the active cycles.
    for (std::size_t i = header_counters; i < values.size(); ++i) {
      if (table_->name_of(type, i).empty()) values[i] = rng.below(active / 2 + 1);
    }
    std::uint64_t bound = busy;  // what this instance's counters stay within
    if (type == block_type::shader_core) {
      const std::uint64_t any = busy / 2 + rng.below(busy / 2 + 1);
      b.set("MaliAnyActiveCy", any);
      const std::uint64_t core = any / 2 + rng.below(any / 2 + 1);
      b.set("MaliCoreActiveCy", core);
      bound = core;
    }
    // Every other named counter: a small share of the bound, so that sums of
    // up to 16 of them (issue cycles of the load/store, texture and
    // arithmetic pipes) stay within it.
    for (const hw_counter& c : table_->counters) {
      if (c.id.block != type || b.has_value(c.id.index)) continue;
      b.put(c, rng.below(bound / 16 + 1));
    }
    switch (type) {
      case block_type::front_end:
        b.set_hw("GPU_ACTIVE", active);
        b.set_hw("GPU_ITER_ACTIVE", busy);
        queues(rng, b, busy);
        break;
      case block_type::tiler:
        break;
      case block_type::memory:
        memory(rng, b, busy);
        break;
      case block_type::shader_core:
        shader_core(rng, b, bound);
        break;
    }
  }

 private:
  // One instance's values, by Streamline or hardware name.
  struct block {
    const emu_physics* p;
    block_type type;
    std::vector<std::uint64_t>& values;
    std::vector<bool> set_{};

    bool has_value(std::size_t index) const { return index < set_.size() && set_[index]; }
    void mark(std::size_t index) {
      if (set_.size() < values.size()) set_.resize(values.size());
      set_[index] = true;
    }
    // The counter of this block called so in Streamline, if any.
    std::optional<hw_counter> find(std::string_view streamline) const {
      for (const streamline_counter& s : p->table_->streamline) {
        if (s.name == streamline && s.id.block == type) {
          for (const hw_counter& c : p->table_->counters) {
            if (c.id == s.id) return c;
          }
        }
      }
      return std::nullopt;
    }
    bool has(std::string_view name) const { return find(name).has_value(); }
    // The value Arm reports (scaled), 0 for a counter the block lacks.
    std::uint64_t get(std::string_view name) const {
      const auto c = find(name);
      return c ? scale_counter(values[c->id.index], c->shift) : 0;
    }
    void put(const hw_counter& c, std::uint64_t scaled) {
      values[c.id.index] = scaled >> c.shift;
      mark(c.id.index);
    }
    void set(std::string_view name, std::uint64_t scaled) {
      if (const auto c = find(name)) put(*c, scaled);
    }
    void set_hw(std::string_view hw_name, std::uint64_t v) {
      const auto c = p->table_->find(hw_name);
      if (c && c->id.block == type) put(*c, v);
    }
    // `part` at most `whole / n` of `whole`'s value (when both exist).
    template <class Rng>
    void within(Rng& rng, std::string_view part, std::string_view whole, std::uint64_t n = 1) {
      if (has(part) && has(whole)) set(part, rng.below(get(whole) / n + 1));
    }
  };

  template <class Rng>
  static void queues(Rng& rng, block& b, std::uint64_t busy) {
    // Each queue's active cycles, MaliXQueuedCy - MaliXQueueAssignStallCy,
    // are within the busy cycles and not negative.
    for (std::string_view q : {"Frag", "Vert", "Comp", "Main", "Binning"}) {
      std::string queued = "Mali", stall = "Mali";
      queued.append(q).append("QueuedCy");
      stall.append(q).append("QueueAssignStallCy");
      if (!b.has(queued)) continue;
      b.set(queued, busy / 4 + rng.below(busy / 4 + 1));
      b.within(rng, stall, queued, 4);
    }
  }

  template <class Rng>
  static void memory(Rng& rng, block& b, std::uint64_t busy) {
    for (std::string_view d : {"Rd", "Wr"}) {
      const std::string lookup = std::string("MaliL2Cache") + std::string(d) + "Lookup";
      const std::string ext = std::string("MaliExtBus") + std::string(d);
      const std::string beats = ext + "Bt";
      b.within(rng, ext, lookup);                              // misses within lookups
      b.set(beats, b.get(ext) + rng.below(busy / 16 + 1));     // >= 1 beat per transaction
      for (std::string_view otq : {"OTQ1", "OTQ2", "OTQ3"}) {  // the 4th is the remainder
        b.within(rng, ext + std::string(otq), ext, 3);
      }
    }
    // Read latency histogram: buckets 0..320 within the beats, 384+ the rest.
    for (std::string_view lat : {"Lat0", "Lat128", "Lat192", "Lat256", "Lat320"}) {
      b.within(rng, "MaliExtBusRd" + std::string(lat), "MaliExtBusRdBt", 5);
    }
  }

  template <class Rng>
  void shader_core(Rng& rng, block& b, std::uint64_t core) const {
    // Activity within the core's active cycles, and at least a quarter of it.
    for (std::string_view a : {"MaliFragActiveCy", "MaliNonFragActiveCy", "MaliMainActiveCy",
                               "MaliCompOrBinningActiveCy"}) {
      b.set(a, core / 4 + rng.below(core - core / 4 + 1));
    }
    // Fragment quads and warps: the shaded quads (warps x warp size / 4) and
    // the early-ZS killed ones fit in the rasterized ones.
    b.set("MaliFragRastQd", core / 2 + rng.below(core / 4 + 1));
    const std::uint64_t warps = core / 32 + rng.below(core / 32 + 1);
    b.set("MaliFragWarp", warps);
    if (b.has("MaliFragThread")) {
      const std::uint64_t most = warps * warp_size_;
      b.set("MaliFragThread", most - rng.below(most / 4 + 1));
    }
    for (std::string_view w : {"MaliFragPartWarp", "MaliCoreAllRegsWarp", "MaliCoreFullWarp"}) {
      b.within(rng, w, "MaliFragWarp");
    }
    b.within(rng, "MaliEngSWBlendInstr", "MaliFragWarp", 4);
    b.within(rng, "MaliFragPrepassWarp", "MaliFragWarp", 2);
    b.within(rng, "MaliFragTileKill", "MaliFragTile");
    b.within(rng, "MaliFragPrepassPrim", "MaliFragPrim", 2);
    b.within(rng, "MaliFragPrepassSkippedPrim", "MaliFragPrim", 2);
    b.within(rng, "MaliFragPrepassKillQd", "MaliFragPrepassTestQd");
    // Arithmetic: diverged and narrow instructions, and slot 1's issues, are
    // arithmetic instructions (FMA ones stand for them).
    const std::string_view arith = b.has("MaliEngFMAInstr") ? "MaliEngFMAInstr" : "MaliEngInstr";
    for (std::string_view e :
         {"MaliEngDivergedInstr", "MaliEngNarrowInstr", "MaliEngSlot1IssueCy"}) {
      b.within(rng, e, arith);
    }
    // Texturing: kinds of instructions, passes and fetches within the whole.
    for (std::string_view t :
         {"MaliTex3DInstr", "MaliTexCompressInstr", "MaliTexMipInstr", "MaliTexTriInstr"}) {
      b.within(rng, t, "MaliTexInstr");
    }
    b.within(rng, "MaliTexQuadPassMip", "MaliTexQuadPass");
    b.within(rng, "MaliTexOutSingleMsg", "MaliTexOutMsg");
    b.within(rng, "MaliTexQuadPassTri", b.has("MaliTexQuads") ? "MaliTexQuads" : "MaliTexOutMsg");
    b.within(rng, "MaliTexCacheCompressFetch", "MaliTexCacheFetch");
    b.within(rng, "MaliTexFullBiFiltCy", "MaliTexFiltIssueCy", 2);
    b.within(rng, "MaliTexFullTriFiltCy", "MaliTexFiltIssueCy", 2);
  }

  const gpu_table* table_;
  std::uint64_t warp_size_ = 16;
  bool busy_is_iter_ = false;
};

}  // namespace hwpc::mali::detail
