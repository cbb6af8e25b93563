// Hand-built OA reports, i915 perf records and recordings for the capture tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/i915_stream.hpp"

namespace captest {

using bytes = std::vector<std::byte>;
namespace hi = hwpc::intel;

inline void put16(std::byte* p, std::uint16_t v) { hwpc::store_le16(p, v); }
inline void put32(std::byte* p, std::uint32_t v) { hwpc::store_le32(p, v); }
inline void put64(std::byte* p, std::uint64_t v) { hwpc::store_le64(p, v); }

// Writes a field value (32, 40 or 64 bits) into a report.
inline void put_field(std::byte* r, const hi::field& f, std::uint64_t v) {
  switch (f.bits) {
    case 64:
      put64(r + f.offset, v);
      break;
    case 40:
      put32(r + f.offset, static_cast<std::uint32_t>(v));
      r[f.high_byte_offset] = static_cast<std::byte>((v >> 32) & 0xff);
      break;
    default:
      put32(r + f.offset, static_cast<std::uint32_t>(v));
  }
}

struct report_spec {
  std::uint32_t rpt_id = 1;
  std::uint64_t timestamp = 0;
  std::uint32_t ctx_id = 0;
  std::uint64_t counter_base = 0;  // counter i holds counter_base + i
};

// One report: RPT_ID, TIME_STAMP, CTX_ID (where the format has one) and
// every counter set to base + its position in the format's field list.
inline bytes make_report(const hi::report_format& f, const report_spec& s) {
  bytes r(f.size);
  std::size_t i = 0;
  for (const auto& fd : f.fields) {
    switch (fd.kind) {
      case hi::field_kind::rpt_id:
        put32(r.data() + fd.offset, s.rpt_id);
        break;
      case hi::field_kind::timestamp:
        put_field(r.data(), fd, s.timestamp);
        break;
      case hi::field_kind::ctx_id:
        put32(r.data() + fd.offset, s.ctx_id);
        break;
      default:
        if (fd.is_counter()) put_field(r.data(), fd, s.counter_base + i);
    }
    ++i;
  }
  return r;
}

inline void append(bytes& out, const bytes& b) { out.insert(out.end(), b.begin(), b.end()); }

// One record: header {type, pad 0, size = 8 + payload} then the payload.
// `size_override` writes a different size into the header.
inline bytes record(std::uint32_t type, const bytes& payload, int size_override = -1) {
  bytes r(hi::record_header_size);
  put32(r.data(), type);
  put16(r.data() + 4, 0);
  put16(r.data() + 6,
        static_cast<std::uint16_t>(
            size_override >= 0 ? size_override : static_cast<int>(r.size() + payload.size())));
  append(r, payload);
  return r;
}

inline bytes sample(const hi::report_format& f, const report_spec& s) {
  return record(hi::record_type::sample, make_report(f, s));
}
inline bytes lost(std::uint32_t type) { return record(type, {}); }

inline bytes version_record(std::uint32_t v = 1) {
  bytes p(8);
  put32(p.data(), v);
  return record(hi::record_type::recording_version, p);
}

struct device_spec {
  std::uint64_t freq = 12'500'000;
  std::uint32_t device_id = 0x0412;  // HSW GT2
  std::uint32_t oa_format = 5;       // A45_B8_C8 on HSW
  std::string metric_set = "RenderBasic";
  std::string uuid = "403d8832-1a27-4aa6-a64e-f5389ce7b212";
};

inline bytes device_info_record(const device_spec& d) {
  bytes p(336);
  put64(p.data(), d.freq);
  put32(p.data() + 8, d.device_id);
  put32(p.data() + 12, 7);              // revision
  put32(p.data() + 16, 350'000'000);    // gt min
  put32(p.data() + 20, 1'200'000'000);  // gt max
  put32(p.data() + 24, 0);              // engine class: render
  put32(p.data() + 28, 0);              // engine instance
  put32(p.data() + 32, d.oa_format);
  std::memcpy(p.data() + 36, d.metric_set.data(), d.metric_set.size());
  std::memcpy(p.data() + 292, d.uuid.data(), d.uuid.size());
  return record(hi::record_type::device_info, p);
}

inline bytes correlation_record(std::uint64_t cpu_ns, std::uint64_t gpu_ts) {
  bytes p(16);
  put64(p.data(), cpu_ns);
  put64(p.data() + 8, gpu_ts);
  return record(hi::record_type::timestamp_correlation, p);
}

// A topology of 1 slice, 3 subslices (mask 0b101), 8 EUs each (all but EU 7
// of subslice 0).
inline bytes topology_record() {
  bytes p(16 + 1 + 1 + 3);
  put16(p.data() + 2, 1);   // max_slices
  put16(p.data() + 4, 3);   // max_subslices
  put16(p.data() + 6, 8);   // max_eus_per_subslice
  put16(p.data() + 8, 1);   // subslice_offset
  put16(p.data() + 10, 1);  // subslice_stride
  put16(p.data() + 12, 2);  // eu_offset
  put16(p.data() + 14, 1);  // eu_stride
  p[16] = std::byte{0x01};  // slice 0
  p[17] = std::byte{0x05};  // subslices 0 and 2
  p[18] = std::byte{0x7f};
  p[19] = std::byte{0x00};
  p[20] = std::byte{0xff};
  while (p.size() % 8 != 0) p.push_back(std::byte{0});
  return record(hi::record_type::device_topology, p);
}

inline hwpc::byte_span span(const bytes& b) { return {b.data(), b.size()}; }

}  // namespace captest
