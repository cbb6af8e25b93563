// protoc's text format of a decoded Perfetto trace, for the tests that read
// written traces back with `protoc --decode=perfetto.protos.Trace`: one map
// per packet, "path.to.field" -> value (strings unquoted; the names in these
// traces hold no escapes).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

namespace hwpc::testing::protoc {

using packet = std::map<std::string, std::string>;

inline std::vector<packet> parse_text(const std::string& text) {
  std::vector<packet> out;
  std::vector<std::string> scope;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto b = line.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    line = line.substr(b);
    if (line.back() == '{') {
      const std::string name = line.substr(0, line.size() - 2);
      if (scope.empty()) out.emplace_back();
      scope.push_back(name);
      continue;
    }
    if (line == "}") {
      scope.pop_back();
      continue;
    }
    const auto colon = line.find(": ");
    std::string key;
    for (std::size_t i = 1; i < scope.size(); ++i) key += scope[i] + ".";
    key += line.substr(0, colon);
    std::string v = line.substr(colon + 2);
    if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
    out.back()[key] = v;
  }
  return out;
}

// The directory holding Perfetto's perfetto_trace.proto, or why the test
// must skip (empty when it can run).
inline std::string skip_reason(std::filesystem::path& proto_dir) {
  proto_dir = std::filesystem::path(HWPC_SHARED_DIR) / "data/perfetto";
  if (!std::filesystem::exists(proto_dir / "perfetto_trace.proto")) {
    return proto_dir.string() + "/perfetto_trace.proto is absent (../shared not mounted)";
  }
  if (std::system("command -v protoc >/dev/null 2>&1") != 0) {
    return "protoc is not installed (Debian: protobuf-compiler)";
  }
  return {};
}

}  // namespace hwpc::testing::protoc

namespace hwpc::testing::protoc {

// Every field of every packet in order, "path.to.field" -> value, repeated
// fields kept (GpuCounterEvent.counters, descriptor specs). `nested` counts
// the messages opened so far, so the fields of one repeated message share a
// number: ("gpu_counter_event.counters", n) groups one counter's fields.
struct ordered_field {
  std::string key;
  std::string value;
  std::size_t message = 0;  // which nested message (innermost) the field is in
};
using ordered_packet = std::vector<ordered_field>;

inline std::vector<ordered_packet> parse_ordered(const std::string& text) {
  std::vector<ordered_packet> out;
  std::vector<std::string> scope;
  std::vector<std::size_t> ids;
  std::size_t next_id = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto b = line.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    line = line.substr(b);
    if (line.back() == '{') {
      if (scope.empty()) out.emplace_back();
      scope.push_back(line.substr(0, line.size() - 2));
      ids.push_back(++next_id);
      continue;
    }
    if (line == "}") {
      scope.pop_back();
      ids.pop_back();
      continue;
    }
    const auto colon = line.find(": ");
    std::string key;
    for (std::size_t i = 1; i < scope.size(); ++i) key += scope[i] + ".";
    key += line.substr(0, colon);
    std::string v = line.substr(colon + 2);
    if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
    out.back().push_back({key, v, ids.back()});
  }
  return out;
}

}  // namespace hwpc::testing::protoc
