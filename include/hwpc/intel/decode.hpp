// Per-interval decoding: the delta of every counter between consecutive
// valid reports, with the later report's 64-bit timestamp and RPT_ID.
//
//   auto buf = hwpc::intel::report_buffer::make(bytes, *format);
//   if (!buf) { report(buf.error_value().describe()); }
//   hwpc::intel::for_each_interval(*buf, gen, [](const hwpc::intel::interval& iv) { ... });
//
// One generic loop serves every format: it walks the counter_list derived
// from the format table, so there is no per-format code to drift.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/intel/wrap_count.hpp"

namespace hwpc::intel {

struct interval {
  std::size_t report = 0;       // index in the buffer of the later report
  std::uint64_t timestamp = 0;  // its TIME_STAMP extended to 64 bits
  std::uint64_t elapsed_ticks = 0;
  report_view later;
  rpt_id_fields rpt;
  std::span<const std::uint64_t> deltas;  // per counter, counter_list order
};

struct decode_stats {
  std::size_t reports = 0;       // valid reports
  std::size_t intervals = 0;     // rows produced
  std::size_t skipped_zero = 0;  // zero-RPT_ID reports skipped
};

// Calls `on_interval(const interval&)` for each pair of consecutive valid
// reports. The deltas span is only valid during the call.
template <class F>
decode_stats for_each_interval(const report_buffer& buf, generation gen, F&& on_interval) {
  const report_format& f = buf.format();
  const counter_list counters(f);
  const timestamp_reading tsr = timestamp_reading::of(f, gen);
  timestamp_extender extend(tsr.bits);
  std::array<std::uint64_t, max_counters> prev{};
  std::array<std::uint64_t, max_counters> delta{};
  std::uint64_t prev_ts = 0;
  bool have_prev = false;
  decode_stats st;
  for (std::size_t i = 0; i < buf.size(); ++i) {
    const report_view r = buf[i];
    if (!r.is_valid()) {
      ++st.skipped_zero;
      continue;
    }
    ++st.reports;
    const std::uint64_t ts = extend(tsr.ticks(r.timestamp()));
    for (std::size_t c = 0; c < counters.size(); ++c) {
      const std::uint64_t v = r.value(counters[c]);
      delta[c] = field_delta(counters[c], prev[c], v);
      prev[c] = v;
    }
    if (have_prev) {
      ++st.intervals;
      on_interval(interval{i, ts, ts - prev_ts, r, r.rpt(gen),
                           std::span<const std::uint64_t>(delta.data(), counters.size())});
    }
    prev_ts = ts;
    have_prev = true;
  }
  return st;
}

namespace detail {

// How deltas_to_columns maps dword lanes to columns. A counter whose (low)
// dword is lane L goes through the vector tiles; its 40-bit high byte, when it
// has one, sits at byte 156 + L (the dw(4+j)/byte(160+j) pairing), so eight
// consecutive lanes find their high bytes in eight consecutive bytes. A 64-bit
// counter at an 8-byte-aligned offset is qword Q of the report and goes
// through the 64-bit tiles (four qwords per 32-byte group).
struct column_plan {
  static constexpr std::uint8_t none = 0xff;
  static constexpr std::size_t max_lanes = limits.report_dwords();
  static constexpr std::size_t max_groups = max_lanes / 8;
  static_assert(max_groups <= 32, "group bits fit a std::uint32_t");
  static_assert(limits.counters < none, "a column number fits a std::uint8_t");
  std::array<std::uint8_t, max_lanes> column;        // lane -> column, or none
  std::array<std::uint32_t, max_lanes> hi_mask{};    // 0xff on lanes of 40-bit counters
  std::array<std::uint8_t, max_lanes / 2> column64;  // qword -> column of a 64-bit counter
  std::uint32_t groups = 0;                          // bit v: lanes 8v..8v+7 hold a counter
  std::uint32_t groups40 = 0;                        // bit v: ... and one of them is 40-bit
  std::uint32_t groups64 = 0;                        // bit v: qwords 4v..4v+3 hold a 64-bit counter

