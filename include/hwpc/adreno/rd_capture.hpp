// Decodes a whole .rd capture: follows the kernel's section order (GPU id,
// then per submit GPUADDR [+ BUFFER_CONTENTS] for every buffer and one
// CMDSTREAM_ADDR per top-level command buffer) and walks every command buffer
// through the submit's address space (docs/adreno.md, ".rd captures").
//
// Mesa's decoder rules, which hwpc follows: BUFFER_CONTENTS belongs to the
// GPUADDR just before it; a GPUADDR after a CMDSTREAM_ADDR starts a new
// submit (the buffer set is forgotten). Nothing here is fatal except a
// section size running past the end of the file, after which nothing can be
// framed; everything else is an issue and decoding goes on.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/walk.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"

namespace hwpc::adreno::rd {

// What the capture says about itself, reported as the sections go by.
class capture_sink : public walk_sink {
 public:
  virtual void on_gpu_id(std::uint32_t id, std::size_t offset) {
    (void)id;
    (void)offset;
  }
  virtual void on_chip_id(std::uint64_t id, std::size_t offset) {
    (void)id;
    (void)offset;
  }
  // Before the walk of each CMDSTREAM_ADDR (`offset`: its section header).
  virtual void on_cmdstream(const address_range& r, std::size_t offset) {
    (void)r;
    (void)offset;
  }
};

struct capture_stats {
  std::uint64_t sections = 0;
  std::uint64_t buffers = 0;
  std::uint64_t cmdstreams = 0;
  std::optional<std::uint32_t> gpu_id;
  std::optional<std::uint64_t> chip_id;
  // The dialect, by content: sections after libwrap's marker pairs, and without.
  std::uint64_t marked_sections = 0;
  std::uint64_t marker_pairs = 0;
  std::uint64_t skipped_sections = 0;  // known types that carry no PM4 hwpc decodes
};

// `Sink` is capture_sink or a class derived from it; the walker is typed on it
// too (walk.hpp: a final sink is called without a virtual call per packet).
template <class Sink>
class basic_capture_reader {
 public:
  explicit basic_capture_reader(Sink& sink, walk_options opt = {})
      : sink_(sink), walker_(sink, &space_, opt) {}

  const capture_stats& stats() const noexcept { return stats_; }
  // The GPU the ids read so far resolve to (generation.hpp), or null.
  const device* gpu() const noexcept {
    return forced_ != nullptr ? forced_ : resolve_device(stats_.gpu_id, stats_.chip_id);
  }
  // Reads the capture as `d`'s generation whatever its ids say (`--gpu`).
  void force_device(const device* d) noexcept {
    forced_ = d;
    if (d != nullptr) walker_.set_generation(d->gen);
  }
  const walk_stats& walk() const noexcept { return walker_.stats(); }
  // The buffers of the submit being read (valid inside the sink's callbacks).
  const address_space& space() const noexcept { return space_; }

  // Reads every section; the error, if any, is the framing error that ended
  // the read (also the last issue reported).
  result<void> read(byte_span data) {
    if (data.empty()) return make_error(errc::empty_input, 0, "empty .rd capture");
    walker_.set_input_bytes(data.size());
    section_cursor c(data);
    while (!c.done()) {
      auto s = c.next();
      if (!s) {
        sink_.on_issue(s.error_value());
        return s.error_value();
      }
      take(*s, c.last_marked());
      stats_.marker_pairs = c.marker_pairs();
    }
    return {};
  }
  // The submit's buffers (spans into `data`) outlive the call until the next
  // submit starts: a temporary vector would dangle.
  result<void> read(std::vector<std::byte>&&) = delete;

