// The packet listing of an Adreno input, for every door (`hwpc adreno`,
// `hwpc adreno --packets`, hwpc.adreno.packets): each packet named with the
// generation of the GPU whose names apply (the door's, else the capture's
// ids; none: numbers only), and on that generation the queries and counter
// programming recognised. An .rd capture, plain or gzip, is streamed
// (adreno_input.hpp); hex text is walked a piece at a time; raw dwords in
// place (docs/adreno.md, "Command line").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwpc/adreno/explain.hpp"
#include "hwpc/adreno/fields.hpp"
#include "hwpc/adreno/flat_walk.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/listing.hpp"
#include "hwpc/adreno/packet_copies.hpp"
#include "hwpc/adreno/rd_stream.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/adreno/recognise6.hpp"
#include "hwpc/adreno/walk.hpp"
#include "hwpc/core/bytes.hpp"
#include "hwpc/core/error.hpp"
#include "hwpc/output/text.hpp"
#include "hwpc/pipeline/adreno_input.hpp"

namespace hwpc::adreno {

// What a listing is handed: packets, issues and notes, with file_offset()
// mapping the offsets the walk reports into the file the user gave (hex
// text: the offset of the token in the text).
class listing_sink : public rd::capture_sink {
 public:
  std::size_t file_offset(std::size_t o) const {
    return index_ != nullptr ? index_->text_offset(o) : o;
  }
  void map_offsets(hex_offset_index* index) noexcept { index_ = index; }
  // After the last packet.
  virtual void finish() {}

 private:
  hex_offset_index* index_ = nullptr;  // its cursors move as it maps
};

// Walks every packet of `in` into `sink` with in.gpu()'s generation, then
// calls sink.finish(). Errors: hex text that does not parse (before any
// packet), a file that cannot be read again; problems in the stream are the
// sink's issues.
// `Sink` is listing_sink or a class derived from it: a final one is called
// without a virtual call per packet (walk.hpp).
template <class Sink>
result<walk_stats> walk_packets(const capture_input& in, Sink& sink) {
  const device* gpu = in.gpu();
  const generation gen = gpu != nullptr ? gpu->gen : generation::unknown;
  if (in.kind() == input_kind::rd) {
    rd::basic_stream_reader<Sink> reader(sink);
    if (in.forced() != nullptr) reader.force_device(in.forced());
    // A framing error is an issue the reader reports to the sink.
    auto fed = in.feed_rd(reader, [&] { sink.finish(); });
    if (!fed) return fed.error_value();
    return reader.walk();
  }
  if (in.kind() == input_kind::bin) {
    basic_walker<Sink> w(sink, nullptr);
    w.set_generation(gen);
    w.walk(in.whole(), 0, 0);
    sink.finish();
    return w.stats();
  }
  // Hex text, read twice in constant memory: once to check it (a syntax
  // error fails before any packet) and bookmark it for offsets, once to walk
  // its dwords a piece at a time.
  const byte_span data = in.whole();
  const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  hex_offset_index index;
  auto n = index.build(text);
  if (!n) return n.error_value();
  sink.map_offsets(&index);
  basic_walker<Sink> w(sink, nullptr);
  w.set_generation(gen);
  w.set_input_bytes(4 * *n);
  hex_reader reader(text);
  constexpr std::size_t piece_bytes = std::size_t{1} << 20;  // > the largest packet (128 KiB)
  std::vector<std::byte> piece;
  std::size_t walked = 0;  // bytes of dwords walked before `piece`
  for (bool end = false; !end;) {
    std::uint32_t v = 0;
    std::size_t at = 0;
    while (piece.size() < piece_bytes) {
      auto more = reader.next(v, at);  // no error: index.build() read it all
      if (!more || !*more) {
        end = true;
        break;
      }
      const std::size_t b = piece.size();
      piece.resize(b + 4);
      store_le32(piece.data() + b, v);
    }
    const std::size_t cut = end ? piece.size() : flat_walk_prefix(piece);
    w.walk(byte_span(piece).first(cut), walked, walked);
    walked += cut;
    piece.erase(piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(cut));
  }
  sink.finish();
  sink.map_offsets(nullptr);
  return w.stats();
}

// The listing as columns, one entry per packet in each (hwpc.adreno.packets'
// table: the fields of listing_writer's records, typed), and the issues and
// notes ("note: ...") as text, offsets in the user's file.
class packet_columns final : public listing_sink {
 public:
  explicit packet_columns(generation g) : gen_(g) {}
  void on_packet(const walked_packet& w) override {
    const packet_record r = record_of(w, gen_, file_offset(w.pkt.offset));
    offset.push_back(static_cast<std::int64_t>(r.offset));
    gpu_address.push_back(r.gpu_address);
    depth.push_back(static_cast<std::int32_t>(r.depth));
    group.push_back(r.group);
    pass.emplace_back(r.pass);
    type.push_back(r.type7 ? 7 : 4);
    id.push_back(r.id);
    name.push_back(r.name);
    count.push_back(r.count);
    payload.push_back(r.payload);
    event.push_back(r.event);
    event_name.emplace_back(r.event_name);
  }
  void on_issue(const error& e) override { issues.push_back(mapped(e).describe()); }
  void on_note(const error& e) override { issues.push_back("note: " + mapped(e).describe()); }

  std::vector<std::int64_t> offset;
  std::vector<std::uint64_t> gpu_address;
  std::vector<std::int32_t> depth, group, type, event;  // group, event: -1 for none
  std::vector<std::uint32_t> id, count;
  std::vector<std::string> pass, name, payload, event_name, issues;