  column_plan(const report_format& f, const counter_list& counters, std::size_t nc) noexcept {
    column.fill(none);
    column64.fill(none);
    const std::size_t lanes = f.size / 4;
    if (lanes > max_lanes || f.size % 32 != 0) return;  // every counter by the scalar loop
    for (std::size_t c = 0; c < nc; ++c) {
      const field& fd = counters[c];
      const std::size_t lane = fd.offset / 4;
      if (fd.bits == 64) {
        if (fd.offset % 8 != 0 || fd.offset + 8u > f.size) continue;
        column64[fd.offset / 8] = static_cast<std::uint8_t>(c);
        groups64 |= std::uint32_t{1} << (fd.offset / 32);
        continue;
      }
      // A 40-bit lane finds its high byte by the pairing format_limits.hpp
      // derives (156 + lane for dw(4+j)/byte(160+j)).
      const bool tile =
          fd.offset % 4 == 0 && lane < lanes &&
          (fd.bits == 32 ||
           (fd.bits == 40 && lane >= limits.u40_low_dword && lane < 40 &&
            fd.high_byte_offset == limits.u40_high_byte - limits.u40_low_dword + lane));
      if (!tile) continue;  // written by the scalar loop
      column[lane] = static_cast<std::uint8_t>(c);
      groups |= std::uint32_t{1} << (lane / 8);
      if (fd.bits == 40) {
        hi_mask[lane] = 0xff;
        groups40 |= std::uint32_t{1} << (lane / 8);
      }
    }
    drop_lone_qwords();
  }
  // A group with a single 64-bit counter (GPU_TICKS, alone beside the Xe
  // header's RPT_ID, TIME_STAMP and CTX_ID) costs a tile's transposes for one
  // column: the scalar loop writes it as fast.
  void drop_lone_qwords() noexcept {
    for (std::size_t v = 0; v < max_groups; ++v) {
      if (((groups64 >> v) & 1u) == 0) continue;
      std::size_t n = 0;
      for (std::size_t q = 0; q < 4; ++q) n += column64[4 * v + q] != none;
      if (n > 1) continue;
      groups64 &= ~(std::uint32_t{1} << v);
      for (std::size_t q = 0; q < 4; ++q) column64[4 * v + q] = none;
    }
  }
  // Whether counter c (counters[c] = fd) is written by the tiles.
  bool tiled(const field& fd, std::size_t c) const noexcept {
    if (fd.bits == 64) return fd.offset % 8 == 0 && column64[fd.offset / 8] == c;
    return column[fd.offset / 4] == c;
  }
};

inline void deltas_scalar(const std::byte* const* r, std::size_t rows, const field& fd,
                          std::uint64_t* out) noexcept {
  const std::size_t o = fd.offset;
  if (fd.bits == 32) {
    for (std::size_t j = 0; j < rows; ++j) {
      out[j] = static_cast<std::uint32_t>(load_le32(r[j + 1] + o) - load_le32(r[j] + o));
    }
  } else if (fd.bits == 64) {
    for (std::size_t j = 0; j < rows; ++j) out[j] = load_le64(r[j + 1] + o) - load_le64(r[j] + o);
  } else {
    for (std::size_t j = 0; j < rows; ++j) {
      out[j] = field_delta(fd, load_field(r[j], fd), load_field(r[j + 1], fd));
    }
  }
}

#if defined(HWPC_HAVE_AVX2_KERNEL)
// Eight intervals at a time: for each group of eight dword lanes, nine rows
// (reports) are loaded, adjacent rows subtracted, and the 8x8 tile of deltas
// transposed in registers so that each lane's eight deltas leave as two
// contiguous 256-bit stores into its column. For 40-bit counters a second
// tile carries bits 39:32 of each delta: (hi_b - hi_a - borrow) & 0xff, the
// borrow being a wrap of the low dword; interleaving the two tiles forms the
// 64-bit deltas directly.
[[gnu::target("avx2")]] inline void transpose8(__m256i (&x)[8]) noexcept {
  const __m256i t0 = _mm256_unpacklo_epi32(x[0], x[1]), t1 = _mm256_unpackhi_epi32(x[0], x[1]);
  const __m256i t2 = _mm256_unpacklo_epi32(x[2], x[3]), t3 = _mm256_unpackhi_epi32(x[2], x[3]);
  const __m256i t4 = _mm256_unpacklo_epi32(x[4], x[5]), t5 = _mm256_unpackhi_epi32(x[4], x[5]);
  const __m256i t6 = _mm256_unpacklo_epi32(x[6], x[7]), t7 = _mm256_unpackhi_epi32(x[6], x[7]);
  const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
  const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
  const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
  x[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
  x[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
  x[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
  x[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
  x[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
  x[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
  x[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
  x[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

[[gnu::target("avx2")]] inline void delta_tiles_avx2(const std::byte* const* r, std::size_t tiles,
                                                     const column_plan& plan,
                                                     std::uint64_t* const* columns,
                                                     std::size_t k) noexcept {
  const __m256i sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::byte* const* rt = r + 8 * t;
    for (unsigned v = 0; v < column_plan::max_groups; ++v) {
      if (((plan.groups >> v) & 1u) == 0) continue;
      __m256i lo[8], hi[8];
      __m256i prev = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rt[0] + 32 * v));
      if (((plan.groups40 >> v) & 1u) == 0) {
        for (unsigned i = 0; i < 8; ++i) {
          const __m256i cur =
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rt[i + 1] + 32 * v));
          lo[i] = _mm256_sub_epi32(cur, prev);
          prev = cur;
        }
        transpose8(lo);
        for (unsigned l = 0; l < 8; ++l) {
          const std::uint8_t c = plan.column[8 * v + l];
          if (c == column_plan::none) continue;
          std::uint64_t* out = columns[c] + k + 8 * t;
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                              _mm256_cvtepu32_epi64(_mm256_castsi256_si128(lo[l])));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4),
                              _mm256_cvtepu32_epi64(_mm256_extracti128_si256(lo[l], 1)));
        }
        continue;
      }
      const __m256i mask =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(plan.hi_mask.data() + 8 * v));
      const std::size_t hb = 156 + 8 * v;
      __m256i prev_hi =
          _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(rt[0] + hb)));
      for (unsigned i = 0; i < 8; ++i) {
        const __m256i cur =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rt[i + 1] + 32 * v));
        const __m256i cur_hi =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(rt[i + 1] + hb)));
        // All ones where the low dword wrapped (unsigned cur < prev).
        const __m256i borrow =
            _mm256_cmpgt_epi32(_mm256_xor_si256(prev, sign), _mm256_xor_si256(cur, sign));
        lo[i] = _mm256_sub_epi32(cur, prev);
        hi[i] = _mm256_and_si256(_mm256_add_epi32(_mm256_sub_epi32(cur_hi, prev_hi), borrow), mask);
        prev = cur;
        prev_hi = cur_hi;
      }
      transpose8(lo);
      transpose8(hi);
      for (unsigned l = 0; l < 8; ++l) {
        const std::uint8_t c = plan.column[8 * v + l];
        if (c == column_plan::none) continue;
        std::uint64_t* out = columns[c] + k + 8 * t;
        const __m256i a = _mm256_unpacklo_epi32(lo[l], hi[l]);  // intervals 0 1 | 4 5
        const __m256i b = _mm256_unpackhi_epi32(lo[l], hi[l]);  // intervals 2 3 | 6 7
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(a, b, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4),
                            _mm256_permute2x128_si256(a, b, 0x31));
      }
    }
  }
}

