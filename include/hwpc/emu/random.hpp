// A small seeded generator, so that a seed gives the same capture on every
// compiler and standard library (std::uniform_int_distribution does not).
#pragma once

#include <cstdint>

namespace hwpc::emu {

// SplitMix64: one 64-bit state, full period, good enough for workloads.
class rng {
 public:
  explicit constexpr rng(std::uint64_t seed) noexcept : s_(seed) {}

  constexpr std::uint64_t next() noexcept {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (inclusive). The modulo bias is irrelevant here.
  constexpr std::uint64_t between(std::uint64_t lo, std::uint64_t hi) noexcept {
    if (hi <= lo) return lo;
    const std::uint64_t span = hi - lo + 1;
    return span == 0 ? next() : lo + next() % span;
  }
  // True with probability num/den.
  constexpr bool chance(std::uint64_t num, std::uint64_t den) noexcept {
    return den != 0 && next() % den < num;
  }
  // An independent generator for one aspect of the model, so that adding a
  // draw to one aspect does not shift every other.
  constexpr rng fork(std::uint64_t stream) noexcept {
    return rng(next() ^ (stream * 0xd1b54a32d192ed03ull));
  }

 private:
  std::uint64_t s_;
};

}  // namespace hwpc::emu
