// hwpc's metric values against Intel metrics-discovery's (MDAPI's) own
// definitions (../shared/data/intel-mdapi, through the generated tables of
// include/hwpc/metrics/mdapi/).
//
// For every metric of every set a metric file and MDAPI both define, on HSW,
// SKL GT2, TGL GT2, LNL and BMG (PTL has no metric file), packed reports of
// the set's layout are decoded by hwpc and the set evaluated under the
// default arithmetic; the same reports' bytes are evaluated by this file's
// own interpreter of MDAPI's equations (reference_set below, written from
// MDAPI's calculation rules, not from hwpc's evaluator: it reads fields at
// MDAPI's byte offsets, takes each field's delta, computes in MDAPI's typed
// values with float32 floats). Every value agrees to float precision, or the
// metric is a row of mdapi::differences (docs/expressions.md names them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/metrics/intel_device.hpp"
#include "hwpc/metrics/mdapi.hpp"
#include "hwpc/metrics/metric_set.hpp"

#ifdef HWPC_HAVE_PUGIXML
#include "hwpc/metrics/xml_loader.hpp"
#endif

namespace {

namespace hm = hwpc::metrics;
namespace hi = hwpc::intel;
namespace md = hwpc::metrics::mdapi;

const std::filesystem::path shared_dir = std::filesystem::path(HWPC_SHARED_DIR);
const std::filesystem::path mdapi_dir = shared_dir / "data" / "intel-mdapi";

// ---------------------------------------------------------------------------
// The reference: MDAPI's calculation of an OA stream interval, from its
// rules (md_metrics_calculator.h; docs/expressions.md). A typed value is a
// uint64 or a float (float32), as MDAPI's TTypedValue.
struct typed {
  bool is_float = false;
  std::uint64_t u = 0;
  float f = 0.0f;
  static typed of(std::uint64_t v) { return {false, v, 0.0f}; }
  static typed of_float(float v) { return {true, 0, v}; }
  float as_float() const { return is_float ? f : static_cast<float>(u); }
  std::uint64_t as_u64() const {
    if (!is_float) return u;
    if (!(f > 0.0f)) return 0;
    return static_cast<std::uint64_t>(f);
  }
  double as_double() const { return is_float ? static_cast<double>(f) : static_cast<double>(u); }
};

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

std::uint64_t load(const std::byte* r, unsigned off, unsigned bytes) {
  std::uint64_t v = 0;
  for (unsigned k = 0; k < bytes; ++k)
    v |= std::uint64_t(std::to_integer<unsigned>(r[off + k])) << (8 * k);
  return v;
}

typed apply(std::string_view op, const typed& a, const typed& b) {
  const std::uint64_t x = a.as_u64(), y = b.as_u64();
  if (op == "UADD") return typed::of(x + y);
  if (op == "USUB") return typed::of(x - y);
  if (op == "UMUL") return typed::of(x * y);
  if (op == "UDIV") return typed::of(y ? x / y : 0);
  if (op == "UMIN") return typed::of(x < y ? x : y);
  if (op == "UMAX") return typed::of(x > y ? x : y);
  if (op == "AND") return typed::of(x & y);
  if (op == "OR") return typed::of(x | y);
  if (op == ">>") return typed::of(y < 64 ? x >> y : 0);
  if (op == "<<") return typed::of(y < 64 ? x << y : 0);
  if (op == "UGT") return typed::of(x > y);
  if (op == "ULT") return typed::of(x < y);
  if (op == "UGTE") return typed::of(x >= y);
  if (op == "ULTE") return typed::of(x <= y);
  const float p = a.as_float(), q = b.as_float();
  if (op == "FADD") return typed::of_float(p + q);
  if (op == "FSUB") return typed::of_float(p - q);
  if (op == "FMUL") return typed::of_float(p * q);
  if (op == "FDIV") return typed::of_float(q != 0.0f ? p / q : 0.0f);
  if (op == "FMAX") return typed::of_float(p > q ? p : q);
  if (op == "FMIN") return typed::of_float(p < q ? p : q);
  ADD_FAILURE() << "reference: unknown operator " << op;
  return {};
}

bool is_op(std::string_view t) {
  for (std::string_view o :
       {"UADD", "USUB", "UMUL", "UDIV", "UMIN", "UMAX", "AND",  "OR",   ">>",   "<<",
        "UGT",  "ULT",  "UGTE", "ULTE", "FADD", "FSUB", "FMUL", "FDIV", "FMAX", "FMIN"}) {
    if (t == o) return true;
  }
  return false;
}

typed immediate(std::string_view t) {
  if (t.find('.') != std::string_view::npos) return typed::of_float(std::stof(std::string(t)));
  return typed::of(std::stoull(std::string(t), nullptr, 0));
}

struct reference_set {
  std::vector<const md::metric_def*> metrics;
  const std::map<std::string, std::uint64_t>* globals = nullptr;
  bool xe2 = false;