  // For readers that frame the sections themselves (rd_stream.hpp): one
  // section, `marked` when libwrap markers came before it. Its payload must
  // stay valid until the submit ends (`submit_ends_at_next_gpuaddr()`, then
  // the next RD_GPUADDR). A section hwpc does not decode needs no payload:
  // `take_skipped` takes its size only.
  void take(const section& s, bool marked) {
    count(s.offset, marked);
    handle(s);
  }
  void take_skipped(std::uint32_t type, std::size_t offset, std::size_t size, bool marked) {
    count(offset, marked);
    skipped(type, offset, size);
  }
  // An RD_GPUADDR or RD_CMDSTREAM_ADDR of `size` bytes, neither 8 nor 12: what
  // take() does with it, without its payload.
  void take_bad_address(std::uint32_t type, std::size_t offset, std::size_t size, bool marked) {
    count(offset, marked);
    issue(errc::inconsistent, offset,
          std::string(to_string(static_cast<section_type>(type))) + " payload has " +
              std::to_string(size) + " bytes, expected 8 or 12");
    if (type == static_cast<std::uint32_t>(section_type::gpuaddr)) pending_.reset();
  }
  // An RD_BUFFER_CONTENTS of `size` bytes whose payload is not held (it ends
  // in `tail`, its last 4 bytes or fewer): what take() does with it, the
  // bytes asked of the address space's range_fetch when a lookup needs them.
  void take_unheld(std::size_t offset, std::size_t size, byte_span tail, bool marked) {
    count(offset, marked);
    if (!pending_) {
      issue(errc::inconsistent, offset,
            "RD_BUFFER_CONTENTS without an RD_GPUADDR before it; ignored");
      return;
    }
    const std::size_t len = buffer_length(offset, size, tail);
    space_.add(gpu_buffer{pending_->iova, {}, offset + section_header_size, len});
    ++stats_.buffers;
    pending_.reset();
  }
  void set_fetch(range_fetch* f) noexcept { space_.set_fetch(f); }
  // Whether a command stream of the current submit was walked, so that the
  // next RD_GPUADDR forgets the submit's buffers.
  bool submit_ends_at_next_gpuaddr() const noexcept { return decoded_; }
  // The input read so far, for the default walk budget when the size of the
  // whole is not known in advance.
  void set_input_bytes(std::size_t n) noexcept { walker_.set_input_bytes(n); }
  void set_marker_pairs(std::uint64_t n) noexcept { stats_.marker_pairs = n; }

  // Whether a section of this type is decoded (its payload is needed).
  static constexpr bool decoded_type(std::uint32_t type) noexcept {
    switch (static_cast<section_type>(type)) {
      case section_type::gpuaddr:
      case section_type::buffer_contents:
      case section_type::cmdstream_addr:
      case section_type::gpu_id:
      case section_type::chip_id:
        return true;
      default:
        return false;
    }
  }

 private:
  void count(std::size_t offset, bool marked) {
    ++stats_.sections;
    if (marked && stats_.marked_sections++ == 0) {
      sink_.on_note(make_error(errc::unknown_format, offset - marker_size,
                               "libwrap .rd dialect: sections follow 0xffffffff 0xffffffff "
                               "markers (skipped)"));
    }
  }

  void issue(errc code, std::size_t offset, std::string msg) {
    sink_.on_issue(make_error(code, offset, std::move(msg)));
  }

  void handle(const section& s) {
    switch (static_cast<section_type>(s.type)) {
      case section_type::gpuaddr: {
        auto r = parse_address(s);
        if (!r) {
          sink_.on_issue(r.error_value());
          pending_.reset();
          return;
        }
        if (decoded_) {
          space_.clear();
          decoded_ = false;
        }
        pending_ = *r;
        return;
      }
      case section_type::buffer_contents: {
        if (!pending_) {
          issue(errc::inconsistent, s.offset,
                "RD_BUFFER_CONTENTS without an RD_GPUADDR before it; ignored");
          return;
        }
        const std::size_t size = s.payload.size();
        const std::size_t tail = std::min<std::size_t>(size, 4);
        const std::size_t len = buffer_length(s.offset, size, s.payload.subspan(size - tail));
        space_.add(gpu_buffer{pending_->iova, s.payload.first(len), s.payload_offset()});
        ++stats_.buffers;
        pending_.reset();
        return;
      }
      case section_type::cmdstream_addr: {
        auto r = parse_address(s);
        if (!r) {
          sink_.on_issue(r.error_value());
          return;
        }
        ++stats_.cmdstreams;
        decoded_ = true;
        sink_.on_cmdstream(*r, s.offset);
        walker_.walk_ib(ib_target{r->iova, r->size}, s.offset);
        return;
      }
      case section_type::gpu_id:
        if (s.payload.size() < 4) {
          issue(errc::truncated, s.offset, "RD_GPU_ID needs 4 bytes");
          return;
        }
        if (!stats_.gpu_id) stats_.gpu_id = load_le32(s.payload.data());
        sink_.on_gpu_id(load_le32(s.payload.data()), s.offset);
        update_generation();
        return;
      case section_type::chip_id:
        if (s.payload.size() < 8) {
          issue(errc::truncated, s.offset, "RD_CHIP_ID needs 8 bytes");
          return;
        }
        if (!stats_.chip_id) stats_.chip_id = load_le64(s.payload.data());
        sink_.on_chip_id(load_le64(s.payload.data()), s.offset);
        update_generation();
        return;
      default:
        skipped(s.type, s.offset, s.payload.size());
        return;
    }
  }

