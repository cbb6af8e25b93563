// Shared by the libFuzzer targets: invariant checks that abort (so libFuzzer
// records the input as a crash), the choice of a report format from the
// input's first bytes, and a small deterministic generator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/platform.hpp"

namespace fuzz {

[[noreturn]] inline void fail(const char* file, int line, const char* what,
                              const std::string& ctx) {
  std::fprintf(stderr, "%s:%d: invariant failed: %s %s\n", file, line, what, ctx.c_str());
  std::abort();
}

#define FUZZ_CHECK(cond, ctx)                                  \
  do {                                                         \
    if (!(cond)) ::fuzz::fail(__FILE__, __LINE__, #cond, ctx); \
  } while (0)

// Every error: a byte offset inside the input (or at its end, for input that
// stops short), and a message without raw control bytes.
inline void check_error(const hwpc::error& e, std::size_t input_size) {
  if (e.anchor == hwpc::error_anchor::byte_offset) {
    FUZZ_CHECK(e.offset <= input_size, e.describe() + " size " + std::to_string(input_size));
  }
  for (char c : e.message) {
    const auto u = static_cast<unsigned char>(c);
    FUZZ_CHECK(c == '\n' || (u >= 0x20 && u != 0x7f) || u >= 0x80, e.describe());
  }
}

// A cursor over the fuzz input that hands out small integers, then the rest.
struct input {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{u8()} << (8 * i);
    return v;
  }
  hwpc::byte_span rest() const { return {reinterpret_cast<const std::byte*>(p), n}; }
};

// A format and one of its platforms, chosen by two bytes.
struct format_choice {
  const hwpc::intel::report_format* format;
  hwpc::intel::platform plat;
};
inline format_choice pick_format(input& in) {
  const auto& all = hwpc::intel::all_formats;
  const auto& f = all[in.u8() % all.size()];
  const auto plat = f.platforms[in.u8() % f.platforms.size()];
  return {&f, plat};
}

// splitmix64: reproducible values from a seed.
struct rng {
  std::uint64_t s;
  std::uint64_t operator()() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

}  // namespace fuzz
