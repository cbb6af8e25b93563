// The Perfetto trace writer: the protobuf encoder against hand-computed
// bytes, the field-number table against Perfetto's schema, and the tracks,
// units and values of a small trace read back field by field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hwpc/output/perfetto/fields.hpp"
#include "hwpc/output/perfetto/fields_gpu.hpp"
#include "hwpc/output/perfetto/proto_writer.hpp"
#include "hwpc/output/perfetto/trace_writer.hpp"
#include "perfetto_test_util.hpp"

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

namespace {

using namespace hwpc;
using hwpc::output::proto::writer;

std::string hex(const std::string& s) {
  static constexpr char d[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += d[u >> 4];
    out += d[u & 15];
  }
  return out;
}

TEST(ProtoWriter, VarintsKeysAndZigzag) {
  writer w;
  w.varint(1, 150);  // the encoding guide's example: 08 96 01
  EXPECT_EQ(hex(w.data()), "08 96 01");
  w.clear();
  w.varint(1, 0);
  w.varint(15, 127);  // key 0x78; 127 fits one byte
  w.varint(16, 128);  // key (16 << 3) = 128: two bytes 80 01; value 80 01
  EXPECT_EQ(hex(w.data()), "08 00 78 7f 80 01 80 01");
  w.clear();
  w.int64(2, -1);  // two's complement: ten bytes
  EXPECT_EQ(hex(w.data()), "10 ff ff ff ff ff ff ff ff ff 01");
  w.clear();
  w.varint(60, std::numeric_limits<std::uint64_t>::max());  // key 480 = e0 03
  EXPECT_EQ(hex(w.data()), "e0 03 ff ff ff ff ff ff ff ff ff 01");
  w.clear();
  w.sint64(3, -1);
  w.sint64(3, 1);
  w.sint64(3, -2);
  EXPECT_EQ(hex(w.data()), "18 01 18 02 18 03");
  EXPECT_EQ(output::proto::zigzag(0), 0u);
  EXPECT_EQ(output::proto::zigzag(std::numeric_limits<std::int64_t>::max()),
            std::numeric_limits<std::uint64_t>::max() - 1);
  EXPECT_EQ(output::proto::zigzag(std::numeric_limits<std::int64_t>::min()),
            std::numeric_limits<std::uint64_t>::max());
}

TEST(ProtoWriter, Fixed64DoublesAndStrings) {
  writer w;
  w.fixed64(4, 0x0102030405060708ull);  // key (4 << 3) | 1 = 0x21, little-endian payload
  EXPECT_EQ(hex(w.data()), "21 08 07 06 05 04 03 02 01");
  w.clear();
  w.double_(44, 1.0);  // key (44 << 3) | 1 = 353 = e1 02; 1.0 = 0x3ff0000000000000
  EXPECT_EQ(hex(w.data()), "e1 02 00 00 00 00 00 00 f0 3f");
  w.clear();
  w.string(2, "testing");  // the guide's example: 12 07 74 65 73 74 69 6e 67
  EXPECT_EQ(hex(w.data()), "12 07 74 65 73 74 69 6e 67");
  w.clear();
  w.string(23, std::string("a\0b", 3));  // bytes pass through; key (23 << 3) | 2 = 0xba 01
  EXPECT_EQ(hex(w.data()), "ba 01 03 61 00 62");
}

TEST(ProtoWriter, NestedLengthsAreBackfilledAsFourByteVarints) {
  writer w;
  auto n = w.begin(3);  // key 1a, then 3 as 83 80 80 00
  w.varint(1, 150);
  w.end(n);
  EXPECT_EQ(hex(w.data()), "1a 83 80 80 00 08 96 01");
  w.clear();
  auto empty = w.begin(1);
  w.end(empty);
  EXPECT_EQ(hex(w.data()), "0a 80 80 80 00");
  w.clear();
  // Two levels; the inner one is 200 bytes of string: c8 81 80 00.
  auto outer = w.begin(1);
  auto inner = w.begin(2);
  w.bytes(7, std::string(197, 'x'));  // 1 key + 2 length bytes (c5 01) + 197 = 200
  w.end(inner);
  w.end(outer);
  const std::string& d = w.data();
  ASSERT_EQ(d.size(), 1u + 4 + 1 + 4 + 200);
  EXPECT_EQ(hex(d.substr(0, 13)), "0a cd 81 80 00 12 c8 81 80 00 3a c5 01");
  // The reader agrees.
  auto top = hwpc::testing::pb::fields(d);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].bytes.size(), 205u);
  auto mid = hwpc::testing::pb::fields(top[0].bytes);
  ASSERT_EQ(mid.size(), 1u);
  EXPECT_EQ(mid[0].bytes.size(), 200u);
}

