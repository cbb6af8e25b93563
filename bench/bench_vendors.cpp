// Throughput of the Mali and Adreno paths, each beside a naive program doing
// the same job, on inputs made in this process:
//
//   mali_sum/R_G          every sample of a capture file read and every counter of
//                         every block summed over the capture (`hwpc mali --summary`
//                         without --bus-width-bits): capture_header, vinstr_capture or
//                         kinstr_reader, row_builder, for_each_row, totals per column
//   naive_mali_sum/R_G    the same totals: a plain loop over the bytes that computes
//                         each value's offset from the block layout, memcpy's it and
//                         adds it into a std::map keyed by (block type, index)
//   mali_derived/R_G      mali_sum plus Arm's derived counters evaluated per sample
//                         (what `hwpc mali --summary --bus-width-bits 128` adds)
//   adreno_walk/F         an .rd capture walked through its nested IBs and every
//                         counter select and counter sample recognised
//                         (rd::capture_reader + recogniser::push(p, f), the recogniser
//                         `hwpc adreno --queries` runs)
//   adreno_walk_only/rd   the walk alone (packets counted, nothing recognised)
//   adreno_pipeline/F     adreno_walk through the library's pipeline, as `hwpc adreno --queries`
//                         reads a file: capture_input (kind, ids: a pass over the sections;
//                         gzip inflated a block at a time), then walk_packets (rd::stream_reader
//                         fed 1 MiB blocks) into the same sink
//   adreno_rows/F         the query rows of `hwpc adreno --output csv` (query_capture: one pass
//                         learning the sampled counters and the ids, making the rows and keeping
//                         them, then the rows written: every cell read, as CSV does)
//   adreno_rows_twice/rd  the same with nothing kept (open_options::rows_kept_bytes 0): a pass
//                         for the counters, a pass for the rows, as for rows past the budget
//   adreno_walk_only/a6xx, adreno_rows/a6xx  the same on an emulated A6XX capture (4000 query
//                         rounds); the walk alone is its baseline (the naive walker follows
//                         neither A6XX draw-state groups nor A6XX counters)
//   naive_adreno_walk/F   the same job as adreno_walk: a recursive walk that copies each buffer it
//                         enters into a std::vector and finds IB targets in a std::map
//
// R is vinstr or kinstr, G is g78 (64-value blocks) or g720 (128-value blocks:
// kinstr_prfcnt only, vinstr delivers 64-value blocks). F is rd, or rd_gz when
// zlib was found (both sides then gunzip first). Before anything is timed, each
// library path and its naive program must agree on every total; a pair that
// differs is not registered (a note says so). Bytes per second count the input
// (for rd_gz the decompressed .rd, as docs/reliability.md sizes gzip input).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/adreno/emulate6.hpp"
#include "hwpc/adreno/emulate_frames.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/rd_stream.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/rows.hpp"
#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_packets.hpp"

#ifdef HWPC_HAVE_ZLIB
#include <zlib.h>
#endif

