// The packet listing as records (`hwpc adreno --packets --output csv|json`,
// hwpc.adreno.packets): one record per packet with the same fields for every
// generation, named with the generation's names; names sit beside the
// numbers they name, never instead (docs/adreno.md, "Command line").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>

#include "hwpc/adreno/draw_state.hpp"
#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/generation_names.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/walk_sink.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::adreno {

// One packet, typed; `offset` is in the file the user gave.
struct packet_record {
  std::size_t offset = 0;
  std::uint64_t gpu_address = 0;
  std::uint32_t depth = 0;
  int group = -1;  // the draw-state group, -1 outside one
  std::string_view pass;
  bool type7 = false;
  std::uint32_t id = 0;  // opcode (type 7) or register (type 4)
  std::string name;      // the generation's; empty without a GPU
  std::uint32_t count = 0;
  std::string payload;  // every dword, 8 hex digits, space-separated
  int event = -1;       // CP_EVENT_WRITE's event, -1 elsewhere
  std::string_view event_name;
};

inline packet_record record_of(const walked_packet& w, generation g, std::size_t offset) {
  const packet& p = w.pkt;
  packet_record r;
  r.type7 = p.hdr.type == packet_type::type7;
  r.offset = offset;
  r.gpu_address = w.gpu_addr;
  r.depth = static_cast<std::uint32_t>(w.depth);
  r.group = w.group;
  r.pass = pass_name(w.pass);
  r.id = p.hdr.id;
  r.name = r.type7 ? std::string(opcode_name(g, p.hdr.id)) : register_label(g, p.hdr.id);
  r.count = p.hdr.count;
  r.payload.reserve(9 * std::size_t{p.hdr.count});
  for (std::uint32_t i = 0; i < p.hdr.count; ++i) {
    char b[12];
    std::snprintf(b, sizeof b, i ? " %08x" : "%08x", static_cast<unsigned>(p.dword(i)));
    r.payload += b;
  }
  // The event of CP_EVENT_WRITE / CP_EVENT_WRITE7 (0x46 on every generation,
  // dword 0 bits 7..0); without a GPU the number alone.
  if (r.type7 && p.hdr.id == op::cp_event_write && p.hdr.count >= 1) {
    r.event = static_cast<int>(p.dword(0) & 0xff);
    r.event_name = event_name(g, p.dword(0) & 0xff);
  }
  return r;
}

// Writes records as CSV or as one JSON array (closed by end()). Every field
// is digits, hex or names from hwpc's own tables; the writer still quotes
// and escapes, so that the contract holds whatever a table holds.
class listing_writer {
 public:
  enum class format : unsigned char { csv, json };
  static constexpr std::string_view csv_header =
      "offset,gpu_address,depth,group,pass,type,id,name,count,payload,event,event_name\n";

  listing_writer(output::text_buffer& out, format f) : out_(out), f_(f) {
    out_ << (f_ == format::csv ? csv_header : std::string_view("["));
  }
  void write(const packet_record& r) {
    const std::string group = r.group >= 0 ? std::to_string(r.group) : std::string();
    const std::string event = r.event >= 0 ? std::to_string(r.event) : std::string();
    const std::string addr = hex(r.gpu_address), id = hex(r.id);
    if (f_ == format::csv) {
      out_ << std::to_string(r.offset) << ',' << csv(addr) << ',' << std::to_string(r.depth) << ','
           << group << ',' << csv(r.pass) << ',' << (r.type7 ? "7" : "4") << ',' << csv(id) << ','
           << csv(r.name) << ',' << std::to_string(r.count) << ',' << csv(r.payload) << ',' << event
           << ',' << csv(r.event_name) << '\n';
      return;
    }
    out_ << (first_ ? "\n" : ",\n");
    first_ = false;
    const auto num = [](const std::string& s) { return s.empty() ? std::string("null") : s; };
    const auto str = [](std::string_view s) { return s.empty() ? std::string("null") : json(s); };
    out_ << "{\"offset\":" << std::to_string(r.offset) << ",\"gpu_address\":" << json(addr)
         << ",\"depth\":" << std::to_string(r.depth) << ",\"group\":" << num(group)
         << ",\"pass\":" << str(r.pass) << ",\"type\":" << (r.type7 ? "7" : "4")
         << ",\"id\":" << json(id) << ",\"name\":" << str(r.name)
         << ",\"count\":" << std::to_string(r.count) << ",\"payload\":" << json(r.payload)
         << ",\"event\":" << num(event) << ",\"event_name\":" << str(r.event_name) << "}";
  }
  void end() {
    if (f_ == format::json) out_ << (first_ ? "]\n" : "\n]\n");
  }

 private:
  static std::string hex(std::uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
  }
  static std::string csv(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  static std::string json(std::string_view s) {
    std::string q = "\"";
    for (const char c : s) {
      if (c == '"' || c == '\\') {
        q += '\\';
        q += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        q += b;
      } else {
        q += c;
      }
    }
    return q + "\"";
  }

  output::text_buffer& out_;
  format f_;
  bool first_ = true;
};

}  // namespace hwpc::adreno