  int index_of(std::string_view name) const {
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      if (metrics[i]->symbol == name) return static_cast<int>(i);
    }
    return -1;
  }
  typed global(std::string_view name) const {
    auto it = globals->find(std::string(name));
    return typed::of(it == globals->end() ? 0 : it->second);
  }
  // One field's delta between two reports, by the metric's delta function.
  std::uint64_t field_delta(std::string_view tok, std::string_view fn, const std::byte* prev,
                            const std::byte* last) const {
    const std::size_t at = tok.find('@');
    const std::string_view kind = tok.substr(0, at);
    std::string_view where = tok.substr(at + 1);
    unsigned high = 0;
    if (kind == "rd40") {
      high = static_cast<unsigned>(
          std::stoul(std::string(where.substr(where.find(':') + 1)), nullptr, 16));
      where = where.substr(0, where.find(':'));
    }
    const unsigned off = static_cast<unsigned>(std::stoul(std::string(where), nullptr, 16));
    auto read = [&](const std::byte* r) {
      if (kind == "qw") return load(r, off, 8);
      if (kind == "dw") return load(r, off, 4);
      return load(r, off, 4) | (load(r, high, 1) << 32);
    };
    unsigned bits = 64;
    if (fn == "NS_TIME") bits = xe2 ? 56 : 32;
    if (fn.starts_with("DELTA "))
      bits = static_cast<unsigned>(std::stoul(std::string(fn.substr(6))));
    const std::uint64_t p = read(prev), l = read(last);
    if (p <= l) return l - p;
    if (bits < 64) return (l | (std::uint64_t{1} << bits)) - p;
    return ~std::uint64_t{0} - p + l;
  }
  typed read(std::size_t i, const std::byte* prev, const std::byte* last,
             std::uint64_t clocks) const {
    const md::metric_def& m = *metrics[i];
    std::vector<typed> st;
    for (std::string_view t : words(m.read)) {
      if (is_op(t)) {
        const typed b = st.back();
        st.pop_back();
        const typed a = st.back();
        st.pop_back();
        st.push_back(apply(t, a, b));
      } else if (t.find('@') != std::string_view::npos) {
        st.push_back(typed::of(field_delta(t, m.delta, prev, last)));
      } else if (t.starts_with("$")) {
        // Only GpuCoreClocks is a local symbol in a read equation.
        st.push_back(t == "$GpuCoreClocks" && clocks ? typed::of(clocks) : global(t.substr(1)));
      } else {
        st.push_back(immediate(t));
      }
    }
    EXPECT_EQ(st.size(), 1u) << m.set << " " << m.symbol << " read";
    return st.empty() ? typed{} : st.back();
  }
  std::vector<typed> values(const std::byte* prev, const std::byte* last) const {
    std::vector<typed> delta(metrics.size()), out(metrics.size());
    std::uint64_t clocks = 0;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      if (!metrics[i]->read.empty()) delta[i] = read(i, prev, last, clocks);
      if (clocks == 0 && metrics[i]->symbol == "GpuCoreClocks") clocks = delta[i].u;
    }
    const typed eus = global("EuCoresTotalCount");
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      const md::metric_def& m = *metrics[i];
      typed v = delta[i];
      if (m.normalization == "GpuDuration" || m.normalization == "EuAggrDuration") {
        const std::uint64_t d = m.normalization == "GpuDuration" ? clocks : clocks * eus.u;
        v = typed::of_float(d ? 100.0f * delta[i].as_float() / static_cast<float>(d) : 0.0f);
      } else if (!m.normalization.empty()) {
        std::vector<typed> st;
        for (std::string_view t : words(m.normalization)) {
          if (is_op(t)) {
            const typed b = st.back();
            st.pop_back();
            const typed a = st.back();
            st.pop_back();
            st.push_back(apply(t, a, b));
          } else if (t == "$Self") {
            st.push_back(delta[i]);
          } else if (t.starts_with("$$")) {
            const int j = index_of(t.substr(2));
            st.push_back(j >= 0 ? out[static_cast<std::size_t>(j)] : typed{});
          } else if (t.starts_with("$")) {
            const int j = index_of(t.substr(1));
            st.push_back(j >= 0 ? delta[static_cast<std::size_t>(j)] : global(t.substr(1)));
          } else {
            st.push_back(immediate(t));
          }
        }
        EXPECT_EQ(st.size(), 1u) << m.set << " " << m.symbol << " normalization";
        v = st.empty() ? typed{} : st.back();
      }
      // The result type's cast.
      if (m.result == md::result_type::float32) {
        v = typed::of_float(v.as_float());
      } else if (m.result == md::result_type::uint64) {
        v = typed::of(v.as_u64());
      } else if (m.result == md::result_type::uint32) {
        v = typed::of(v.as_u64() & 0xffffffffu);
      }
      out[i] = v;
    }
    return out;
  }
};

