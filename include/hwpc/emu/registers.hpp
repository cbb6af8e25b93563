// The OA unit's MMIO registers as the emulator models them.
//
// Bit positions are from the seeds, cited per field:
//   [PRM67] seeds/intel-snb-ivb-hsw-prm-observability.txt, "Performance
//           Statistics Registers" (OACONTROL 02360h, OASTATUS1 02364h,
//           OASTATUS2 02368h, OABUFFER 023B0h).
//   [i915]  seeds/i915-perf-hsw-oa-patch.txt, i915_reg.h hunk (GEN7_* and
//           GEN8_* defines, including the Gen8 addresses 0x2B00..0x2B14).
// The Gen8 OABUFFER bits are not in any seed; the emulator lays it out like
// the Gen7 OASTATUS1 size field (base 31:6, size 5:3) plus the GGTT select in
// bit 0, and says so in docs/emulator.md.
//
// oa_registers hides the Gen7/Gen8 split from the OA unit model: it reads
// the programmed fields and updates head, tail and status bits in whichever
// registers hold them on that generation.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "hwpc/intel/platform.hpp"

namespace hwpc::emu {

// A register field, bits hi..lo inclusive as the PRM writes them.
struct reg_field {
  unsigned hi;
  unsigned lo;
  constexpr std::uint32_t mask() const noexcept {
    return (hi - lo + 1 >= 32 ? ~0u : ((1u << (hi - lo + 1)) - 1u)) << lo;
  }
  constexpr std::uint32_t get(std::uint32_t reg) const noexcept { return (reg & mask()) >> lo; }
  constexpr std::uint32_t set(std::uint32_t reg, std::uint32_t v) const noexcept {
    return (reg & ~mask()) | ((v << lo) & mask());
  }
};

namespace gen7 {
// OACONTROL 02360h [PRM67; i915 GEN7_OACONTROL_*].
inline constexpr std::uint32_t OACONTROL = 0x2360;
inline constexpr reg_field OACONTROL_CONTEXT_ID{31, 12};
inline constexpr reg_field OACONTROL_TIMER_PERIOD{11, 6};  // period = 2^(n+1) ticks (SNB: 2^(n+4))
inline constexpr reg_field OACONTROL_TIMER_ENABLE{5, 5};
inline constexpr reg_field OACONTROL_COUNTER_SELECT{4, 2};  // PRM: "Reserved" on HSW; i915 uses it
inline constexpr reg_field OACONTROL_SPECIFIC_CONTEXT_ENABLE{1, 1};
inline constexpr reg_field OACONTROL_ENABLE{0, 0};

// OASTATUS1 02364h [PRM67; i915 GEN7_OASTATUS1_*].
inline constexpr std::uint32_t OASTATUS1 = 0x2364;
inline constexpr reg_field OASTATUS1_TAIL{31, 6};        // GraphicsAddress[31:6]
inline constexpr reg_field OASTATUS1_BUFFER_SIZE{5, 3};  // HSW 128 KiB << n; SNB/IVB 16 KiB * (n+1)
inline constexpr reg_field OASTATUS1_COUNTER_OVERFLOW{2, 2};
inline constexpr reg_field OASTATUS1_BUFFER_OVERFLOW{1, 1};
inline constexpr reg_field OASTATUS1_REPORT_LOST{0, 0};

// OASTATUS2 02368h [PRM67; i915 GEN7_OASTATUS2_HEAD_MASK].
inline constexpr std::uint32_t OASTATUS2 = 0x2368;
inline constexpr reg_field OASTATUS2_HEAD{31, 6};
inline constexpr reg_field OASTATUS2_MEM_SELECT_GGTT{0, 0};  // HSW: RO, default 1

// OABUFFER 023B0h [PRM67; i915 GEN7_OABUFFER_*].
inline constexpr std::uint32_t OABUFFER = 0x23B0;
inline constexpr reg_field OABUFFER_BASE{31, 6};
inline constexpr reg_field OABUFFER_OVERRUN_STATUS{4, 4};   // HSW, RO
inline constexpr reg_field OABUFFER_OVERRUN_DISABLE{3, 3};  // HSW: stop instead of overwrite
inline constexpr reg_field OABUFFER_EDGE_TRIGGER{2, 2};     // i915 define
inline constexpr reg_field OABUFFER_STOP_RESUME_ENABLE{1, 1};
inline constexpr reg_field OABUFFER_RESUME{0, 0};
}  // namespace gen7

namespace gen8 {
// [i915] GEN8_OACONTROL 0x2B00.
inline constexpr std::uint32_t OACONTROL = 0x2B00;
inline constexpr reg_field OACONTROL_COUNTER_SELECT{4, 2};
inline constexpr reg_field OACONTROL_SPECIFIC_CONTEXT_ENABLE{1, 1};
inline constexpr reg_field OACONTROL_ENABLE{0, 0};
// [i915] GEN8_OACTXCONTROL 0x2360 (the Gen7 OACONTROL address).
inline constexpr std::uint32_t OACTXCONTROL = 0x2360;
inline constexpr reg_field OACTXCONTROL_TIMER_PERIOD{7, 2};
inline constexpr reg_field OACTXCONTROL_TIMER_ENABLE{1, 1};
inline constexpr reg_field OACTXCONTROL_COUNTER_RESUME{0, 0};
// [i915] GEN8_OACTXID 0x2364: the context id specific-context mode selects.
inline constexpr std::uint32_t OACTXID = 0x2364;
// [i915] GEN8_OASTATUS 0x2B08.
inline constexpr std::uint32_t OASTATUS = 0x2B08;
inline constexpr reg_field OASTATUS_OVERRUN_STATUS{3, 3};
inline constexpr reg_field OASTATUS_COUNTER_OVERFLOW{2, 2};
inline constexpr reg_field OASTATUS_BUFFER_OVERFLOW{1, 1};
inline constexpr reg_field OASTATUS_REPORT_LOST{0, 0};
// [i915] GEN8_OAHEADPTR 0x2B0C, GEN8_OATAILPTR 0x2B10: GraphicsAddress[31:6].
inline constexpr std::uint32_t OAHEADPTR = 0x2B0C;
inline constexpr std::uint32_t OATAILPTR = 0x2B10;
inline constexpr reg_field PTR_ADDRESS{31, 6};
// [i915] GEN8_OABUFFER 0x2B14. Field layout: emulator model (see above).
inline constexpr std::uint32_t OABUFFER = 0x2B14;
inline constexpr reg_field OABUFFER_BASE{31, 6};
inline constexpr reg_field OABUFFER_SIZE{5, 3};  // 128 KiB << n
inline constexpr reg_field OABUFFER_MEM_SELECT_GGTT{0, 0};
}  // namespace gen8

// Bytes of the OA buffer for a size field value.
constexpr std::uint32_t oa_buffer_bytes(intel::generation g, unsigned size_field) noexcept {
  if (g == intel::generation::gen6 || g == intel::generation::gen7) {
    return 16u * 1024u * (size_field + 1);  // [PRM67] OASTATUS1 5:3 on SNB/IVB
  }
  return (128u * 1024u) << size_field;  // HSW and later: 128 KiB .. 16 MiB
}

// Periodic report spacing in TIME_STAMP ticks for a timer-period field value.
constexpr std::uint64_t timer_period_ticks(intel::generation g, unsigned exponent) noexcept {
  // [PRM67] OACONTROL 11:6: SNB strobes every 2^(n+4) ticks, later parts 2^(n+1).
  const unsigned shift = g == intel::generation::gen6 ? exponent + 4 : exponent + 1;
  return shift >= 64 ? 0 : std::uint64_t{1} << shift;
}

class oa_registers {
 public:
  explicit constexpr oa_registers(intel::generation g) noexcept : gen_(g) {}