namespace {

namespace hm = hwpc::mali;
namespace ha = hwpc::adreno;

// ---------------------------------------------------------------- Mali

// About 4 MiB of samples per capture: larger than L2, inside L3.
constexpr std::size_t mali_bytes = std::size_t{4} << 20;
constexpr std::uint32_t mali_l2_slices = 2;
constexpr std::uint64_t mali_core_mask = 0xff;
constexpr std::uint32_t mali_bus_bits = 128;

struct mali_input {
  std::string name;
  const hm::gpu_product* gpu = nullptr;
  bool kinstr = false;
  std::vector<std::byte> file;
  std::optional<hm::evaluator> ev;
};

// Totals per table counter, in table order.
using mali_totals = std::vector<std::uint64_t>;

// The library path: what `hwpc mali --summary` runs, with the summary
// writer's totals (a row's counters added into one vector).
mali_totals mali_library(const mali_input& in, const hm::evaluator* ev) {
  const auto h = hm::capture_header::parse(in.file);
  if (!h) return {};
  const auto payload = h->payload(in.file);
  hm::row_options o;
  o.timed = true;
  o.losses = in.kinstr;
  hm::row_builder b(*in.gpu, ev, o);
  mali_totals t(b.schema().counters.size(), 0);
  double metric_sum = 0;
  const auto add = [&](const hwpc::row& r) {
    if (r.lost) return;
    for (std::size_t i = 0; i < t.size(); ++i) t[i] += r.counters[i];
    if (!r.metrics.empty()) metric_sum += r.metrics[0].as_double();
  };
  if (in.kinstr) {
    auto rd = hm::kinstr_reader::make(*in.gpu->table, h->layout, payload, hm::capture_header_bytes);
    if (!rd || !hm::for_each_row(*rd, b, add)) return {};
  } else {
    auto cap = hm::vinstr_capture::make(*in.gpu->table, h->layout, payload,
                                        hm::capture_header_bytes, true);
    if (!cap || !hm::for_each_row(*cap, b, add)) return {};
  }
  benchmark::DoNotOptimize(metric_sum);
  return t;
}

std::uint64_t read_le(const std::byte* p, std::size_t n) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, n);  // little-endian host
  return v;
}

// The naive program: the header's fields, then every value of every block
// read one by one at its computed offset and added into a map.
mali_totals mali_naive(const mali_input& in) {
  const std::byte* f = in.file.data();
  const std::size_t size = in.file.size();
  const std::uint32_t slices = static_cast<std::uint32_t>(read_le(f + 12, 4));
  const std::uint64_t mask = read_le(f + 24, 8);
  const std::size_t vpb = in.gpu->table->values_per_block;
  std::map<std::pair<int, int>, std::uint64_t> sums;
  if (!in.kinstr) {
    int positions = 0;
    while (positions < 64 && (mask >> positions) != 0) ++positions;
    const std::size_t sample = 256 * (2 + slices + static_cast<std::size_t>(positions));
    for (std::size_t rec = 64; rec + 32 + sample <= size; rec += 32 + sample) {
      const std::size_t nblocks = 2 + slices + static_cast<std::size_t>(positions);
      for (std::size_t blk = 0; blk < nblocks; ++blk) {
        const int type = blk == 0 ? 0 : blk == 1 ? 1 : blk < 2 + slices ? 2 : 3;
        if (type == 3 && ((mask >> (blk - 2 - slices)) & 1) == 0) continue;  // a gap
        for (std::size_t i = 4; i < 64; ++i) {
          const std::size_t at = rec + 32 + blk * 256 + i * 4;
          sums[{type, static_cast<int>(i)}] += read_le(f + at, 4);
        }
      }
    }
  } else {
    const std::size_t buffer = 64;  // values offsets count from here
    std::size_t pos = buffer;
    while (pos + 48 <= size) {
      bool any = false;
      for (std::size_t k = pos; k < size && !any; ++k) any = f[k] != std::byte{0};
      if (!any) break;  // unused buffer space
      std::size_t end = pos;
      while (true) {
        const std::uint64_t type = read_le(f + pos, 2);
        if (type == 0x2002) {
          const int blk = static_cast<int>(read_le(f + pos + 8, 1));
          const std::uint64_t state = read_le(f + pos + 12, 4);
          const std::size_t values = buffer + read_le(f + pos + 16, 4);
          end = std::max(end, values + vpb * 8);
          if ((state & (0x2 | 0x8 | 0x20)) == 0) {
            for (std::size_t i = 4; i < vpb; ++i) {
              sums[{blk, static_cast<int>(i)}] += read_le(f + values + i * 8, 8);
            }
          }
        }
        pos += 48;
        end = std::max(end, pos);
        if (type == 0) break;
      }
      pos = end;
    }
  }
  // The layout's shift says the hardware counts in units of 2^shift; a sum of
  // scaled samples is the scaled sum (these totals stay far below 2^64).
  mali_totals t;
  for (const hm::hw_counter& c : in.gpu->table->counters) {
    t.push_back(sums[{static_cast<int>(c.id.block), static_cast<int>(c.id.index)}] << c.shift);
  }
  return t;
}