// ---------------------------------------------------------------------------
// Reports: the test's own packing at the layout's field offsets, a GPU-like
// workload (each counter counts at most once per GT clock).
struct workload {
  std::mt19937_64 rng;
  explicit workload(std::uint64_t seed) : rng(seed) {}
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  }
};

void put(std::vector<std::byte>& b, std::size_t at, std::uint64_t v, unsigned bytes) {
  for (unsigned k = 0; k < bytes; ++k) b[at + k] = std::byte((v >> (8 * k)) & 0xff);
}

[[maybe_unused]] std::vector<std::byte> pack_reports(const hi::report_format& f,
                                                     const hm::intel_device& dev,
                                                     std::uint64_t seed, std::size_t reports) {
  workload w(seed);
  std::vector<std::uint64_t> value(f.fields.size());
  for (std::size_t k = 0; k < f.fields.size(); ++k) value[k] = w.uniform(0, f.fields[k].mask());
  std::vector<std::byte> out;
  for (std::size_t r = 0; r < reports; ++r) {
    std::vector<std::byte> b(f.size);
    for (std::size_t k = 0; k < f.fields.size(); ++k) {
      const hi::field& fd = f.fields[k];
      std::uint64_t v = value[k];
      if (fd.kind == hi::field_kind::rpt_id) v = 1u << 19;  // a timer report
      if (fd.kind == hi::field_kind::ctx_id || fd.kind == hi::field_kind::inst_add) v = 0;
      if (fd.bits == 40) {
        put(b, fd.offset, v & 0xffffffffu, 4);
        put(b, fd.high_byte_offset, v >> 32, 1);
      } else {
        put(b, fd.offset, v, fd.bits / 8);
      }
    }
    out.insert(out.end(), b.begin(), b.end());
    // The next report: T timestamp ticks at a GT clock within the part's range.
    const std::uint64_t t = w.uniform(1u << 8, 1u << 15);
    const std::uint64_t hz = w.uniform(dev.gt_min_frequency_hz, dev.gt_max_frequency_hz);
    const std::uint64_t clocks = t * hz / dev.timestamp_frequency_hz;
    for (std::size_t k = 0; k < f.fields.size(); ++k) {
      const hi::field& fd = f.fields[k];
      std::uint64_t step = 0;
      if (fd.kind == hi::field_kind::timestamp) step = t;
      if (fd.kind == hi::field_kind::gpu_ticks) step = clocks;
      if (fd.is_counter() && fd.kind != hi::field_kind::gpu_ticks) step = w.uniform(0, clocks);
      value[k] = (value[k] + step) & fd.mask();
    }
  }
  return out;
}

struct platform_case {
  std::string_view file;  // metric file, under ../shared/data
  hi::platform platform;
};

