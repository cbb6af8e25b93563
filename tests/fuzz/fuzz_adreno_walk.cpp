// The indirect-buffer walker: a GPU address space of up to four buffers cut
// from the input (at addresses from a small set, so IB packets find them, or
// anywhere), walk options from the input (depth, dword budget, chain hops),
// and the rest of the input walked as the top-level stream; then the same
// stream walked flat (no address space).
// Invariants: every packet lies inside the input with its payload the input's
// bytes at its offset and its GPU address inside its buffer; depth below the
// limit; issue offsets inside the input; the sink's counts = the walker's;
// the budget holds (one packet over at most); flat walks account for every
// byte (packets + padding + skipped + a trailing partial dword = the stream)
// and agree with packet_cursor up to its first error; walking again gives the
// same counts.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/walk.hpp"

using namespace hwpc::adreno;

namespace {

struct placed {
  std::uint64_t iova;
  std::size_t file_offset, size;
};

class checking_sink : public walk_sink {
 public:
  checking_sink(hwpc::byte_span input, const std::vector<placed>& bufs, unsigned max_depth)
      : in_(input), bufs_(bufs), max_depth_(max_depth) {}
  void on_packet(const walked_packet& w) override {
    const packet& p = w.pkt;
    FUZZ_CHECK(p.offset + p.size_bytes() <= in_.size(), "packet inside the input");
    FUZZ_CHECK(p.payload.data() == in_.data() + p.offset + 4, "payload is the input's bytes");
    FUZZ_CHECK(encode(p.hdr) == hwpc::load_le32(in_.data() + p.offset), "header at its offset");
    FUZZ_CHECK(w.depth < max_depth_, "depth below the limit");
    if (w.depth > 0) {
      bool inside = false;
      for (const placed& b : bufs_) {
        inside |= w.gpu_addr >= b.iova && w.gpu_addr - b.iova < b.size &&
                  p.offset - b.file_offset == w.gpu_addr - b.iova;
      }
      FUZZ_CHECK(inside, "an IB packet sits in a buffer at its GPU address");
    }
    packets.push_back(p.offset);
  }
  void on_issue(const hwpc::error& e) override {
    fuzz::check_error(e, in_.size());
    FUZZ_CHECK(e.anchor != hwpc::error_anchor::byte_offset || e.offset < in_.size(),
               "issue at a byte of the input");
    ++issues;
  }
  void on_note(const hwpc::error& e) override {
    fuzz::check_error(e, in_.size());
    ++notes;
  }

  std::vector<std::size_t> packets;
  std::size_t issues = 0, notes = 0;

 private:
  hwpc::byte_span in_;
  const std::vector<placed>& bufs_;
  unsigned max_depth_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const hwpc::byte_span all(reinterpret_cast<const std::byte*>(data), size);
  walk_options opt;
  const std::uint8_t o = in.u8();
  opt.max_depth = 1 + o % 8;
  // A small budget either way: the default (2^26 and more) lets IBs that call
  // each other walk tens of millions of dwords, by design, and slows fuzzing.
  opt.max_dwords = (o & 0x08) ? 1 + in.u8() * 16u : std::uint64_t{1} << 16;
  opt.max_chain = 1 + (o >> 4);
  const unsigned nbufs = in.u8() % 5;
  rd::address_space space;
  std::vector<placed> bufs;
  for (unsigned i = 0; i < nbufs; ++i) {
    const std::uint8_t where = in.u8();
    const std::uint64_t iova =
        (where & 0x80) ? std::uint64_t{in.u32()} << 12 | in.u8() : 0x10000ull * (1 + where % 8);
    const std::size_t len = std::size_t{in.u8()} * 4 + in.u8() % 4;
    const std::size_t at = size - in.n;
    const std::size_t take = len < in.n ? len : in.n;
    space.add(rd::gpu_buffer{iova, all.subspan(at, take), at});
    bufs.push_back({iova, at, take});
    in.p += take;
    in.n -= take;
  }
  const std::size_t top = size - in.n;
  const hwpc::byte_span stream = in.rest();

  // Through the address space.
  checking_sink sink(all, bufs, opt.max_depth);
  walker w(sink, &space, opt);
  w.set_input_bytes(size);
  w.walk(stream, top, 0x10000ull);
  const walk_stats& s = w.stats();
  FUZZ_CHECK(s.packets == sink.packets.size(), "every packet reaches the sink");
  FUZZ_CHECK(s.issues == sink.issues, "every issue reaches the sink");
  FUZZ_CHECK(s.ibs_followed <= s.packets, "an IB followed per IB packet at most");
  FUZZ_CHECK(s.budget_exhausted == (s.dwords > w.budget()), "budget exhausted when spent");
  FUZZ_CHECK(s.dwords <= w.budget() + 1 + 0x7fff, "the budget holds");
  // Again: the same counts (the walker keeps no state between walks but its stats).
  {
    checking_sink sink2(all, bufs, opt.max_depth);
    walker w2(sink2, &space, opt);
    w2.set_input_bytes(size);
    w2.walk(stream, top, 0x10000ull);
    FUZZ_CHECK(sink2.packets == sink.packets && sink2.issues == sink.issues,
               "walking again gives the same packets and issues");
  }

  // Flat: every byte accounted for, and the cursor agrees up to its first error.
  checking_sink flat_sink(all, bufs, 1);
  walker flat(flat_sink, nullptr);
  flat.walk(stream, top, 0);
  const walk_stats& f = flat.stats();
  FUZZ_CHECK(!f.budget_exhausted, "a flat walk fits the default budget");
  FUZZ_CHECK(f.ibs_followed == 0, "no IB followed without an address space");
  std::size_t packet_bytes = 0;
  for (std::size_t off : flat_sink.packets) {
    const std::uint32_t count = decode_header(hwpc::load_le32(all.data() + off)).hdr.count;
    packet_bytes += 4 + std::size_t{count} * 4;
  }
  FUZZ_CHECK(
      packet_bytes + 4 * f.padding_dwords + f.skipped_bytes + stream.size() % 4 == stream.size(),
      "flat walk: every byte is a packet, padding, skipped or a trailing partial dword");
  packet_cursor c(stream);
  std::size_t k = 0;
  while (!c.done()) {
    auto p = c.next();
    if (!p) break;
    FUZZ_CHECK(k < flat_sink.packets.size() && flat_sink.packets[k] == top + p->offset,
               "flat walk agrees with packet_cursor");
    ++k;
  }
  return 0;
}
