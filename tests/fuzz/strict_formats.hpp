// Strict checkers of the writers' output formats, written apart from the
// writers so that one cannot share the other's mistake: UTF-8 (Unicode
// Table 3-7), JSON (RFC 8259: one value, UTF-8, no trailing text), CSV
// (RFC 4180: records of quoted or plain fields), a protobuf wire walker for
// Perfetto traces (perfetto_trace.proto's field numbers), and the tags of
// an HTML page. Used by the fuzz targets and by the normal tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace strict {

// Well-formed UTF-8: no overlong form, surrogate or code point past U+10FFFF.
inline bool utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    if ((b0 & 0xe0) == 0xc0) {
      n = 1;
      cp = b0 & 0x1f;
    } else if ((b0 & 0xf0) == 0xe0) {
      n = 2;
      cp = b0 & 0x0f;
    } else if ((b0 & 0xf8) == 0xf0) {
      n = 3;
      cp = b0 & 0x07;
    } else {
      return false;
    }
    if (n >= s.size() - i) return false;  // the sequence stops short
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3f);
    }
    static constexpr std::uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

// RFC 8259: exactly one JSON text. `why` says what failed and where.
class json {
 public:
  static bool valid(std::string_view s, std::string* why = nullptr) {
    json j{s};
    j.ws();
    bool ok = j.value(0);
    if (ok) {
      j.ws();
      ok = j.i_ == s.size();
      if (!ok) j.err_ = "trailing text";
    }
    if (ok && !utf8(s)) {
      ok = false;
      j.err_ = "not UTF-8";
    }
    if (!ok && why != nullptr) *why = j.err_ + " at byte " + std::to_string(j.i_);
    return ok;
  }

 private:
  explicit json(std::string_view s) : s_(s) {}
  bool fail(const char* what) {
    if (err_.empty()) err_ = what;
    return false;
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  void ws() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
      ++i_;
    }
  }
  bool lit(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return fail("bad literal");
    i_ += w.size();
    return true;
  }
  bool value(int depth) {
    if (depth > 64) return fail("nested too deep");
    switch (peek()) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        return lit("true");
      case 'f':
        return lit("false");
      case 'n':
        return lit("null");
      default:
        return number();
    }
  }
  bool object(int depth) {
    ++i_;
    ws();
    if (peek() == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      if (peek() != '"') return fail("object key is not a string");
      if (!string()) return false;
      ws();
      if (peek() != ':') return fail("no ':' after key");
      ++i_;
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == '}') {
        ++i_;
        return true;
      }
      return fail("no ',' or '}' in object");
    }
  }
  bool array(int depth) {
    ++i_;
    ws();
    if (peek() == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == ']') {
        ++i_;
        return true;
      }
      return fail("no ',' or ']' in array");
    }
  }
  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool u4(std::uint32_t& v) {
    v = 0;
    for (int k = 0; k < 4; ++k) {
      const int h = hex(peek());
      if (h < 0) return fail("bad \\u escape");
      v = v * 16 + static_cast<std::uint32_t>(h);
      ++i_;
    }
    return true;
  }
  bool string() {
    ++i_;
    for (;;) {
      if (at_end()) return fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return fail("raw control character in string");
      if (c != '\\') {
        ++i_;
        continue;
      }
      ++i_;
      const char e = peek();
      ++i_;
      if (e == 'u') {
        std::uint32_t v = 0;
        if (!u4(v)) return false;
        // A surrogate must come as a high + low pair.
        if (v >= 0xdc00 && v <= 0xdfff) return fail("lone low surrogate");
        if (v >= 0xd800 && v <= 0xdbff) {
          if (s_.substr(i_, 2) != "\\u") return fail("lone high surrogate");
          i_ += 2;
          if (!u4(v)) return false;
          if (v < 0xdc00 || v > 0xdfff) return fail("high surrogate without low");
        }
        continue;
      }
      if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos || e == '\0') {
        return fail("bad escape");
      }
    }
  }
  bool digits() {
    const std::size_t b = i_;
    while (peek() >= '0' && peek() <= '9') ++i_;
    return i_ != b;
  }
  bool number() {
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
    } else if (!digits()) {
      return fail("not a value");
    }
    if (peek() == '.') {
      ++i_;
      if (!digits()) return fail("no digits after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      if (!digits()) return fail("no digits in exponent");
    }
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string err_;
};