[[maybe_unused]] hm::intel_device device_for(hi::platform p) {
  hm::intel_device d = hm::device_of(p);
  switch (p) {
    case hi::platform::hsw:
      d = hm::with_topology(d, 1, 2, 10);
      break;
    case hi::platform::skl:
      d = hm::with_topology(d, 1, 3, 8);
      break;
    case hi::platform::tgl:
      d = hm::with_topology(d, 1, 6, 16);
      break;
    case hi::platform::lnl:
      d = hm::with_topology(d, 1, 8, 8);
      break;
    default:  // BMG: 20 XeCores of 8 XVEs
      d = hm::with_topology(d, 1, 32, 8);
      d.subslice_mask = (1ull << 20) - 1;
      d.eu_count = 20 * 8;
      break;
  }
  d.gt_min_frequency_hz = 300'000'000;
  d.gt_max_frequency_hz = p == hi::platform::bmg ? 2'850'000'000 : 1'150'000'000;
  return d;
}

// Agreement to float precision: MDAPI rounds every float operation to
// float32 (24-bit significand), hwpc computes in double.
[[maybe_unused]] bool agree(double h, double m) {
  const double scale = std::max({std::fabs(h), std::fabs(m), 1e-3});
  return std::fabs(h - m) <= 2e-5 * scale;
}

// A metric marked literal_arithmetic (MDAPI's own formula) is computed as
// written under arithmetic::mdapi; the others keep the exact quotients, and
// a literal formula referring to another metric reads that metric's value
// as its own rule computes it.
TEST(MetricsMdapi, LiteralMetricsKeepTheirTruncations) {
  hm::metric_set s;
  s.symbol_name = "Hand";
  auto add = [&](const char* sym, const char* eq, bool literal) {
    hm::metric m;
    m.symbol_name = sym;
    m.type = hm::data_type::float64;
    m.equation = eq;
    m.literal_arithmetic = literal;
    s.metrics.push_back(m);
  };
  add("Exact", "A 0 READ 7 UDIV 100 UMUL A 1 READ FDIV", false);
  // The same chain as Exact's (one set of shared nodes), as written.
  add("Literal", "A 0 READ 7 UDIV 100 UMUL A 1 READ 2 UMUL FDIV", true);
  add("LiteralOfExact", "$Exact 2 FMUL", true);
  add("ExactOfLiteral", "$Literal A 2 READ 3 UDIV FADD", false);
  for (auto arith : {hwpc::expr::arithmetic::mdapi, hwpc::expr::arithmetic::igt}) {
    hm::compile_options opt;
    opt.arithmetic = arith;
    auto c = hm::compile(s, opt);
    ASSERT_TRUE(c) << c.error_value().describe();
    auto b = c->bind({});
    ASSERT_TRUE(b) << b.error_value().describe();
    std::vector<std::uint64_t> raw(b->inputs().size());
    for (std::size_t k = 0; k < raw.size(); ++k) {
      const std::string& n = b->inputs()[k].name;
      raw[k] = n == "A0" ? 100 : n == "A1" ? 1000 : 10;  // A2 = 10
    }
    std::vector<hwpc::expr::value> out(b->size());
    ASSERT_TRUE(b->evaluate(raw, out));
    const bool exact = arith == hwpc::expr::arithmetic::mdapi;
    EXPECT_DOUBLE_EQ(out[0].as_double(), exact ? 10000.0 / 7000.0 : 1.4);
    EXPECT_DOUBLE_EQ(out[1].as_double(), 0.7);  // floor(100 / 7) * 100 / (1000 * 2)
    EXPECT_DOUBLE_EQ(out[2].as_double(), 2 * out[0].as_double());
    // floor(10 / 3) = 3 is a quotient used as a double: exact (10/3) when
    // the formula is not literal, under mdapi.
    EXPECT_DOUBLE_EQ(out[3].as_double(), 0.7 + (exact ? 10.0 / 3.0 : 3.0));
  }
}