 private:
  error mapped(error e) const {
    e.offset = file_offset(e.offset);
    return e;
  }
  generation gen_;
};

// The text listing: one line per packet (`lines`), and after the packets of
// each recognised query or counter select/sample a line "OFFSET: => what it
// does" (without `lines`, those lines alone, without "=>"); or, given a
// listing_writer, one record per packet and nothing else. Issues and notes
// go to `on_issue` as they come, offsets in the user's file.
class text_listing final : public listing_sink {
 public:
  using issue_fn = std::function<void(const error&, bool note)>;

  text_listing(output::text_buffer& out, bool lines, generation gen, issue_fn on_issue,
               listing_writer* records = nullptr)
      : out_(out),
        lines_(lines && records == nullptr),
        gen_(gen),
        on_issue_(std::move(on_issue)),
        records_(records) {}

  void on_packet(const walked_packet& w) override {
    if (records_ != nullptr) {
      records_->write(record_of(w, gen_, file_offset(w.pkt.offset)));
      return;
    }
    if (lines_) print_packet(w);
    if (gen_ == generation::a6xx || gen_ == generation::a7xx) {
      rec6_.push(w.pkt, [this](const query6_event& e) {
        at(e.offset);
        out_ << describe(gen_, e) << "\n";
      });
      return;
    }
    // The A5XX recogniser knows the A5XX sequences and registers only. It
    // reads a packet up to its window later: it gets copies. print_event()
    // is called out of line: the recogniser's kept event suits it.
    if (gen_ != generation::a5xx) return;
    rec_.push<recogniser::hand_on::kept_event>(copies_.keep(w.pkt),
                                               [this](const query_event& ev) { print_event(ev); });
  }
  void on_issue(const error& e) override {
    ++issues_;
    report(e, false);
  }
  void on_note(const error& e) override { report(e, true); }
  void on_gpu_id(std::uint32_t id, std::size_t) override {
    if (lines_) out_ << "GPU id " << std::uint64_t{id} << "\n";
  }
  void on_chip_id(std::uint64_t id, std::size_t) override {
    if (lines_) out_ << "chip id " << to_hex(id) << "\n";
  }
  void on_cmdstream(const rd::address_range& r, std::size_t offset) override {
    if (!lines_) return;
    char line[128];
    std::snprintf(line, sizeof line, "\ncmdstream 0x%llx, %u dwords (RD_CMDSTREAM_ADDR at %08zx)\n",
                  static_cast<unsigned long long>(r.iova), static_cast<unsigned>(r.size),
                  file_offset(offset));
    out_ << std::string_view(line);
  }
  // Recognises what is left and prints the events not printed yet.
  void finish() override {
    rec_.finish();
    rec_.release([this](const query_event& ev) { print_event(ev); }, true);
  }
  std::size_t issues() const noexcept { return issues_; }

 private:
  void report(const error& e, bool note) {
    if (!on_issue_) return;
    error m = e;
    m.offset = file_offset(e.offset);
    on_issue_(m, note);
  }
  void at(std::size_t offset) {
    char b[32];
    std::snprintf(b, sizeof b, lines_ ? "%08zx: => " : "%08zx: ", file_offset(offset));
    out_ << std::string_view(b);
  }
  // Events are printed as soon as they are final, so nothing but the events
  // behind an unpaired timestamp (at most `hold` of them) is kept.
  void print_event(const query_event& ev) {
    at(ev.offset);
    out_ << describe(ev) << "\n";
  }

  static std::string hex32(std::uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "%08x", static_cast<unsigned>(v));
    return b;
  }

  void print_packet(const walked_packet& w) {
    const packet& p = w.pkt;
    std::string name;
    if (p.hdr.type == packet_type::type7) {
      const auto n = opcode_name(gen_, p.hdr.id);
      name = n.empty() ? "opcode 0x" + hex32(p.hdr.id).substr(6) : std::string(n);
    } else {
      const auto n = register_label(gen_, p.hdr.id);
      name = "write " + (n.empty() ? "0x" + hex32(p.hdr.id).substr(3) : n);
    }
    char line[160];
    std::snprintf(line, sizeof line, "%08zx: %*s%08x  pkt%c %-34s count=%u", file_offset(p.offset),
                  static_cast<int>(2 * (w.depth < 16 ? w.depth : 16)), "",
                  static_cast<unsigned>(encode(p.hdr)),
                  p.hdr.type == packet_type::type7 ? '7' : '4', name.c_str(),
                  static_cast<unsigned>(p.hdr.count));
    out_ << std::string_view(line);
    const std::uint32_t shown = p.hdr.count < 16 ? p.hdr.count : 16;
    for (std::uint32_t i = 0; i < shown; ++i) out_ << (i ? " " : "  ") << hex32(p.dword(i));
    if (shown < p.hdr.count) out_ << " ...";
    if (w.group >= 0) {
      out_ << "  [draw-state group " << std::uint64_t(w.group);
      if (w.pass != 0) out_ << ", " << pass_name(w.pass);
      out_ << "]";
    }
    if (p.hdr.type == packet_type::type7) {
      const std::string f = describe_fields(p, gen_);
      if (!f.empty()) out_ << "  ; " << f;
    }
    out_ << "\n";
  }

  output::text_buffer& out_;
  bool lines_;
  generation gen_;
  issue_fn on_issue_;
  listing_writer* records_;
  recogniser6 rec6_{gen_};
  recogniser rec_{std::size_t{1} << 16};
  packet_copies copies_;
  std::size_t issues_ = 0;
};

}  // namespace hwpc::adreno
