// hwpc formats: the report format tables, as a table or as JSON.
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "output.hpp"

namespace hwpc::cli {

namespace {

const command_spec formats_spec{
    "formats",
    "hwpc formats [--json] [--platform P]",
    "Lists every Intel OA report format hwpc decodes: names, platforms, OACONTROL counter\n"
    "select, i915 uapi id, size and fields (byte offset, width, 40-bit high byte).\n"
    "Then the Xe driver's formats: packed DRM_XE_OA_PROPERTY_OA_FORMAT value, IGT's\n"
    "format number, and whether the layout is verified (read in public sources) or only\n"
    "inferred (decoded only with `hwpc decode --unverified-layouts`).",
    {{"json", "", "print a JSON array instead of a table"},
     {"platform", "P", "only formats available on platform P (hsw, skl, tgl, ...)"}},
    0,
    0};

void print_json(out_buffer& out, std::optional<intel::platform> only) {
  out << "[";
  bool first = true;
  auto one = [&](const intel::report_format& f, const intel::xe_format* xe) {
    out << (first ? "\n  {" : ",\n  {");
    first = false;
    out << "\"name\": ";
    out.json_string(f.name);
    out << ", \"aliases\": [";
    for (std::size_t i = 0; i < f.aliases.size(); ++i) {
      if (i) out << ", ";
      out.json_string(f.aliases[i]);
    }
    out << "], \"platforms\": [";
    for (std::size_t i = 0; i < f.platforms.size(); ++i) {
      if (i) out << ", ";
      out.json_string(intel::name_of(f.platforms[i]));
    }
    out << "], \"counter_select\": " << std::uint64_t{f.counter_select} << ", \"uapi_id\": ";
    if (f.uapi_id < 0) {
      out << "null";
    } else {
      out << static_cast<std::uint64_t>(f.uapi_id);
    }
    out << ", \"size\": " << std::uint64_t{f.size} << ", \"fields\": [";
    for (std::size_t i = 0; i < f.fields.size(); ++i) {
      const auto& fd = f.fields[i];
      out << (i ? ", {" : "{") << "\"name\": ";
      out.json_string(fd.name);
      out << ", \"offset\": " << std::uint64_t{fd.offset}
          << ", \"bits\": " << std::uint64_t{fd.bits};
      if (fd.bits == 40) out << ", \"high_byte_offset\": " << std::uint64_t{fd.high_byte_offset};
      out << "}";
    }
    out << "]";
    if (xe != nullptr) {
      out << ", \"driver\": \"xe\", \"xe_oa_format\": " << xe->key.pack()
          << ", \"igt_id\": " << static_cast<std::uint64_t>(xe->igt_id)
          << ", \"verified\": " << (xe->verified ? "true" : "false") << ", \"evidence\": ";
      out.json_string(xe->evidence);
    }
    out << "}";
  };
  for (const auto& f : intel::all_formats) {
    if (!only || f.on(*only)) one(f, nullptr);
  }
  for (const auto& x : intel::xe_formats) {
    if (!only || x.on(*only)) one(x.layout, &x);
  }
  out << "\n]\n";
}

void print_table(out_buffer& out, std::optional<intel::platform> only) {
  for (const auto& f : intel::all_formats) {
    if (only && !f.on(*only)) continue;
    std::string plats;
    for (auto p : f.platforms) plats += (plats.empty() ? "" : ",") + std::string(intel::name_of(p));
    char line[256];
    std::snprintf(line, sizeof line,
                  "%-20s select=%u uapi=%-4s size=%-3u counters=%-2zu platforms=%s\n",
                  std::string(f.name).c_str(), static_cast<unsigned>(f.counter_select),
                  f.uapi_id < 0 ? "-" : std::to_string(f.uapi_id).c_str(),
                  static_cast<unsigned>(f.size), f.counter_count(), plats.c_str());
    out << std::string_view(line);
  }
  bool header = false;
  for (const auto& x : intel::xe_formats) {
    if (only && !x.on(*only)) continue;
    if (!header) out << "Xe driver formats (DRM_XE_OA_PROPERTY_OA_FORMAT):\n";
    header = true;
    std::string plats;
    for (auto p : x.layout.platforms) {
      plats += (plats.empty() ? "" : ",") + std::string(intel::name_of(p));
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "%-24s xe=0x%08llx igt=%-2d size=%-3u counters=%-2zu %-10s platforms=%s\n",
                  std::string(x.name).c_str(), static_cast<unsigned long long>(x.key.pack()),
                  x.igt_id, static_cast<unsigned>(x.layout.size), x.layout.counter_count(),
                  x.verified ? "verified" : "unverified", plats.c_str());
    out << std::string_view(line);
  }
}

}  // namespace

int cmd_formats(const std::vector<std::string>& args) {
  int status = exit_ok;
  auto parsed = parse(formats_spec, args, status);
  if (!parsed) return status;
  std::optional<intel::platform> only;
  if (auto p = parsed->get("platform")) {
    only = intel::platform_from_name(*p);
    if (!only) return fail("formats", "unknown platform '" + *p + "'", exit_usage);
  }
  out_buffer out(stdout);
  if (parsed->has("json")) {
    print_json(out, only);
  } else {
    print_table(out, only);
  }
  return exit_ok;
}

}  // namespace hwpc::cli