// Panther Lake has MDAPI definitions but no metric file: every metric of
// its OA sets translates onto the 576-byte PEC layout the Xe2 files name
// (a set made of MDAPI's own symbols stands in for the file's).
TEST(MetricsMdapi, EveryPantherLakeMetricTranslates) {
  const md::platform_def* p = md::platform_of("PTL");
  ASSERT_NE(p, nullptr);
  std::map<std::string, hm::metric_set> sets;
  for (const md::metric_def& m : p->metrics) {
    if (m.group != md::oa_group) continue;
    hm::metric_set& s = sets[std::string(m.set)];
    s.symbol_name = std::string(m.set);
    s.chipset = "PTL";
    s.oa_format = "576B_PEC64LL";
    hm::metric x;
    x.symbol_name = std::string(m.symbol);
    s.metrics.push_back(x);
  }
  std::size_t translated = 0, failed = 0;
  for (const auto& [name, s] : sets) {
    for (const hm::metric& m : s.metrics) {
      std::string why;
      if (md::translate(*p, s, m.symbol_name, &why)) {
        ++translated;
      } else {
        ++failed;
        std::printf("[ ptl ] %s %s: %s\n", name.c_str(), m.symbol_name.c_str(), why.c_str());
      }
    }
  }
  std::printf("[ ptl ] %zu metrics translate, %zu do not\n", translated, failed);
  EXPECT_GT(translated, 400u);
  EXPECT_EQ(failed, 0u);
}

#ifdef HWPC_HAVE_PUGIXML

struct outcome {
  std::size_t sets = 0, comparisons = 0;
  std::size_t appended = 0;                   // metrics only MDAPI defines, in the compiled sets
  std::set<std::string> mdapi_only;           // "set symbol" of metrics only MDAPI defines
  std::map<std::string, std::string> differ;  // "set symbol" -> the first values that differ
};

