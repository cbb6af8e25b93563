// Formula evaluation and compilation, every figure beside its baselines:
//   metric_set/RenderBasic/GEN/batch        the batch evaluator over 1M samples (columns)
//   metric_set/RenderBasic/GEN/hand_written the same formulas as a hand-written C++ loop
//   metric_set/RenderBasic/GEN/per_sample   the scalar evaluator, one sample at a time
//   metric_set/RenderBasic/GEN/batch_rows/B the batch evaluator with B-row blocks forced
//   compile_corpus                          compiling every set of every Intel metric XML file
//   tokenize_corpus                         only splitting those formulas into tokens
// GEN is hsw (Haswell GT2, 70 metrics), skl_gt2 (52) and tgl_gt2 (34): RenderBasic
// of oa-hsw.xml, oa-sklgt2.xml and oa-tglgt2.xml from ../shared/data/intel-metrics;
// and lnl (Lunar Lake, Xe2, 66): RenderBasic of oa-lnl.xml from
// ../shared/data/intel-metrics-xe. Without those files these benchmarks are
// not registered (nothing to
// measure), and a note says so. The XML loader needs pugixml: without it
// the program only prints that note.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#ifdef HWPC_HAVE_PUGIXML
#include "hwpc/expr/lexer.hpp"
#include "hwpc/metrics/metric_set.hpp"
#include "hwpc/metrics/xml_loader.hpp"

#endif

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