void mali_sum(benchmark::State& state, const mali_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(mali_library(*in, nullptr));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->file.size()));
}
void mali_derived(benchmark::State& state, const mali_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(mali_library(*in, &*in->ev));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->file.size()));
}
void naive_mali_sum(benchmark::State& state, const mali_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(mali_naive(*in));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->file.size()));
}

std::optional<mali_input> make_mali(const char* gpu_name, bool kinstr, std::string name) {
  auto gpu = hm::find_gpu(gpu_name);
  if (!gpu) return std::nullopt;
  mali_input in;
  in.name = std::move(name);
  in.gpu = *gpu;
  in.kinstr = kinstr;
  hm::emulate_options o;
  o.gpu_id = hm::gpu_id_of_product(in.gpu->product_id);
  o.csf = hm::is_csf_product(in.gpu->product_id);
  o.values_per_block = in.gpu->table->values_per_block;
  o.kinstr = kinstr;
  o.l2_slices = mali_l2_slices;
  o.core_mask = mali_core_mask;
  o.seed = 7;
  const std::size_t blocks = 2 + mali_l2_slices + 8;
  const std::size_t per_sample =
      kinstr ? 48 * (3 + blocks) + blocks * o.values_per_block * 8 : 32 + blocks * 256;
  o.samples = mali_bytes / per_sample;
  in.file = hm::emulate(o).file;
  const hm::sample_layout layout{mali_l2_slices, mali_core_mask};
  auto ev = hm::evaluator::database(*in.gpu->table, layout, mali_bus_bits);
  if (ev) in.ev.emplace(std::move(*ev));
  return in;
}

// ---------------------------------------------------------------- Adreno

// PM4 headers with their own parity (odd parity: the bit makes the count of
// ones odd), as the kernel's and Mesa's encoders write them.
std::uint32_t odd_parity(std::uint32_t x) { return (__builtin_popcount(x) & 1) ? 0 : 1; }
std::uint32_t pkt7(std::uint32_t op, std::uint32_t count) {
  return (7u << 28) | (odd_parity(op) << 23) | (op << 16) | (odd_parity(count) << 15) | count;
}
std::uint32_t pkt4(std::uint32_t reg, std::uint32_t count) {
  return (4u << 28) | (odd_parity(reg) << 27) | (reg << 8) | (odd_parity(count) << 7) | count;
}
constexpr std::uint32_t op_nop = 0x10, op_wait_for_idle = 0x26, op_reg_to_mem = 0x3e,
                        op_indirect_buffer = 0x3f;

struct rd_writer {
  std::vector<std::byte> bytes;
  void put(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
  }
  void section(std::uint32_t type, const std::vector<std::uint32_t>& d) {
    put(type);
    put(static_cast<std::uint32_t>(4 * d.size()));
    for (auto v : d) put(v);
  }
  void buffer(std::uint64_t iova, const std::vector<std::uint32_t>& d) {
    section(3, {static_cast<std::uint32_t>(iova), static_cast<std::uint32_t>(4 * d.size()),
                static_cast<std::uint32_t>(iova >> 32)});
    section(12, d);
  }
};

// One counter sequence: select a countable, wait, copy LO and HI to memory,
// a NOP with a payload, padding. Counter `k` of all the groups' user counters.
void counter_packets(std::vector<std::uint32_t>& out, std::size_t k) {
  std::size_t n = k;
  for (const ha::counter_group& g : ha::a5xx_counter_groups) {
    const std::size_t users = g.last_user - g.first_user + 1;
    if (n >= users) {
      n -= users;
      continue;
    }
    const std::uint32_t c = g.first_user + static_cast<std::uint32_t>(n);
    out.insert(out.end(), {pkt4(g.select_reg(c), 1), static_cast<std::uint32_t>(k % 23)});
    out.push_back(pkt7(op_wait_for_idle, 0));
    const std::uint64_t dst = 0x7000'0000ull + 8 * k;
    out.insert(out.end(), {pkt7(op_reg_to_mem, 3), g.lo_reg(c) | (2u << 18),
                           static_cast<std::uint32_t>(dst), static_cast<std::uint32_t>(dst >> 32)});
    out.insert(out.end(), {pkt7(op_nop, 4), 0x11111111, 0x22222222, 0x33333333, 0x44444444});
    out.insert(out.end(), {0, 0});
    return;
  }
}