// RFC 4180 records: each a list of fields (quotes removed). Returns false on
// a quote in an unquoted field, text after a closing quote, or an
// unterminated quoted field. Line ends are LF (the writers' choice).
inline bool csv(std::string_view s, std::vector<std::vector<std::string>>& records,
                std::string* why = nullptr) {
  records.clear();
  std::size_t i = 0;
  auto bad = [&](const char* what) {
    if (why != nullptr) *why = std::string(what) + " at byte " + std::to_string(i);
    return false;
  };
  while (i < s.size()) {
    std::vector<std::string> rec;
    for (;;) {
      std::string f;
      if (i < s.size() && s[i] == '"') {
        ++i;
        for (;;) {
          if (i >= s.size()) return bad("unterminated quoted field");
          if (s[i] == '"') {
            if (i + 1 < s.size() && s[i + 1] == '"') {
              f += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          f += s[i++];
        }
        if (i < s.size() && s[i] != ',' && s[i] != '\n') return bad("text after closing quote");
      } else {
        while (i < s.size() && s[i] != ',' && s[i] != '\n') {
          if (s[i] == '"' || s[i] == '\r') return bad("quote or CR in unquoted field");
          f += s[i++];
        }
      }
      rec.push_back(std::move(f));
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    if (i >= s.size()) return bad("last record without its line end");
    ++i;  // '\n'
    records.push_back(std::move(rec));
  }
  return true;
}

// The protobuf wire format (varint, fixed64, length-delimited, fixed32).
struct wire_field {
  std::uint32_t number = 0;
  int type = 0;
  std::uint64_t v = 0;     // varint and fixed values
  std::string_view bytes;  // length-delimited payload
};

inline bool wire_fields(std::string_view s, std::vector<wire_field>& out) {
  out.clear();
  std::size_t i = 0;
  auto varint = [&](std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (i >= s.size()) return false;
      const auto b = static_cast<unsigned char>(s[i++]);
      if (shift == 63 && b > 1) return false;
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  while (i < s.size()) {
    std::uint64_t key = 0;
    if (!varint(key)) return false;
    wire_field f;
    f.number = static_cast<std::uint32_t>(key >> 3);
    f.type = static_cast<int>(key & 7);
    if (f.number == 0 || (key >> 3) > 0x1fffffff) return false;
    switch (f.type) {
      case 0:
        if (!varint(f.v)) return false;
        break;
      case 1:
      case 5: {
        const std::size_t n = f.type == 1 ? 8 : 4;
        if (s.size() - i < n) return false;
        for (std::size_t k = 0; k < n; ++k) {
          f.v |= std::uint64_t{static_cast<unsigned char>(s[i + k])} << (8 * k);
        }
        i += n;
        break;
      }
      case 2: {
        std::uint64_t n = 0;
        if (!varint(n) || n > s.size() - i) return false;
        f.bytes = s.substr(i, n);
        i += n;
        break;
      }
      default:
        return false;
    }
    out.push_back(f);
  }
  return true;
}

// A Perfetto trace as the writers make it (field numbers from
// perfetto_trace.proto: Trace.packet 1; TracePacket timestamp 8,
// track_event 11, trusted_packet_sequence_id 10, track_descriptor 60;
// TrackDescriptor uuid 1, name 2, parent_uuid 5, counter 8;
// CounterDescriptor unit_name 6; TrackEvent type 9, track_uuid 11, name 23,
// counter_value 30, double_counter_value 44). Checks: every message parses,
// every name is UTF-8, every track's parent and every event's track was
// declared before, no uuid is declared twice, counter values only on
// counter tracks. (Timestamps follow the rows: the time rule is the
// readers', checked by fuzz_time.cpp.)
struct perfetto_summary {
  std::map<std::uint64_t, std::string> tracks;  // uuid -> name
  std::set<std::uint64_t> counter_tracks;
  std::size_t counter_events = 0;
  std::vector<std::string> instants;  // names of instant events, in order
};

inline bool perfetto_trace(std::string_view s, perfetto_summary& sum, std::string* why = nullptr) {
  auto bad = [&](const std::string& what) {
    if (why != nullptr) *why = what;
    return false;
  };
  std::vector<wire_field> top, pk, inner, cd;
  if (!wire_fields(s, top)) return bad("Trace does not parse");
  for (const wire_field& p : top) {
    if (p.number != 1 || p.type != 2) return bad("Trace field other than packet");
    if (!wire_fields(p.bytes, pk)) return bad("TracePacket does not parse");
    for (const wire_field& f : pk) {
      if (f.number == 60) {
        if (f.type != 2 || !wire_fields(f.bytes, inner)) return bad("TrackDescriptor");
        std::uint64_t uuid = 0, parent = 0;
        std::string name;
        bool counter = false;
        for (const wire_field& d : inner) {
          if (d.number == 1) uuid = d.v;
          if (d.number == 5) parent = d.v;
          if (d.number == 2) name = std::string(d.bytes);
          if (d.number == 8) {
            counter = true;
            if (d.type != 2 || !wire_fields(d.bytes, cd)) return bad("CounterDescriptor");
            for (const wire_field& c : cd) {
              if (c.number == 6 && !utf8(c.bytes)) return bad("unit_name is not UTF-8");
            }
          }
        }
        if (!utf8(name)) return bad("track name is not UTF-8");
        if (uuid == 0 || sum.tracks.count(uuid) != 0) return bad("uuid 0 or declared twice");
        if (parent != 0 && sum.tracks.count(parent) == 0) return bad("parent not declared");
        sum.tracks[uuid] = name;
        if (counter) sum.counter_tracks.insert(uuid);
      } else if (f.number == 11) {
        if (f.type != 2 || !wire_fields(f.bytes, inner)) return bad("TrackEvent");
        std::uint64_t type = 0, track = 0;
        bool value = false;
        std::string name;
        for (const wire_field& e : inner) {
          if (e.number == 9) type = e.v;
          if (e.number == 11) track = e.v;
          if (e.number == 23) name = std::string(e.bytes);
          if (e.number == 30 || e.number == 44) value = true;
        }
        if (!utf8(name)) return bad("event name is not UTF-8");
        if (sum.tracks.count(track) == 0) return bad("event on an undeclared track");
        if (value) {
          if (sum.counter_tracks.count(track) == 0) return bad("value on a track not a counter");
          ++sum.counter_events;
        } else if (type == 3) {  // TYPE_INSTANT
          sum.instants.push_back(name);
        }
      }
    }
  }
  return true;
}

// The names of the elements an HTML page opens, in order ("<x" and "</x";
// "<!DOCTYPE" is "!doctype"). A '<' that starts no tag name is "".
inline std::vector<std::string> html_tags(std::string_view s) {
  std::vector<std::string> out;
  for (std::size_t i = s.find('<'); i != std::string_view::npos; i = s.find('<', i + 1)) {
    std::size_t k = i + 1;
    if (k < s.size() && (s[k] == '/' || s[k] == '!')) ++k;
    std::string name;
    while (k < s.size() && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
                            (s[k] >= '0' && s[k] <= '9'))) {
      name += static_cast<char>(s[k] >= 'A' && s[k] <= 'Z' ? s[k] - 'A' + 'a' : s[k]);
      ++k;
    }
    out.push_back(s[i + 1] == '!' ? "!" + name : name);
  }
  return out;
}

}  // namespace strict
