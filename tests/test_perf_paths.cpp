// The fast paths against their references, element by element: the column
// writer (scalar blocks and AVX2 tiles) against the per-interval decoder, the
// wrap-count kernels against each other, and accumulation over captures long
// enough to cross every internal block and window boundary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "hwpc/intel.hpp"
#include "hwpc/intel/accumulate_parallel.hpp"

#ifndef HWPC_TOOL_PATH
#define HWPC_TOOL_PATH ""
#endif

namespace {

using namespace hwpc::intel;

constexpr simd_path all_paths[] = {simd_path::automatic, simd_path::scalar, simd_path::vector,
                                   simd_path::avx2};

void put(std::byte* p, const field& fd, std::uint64_t v) {
  for (int k = 0; k < 4; ++k) p[fd.offset + k] = std::byte((v >> (8 * k)) & 0xff);
  if (fd.bits == 64) {
    for (int k = 4; k < 8; ++k) p[fd.offset + k] = std::byte((v >> (8 * k)) & 0xff);
  }
  if (fd.bits == 40) p[fd.high_byte_offset] = std::byte((v >> 32) & 0xff);
}

// Random bytes, counters advancing by small steps with occasional huge ones
// (wraps of the low dword, of the 40-bit value, or both), and holes: single
// zero RPT_IDs and, sometimes, a long stretch of them.
std::vector<std::byte> random_capture(const report_format& f, std::size_t n, std::mt19937_64& rng,
                                      unsigned hole_percent) {
  std::vector<std::byte> bytes(f.size * n);
  const counter_list counters(f);
  std::vector<std::uint64_t> v(counters.size());
  for (auto& x : v) x = rng();
  for (std::size_t i = 0; i < n; ++i) {
    std::byte* r = bytes.data() + i * f.size;
    for (std::size_t b = 0; b < f.size; ++b) r[b] = std::byte(rng());
    for (std::size_t c = 0; c < counters.size(); ++c) {
      switch (rng() % 8) {
        case 0:
          v[c] += rng();
          break;
        case 1:
          v[c] += 0xffffffffull - rng() % 64;  // just under a low-dword wrap
          break;
        default:
          v[c] += rng() % 100000;
      }
      put(r, counters[c], v[c] & counters[c].mask());
    }
    if (rng() % 100 < hole_percent) put(r, f.fields[0], 0);
  }
  if (n > 600 && rng() % 2 == 0) {
    const std::size_t from = rng() % (n - 300);
    for (std::size_t i = from; i < from + 290; ++i) put(bytes.data() + i * f.size, f.fields[0], 0);
  }
  return bytes;
}

struct reference {
  std::vector<std::vector<std::uint64_t>> cols;
  std::vector<std::uint64_t> ts;
};

reference decode_reference(const report_buffer& buf) {
  const counter_list counters(buf.format());
  reference ref;
  ref.cols.resize(counters.size());
  for_each_interval(buf, generation_of(buf.format().platforms[0]), [&](const interval& iv) {
    for (std::size_t c = 0; c < counters.size(); ++c) ref.cols[c].push_back(iv.deltas[c]);
    ref.ts.push_back(iv.timestamp);
  });
  return ref;
}

TEST(DeltasToColumns, EveryPathEqualsTheDecoderElementByElement) {
  std::mt19937_64 rng(4242);
  std::size_t values = 0;
  for (int round = 0; round < 12; ++round) {
    for (const auto& f : all_formats) {
      // Short captures (less than one tile), mid-size and several blocks.
      const std::size_t n = round % 3 == 0 ? 1 + rng() % 12 : 1 + rng() % 1400;
      const auto bytes = random_capture(f, n, rng, round % 4 == 0 ? 0 : 8);
      auto buf = report_buffer::make(bytes, f);
      ASSERT_TRUE(buf);
      const reference ref = decode_reference(*buf);
      const std::size_t nc = counter_list(f).size();
      for (simd_path path : all_paths) {
        // A sentinel past the last row catches writes beyond the intervals.
        std::vector<std::vector<std::uint64_t>> cols(nc, std::vector<std::uint64_t>(n + 1, 7));
        std::vector<std::uint64_t*> ptrs;
        for (auto& col : cols) ptrs.push_back(col.data());
        std::vector<std::uint64_t> ts(n + 1, 7);
        const std::size_t rows =
            deltas_to_columns(*buf, generation_of(f.platforms[0]), ptrs, ts.data(), path);
        ASSERT_EQ(rows, ref.ts.size()) << f.name;
        for (std::size_t c = 0; c < nc; ++c) {
          for (std::size_t k = 0; k < rows; ++k) {
            ASSERT_EQ(cols[c][k], ref.cols[c][k])
                << f.name << " counter " << counter_list(f)[c].name << " row " << k << " path "
                << int(path);
          }
          ASSERT_EQ(cols[c][rows], 7u) << f.name << " wrote past the last row";
          values += rows;
        }
        for (std::size_t k = 0; k < rows; ++k) ASSERT_EQ(ts[k], ref.ts[k]) << f.name << " " << k;
        ASSERT_EQ(ts[rows], 7u);
      }
    }
  }
  EXPECT_GT(values, 100000u);
}

TEST(DeltasToColumns, FewerColumnsThanCountersWritesOnlyThose) {
  std::mt19937_64 rng(5);
  for (const auto& f : all_formats) {
    const std::size_t n = 300;
    const auto bytes = random_capture(f, n, rng, 5);
    auto buf = report_buffer::make(bytes, f);
    const reference ref = decode_reference(*buf);
    const std::size_t nc = counter_list(f).size();
    for (std::size_t want : {std::size_t{1}, nc / 2, nc - 1}) {
      for (simd_path path : all_paths) {
        std::vector<std::vector<std::uint64_t>> cols(want, std::vector<std::uint64_t>(n, 0));
        std::vector<std::uint64_t*> ptrs;
        for (auto& col : cols) ptrs.push_back(col.data());
        const std::size_t rows = deltas_to_columns(*buf, ptrs, nullptr, path);
        ASSERT_EQ(rows, ref.ts.size());
        for (std::size_t c = 0; c < want; ++c) {
          ASSERT_TRUE(std::equal(ref.cols[c].begin(), ref.cols[c].end(), cols[c].begin()))
              << f.name << " column " << c << " of " << want;
        }
      }
    }
  }
}

TEST(WrapCount, EveryKernelCountsTheSameWraps) {
  std::mt19937_64 rng(77);
  for (const auto& f : all_formats) {
    for (std::size_t n : {std::size_t{2}, std::size_t{9}, std::size_t{257}, std::size_t{1000}}) {
      // Some runs end early at a zero RPT_ID: the kernels stop there.
      const auto bytes = random_capture(f, n, rng, n == 1000 ? 1 : 0);
      const bool has40 = detail::has_u40_fields(f);
      wrap_counts ref;
      const std::size_t run =
          detail::wrap_count(bytes.data(), n, f.size, has40, simd_path::scalar, ref);
      for (simd_path path : all_paths) {
        wrap_counts got;
        ASSERT_EQ(detail::wrap_count(bytes.data(), n, f.size, has40, path, got), run) << f.name;
        for (std::size_t d = 0; d < f.size / 4; ++d) {
          ASSERT_EQ(got.dword[d], ref.dword[d]) << f.name << " lane " << d << " n " << n;
        }
        if (has40) {
          for (const auto& fd : f.fields) {
            if (fd.bits != 40) continue;
            const std::size_t j = fd.offset / 4 - detail::u40_low_dword;
            ASSERT_EQ(got.u40[j], ref.u40[j]) << f.name << " slot " << j << " n " << n;
          }
        }
      }
    }
  }
}

// Long captures cross the windows in which accumulate() scans RPT_IDs, with
// holes landing on and around window edges.
TEST(Accumulate, LongCapturesWithHolesEqualTheNaiveSumOnEveryPath) {
  std::mt19937_64 rng(31337);
  // i915's formats and the Xe driver's (320- to 640-byte reports, 64-bit counters).
  std::vector<const report_format*> formats;
  for (const auto& f : all_formats) formats.push_back(&f);
  for (const auto& x : xe_formats) formats.push_back(&x.layout);
  for (int round = 0; round < 3; ++round) {
    for (const report_format* fp : formats) {
      const report_format& f = *fp;
      const std::size_t n = 2000 + rng() % 3000;
      const auto bytes = random_capture(f, n, rng, round == 0 ? 0 : 1 + round * 3);
      auto buf = report_buffer::make(bytes, f);
      const accumulation ref = accumulate_naive(*buf);
      for (simd_path path : all_paths) {
        const accumulation got = accumulate(*buf, path);
        ASSERT_EQ(got.totals, ref.totals) << f.name << " path " << int(path);
        ASSERT_EQ(got.elapsed_ticks, ref.elapsed_ticks) << f.name;
        ASSERT_EQ(got.reports, ref.reports);
        ASSERT_EQ(got.intervals, ref.intervals);
        ASSERT_EQ(got.skipped_zero, ref.skipped_zero);
      }
    }
  }
}

// `hwpc decode --summary --threads N` prints the same totals for every N
// (a capture large enough for the threads to get a chunk each).
TEST(DecodeTool, SummaryIsTheSameOnAnyNumberOfThreads) {
  if (std::string(HWPC_TOOL_PATH).empty()) GTEST_SKIP() << "the hwpc tool is not built";
  const report_format& f = *find_format(platform::skl, "A36_B8_C8");
  std::mt19937_64 rng(11);
  const auto bytes = random_capture(f, 40000, rng, 2);  // ~10 MiB: two 4 MiB chunks or more
  const auto path = std::filesystem::temp_directory_path() /
                    ("hwpc-threads-" + std::to_string(rng() % 1000000) + ".raw");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  auto run = [&](const std::string& extra, int& status) {
    const std::string cmd = std::string(HWPC_TOOL_PATH) +
                            " decode --platform skl --format A36_B8_C8 --summary " + extra + " " +
                            path.string() + " 2>&1";
    std::FILE* p = ::popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    status = WEXITSTATUS(::pclose(p));
    return out;
  };
  int status = -1;
  const std::string one = run("--threads 1", status);
  ASSERT_EQ(status, 0) << one;
  ASSERT_EQ(one.rfind("intervals,", 0), 0u) << one;
  EXPECT_EQ(run("--threads 2", status), one);
  EXPECT_EQ(run("--threads 3", status), one);
  EXPECT_EQ(run("", status), one);
  run("--threads 0", status);
  EXPECT_EQ(status, 1);
  run("--threads many", status);
  EXPECT_EQ(status, 1);
  std::filesystem::remove(path);
}

}  // namespace
