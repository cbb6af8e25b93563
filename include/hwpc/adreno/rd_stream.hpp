// Reads an .rd capture handed over piece by piece — a file read a block at a
// time, or gzip output as zlib inflates it — in memory bounded by the capture's
// submits, not by its size (docs/adreno.md, ".rd captures", "gzip").
//
// `capture_reader::read` needs the whole capture in one span (a mapped file).
// `stream_reader` frames the sections itself as the bytes come, both dialects
// (libwrap's marker pairs anywhere a header may start), and copies only what
// the walk needs: the buffers of the submit being read (RD_BUFFER_CONTENTS)
// and the small sections that name addresses and ids. Sections hwpc does not
// decode are counted and skipped without being held. The buffers of a submit
// are dropped when the submit after the next one starts, so a sink may keep
// packets (payload spans) of the previous submit for a while (the
// recogniser's window does) but no longer. Offsets are offsets in the stream
// as fed: for gzip input, in the decompressed data (docs/adreno.md, "gzip").
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"

namespace hwpc::adreno::rd {

class stream_reader {
 public:
  explicit stream_reader(capture_sink& sink, walk_options opt = {})
      : sink_(sink), reader_(sink, opt) {}

  capture_reader& reader() noexcept { return reader_; }
  const capture_stats& stats() const noexcept { return reader_.stats(); }
  const device* gpu() const noexcept { return reader_.gpu(); }
  void force_device(const device* d) noexcept { reader_.force_device(d); }
  const walk_stats& walk() const noexcept { return reader_.walk(); }

  // Bytes held now (the submits' copies and the section being assembled),
  // and the most ever held.
  std::size_t held_bytes() const noexcept { return held_; }
  std::size_t peak_held_bytes() const noexcept { return peak_; }

  // The next piece of the stream, handed on as far as it goes. A size can
  // only be found to run past the end at finish(), so feeding does not fail
  // by itself; after finish() failed it returns that error.
  result<void> feed(byte_span piece) {
    if (failed_) return *failed_;
    std::size_t i = 0;
    while (i < piece.size()) {
      if (state_ == state::header) {
        const std::size_t take = std::min(piece.size() - i, section_header_size - have_);
        std::copy_n(piece.data() + i, take, head_.data() + have_);
        have_ += take;
        i += take;
        if (have_ < section_header_size) break;
        start_section();
      } else {
        const std::size_t take =
            static_cast<std::size_t>(std::min<std::uint64_t>(piece.size() - i, left_));
        if (keep_ != nullptr && keep_->size() < cap_) {
          const std::size_t n = std::min<std::size_t>(take, cap_ - keep_->size());
          keep_->insert(keep_->end(), piece.data() + i, piece.data() + i + n);
          held_ += n;
          peak_ = std::max(peak_, held_);
        }
        left_ -= take;
        i += take;
        if (left_ == 0) end_section();
      }
    }
    fed_ += piece.size();
    return {};
  }

  // The end of the stream: a section or header cut short is `truncated` at
  // its header's offset; no input at all is `empty_input`.
  result<void> finish() {
    if (failed_) return *failed_;
    if (fed_ == 0) return make_error(errc::empty_input, 0, "empty .rd capture");
    if (state_ == state::payload) {
      return fail(make_error(errc::truncated, header_at_,
                             ".rd section type " + std::to_string(type_) + " says " +
                                 std::to_string(size_) + " bytes, " +
                                 std::to_string(size_ - left_) + " remain"));
    }
    if (have_ != 0) {
      return fail(
          make_error(errc::truncated, at_,
                     ".rd section header needs 8 bytes, " + std::to_string(have_) + " remain"));
    }
    return {};
  }

 private:
  enum class state { header, payload };

