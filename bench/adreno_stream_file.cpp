// Reads an Adreno .rd or .rd.gz capture through rd::stream_reader, the way a
// caller with bounded memory would: the file in 1 MiB blocks (gzip: the
// compressed file in memory, its output inflated 1 MiB at a time into the
// reader), and prints the packets walked and the most bytes the reader held.
// docs/performance.md ("Adreno at scale") times it and measures its peak RSS
// with /usr/bin/time -v on a 400 MB capture of `hwpc adreno emulate --size`.
#include <cstdio>
#include <vector>

#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/rd_stream.hpp"

namespace {
struct counting_sink : hwpc::adreno::rd::capture_sink {
  std::size_t packets = 0, issues = 0;
  void on_packet(const hwpc::adreno::walked_packet&) override { ++packets; }
  void on_issue(const hwpc::error&) override { ++issues; }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: adreno_stream_file FILE.rd[.gz]\n");
    return 1;
  }
  std::FILE* f = std::fopen(argv[1], "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  counting_sink sink;
  hwpc::adreno::rd::stream_reader reader(sink);
  std::vector<std::byte> block(std::size_t{1} << 20);
  std::size_t n = std::fread(block.data(), 1, block.size(), f);
  const bool gz = hwpc::adreno::is_gzip(hwpc::byte_span(block.data(), n));
  if (gz) {
#ifdef HWPC_HAVE_ZLIB
    std::vector<std::byte> compressed(block.begin(), block.begin() + static_cast<long>(n));
    while ((n = std::fread(block.data(), 1, block.size(), f)) > 0) {
      compressed.insert(compressed.end(), block.begin(), block.begin() + static_cast<long>(n));
    }
    auto out = hwpc::adreno::gunzip_to(
        compressed, [&](hwpc::byte_span p) { return static_cast<bool>(reader.feed(p)); });
    if (!out) std::fprintf(stderr, "%s\n", out.error_value().describe().c_str());
#else
    std::fprintf(stderr, "built without zlib\n");
    return 1;
#endif
  } else {
    do {
      (void)reader.feed(hwpc::byte_span(block.data(), n));
    } while ((n = std::fread(block.data(), 1, block.size(), f)) > 0);
  }
  std::fclose(f);
  (void)reader.finish();
  std::printf("packets %zu issues %zu peak held %zu bytes\n", sink.packets, sink.issues,
              reader.peak_held_bytes());
  return 0;
}
