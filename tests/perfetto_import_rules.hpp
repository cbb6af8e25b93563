// trace_processor's import rules for GPU counters, applied to a written
// trace by a checker written apart from the writer (it reads the wire format
// with perfetto_test_util.hpp's reader and knows the field numbers on its
// own). The rules are those of ../shared/docs/FACTS-perfetto-gpu.md
// sections 2.1-2.6: every packet has a timestamp and a sequence; a clock id
// is a builtin one or a sequence clock (64..127) that a ClockSnapshot on the
// same sequence, read earlier, relates to a builtin clock (both clocks in
// every snapshot, the sequence clock increasing); converted timestamps are
// positive (the sorter drops negative ones); the first packet of a sequence
// clears its incremental state and packets that use interned data need it;
// an interned descriptor comes before the samples that name it; every spec
// has an id and a name, ids and names are unique; every sample's counter
// id has a spec; GPU ids differ between the sequences of a fleet.
//
// It then imports the samples as trace_processor does (2.3: a sample sets
// the value of its track's previous row and adds a 0 row at its own time,
// for backwards-looking specs), giving per track (GPU, name) the rows
// (converted ts, value) that trace_processor's `counter` table would hold,
// and the unit string of `FormatCounterUnit` (2.2).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "perfetto_test_util.hpp"

namespace hwpc::testing::import {

struct counter_row {
  std::uint64_t raw_ts = 0;  // the packet's timestamp, on its own clock
  std::int64_t ts = 0;       // on the trace clock, as trace_processor converts it
  double value = 0;
};

struct track {
  std::int32_t gpu = 0;
  std::string name;
  std::optional<std::string> unit;  // nullopt: NULL
  std::string description;
  std::vector<std::string> groups;  // names of the custom groups naming it
  std::vector<counter_row> rows;
};

struct result {
  std::vector<std::string> errors;  // broken rules; empty when the trace passes
  std::map<std::pair<std::int32_t, std::string>, track> tracks;
  std::map<std::int32_t, std::string> gpu_names;  // GpuInfo, by index
  std::set<std::uint32_t> sequences;
  bool has_snapshot = false;

