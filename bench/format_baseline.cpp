// The formatting limit of `hwpc decode --metrics F --set S --output csv`:
// formats as many values as that CSV holds, of the same kinds, with
// std::to_chars into one buffer with separators and newlines, and writes the
// buffer to stdout in 64 KiB pieces. No decoding, no metric evaluation: what
// is left is the cost of turning numbers into text, which no CSV writer can
// go below. scripts/bench-e2e-metrics.sh times `hwpc decode` against it.
//
//   format_baseline ROWS INTS DOUBLES [TEXT] [SEED]
//
// Each of ROWS rows holds INTS integers and DOUBLES doubles (in that order:
// the CSV's report, offset, timestamp and counters come before its metrics,
// and the integer-valued metrics are counted with the integers), then TEXT
// (default "timer", the CSV's `reason`) as one more field. Values come from
// a seeded xorshift so that their lengths are realistic: an integer is a
// random number of up to 20 bits (the counter increments of a timer-period
// interval), a double the ratio of two such numbers times 100 (a percentage
// or per-unit average, like most derived metrics), printed in the shortest
// form that reads back exactly, as the CSV writer prints it. The program
// prints the bytes it wrote to stderr, so the caller can check that the
// baseline wrote about as much text as the CSV (the script prints both).
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::uint64_t arg(const char* s) {
  std::uint64_t v = 0;
  const std::string_view t(s);
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec != std::errc{} || r.ptr != t.data() + t.size()) {
    std::fprintf(stderr, "format_baseline: '%s' is not a number\n", s);
    std::exit(1);
  }
  return v;
}

struct xorshift {
  std::uint64_t s;
  std::uint64_t next() noexcept {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::fprintf(stderr, "usage: format_baseline ROWS INTS DOUBLES [TEXT] [SEED]\n");
    return 1;
  }
  const std::uint64_t rows = arg(argv[1]);
  const std::uint64_t ints = arg(argv[2]);
  const std::uint64_t doubles = arg(argv[3]);
  const std::string_view text = argc > 4 ? argv[4] : "timer";
  xorshift rng{argc > 5 ? arg(argv[5]) | 1 : 0x9e3779b97f4a7c15ull};

  constexpr std::size_t flush_at = 1 << 16;
  const std::size_t row_max = (ints + doubles) * 33 + text.size() + 2;
  std::vector<char> buf(flush_at + row_max);
  char* const begin = buf.data();
  char* p = begin;
  std::uint64_t bytes = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    for (std::uint64_t i = 0; i < ints; ++i) {
      const std::uint64_t x = rng.next();
      // Up to 20 significant bits: 0..2^20, shifted by a random amount.
      const std::uint64_t v = (x >> 44) >> (x & 15);
      p = std::to_chars(p, p + 20, v).ptr;
      *p++ = ',';
    }
    for (std::uint64_t d = 0; d < doubles; ++d) {
      const std::uint64_t x = rng.next();
      const double v =
          static_cast<double>(x >> 44) * 100.0 / static_cast<double>((x & 0xfffff) | 1);
      p = std::to_chars(p, p + 32, v).ptr;
      *p++ = ',';
    }
    for (char c : text) *p++ = c;
    *p++ = '\n';
    if (static_cast<std::size_t>(p - begin) >= flush_at) {
      bytes += static_cast<std::uint64_t>(p - begin);
      std::fwrite(begin, 1, static_cast<std::size_t>(p - begin), stdout);
      p = begin;
    }
  }
  bytes += static_cast<std::uint64_t>(p - begin);
  std::fwrite(begin, 1, static_cast<std::size_t>(p - begin), stdout);
  std::fflush(stdout);
  std::fprintf(stderr, "%llu\n", static_cast<unsigned long long>(bytes));
  return 0;
}