// Every shared metric of every shared set of one platform.
outcome compare_platform(const platform_case& pc, const md::platform_def& mp,
                         const std::vector<hm::metric_set>& sets, md::definitions choice,
                         hwpc::expr::arithmetic arith = hwpc::expr::arithmetic::mdapi) {
  outcome o;
  const hm::intel_device dev = device_for(pc.platform);
  const hm::device_values dv = hm::to_device_values(dev);
  std::map<std::string, std::uint64_t> globals;
  for (const auto& [name, v] : dv) globals[name] = v.as_u64();
  for (const hm::metric_set& set : sets) {
    if (!md::has_set(mp, set.symbol_name)) continue;
    const hi::report_format* f = md::layout_of(mp, set);
    if (f == nullptr) {
      ADD_FAILURE() << set.symbol_name << ": no layout";
      continue;
    }
    ++o.sets;
    reference_set ref;
    ref.globals = &globals;
    ref.xe2 = hi::generation_of(pc.platform) >= hi::generation::xe2;
    std::set<std::string> in_file;
    for (const auto& m : set.metrics) in_file.insert(m.symbol_name);
    for (const md::metric_def& m : mp.metrics) {
      if (m.group != md::oa_group || m.set != set.symbol_name) continue;
      ref.metrics.push_back(&m);
      if (!in_file.contains(std::string(m.symbol))) {
        o.mdapi_only.insert(std::string(m.set) + " " + std::string(m.symbol));
      }
    }
    hm::compile_options opt;
    opt.definitions = choice;
    opt.arithmetic = arith;
    auto c = hm::compile(set, hm::options_for(dv, opt));
    EXPECT_TRUE(c) << c.error_value().describe();
    if (!c) continue;
    auto b = c->bind(dv);
    EXPECT_TRUE(b) << b.error_value().describe();
    if (!b) continue;
    EXPECT_TRUE(c->dropped().empty())
        << set.symbol_name << " drops " << c->dropped()[0].symbol_name;
    const hi::counter_list counters(*f);
    constexpr std::size_t elapsed = ~std::size_t{0};
    std::vector<std::size_t> source;
    for (const auto& in : b->inputs()) {
      if (in.name == "GPU_TIME") {
        source.push_back(elapsed);
        continue;
      }
      const std::string name =
          in.name == "GPU_CLOCK" ? "GPU_TICKS" : hm::counter_for_input(in.name, *f);
      source.push_back(counters.index_of(name));
      // Only the query-mode PERFCNT registers are not in OA reports (their
      // metrics are unavailable on an OA stream and left out below).
      if (!in.name.starts_with("PERFCNT")) {
        EXPECT_NE(source.back(), counters.size()) << set.symbol_name << " reads " << in.name;
      }
    }
    o.appended += b->size() - std::min(b->size(), set.metrics.size());
    // hwpc metric i -> reference metric j.
    std::vector<int> ref_of(b->size(), -1);
    for (std::size_t i = 0; i < b->size(); ++i) ref_of[i] = ref.index_of((*b)[i].symbol_name);
    for (std::uint64_t seed : {11u, 12u}) {
      const auto bytes = pack_reports(*f, dev, seed * 131 + o.sets, 64);
      auto buf = hi::report_buffer::make({bytes.data(), bytes.size()}, *f);
      EXPECT_TRUE(buf) << buf.error_value().describe();
      if (!buf) continue;
      std::vector<std::uint64_t> raw(source.size());
      std::vector<hwpc::expr::value> out(b->size());
      std::size_t n = 0;
      // Inputs as columns and the scalar evaluator's bits, for the batch one.
      std::vector<std::vector<std::uint64_t>> in_cols(source.size());
      std::vector<std::vector<std::uint64_t>> scalar_bits(b->size());
      hi::for_each_interval(*buf, hi::generation_of(pc.platform), [&](const hi::interval& iv) {
        ++n;
        for (std::size_t k = 0; k < source.size(); ++k) {
          raw[k] = source[k] == elapsed          ? iv.elapsed_ticks
                   : source[k] < counters.size() ? iv.deltas[source[k]]
                                                 : 0;
        }
        ASSERT_TRUE(b->evaluate(raw, out));
        for (std::size_t k = 0; k < source.size(); ++k) in_cols[k].push_back(raw[k]);
        for (std::size_t i = 0; i < b->size(); ++i) scalar_bits[i].push_back(out[i].bits);
        const std::byte* last = bytes.data() + n * f->size;
        const std::vector<typed> want = ref.values(last - f->size, last);
        for (std::size_t i = 0; i < b->size(); ++i) {
          if (ref_of[i] < 0 || !b->available(i)) continue;
          const double h = out[i].as_double();
          const double m = want[static_cast<std::size_t>(ref_of[i])].as_double();
          if (seed == 11u && n == 1) ++o.comparisons;
          if (agree(h, m)) continue;
          o.differ.emplace(set.symbol_name + " " + (*b)[i].symbol_name,
                           "hwpc " + std::to_string(h) + ", MDAPI " + std::to_string(m));
        }
      });
      EXPECT_EQ(n, 63u) << set.symbol_name;
      // The batch evaluator gives the scalar one's bits.
      auto ev = b->batch();
      std::vector<const std::uint64_t*> ins;
      for (const auto& c : in_cols) ins.push_back(c.data());
      std::vector<std::vector<std::uint64_t>> batch_out(b->size(), std::vector<std::uint64_t>(n));
      std::vector<std::uint64_t*> outs;
      for (auto& c : batch_out) outs.push_back(c.data());
      EXPECT_TRUE(ev.evaluate(ins, n, outs));
      for (std::size_t i = 0; i < b->size(); ++i) {
        EXPECT_EQ(batch_out[i], scalar_bits[i]) << set.symbol_name << " " << (*b)[i].symbol_name;
      }
    }
  }
  return o;
}

std::vector<platform_case> cases() {
  return {{"intel-metrics/oa-hsw.xml", hi::platform::hsw},
          {"intel-metrics/oa-sklgt2.xml", hi::platform::skl},
          {"intel-metrics/oa-tglgt2.xml", hi::platform::tgl},
          {"intel-metrics-xe/oa-lnl.xml", hi::platform::lnl},
          {"intel-metrics-xe/oa-bmg.xml", hi::platform::bmg}};
}

struct loaded_case {
  platform_case pc;
  const md::platform_def* mp = nullptr;
  std::vector<hm::metric_set> sets;
};