  void start_section() {
    const std::uint32_t type = load_le32(head_.data());
    const std::uint32_t size = load_le32(head_.data() + 4);
    const std::size_t at = at_;
    have_ = 0;
    at_ += section_header_size;
    if (type == marker_word && size == marker_word) {
      ++markers_;
      marked_ = true;
      reader_.set_marker_pairs(markers_);
      return;
    }
    type_ = type;
    size_ = size;
    left_ = size;
    header_at_ = at;
    keep_ = nullptr;
    cap_ = size;
    if (capture_reader::decoded_type(type)) {
      // The sections that name an address or an id are read for their first
      // 8 or 12 bytes: a larger one is not held whole.
      const bool address = type == static_cast<std::uint32_t>(section_type::gpuaddr) ||
                           type == static_cast<std::uint32_t>(section_type::cmdstream_addr);
      if (address) cap_ = std::min<std::uint32_t>(size, 16);
      if (type == static_cast<std::uint32_t>(section_type::gpu_id) ||
          type == static_cast<std::uint32_t>(section_type::chip_id)) {
        cap_ = std::min<std::uint32_t>(size, 8);
      }
      // A well-formed RD_GPUADDR after a walked command stream starts a new
      // submit (capture_reader forgets the buffers then, before any walk).
      if (type == static_cast<std::uint32_t>(section_type::gpuaddr) && (size == 8 || size == 12) &&
          reader_.submit_ends_at_next_gpuaddr()) {
        next_submit();
      }
      current_.emplace_back();
      keep_ = &current_.back();
      keep_->reserve(std::min<std::size_t>(cap_, std::size_t{1} << 20));
    }
    state_ = state::payload;
    if (left_ == 0) end_section();
  }

  void end_section() {
    state_ = state::header;
    at_ = header_at_ + section_header_size + size_;
    const bool marked = marked_;
    marked_ = false;
    if (keep_ == nullptr) {
      if (!capture_reader::decoded_type(type_)) {
        reader_.take_skipped(type_, header_at_, size_, marked);
      }
      return;
    }
    section s{type_, header_at_, byte_span(keep_->data(), keep_->size())};
    keep_ = nullptr;
    const bool address = type_ == static_cast<std::uint32_t>(section_type::gpuaddr) ||
                         type_ == static_cast<std::uint32_t>(section_type::cmdstream_addr);
    if (address && size_ != 8 && size_ != 12) {
      reader_.take_bad_address(type_, header_at_, size_, marked);
      return;
    }
    if (s.type == static_cast<std::uint32_t>(section_type::cmdstream_addr)) {
      reader_.set_input_bytes(at_);
    }
    reader_.take(s, marked);
  }

  // A new submit: the one before the previous is no longer needed.
  void next_submit() {
    for (const auto& b : previous_) held_ -= b.size();
    previous_ = std::move(current_);
    current_.clear();
  }

  result<void> fail(error e) {
    sink_.on_issue(e);
    failed_ = e;
    return e;
  }

  capture_sink& sink_;
  capture_reader reader_;
  state state_ = state::header;
  std::array<std::byte, section_header_size> head_{};
  std::size_t have_ = 0;       // header bytes assembled
  std::size_t at_ = 0;         // stream offset of the header being assembled
  std::size_t header_at_ = 0;  // stream offset of the current section's header
  std::uint32_t type_ = 0, size_ = 0;
  std::uint32_t cap_ = 0;                   // payload bytes of the current section worth holding
  std::uint64_t left_ = 0;                  // payload bytes still to come
  std::vector<std::byte>* keep_ = nullptr;  // where the payload goes, or null: not held
  // Copies of the sections decoded, the current submit's and the previous one's. A deque
  // keeps each vector where it is as more are added, so the spans handed out stay valid.
  std::deque<std::vector<std::byte>> current_, previous_;
  std::size_t held_ = 0, peak_ = 0, fed_ = 0;
  std::uint64_t markers_ = 0;
  bool marked_ = false;
  std::optional<error> failed_;
};

}  // namespace hwpc::adreno::rd
