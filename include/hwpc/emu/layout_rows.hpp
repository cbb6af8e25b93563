// The emulator's notation for OA report layouts and its consteval parser.
//
// Each layout in layouts.hpp is a literal transcription of a PRM table: rows
// of eight cells, written left to right as the PRM prints them, where the
// rightmost cell of a row is its lowest dword (row r, cell c counted from the
// left is dword 8r + 7 - c). parse_rows() turns the rows into byte offsets at
// compile time, so a typo fails the build rather than a test.
//
// Cell tokens:
//   RPT            RPT_ID (must be dw0)
//   TS             32-bit TIME_STAMP;  TS.lo / TS.hi the halves of a 64-bit one
//   TICKS          32-bit GPU_TICKS;   TICKS.lo / TICKS.hi a 64-bit one
//   CTX            context id (Gen8+)
//   INST           HSW "INST ADD" cell (not a counter)
//   -  R           empty / reserved (written as zero)
//   A7 B3 C0 M5    counter A7, B3, C0, MPEC5 (low dword for 40-bit counters)
//   hA3:hA2:hA1:hA0  a dword of four high bytes (bits 39:32), most significant
//                  byte first as in a printed cell; "-" for an unused byte
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace hwpc::emu {

// Counter banks in the order every output lists them (GPU_TICKS, MPEC, PEC,
// A, B, C). PEC: the Xe2/Xe3 programmable event counters (xe_layouts.hpp).
enum class bank : std::uint8_t { gpu_ticks, mpec, pec, a, b, c };

inline constexpr std::size_t max_a = 48;
inline constexpr std::size_t max_bc = 8;
inline constexpr std::size_t max_pec = 64;

struct counter_slot {
  bank k = bank::a;
  std::uint8_t index = 0;
  std::uint16_t offset = 0;     // byte offset of the (low) dword
  std::uint8_t bits = 32;       // 32, 40 or 64
  std::uint16_t high_byte = 0;  // 40-bit: byte holding bits 39:32
};

struct report_layout {
  std::uint16_t size = 0;
  std::array<counter_slot, 96> counters{};  // PEC64u64_B8_C8: GPU_TICKS + 80
  std::size_t counter_count = 0;
  int ts_offset = -1;
  std::uint8_t ts_bits = 32;
  int ctx_offset = -1;
  int inst_offset = -1;

  constexpr std::span<const counter_slot> slots() const noexcept {
    return {counters.data(), counter_count};
  }
};

namespace detail {

// The helpers are constexpr, not consteval: clang 14 does not count the body
// of a consteval function template (parse_rows) as an immediate context and
// rejects consteval calls there that read its locals. Called only from
// parse_rows, they still run at compile time.
constexpr bool is_space(char c) { return c == ' ' || c == '\t'; }

constexpr unsigned parse_number(std::string_view s) {
  if (s.empty()) throw "layout: counter token without a number";
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') throw "layout: bad counter number";
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

constexpr bool counter_token(std::string_view t, bank& k, unsigned& idx) {
  if (t.size() < 2) return false;
  switch (t[0]) {
    case 'A':
      k = bank::a;
      break;
    case 'B':
      k = bank::b;
      break;
    case 'C':
      if (t == "CTX") return false;
      k = bank::c;
      break;
    case 'M':
      k = bank::mpec;
      break;
    default:
      return false;
  }
  idx = parse_number(t.substr(1));
  if ((k == bank::a && idx >= max_a) || (k != bank::a && idx >= max_bc)) {
    throw "layout: counter number out of range";
  }
  return true;
}

constexpr int bank_rank(bank k) { return static_cast<int>(k); }

// Parses rows of 8 cells (see the header comment) into a report_layout.
template <std::size_t R>
consteval report_layout parse_rows(const std::string_view (&rows)[R]) {
  report_layout out;
  out.size = static_cast<std::uint16_t>(R * 32);
  std::array<int, max_a> high_of{};  // high byte offset of A<i>, or -1
  for (auto& h : high_of) h = -1;
  bool seen_rpt = false;
  for (std::size_t r = 0; r < R; ++r) {
    std::string_view row = rows[r];
    unsigned cell = 0;
    std::size_t i = 0;
    while (true) {
      while (i < row.size() && is_space(row[i])) ++i;
      if (i >= row.size()) break;
      std::size_t j = i;
      while (j < row.size() && !is_space(row[j])) ++j;
      const std::string_view tok = row.substr(i, j - i);
      i = j;
      if (cell >= 8) throw "layout: more than 8 cells in a row";
      const unsigned dw = static_cast<unsigned>(8 * r + 7 - cell);
      const auto off = static_cast<std::uint16_t>(dw * 4);
      ++cell;
      bank k{};
      unsigned idx = 0;
      if (tok == "-" || tok == "R" || tok == "TS.hi" || tok == "TICKS.hi") {
        continue;  // nothing, or the upper half of a 64-bit value placed by its .lo cell
      } else if (tok == "RPT") {
        if (dw != 0) throw "layout: RPT_ID must be the lowest dword";
        seen_rpt = true;
      } else if (tok == "TS") {
        out.ts_offset = off;
        out.ts_bits = 32;
      } else if (tok == "TS.lo") {
        out.ts_offset = off;
        out.ts_bits = 64;
      } else if (tok == "CTX") {
        out.ctx_offset = off;
      } else if (tok == "INST") {
        out.inst_offset = off;
      } else if (tok == "TICKS" || tok == "TICKS.lo") {
        out.counters[out.counter_count++] = counter_slot{
            bank::gpu_ticks, 0, off, static_cast<std::uint8_t>(tok == "TICKS" ? 32 : 64), 0};
      } else if (tok.find(':') != std::string_view::npos) {
        // Four high bytes, most significant (highest address) first.
        std::size_t p = 0;
        for (int b = 3; b >= 0; --b) {
          std::size_t q = tok.find(':', p);
          if (q == std::string_view::npos) q = tok.size();
          const std::string_view part = tok.substr(p, q - p);
          p = q + 1;
          if (part == "-") continue;
          if (part.size() < 3 || part[0] != 'h' || part[1] != 'A') throw "layout: bad high byte";
          const unsigned a = parse_number(part.substr(2));
          if (a >= max_a || high_of[a] != -1) throw "layout: bad or repeated high byte";
          high_of[a] = off + b;
        }
      } else if (counter_token(tok, k, idx)) {
        for (std::size_t c = 0; c < out.counter_count; ++c) {
          if (out.counters[c].k == k && out.counters[c].index == idx)
            throw "layout: repeated counter";
        }
        out.counters[out.counter_count++] =
            counter_slot{k, static_cast<std::uint8_t>(idx), off, 32, 0};
      } else {
        throw "layout: unknown cell token";
      }
    }
    if (cell != 8) throw "layout: a row must have exactly 8 cells";
  }
  if (!seen_rpt || out.ts_offset < 0) throw "layout: no RPT_ID or TIME_STAMP";
  for (std::size_t c = 0; c < out.counter_count; ++c) {
    auto& s = out.counters[c];
    if (s.k == bank::a && high_of[s.index] >= 0) {
      s.bits = 40;
      s.high_byte = static_cast<std::uint16_t>(high_of[s.index]);
      high_of[s.index] = -2;
    }
  }
  for (int h : high_of) {
    if (h >= 0) throw "layout: high byte of a counter the layout does not have";
  }
  // Canonical order: by bank, then number.
  for (std::size_t a = 1; a < out.counter_count; ++a) {
    for (std::size_t b = a; b > 0; --b) {
      auto& x = out.counters[b - 1];
      auto& y = out.counters[b];
      const bool after = bank_rank(x.k) > bank_rank(y.k) ||
                         (bank_rank(x.k) == bank_rank(y.k) && x.index > y.index);
      if (!after) break;
      const counter_slot t = x;
      x = y;
      y = t;
    }
  }
  return out;
}

}  // namespace detail
}  // namespace hwpc::emu
