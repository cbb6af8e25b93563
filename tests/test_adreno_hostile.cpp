// Hostile Adreno input: every truncation of a capture, random bit flips and
// overwrites, random bytes and random text. Nothing may crash or hang, every
// issue must name an offset inside the input, and every packet must lie
// inside it.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "adreno_gzip_writer.hpp"
#include "adreno_rd_writer.hpp"
#include "adreno_seed.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/recognise.hpp"

namespace {

using namespace hwpc::adreno;

struct checker : rd::capture_sink {
  std::size_t size = 0;
  std::size_t packets = 0, issues = 0;
  recogniser rec;
  void on_packet(const walked_packet& p) override {
    ++packets;
    EXPECT_LE(p.pkt.offset + p.pkt.size_bytes(), size);
    EXPECT_EQ(p.pkt.payload.size(), 4u * p.pkt.hdr.count);
    rec.push(p.pkt);
  }
  void on_issue(const hwpc::error& e) override {
    ++issues;
    EXPECT_LE(e.offset, size) << e.describe();
    EXPECT_FALSE(e.message.empty());
  }
  void on_note(const hwpc::error& e) override { EXPECT_LE(e.offset, size) << e.describe(); }
};

void read_rd(const std::vector<std::byte>& bytes) {
  checker c;
  c.size = bytes.size();
  walk_options opt;
  opt.max_dwords = 1 << 20;
  rd::capture_reader r(c, opt);
  auto res = r.read(bytes);
  if (!res) {
    EXPECT_LE(res.error_value().offset, bytes.size());
  }
  c.rec.finish();
  for (const auto& ev : c.rec.events()) EXPECT_LT(ev.offset, bytes.size());
}

std::vector<std::byte> sample_capture() {
  using adreno_rd::cat;
  using adreno_rd::ib;
  adreno_rd::writer w;
  w.gpu_id(530);
  w.buffer(0x1000, cat({ib(0x2000, 37), ib(0x3000, 10), {0, 0}}));
  w.buffer(0x2000, cat({adreno_seed::occlusion_begin, adreno_seed::occlusion_end}));
  w.buffer(0x3000, cat({adreno_seed::timestamp_begin, ib(0x1000, 12)}));  // calls back: a cycle
  w.cmdstream(0x1000, 12);
  return w.bytes;
}

TEST(AdrenoHostile, EveryTruncationOfACapture) {
  const auto full = sample_capture();
  for (std::size_t n = 0; n <= full.size(); ++n) {
    read_rd(std::vector<std::byte>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
  }
}

TEST(AdrenoHostile, BitFlipsAndOverwrites) {
  const auto full = sample_capture();
  std::mt19937 rng(2024);
  for (int iter = 0; iter < 3000; ++iter) {
    auto b = full;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % b.size();
      if (rng() & 1) {
        b[at] ^= static_cast<std::byte>(1u << (rng() % 8));
      } else {
        b[at] = static_cast<std::byte>(rng());
      }
    }
    read_rd(b);
  }
}

TEST(AdrenoHostile, RandomBytesAsRdAndAsAFlatStream) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<std::byte> b(rng() % 300);
    for (auto& x : b) x = static_cast<std::byte>(rng() % 4 ? rng() : 0);
    if (b.size() >= 8 && (rng() & 1)) {  // often a plausible first section
      b[0] = static_cast<std::byte>(1 + rng() % 17);
      b[1] = b[2] = b[3] = std::byte{0};
    }
    read_rd(b);
    checker c;
    c.size = b.size();
    walker w(c, nullptr);
    w.walk(b, 0, 0);
    EXPECT_EQ(w.stats().skipped_bytes + 4 * w.stats().padding_dwords <= b.size(), true);
  }
}

TEST(AdrenoHostile, RandomText) {
  std::mt19937 rng(11);
  const std::string alphabet = "0123456789abcdefxX: ,\n\t\r;zq\x1b\x01";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string t(rng() % 120, ' ');
    for (auto& c : t) c = alphabet[rng() % alphabet.size()];
    auto h = parse_hex_text(t);
    if (!h) {
      EXPECT_LE(h.error_value().offset, t.size());
      EXPECT_EQ(h.error_value().message.find('\x1b'), std::string::npos);
      continue;
    }
    ASSERT_EQ(h->offsets.size() * 4, h->bytes.size());
    for (std::size_t o : h->offsets) EXPECT_LT(o, t.size());
  }
}

#ifdef HWPC_HAVE_ZLIB
TEST(AdrenoHostile, CorruptGzip) {
  const auto gz = adreno_gz::gzip_stored(sample_capture());
  std::mt19937 rng(5);
  for (int iter = 0; iter < 2000; ++iter) {
    auto b = gz;
    b[rng() % b.size()] ^= static_cast<std::byte>(1u << (rng() % 8));
    if (rng() % 3 == 0) b.resize(rng() % b.size());
    auto r = gunzip(b, 1 << 20);
    if (!r) {
      EXPECT_LE(r.error_value().offset, b.size());
    } else {
      read_rd(*r);
    }
  }
}
#endif

}  // namespace