// Every field number hwpc writes, checked against Perfetto's schema as text.
TEST(PerfettoFields, TableMatchesPerfettoTraceProto) {
  const std::filesystem::path proto =
      std::filesystem::path(HWPC_SHARED_DIR) / "data/perfetto/perfetto_trace.proto";
  if (!std::filesystem::exists(proto)) {
    GTEST_SKIP() << proto << " is absent (../shared not mounted)";
  }
  std::ifstream f(proto);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  std::vector<output::perfetto::field_entry> entries(output::perfetto::table.begin(),
                                                     output::perfetto::table.end());
  entries.insert(entries.end(), output::perfetto::gpu_table.begin(),
                 output::perfetto::gpu_table.end());
  for (const auto& e : entries) {
    // Each step of the scope opens a body inside the one before: a top-level
    // message at the start of a line, a nested one at any indent.
    std::string b = text;
    std::string_view rest = e.scope;
    for (bool top = true; !rest.empty(); top = false) {
      const std::size_t slash = rest.find('/');
      const std::string open = std::string(rest.substr(0, slash)) + " {";
      rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
      std::size_t at = std::string::npos;
      for (std::size_t p = b.find(open); p != std::string::npos; p = b.find(open, p + 1)) {
        if (p == 0 || b[p - 1] == '\n' || (!top && b[p - 1] == ' ')) {
          at = p;
          break;
        }
      }
      ASSERT_NE(at, std::string::npos) << e.scope;
      std::size_t i = at + open.size();
      const std::size_t body = i;
      for (int depth = 1; i < b.size() && depth > 0; ++i) {
        if (b[i] == '{') ++depth;
        if (b[i] == '}') --depth;
      }
      b = b.substr(body, i - body);
    }
    // A declaration "<type> name = N;" or an enum value "NAME = N;".
    const std::string needle = " " + std::string(e.name) + " = " + std::to_string(e.number) + ";";
    EXPECT_NE(b.find(needle), std::string::npos)
        << e.scope << " has no '" << needle.substr(1) << "'";
  }
}

// A trace read back: descriptors by uuid, events in order.
struct track {
  std::uint64_t parent = 0;
  std::string name;
  bool counter = false;
  std::uint64_t unit = 0;
  std::int64_t multiplier = 1;
  std::string unit_name;
};
struct event {
  std::uint64_t ts = 0;
  std::uint64_t type = 0;
  std::uint64_t track = 0;
  std::string name;
  bool is_double = false;
  std::int64_t i = 0;
  double d = 0;
};
struct trace {
  std::map<std::uint64_t, track> tracks;
  std::vector<std::uint64_t> order;  // descriptor uuids in order
  std::vector<event> events;
};

