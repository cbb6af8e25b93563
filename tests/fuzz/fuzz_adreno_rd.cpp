// Adreno input as `hwpc adreno` reads it: a freedreno .rd capture (sections,
// GPU buffers, command streams walked through the submit's address space),
// gzip-compressed (when built with zlib), or hex dword text. The first byte
// picks the reader: 0 .rd, 1 hex text, 2 gzip (then .rd, or hex when the
// inflated bytes look like text), others what the tool's detection says.
// Invariants: every error, issue and note offset lies inside the input;
// sections tile the input up to the framing error, which is the last issue;
// sections, buffers and command streams add up with the reader's counts;
// every walked packet lies inside the input, its payload the input's bytes at
// its offset; packets and issues counted by the sink = the walker's counts;
// hex text: one offset per dword, increasing, each at its token, the
// bookmark index gives the same offsets, the dwords printed back as text parse
// to the same bytes, and a walk a piece at a time (flat_walk_prefix) finds the
// same packets as the whole walk; a gzip member
// compressed here inflates back to what it holds.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/walk.hpp"

using namespace hwpc::adreno;

namespace {

// Checks what the walk reports against `input` (the bytes offsets count in).
class checking_sink : public rd::capture_sink {
 public:
  explicit checking_sink(hwpc::byte_span input) : in_(input) {}
  void on_packet(const walked_packet& w) override {
    const packet& p = w.pkt;
    FUZZ_CHECK(p.offset + p.size_bytes() <= in_.size(), "packet inside the input");
    FUZZ_CHECK(p.payload.data() == in_.data() + p.offset + 4, "payload is the input's bytes");
    FUZZ_CHECK(p.payload.size() == std::size_t{p.hdr.count} * 4, "payload size from the header");
    FUZZ_CHECK(encode(p.hdr) == hwpc::load_le32(in_.data() + p.offset), "header at its offset");
    ++packets;
  }
  void on_issue(const hwpc::error& e) override {
    fuzz::check_error(e, in_.size());
    FUZZ_CHECK(e.anchor != hwpc::error_anchor::byte_offset || e.offset < in_.size(),
               "issue at a byte of the input");
    last_issue = e;
    ++issues;
  }
  void on_note(const hwpc::error& e) override { fuzz::check_error(e, in_.size()); }
  void on_gpu_id(std::uint32_t, std::size_t offset) override {
    FUZZ_CHECK(offset + 12 <= in_.size(), "RD_GPU_ID section inside the input");
  }
  void on_cmdstream(const rd::address_range&, std::size_t offset) override {
    FUZZ_CHECK(offset + 16 <= in_.size(), "RD_CMDSTREAM_ADDR section inside the input");
    ++cmdstreams;
  }

  std::size_t packets = 0, issues = 0, cmdstreams = 0;
  hwpc::error last_issue;

 private:
  hwpc::byte_span in_;
};

void read_rd(hwpc::byte_span bytes) {
  // The sections alone.
  rd::section_cursor c(bytes);
  // libwrap's marker pairs (two 0xffffffff dwords, FACTS-live) may stand
  // wherever a section header may start, any number of them.
  const auto past_markers = [&](std::size_t at) {
    while (at + 8 <= bytes.size() &&
           std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                       bytes.begin() + static_cast<std::ptrdiff_t>(at + 8),
                       [](std::byte b) { return b == std::byte{0xff}; })) {
      at += 8;
    }
    return at;
  };
  std::size_t sections = 0, buffers = 0, expect = past_markers(0);
  bool framing_error = false;
  std::size_t framing_at = 0;
  while (!c.done()) {
    auto s = c.next();
    if (!s) {
      fuzz::check_error(s.error_value(), bytes.size());
      FUZZ_CHECK(s.error_value().offset == expect, "framing error at the next section");
      framing_error = true;
      framing_at = expect;
      break;
    }
    FUZZ_CHECK(s->offset == expect, "sections are contiguous");
    FUZZ_CHECK(s->payload.data() == bytes.data() + s->payload_offset(), "payload in place");
    expect += rd::section_header_size + s->payload.size();
    FUZZ_CHECK(expect <= bytes.size(), "section inside the input");
    expect = past_markers(expect);
    ++sections;
    if (s->type == static_cast<std::uint32_t>(rd::section_type::buffer_contents)) ++buffers;
  }
  FUZZ_CHECK(framing_error || expect == bytes.size(), "sections tile the input");
  if (rd::looks_like_rd(bytes)) FUZZ_CHECK(sections >= 1, "an .rd start frames a section");

  // The whole capture.
  checking_sink sink(bytes);
  rd::capture_reader reader(sink, walk_options{8, std::uint64_t{1} << 16, 64});
  const auto r = reader.read(bytes);
  if (bytes.empty()) {
    FUZZ_CHECK(!r, "empty capture is an error");
    return;
  }
  FUZZ_CHECK(static_cast<bool>(r) == !framing_error, "read fails on the framing error only");
  if (!r) {
    FUZZ_CHECK(r.error_value().offset == framing_at, "read stops at the framing error");
    FUZZ_CHECK(sink.last_issue.offset == framing_at, "the framing error is the last issue");
  }
  FUZZ_CHECK(reader.stats().sections == sections, "sections counted");
  FUZZ_CHECK(reader.stats().buffers <= buffers, "buffers come from BUFFER_CONTENTS");
  FUZZ_CHECK(reader.stats().cmdstreams == sink.cmdstreams, "one walk per command stream");
  FUZZ_CHECK(reader.walk().packets == sink.packets, "every walked packet reaches the sink");
  FUZZ_CHECK(reader.walk().issues <= sink.issues, "walker issues reach the sink");
  FUZZ_CHECK(reader.walk().dwords <= (std::uint64_t{1} << 16) + 0x8000,
             "the walk stays within its budget (one packet over at most)");
}

