// A metric set's register programming, as the kernel's ADD_CONFIG takes it:
// Intel's metric XML (the files IGT generates its configs from) lists, per
// <set>, <register_config> blocks of <register type address value>; type
// NOA registers are the mux list, OA the boolean (B/C counter) list, FLEX
// the flex EU list (FACTS-live section 1.8). Blocks with an availability
// condition apply only on some parts; they are counted and left out, and the
// caller decides whether the unconditional lists are enough.
#pragma once

#ifdef HWPC_HAVE_PUGIXML

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"

namespace hwpc::live {

struct register_write {
  std::uint32_t address = 0;
  std::uint32_t value = 0;
  friend bool operator==(const register_write&, const register_write&) = default;
};

struct set_registers {
  std::string uuid;  // hw_config_guid
  std::vector<register_write> mux, boolean, flex;
  std::size_t conditional_blocks = 0;  // left out: they have an availability condition
  bool empty() const noexcept { return mux.empty() && boolean.empty() && flex.empty(); }
};

namespace detail {
inline bool parse_hex32(std::string_view s, std::uint32_t& v) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc{} && end == s.data() + s.size() && !s.empty();
}
}  // namespace detail

// The registers of set `symbol` in the metric XML `text`.
inline result<set_registers> registers_of(std::string_view text, std::string_view symbol) {
  pugi::xml_document doc;
  if (const auto r = doc.load_buffer(text.data(), text.size()); !r) {
    return make_error(errc::syntax, static_cast<std::size_t>(r.offset),
                      std::string("XML: ") + r.description());
  }
  for (pugi::xml_node s : doc.child("metrics").children("set")) {
    if (s.attribute("symbol_name").as_string() != symbol) continue;
    set_registers out;
    out.uuid = s.attribute("hw_config_guid").as_string();
    for (pugi::xml_node c : s.children("register_config")) {
      if (c.attribute("availability")) {
        ++out.conditional_blocks;
        continue;
      }
      for (pugi::xml_node r : c.children("register")) {
        const std::string_view type = r.attribute("type").as_string();
        register_write w;
        if (!detail::parse_hex32(r.attribute("address").as_string(), w.address) ||
            !detail::parse_hex32(r.attribute("value").as_string(), w.value)) {
          return make_error(errc::syntax, static_cast<std::size_t>(r.offset_debug()),
                            "set " + std::string(symbol) +
                                ": a <register> without a hexadecimal address and value");
        }
        if (type == "NOA") {
          out.mux.push_back(w);
        } else if (type == "OA") {
          out.boolean.push_back(w);
        } else if (type == "FLEX") {
          out.flex.push_back(w);
        } else {
          return make_error(errc::unknown_format, static_cast<std::size_t>(r.offset_debug()),
                            "set " + std::string(symbol) + ": register type '" + std::string(type) +
                                "' (NOA, OA, FLEX)");
        }
      }
    }
    return out;
  }
  return make_error(errc::unknown_name, 0, "no set '" + std::string(symbol) + "'");
}

}  // namespace hwpc::live

#endif  // HWPC_HAVE_PUGIXML
