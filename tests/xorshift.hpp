// The tests' seeded pseudo-random numbers: xorshift64 (shifts 13, 7, 17).
// Written here rather than taken from <random> so that a seed gives the same
// inputs with every standard library.
#pragma once

#include <cstdint>

namespace hwpc::testing {

struct xorshift64 {
  std::uint64_t s;  // the state; a seed of 0 stays 0

  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

}  // namespace hwpc::testing