std::size_t user_counters() {
  std::size_t n = 0;
  for (const ha::counter_group& g : ha::a5xx_counter_groups) n += g.last_user - g.first_user + 1;
  return n;
}

// A capture of `submits` submits; each command stream calls 4 IBs, each of
// which calls 4 more, each calling 4 leaves (3 levels of IBs below the
// stream), with counter sequences at every level and most of them in the leaves.
std::vector<std::byte> make_rd(std::size_t submits) {
  rd_writer w;
  w.section(13, {530});
  const std::size_t users = user_counters();
  std::size_t k = 0;
  const auto ib = [](std::vector<std::uint32_t>& out, std::uint64_t iova, std::size_t dwords) {
    out.insert(out.end(),
               {pkt7(op_indirect_buffer, 3), static_cast<std::uint32_t>(iova),
                static_cast<std::uint32_t>(iova >> 32), static_cast<std::uint32_t>(dwords)});
  };
  for (std::size_t s = 0; s < submits; ++s) {
    std::uint64_t next_iova = 0x1'0000'0000ull + (s << 28);
    // Builds the IB tree below `level` and returns {iova, dwords} of its root.
    const auto build = [&](auto& self, int level) -> std::pair<std::uint64_t, std::size_t> {
      std::vector<std::uint32_t> d;
      const std::size_t own = level == 3 ? 256 : 4;
      for (std::size_t j = 0; j < own; ++j) counter_packets(d, k++ % users);
      if (level < 3) {
        for (int c = 0; c < 4; ++c) {
          const auto [iova, n] = self(self, level + 1);
          ib(d, iova, n);
          counter_packets(d, k++ % users);
        }
      }
      const std::uint64_t iova = next_iova;
      next_iova += 0x10'0000;
      w.buffer(iova, d);
      return {iova, d.size()};
    };
    const auto [root, n] = build(build, 0);
    w.section(6, {static_cast<std::uint32_t>(root), static_cast<std::uint32_t>(n),
                  static_cast<std::uint32_t>(root >> 32)});
  }
  return w.bytes;
}

// What both walks count. `checksum` ties each sample to its counter and to
// the countable selected for it before (0 when none was).
struct adreno_totals {
  std::uint64_t packets = 0, selects = 0, samples = 0, checksum = 0, issues = 0;
  friend bool operator==(const adreno_totals&, const adreno_totals&) = default;
};

std::uint64_t sample_key(std::size_t group, std::uint32_t counter,
                         std::optional<std::uint32_t> countable) {
  return (group * 64 + counter + 1) * (countable ? std::uint64_t{*countable} + 1 : 0);
}

class counting_sink final : public ha::listing_sink {
 public:
  adreno_totals t;
  void on_packet(const ha::walked_packet& w) override {
    // The packets the walker skipped (none with an event: the recogniser's
    // interest, while its window is empty) count too.
    const std::uint64_t skipped = take_skipped();
    t.packets += 1 + skipped;
    rec_.skip(skipped);
    // Payloads point into the input, which outlives the walk. push(p, f) is
    // push(p) then release(f), for a sink with nothing to do in between.
    rec_.push(w.pkt, [this](const ha::query_event& e) { count(e); });
    set_interest(rec_.window_packets() == 0 ? &ha::recogniser::interest : nullptr);
  }
  void on_issue(const hwpc::error&) override { ++t.issues; }
  void finish() override {
    if (finished_) return;
    finished_ = true;
    t.packets += take_skipped();
    rec_.finish();
    rec_.release([this](const ha::query_event& e) { count(e); }, true);
  }

