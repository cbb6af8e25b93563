// Typed values of the formula language.
//
// A formula value is either an unsigned 64-bit integer or an IEEE double. The
// type of every value is known when the formula is compiled (each operator has
// fixed operand and result types, and every input is declared with a type), so
// evaluators carry values as raw 64-bit slots: u64 values as themselves,
// doubles as their bit pattern. That keeps the node arrays of the batch
// evaluator homogeneous and lets one function define each operator for every
// evaluator.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

namespace hwpc::expr {

enum class vtype : std::uint8_t { u64, f64 };

constexpr std::string_view to_string(vtype t) noexcept { return t == vtype::u64 ? "u64" : "f64"; }

using slot = std::uint64_t;

constexpr double as_f64(slot s) noexcept { return std::bit_cast<double>(s); }
constexpr slot from_f64(double d) noexcept { return std::bit_cast<slot>(d); }

// The promotion rules, in one place.
//
// u64 -> double: the nearest double (round to nearest even); exact below 2^53.
//
// Computed as what static_cast<double> gives, but in a form x86-64 without
// AVX-512 can vectorise (it has no unsigned 64-bit conversion): the high and
// low 32-bit halves become exact doubles by placing them in the mantissas of
// 2^84 and 2^52, the subtraction of both offsets is exact, and the final
// addition rounds hi * 2^32 + lo = v once, to nearest even. tests check it
// against static_cast on edge and random values.
constexpr double u64_to_f64(std::uint64_t v) noexcept {
  const double hi = std::bit_cast<double>((v >> 32) | 0x4530000000000000ull);  // 2^84 + hi * 2^32
  const double lo =
      std::bit_cast<double>((v & 0xffffffffull) | 0x4330000000000000ull);  // 2^52 + lo
  return (hi - 19342813118337666422669312.0) + lo;                         // 2^84 + 2^52
}

// double -> u64: truncation toward zero, saturating at both ends so that no
// input is undefined behaviour: NaN and anything <= -1 give 0, anything
// >= 2^64 gives 2^64 - 1.
constexpr std::uint64_t f64_to_u64(double d) noexcept {
  if (!(d > -1.0)) return 0;  // also NaN
  if (d >= 18446744073709551616.0) return ~std::uint64_t{0};
  return static_cast<std::uint64_t>(d);
}

// A value with its type, as handed to callers.
struct value {
  vtype type = vtype::u64;
  slot bits = 0;

  static constexpr value u(std::uint64_t v) noexcept { return {vtype::u64, v}; }
  static constexpr value f(double d) noexcept { return {vtype::f64, from_f64(d)}; }

  constexpr bool is_u64() const noexcept { return type == vtype::u64; }
  constexpr std::uint64_t as_u64() const noexcept {
    return type == vtype::u64 ? bits : f64_to_u64(as_f64(bits));
  }
  constexpr double as_double() const noexcept {
    return type == vtype::f64 ? as_f64(bits) : u64_to_f64(bits);
  }
  friend constexpr bool operator==(const value&, const value&) = default;  // bit for bit
};

}  // namespace hwpc::expr