  constexpr intel::generation gen() const noexcept { return gen_; }
  constexpr bool gen8_layout() const noexcept { return gen_ >= intel::generation::gen8; }

  // ---- Programming, in the order a driver does it.
  constexpr void program_buffer(std::uint32_t gtt_base, unsigned size_field, bool overrun_disable) {
    overrun_disable_ = overrun_disable;
    if (gen8_layout()) {
      oabuffer_ = gen8::OABUFFER_BASE.set(0, gtt_base >> 6);
      oabuffer_ = gen8::OABUFFER_SIZE.set(oabuffer_, size_field);
      oabuffer_ = gen8::OABUFFER_MEM_SELECT_GGTT.set(oabuffer_, 1);
      oaheadptr_ = gtt_base;
      oatailptr_ = gtt_base;
      oastatus_ = 0;
    } else {
      // [PRM67] OABUFFER "must be set before the OASTATUS1 register and set
      // after the OASTATUS2 register".
      oastatus2_ = gen7::OASTATUS2_HEAD.set(0, gtt_base >> 6);
      oastatus2_ = gen7::OASTATUS2_MEM_SELECT_GGTT.set(oastatus2_, 1);
      oabuffer_ = gen7::OABUFFER_BASE.set(0, gtt_base >> 6);
      if (gen_ == intel::generation::gen7_5) {
        oabuffer_ = gen7::OABUFFER_OVERRUN_DISABLE.set(oabuffer_, overrun_disable ? 1 : 0);
      }
      oastatus1_ = gen7::OASTATUS1_TAIL.set(0, gtt_base >> 6);
      oastatus1_ = gen7::OASTATUS1_BUFFER_SIZE.set(oastatus1_, size_field);
    }
  }
  constexpr void program_control(std::uint8_t counter_select, unsigned exponent, bool timer,
                                 bool specific_context, std::uint32_t ctx_id) {
    if (gen8_layout()) {
      oactxcontrol_ = gen8::OACTXCONTROL_TIMER_PERIOD.set(0, exponent);
      oactxcontrol_ = gen8::OACTXCONTROL_TIMER_ENABLE.set(oactxcontrol_, timer ? 1 : 0);
      oactxid_ = ctx_id;
      oacontrol_ = gen8::OACONTROL_COUNTER_SELECT.set(0, counter_select);
      oacontrol_ = gen8::OACONTROL_SPECIFIC_CONTEXT_ENABLE.set(oacontrol_, specific_context);
      oacontrol_ = gen8::OACONTROL_ENABLE.set(oacontrol_, 1);
    } else {
      oacontrol_ = gen7::OACONTROL_CONTEXT_ID.set(0, ctx_id >> 12);
      oacontrol_ = gen7::OACONTROL_TIMER_PERIOD.set(oacontrol_, exponent);
      oacontrol_ = gen7::OACONTROL_TIMER_ENABLE.set(oacontrol_, timer ? 1 : 0);
      oacontrol_ = gen7::OACONTROL_COUNTER_SELECT.set(oacontrol_, counter_select);
      oacontrol_ = gen7::OACONTROL_SPECIFIC_CONTEXT_ENABLE.set(oacontrol_, specific_context);
      oacontrol_ = gen7::OACONTROL_ENABLE.set(oacontrol_, 1);
    }
  }