  void skipped(std::uint32_t type, std::size_t offset, std::size_t size) {
    if (type > max_section_type) {
      issue(errc::unknown_format, offset,
            "unknown .rd section type " + std::to_string(type) + " (" + std::to_string(size) +
                " bytes) skipped");
      return;
    }
    ++stats_.skipped_sections;
    if ((noted_ & (1u << type)) == 0) {
      noted_ |= 1u << type;
      sink_.on_note(make_error(errc::unknown_format, offset,
                               std::string(to_string(static_cast<section_type>(type))) +
                                   " sections skipped (" + skipped_what(type) +
                                   "); this is the first"));
    }
  }

  // What a section type hwpc does not decode holds, for its note. None of
  // them is read as PM4: RD_CMDSTREAM and RD_CONTEXT are the legacy 2D
  // paths' raw dumps, not command buffers the CP walks.
  static const char* skipped_what(std::uint32_t type) noexcept {
    switch (static_cast<section_type>(type)) {
      case section_type::none:
        return "empty";
      case section_type::test:
        return "the capture's name, text";
      case section_type::cmd:
        return "process, fence or perf-counter ioctl text";
      case section_type::context:
        return "a raw context dump, not PM4";
      case section_type::cmdstream:
        return "a raw legacy 2D command dump, not walked as PM4";
      case section_type::param:
        return "a blit or surface parameter";
      case section_type::flush:
        return "forget the parameters";
      case section_type::program:
      case section_type::vert_shader:
      case section_type::frag_shader:
        return "a shader";
      default:
        return "a Mesa debugging buffer";
    }
  }

  // The bytes of a BUFFER_CONTENTS of `size` bytes (ending in `tail`, its last
  // 4 or fewer) that belong to the buffer its RD_GPUADDR names, after the
  // issue when the sizes disagree.
  std::size_t buffer_length(std::size_t offset, std::size_t size, byte_span tail) {
    if (libwrap_padded(size, tail, pending_->size)) return pending_->size;
    if (size != pending_->size) {
      issue(errc::inconsistent, offset,
            "RD_BUFFER_CONTENTS has " + std::to_string(size) + " bytes, its RD_GPUADDR says " +
                std::to_string(pending_->size) + "; the bytes present are used");
    }
    return size;
  }

  // libwrap rounds a section's size up to 4 and zero-fills: a BUFFER_CONTENTS
  // of `len` bytes arrives as round_up(len, 4) bytes ending in zeros.
  static bool libwrap_padded(std::size_t size, byte_span tail, std::uint32_t len) noexcept {
    const std::size_t padded = (std::size_t{len} + 3) & ~std::size_t{3};
    if (size == len || size != padded) return false;
    for (std::size_t i = tail.size() - (padded - len); i < tail.size(); ++i) {
      if (tail[i] != std::byte{0}) return false;
    }
    return true;
  }

  // The walk follows the capture's generation once its ids name one (the
  // kernel writes them before any command stream).
  void update_generation() {
    if (forced_ != nullptr) return;
    if (const device* d = gpu()) walker_.set_generation(d->gen);
  }

  Sink& sink_;
  address_space space_;
  basic_walker<Sink> walker_;
  capture_stats stats_;
  std::optional<address_range> pending_;
  bool decoded_ = false;
  std::uint32_t noted_ = 0;  // known section types already noted as skipped (bit per type)
  const device* forced_ = nullptr;
};

using capture_reader = basic_capture_reader<capture_sink>;

// The GPU a capture's RD_GPU_ID / RD_CHIP_ID sections name (the first of
// each), or null: a pass over the section headers only, so that a reader can
// choose its names before the first packet.
inline const device* capture_device(byte_span data) noexcept {
  std::optional<std::uint32_t> gpu_id;
  std::optional<std::uint64_t> chip_id;
  section_cursor c(data);
  while (!c.done()) {
    auto s = c.next();
    if (!s) break;
    if (s->type == static_cast<std::uint32_t>(section_type::gpu_id) && s->payload.size() >= 4 &&
        !gpu_id) {
      gpu_id = load_le32(s->payload.data());
    } else if (s->type == static_cast<std::uint32_t>(section_type::chip_id) &&
               s->payload.size() >= 8 && !chip_id) {
      chip_id = load_le64(s->payload.data());
    }
  }
  return resolve_device(gpu_id, chip_id);
}

}  // namespace hwpc::adreno::rd