std::vector<loaded_case> load_cases() {
  std::vector<loaded_case> out;
  for (const platform_case& pc : cases()) {
    auto loaded = hm::load_xml_file((shared_dir / "data" / std::string(pc.file)).string());
    EXPECT_TRUE(loaded) << loaded.error_value().describe();
    if (!loaded) continue;
    const md::platform_def* mp = md::platform_of(loaded->front().chipset);
    EXPECT_NE(mp, nullptr) << loaded->front().chipset;
    if (mp) out.push_back({pc, mp, std::move(*loaded)});
  }
  return out;
}

// The rows of mdapi::differences for one chipset, as "set symbol".
std::set<std::string> decided(std::string_view chipset) {
  std::set<std::string> out;
  for (const md::difference_row& d : md::differences) {
    if (d.chipset == chipset) out.insert(std::string(d.set) + " " + std::string(d.symbol));
  }
  return out;
}

std::set<std::string> keys(const std::map<std::string, std::string>& m) {
  std::set<std::string> out;
  for (const auto& [k, v] : m) out.insert(k);
  return out;
}

// The default: MDAPI's value for every shared metric but the decided
// differences, which follow the metric file.
TEST(MetricsMdapi, EverySharedMetricIsMdapisValueOrADecidedDifference) {
  if (!std::filesystem::exists(mdapi_dir)) GTEST_SKIP() << "../shared is absent: " << mdapi_dir;
  std::size_t platforms = 0;
  for (const loaded_case& lc : load_cases()) {
    ++platforms;
    const outcome o = compare_platform(lc.pc, *lc.mp, lc.sets, md::definitions::mdapi);
    const std::string chip(lc.mp->chipset);
    std::printf(
        "[ mdapi ] %s: %zu shared sets, %zu metrics compared, %zu differ (decided), %zu only in "
        "MDAPI\n",
        chip.c_str(), o.sets, o.comparisons, o.differ.size(), o.mdapi_only.size());
    const std::set<std::string> want = decided(chip);
    for (const auto& [k, v] : o.differ) {
      EXPECT_TRUE(want.contains(k)) << chip << " " << k << " differs from MDAPI: " << v;
    }
    // Each decided difference follows the file by default, so differs.
    EXPECT_EQ(keys(o.differ), want) << chip;
    EXPECT_GT(o.comparisons, 200u) << chip;
    // Every metric both define translates (none falls back to the file's
    // formula unnoticed).
    for (const hm::metric_set& set : lc.sets) {
      if (!md::has_set(*lc.mp, set.symbol_name)) continue;
      for (const hm::metric& m : set.metrics) {
        if (md::find(*lc.mp, set.symbol_name, m.symbol_name) == nullptr) continue;
        std::string why;
        EXPECT_TRUE(md::translate(*lc.mp, set, m.symbol_name, &why))
            << chip << " " << set.symbol_name << " " << m.symbol_name << ": " << why;
      }
    }
  }
  EXPECT_EQ(platforms, 5u);
}

// definitions::newer: MDAPI's value for every metric MDAPI defines, those
// the file lacks included.
TEST(MetricsMdapi, NewerDefinitionsAreMdapisEverywhere) {
  if (!std::filesystem::exists(mdapi_dir)) GTEST_SKIP() << "../shared is absent: " << mdapi_dir;
  for (const loaded_case& lc : load_cases()) {
    const outcome base = compare_platform(lc.pc, *lc.mp, lc.sets, md::definitions::mdapi);
    const outcome o = compare_platform(lc.pc, *lc.mp, lc.sets, md::definitions::newer);
    for (const auto& [k, v] : o.differ) {
      ADD_FAILURE() << lc.mp->chipset << " " << k << " differs from MDAPI: " << v;
    }
    // Every metric only MDAPI defines is appended, but one reading a metric
    // the file lacks (SKL GT2 ComputeL3Cache L3ShaderLookups: $$SamplerL1Misses).
    EXPECT_EQ(o.comparisons, base.comparisons + o.appended) << lc.mp->chipset;
    EXPECT_GE(o.appended + (lc.mp->chipset == "SKLGT2" ? 1 : 0), base.mdapi_only.size())
        << lc.mp->chipset;
  }
}