  // ---- Fields the OA unit reads.
  constexpr bool enabled() const noexcept {
    return (gen8_layout() ? gen8::OACONTROL_ENABLE : gen7::OACONTROL_ENABLE).get(oacontrol_) != 0;
  }
  constexpr std::uint8_t counter_select() const noexcept {
    return static_cast<std::uint8_t>(
        (gen8_layout() ? gen8::OACONTROL_COUNTER_SELECT : gen7::OACONTROL_COUNTER_SELECT)
            .get(oacontrol_));
  }
  constexpr unsigned exponent() const noexcept {
    return gen8_layout() ? gen8::OACTXCONTROL_TIMER_PERIOD.get(oactxcontrol_)
                         : gen7::OACONTROL_TIMER_PERIOD.get(oacontrol_);
  }
  constexpr bool timer_enabled() const noexcept {
    return gen8_layout() ? gen8::OACTXCONTROL_TIMER_ENABLE.get(oactxcontrol_) != 0
                         : gen7::OACONTROL_TIMER_ENABLE.get(oacontrol_) != 0;
  }
  constexpr bool specific_context() const noexcept {
    return (gen8_layout() ? gen8::OACONTROL_SPECIFIC_CONTEXT_ENABLE
                          : gen7::OACONTROL_SPECIFIC_CONTEXT_ENABLE)
               .get(oacontrol_) != 0;
  }
  // The context id specific-context mode counts. Gen7 keeps bits 31:12 only.
  constexpr std::uint32_t selected_context() const noexcept {
    return gen8_layout() ? oactxid_ : gen7::OACONTROL_CONTEXT_ID.get(oacontrol_) << 12;
  }
  constexpr std::uint32_t buffer_base() const noexcept {
    return (gen8_layout() ? gen8::OABUFFER_BASE : gen7::OABUFFER_BASE).get(oabuffer_) << 6;
  }
  constexpr unsigned size_field() const noexcept {
    return gen8_layout() ? gen8::OABUFFER_SIZE.get(oabuffer_)
                         : gen7::OASTATUS1_BUFFER_SIZE.get(oastatus1_);
  }
  constexpr std::uint32_t buffer_bytes() const noexcept {
    return oa_buffer_bytes(gen_, size_field());
  }
  constexpr bool overrun_disabled() const noexcept { return overrun_disable_; }

