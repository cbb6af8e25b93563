// Reads an .rd capture handed over piece by piece — a file read a block at a
// time, or gzip output as zlib inflates it — in memory bounded by the capture's
// submits, not by its size (docs/adreno.md, ".rd captures", "gzip").
//
// `capture_reader::read` needs the whole capture in one span (a mapped file).
// `stream_reader` frames the sections itself as the bytes come, both dialects
// (libwrap's marker pairs anywhere a header may start), and copies only what
// the walk needs: the buffers of the submit being read (RD_BUFFER_CONTENTS)
// and the small sections that name addresses and ids. Given the whole stream
// (set_backing) it copies no buffer; given a way to read the stream again
// (set_source) it holds no large buffer, and reads the bytes a lookup needs
// when it needs them (docs/adreno.md, "Flat memory"). Sections hwpc does not
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

// Where the bytes of buffers a stream_reader did not hold are read again:
// [offset, offset + n) of the stream as fed, into `out`.
class range_source {
 public:
  virtual result<void> read(std::size_t offset, std::size_t n, std::byte* out) = 0;

 protected:
  ~range_source() = default;
};

// `Sink` is capture_sink or a class derived from it (rd_capture.hpp).
template <class Sink>
class basic_stream_reader final : private range_fetch {
 public:
  explicit basic_stream_reader(Sink& sink, walk_options opt = {})
      : sink_(sink), reader_(sink, opt) {}

  // The whole stream is also `whole` (a mapped plain file, bytes in memory),
  // valid while the reader reads: buffer payloads are views into it, never
  // copied, so only the pages a walk touches are brought in.
  void set_backing(byte_span whole) noexcept { backing_ = whole; }
  // The stream can be read again at any offset (a gzip stream's access
  // points, gzip_index.hpp): a buffer larger than `hold_max`, or past the
  // submit's budget of `submit_budget` bytes held, is not held; the bytes a
  // lookup needs are read from `src` then, in aligned pieces kept like a
  // held buffer's copy (docs/adreno.md, "Flat memory").
  void set_source(range_source* src, std::size_t hold_max = std::size_t{1} << 20,
                  std::size_t submit_budget = std::size_t{8} << 20) noexcept {
    source_ = src;
    hold_max_ = hold_max;
    submit_budget_ = submit_budget;
    reader_.set_fetch(src != nullptr ? this : nullptr);
  }
  // The error that stopped a read of bytes not held, if any (also what
  // feed() returns after it).
  const std::optional<error>& fetch_error() const noexcept { return fetch_failed_; }
  // Buffers read again, and the bytes read.
  std::size_t fetches() const noexcept { return fetches_; }
  std::size_t fetched_bytes() const noexcept { return fetched_bytes_; }

  basic_capture_reader<Sink>& reader() noexcept { return reader_; }
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
    if (fetch_failed_) return *fetch_failed_;
    std::size_t i = 0;
    while (i < piece.size() && !fetch_failed_) {  // a failed read again ends the read
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
        if (tail_kept_) keep_tail(piece.subspan(i, take));
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
    if (fetch_failed_) return *fetch_failed_;
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
      const bool buffer = type == static_cast<std::uint32_t>(section_type::buffer_contents);
      if (buffer && !backing_.empty()) {
        viewed_ = true;  // a view into the backing at the section's end
      } else if (buffer && source_ != nullptr &&
                 (size > hold_max_ || submit_held_ + size > submit_budget_)) {
        tail_kept_ = true;  // read again when a lookup lands in it
        tail_size_ = 0;
      } else {
        current_.emplace_back();
        keep_ = &current_.back();
        keep_->reserve(std::min<std::size_t>(cap_, std::size_t{1} << 20));
        submit_held_ += cap_;
      }
    }
    state_ = state::payload;
    if (left_ == 0) end_section();
  }

  void end_section() {
    state_ = state::header;
    at_ = header_at_ + section_header_size + size_;
    const bool marked = marked_;
    marked_ = false;
    if (viewed_) {
      viewed_ = false;
      reader_.take(
          section{type_, header_at_, backing_.subspan(header_at_ + section_header_size, size_)},
          marked);
      return;
    }
    if (tail_kept_) {
      tail_kept_ = false;
      reader_.take_unheld(header_at_, size_, byte_span(tail_.data(), tail_size_), marked);
      return;
    }
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
    submit_held_ = 0;
    pieces_.clear();
  }

  // The last 4 bytes of a payload not held (libwrap's padding is read there).
  void keep_tail(byte_span b) noexcept {
    for (std::byte x : b.last(std::min<std::size_t>(b.size(), tail_.size()))) {
      if (tail_size_ == tail_.size()) {
        std::copy(tail_.begin() + 1, tail_.end(), tail_.begin());
        --tail_size_;
      }
      tail_[tail_size_++] = x;
    }
  }

  // range_fetch: the piece of the buffer around [at, at + n), aligned to
  // `piece_align` and cut to the buffer, read from the source once per
  // submit (the pieces read last are looked at first) and kept with the
  // submit's copies.
  static constexpr std::size_t piece_align = std::size_t{1} << 16;
  static constexpr std::size_t pieces_looked_at = 16;
  byte_span fetch(std::size_t buffer_offset, std::size_t buffer_size, std::size_t at,
                  std::size_t n) override {
    if (fetch_failed_ || source_ == nullptr) return {};
    const std::size_t from = buffer_offset + at, to = from + n;
    std::size_t looked = 0;
    for (auto p = pieces_.rbegin(); p != pieces_.rend() && looked < pieces_looked_at;
         ++p, ++looked) {
      if (p->offset <= from && to <= p->offset + p->bytes.size()) {
        return p->bytes.subspan(from - p->offset, n);
      }
    }
    const std::size_t lo = at / piece_align * piece_align;
    const std::size_t hi =
        std::min(buffer_size, (at + n + piece_align - 1) / piece_align * piece_align);
    current_.emplace_back(hi - lo);
    std::vector<std::byte>& v = current_.back();
    auto ok = source_->read(buffer_offset + lo, v.size(), v.data());
    if (!ok) {
      fetch_failed_ = ok.error_value();
      sink_.on_issue(*fetch_failed_);
      v.clear();
      return {};
    }
    ++fetches_;
    fetched_bytes_ += v.size();
    held_ += v.size();
    peak_ = std::max(peak_, held_);
    pieces_.push_back(piece{buffer_offset + lo, byte_span(v.data(), v.size())});
    return pieces_.back().bytes.subspan(from - pieces_.back().offset, n);
  }

  result<void> fail(error e) {
    sink_.on_issue(e);
    failed_ = e;
    return e;
  }

  Sink& sink_;
  basic_capture_reader<Sink> reader_;
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
  // Flat memory (set_backing, set_source): the payload being read is a view
  // into the backing, or not held but for its last bytes.
  byte_span backing_{};
  range_source* source_ = nullptr;
  std::size_t hold_max_ = 0, submit_budget_ = 0, submit_held_ = 0;
  bool viewed_ = false, tail_kept_ = false;
  std::array<std::byte, 4> tail_{};
  std::size_t tail_size_ = 0;
  struct piece {
    std::size_t offset = 0;  // in the stream
    byte_span bytes{};
  };
  std::vector<piece> pieces_;  // read again for the current submit
  std::size_t fetches_ = 0, fetched_bytes_ = 0;
  std::optional<error> fetch_failed_;
  std::uint64_t markers_ = 0;
  bool marked_ = false;
  std::optional<error> failed_;
};

using stream_reader = basic_stream_reader<capture_sink>;

}  // namespace hwpc::adreno::rd
