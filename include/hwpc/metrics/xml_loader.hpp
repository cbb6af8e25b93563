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
#pragma once

#ifdef HWPC_HAVE_PUGIXML

#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/metrics/metric_set.hpp"

namespace hwpc::metrics {

namespace detail {

inline result<std::vector<metric_set>> sets_from(const pugi::xml_document& doc) {
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
      if (m.symbol_name.empty()) {
        return error{errc::inconsistent, static_cast<std::size_t>(c.offset_debug()),
                     "set " + set.symbol_name + ": a counter has no symbol_name"};
      }
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

inline error xml_error(const pugi::xml_parse_result& r) {
  return error{errc::syntax, static_cast<std::size_t>(r.offset),
               std::string("XML: ") + r.description()};
}

}  // namespace detail

inline result<std::vector<metric_set>> load_xml(std::string_view text) {
  pugi::xml_document doc;
  const pugi::xml_parse_result r = doc.load_buffer(text.data(), text.size());
  if (!r) return detail::xml_error(r);
  return detail::sets_from(doc);
}

inline result<std::vector<metric_set>> load_xml_file(const std::string& path) {
  pugi::xml_document doc;
  const pugi::xml_parse_result r = doc.load_file(path.c_str());
  if (r.status == pugi::status_file_not_found || r.status == pugi::status_io_error) {
    return error{errc::io, 0, path + ": " + r.description(), error_anchor::none};
  }
  if (!r) return detail::xml_error(r);
  return detail::sets_from(doc);
}

}  // namespace hwpc::metrics

#endif  // HWPC_HAVE_PUGIXML
