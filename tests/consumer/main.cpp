// Proves an installed hwpc works: include the umbrella header, decode two
// hand-made HSW A13 reports, print A0's delta (expected: 42).
#include <array>
#include <cstdio>
#include <hwpc/hwpc.hpp>

int main() {
  std::array<std::byte, 128> bytes{};
  const auto* f = hwpc::intel::find_format(hwpc::intel::platform::hsw, "A13");
  hwpc::store_le32(bytes.data(), 1);         // RPT_ID of report 0
  hwpc::store_le32(bytes.data() + 12, 100);  // A0 of report 0
  hwpc::store_le32(bytes.data() + 64, 2);    // RPT_ID of report 1
  hwpc::store_le32(bytes.data() + 64 + 12, 142);
  auto buf = hwpc::intel::report_buffer::make(bytes, *f);
  if (!buf) return 1;
  const auto acc = hwpc::intel::accumulate(*buf);
  std::printf("%llu\n", static_cast<unsigned long long>(acc.totals[0]));
  return acc.totals[0] == 42 ? 0 : 1;
}