 private:
  void count(const ha::query_event& e) {
    if (e.op == ha::query_op::counter_select) ++t.selects;
    if (e.op != ha::query_op::counter_sample) return;
    ++t.samples;
    const auto group = static_cast<std::size_t>(e.counter->group - ha::a5xx_counter_groups.data());
    t.checksum += sample_key(group, e.counter->counter, e.countable);
  }
  ha::recogniser rec_{std::size_t{1} << 16};
  bool finished_ = false;
};

// The walk alone, nothing recognised: how much of adreno_walk is the walker.
class packet_sink final : public ha::rd::capture_sink {
 public:
  std::uint64_t packets = 0;
  void on_packet(const ha::walked_packet&) override { ++packets; }
  void on_issue(const hwpc::error&) override {}
};

adreno_totals adreno_library(hwpc::byte_span data) {
  counting_sink sink;
  ha::rd::basic_capture_reader<counting_sink> reader(sink);
  if (!reader.read(data)) ++sink.t.issues;
  sink.finish();
  return sink.t;
}

// The naive walk: buffers copied into a map by address, every IB looked up
// there and copied again into a vector before it is walked.
struct naive_walk {
  std::map<std::uint64_t, std::vector<std::uint32_t>> buffers;
  std::map<std::uint32_t, std::pair<std::size_t, std::uint32_t>> selects, counters;
  std::map<std::uint32_t, std::uint32_t> selected;
  adreno_totals t;

  naive_walk() {
    std::size_t gi = 0;
    for (const ha::counter_group& g : ha::a5xx_counter_groups) {
      for (std::uint32_t c = 0; c <= g.last_register; ++c) {
        selects[g.select_reg(c)] = {gi, c};
        counters[g.lo_reg(c)] = {gi, c};
      }
      ++gi;
    }
  }

  void walk(std::uint64_t iova, std::size_t dwords, int depth) {
    auto it = buffers.upper_bound(iova);
    if (it == buffers.begin() || depth > 64) {
      ++t.issues;
      return;
    }
    --it;
    const std::size_t at = (iova - it->first) / 4;
    if (at + dwords > it->second.size()) {
      ++t.issues;
      return;
    }
    const std::vector<std::uint32_t> d(
        it->second.begin() + static_cast<std::ptrdiff_t>(at),
        it->second.begin() + static_cast<std::ptrdiff_t>(at + dwords));
    std::size_t i = 0;
    while (i < d.size()) {
      const std::uint32_t h = d[i];
      if (h == 0) {
        ++i;
        continue;
      }
      const std::uint32_t type = h >> 28;
      const std::uint32_t count = type == 7 ? (h & 0x3fff) : (h & 0x7f);
      if ((type != 4 && type != 7) || i + 1 + count > d.size()) {
        ++t.issues;
        ++i;
        continue;
      }
      const std::uint32_t* p = d.data() + i + 1;
      ++t.packets;
      if (type == 4) {
        const std::uint32_t reg = (h >> 8) & 0x7ffff;
        for (std::uint32_t k = 0; k < count; ++k) {
          if (selects.count(reg + k)) {
            ++t.selects;
            selected[reg + k] = p[k];
          }
        }
      } else {
        const std::uint32_t op = (h >> 16) & 0x7f;
        if (op == op_indirect_buffer && count >= 3) {
          walk(p[0] | std::uint64_t{p[1]} << 32, p[2] & 0xfffff, depth + 1);
        } else if (op == op_reg_to_mem && count >= 3) {
          const std::uint32_t first = p[0] & 0x3ffff;
          const std::uint32_t n = std::max<std::uint32_t>(1, (p[0] >> 18) & 0xfff);
          for (std::uint32_t r = first; r < first + n; ++r) {
            auto c = counters.find(r);
            if (c == counters.end()) continue;
            ++t.samples;
            const auto& g = ha::a5xx_counter_groups[c->second.first];
            auto s = selected.find(g.select_reg(c->second.second));
            t.checksum += sample_key(
                c->second.first, c->second.second,
                s == selected.end() ? std::nullopt : std::optional<std::uint32_t>(s->second));
          }
        }
      }
      i += 1 + count;
    }
  }

