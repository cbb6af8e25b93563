// An Adreno capture as every door opens it (`hwpc adreno`, hwpc.adreno): the
// options checked once and worded in the door's spelling (spelling.hpp), the
// input kind and the GPU found, and the bytes handed on as they come, so
// that an .rd capture of any size, plain or gzip-compressed, is read in
// bounded memory: a file is read again in blocks (capture_source::path())
// rather than through its mapping, and gzip input is inflated a block at a
// time, never whole (docs/adreno.md, "One pipeline").
//
// Hex text and raw dwords are read whole (the mapping; gzip ones inflated in
// memory): their readers want one span, and such inputs are small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/gzip_index.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/rd_stream.hpp"
#include "hwpc/adreno/row_columns.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/pipeline/capture.hpp"
#include "hwpc/pipeline/spelling.hpp"

namespace hwpc::adreno {

struct open_options {
  std::string format = "auto";     // auto, rd, hex or bin
  std::optional<std::string> gpu;  // a name (a530), a GPU id (640) or a chip id (0x43050a01)
  // Every problem (note = false) and note found on the way, offsets in the
  // file given; none: not reported (still counted).
  std::function<void(const error&, bool note)> on_issue;
  // How many bytes of query rows open_capture may keep from its one pass
  // over the input (adreno/row_store.hpp); a capture with more is read a
  // second time for its rows. 0: always read twice.
  std::size_t rows_kept_bytes = std::size_t{8} << 20;
};

// The options alone; the GPU `gpu` names (null without one).
inline result<const device*> check(const open_options& o, const pipeline::spelling& sp) {
  if (o.format != "auto" && o.format != "rd" && o.format != "hex" && o.format != "bin") {
    // Worded as the tool's option parser words a choice (cli.hpp).
    return usage_error(sp.option("format") + ": expected auto, rd, hex or bin, not '" + o.format +
                       "'");
  }
  if (!o.gpu) return static_cast<const device*>(nullptr);
  const device* d = parse_device(*o.gpu);
  if (d == nullptr) {
    return usage_error(sp.option("gpu") + ": '" + *o.gpu +
                       "' is no Adreno hwpc knows (a name like a530, a630, a740, X1-85; a GPU "
                       "id like 640; or a chip id like 0x43050a01)");
  }
  return d;
}

namespace detail {

// The first RD_GPU_ID and RD_CHIP_ID of an .rd stream fed piece by piece:
// the framing of rd_stream.hpp (marker pairs where a header may start), the
// payloads skipped unread but for the ids' first 8 bytes.
class id_scan {
 public:
  void feed(byte_span piece) {
    std::size_t i = 0;
    while (i < piece.size()) {
      if (left_ == 0) {
        head_[have_++] = piece[i++];
        if (have_ < rd::section_header_size) continue;
        have_ = 0;
        type_ = load_le32(head_);
        left_ = load_le32(head_ + 4);
        if (type_ == rd::marker_word && left_ == rd::marker_word) left_ = 0;
        got_ = 0;
        continue;
      }
      const std::size_t take = static_cast<std::size_t>(
          std::min<std::uint64_t>(left_, static_cast<std::uint64_t>(piece.size() - i)));
      for (std::size_t k = 0; k < take && got_ < 8; ++k) id_[got_++] = piece[i + k];
      i += take;
      left_ -= take;
      if (left_ == 0) done_section();
    }
  }
  const device* gpu() const noexcept { return resolve_device(gpu_id_, chip_id_); }

 private:
  void done_section() {
    if (type_ == static_cast<std::uint32_t>(rd::section_type::gpu_id) && got_ >= 4 && !gpu_id_) {
      gpu_id_ = load_le32(id_);
    } else if (type_ == static_cast<std::uint32_t>(rd::section_type::chip_id) && got_ >= 8 &&
               !chip_id_) {
      chip_id_ = load_le64(id_);
    }
  }