void read_hex(hwpc::byte_span bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto h = parse_hex_text(text);
  if (!h) {
    fuzz::check_error(h.error_value(), text.size());
    FUZZ_CHECK(h.error_value().offset <= text.size(), "hex error inside the text");
    return;
  }
  FUZZ_CHECK(h->bytes.size() == 4 * h->offsets.size(), "one offset per dword");
  std::string again;
  for (std::size_t i = 0; i < h->offsets.size(); ++i) {
    const std::size_t o = h->offsets[i];
    FUZZ_CHECK(o < text.size(), "dword token inside the text");
    FUZZ_CHECK(i == 0 || o > h->offsets[i - 1], "dword offsets increase");
    FUZZ_CHECK(detail::hex_digit(text[o]) >= 0, "a dword token starts with a hex digit");
    FUZZ_CHECK(h->text_offset(4 * i, text.size()) == o, "text_offset maps dword bytes");
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x%c", hwpc::load_le32(h->bytes.data() + 4 * i),
                  i % 8 == 7 ? '\n' : ' ');
    again += buf;
  }
  auto h2 = parse_hex_text(again);
  FUZZ_CHECK(h2 && h2->bytes == h->bytes, "dwords printed as text parse back the same");
  FUZZ_CHECK(h2->prose_lines == 0, "printed dwords have no prose");

  // The bookmarks give the same offsets, in any order of lookups.
  hex_offset_index index;
  auto n = index.build(text);
  FUZZ_CHECK(n && *n == h->offsets.size(), "the index counts the dwords");
  FUZZ_CHECK(index.prose_lines() == h->prose_lines, "the index counts prose lines");
  for (std::size_t i = 0; i < h->offsets.size(); i += 1 + i % 7) {
    FUZZ_CHECK(index.text_offset(4 * i + i % 4) == h->offsets[i], "index offsets, forwards");
  }
  for (std::size_t i = h->offsets.size(); i-- > 0;) {
    FUZZ_CHECK(index.text_offset(4 * i) == h->offsets[i], "index offsets, backwards");
  }
  FUZZ_CHECK(index.text_offset(h->bytes.size()) == text.size(), "past the last dword");

  // Walk the dwords whole, then a piece at a time as the tool does: the same packets.
  checking_sink sink(h->bytes);
  walker w(sink, nullptr);
  w.walk(h->bytes, 0, 0);
  FUZZ_CHECK(w.stats().packets == sink.packets, "every packet reaches the sink");
  FUZZ_CHECK(w.stats().issues == sink.issues, "every issue reaches the sink");
  checking_sink pieces_sink(h->bytes);
  walker pieces(pieces_sink, nullptr);
  hwpc::byte_span rest(h->bytes);
  std::size_t walked = 0;
  const std::size_t piece = 4 * (1 + text.size() % 64);
  while (true) {
    const bool end = rest.size() <= piece;
    const hwpc::byte_span p = end ? rest : rest.first(piece);
    const std::size_t cut = end ? p.size() : flat_walk_prefix(p);
    FUZZ_CHECK(cut % 4 == 0 && cut <= p.size(), "a prefix of whole dwords");
    pieces.walk(p.first(cut), walked, walked);
    walked += cut;
    rest = rest.subspan(cut);
    if (end) break;
    if (cut == 0) {  // a packet longer than the piece: walk it with the rest
      pieces.walk(rest, walked, walked);
      break;
    }
  }
  FUZZ_CHECK(pieces.stats().packets == w.stats().packets, "piecewise walk: the same packets");
  FUZZ_CHECK(pieces.stats().padding_dwords == w.stats().padding_dwords, "the same padding");
  FUZZ_CHECK(pieces.stats().skipped_bytes == w.stats().skipped_bytes, "the same bytes skipped");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const hwpc::byte_span bytes(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  switch (mode) {
    case 0:
      read_rd(bytes);
      return 0;
    case 1:
      read_hex(bytes);
      return 0;
    case 2: {
#ifdef HWPC_HAVE_ZLIB
      FUZZ_CHECK(is_gzip(bytes) == (bytes.size() >= 2 && data[1] == 0x1f && data[2] == 0x8b),
                 "is_gzip: the magic");
      auto z = gunzip(bytes, std::size_t{1} << 20);
      if (!z) {
        fuzz::check_error(z.error_value(), bytes.size());
        FUZZ_CHECK(z.error_value().offset <= bytes.size(), "gzip error inside the input");
        return 0;
      }
      FUZZ_CHECK(z->size() <= (std::size_t{1} << 20), "output within its limit");
      // Compress what came out and inflate it again: the same bytes.
      std::vector<unsigned char> packed(compressBound(static_cast<uLong>(z->size())) + 32);
      z_stream zs{};
      FUZZ_CHECK(deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK,
                 "deflateInit2");
      zs.next_in = reinterpret_cast<Bytef*>(z->data());
      zs.avail_in = static_cast<uInt>(z->size());
      zs.next_out = packed.data();
      zs.avail_out = static_cast<uInt>(packed.size());
      FUZZ_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END, "deflate");
      packed.resize(zs.total_out);
      deflateEnd(&zs);
      auto back = gunzip({reinterpret_cast<const std::byte*>(packed.data()), packed.size()});
      FUZZ_CHECK(back && *back == *z, "gzip round trip");
      if (looks_like_text(*z)) {
        read_hex(*z);
      } else {
        read_rd(*z);
      }
#endif
      return 0;
    }
    default:
      if (rd::looks_like_rd(bytes)) {
        read_rd(bytes);
      } else if (looks_like_text(bytes)) {
        read_hex(bytes);
      } else {
        read_rd(bytes);
      }
      return 0;
  }
}