  void read(const std::vector<std::byte>& f) {
    std::size_t pos = 0;
    std::uint64_t pending = 0;
    bool walked = false;
    while (pos + 8 <= f.size()) {
      const auto type = static_cast<std::uint32_t>(read_le(f.data() + pos, 4));
      const auto size = static_cast<std::size_t>(read_le(f.data() + pos + 4, 4));
      const std::byte* p = f.data() + pos + 8;
      if (pos + 8 + size > f.size()) {
        ++t.issues;
        return;
      }
      if (type == 3) {
        if (walked) buffers.clear();
        walked = false;
        pending = read_le(p, 4) | read_le(p + 8, 4) << 32;
      } else if (type == 12) {
        std::vector<std::uint32_t> d(size / 4);
        std::memcpy(d.data(), p, d.size() * 4);
        buffers[pending] = std::move(d);
      } else if (type == 6) {
        walked = true;
        walk(read_le(p, 4) | read_le(p + 8, 4) << 32, read_le(p + 4, 4), 0);
      }
      pos += 8 + size;
    }
  }
};

adreno_totals adreno_naive(const std::vector<std::byte>& f) {
  naive_walk w;
  w.read(f);
  return w.t;
}

struct adreno_input {
  std::string name;
  std::vector<std::byte> file;  // what is read: .rd, or its gzip
  bool gz = false;
  std::size_t rd_bytes = 0;  // the .rd's size (decompressed): what bytes per second count
};

#ifdef HWPC_HAVE_ZLIB
std::vector<std::byte> gzip_of(const std::vector<std::byte>& in) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::vector<std::byte> out(deflateBound(&zs, static_cast<uLong>(in.size())));
  zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Plain inflate of one gzip member into a vector that grows as needed.
std::vector<std::byte> naive_gunzip(const std::vector<std::byte>& in) {
  std::vector<std::byte> out(in.size() * 4);
  z_stream zs{};
  inflateInit2(&zs, 16 + MAX_WBITS);
  zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
    zs.avail_out = static_cast<uInt>(out.size() - zs.total_out);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR)) break;
    out.resize(out.size() * 2);
  }
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}
#endif

adreno_totals adreno_library_input(const adreno_input& in) {
#ifdef HWPC_HAVE_ZLIB
  if (in.gz) {
    auto plain = ha::gunzip(in.file);
    if (!plain) return {};
    return adreno_library(*plain);
  }
#endif
  return adreno_library(in.file);
}
adreno_totals adreno_naive_input(const adreno_input& in) {
#ifdef HWPC_HAVE_ZLIB
  if (in.gz) return adreno_naive(naive_gunzip(in.file));
#endif
  return adreno_naive(in.file);
}

// The library's pipeline over the input in memory (no path: read in 1 MiB blocks from it).
adreno_totals adreno_pipeline_input(const adreno_input& in) {
  counting_sink sink;
  auto c = ha::capture_input::open(hwpc::capture_source::borrow(in.file, "bench"), {}, {});
  if (!c || !ha::walk_packets(*c, sink)) ++sink.t.issues;
  return sink.t;
}

struct row_count final : hwpc::row_writer {
  std::uint64_t rows = 0, sum = 0;
  void write(const hwpc::row& r) override {
    ++rows;
    for (const hwpc::cell& c : r.metrics) sum += c.bits;
  }
  void end(const hwpc::accounting&) override {}
};
std::uint64_t adreno_rows_input(const adreno_input& in, bool keep = true) {
  ha::open_options o;
  if (!keep) o.rows_kept_bytes = 0;
  auto c = ha::query_capture::open(hwpc::capture_source::borrow(in.file, "bench"), o, {});
  row_count w;
  if (!c || !(*c)->write_rows(w)) return 0;
  return w.rows;
}