  const track* find(std::int32_t gpu, const std::string& name) const {
    auto it = tracks.find({gpu, name});
    return it == tracks.end() ? nullptr : &it->second;
  }
};

// FormatCounterUnit's abbreviations, by MeasureUnit number.
inline std::string unit_abbreviation(std::uint64_t u) {
  static const std::map<std::uint64_t, std::string> names = {
      {1, "bit"},    {2, "Kb"},        {3, "Mb"},         {4, "Gb"},        {5, "Tb"},
      {6, "Pb"},     {7, "B"},         {8, "KB"},         {9, "MB"},        {10, "GB"},
      {11, "TB"},    {12, "PB"},       {13, "Hz"},        {14, "KHz"},      {15, "MHz"},
      {16, "GHz"},   {17, "THz"},      {18, "PHz"},       {19, "ns"},       {20, "us"},
      {21, "ms"},    {22, "s"},        {23, "min"},       {24, "h"},        {25, "Vertex"},
      {26, "Pixel"}, {27, "Triangle"}, {38, "Primitive"}, {39, "Fragment"}, {28, "mW"},
      {29, "W"},     {30, "kW"},       {31, "J"},         {32, "V"},        {33, "A"},
      {34, "C"},     {35, "F"},        {36, "K"},         {37, "%"},        {40, "Instruction"}};
  if (u == 0) return "";
  auto it = names.find(u);
  return it == names.end() ? "Unknown" : it->second;
}

inline std::optional<std::string> unit_string(const std::vector<std::uint64_t>& num,
                                              const std::vector<std::uint64_t>& den) {
  if (num.empty() && den.empty()) return std::nullopt;
  std::string s;
  for (std::size_t i = 0; i < num.size(); ++i) {
    if (i != 0) s += ":";
    s += unit_abbreviation(num[i]);
  }
  bool first = true;
  for (std::uint64_t d : den) {
    if (d == 0) continue;
    s += first ? "/" : ":";
    first = false;
    s += unit_abbreviation(d);
  }
  return s;
}

namespace detail {

using pb::field;
using pb::fields;

inline std::vector<const field*> all(const std::vector<field>& fs, std::uint32_t n) {
  std::vector<const field*> out;
  for (const field& f : fs) {
    if (f.number == n) out.push_back(&f);
  }
  return out;
}
inline const field* one(const std::vector<field>& fs, std::uint32_t n) {
  const field* found = nullptr;
  for (const field& f : fs) {
    if (f.number == n) found = &f;  // protobuf: the last one wins
  }
  return found;
}

struct spec {
  std::string name;
  std::optional<std::string> unit;
  std::string description;
  std::uint64_t direction = 0;
  std::vector<std::string> groups;
};
struct snapshot {
  std::uint64_t builtin_ts = 0;
  std::uint64_t seq_clock_ts = 0;
};
struct sequence_state {
  bool seen = false;
  bool cleared = false;
  std::map<std::uint64_t, std::pair<std::int32_t, std::map<std::uint64_t, spec>>> descriptors;
  std::map<std::uint32_t, std::vector<snapshot>> clocks;  // sequence clock -> snapshots
};
struct sample {
  std::uint64_t raw_ts;
  std::int64_t ts;
  std::int32_t gpu;
  std::string name;
  double value;
  std::uint64_t direction;
  std::size_t order;
};

}  // namespace detail

inline result check(const std::string& bytes) {
  using namespace detail;
  result r;
  auto err = [&](std::size_t packet, const std::string& what) {
    r.errors.push_back("packet " + std::to_string(packet) + ": " + what);
  };
  std::map<std::uint32_t, sequence_state> seqs;
  std::map<std::int32_t, std::uint32_t> gpu_sequence;  // gpu id -> the sequence describing it
  std::vector<sample> samples;
  std::size_t k = 0;
  for (const field& top : fields(bytes)) {
    ++k;
    if (top.number != 1 || top.wire != 2) {
      err(k, "not a Trace.packet");
      continue;
    }
    const auto p = fields(top.bytes);
    const field* ts = one(p, 8);
    const field* seq_f = one(p, 10);
    const field* flags_f = one(p, 13);
    const field* clock_f = one(p, 58);
    if (ts == nullptr) err(k, "no timestamp");
    if (seq_f == nullptr || seq_f->v == 0) {
      err(k, "no trusted_packet_sequence_id");
      continue;
    }
    const auto seq = static_cast<std::uint32_t>(seq_f->v);
    r.sequences.insert(seq);
    sequence_state& st = seqs[seq];
    const std::uint64_t flags = flags_f != nullptr ? flags_f->v : 0;
    if (!st.seen && (flags & 1) == 0) err(k, "first packet of a sequence does not clear its state");
    st.seen = true;
    if ((flags & 1) != 0) {
      st.cleared = true;
      st.descriptors.clear();
    }
    // Timestamp conversion.
    std::int64_t converted = 0;
    const std::uint32_t clock = clock_f != nullptr ? static_cast<std::uint32_t>(clock_f->v) : 0;
    if (ts != nullptr) {
      if (clock == 0 || clock < 64) {
        converted = static_cast<std::int64_t>(ts->v);
        if (clock > 63) err(k, "unknown clock");
      } else if (clock <= 127) {
        const auto it = st.clocks.find(clock);
        if (it == st.clocks.end() || it->second.empty()) {
          err(k, "clock " + std::to_string(clock) + " has no snapshot before it on its sequence");
        } else {
          const auto& snaps = it->second;
          const snapshot* use = &snaps.front();
          for (const snapshot& s : snaps) {
            if (s.seq_clock_ts <= ts->v) use = &s;
          }
          converted =
              static_cast<std::int64_t>(use->builtin_ts) +
              (static_cast<std::int64_t>(ts->v) - static_cast<std::int64_t>(use->seq_clock_ts));
        }
      } else {
        err(k, "global clock ids are not used by hwpc");
      }
      if (converted <= 0) err(k, "timestamp " + std::to_string(converted) + " is not positive");
    }
    if (const field* cs = one(p, 6)) {
      r.has_snapshot = true;
      const auto c = fields(cs->bytes);
      std::optional<std::uint64_t> builtin, seq_clock;
      std::uint32_t seq_clock_id = 0;
      for (const field* cl : all(c, 1)) {
        const auto cf = fields(cl->bytes);
        const field* id = one(cf, 1);
        const field* t = one(cf, 2);
        if (id == nullptr || t == nullptr) {
          err(k, "snapshot clock without id or timestamp");
          continue;
        }
        if (id->v >= 1 && id->v <= 63) builtin = t->v;
        if (id->v >= 64 && id->v <= 127) {
          seq_clock = t->v;
          seq_clock_id = static_cast<std::uint32_t>(id->v);
        }
      }
      if (!builtin || !seq_clock) {
        err(k, "snapshot without both a builtin and a sequence clock");
      } else {
        auto& v = st.clocks[seq_clock_id];
        if (!v.empty() && (*seq_clock <= v.back().seq_clock_ts || *builtin < v.back().builtin_ts)) {
          err(k, "snapshot runs backwards");
        }
        v.push_back({*builtin, *seq_clock});
      }
    }
    if (const field* gi = one(p, 128)) {
      std::int32_t i = 0;
      // Each vector of fields is named: the pointers one() and all() return
      // point into it, so it must outlive them.
      const auto gis = fields(gi->bytes);
      for (const field* g : all(gis, 1)) {
        const auto gf = fields(g->bytes);
        if (const field* n = one(gf, 1)) r.gpu_names[i] = std::string(n->bytes);
        ++i;
      }
    }
    if (const field* in = one(p, 12)) {
      if (!st.cleared) err(k, "interned data before the state was cleared");
      const auto ins = fields(in->bytes);
      for (const field* d : all(ins, 47)) {
        const auto df = fields(d->bytes);
        const field* iid = one(df, 1);
        const field* desc = one(df, 2);
        const field* gid = one(df, 3);
        if (iid == nullptr || desc == nullptr) {
          err(k, "interned descriptor without iid or descriptor");
          continue;
        }
        const auto gpu = static_cast<std::int32_t>(gid != nullptr ? gid->v : 0);
        auto [g, fresh] = gpu_sequence.try_emplace(gpu, seq);
        if (!fresh && g->second != seq) {
          err(k, "GPU id " + std::to_string(gpu) + " is described on two sequences");
        }
        std::map<std::uint64_t, spec> specs;
        std::set<std::string> names;
        const auto dd = fields(desc->bytes);
        for (const field* sf : all(dd, 1)) {
          const auto s = fields(sf->bytes);
          const field* id = one(s, 1);
          const field* name = one(s, 2);
          if (id == nullptr || name == nullptr) {
            err(k, "spec without counter_id or name");
            continue;
          }
          spec sp;
          sp.name = std::string(name->bytes);
          if (const field* de = one(s, 3)) sp.description = std::string(de->bytes);
          std::vector<std::uint64_t> num, den;
          for (const field* u : all(s, 7)) num.push_back(u->v);
          for (const field* u : all(s, 8)) den.push_back(u->v);
          sp.unit = unit_string(num, den);
          if (const field* vd = one(s, 11)) sp.direction = vd->v;
          if (!specs.emplace(id->v, sp).second) err(k, "counter id given twice");
          if (!names.insert(sp.name).second) err(k, "two specs named " + sp.name);
        }
        for (const field* gf : all(dd, 6)) {
          const auto g = fields(gf->bytes);
          const field* name = one(g, 2);
          const field* gid2 = one(g, 1);
          if (gid2 != nullptr && gid2->v <= 7) err(k, "custom group with a fixed group's id");
          for (const field* id : all(g, 4)) {
            auto it = specs.find(id->v);
            if (it == specs.end()) {
              err(k, "group names an unknown counter id");
            } else if (name != nullptr) {
              it->second.groups.emplace_back(name->bytes);
            }
          }
        }
        for (const auto& [id, sp] : specs) {
          track& t = r.tracks[{gpu, sp.name}];
          if (!t.name.empty())
            err(k, "track " + sp.name + " of GPU " + std::to_string(gpu) + " described twice");
          t.gpu = gpu;
          t.name = sp.name;
          t.unit = sp.unit;
          t.description = sp.description;
          t.groups = sp.groups;
        }
        st.descriptors[iid->v] = {gpu, std::move(specs)};
      }
    }
    if (const field* ev = one(p, 52)) {
      const auto e = fields(ev->bytes);
      if (one(e, 1) != nullptr) err(k, "inline (mode 1) descriptor: hwpc interns descriptors");
      const auto counters = all(e, 2);
      const field* iid = one(e, 4);
      if (!counters.empty()) {
        if (iid == nullptr) {
          err(k, "samples without a descriptor iid");
          continue;
        }
        if ((flags & 2) == 0 && (flags & 1) == 0)
          err(k, "interned reference without SEQ_NEEDS_INCREMENTAL_STATE");
        const auto d = st.descriptors.find(iid->v);
        if (d == st.descriptors.end()) {
          err(k, "samples before their descriptor (iid " + std::to_string(iid->v) + ")");
          continue;
        }
        for (const field* c : counters) {
          const auto cf = fields(c->bytes);
          const field* id = one(cf, 1);
          const field* iv = one(cf, 2);
          const field* dv = one(cf, 3);
          if (id == nullptr || (iv == nullptr && dv == nullptr)) {
            err(k, "counter without id or value");
            continue;
          }
          const auto sp = d->second.second.find(id->v);
          if (sp == d->second.second.end()) {
            err(k, "counter id " + std::to_string(id->v) + " has no spec");
            continue;
          }
          const double v = dv != nullptr ? std::bit_cast<double>(dv->v)
                                         : static_cast<double>(static_cast<std::int64_t>(iv->v));
          samples.push_back({ts != nullptr ? ts->v : 0, converted, d->second.first, sp->second.name,
                             v, sp->second.direction, samples.size()});
        }
      }
    }
  }
  // Import: sorted by time (stable: file order at equal times), per track.
  std::stable_sort(samples.begin(), samples.end(),
                   [](const sample& a, const sample& b) { return a.ts < b.ts; });
  for (const sample& s : samples) {
    auto& rows = r.tracks[{s.gpu, s.name}].rows;
    if (s.direction == 2) {
      rows.push_back({s.raw_ts, s.ts, s.value});
      continue;
    }
    if (!rows.empty()) rows.back().value = s.value;
    rows.push_back({s.raw_ts, s.ts, 0.0});
  }
  return r;
}

}  // namespace hwpc::testing::import
