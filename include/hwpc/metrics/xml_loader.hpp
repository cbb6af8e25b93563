// Loads Intel metric XML files (<metrics><set><counter .../></set></metrics>)
// into metric sets. Needs pugixml: the declarations exist only when
// HWPC_HAVE_PUGIXML is defined (the build defines it when pugixml is found),
// so nothing else in hwpc depends on it.
//
//   auto sets = hwpc::metrics::load_xml_file("oa-sklgt2.xml");
//   for (const auto& set : *sets) { auto compiled = hwpc::metrics::compile(set); ... }
//
// Attributes read: on <set> symbol_name, name, chipset, oa_format (when
// present), hw_config_guid; on <counter> symbol_name, name, description,
// units, data_type, semantic_type, equation, max_equation, availability; on
// <register_config> type and availability (only configs that have one).
//
// Error offsets are byte offsets into the text as given. pugixml parses a
// UTF-8 copy of a UTF-16, UTF-32 or Latin-1 document and reports offsets into
// that copy, sometimes one past its last byte: source_offset() walks the
// original text and maps them back, clamped to the last byte.
#pragma once

#ifdef HWPC_HAVE_PUGIXML

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace hwpc::metrics {

namespace detail {

// Bytes of UTF-8 that pugixml writes for one code point.
constexpr std::size_t utf8_length(std::uint32_t cp) noexcept {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

// The byte offset in `text` (encoded as `enc`) of the character that
// pugixml's UTF-8 copy has at `converted`; at most text.size() - 1.
inline std::size_t source_offset(std::string_view text, pugi::xml_encoding enc,
                                 std::size_t converted) noexcept {
  if (text.empty()) return 0;
  const std::size_t last = text.size() - 1;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  std::size_t unit = 1;
  bool big = false;
  switch (enc) {
    case pugi::encoding_utf16_be:
      big = true;
      [[fallthrough]];
    case pugi::encoding_utf16_le:
      unit = 2;
      break;
    case pugi::encoding_utf32_be:
      big = true;
      [[fallthrough]];
    case pugi::encoding_utf32_le:
      unit = 4;
      break;
    case pugi::encoding_latin1:
      break;
    default:  // UTF-8: the copy is the text
      return converted < last ? converted : last;
  }
  const auto load = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < unit; ++k) {
      const std::uint32_t b = byte(at + (big ? k : unit - 1 - k));
      v = (v << 8) | b;
    }
    return v;
  };
  std::size_t out = 0, at = 0;
  while (at + unit <= text.size()) {
    std::size_t in_bytes = unit, out_bytes = 0;
    const std::uint32_t v = load(at);
    if (unit == 1) {
      out_bytes = v < 0x80 ? 1 : 2;  // Latin-1
    } else if (unit == 4) {
      out_bytes = utf8_length(v);
    } else if (v >= 0xd800 && v < 0xdc00 && at + 4 <= text.size() && load(at + 2) >= 0xdc00 &&
               load(at + 2) < 0xe000) {
      in_bytes = 4;  // a surrogate pair: one code point past U+FFFF
      out_bytes = 4;
    } else if (v >= 0xd800 && v < 0xe000) {
      out_bytes = 0;  // a lone surrogate: pugixml drops it
    } else {
      out_bytes = utf8_length(v);
    }
    if (out + out_bytes > converted) break;
    out += out_bytes;
    at += in_bytes;
  }
  return at < last ? at : last;
}

inline error counter_error(std::string_view text, pugi::xml_encoding enc, pugi::xml_node c,
                           const std::string& set) {
  const std::size_t at = source_offset(text, enc, static_cast<std::size_t>(c.offset_debug()));
  return error{errc::inconsistent, at, "set " + set + ": a counter has no symbol_name"};
}

inline result<std::vector<metric_set>> sets_from(const pugi::xml_document& doc,
                                                 std::string_view text, pugi::xml_encoding enc) {
  const pugi::xml_node root = doc.child("metrics");
  if (!root) return error{errc::unknown_format, 0, "no <metrics> element", error_anchor::none};
  std::vector<metric_set> sets;
  for (pugi::xml_node s : root.children("set")) {
    metric_set set;
    set.symbol_name = s.attribute("symbol_name").as_string();
    set.name = s.attribute("name").as_string();
    set.chipset = s.attribute("chipset").as_string();
    set.oa_format = s.attribute("oa_format").as_string();
    set.hw_config_guid = s.attribute("hw_config_guid").as_string();
    set.syntax = expr::syntax::rpn;
    for (pugi::xml_node c : s.children("counter")) {
      metric m;
      m.symbol_name = c.attribute("symbol_name").as_string();
      m.name = c.attribute("name").as_string();
      m.description = c.attribute("description").as_string();
      m.units = c.attribute("units").as_string();
      m.type = parse_data_type(c.attribute("data_type").as_string());
      m.semantic = parse_semantic_type(c.attribute("semantic_type").as_string());
      m.equation = c.attribute("equation").as_string();
      m.max_equation = c.attribute("max_equation").as_string();
      m.availability = c.attribute("availability").as_string();
      if (m.symbol_name.empty()) return counter_error(text, enc, c, set.symbol_name);
      set.metrics.push_back(std::move(m));
    }
    for (pugi::xml_node r : s.children("register_config")) {
      const pugi::xml_attribute a = r.attribute("availability");
      if (a) set.register_configs.push_back({r.attribute("type").as_string(), a.as_string()});
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

inline error xml_error(std::string_view text, const pugi::xml_parse_result& r) {
  return error{errc::syntax, source_offset(text, r.encoding, static_cast<std::size_t>(r.offset)),
               std::string("XML: ") + r.description()};
}

}  // namespace detail

inline result<std::vector<metric_set>> load_xml(std::string_view text) {
  pugi::xml_document doc;
  const pugi::xml_parse_result r = doc.load_buffer(text.data(), text.size());
  if (!r) return detail::xml_error(text, r);
  return detail::sets_from(doc, text, r.encoding);
}

// Reads the file itself (not pugixml's load_file) so that offsets can be
// mapped back to the file's bytes. Only regular files: opening a FIFO with no
// writer would block, and a directory reads as nothing.
inline result<std::vector<metric_set>> load_xml_file(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) {
    return error{errc::io, 0, path + ": no such file", error_anchor::none};
  }
  if (!std::filesystem::is_regular_file(st)) {
    return error{errc::io, 0, path + ": not a regular file", error_anchor::none};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{errc::io, 0, path + ": cannot open the file", error_anchor::none};
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return error{errc::io, 0, path + ": read error", error_anchor::none};
  return load_xml(text);
}

// One set of a file, by symbol_name; the error lists the file's sets.
inline result<metric_set> find_xml_set(const std::string& path, std::string_view symbol) {
  auto sets = load_xml_file(path);
  if (!sets) return sets.error_value();
  std::string names;
  for (auto& s : *sets) {
    if (s.symbol_name == symbol) return std::move(s);
    names += (names.empty() ? "" : ", ") + s.symbol_name;
  }
  return error{errc::unknown_name, 0,
               path + " has no set '" + std::string(symbol) + "' (sets: " + names + ")",
               error_anchor::none};
}

}  // namespace hwpc::metrics

#endif  // HWPC_HAVE_PUGIXML