  // Head and tail as graphics addresses (what the registers hold).
  constexpr std::uint32_t head() const noexcept {
    return gen8_layout() ? gen8::PTR_ADDRESS.get(oaheadptr_) << 6
                         : gen7::OASTATUS2_HEAD.get(oastatus2_) << 6;
  }
  constexpr std::uint32_t tail() const noexcept {
    return gen8_layout() ? gen8::PTR_ADDRESS.get(oatailptr_) << 6
                         : gen7::OASTATUS1_TAIL.get(oastatus1_) << 6;
  }
  constexpr void set_head(std::uint32_t addr) noexcept {
    if (gen8_layout()) {
      oaheadptr_ = gen8::PTR_ADDRESS.set(oaheadptr_, addr >> 6);
    } else {
      oastatus2_ = gen7::OASTATUS2_HEAD.set(oastatus2_, addr >> 6);
    }
  }
  constexpr void set_tail(std::uint32_t addr) noexcept {
    if (gen8_layout()) {
      oatailptr_ = gen8::PTR_ADDRESS.set(oatailptr_, addr >> 6);
    } else {
      oastatus1_ = gen7::OASTATUS1_TAIL.set(oastatus1_, addr >> 6);
    }
  }

  // ---- Status bits (OASTATUS1 2:0 on Gen7, OASTATUS 3:0 on Gen8+).
  constexpr bool buffer_overflow() const noexcept {
    return gen8_layout() ? gen8::OASTATUS_BUFFER_OVERFLOW.get(oastatus_) != 0
                         : gen7::OASTATUS1_BUFFER_OVERFLOW.get(oastatus1_) != 0;
  }
  constexpr bool report_lost() const noexcept {
    return gen8_layout() ? gen8::OASTATUS_REPORT_LOST.get(oastatus_) != 0
                         : gen7::OASTATUS1_REPORT_LOST.get(oastatus1_) != 0;
  }
  constexpr void set_buffer_overflow(bool v) noexcept {
    if (gen8_layout()) {
      oastatus_ = gen8::OASTATUS_BUFFER_OVERFLOW.set(oastatus_, v);
      if (v) oastatus_ = gen8::OASTATUS_OVERRUN_STATUS.set(oastatus_, 1);
    } else {
      oastatus1_ = gen7::OASTATUS1_BUFFER_OVERFLOW.set(oastatus1_, v);
      if (v && gen_ == intel::generation::gen7_5) {
        oabuffer_ = gen7::OABUFFER_OVERRUN_STATUS.set(oabuffer_, 1);
      }
    }
  }
  constexpr void set_report_lost(bool v) noexcept {
    if (gen8_layout()) {
      oastatus_ = gen8::OASTATUS_REPORT_LOST.set(oastatus_, v);
    } else {
      oastatus1_ = gen7::OASTATUS1_REPORT_LOST.set(oastatus1_, v);
    }
  }

  // Every modelled register as (MMIO address, value), for dumps and tests.
  constexpr std::array<std::pair<std::uint32_t, std::uint32_t>, 7> snapshot() const noexcept {
    if (gen8_layout()) {
      return {{{gen8::OACONTROL, oacontrol_},
               {gen8::OACTXCONTROL, oactxcontrol_},
               {gen8::OACTXID, oactxid_},
               {gen8::OASTATUS, oastatus_},
               {gen8::OAHEADPTR, oaheadptr_},
               {gen8::OATAILPTR, oatailptr_},
               {gen8::OABUFFER, oabuffer_}}};
    }
    return {{{gen7::OACONTROL, oacontrol_},
             {gen7::OASTATUS1, oastatus1_},
             {gen7::OASTATUS2, oastatus2_},
             {gen7::OABUFFER, oabuffer_},
             {0, 0},
             {0, 0},
             {0, 0}}};
  }
  // Reads a register by MMIO address; 0 for addresses this generation lacks.
  constexpr std::uint32_t read(std::uint32_t addr) const noexcept {
    for (const auto& [a, v] : snapshot()) {
      if (a == addr && a != 0) return v;
    }
    return 0;
  }

 private:
  intel::generation gen_;
  bool overrun_disable_ = false;
  std::uint32_t oacontrol_ = 0;
  std::uint32_t oabuffer_ = 0;
  // Gen7
  std::uint32_t oastatus1_ = 0;
  std::uint32_t oastatus2_ = 0;
  // Gen8+
  std::uint32_t oactxcontrol_ = 0;
  std::uint32_t oactxid_ = 0;
  std::uint32_t oastatus_ = 0;
  std::uint32_t oaheadptr_ = 0;
  std::uint32_t oatailptr_ = 0;
};

}  // namespace hwpc::emu
