// Files the Xe driver's consumers get from a capture: the data of read() on
// an Xe OA stream with its out-of-band losses, and IGT's xe-perf-recorder
// file. Layouts from ../shared/docs/FACTS-xe.md sections 6 and 7; written
// with the emulator's own code, not the library's readers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/emu/outputs.hpp"

namespace hwpc::emu {

// IGT's xe-perf record types (FACTS-xe section 7): SAMPLE and the two loss
// records keep the i915 values, the header records are 4..7.
namespace xe_record_type {
inline constexpr std::uint32_t sample = record_type::sample;
inline constexpr std::uint32_t oa_report_lost = record_type::oa_report_lost;
inline constexpr std::uint32_t oa_buffer_lost = record_type::oa_buffer_lost;
inline constexpr std::uint32_t version = 4;
inline constexpr std::uint32_t device_info = 5;
inline constexpr std::uint32_t device_topology = 6;
inline constexpr std::uint32_t timestamp_correlation = 7;
}  // namespace xe_record_type

// drm_xe_oa_stream_status.oa_status bits (FACTS-xe section 6).
namespace xe_status {
inline constexpr std::uint64_t report_lost = 1u << 0;
inline constexpr std::uint64_t buffer_overflow = 1u << 1;
}  // namespace xe_status

// One read() that failed with -EIO: where the data would have gone in the
// concatenated stream, and what the status ioctl said.
struct xe_loss {
  std::size_t offset = 0;
  std::uint64_t oa_status = 0;
};

struct xe_stream_data {
  std::vector<std::byte> bytes;  // the successful reads, concatenated
  std::vector<xe_loss> losses;
};

// What a consumer of an Xe OA stream ends up with. read() copies only
// landed reports, back to back with no headers; when the status register
// shows a loss it copies nothing and fails, and the status ioctl reports
// every bit seen, so a restart after an overflow and a lost report the same
// read met are one loss with both bits.
inline result<xe_stream_data> xe_stream_of(const capture& cap) {
  if (cap.kernel_driver != driver::xe) {
    return make_error(errc::inconsistent, 0, "an i915 capture has no Xe OA stream");
  }
  if (cap.mi_rpc_mode) {
    return make_error(errc::inconsistent, 0, "an MI_RPC-only capture has no Xe OA stream");
  }
  xe_stream_data d;
  bool open_loss = false;
  for (const auto& it : cap.read) {
    const bool lost = it.k == read_item::kind::report_lost || it.k == read_item::kind::buffer_lost;
    if (lost) {
      const std::uint64_t bit = it.k == read_item::kind::report_lost ? xe_status::report_lost
                                                                     : xe_status::buffer_overflow;
      if (!open_loss) d.losses.push_back({d.bytes.size(), 0});
      d.losses.back().oa_status |= bit;
      open_loss = true;
      continue;
    }
    open_loss = false;
    if (it.k == read_item::kind::sample) {
      const auto b = cap.report_bytes(it.report);
      d.bytes.insert(d.bytes.end(), b.begin(), b.end());
    }
  }
  return d;
}

inline result<std::vector<std::byte>> xe_stream_bytes(const capture& cap) {
  auto s = xe_stream_of(cap);
  if (!s) return s.error_value();
  return std::move(s->bytes);
}

// The `--xe-loss OFFSET:STATUS` arguments `hwpc decode` needs for the stream.
inline std::string xe_loss_arguments(const xe_stream_data& d) {
  std::string s;
  for (const auto& l : d.losses) {
    if (!s.empty()) s += ' ';
    s += "--xe-loss " + std::to_string(l.offset) + ":" + std::to_string(l.oa_status);
  }
  return s;
}

// An IGT xe-perf recording (FACTS-xe section 7): VERSION, DEVICE_INFO (the
// i915 record's layout, oa_format = IGT's 1-based format number),
// DEVICE_TOPOLOGY (one slice, the DSS mask, one EU mask repeated per DSS), a
// TIMESTAMP_CORRELATION, the stream as SAMPLE records with a loss record per
// failed read (REPORT_LOST when bit 0 is set, else BUFFER_LOST, as the
// recorder decides), and a closing correlation.
inline result<std::vector<std::byte>> xe_recording(const capture& cap,
                                                   const recording_identity& id) {
  auto stream = xe_stream_of(cap);
  if (!stream) return stream.error_value();
  if (cap.format->igt_id <= 0) {
    return make_error(errc::unknown_format, 0,
                      std::string(cap.format->name) + " has no IGT xe format number");
  }
  std::vector<std::byte> out;
  detail::put_version(out, xe_record_type::version);
  // The IGT format number is DEVICE_INFO's oa_format and names the format in
  // the made-up uuid.
  const auto igt_format = static_cast<std::uint32_t>(cap.format->igt_id);
  if (auto info = detail::put_device_info(out, cap, xe_record_type::device_info, igt_format,
                                          igt_format, id);
      !info) {
    return info.error_value();
  }

  const sku& dev = device_of(cap.cfg);

  // DEVICE_TOPOLOGY: one slice, the DSS mask of every slice's Xe-cores, one
  // EU mask (the first present DSS's) repeated for every DSS position.
  {
    const unsigned dss = static_cast<unsigned>(dev.max_slices) * dev.max_subslices;
    const std::uint16_t ss_stride = static_cast<std::uint16_t>((dss + 7) / 8);
    const std::uint16_t eu_stride = static_cast<std::uint16_t>((dev.max_eus + 7) / 8);
    const std::uint16_t ss_offset = 1;
    const std::uint16_t eu_offset = static_cast<std::uint16_t>(ss_offset + ss_stride);
    const std::size_t data = eu_offset + std::size_t{dss} * eu_stride;
    const std::size_t body = 16 + data;
    const std::size_t padded = (body + 7) / 8 * 8;
    detail::put_header(out, xe_record_type::device_topology, record_header_size + padded);
    for (std::uint16_t v : {std::uint16_t{0}, std::uint16_t{1}, static_cast<std::uint16_t>(dss),
                            dev.max_eus, ss_offset, ss_stride, eu_offset, eu_stride}) {
      detail::put_u16(out, v);
    }
    std::vector<std::byte> mask(data, std::byte{0});
    mask[0] = std::byte{1};
    std::uint16_t eus = 0;
    for (unsigned g = 0; g < dss; ++g) {
      const unsigned s = g / dev.max_subslices, ss = g % dev.max_subslices;
      if (!dev.subslice_present(s, ss)) continue;
      mask[ss_offset + g / 8] |= std::byte{1} << (g % 8);
      if (eus == 0) eus = dev.eu_mask(s, ss);
    }
    for (unsigned g = 0; g < dss; ++g) {
      for (unsigned e = 0; e < dev.max_eus; ++e) {
        if (((eus >> e) & 1u) != 0) {
          mask[eu_offset + g * eu_stride + e / 8] |= std::byte{1} << (e % 8);
        }
      }
    }
    out.insert(out.end(), mask.begin(), mask.end());
    out.resize(out.size() + (padded - body), std::byte{0});
  }

  const detail::correlation_points points = detail::bracketing_correlations(cap);
  detail::put_correlation(out, cap, xe_record_type::timestamp_correlation, points.before);
  // The stream as records: a loss record where a read failed.
  const std::size_t rsize = cap.report_size();
  std::size_t next_loss = 0;
  const auto put_losses_at = [&](std::size_t at) {
    while (next_loss < stream->losses.size() && stream->losses[next_loss].offset == at) {
      const std::uint64_t st = stream->losses[next_loss++].oa_status;
      if ((st & xe_status::report_lost) != 0) {
        detail::put_header(out, xe_record_type::oa_report_lost, record_header_size);
      } else if ((st & xe_status::buffer_overflow) != 0) {
        detail::put_header(out, xe_record_type::oa_buffer_lost, record_header_size);
      }
    }
  };
  for (std::size_t at = 0; at < stream->bytes.size(); at += rsize) {
    put_losses_at(at);
    detail::put_header(out, xe_record_type::sample, record_header_size + rsize);
    out.insert(out.end(), stream->bytes.begin() + static_cast<std::ptrdiff_t>(at),
               stream->bytes.begin() + static_cast<std::ptrdiff_t>(at + rsize));
  }
  put_losses_at(stream->bytes.size());
  detail::put_correlation(out, cap, xe_record_type::timestamp_correlation, points.after);
  return out;
}

}  // namespace hwpc::emu
