// hwpc adreno: disassembles an Adreno A5xx PM4 command stream (a file of
// little-endian dwords) and explains the occlusion and time-elapsed queries
// in it. docs/adreno.md.
#include <cstdio>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/adreno.hpp"
#include "mapped_file.hpp"
#include "output.hpp"

namespace hwpc::cli {

namespace {

const command_spec adreno_spec{
    "adreno",
    "hwpc adreno [--queries] FILE",
    "Disassembles an Adreno A5xx PM4 command stream (little-endian dwords): one line per\n"
    "packet with its byte offset, header, name and payload, then one line per recognised\n"
    "query sequence (occlusion begin/end, timestamps paired into time-elapsed slots).\n"
    "A bad header or a packet running past the end exits with 2 and the byte offset.",
    {{"queries", "", "print only the recognised queries"}},
    1,
    1};

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", static_cast<unsigned>(v));
  return b;
}

void print_packet(out_buffer& out, const adreno::packet& p) {
  char line[96];
  std::string name;
  if (p.hdr.type == adreno::packet_type::type7) {
    const auto n = adreno::opcode_name(p.hdr.id);
    name = n.empty() ? "opcode 0x" + hex32(p.hdr.id).substr(6) : std::string(n);
  } else {
    const auto n = adreno::register_name(p.hdr.id);
    name = "write " + (n.empty() ? "0x" + hex32(p.hdr.id).substr(3) : std::string(n));
  }
  std::snprintf(line, sizeof line, "%08zx: %08x  pkt%c %-34s count=%u", p.offset,
                static_cast<unsigned>(adreno::encode(p.hdr)),
                p.hdr.type == adreno::packet_type::type7 ? '7' : '4', name.c_str(),
                static_cast<unsigned>(p.hdr.count));
  out << std::string_view(line);
  const std::uint32_t shown = p.hdr.count < 16 ? p.hdr.count : 16;
  for (std::uint32_t i = 0; i < shown; ++i) out << (i ? " " : "  ") << hex32(p.dword(i));
  if (shown < p.hdr.count) out << " ...";
  out << "\n";
}

}  // namespace

int cmd_adreno(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto parsed = parse(adreno_spec, args, status);
  if (!parsed) return status;
  const std::string& path = parsed->positional.front();
  auto file = mapped_file::open(path);
  if (!file) return fail("adreno", file.error_value().message, exit_bad_input);
  auto packets = adreno::read_packets(file->bytes());
  if (!packets)
    return fail("adreno", path + ": " + packets.error_value().describe(), exit_bad_input);
  out_buffer out(stdout);
  if (!parsed->has("queries")) {
    for (const auto& p : *packets) print_packet(out, p);
  }
  const auto events = adreno::recognise(std::span<const adreno::packet>(*packets));
  if (!parsed->has("queries") && !events.empty()) out << "\nqueries:\n";
  for (const auto& ev : events) {
    char at[32];
    std::snprintf(at, sizeof at, "%08zx: ", ev.offset);
    out << std::string_view(at) << adreno::describe(ev) << "\n";
  }
  return exit_ok;
}

}  // namespace hwpc::cli