trace read_trace(const std::string& bytes) {
  namespace pf = output::perfetto;
  using hwpc::testing::pb::fields;
  using hwpc::testing::pb::find;
  trace t;
  bool first = true;
  for (const auto& p : fields(bytes)) {
    EXPECT_EQ(p.number, pf::trace::packet);
    const auto pk = fields(p.bytes);
    const auto* seq = find(pk, pf::trace_packet::trusted_packet_sequence_id);
    EXPECT_TRUE(seq != nullptr && seq->v == 1);
    const auto* flags = find(pk, pf::trace_packet::sequence_flags);
    EXPECT_EQ(flags != nullptr, first);
    first = false;
    if (const auto* d = find(pk, pf::trace_packet::track_descriptor)) {
      const auto td = fields(d->bytes);
      track k;
      const std::uint64_t uuid = find(td, pf::track_descriptor::uuid)->v;
      if (const auto* pu = find(td, pf::track_descriptor::parent_uuid)) k.parent = pu->v;
      k.name = std::string(find(td, pf::track_descriptor::name)->bytes);
      if (const auto* c = find(td, pf::track_descriptor::counter)) {
        k.counter = true;
        const auto cd = fields(c->bytes);
        if (const auto* u = find(cd, pf::counter_descriptor::unit)) k.unit = u->v;
        if (const auto* m = find(cd, pf::counter_descriptor::unit_multiplier)) {
          k.multiplier = static_cast<std::int64_t>(m->v);
        }
        if (const auto* n = find(cd, pf::counter_descriptor::unit_name)) {
          k.unit_name = std::string(n->bytes);
        }
      }
      EXPECT_EQ(t.tracks.count(uuid), 0u) << "uuid twice: " << uuid;
      t.tracks[uuid] = k;
      t.order.push_back(uuid);
    } else if (const auto* e = find(pk, pf::trace_packet::track_event)) {
      const auto te = fields(e->bytes);
      event ev;
      ev.ts = find(pk, pf::trace_packet::timestamp)->v;
      ev.type = find(te, pf::track_event::type)->v;
      ev.track = find(te, pf::track_event::track_uuid)->v;
      if (const auto* n = find(te, pf::track_event::name)) ev.name = std::string(n->bytes);
      if (const auto* v = find(te, pf::track_event::counter_value)) {
        ev.i = static_cast<std::int64_t>(v->v);
      }
      if (const auto* v = find(te, pf::track_event::double_counter_value)) {
        ev.is_double = true;
        ev.d = std::bit_cast<double>(v->v);
      }
      t.events.push_back(ev);
    } else {
      ADD_FAILURE() << "a packet with neither a descriptor nor an event";
    }
  }
  return t;
}

