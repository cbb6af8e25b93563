// The end-to-end baseline for `hwpc decode --summary`: what a first program
// would do — read the whole file into memory, then sum every per-interval
// delta of every counter with the reference loop (accumulate_naive), and
// print the same CSV summary.
//
//   naive_decode_file PLATFORM FORMAT FILE
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "hwpc/intel.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: naive_decode_file PLATFORM FORMAT FILE\n");
    return 1;
  }
  const auto plat = hwpc::intel::platform_from_name(argv[1]);
  const hwpc::intel::report_format* f =
      plat ? hwpc::intel::find_format(*plat, std::string_view(argv[2])) : nullptr;
  if (f == nullptr) {
    std::fprintf(stderr, "naive_decode_file: unknown platform or format\n");
    return 1;
  }
  std::ifstream in(argv[3], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "naive_decode_file: cannot open %s\n", argv[3]);
    return 2;
  }
  in.seekg(0, std::ios::end);
  std::vector<char> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  auto buf = hwpc::intel::report_buffer::make(
      hwpc::byte_span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), *f);
  if (!buf) {
    std::fprintf(stderr, "naive_decode_file: %s\n", buf.error_value().describe().c_str());
    return 2;
  }
  const hwpc::intel::accumulation acc = hwpc::intel::accumulate_naive(*buf);
  std::printf("intervals,elapsed_ticks");
  for (const hwpc::intel::field* fd : hwpc::intel::counter_list(*f)) {
    std::printf(",%.*s", static_cast<int>(fd->name.size()), fd->name.data());
  }
  std::printf(",reports,skipped_zero\n%zu,%llu", acc.intervals,
              static_cast<unsigned long long>(acc.elapsed_ticks));
  for (std::uint64_t t : acc.totals) std::printf(",%llu", static_cast<unsigned long long>(t));
  std::printf(",%zu,%zu\n", acc.reports, acc.skipped_zero);
  return 0;
}
