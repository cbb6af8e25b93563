// Proves the installed optional parts work: the metric XML loader (hwpc::xml, hwpc-xml) and
// gzip input (hwpc::gzip, hwpc-gzip) are declared and link.
#include <cstdio>
#include <hwpc/adreno/gzip.hpp>
#include <hwpc/metrics/xml_loader.hpp>

static_assert(hwpc::adreno::have_gzip, "hwpc::gzip defines HWPC_HAVE_ZLIB");

int main() {
  const auto sets = hwpc::metrics::load_xml(
      "<metrics><set symbol_name=\"S\" name=\"s\"><counter symbol_name=\"C\" name=\"c\" "
      "equation=\"1 2 UADD\" data_type=\"uint64\"/></set></metrics>");
  if (!sets || sets->size() != 1) return 1;
  std::printf("%s\n", (*sets)[0].symbol_name.c_str());
  return 0;
}