TEST(PerfettoTraceWriter, TracksUnitsValuesAndLosses) {
  namespace pf = output::perfetto;
  row_schema s;
  s.source = "test";
  s.counters = {{"GPU_TICKS", "cycles", column_kind::counter},
                {"A0", "events", column_kind::counter}};
  s.metrics = {{"GpuTime", "ns", column_kind::metric},
               {"GpuBusy", "percent", column_kind::metric},
               {"Bytes", "bytes", column_kind::metric},
               {"PsDuration", "us", column_kind::metric}};
  s.ticks_per_second = 1'000'000;  // 1 us per tick
  s.has_losses = true;
  output::text_buffer out;
  {
    pf::trace_writer w(out, s, "cap \"1\"", "RenderBasic");
    const std::uint64_t c1[] = {10, 5};
    const cell m1[] = {cell::u(10'000), cell::f(12.5), cell::none(), cell::f(2.0)};
    row r{};
    r.report = 1;
    r.begin = 100;
    r.end = 110;
    r.counters = c1;
    r.metrics = m1;
    w.write(r);
    row lost{};
    lost.lost = true;
    lost.reason = "report-lost";
    w.write(lost);
    const std::uint64_t c2[] = {std::numeric_limits<std::uint64_t>::max(), 0};
    const cell m2[] = {cell::f(std::nan("")), cell::f(100.0), cell::u(64), cell::f(0.5)};
    r.begin = 200;
    r.end = 220;
    r.counters = c2;
    r.metrics = m2;
    w.write(r);
    lost.reason = "buffer-lost";
    w.write(lost);
    w.end(accounting{});
  }
  const trace t = read_trace(out.str());
  // Root, raw group with its 2 counters, metric group with its 4, losses.
  ASSERT_EQ(t.order.size(), 10u);
  EXPECT_EQ(t.tracks.at(pf::root_uuid).name, "cap \"1\"");
  EXPECT_EQ(t.tracks.at(pf::root_uuid).parent, 0u);
  EXPECT_EQ(t.tracks.at(pf::raw_group_uuid).name, "raw counters");
  EXPECT_EQ(t.tracks.at(pf::raw_group_uuid).parent, pf::root_uuid);
  EXPECT_EQ(t.tracks.at(pf::metric_group_uuid).name, "RenderBasic");
  EXPECT_EQ(t.tracks.at(pf::losses_uuid).name, "losses");
  EXPECT_FALSE(t.tracks.at(pf::losses_uuid).counter);
  const auto& ticks = t.tracks.at(pf::first_counter_uuid);
  EXPECT_EQ(ticks.name, "GPU_TICKS");
  EXPECT_EQ(ticks.parent, pf::raw_group_uuid);
  EXPECT_TRUE(ticks.counter);
  EXPECT_EQ(ticks.unit, 0u);
  EXPECT_EQ(ticks.unit_name, "cycles");
  EXPECT_EQ(t.tracks.at(pf::first_counter_uuid + 1).unit, pf::counter_descriptor::unit_count);
  const auto& gpu_time = t.tracks.at(pf::first_counter_uuid + 2);
  EXPECT_EQ(gpu_time.parent, pf::metric_group_uuid);
  EXPECT_EQ(gpu_time.unit, pf::counter_descriptor::unit_time_ns);
  EXPECT_EQ(t.tracks.at(pf::first_counter_uuid + 3).unit_name, "percent");
  EXPECT_EQ(t.tracks.at(pf::first_counter_uuid + 4).unit, pf::counter_descriptor::unit_size_bytes);
  EXPECT_EQ(t.tracks.at(pf::first_counter_uuid + 5).unit, pf::counter_descriptor::unit_time_ns);
  EXPECT_EQ(t.tracks.at(pf::first_counter_uuid + 5).multiplier, 1000);

  // Row 1 at its end (110 us): 2 counters and 3 metrics (Bytes has none).
  // The loss where reports resume, row 2's begin (200 us); row 2 at 220 us:
  // 2 counters, 3 metrics (NaN dropped).
  ASSERT_EQ(t.events.size(), 5u + 1 + 5 + 1);
  const auto ct = pf::track_event::type_counter;
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(t.events[k].ts, 110'000u);
    EXPECT_EQ(t.events[k].type, ct);
  }
  EXPECT_EQ(t.events[0].i, 10);
  EXPECT_EQ(t.events[1].i, 5);
  EXPECT_EQ(t.events[2].track, pf::first_counter_uuid + 2);
  EXPECT_EQ(t.events[2].i, 10'000);
  EXPECT_FALSE(t.events[2].is_double);
  EXPECT_TRUE(t.events[3].is_double);
  EXPECT_EQ(t.events[3].d, 12.5);
  EXPECT_EQ(t.events[4].track, pf::first_counter_uuid + 5);
  EXPECT_EQ(t.events[4].d, 2.0);
  EXPECT_EQ(t.events[5].type, pf::track_event::type_instant);
  EXPECT_EQ(t.events[5].track, pf::losses_uuid);
  EXPECT_EQ(t.events[5].name, "report-lost");
  EXPECT_EQ(t.events[5].ts, 200'000u);
  EXPECT_EQ(t.events[6].ts, 220'000u);
  // Above INT64_MAX: a double.
  EXPECT_TRUE(t.events[6].is_double);
  EXPECT_EQ(t.events[6].d, 18446744073709551616.0);
  EXPECT_EQ(t.events[7].i, 0);
  EXPECT_EQ(t.events[8].track, pf::first_counter_uuid + 3);
  EXPECT_EQ(t.events[8].d, 100.0);
  EXPECT_EQ(t.events[9].track, pf::first_counter_uuid + 4);
  EXPECT_EQ(t.events[9].i, 64);
  EXPECT_EQ(t.events[10].d, 0.5);
  // A loss after the last interval: at its end.
  EXPECT_EQ(t.events[11].type, pf::track_event::type_instant);
  EXPECT_EQ(t.events[11].name, "buffer-lost");
  EXPECT_EQ(t.events[11].ts, 220'000u);
}

TEST(PerfettoTraceWriter, NoMetricsNoLossesNoGroups) {
  namespace pf = output::perfetto;
  row_schema s;
  s.counters = {{"C0", "", column_kind::counter}};
  s.ticks_per_second = 12'000'000;
  output::text_buffer out;
  pf::trace_writer w(out, s, "t", "", [](std::uint64_t t) { return std::int64_t(t) - 50; });
  const std::uint64_t c[] = {7};
  row r{};
  r.end = 20;  // before zero on the mapped clock: written as 0
  r.counters = c;
  w.write(r);
  r.end = 80;
  w.write(r);
  w.end(accounting{});
  const trace t = read_trace(out.str());
  ASSERT_EQ(t.order.size(), 3u);  // root, raw counters, C0
  const auto& c0 = t.tracks.at(pf::first_counter_uuid);
  EXPECT_EQ(c0.unit, 0u);
  EXPECT_EQ(c0.unit_name, "");
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].ts, 0u);
  EXPECT_EQ(t.events[1].ts, 30u);
  EXPECT_EQ(t.events[1].i, 7);
}

}  // namespace