  std::byte head_[rd::section_header_size]{};
  std::byte id_[8]{};
  std::size_t have_ = 0, got_ = 0;
  std::uint32_t type_ = 0;
  std::uint64_t left_ = 0;
  std::optional<std::uint32_t> gpu_id_;
  std::optional<std::uint64_t> chip_id_;
};

// looks_like_rd() on the first bytes of a stream of `total` bytes.
inline bool starts_like_rd(byte_span head, std::size_t total) noexcept {
  std::size_t at = 0;
  while (rd::marker_at(head, at)) at += rd::marker_size;
  if (head.size() - at < rd::section_header_size) return false;
  const std::uint32_t type = load_le32(head.data() + at);
  const std::uint32_t size = load_le32(head.data() + at + 4);
  return type >= 1 && type <= rd::max_section_type && size <= total - at - rd::section_header_size;
}

// A file's bytes at any offset, for rd::stream_reader's buffers not held.
class file_ranges final : public rd::range_source {
 public:
  explicit file_ranges(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")) {}
  ~file_ranges() {
    if (f_ != nullptr) std::fclose(f_);
  }
  file_ranges(const file_ranges&) = delete;
  file_ranges& operator=(const file_ranges&) = delete;
  bool open() const noexcept { return f_ != nullptr; }

  result<void> read(std::size_t offset, std::size_t n, std::byte* out) override {
    if (offset > static_cast<std::size_t>(std::numeric_limits<long>::max()) ||
        std::fseek(f_, static_cast<long>(offset), SEEK_SET) != 0 ||
        std::fread(out, 1, n, f_) != n) {
      return make_error(errc::io, offset,
                        "cannot read " + path_ + " again (" + std::to_string(n) + " bytes)");
    }
    return {};
  }

 private:
  std::string path_;
  std::FILE* f_;
};

}  // namespace detail

// An opened Adreno input: its kind, its GPU, and its bytes as they come.
class capture_input {
 public:
  static constexpr std::size_t block_size = std::size_t{1} << 20;
  static constexpr std::size_t head_size = 65536;