// 64-bit counters, eight intervals at a time: for each 32-byte group of four
// qwords, nine rows are loaded and adjacent rows subtracted (a 64-bit delta is
// the modular difference, no wrap to mend), and the two 4x4 tiles of deltas
// (intervals 0-3 and 4-7) are transposed so that each qword's eight deltas
// leave as two contiguous 256-bit stores into its column.
[[gnu::target("avx2")]] inline void transpose4x64(__m256i& x0, __m256i& x1, __m256i& x2,
                                                  __m256i& x3) noexcept {
  const __m256i t0 = _mm256_unpacklo_epi64(x0, x1), t1 = _mm256_unpackhi_epi64(x0, x1);
  const __m256i t2 = _mm256_unpacklo_epi64(x2, x3), t3 = _mm256_unpackhi_epi64(x2, x3);
  x0 = _mm256_permute2x128_si256(t0, t2, 0x20);
  x1 = _mm256_permute2x128_si256(t1, t3, 0x20);
  x2 = _mm256_permute2x128_si256(t0, t2, 0x31);
  x3 = _mm256_permute2x128_si256(t1, t3, 0x31);
}

[[gnu::target("avx2")]] inline void delta_tiles64_avx2(const std::byte* const* r, std::size_t tiles,
                                                       const column_plan& plan,
                                                       std::uint64_t* const* columns,
                                                       std::size_t k) noexcept {
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::byte* const* rt = r + 8 * t;
    for (unsigned v = 0; v < column_plan::max_groups; ++v) {
      if (((plan.groups64 >> v) & 1u) == 0) continue;
      __m256i d[8];
      __m256i prev = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rt[0] + 32 * v));
      for (unsigned i = 0; i < 8; ++i) {
        const __m256i cur =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rt[i + 1] + 32 * v));
        d[i] = _mm256_sub_epi64(cur, prev);
        prev = cur;
      }
      transpose4x64(d[0], d[1], d[2], d[3]);
      transpose4x64(d[4], d[5], d[6], d[7]);
      for (unsigned q = 0; q < 4; ++q) {
        const std::uint8_t c = plan.column64[4 * v + q];
        if (c == column_plan::none) continue;
        std::uint64_t* out = columns[c] + k + 8 * t;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), d[q]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), d[4 + q]);
      }
    }
  }
}
#endif

}  // namespace detail

