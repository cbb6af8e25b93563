// Misuse that would dangle does not compile: every public type that keeps a
// pointer to an argument refuses a temporary (a deleted rvalue overload), so
// `deltas(raw_capture(buf), gen)` is a compile error, not a use after scope.
// The checks are requires-expressions and type traits evaluated at compile
// time (a deleted overload makes them false); the tests then run the lvalue
// forms, which must keep working.
#include <gtest/gtest.h>

#include <type_traits>
#include <utility>
#include <vector>

#include "adreno_rd_writer.hpp"
#include "adreno_seed.hpp"
#include "capture_test_util.hpp"
#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/expr.hpp"
#include "hwpc/intel.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/gpus/index.hpp"
#include "hwpc/mali/rows.hpp"

namespace {

using namespace hwpc;
using namespace hwpc::intel;

template <class S>
concept deltas_accepts = requires(S&& s) {
  deltas(std::forward<S>(s), generation::gen9);
};

// deltas() over a named source compiles; over a temporary it does not.
static_assert(deltas_accepts<const raw_capture&>);
static_assert(deltas_accepts<raw_capture&>);
static_assert(!deltas_accepts<raw_capture>);
static_assert(!deltas_accepts<const raw_capture>);
static_assert(deltas_accepts<const i915_stream&>);
static_assert(!deltas_accepts<i915_stream>);
static_assert(deltas_accepts<const oa_ring&>);
static_assert(!deltas_accepts<oa_ring>);

static_assert(std::is_constructible_v<delta_range<raw_capture>, const raw_capture&, generation>);
static_assert(!std::is_constructible_v<delta_range<raw_capture>, raw_capture, generation>);

// Types that keep a pointer to a report format or a program.
static_assert(std::is_constructible_v<delta_tracker, const report_format&, generation>);
static_assert(!std::is_constructible_v<delta_tracker, report_format, generation>);
static_assert(std::is_constructible_v<expr::scalar_evaluator, const expr::program&>);
static_assert(!std::is_constructible_v<expr::scalar_evaluator, expr::program>);
static_assert(std::is_constructible_v<expr::batch_evaluator, const expr::program&>);
static_assert(!std::is_constructible_v<expr::batch_evaluator, expr::program>);

template <class F>
concept ring_make_accepts = requires(F&& f) {
  oa_ring::make(byte_span{}, std::forward<F>(f), oa_ring_registers{});
};
template <class F>
concept stream_make_accepts = requires(F&& f) {
  i915_stream::make(byte_span{}, std::forward<F>(f));
};
static_assert(ring_make_accepts<const report_format&>);
static_assert(!ring_make_accepts<report_format>);
static_assert(stream_make_accepts<const report_format&>);
static_assert(!stream_make_accepts<report_format>);

TEST(RobustnessApi, NamedSourcesStillWork) {
  const report_format& f = *find_format(platform::hsw, "A13");
  captest::bytes raw;
  for (std::uint32_t i = 1; i <= 3; ++i)
    captest::append(raw, captest::make_report(f, {i, 100 * i, 0, i}));
  auto buf = report_buffer::make(captest::span(raw), f);
  ASSERT_TRUE(buf);
  const raw_capture cap(*buf);
  std::size_t intervals = 0;
  for (const delta_item& d : deltas(cap, generation::gen7_5)) {
    if (d.kind == delta_step::interval) {
      ++intervals;
      EXPECT_EQ(d.interval->elapsed_ticks, 100u);
    }
  }
  EXPECT_EQ(intervals, 2u);
}

// The Xe OA stream keeps pointers to its format and bytes.
template <class F, class B>
concept xe_make_accepts = requires(F&& f, B&& b) {
  xe_stream::make(std::forward<B>(b), std::forward<F>(f));
};
static_assert(xe_make_accepts<const xe_format&, byte_span>);
static_assert(xe_make_accepts<const xe_format&, const std::vector<std::byte>&>);
static_assert(!xe_make_accepts<xe_format, byte_span>);
static_assert(!xe_make_accepts<const xe_format, byte_span>);
static_assert(!xe_make_accepts<const xe_format&, std::vector<std::byte>>);

// Both recorder families view the file's bytes (recording_reader.hpp).
template <class B>
concept recording_make_accepts = requires(B&& b) {
  recording::make(std::forward<B>(b));
};
template <class B>
concept xe_recording_make_accepts = requires(B&& b) {
  xe_recording::make(std::forward<B>(b));
};
static_assert(recording_make_accepts<byte_span>);
static_assert(recording_make_accepts<const std::vector<std::byte>&>);
static_assert(!recording_make_accepts<std::vector<std::byte>>);
static_assert(xe_recording_make_accepts<byte_span>);
static_assert(xe_recording_make_accepts<const std::vector<std::byte>&>);
static_assert(!xe_recording_make_accepts<std::vector<std::byte>>);

// Adreno: cursors view the bytes; packets point into them; a capture reader
// keeps the submit's buffers (spans into its input) between sections.
static_assert(std::is_constructible_v<adreno::packet_cursor, byte_span>);
static_assert(std::is_constructible_v<adreno::packet_cursor, const std::vector<std::byte>&>);
static_assert(!std::is_constructible_v<adreno::packet_cursor, std::vector<std::byte>>);
static_assert(std::is_constructible_v<adreno::rd::section_cursor, const std::vector<std::byte>&>);
static_assert(!std::is_constructible_v<adreno::rd::section_cursor, std::vector<std::byte>>);
template <class B>
concept read_packets_accepts = requires(B&& b) {
  adreno::read_packets(std::forward<B>(b));
};
static_assert(read_packets_accepts<const std::vector<std::byte>&>);
static_assert(read_packets_accepts<byte_span>);
static_assert(!read_packets_accepts<std::vector<std::byte>>);
template <class B>
concept rd_read_accepts = requires(adreno::rd::capture_reader& r, B&& b) {
  r.read(std::forward<B>(b));
};
static_assert(rd_read_accepts<const std::vector<std::byte>&>);
static_assert(rd_read_accepts<byte_span>);
static_assert(!rd_read_accepts<std::vector<std::byte>>);
// Sinks are taken by non-const reference: a temporary sink never binds.
static_assert(!std::is_constructible_v<adreno::rd::capture_reader, adreno::rd::capture_sink&&>);

// Mali rows: the builder's product must outlive it.
static_assert(std::is_constructible_v<mali::row_builder, const mali::gpu_product&,
                                      const mali::evaluator*, bool>);
static_assert(
    !std::is_constructible_v<mali::row_builder, mali::gpu_product, const mali::evaluator*, bool>);

TEST(RobustnessApi, NamedXeAdrenoAndMaliSourcesStillWork) {
  const xe_format& f = *find_xe_format(platform::lnl, "PEC64u64");
  const std::vector<std::byte> reports(2 * f.layout.size, std::byte{1});
  auto xs = xe_stream::make(reports, f, {{f.layout.size, xe_oa_status::report_lost}});
  ASSERT_TRUE(xs) << xs.error_value().describe();
  EXPECT_EQ(xs->events(), 3u);

  const auto stream = adreno_seed::bytes_of(adreno_seed::timestamp_begin);
  auto packets = adreno::read_packets(stream);
  ASSERT_TRUE(packets);
  adreno::packet_cursor c(stream);
  ASSERT_FALSE(c.done());
  EXPECT_EQ(c.next()->offset, 0u);

  adreno_rd::writer w;
  w.gpu_id(540);
  w.buffer(0x1000, adreno_seed::timestamp_begin);
  w.cmdstream(0x1000, static_cast<std::uint32_t>(adreno_seed::timestamp_begin.size()));
  struct counting_sink : adreno::rd::capture_sink {
    std::size_t packets = 0;
    void on_packet(const adreno::walked_packet&) override { ++packets; }
    void on_issue(const error&) override {}
  } sink;
  adreno::rd::capture_reader reader(sink);
  ASSERT_TRUE(reader.read(w.bytes));
  EXPECT_EQ(sink.packets, packets->size());

  const mali::gpu_product& g72 = *mali::find_product(0x6001);
  mali::row_builder b(g72, nullptr, false);
  EXPECT_EQ(b.schema().counters.size(), g72.table->counters.size());
}

}  // namespace