// The decided differences are exactly the metrics whose file formula
// computes something else than MDAPI's definition under either arithmetic
// (truncating as IGT, or exact quotients): the file reads other counters or
// another factor. Each of them follows the file by default.
TEST(MetricsMdapi, DecidedDifferencesAreExactlyTheFilesOtherDefinitions) {
  if (!std::filesystem::exists(mdapi_dir)) GTEST_SKIP() << "../shared is absent: " << mdapi_dir;
  std::size_t arithmetic_only = 0;
  for (const loaded_case& lc : load_cases()) {
    const std::string chip(lc.mp->chipset);
    const outcome igt = compare_platform(lc.pc, *lc.mp, lc.sets, md::definitions::file,
                                         hwpc::expr::arithmetic::igt);
    const outcome exact = compare_platform(lc.pc, *lc.mp, lc.sets, md::definitions::file);
    std::set<std::string> both;
    for (const auto& k : keys(igt.differ)) both.insert(k);
    for (const auto& k : keys(exact.differ)) both.insert(k);
    std::set<std::string> neither;
    for (const auto& k : both) {
      if (igt.differ.contains(k) && exact.differ.contains(k)) {
        neither.insert(k);
      } else {
        ++arithmetic_only;
        std::printf("[ mdapi arithmetic ] %s %s: %s\n", chip.c_str(), k.c_str(),
                    (igt.differ.contains(k) ? "igt " + igt.differ.at(k)
                                            : "exact quotients " + exact.differ.at(k))
                        .c_str());
      }
    }
    std::printf(
        "[ mdapi ] %s: the file's formulas differ from MDAPI in %zu metrics with exact quotients "
        "(the rule used before), %zu with IGT's truncation; %zu of them are decided "
        "differences\n",
        chip.c_str(), exact.differ.size(), igt.differ.size(), neither.size());
    for (const auto& k : neither) {
      std::printf("[ mdapi definition ] %s %s: %s\n", chip.c_str(), k.c_str(),
                  exact.differ.at(k).c_str());
    }
    EXPECT_EQ(neither, decided(chip)) << chip;
  }
  std::printf("[ mdapi ] %zu metrics differ from MDAPI by arithmetic only under one rule\n",
              arithmetic_only);
}

// The section of docs/expressions.md on the decided differences.
std::string docs_section() {
  const auto path = std::filesystem::path(HWPC_TEST_DATA_DIR).parent_path().parent_path() / "docs" /
                    "expressions.md";
  std::FILE* f = std::fopen(path.string().c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return {};
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  const std::size_t at = text.find("### Where metrics-discovery and the metric files disagree");
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return {};
  return text.substr(at, text.find("\n## ", at) - at);
}

// The docs name every decided difference, and the table has the rows they count.
TEST(MetricsMdapi, DocsNameEveryDecidedDifference) {
  const std::string section = docs_section();
  for (const md::difference_row& d : md::differences) {
    EXPECT_NE(section.find("`" + std::string(d.symbol) + "`"), std::string::npos) << d.symbol;
    EXPECT_NE(section.find(std::string(d.set)), std::string::npos) << d.set;
  }
  EXPECT_NE(section.find("67"), std::string::npos) << "the row count";
  EXPECT_EQ(std::size(md::differences), 67u);
}

// What only MDAPI defines is named in the docs (docs/expressions.md).
TEST(MetricsMdapi, MetricsOnlyMdapiDefinesAreListed) {
  if (!std::filesystem::exists(mdapi_dir)) GTEST_SKIP() << "../shared is absent: " << mdapi_dir;
  const std::string section = docs_section();
  for (const loaded_case& lc : load_cases()) {
    const outcome o = compare_platform(lc.pc, *lc.mp, lc.sets, md::definitions::mdapi);
    for (const auto& k : o.mdapi_only) {
      std::printf("[ mdapi only ] %s %s\n", std::string(lc.mp->chipset).c_str(), k.c_str());
      EXPECT_NE(section.find("`" + k.substr(k.find(' ') + 1) + "`"), std::string::npos) << k;
    }
  }
}

#else
TEST(MetricsMdapi, NeedsPugixml) { GTEST_SKIP() << "built without pugixml (HWPC_HAVE_PUGIXML)"; }
#endif

}  // namespace
