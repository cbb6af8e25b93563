// The packet listing of `hwpc adreno --packets --output csv|json`: one record
// per packet with the same fields for every generation; names sit beside the
// numbers they name, never instead (docs/adreno.md, "Command line").
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "hwpc/adreno/generation_names.hpp"
#include "hwpc/adreno/walk.hpp"
#include "output.hpp"

namespace hwpc::cli::adreno_listing {

enum class format : std::uint8_t { csv, json };

// The CSV header (JSON has the same keys).
inline constexpr std::string_view csv_header =
    "offset,gpu_address,depth,group,pass,type,id,name,count,payload,event,event_name\n";

struct fields {
  std::string offset, gpu_address, depth, group, pass, type, id, name, count, payload, event,
      event_name;
};

inline std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// `offset`: the packet's byte offset in the file the user gave.
inline fields fields_of(const adreno::walked_packet& w, adreno::generation g, std::size_t offset) {
  const adreno::packet& p = w.pkt;
  const bool t7 = p.hdr.type == adreno::packet_type::type7;
  fields f;
  f.offset = std::to_string(offset);
  f.gpu_address = hex(w.gpu_addr);
  f.depth = std::to_string(w.depth);
  if (w.group >= 0) f.group = std::to_string(w.group);
  f.pass = std::string(adreno::pass_name(w.pass));
  f.type = t7 ? "7" : "4";
  f.id = hex(p.hdr.id);
  f.name = t7 ? std::string(adreno::opcode_name(g, p.hdr.id)) : adreno::register_label(g, p.hdr.id);
  f.count = std::to_string(p.hdr.count);
  for (std::uint32_t i = 0; i < p.hdr.count; ++i) {
    char b[12];
    std::snprintf(b, sizeof b, i ? " %08x" : "%08x", static_cast<unsigned>(p.dword(i)));
    f.payload += b;
  }
  // The event of CP_EVENT_WRITE / CP_EVENT_WRITE7 (0x46 on every generation,
  // dword 0 bits 7..0); without a GPU the number alone.
  if (t7 && p.hdr.id == adreno::op::cp_event_write && p.hdr.count >= 1) {
    f.event = std::to_string(p.dword(0) & 0xff);
    f.event_name = std::string(adreno::event_name(g, p.dword(0) & 0xff));
  }
  return f;
}

// Every field is digits, hex or names from hwpc's own tables, so none needs
// quoting; the writers still escape, so that the contract holds whatever a
// table holds.
inline std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

inline std::string json_string(const std::string& s) {
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

// Writes records; JSON is one array, closed by end().
class writer {
 public:
  writer(out_buffer& out, format f) : out_(out), f_(f) {
    out_ << (f_ == format::csv ? csv_header : std::string_view("["));
  }
  void write(const fields& r) {
    if (f_ == format::csv) {
      for (const std::string* c : {&r.offset, &r.gpu_address, &r.depth, &r.group, &r.pass, &r.type,
                                   &r.id, &r.name, &r.count, &r.payload, &r.event}) {
        out_ << csv_cell(*c) << ",";
      }
      out_ << csv_cell(r.event_name) << "\n";
      return;
    }
    out_ << (first_ ? "\n" : ",\n");
    first_ = false;
    const auto num = [](const std::string& s) { return s.empty() ? std::string("null") : s; };
    const auto str = [](const std::string& s) {
      return s.empty() ? std::string("null") : json_string(s);
    };
    out_ << "{\"offset\":" << r.offset << ",\"gpu_address\":" << json_string(r.gpu_address)
         << ",\"depth\":" << r.depth << ",\"group\":" << num(r.group) << ",\"pass\":" << str(r.pass)
         << ",\"type\":" << r.type << ",\"id\":" << json_string(r.id) << ",\"name\":" << str(r.name)
         << ",\"count\":" << r.count << ",\"payload\":" << json_string(r.payload)
         << ",\"event\":" << num(r.event) << ",\"event_name\":" << str(r.event_name) << "}";
  }
  void end() {
    if (f_ == format::json) out_ << (first_ ? "]\n" : "\n]\n");
  }

 private:
  out_buffer& out_;
  format f_;
  bool first_ = true;
};

}  // namespace hwpc::cli::adreno_listing