void adreno_pipeline(benchmark::State& state, const adreno_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(adreno_pipeline_input(*in));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->rd_bytes));
}
void adreno_rows(benchmark::State& state, const adreno_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(adreno_rows_input(*in));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->rd_bytes));
}
void adreno_rows_twice(benchmark::State& state, const adreno_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(adreno_rows_input(*in, false));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->rd_bytes));
}

void adreno_walk(benchmark::State& state, const adreno_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(adreno_library_input(*in));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->rd_bytes));
}
void adreno_walk_only(benchmark::State& state, const adreno_input* in) {
  for (auto _ : state) {
    packet_sink sink;
    ha::rd::basic_capture_reader<packet_sink> reader(sink);
    benchmark::DoNotOptimize(reader.read(in->file));
    benchmark::DoNotOptimize(sink.packets);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->rd_bytes));
}
void naive_adreno_walk(benchmark::State& state, const adreno_input* in) {
  for (auto _ : state) benchmark::DoNotOptimize(adreno_naive_input(*in));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->rd_bytes));
}

// A large A6xx capture as applications make them (adreno/emulate_frames.hpp): many submits of
// draw IBs, draw-state groups and draws. Walked whole from memory (capture_reader, as `hwpc
// adreno` walks a mapped file) and fed 1 MiB at a time to stream_reader (bounded memory).
struct frames_input {
  std::vector<std::byte> file;
  ha::frames_counts counts;
};

void adreno_frames_walk(benchmark::State& state, const frames_input* in) {
  for (auto _ : state) {
    packet_sink sink;
    ha::rd::basic_capture_reader<packet_sink> reader(sink);
    benchmark::DoNotOptimize(reader.read(in->file));
    benchmark::DoNotOptimize(sink.packets);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->file.size()));
}
void adreno_frames_stream(benchmark::State& state, const frames_input* in) {
  constexpr std::size_t piece = std::size_t{1} << 20;
  for (auto _ : state) {
    packet_sink sink;
    ha::rd::stream_reader reader(sink);
    const hwpc::byte_span all(in->file);
    for (std::size_t at = 0; at < all.size(); at += piece) {
      (void)reader.feed(all.subspan(at, std::min(piece, all.size() - at)));
    }
    benchmark::DoNotOptimize(reader.finish());
    benchmark::DoNotOptimize(sink.packets);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in->file.size()));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  static std::vector<mali_input> mali;
  const struct {
    const char* gpu;
    bool kinstr;
    const char* name;
  } mali_cases[] = {{"Mali-G78", false, "vinstr_g78"},
                    {"Mali-G78", true, "kinstr_g78"},
                    {"Mali-G720", true, "kinstr_g720"}};
  for (const auto& c : mali_cases) {
    if (auto in = make_mali(c.gpu, c.kinstr, c.name)) mali.push_back(std::move(*in));
  }
  for (const mali_input& in : mali) {
    const mali_totals lib = mali_library(in, nullptr);
    if (lib.empty() || lib != mali_naive(in)) {
      std::fprintf(stderr, "note: mali %s: library and naive totals differ; rows skipped\n",
                   in.name.c_str());
      continue;
    }
    benchmark::RegisterBenchmark(("mali_sum/" + in.name).c_str(), mali_sum, &in);
    benchmark::RegisterBenchmark(("naive_mali_sum/" + in.name).c_str(), naive_mali_sum, &in);
    if (in.ev && mali_library(in, &*in.ev) == lib) {
      benchmark::RegisterBenchmark(("mali_derived/" + in.name).c_str(), mali_derived, &in);
    }
  }

  static std::vector<adreno_input> adreno;
  const std::vector<std::byte> rd = make_rd(2);
  adreno.push_back({"rd", rd, false, rd.size()});
#ifdef HWPC_HAVE_ZLIB
  adreno.push_back({"rd_gz", gzip_of(rd), true, rd.size()});