  // Errors: usage (the options; no GPU is not one here) or the input's
  // (empty, gzip without zlib, corrupt gzip), offsets in the file given.
  // `ids`: find the GPU an .rd capture names now (a pass over it); without,
  // own() is null until set_own() (a reader that finds the ids on its own
  // first pass, as query_capture's does).
  static result<capture_input> open(capture_source src, const open_options& o,
                                    const pipeline::spelling& sp, bool ids = true) {
    auto forced = check(o, sp);
    if (!forced) return forced.error_value();
    capture_input in;
    in.forced_ = *forced;
    in.src_ = std::move(src);
    const byte_span bytes = in.src_.bytes();
    if (bytes.empty()) return make_error(errc::empty_input, 0, "empty file");
    in.gzip_ = is_gzip(bytes);
    if (in.gzip_ && !have_gzip) {
      return make_error(errc::unknown_format, 0,
                        "gzip-compressed input, and this hwpc was built without zlib "
                        "(HWPC_WITH_ZLIB / -Dzlib); gunzip it first");
    }
    // The kind: a plain file's from its first bytes, a gzip one's from its
    // first 64 KiB inflated (read whole only when the first section runs past
    // them, to see whether its size fits).
    std::vector<std::byte> head;
    std::size_t total = 0;
    bool ended = true;  // `total` is the whole size
    if (in.gzip_) {
      const auto read = [&](bool whole) {
        head.clear();
        total = 0;
        ended = true;
        return in.for_each_piece([&](byte_span p) {
          const std::size_t n = std::min(p.size(), head_size - head.size());
          head.insert(head.end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
          total += p.size();
          ended = whole || head.size() < head_size;
          return ended;
        });
      };
      auto fed = read(false);
      if (!fed) return fed.error_value();
      if (total == 0) return make_error(errc::empty_input, 0, "empty after gunzip");
      if (o.format == "auto" && !ended && !detail::starts_like_rd(head, head.size())) {
        if (auto all = read(true); !all) return all.error_value();
      }
    }
    const byte_span look = in.gzip_ ? byte_span(head) : bytes;
    if (o.format == "rd") in.kind_ = input_kind::rd;
    if (o.format == "hex") in.kind_ = input_kind::hex;
    if (o.format == "bin") in.kind_ = input_kind::bin;
    if (o.format == "auto") {
      const bool rd = in.gzip_ ? detail::starts_like_rd(
                                     look, ended ? total : std::numeric_limits<std::size_t>::max())
                               : rd::looks_like_rd(bytes);
      in.kind_ = rd ? input_kind::rd : looks_like_text(look) ? input_kind::hex : input_kind::bin;
    }
    if (in.kind_ == input_kind::rd && ids) {
      // The ids, for names before the first packet: a pass over the section
      // headers (the whole stream, which also finds a corrupt gzip stream
      // before any output).
      detail::id_scan scan;
      auto fed = in.for_each_piece([&](byte_span p) {
        scan.feed(p);
        return true;
      });
      if (!fed) return fed.error_value();
      in.own_ = scan.gpu();
    }
    if (in.gzip_ && in.kind_ != input_kind::rd) {
      auto all = in.inflate_all();
      if (!all) return all.error_value();
    }
    return in;
  }

  input_kind kind() const noexcept { return kind_; }
  bool gzip() const noexcept { return gzip_; }
  const std::string& name() const noexcept { return src_.name(); }
  // The door's GPU (--gpu / gpu=), if any.
  const device* forced() const noexcept { return forced_; }
  // What an .rd capture's own ids name (null for hex and raw dwords).
  const device* own() const noexcept { return own_; }
  void set_own(const device* d) noexcept { own_ = d; }
  // The GPU whose names apply: the door's, else the capture's.
  const device* gpu() const noexcept { return forced_ != nullptr ? forced_ : own_; }

  // Hex text and raw dwords: the whole (inflated) input.
  byte_span whole() const noexcept { return gzip_ ? byte_span(inflated_) : src_.bytes(); }

  // Reads an .rd capture into `reader`, then calls at_end() (the sink's
  // finish, which may still look buffers up), in memory bounded whatever the
  // sizes of the capture and its buffers: a plain input's buffers are views
  // into its bytes (a mapped file: only the pages a walk touches count), a
  // gzip input's large ones are inflated again from an index of access
  // points when a lookup lands in them (docs/adreno.md, "Flat memory").
  // Errors are for_each_piece's, and a read again that failed.
  template <class Reader, class Fn>
  result<void> feed_rd(Reader& reader, Fn&& at_end) const {
    const auto feed = [&](byte_span p) { return static_cast<bool>(reader.feed(p)); };
    const auto done = [&](result<void> fed) -> result<void> {
      if (!fed) return fed.error_value();
      if (reader.fetch_error()) return *reader.fetch_error();
      (void)reader.finish();
      at_end();
      if (reader.fetch_error()) return *reader.fetch_error();
      return {};
    };
    if (!gzip_ && src_.path().empty()) {
      reader.set_backing(src_.bytes());
      return done(for_each_piece(feed));
    }
    if (!gzip_) {
      // A file is read again at the offsets wanted rather than through its
      // mapping: a page touched there may bring in a large page-cache folio
      // around it, and a view would keep it.
      detail::file_ranges source(src_.path());
      if (!source.open()) return make_error(errc::io, 0, "cannot read " + src_.path() + " again");
      reader.set_source(&source);
      auto r = done(for_each_piece(feed));
      reader.set_source(nullptr);
      return r;
    }
#ifdef HWPC_HAVE_ZLIB
    gzip_index index(src_.bytes());
    struct from_index final : rd::range_source {
      explicit from_index(gzip_index& i) : ix(i) {}
      result<void> read(std::size_t offset, std::size_t n, std::byte* out) override {
        return ix.read(offset, n, out);
      }
      gzip_index& ix;
    } source(index);
    reader.set_source(&source);
    auto r = done(for_each_piece(feed, &index));
    reader.set_source(nullptr);
    return r;
#else
    return done(for_each_piece(feed));
#endif
  }

  // Calls fn(byte_span) -> bool with the (inflated) bytes, in order, at most
  // block_size at a time, until it returns false; a file is read again from
  // its path. Errors are the file's or the gzip stream's.
  // `index`: told of the gzip stream's block boundaries (feed_rd).
  template <class Fn>
  result<void> for_each_piece(Fn&& fn, void* index = nullptr) const {
    bool more = true;
#ifdef HWPC_HAVE_ZLIB
    std::optional<gunzip_stream> z;
    if (gzip_) {
      z.emplace();
      z->observe(static_cast<gzip_index*>(index));
    }
#else
    (void)index;
#endif
    const auto give = [&](byte_span piece) -> result<void> {
#ifdef HWPC_HAVE_ZLIB
      if (z) {
        return z->feed(piece, [&](byte_span out) {
          if (more) more = fn(out);
          return true;
        });
      }
#endif
      more = fn(piece);
      return {};
    };
    if (!src_.path().empty()) {
      std::FILE* f = std::fopen(src_.path().c_str(), "rb");
      if (f == nullptr) return make_error(errc::io, 0, "cannot read " + src_.path() + " again");
      std::vector<std::byte> block(block_size);
      std::size_t at = 0;
      while (more) {
        const std::size_t n = std::fread(block.data(), 1, block.size(), f);
        if (n == 0) break;
        auto ok = give(byte_span(block.data(), n));
        if (!ok) {
          std::fclose(f);
          return ok.error_value();
        }
        at += n;
      }
      const bool bad = std::ferror(f) != 0;
      std::fclose(f);
      if (bad) return make_error(errc::io, at, "cannot read " + src_.path());
    } else {
      const byte_span all = src_.bytes();
      for (std::size_t at = 0; more && at < all.size(); at += block_size) {
        auto ok = give(all.subspan(at, std::min(block_size, all.size() - at)));
        if (!ok) return ok.error_value();
      }
    }
#ifdef HWPC_HAVE_ZLIB
    if (z && more) return z->finish();
#endif
    return {};
  }

 private:
  result<void> inflate_all() {
    return for_each_piece([this](byte_span p) {
      inflated_.insert(inflated_.end(), p.begin(), p.end());
      return true;
    });
  }

  capture_source src_ = capture_source::borrow({}, "");
  input_kind kind_ = input_kind::bin;
  bool gzip_ = false;
  const device* forced_ = nullptr;
  const device* own_ = nullptr;
  std::vector<std::byte> inflated_;  // gzip hex text or raw dwords only
};

}  // namespace hwpc::adreno