#ifdef HWPC_HAVE_PUGIXML
namespace {

namespace hm = hwpc::metrics;
using hwpc::expr::value;

const std::filesystem::path metrics_dir =
    std::filesystem::path(HWPC_SHARED_DIR) / "data" / "intel-metrics";
const std::filesystem::path xe_metrics_dir =
    std::filesystem::path(HWPC_SHARED_DIR) / "data" / "intel-metrics-xe";

// 2^20 samples, or HWPC_BENCH_SAMPLES (scripts/bench-check.sh uses fewer: the
// three sets' columns take about 2.3 GB at 2^20).
const std::size_t samples = [] {
  const char* e = std::getenv("HWPC_BENCH_SAMPLES");
  const unsigned long long n = e ? std::strtoull(e, nullptr, 10) : 0;
  return n >= 4096 ? static_cast<std::size_t>(n) : std::size_t{1} << 20;
}();

// A GT2 part of each generation: EUs, subslices (dual subslices on TGL) of one
// slice, and the timestamp frequency (12.5 MHz on HSW, 12 MHz on SKL, 19.2 MHz
// on TGL). The hand-written loops below use the same numbers.
struct part {
  std::uint64_t eus, subslices, subslice_mask, timestamp_hz;
};
constexpr part hsw_gt2{20, 2, 0x3, 12'500'000};
constexpr part skl_gt2{24, 3, 0x7, 12'000'000};
constexpr part tgl_gt2{96, 6, 0x3f, 19'200'000};
// Lunar Lake: 8 XeCores of 8 vector engines (64 XVEs, 8 threads each).
constexpr part lnl{64, 8, 0xff, 19'200'000};

hm::device_values device(const part& d) {
  hm::device_values v = {{"GpuTimestampFrequency", value::u(d.timestamp_hz)},
                         {"EuCoresTotalCount", value::u(d.eus)},
                         {"EuSubslicesTotalCount", value::u(d.subslices)},
                         {"EuDualSubslicesTotalCount", value::u(d.subslices)},
                         {"EuSlicesTotalCount", value::u(1)},
                         {"EuThreadsCount", value::u(7)},
                         {"SliceMask", value::u(0x1)},
                         {"SubsliceMask", value::u(d.subslice_mask)},
                         {"DualSubsliceMask", value::u(d.subslice_mask)},
                         {"GpuMinFrequency", value::u(300'000'000)},
                         {"GpuMaxFrequency", value::u(1'150'000'000)},
                         {"SkuRevisionId", value::u(3)},
                         {"QueryMode", value::u(0)}};
  if (&d == &lnl) {
    // The Xe2 names, and the unit counts no capture gives (docs/expressions.md):
    // values of a Lunar Lake part (2 L3 nodes, so 2 SQIDIs; 1 compute engine).
    v["VectorEngineTotalCount"] = value::u(d.eus);
    v["VectorEngineThreadsCount"] = value::u(8);
    v["EuThreadsCount"] = value::u(8);
    v["XeCoreTotalCount"] = value::u(d.subslices);
    v["XeCoreMask"] = value::u(d.subslice_mask);
    v["SqidiTotalCount"] = value::u(2);
    v["L3NodeTotalCount"] = value::u(2);
    v["L3BankTotalCount"] = value::u(8);
    v["ComputeEngineTotalCount"] = value::u(1);
    v["CopyEngineTotalCount"] = value::u(1);
    v["GeometryPipeTotalCount"] = value::u(1);
    v["DepthPipeTotalCount"] = value::u(2);
    v["ColorPipeTotalCount"] = value::u(2);
    v["GpuMaxFrequency"] = value::u(2'050'000'000);
  }
  return v;
}

struct render_basic;
using hand_loop = void (*)(const render_basic&, std::size_t, const std::vector<std::uint64_t*>&);

struct render_basic {
  std::string gen;
  hand_loop by_hand = nullptr;
  std::unique_ptr<hm::bound_set> set;
  std::vector<std::vector<std::uint64_t>> in;  // one column per input, samples rows
  std::vector<const std::uint64_t*> in_cols;
  std::vector<std::vector<std::uint64_t>> out;  // one column per metric
  std::vector<std::uint64_t*> out_cols;
  std::size_t col(const char* name) const { return *set->input_index(name); }
};

// Counter deltas of plausible sizes (a 100 us interval at ~1 GHz), with some
// idle intervals where every counter is zero (the divide-by-zero cases).
// `definitions`: the hand-written loops compute the file's formulas
// (definitions::file); the default compiles metrics-discovery's own
// definitions (docs/expressions.md), measured as batch_mdapi.
render_basic make_render_basic(const hm::metric_set& def, const part& d,
                               hm::mdapi::definitions definitions = hm::mdapi::definitions::file) {
  render_basic rb;
  hm::compile_options opt;
  opt.definitions = definitions;
  auto compiled = hm::compile(def, opt);
  auto bound = compiled->bind(device(d));
  if (!bound) {
    std::fprintf(stderr, "note: binding %s failed: %s\n", def.symbol_name.c_str(),
                 bound.error_value().describe().c_str());
    return rb;
  }
  rb.set = std::make_unique<hm::bound_set>(std::move(*bound));
  std::uint64_t s = 0x2545f4914f6cdd1dull;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  rb.in.assign(rb.set->inputs().size(), std::vector<std::uint64_t>(samples));
  for (std::size_t r = 0; r < samples; ++r) {
    const bool idle = next() % 64 == 0;
    for (auto& c : rb.in) c[r] = idle ? 0 : next() % 100'000'000;
  }
  for (const auto& c : rb.in) rb.in_cols.push_back(c.data());
  rb.out.assign(rb.set->size(), std::vector<std::uint64_t>(samples));
  for (auto& c : rb.out) rb.out_cols.push_back(c.data());
  return rb;
}

// RenderBasic written out by hand, formula by formula, with the evaluator's
// definitions: unsigned arithmetic wraps, UDIV and FDIV by zero give 0, FMAX
// keeps the left operand on ties and ignores a NaN operand, and float metrics
// are doubles (stored as their bits, like every output column).
inline double fdiv(double x, double y) { return y == 0.0 ? 0.0 : x / y; }
inline std::uint64_t udiv(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : a / b; }
inline double fmax_(double x, double y) { return x != x ? y : (y != y ? x : (x < y ? y : x)); }
inline std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }
inline double dbl(std::uint64_t u) { return static_cast<double>(u); }
// FADD of counters converts each to double. A percentage of the EU-clocks
// ("X $EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV") is computed with
// the exact-quotient rule: X * 100 / (EUs * clocks), no truncation. These
// loops compute the files' formulas (mdapi::definitions::file); the default,
// metrics-discovery's own definitions, is measured as batch_mdapi
// (docs/expressions.md, docs/performance.md).

void skl_by_hand(const render_basic& rb, std::size_t rows, const std::vector<std::uint64_t*>& out) {
  const hm::bound_set& b = *rb.set;
  auto in = [&](const char* name) { return rb.in_cols[rb.col(name)]; };
  auto o = [&](const char* sym) { return out[*b.find(sym)]; };
  const std::uint64_t *gpu_time = in("GPU_TIME"), *gpu_clock = in("GPU_CLOCK");
  const std::uint64_t* a[36];
  for (int k : {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 15, 16, 17,
                18, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 34, 35}) {
    char name[8];
    std::snprintf(name, sizeof name, "A%d", k);
    a[k] = in(name);
  }
  const std::uint64_t* bb[8];
  for (int k : {0, 1, 2, 3, 4, 6, 7}) {
    char name[8];
    std::snprintf(name, sizeof name, "B%d", k);
    bb[k] = in(name);
  }
  const std::uint64_t* c[8];
  for (int k = 0; k < 8; ++k) {
    char name[8];
    std::snprintf(name, sizeof name, "C%d", k);
    c[k] = in(name);
  }
  const std::uint64_t eus = 24, freq = 12'000'000;

  std::uint64_t *gpu_time_o = o("GpuTime"), *clocks_o = o("GpuCoreClocks"),
                *avg_freq_o = o("AvgGpuCoreFrequency");
  std::uint64_t* threads_o[6] = {o("VsThreads"), o("HsThreads"), o("DsThreads"),
                                 o("GsThreads"), o("PsThreads"), o("CsThreads")};
  const int threads_a[6] = {1, 2, 3, 5, 6, 4};
  std::uint64_t* busy_o = o("GpuBusy");
  std::uint64_t* eu_o[11] = {o("EuActive"),
                             o("EuStall"),
                             o("EuFpuBothActive"),
                             o("VsFpu0Active"),
                             o("VsFpu1Active"),
                             o("VsSendActive"),
                             o("PsFpu0Active"),
                             o("PsFpu1Active"),
                             o("PsSendActive"),
                             o("PsEuBothFpuActive"),
                             nullptr};
  const int eu_a[10] = {7, 8, 9, 10, 11, 12, 15, 16, 17, 18};
  std::uint64_t *s0_o = o("Sampler0Busy"), *s1_o = o("Sampler1Busy"), *ss_o = o("SamplersBusy"),
                *s0b_o = o("Sampler0Bottleneck"), *s1b_o = o("Sampler1Bottleneck"),
                *sb_o = o("SamplerBottleneck");
  std::uint64_t* x4_o[9] = {o("RasterizedPixels"),         o("HiDepthTestFails"),
                            o("EarlyDepthTestFails"),      o("SamplesKilledInPs"),
                            o("PixelsFailingPostPsTests"), o("SamplesWritten"),
                            o("SamplesBlended"),           o("SamplerTexels"),
                            o("SamplerTexelMisses")};
  std::uint64_t *l1_o = o("SamplerL1Misses"), *slm_r_o = o("SlmBytesRead"),
                *slm_w_o = o("SlmBytesWritten"), *sma_o = o("ShaderMemoryAccesses"),
                *atom_o = o("ShaderAtomics"), *l3l_o = o("L3Lookups"), *l3m_o = o("L3Misses"),
                *l3s_o = o("L3SamplerThroughput"), *l3sh_o = o("L3ShaderThroughput"),
                *bar_o = o("ShaderBarriers"), *vf_o = o("GtiVfThroughput"),
                *depth_o = o("GtiDepthThroughput"), *rcc_o = o("GtiRccThroughput"),
                *gl3_o = o("GtiL3Throughput"), *hdc_o = o("GtiHdcLookupsThroughput"),
                *rd_o = o("GtiReadThroughput"), *wr_o = o("GtiWriteThroughput");

  // Column by column, like the batch evaluator's blocks but without an
  // interpreter: each loop is straight-line code the compiler vectorises.
  for (std::size_t r = 0; r < rows; ++r) {
    gpu_time_o[r] = udiv(gpu_time[r] * 1'000'000'000ull, freq);
    clocks_o[r] = gpu_clock[r];
    avg_freq_o[r] = udiv(gpu_clock[r] * 1'000'000'000ull, gpu_time_o[r]);
  }
  for (int t = 0; t < 6; ++t) std::copy_n(a[threads_a[t]], rows, threads_o[t]);
  for (std::size_t r = 0; r < rows; ++r) {
    busy_o[r] = bits(fdiv(static_cast<double>(a[0][r] * 100), static_cast<double>(gpu_clock[r])));
  }
  for (int e = 0; e < 10; ++e) {
    const std::uint64_t* x = a[eu_a[e]];
    std::uint64_t* y = eu_o[e];
    for (std::size_t r = 0; r < rows; ++r) {
      y[r] = bits(fdiv(dbl(x[r]) * 100.0, dbl(eus) * dbl(gpu_clock[r])));
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const double clk = static_cast<double>(gpu_clock[r]);
    const double s0 = fdiv(static_cast<double>(bb[0][r] * 100), clk);
    const double s1 = fdiv(static_cast<double>(bb[1][r] * 100), clk);
    const double s0b = fdiv(static_cast<double>(bb[2][r] * 100), clk);
    const double s1b = fdiv(static_cast<double>(bb[3][r] * 100), clk);
    s0_o[r] = bits(s0);
    s1_o[r] = bits(s1);
    ss_o[r] = bits(fmax_(s0, s1));
    s0b_o[r] = bits(s0b);
    s1b_o[r] = bits(s1b);
    sb_o[r] = bits(fmax_(s0b, s1b));
  }
  for (int k = 0; k < 9; ++k) {
    const std::uint64_t* x = a[21 + k];
    std::uint64_t* y = x4_o[k];
    for (std::size_t r = 0; r < rows; ++r) y[r] = x[r] * 4;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint64_t l1 = bb[4][r] * 8, sma = a[32][r];
    l1_o[r] = l1;
    slm_r_o[r] = a[30][r] * 64;
    slm_w_o[r] = a[31][r] * 64;
    sma_o[r] = sma;
    atom_o[r] = a[34][r];
    l3l_o[r] = l1 + sma;
    l3m_o[r] = c[4][r];
    l3s_o[r] = l1 * 64;
    l3sh_o[r] = (a[30][r] + (a[31][r] + sma)) * 64;
    bar_o[r] = a[35][r];
    vf_o[r] = (bb[6][r] + bb[7][r]) * 64;
    depth_o[r] = (c[0][r] + c[1][r]) * 64;
    rcc_o[r] = (c[2][r] + c[3][r]) * 64;
    gl3_o[r] = c[4][r] * 64;
    hdc_o[r] = c[5][r] * 64;
    rd_o[r] = c[6][r] * 64;
    wr_o[r] = c[7][r] * 64;
  }
}

// A column of input `name` and the output column of metric `sym`.
struct cols_of {
  const render_basic& rb;
  const std::vector<std::uint64_t*>& out;
  const std::uint64_t* operator()(const char* name) const { return rb.in_cols[rb.col(name)]; }
  std::uint64_t* o(const char* sym) const { return out[*rb.set->find(sym)]; }
};

// Haswell GT2 RenderBasic (oa-hsw.xml), 70 metrics: 20 EUs, 12.5 MHz, 1 slice.
void hsw_by_hand(const render_basic& rb, std::size_t rows, const std::vector<std::uint64_t*>& out) {
  const cols_of in{rb, out};
  const std::uint64_t eus = 20, freq = 12'500'000;
  const std::uint64_t *gpu_time = in("GPU_TIME"), *clk = in("C2");
  const std::uint64_t* a[42] = {};
  for (int k : {0,  1,  2,  3,  5,  7,  8,  10, 12, 13, 15, 17, 18, 20,
                22, 23, 25, 27, 28, 30, 33, 35, 36, 37, 38, 39, 40, 41}) {
    char name[8];
    std::snprintf(name, sizeof name, "A%d", k);
    a[k] = in(name);
  }
  const std::uint64_t *b[8] = {}, *c[8] = {};
  for (int k = 0; k < 8; ++k) {
    char name[8];
    std::snprintf(name, sizeof name, "B%d", k);
    b[k] = in(name);
    if (k == 2) continue;
    std::snprintf(name, sizeof name, "C%d", k);
    c[k] = in(name);
  }
  const std::uint64_t *p0 = in("PERFCNT0"), *p1 = in("PERFCNT1");
  std::uint64_t *gpu_time_o = in.o("GpuTime"), *clocks_o = in.o("GpuCoreClocks"),
                *avg_o = in.o("AvgGpuCoreFrequency");
  // Threads of each stage, and its EU active/stall counters.
  const char* stage[6] = {"Vs", "Hs", "Ds", "Gs", "Cs", "Ps"};
  const int threads_a[6] = {5, 10, 15, 25, 20, 30};
  const int active_a[6] = {2, 7, 12, 22, 17, 27};
  for (int t = 0; t < 6; ++t) {
    const std::string st = stage[t];
    std::copy_n(a[threads_a[t]], rows, in.o((st + "Threads").c_str()));
  }
  for (std::size_t r = 0; r < rows; ++r) {
    gpu_time_o[r] = udiv(gpu_time[r] * 1'000'000'000ull, freq);
    clocks_o[r] = clk[r];
    avg_o[r] = udiv(clk[r] * 1'000'000'000ull, gpu_time_o[r]);
  }
  auto pct_of_eus = [&](const std::uint64_t* x, std::uint64_t* y) {
    for (std::size_t r = 0; r < rows; ++r)
      y[r] = bits(fdiv(dbl(x[r]) * 100.0, dbl(eus) * dbl(clk[r])));
  };
  auto pct = [&](const std::uint64_t* x, std::uint64_t* y) {
    for (std::size_t r = 0; r < rows; ++r) y[r] = bits(fdiv(dbl(x[r] * 100), dbl(clk[r])));
  };
  pct(a[41], in.o("GpuBusy"));
  pct_of_eus(a[0], in.o("EuActive"));
  pct_of_eus(a[1], in.o("EuStall"));
  for (int t = 0; t < 6; ++t) {
    const std::string st = stage[t];
    const std::uint64_t *act = a[active_a[t]], *stall = a[active_a[t] + 1], *thr = a[threads_a[t]];
    pct_of_eus(act, in.o((st + "EuActive").c_str()));
    pct_of_eus(stall, in.o((st + "EuStall").c_str()));
    std::uint64_t *ap = in.o((st + "EuActivePerThread").c_str()),
                  *sp = in.o((st + "EuStallPerThread").c_str());
    for (std::size_t r = 0; r < rows; ++r) {
      ap[r] = udiv(act[r], thr[r]);
      sp[r] = udiv(stall[r], thr[r]);
    }
  }
  std::uint64_t *s0 = in.o("Sampler0Busy"), *s1 = in.o("Sampler1Busy"), *ss = in.o("SamplersBusy"),
                *s0b = in.o("Sampler0Bottleneck"), *s1b = in.o("Sampler1Bottleneck"),
                *sb = in.o("SamplerBottleneck");
  for (std::size_t r = 0; r < rows; ++r) {
    const double k = dbl(clk[r]);
    s0[r] = bits(fdiv(dbl(b[0][r] * 100), k));
    s1[r] = bits(fdiv(dbl(b[1][r] * 100), k));
    ss[r] = bits(fdiv(fdiv(dbl(b[0][r] + b[1][r]), k), 2.0) * 100.0);
    const double x = fdiv(dbl(b[2][r] * 100), k), y = fdiv(dbl(b[3][r] * 100), k);
    s0b[r] = bits(x);
    s1b[r] = bits(y);
    sb[r] = bits(fmax_(x, y));
  }
  std::uint64_t *t0 = in.o("Sampler0Texels"), *t1 = in.o("Sampler1Texels"),
                *tt = in.o("SamplerTexels"), *l3s = in.o("L3SamplerThroughput"),
                *pdf = in.o("PostPsDepthTestFails"), *blend = in.o("SamplesBlended"),
                *vf = in.o("GtiVfThroughput"), *depth = in.o("GtiDepthThroughput"),
                *rcc = in.o("GtiRccThroughput"), *gl3 = in.o("GtiL3Throughput"),
                *rd = in.o("GtiReadThroughput"), *wr = in.o("GtiWriteThroughput"),
                *llca = in.o("LlcAccesses"), *llch = in.o("LlcHits"),
                *llct = in.o("LlcGpuThroughput");
  for (std::size_t r = 0; r < rows; ++r) {
    t0[r] = b[4][r] * 4;
    t1[r] = b[5][r] * 4;
    tt[r] = b[4][r] * 4 + b[5][r] * 4;
    l3s[r] = (b[6][r] + b[7][r]) * 128;
    pdf[r] = a[39][r] - a[36][r];
    blend[r] = c[5][r] * 4;
    vf[r] = c[1][r] * 64;
    depth[r] = c[0][r] * 64;
    rcc[r] = c[3][r] * 64;
    gl3[r] = c[4][r] * 64;
    rd[r] = c[6][r] * 128;
    wr[r] = c[7][r] * 64;
    llca[r] = p0[r];
    llch[r] = p1[r];
    llct[r] = (p0[r] - c[7][r]) * 64;
  }
  const struct {
    const char* sym;
    int a;
  } copies[] = {{"HiDepthTestFails", 33}, {"EarlyDepthTestFails", 35},    {"SamplesKilledInPs", 36},
                {"AlphaTestFails", 37},   {"PostPsStencilTestFails", 38}, {"SamplesWritten", 40}};
  for (const auto& k : copies) std::copy_n(a[k.a], rows, in.o(k.sym));
  // Shader durations: each stage's share of the EU active and stall time,
  // scaled by the interval over the EU-clocks.
  std::uint64_t* dur[6];
  for (int t = 0; t < 6; ++t) dur[t] = in.o((std::string(stage[t]) + "Duration").c_str());
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint64_t act = a[2][r] + a[7][r] + a[12][r] + a[17][r] + a[22][r] + a[27][r];
    const std::uint64_t stall = a[3][r] + a[8][r] + a[13][r] + a[18][r] + a[23][r] + a[28][r];
    const std::uint64_t eu_clocks = clk[r] * eus * 1000;
    for (int t = 0; t < 6; ++t) {
      const int x = active_a[t];
      const std::uint64_t share = udiv(a[x][r] * a[0][r], act) + udiv(a[x + 1][r] * a[1][r], stall);
      dur[t][r] = udiv(share * gpu_time_o[r], eu_clocks);
    }
  }
  std::uint64_t *idle = in.o("EuIdle"), *ea = in.o("EuActive"), *es = in.o("EuStall");
  for (std::size_t r = 0; r < rows; ++r) {
    idle[r] = bits(100.0 - (std::bit_cast<double>(ea[r]) + std::bit_cast<double>(es[r])));
  }
}

// Tiger Lake GT2 RenderBasic (oa-tglgt2.xml), 34 metrics: 96 EUs, 19.2 MHz.
void tgl_by_hand(const render_basic& rb, std::size_t rows, const std::vector<std::uint64_t*>& out) {
  const cols_of in{rb, out};
  const std::uint64_t eus = 96, freq = 19'200'000;
  const std::uint64_t *gpu_time = in("GPU_TIME"), *clk = in("GPU_CLOCK");
  const std::uint64_t* a[36] = {};
  for (int k = 0; k < 36; ++k) {
    if (k == 19 || k == 20 || k == 33) continue;
    char name[8];
    std::snprintf(name, sizeof name, "A%d", k);
    a[k] = in(name);
  }
  const std::uint64_t *b0 = in("B0"), *b1 = in("B1");
  const std::uint64_t* c[6];
  for (int k = 0; k < 6; ++k) {
    char name[8];
    std::snprintf(name, sizeof name, "C%d", k);
    c[k] = in(name);
  }
  std::uint64_t *gpu_time_o = in.o("GpuTime"), *clocks_o = in.o("GpuCoreClocks"),
                *avg_o = in.o("AvgGpuCoreFrequency");
  for (std::size_t r = 0; r < rows; ++r) {
    gpu_time_o[r] = udiv(gpu_time[r] * 1'000'000'000ull, freq);
    clocks_o[r] = clk[r];
    avg_o[r] = udiv(clk[r] * 1'000'000'000ull, gpu_time_o[r]);
  }
  const struct {
    const char* sym;
    int a;
  } copies[] = {{"VsThreads", 1},
                {"HsThreads", 2},
                {"DsThreads", 3},
                {"GsThreads", 5},
                {"PsThreads", 6},
                {"CsThreads", 4},
                {"ShaderMemoryAccesses", 32},
                {"ShaderAtomics", 34},
                {"ShaderBarriers", 35}};
  for (const auto& k : copies) std::copy_n(a[k.a], rows, in.o(k.sym));
  std::uint64_t *busy = in.o("GpuBusy"), *eua = in.o("EuActive"), *eus_o = in.o("EuStall"),
                *occ = in.o("EuThreadOccupancy"), *s0 = in.o("Sampler00Busy"),
                *s0b = in.o("Sampler00Bottleneck"), *ss = in.o("SamplersBusy"),
                *sb = in.o("SamplerBottleneck");
  for (std::size_t r = 0; r < rows; ++r) {
    const double k = dbl(clk[r]);
    busy[r] = bits(fdiv(dbl(a[0][r] * 100), k));
    const double act = dbl(a[7][r]) + dbl(a[8][r]) + dbl(a[9][r]) + dbl(a[10][r]);
    const double stall = dbl(a[11][r]) + dbl(a[12][r]) + dbl(a[13][r]) + dbl(a[14][r]);
    const double thr = dbl(a[15][r]) + dbl(a[16][r]) + dbl(a[17][r]) + dbl(a[18][r]);
    const double eu_clocks = dbl(eus) * k;
    eua[r] = bits(fdiv(act * 100.0, eu_clocks));
    eus_o[r] = bits(fdiv(stall * 100.0, eu_clocks));
    occ[r] = bits(fdiv(8.0 * thr / 7.0 * 100.0, eu_clocks));
    s0[r] = ss[r] = bits(fdiv(dbl(b0[r] * 100), k));
    s0b[r] = sb[r] = bits(fdiv(dbl(b1[r] * 100), k));
  }
  const char* x4[9] = {
      "RasterizedPixels",         "HiDepthTestFails", "EarlyDepthTestFails", "SamplesKilledInPs",
      "PixelsFailingPostPsTests", "SamplesWritten",   "SamplesBlended",      "SamplerTexels",
      "SamplerTexelMisses"};
  for (int k = 0; k < 9; ++k) {
    const std::uint64_t* x = a[21 + k];
    std::uint64_t* y = in.o(x4[k]);
    for (std::size_t r = 0; r < rows; ++r) y[r] = x[r] * 4;
  }
  std::uint64_t *slm_r = in.o("SlmBytesRead"), *slm_w = in.o("SlmBytesWritten"),
                *l3 = in.o("L3ShaderThroughput"), *rd = in.o("GtiReadThroughput"),
                *wr = in.o("GtiWriteThroughput");
  for (std::size_t r = 0; r < rows; ++r) {
    slm_r[r] = a[30][r] * 64;
    slm_w[r] = a[31][r] * 64;
    l3[r] = a[32][r] * 64;
    rd[r] = (c[5][r] + c[4][r] + c[3][r] + c[2][r]) * 64;
    wr[r] = (c[1][r] + c[0][r]) * 64;
  }
}

// Lunar Lake RenderBasic (oa-lnl.xml, Xe2), 66 metrics: 64 XVEs, 19.2 MHz,
// PEC counters. 48 metrics are a counter as it is.
void lnl_by_hand(const render_basic& rb, std::size_t rows, const std::vector<std::uint64_t*>& out) {
  const cols_of in{rb, out};
  const std::uint64_t xves = 64, freq = 19'200'000, sqidis = 2;
  const std::uint64_t *gpu_time = in("GPU_TIME"), *clk = in("GPU_CLOCK");
  auto pec = [&](int k) { return in(("PEC" + std::to_string(k)).c_str()); };
  std::uint64_t *gpu_time_o = in.o("GpuTime"), *clocks_o = in.o("GpuCoreClocks"),
                *avg_o = in.o("AvgGpuCoreFrequency");
  for (std::size_t r = 0; r < rows; ++r) {
    gpu_time_o[r] = udiv(gpu_time[r] * 1'000'000'000ull, freq);
    clocks_o[r] = clk[r];
    avg_o[r] = udiv(clk[r] * 1'000'000'000ull, gpu_time_o[r]);
  }
  const struct {
    const char* sym;
    int pec;
  } copies[] = {{"IA_VERTEX", 33},
                {"GPGPU_THREADGROUP_COUNT", 0},
                {"ASYNC_GPGPU_THREADGROUP_COUNT", 1},
                {"RASTERIZER_SAMPLE_OUTPUT", 34},
                {"PIXEL_BLEND", 35},
                {"PIXEL_WRITE", 36},
                {"POSTPS_ALPHA_TEST_FAIL", 2},
                {"SHADER_PIX_KILL", 3},
                {"L3_READ", 37},
                {"L3_WRITE", 38},
                {"CLIPPER_INPUT_VERTEX", 42},
                {"CLIPPER_PRIMITIVE_CULL", 43},
                {"CLIPPER_PRIMITIVE_FAR_NEAR_CLIP", 44},
                {"CLIPPER_PRIMITIVE_OUTPUT", 45},
                {"IA_PRIMITIVE", 46},
                {"STREAMOUT_OUTPUT_VERTEX_COUNT", 47},
                {"STRIPSFAN_OBJECT_COUNT", 48},
                {"STRIPSFAN_OBJECT_CULL", 49},
                {"STREAMOUT_PRIMITIVE_WRITE_COUNT", 50},
                {"SLM_BANK_CONFLICT_COUNT", 4},
                {"COMPRESSOR_INPUT", 51},
                {"COMPRESSOR_OUTPUT", 52},
                {"TLB_MISS", 53},
                {"SAMPLER_2X2_READ", 5},
                {"SAMPLER_TEXTURE_CACHE_ACCESS", 6},
                {"SAMPLER_TEXTURE_CACHE_MISS", 21},
                {"URB_READ", 55},
                {"URB_WRITE", 56},
                {"ICACHE_HIT", 22},
                {"ICACHE_MISS", 23},
                {"XVE_INST_EXECUTED_ALU0_ALL", 25},
                {"XVE_INST_EXECUTED_ALU1_ALL", 26},
                {"XVE_INST_EXECUTED_SEND_ALL", 7},
                {"XVE_INST_EXECUTED_ALU0_CS", 8},
                {"XVE_INST_EXECUTED_ALU0_PS", 9},
                {"XVE_INST_EXECUTED_ALU0_VS", 10},
                {"XVE_INST_EXECUTED_ALU1_CS", 11},
                {"XVE_INST_EXECUTED_ALU1_PS", 12},
                {"XVE_INST_EXECUTED_ALU1_VS", 13},
                {"RT_BVH_CACHE_MISS", 28},
                {"RT_INPUT_MESSAGE_RAY_COUNT", 29},
                {"LOAD_STORE_CACHE_HIT", 30},
                {"LOAD_STORE_CACHE_ACCESS", 31},
                {"XVE_INST_ISSUED_ALL", 15},
                {"LOAD_STORE_CACHE_BYTE_READ", 16},
                {"LOAD_STORE_CACHE_BYTE_WRITE", 17},
                {"SLM_BYTE_READ", 18},
                {"SLM_BYTE_WRITE", 19}};
  for (const auto& k : copies) std::copy_n(pec(k.pec), rows, in.o(k.sym));
  // Percentages of the clock: of the engine ($ComputeEngineTotalCount is 1,
  // so its UDIV folds away), per SQIDI, per XVE, of all XVE threads.
  const struct {
    const char* sym;
    int pec;
    std::uint64_t per;
  } pct[] = {{"GPU_BUSY", 32, 1},
             {"COMMAND_PARSER_COMPUTE_ENGINE_BUSY", 39, 1},
             {"COMMAND_PARSER_RENDER_ENGINE_BUSY", 40, 1},
             {"COMMAND_PARSER_COPY_ENGINE_BUSY", 41, 1},
             {"GPU_MEMORY_REQUEST_QUEUE_FULL", 54, sqidis},
             {"XVE_ACTIVE", 24, xves},
             {"XVE_SHARED_FUNCTION_ACCESS_HOLD", 27, xves},
             {"XVE_STALL", 20, xves},
             {"XVE_INST_EXECUTED_ALU0_ALL_UTILIZATION", 25, xves},
             {"XVE_INST_EXECUTED_ALU1_ALL_UTILIZATION", 26, xves}};
  for (const auto& k : pct) {
    const std::uint64_t* x = pec(k.pec);
    std::uint64_t* y = in.o(k.sym);
    if (k.per == 1) {
      for (std::size_t r = 0; r < rows; ++r) y[r] = bits(fdiv(dbl(x[r] * 100), dbl(clk[r])));
    } else {
      const double per = dbl(k.per);
      for (std::size_t r = 0; r < rows; ++r)
        y[r] = bits(fdiv(dbl(x[r]) * 100.0, per * dbl(clk[r])));
    }
  }
  const std::uint64_t* occ_in = pec(14);
  std::uint64_t* occ = in.o("XVE_THREADS_OCCUPANCY_ALL");
  for (std::size_t r = 0; r < rows; ++r) {
    occ[r] = bits(fdiv(dbl(occ_in[r]) * 800.0, dbl(8 * xves) * dbl(clk[r])));
  }
  const std::uint64_t *rd_in = pec(57), *wr_in = pec(58);
  std::uint64_t *rd = in.o("GPU_MEMORY_BYTE_READ"), *wr = in.o("GPU_MEMORY_BYTE_WRITE"),
                *rd_rate = in.o("GPU_MEMORY_BYTE_READ_RATE"),
                *wr_rate = in.o("GPU_MEMORY_BYTE_WRITE_RATE");
  for (std::size_t r = 0; r < rows; ++r) {
    const double t = dbl(gpu_time_o[r]);
    rd[r] = rd_in[r] * 2;
    wr[r] = wr_in[r] * 2;
    rd_rate[r] = bits(fdiv(dbl(rd[r]), t));
    wr_rate[r] = bits(fdiv(dbl(wr[r]), t));
  }
}

void batch(benchmark::State& st, render_basic* rb) {
  auto ev = rb->set->batch();
  for (auto _ : st) {
    auto ok = ev.evaluate(rb->in_cols, samples, rb->out_cols);
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * samples));
  st.counters["nodes"] = static_cast<double>(rb->set->ir().nodes.size());
  st.counters["scratch_columns"] = static_cast<double>(ev.scratch_columns());
  st.counters["block"] = static_cast<double>(ev.block());
}

// The same evaluation with a block length forced (range(0) rows) instead of
// the one the evaluator picks: the measurement behind its choice.
void batch_rows(benchmark::State& st, render_basic* rb) {
  hwpc::expr::batch_evaluator ev(rb->set->ir(), static_cast<std::size_t>(st.range(0)));
  for (auto _ : st) {
    auto ok = ev.evaluate(rb->in_cols, samples, rb->out_cols);
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * samples));
  st.counters["scratch_KiB"] =
      static_cast<double>(ev.scratch_columns() * ev.block() * sizeof(std::uint64_t)) / 1024.0;
}

void hand_written(benchmark::State& st, render_basic* rb) {
  for (auto _ : st) {
    rb->by_hand(*rb, samples, rb->out_cols);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * samples));
}

void per_sample(benchmark::State& st, render_basic* rb) {
  hwpc::expr::scalar_evaluator ev(rb->set->ir());
  std::vector<std::uint64_t> raw(rb->in.size());
  std::vector<value> out(rb->set->size());
  for (auto _ : st) {
    for (std::size_t r = 0; r < samples; ++r) {
      for (std::size_t k = 0; k < raw.size(); ++k) raw[k] = rb->in_cols[k][r];
      auto ok = ev.evaluate(raw, out);
      benchmark::DoNotOptimize(ok);
      for (std::size_t m = 0; m < out.size(); ++m) rb->out_cols[m][r] = out[m].bits;
    }
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * samples));
}

// The hand-written loop is only a baseline if it computes the same thing:
// every output of every sample, bit for bit, against the batch evaluator.
bool hand_written_matches(render_basic& rb) {
  auto ev = rb.set->batch();
  if (!ev.evaluate(rb.in_cols, samples, rb.out_cols)) return false;
  std::vector<std::vector<std::uint64_t>> mine(rb.out.size(), std::vector<std::uint64_t>(samples));
  std::vector<std::uint64_t*> cols;
  for (auto& c : mine) cols.push_back(c.data());
  rb.by_hand(rb, samples, cols);
  for (std::size_t m = 0; m < mine.size(); ++m) {
    if (mine[m] != rb.out[m]) {
      std::fprintf(stderr, "%s: hand-written %s differs from the batch evaluator\n", rb.gen.c_str(),
                   (*rb.set)[m].symbol_name.c_str());
      return false;
    }
  }
  return true;
}

struct corpus {
  std::vector<hm::metric_set> sets;
  std::size_t formulas = 0;
};

// `definitions`: the default reads metrics-discovery's definitions for the
// HSW, SKL GT2 and TGL GT2 files' sets; compile_corpus_file keeps the files'
// formulas everywhere (docs/performance.md compares the two).
void compile_corpus(benchmark::State& st, const corpus* c,
                    hm::mdapi::definitions definitions = hm::mdapi::definitions::mdapi) {
  hm::compile_options opt;
  opt.definitions = definitions;
  for (auto _ : st) {
    std::size_t nodes = 0;
    for (const auto& set : c->sets) {
      auto compiled = hm::compile(set, opt);
      nodes += compiled ? compiled->ir().nodes.size() : 0;
    }
    benchmark::DoNotOptimize(nodes);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * c->formulas));
}

// Only the lexical work: every word of every formula classified as a number
// (scanned to its value), a name or an operator.
std::size_t tokenize(std::string_view t) {
  std::size_t tokens = 0, i = 0;
  while (i < t.size()) {
    if (hwpc::expr::is_space(t[i])) {
      ++i;
      continue;
    }
    ++tokens;
    if (hwpc::expr::is_digit(t[i])) {
      const auto n = hwpc::expr::scan_number(t, i);
      i = n.end > i ? n.end : i + 1;
    } else if (const std::size_t len = hwpc::expr::scan_name(t, t[i] == '$' ? i + 1 : i)) {
      i += len + (t[i] == '$');
    } else {
      while (i < t.size() && !hwpc::expr::is_space(t[i])) ++i;
    }
  }
  return tokens;
}

void tokenize_corpus(benchmark::State& st, const corpus* c) {
  for (auto _ : st) {
    std::size_t tokens = 0;
    for (const auto& set : c->sets) {
      for (const auto& m : set.metrics) {
        tokens += tokenize(m.equation) + tokenize(m.max_equation) + tokenize(m.availability);
      }
      for (const auto& r : set.register_configs) tokens += tokenize(r.availability);
    }
    benchmark::DoNotOptimize(tokens);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * c->formulas));
}

}  // namespace
#endif

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
#ifndef HWPC_HAVE_PUGIXML
  std::fprintf(stderr, "note: built without pugixml; metric benchmarks skipped\n");
#else
  static corpus all;
  static render_basic rbs[4];
  static render_basic mdapi_rbs[4];  // the default: metrics-discovery's definitions
  const struct {
    const char* file;
    const char* gen;
    const part* device;
    hand_loop by_hand;
  } sets[4] = {{"oa-hsw.xml", "hsw", &hsw_gt2, hsw_by_hand},
               {"oa-sklgt2.xml", "skl_gt2", &skl_gt2, skl_by_hand},
               {"oa-tglgt2.xml", "tgl_gt2", &tgl_gt2, tgl_by_hand},
               {"oa-lnl.xml", "lnl", &lnl, lnl_by_hand}};
  if (!std::filesystem::exists(metrics_dir)) {
    std::fprintf(stderr, "note: %s is absent; metric benchmarks skipped\n",
                 metrics_dir.string().c_str());
  } else {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(metrics_dir)) {
      if (e.path().extension() == ".xml") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto loaded = hm::load_xml_file(f.string());
      if (!loaded) continue;
      for (auto& s : *loaded) {
        for (int k = 0; k < 3; ++k) {
          if (s.symbol_name == "RenderBasic" && f.filename() == sets[k].file) {
            mdapi_rbs[k] = make_render_basic(s, *sets[k].device, hm::mdapi::definitions::mdapi);
            rbs[k] = make_render_basic(s, *sets[k].device);
            rbs[k].gen = sets[k].gen;
            rbs[k].by_hand = sets[k].by_hand;
          }
        }
        for (const auto& m : s.metrics) {
          all.formulas += 1 + !m.max_equation.empty() + !m.availability.empty();
        }
        for (const auto& r : s.register_configs) all.formulas += !r.availability.empty();
        all.sets.push_back(std::move(s));
      }
    }
    // The Xe2 set is not part of the compile corpus (that is the 18 i915 files).
    rbs[3].gen = sets[3].gen;
    if (auto xe = hm::load_xml_file((xe_metrics_dir / sets[3].file).string())) {
      for (const auto& s : *xe) {
        if (s.symbol_name != "RenderBasic") continue;
        mdapi_rbs[3] = make_render_basic(s, *sets[3].device, hm::mdapi::definitions::mdapi);
        rbs[3] = make_render_basic(s, *sets[3].device);
        rbs[3].gen = sets[3].gen;
        rbs[3].by_hand = sets[3].by_hand;
      }
    }
    for (std::size_t k = 0; k < 4; ++k) {
      render_basic& rb = rbs[k];
      if (rb.set && hand_written_matches(rb)) {
        const std::string base = "metric_set/RenderBasic/" + rb.gen;
        benchmark::RegisterBenchmark((base + "/batch").c_str(), batch, &rb);
        if (mdapi_rbs[k].set) {
          benchmark::RegisterBenchmark((base + "/batch_mdapi").c_str(), batch, &mdapi_rbs[k]);
        }
        benchmark::RegisterBenchmark((base + "/batch_rows").c_str(), batch_rows, &rb)
            ->RangeMultiplier(2)
            ->Range(1024, 32768);
        benchmark::RegisterBenchmark((base + "/hand_written").c_str(), hand_written, &rb);
        benchmark::RegisterBenchmark((base + "/per_sample").c_str(), per_sample, &rb)
            ->Iterations(1);
      } else {
        std::fprintf(stderr, "note: RenderBasic %s unavailable; its metric_set rows skipped\n",
                     rb.gen.c_str());
      }
    }
    benchmark::RegisterBenchmark("compile_corpus", [](benchmark::State& st) {
      compile_corpus(st, &all, hm::mdapi::definitions::mdapi);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("compile_corpus_file", [](benchmark::State& st) {
      compile_corpus(st, &all, hm::mdapi::definitions::file);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("tokenize_corpus", tokenize_corpus, &all)
        ->Unit(benchmark::kMillisecond);
  }
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