#else
  std::fprintf(stderr, "note: built without zlib; the rd_gz rows skipped\n");
#endif
  for (const adreno_input& in : adreno) {
    const adreno_totals lib = adreno_library_input(in);
    const adreno_totals naive = adreno_naive_input(in);
    if (lib.samples == 0 || lib.issues != 0 || !(lib == naive)) {
      std::fprintf(stderr,
                   "note: adreno %s: library (%llu packets, %llu selects, %llu samples) and naive "
                   "(%llu, %llu, %llu) differ; rows skipped\n",
                   in.name.c_str(), static_cast<unsigned long long>(lib.packets),
                   static_cast<unsigned long long>(lib.selects),
                   static_cast<unsigned long long>(lib.samples),
                   static_cast<unsigned long long>(naive.packets),
                   static_cast<unsigned long long>(naive.selects),
                   static_cast<unsigned long long>(naive.samples));
      continue;
    }
    benchmark::RegisterBenchmark(("adreno_walk/" + in.name).c_str(), adreno_walk, &in);
    benchmark::RegisterBenchmark(("naive_adreno_walk/" + in.name).c_str(), naive_adreno_walk, &in);
    if (!in.gz) {
      benchmark::RegisterBenchmark(("adreno_walk_only/" + in.name).c_str(), adreno_walk_only, &in);
    }
    if (adreno_pipeline_input(in) == lib) {
      benchmark::RegisterBenchmark(("adreno_pipeline/" + in.name).c_str(), adreno_pipeline, &in);
    } else {
      std::fprintf(stderr, "note: adreno %s: the pipeline's totals differ; row skipped\n",
                   in.name.c_str());
    }
    if (adreno_rows_input(in) != 0) {
      benchmark::RegisterBenchmark(("adreno_rows/" + in.name).c_str(), adreno_rows, &in);
      if (!in.gz && adreno_rows_input(in, false) == adreno_rows_input(in)) {
        benchmark::RegisterBenchmark(("adreno_rows_twice/" + in.name).c_str(), adreno_rows_twice,
                                     &in);
      }
    }
  }
  // A6XX query rows (rows6.hpp): the naive walker knows neither A6XX
  // registers nor draw-state groups; the walk alone of the same capture is
  // the baseline.
  static adreno_input a6xx;
  {
    ha::emulate_options o;
    o.rounds = 4000;
    ha::adreno6_emulation e = ha::emulate_a6xx_a7xx(o, false);
    a6xx = {"a6xx", std::move(e.file), false, 0};
    a6xx.rd_bytes = a6xx.file.size();
    if (adreno_rows_input(a6xx) == e.rows.size() && !e.rows.empty()) {
      benchmark::RegisterBenchmark("adreno_walk_only/a6xx", adreno_walk_only, &a6xx);
      benchmark::RegisterBenchmark("adreno_rows/a6xx", adreno_rows, &a6xx);
    } else {
      std::fprintf(stderr, "note: adreno a6xx: not the emulated rows; rows skipped\n");
    }
  }

  static frames_input frames;
  {
    ha::frames_options o;
    o.bytes = std::uint64_t{64} << 20;
    o.gen = ha::generation::a6xx;
    frames.file = ha::emulate_frames_file(o, &frames.counts);
    packet_sink whole, streamed;
    ha::rd::capture_reader r(whole);
    const bool ok = static_cast<bool>(r.read(frames.file));
    ha::rd::stream_reader sr(streamed);
    const bool sok = sr.feed(frames.file) && sr.finish();
    if (ok && sok && whole.packets == frames.counts.packets &&
        streamed.packets == frames.counts.packets) {
      benchmark::RegisterBenchmark("adreno_frames_walk/a6xx_64M", adreno_frames_walk, &frames);
      benchmark::RegisterBenchmark("adreno_frames_stream/a6xx_64M", adreno_frames_stream, &frames);
    } else {
      std::fprintf(stderr, "note: adreno frames: the walk did not find the packets packed\n");
    }
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