// Writes the deltas as columns (structure of arrays): columns[c][k] is the
// delta of counter c over interval k, timestamps[k] its extended timestamp
// in ticks of generation `gen` (timestamp_reading).
// Each column must hold at least buf.size() - 1 values. Returns the number
// of intervals written. Results are identical on every path; `path` selects
// the implementation (scalar: the plain blocked loop; otherwise the AVX2
// tiles where the CPU has AVX2, else the blocked loop).
//
// Works in blocks of valid reports gathered by pointer (so skipped reports
// cost nothing later): 32-bit and 40-bit counters go through 8x8 transposed
// tiles, 64-bit counters through pairs of 4x4 tiles, everything else — and
// the last rows of a block that do not fill a tile — through a load, a
// subtract and a contiguous store per counter.
inline std::size_t deltas_to_columns(const report_buffer& buf, generation gen,
                                     std::span<std::uint64_t* const> columns,
                                     std::uint64_t* timestamps = nullptr,
                                     simd_path path = simd_path::automatic) {
  constexpr std::size_t block = 256;
  const report_format& f = buf.format();
  const counter_list counters(f);
  const std::size_t nc = counters.size() < columns.size() ? counters.size() : columns.size();
  const field* ts_field = f.first_of(field_kind::timestamp);
  const timestamp_reading tsr = timestamp_reading::of(f, gen);
  timestamp_extender extend(tsr.bits);
  const detail::column_plan plan(f, counters, nc);
  bool tiles = false;
#if defined(HWPC_HAVE_AVX2_KERNEL)
  tiles = path != simd_path::scalar && detail::cpu_has_avx2();
#else
  (void)path;
#endif
  std::array<const std::byte*, block + 1> r{};  // r[0] is the previous block's last valid report
  std::size_t k = 0;
  std::size_t m = 0;  // reports held in r
  const std::size_t n = buf.size();
  const std::byte* base = buf.bytes().data();
  for (std::size_t i = 0; i < n;) {
    while (i < n && m < r.size()) {
      const std::byte* p = base + i * f.size;
      if (report_landed(p, f)) r[m++] = p;
      ++i;
    }
    if (m < 2) continue;
    const std::size_t rows = m - 1;
    std::size_t done = 0;  // rows written by the tiles
#if defined(HWPC_HAVE_AVX2_KERNEL)
    if (tiles) {
      if (plan.groups != 0) detail::delta_tiles_avx2(r.data(), rows / 8, plan, columns.data(), k);
      if (plan.groups64 != 0) {
        detail::delta_tiles64_avx2(r.data(), rows / 8, plan, columns.data(), k);
      }
      done = rows / 8 * 8;
    }
#endif
    for (std::size_t c = 0; c < nc; ++c) {
      const bool tiled = tiles && plan.tiled(counters[c], c);
      const std::size_t from = tiled ? done : 0;
      detail::deltas_scalar(r.data() + from, rows - from, counters[c], columns[c] + k + from);
    }
    if (ts_field != nullptr) {
      if (k == 0) extend(tsr.ticks(load_field(r[0], *ts_field)));
      for (std::size_t j = 0; j < rows; ++j) {
        const std::uint64_t ts = extend(tsr.ticks(load_field(r[j + 1], *ts_field)));
        if (timestamps != nullptr) timestamps[k + j] = ts;
      }
    }
    k += rows;
    r[0] = r[m - 1];
    m = 1;
  }
  return k;
}

// The same with TIME_STAMP read as it is (every generation but 12.55).
inline std::size_t deltas_to_columns(const report_buffer& buf,
                                     std::span<std::uint64_t* const> columns,
                                     std::uint64_t* timestamps = nullptr,
                                     simd_path path = simd_path::automatic) {
  return deltas_to_columns(buf, generation::gen12, columns, timestamps, path);
}

}  // namespace hwpc::intel
