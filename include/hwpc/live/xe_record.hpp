// Records an Xe OA stream into the file IGT's xe-perf recorder writes
// (FACTS-xe section 7): VERSION (4), DEVICE_INFO (5: the OA unit's timestamp
// frequency, the PCI id, the GT frequency range, the OA unit's first engine,
// IGT's 1-based format number, the set's name and uuid), DEVICE_TOPOLOGY (6,
// xe_topology.hpp), a TIMESTAMP_CORRELATION (7) from ENGINE_CYCLES, then
// every report read() returned as a SAMPLE record and every failed read
// (EIO, then the STATUS ioctl) as OA_REPORT_LOST when the status has
// REPORT_LOST, else OA_BUFFER_LOST when it has BUFFER_OVERFLOW (as IGT's
// recorder decides), a correlation point every `correlation_period_ns` and
// one at the end. The header records go through emu/recording_records.hpp,
// the writer the emulator's recordings use; the options are
// i915_record.hpp's, the period-to-exponent rule, the upload-and-remove of a
// missing set and the read loop record_common.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/emu/recording_records.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/intel/xe_stream.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/record_common.hpp"
#include "hwpc/live/xe_device.hpp"
#include "hwpc/live/xe_stream.hpp"

namespace hwpc::live {

struct xe_record_counts {
  std::size_t samples = 0;
  std::size_t report_lost = 0;  // OA_REPORT_LOST records written
  std::size_t buffer_lost = 0;  // OA_BUFFER_LOST records written
  std::size_t failed_reads = 0;
  std::uint64_t status_bits = 0;  // every status bit the failed reads had
  bool uploaded = false;          // the set was added for this recording (and removed)
};

// The format a recorder asks for when none is named: the one IGT's metric
// sets use on the generation.
inline const intel::xe_format* default_xe_record_format(intel::platform p) {
  for (const char* name : {"PEC64u64", "A24u40_A14u32_B8_C8", "A32u40_A4u32_B8_C8"}) {
    if (const auto* f = intel::find_xe_format(p, std::string_view(name)); f != nullptr) return f;
  }
  return nullptr;
}

namespace detail {

// Turns the stream's bytes and failed reads into records, as they come.
struct xe_record_writer {
  std::size_t report_size = 0;
  std::size_t done = 0;  // stream bytes already written as records
  std::size_t next_loss = 0;
  xe_record_counts counts;

  void put_losses_at(std::vector<std::byte>& out,
                     const std::vector<intel::xe_stream_loss>& losses) {
    while (next_loss < losses.size() && losses[next_loss].offset == done) {
      const std::uint64_t st = losses[next_loss++].oa_status;
      ++counts.failed_reads;
      counts.status_bits |= st;
      if ((st & xe::status::report_lost) != 0) {
        emu::records::put_header(out, intel::record_type::oa_report_lost,
                                 emu::records::header_size);
        ++counts.report_lost;
      } else if ((st & xe::status::buffer_overflow) != 0) {
        emu::records::put_header(out, intel::record_type::oa_buffer_lost,
                                 emu::records::header_size);
        ++counts.buffer_lost;
      }
    }
  }
  // `data` holds the stream's bytes from offset `base` on.
  void put(std::vector<std::byte>& out, std::span<const std::byte> data, std::size_t base,
           const std::vector<intel::xe_stream_loss>& losses) {
    const std::size_t end = base + data.size();
    for (;;) {
      put_losses_at(out, losses);
      if (done + report_size > end) break;
      emu::records::put_header(out, intel::record_type::sample,
                               emu::records::header_size + report_size);
      const auto r = data.subspan(done - base, report_size);
      out.insert(out.end(), r.begin(), r.end());
      done += report_size;
      ++counts.samples;
    }
  }
};

}  // namespace detail

template <class Write, class Stop>
result<xe_record_counts> record_xe(syscalls& sys, const i915_record_options& o, Write&& write,
                                   Stop&& stop) {
  auto dev = xe_device::open(sys, o.device);
  if (!dev) return dev.error_value();
  const auto& info = dev->info();
  if (!info.platform) return unknown_platform_error(info.device_id);
  const intel::platform p = *info.platform;
  const intel::xe_format* format = o.format.empty()
                                       ? default_xe_record_format(p)
                                       : intel::find_xe_format(p, std::string_view(o.format));
  if (format == nullptr || format->igt_id <= 0) return no_format_error(o.format, "Xe OA", p);
  if (!format->verified) {
    return live_error("--format " + std::string(format->name) +
                      ": its report layout is only inferred (FACTS-xe section 3), so `hwpc "
                      "decode` would not read the recording; choose a verified format");
  }
  if (o.ctx) {
    return live_error(
        "--ctx: the Xe driver filters a stream by exec queue (EXEC_QUEUE_ID), not by a GEM "
        "context; hwpc record records the whole OA unit on Xe");
  }
  xe_stream_options so;
  so.format = format;
  so.oa_unit = info.oa_unit;
  so.exponent = record_exponent(o, info.oa_timestamp_hz);
  added_config<xe_device> added(*dev);
  auto set = record_set_id(*dev, o, added, [&](const set_upload& up) {
    // Xe takes one register list: the mux (NOA) registers, then the
    // boolean (OA) and flex ones, the order the i915 lists come in.
    std::vector<std::uint32_t> regs = up.mux;
    regs.insert(regs.end(), up.boolean.begin(), up.boolean.end());
    regs.insert(regs.end(), up.flex.begin(), up.flex.end());
    return dev->add_config(o.set_uuid, regs);
  });
  if (!set) return set.error_value();
  so.metric_set = *set;
  auto stream = xe_stream::open(sys, dev->fd(), so);
  if (!stream) return stream.error_value();

  std::vector<std::byte> out;
  emu::records::put_version(out, intel::xe_record_type::version);
  emu::records::device_fields d;
  d.timestamp_hz = info.oa_timestamp_hz;
  d.device_id = info.device_id;
  d.revision = info.revision;
  d.gt_min_hz = info.gt_min_hz;
  d.gt_max_hz = info.gt_max_hz;
  d.engine_class = info.engine.engine_class;
  d.engine_instance = info.engine.engine_instance;
  d.oa_format = static_cast<std::uint32_t>(format->igt_id);
  d.metric_set_name = o.set_name;
  d.metric_set_uuid = o.set_uuid;
  if (auto e = emu::records::put_device_info(out, intel::xe_record_type::device_info, d); !e) {
    return e.error_value();
  }
  emu::records::put_topology(out, intel::xe_record_type::device_topology, info.topology);
  const auto put_point = [&]() -> result<void> {
    auto p = dev->engine_cycles();
    if (!p) return p.error_value();
    emu::records::put_correlation(out, intel::xe_record_type::timestamp_correlation, p->first,
                                  p->second);
    return {};
  };
  detail::xe_record_writer w;
  w.report_size = format->layout.size;
  std::vector<std::byte> data;  // stream bytes not yet written, from offset w.done
  std::vector<intel::xe_stream_loss> losses;
  const auto drain = [&]() -> result<void> {
    const std::size_t base = w.done;
    if (auto r = stream->read_ready(data, losses); !r) return r.error_value();
    w.put(out, data, base, losses);
    data.erase(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(w.done - base));
    return {};
  };
  if (auto e = record_loop(
          o, *stream, drain, put_point, [&] { return flush_records(out, write); }, stop);
      !e) {
    return e.error_value();
  }
  w.counts.uploaded = added.id.has_value();
  return w.counts;
}

}  // namespace hwpc::live
