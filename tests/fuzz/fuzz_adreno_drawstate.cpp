// A6XX/A7XX command streams as `hwpc adreno` walks them: an .rd capture read
// as the generation the first byte picks (0 A5XX, 1 A6XX, 2 A7XX, others the
// capture's own ids, which may name none, or change along the file), so that CP_SET_DRAW_STATE
// records, CP_START_BIN prefixes, CP_SET_MARKER passes and the A7XX packets (CP_EVENT_WRITE7,
// CP_THREAD_CONTROL) are all reached. Invariants: every walked packet lies inside the input, its
// payload the input's bytes at its offset; its depth stays under max_depth, its group is -1 or a
// 5-bit id, its pass a 4-bit mode, and a group or pass is only ever set on a forced A6XX/A7XX;
// every issue and note offset lies inside the input; the walk stays within its dword budget (one
// packet over at most) and pending buffers stay bounded by it; the fields and names of every packet
// can be described for its generation without failing. Both .rd dialects (the kernel's and
// Android libwrap's marker pairs, mixed at will) are read by content. The same bytes are then
// fed to rd::stream_reader in pieces the second byte sizes: it must list the same packets at
// the same offsets with the input's own payload bytes, the same issue and note offsets, and
// never hold more bytes than the input.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/adreno/fields.hpp"
#include "hwpc/adreno/generation_names.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/rd_stream.hpp"

using namespace hwpc::adreno;

namespace {

constexpr unsigned max_depth = 8;
constexpr std::uint64_t budget = std::uint64_t{1} << 16;

class checking_sink : public rd::capture_sink {
 public:
  checking_sink(hwpc::byte_span input, generation g, bool forced)
      : in_(input), gen_(g), forced_(forced) {}
  void on_packet(const walked_packet& w) override {
    const packet& p = w.pkt;
    FUZZ_CHECK(p.offset + p.size_bytes() <= in_.size(), "packet inside the input");
    FUZZ_CHECK(p.payload.data() == in_.data() + p.offset + 4, "payload is the input's bytes");
    FUZZ_CHECK(w.depth < max_depth, "depth under max_depth");
    FUZZ_CHECK(w.group >= -1 && w.group < 32, "group is -1 or a 5-bit id");
    FUZZ_CHECK(w.pass < 16, "pass is a 4-bit mode");
    const bool a6 = gen_ == generation::a6xx || gen_ == generation::a7xx;
    FUZZ_CHECK(!forced_ || a6 || (w.group == -1 && w.pass == 0),
               "groups and passes only on A6XX/A7XX");
    // Names and fields of every generation, from any packet.
    const std::string f = describe_fields(p, gen_);
    FUZZ_CHECK(gen_ != generation::unknown || f.empty(), "no fields without a GPU");
    (void)opcode_name(gen_, p.hdr.id);
    (void)register_label(gen_, p.hdr.id);
    if (p.hdr.count >= 1) (void)event_name(gen_, p.dword(0) & 0xff);
    ++packets;
  }
  void on_issue(const hwpc::error& e) override {
    fuzz::check_error(e, in_.size());
    ++issues;
  }
  void on_note(const hwpc::error& e) override { fuzz::check_error(e, in_.size()); }

  std::size_t packets = 0, issues = 0;

 private:
  hwpc::byte_span in_;
  generation gen_;
  bool forced_;
};

// What a walk reports, for comparing the whole-file reader with the stream reader.
struct listing_sink : rd::capture_sink {
  explicit listing_sink(hwpc::byte_span input) : in_(input) {}
  void on_packet(const walked_packet& w) override {
    const packet& p = w.pkt;
    FUZZ_CHECK(p.offset + p.size_bytes() <= in_.size(), "stream: packet inside the input");
    FUZZ_CHECK(std::equal(p.payload.begin(), p.payload.end(), in_.begin() + p.offset + 4),
               "stream: payload equals the input's bytes at its offset");
    seen.push_back(p.offset * 4 + w.depth);
  }
  void on_issue(const hwpc::error& e) override {
    fuzz::check_error(e, in_.size());
    seen.push_back(~e.offset);
  }
  void on_note(const hwpc::error& e) override {
    fuzz::check_error(e, in_.size());
    seen.push_back(~e.offset ^ 0x5555);
  }
  std::vector<std::size_t> seen;

 private:
  hwpc::byte_span in_;
};

const device* device_of(std::uint8_t mode) {
  switch (mode) {
    case 0:
      return parse_device("a530");
    case 1:
      return parse_device("a630");
    case 2:
      return parse_device("a750");
    default:
      return nullptr;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const hwpc::byte_span bytes(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  const device* forced = device_of(mode);
  const device* own = rd::capture_device(bytes);
  const generation g = forced != nullptr ? forced->gen
                       : own != nullptr  ? own->gen
                                         : generation::unknown;
  checking_sink sink(bytes, g, forced != nullptr);
  rd::capture_reader reader(sink, walk_options{max_depth, budget, 64});
  if (forced != nullptr) reader.force_device(forced);
  (void)reader.read(bytes);
  if (forced != nullptr) {
    FUZZ_CHECK(reader.gpu() == forced, "a forced device stays");
  } else {
    FUZZ_CHECK(reader.gpu() == own, "the ids resolve as capture_device says");
  }
  FUZZ_CHECK(reader.walk().packets == sink.packets, "every walked packet reaches the sink");
  FUZZ_CHECK(reader.walk().issues <= sink.issues, "walker issues reach the sink");
  FUZZ_CHECK(reader.walk().dwords <= budget + 0x8000, "the walk stays within its budget");

  // The stream reader, in pieces of 1..256 bytes: what the whole-file reader finds.
  const std::size_t piece = bytes.empty() ? 1 : 1 + std::to_integer<std::size_t>(bytes[0]);
  listing_sink whole(bytes), streamed(bytes);
  rd::capture_reader w(whole, walk_options{max_depth, budget, 64});
  rd::stream_reader s(streamed, walk_options{max_depth, budget, 64});
  if (forced != nullptr) {
    w.force_device(forced);
    s.force_device(forced);
  }
  (void)w.read(bytes);
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    if (!s.feed(bytes.subspan(at, std::min(piece, bytes.size() - at)))) break;
  }
  (void)s.finish();
  if (!bytes.empty()) {
    // The default budget grows with the input the stream has seen, so a walk over budget
    // may stop at another packet; compare only captures walked within it.
    if (!w.walk().budget_exhausted && !s.walk().budget_exhausted) {
      FUZZ_CHECK(whole.seen == streamed.seen, "stream reader lists what the whole reader lists");
    }
    FUZZ_CHECK(s.peak_held_bytes() <= bytes.size(), "stream reader holds no more than the input");
    FUZZ_CHECK(s.stats().marked_sections == w.stats().marked_sections, "same dialect counts");
  }
  return 0;
}
