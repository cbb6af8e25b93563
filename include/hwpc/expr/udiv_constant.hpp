// Unsigned 64-bit division by a divisor known before the loop, as a multiply.
//
// For d >= 2 not a power of two, with l = floor(log2 d) and
// m = floor(2^(65+l) / d) - 2^64 + 1 (which fits in 64 bits),
//   q = (hi64(m * n) + ((n - hi64(m * n)) >> 1)) >> l
// equals floor(n / d) for every 64-bit n (Granlund and Montgomery, "Division
// by invariant integers using multiplication", 1994, section 4; the
// "round-up with add" form). Powers of two are a shift, 1 a copy. The batch
// evaluator uses it for UDIV nodes whose divisor folded to a constant: a
// hardware 64-bit division costs tens of cycles, the multiply a few.
// tests/test_expr_eval.cpp checks it against `/` on edge and random values.
#pragma once

#include <bit>
#include <cstdint>

namespace hwpc::expr {

class udiv_by_constant {
 public:
  // d == 0 is not a divisor here (UDIV by zero gives 0; the caller handles it).
  constexpr explicit udiv_by_constant(std::uint64_t d) noexcept {
    shift_ = static_cast<std::uint8_t>(63 - std::countl_zero(d | 1));
    if ((d & (d - 1)) == 0) {
      kind_ = d <= 1 ? kind::copy : kind::shift;
      return;
    }
    kind_ = kind::multiply;
    // 2^(64+l) / d by long division over 128 bits: quotient q, remainder r.
    const u128 num = u128{1} << (64 + shift_);
    std::uint64_t q = static_cast<std::uint64_t>(num / d);
    const std::uint64_t r = static_cast<std::uint64_t>(num % d);
    // Double it to 2^(65+l) / d, rounding the doubled remainder back in.
    q += q;
    const std::uint64_t r2 = r + r;
    if (r2 >= d || r2 < r) ++q;
    magic_ = q + 1;
  }

  constexpr std::uint64_t operator()(std::uint64_t n) const noexcept {
    switch (kind_) {
      case kind::copy:
        return n;
      case kind::shift:
        return n >> shift_;
      case kind::multiply:
        break;
    }
    return divide(n, magic_, shift_);
  }

  // The multiply form, for loops that hoisted the kind out.
  static constexpr std::uint64_t divide(std::uint64_t n, std::uint64_t magic,
                                        unsigned shift) noexcept {
    const std::uint64_t hi = static_cast<std::uint64_t>((u128{magic} * n) >> 64);
    return (hi + ((n - hi) >> 1)) >> shift;
  }

  enum class kind : std::uint8_t { copy, shift, multiply };
  constexpr kind how() const noexcept { return kind_; }
  constexpr std::uint64_t magic() const noexcept { return magic_; }
  constexpr unsigned shift() const noexcept { return shift_; }

 private:
  __extension__ using u128 = unsigned __int128;
  std::uint64_t magic_ = 0;
  std::uint8_t shift_ = 0;
  kind kind_ = kind::copy;
};

}  // namespace hwpc::expr
