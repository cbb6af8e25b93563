// hwpc mali: decode one Mali-G72 hardware-counter sample and print its summed
// counters and the counter guide's derived values as CSV.
#include <charconv>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/mali.hpp"
#include "mapped_file.hpp"

namespace hwpc::cli {

namespace {

const command_spec mali_spec{
    "mali",
    "hwpc mali --l2-slices N --core-mask M --bus-width-bits B FILE",
    "Decodes FILE as one Mali-G72 hardware-counter sample (kbase vinstr, non-v4 layout:\n"
    "front-end, tiler, one memory block per L2 slice, one shader-core block per core-mask\n"
    "bit) and prints CSV: every G72 counter summed over its block type, then every\n"
    "derived counter of the Mali-G72 counter guide. Columns: kind,name,where,units,value\n"
    "(where: block:index for counters, the guide section for metrics).\n"
    "Malformed samples exit with status 2 and the byte offset.",
    {{"l2-slices", "N", "number of L2 slices (memory blocks)"},
     {"core-mask", "M", "shader core mask, decimal or 0x hex (e.g. 0xb: cores 0, 1, 3)"},
     {"bus-width-bits", "B", "external bus width in bits, for the byte counts (e.g. 128)"},
     {"counters-only", "", "print the summed counters only"}},
    1,
    1};

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

void print_value(expr::value v) {
  if (v.is_u64()) {
    std::printf("%" PRIu64 "\n", v.bits);
  } else {
    std::printf("%.17g\n", v.as_double());
  }
}

}  // namespace

int cmd_mali(const std::vector<std::string>& args) {
  int status = exit_ok;
  const auto parsed = parse(mali_spec, args, status);
  if (!parsed) return status;

  std::optional<std::uint64_t> numbers[3];
  const char* names[3] = {"l2-slices", "core-mask", "bus-width-bits"};
  for (int i = 0; i < 3; ++i) {
    const auto text = parsed->get(names[i]);
    if (!text) return fail("mali", std::string("--") + names[i] + " is required", exit_usage);
    numbers[i] = parse_u64(*text);
    if (!numbers[i]) {
      return fail("mali", std::string("--") + names[i] + ": not a number: '" + *text + "'",
                  exit_usage);
    }
  }
  if (*numbers[0] > mali::max_l2_slices || *numbers[2] > 0xffffffffu) {
    return fail("mali", "--l2-slices or --bus-width-bits out of range", exit_usage);
  }
  const mali::sample_layout layout{static_cast<std::uint32_t>(*numbers[0]), *numbers[1]};
  if (auto ok = layout.validate(); !ok) {
    return fail("mali", ok.error_value().describe(), exit_usage);
  }
  auto ev = mali::g72_evaluator::create(layout, static_cast<std::uint32_t>(*numbers[2]));
  if (!ev) return fail("mali", ev.error_value().describe(), exit_usage);

  auto file = mapped_file::open(parsed->positional[0]);
  if (!file) return fail("mali", file.error_value().describe(), exit_bad_input);
  auto s = mali::sample::parse(layout, file->bytes());
  if (!s) {
    return fail("mali", parsed->positional[0] + ": " + s.error_value().describe(), exit_bad_input);
  }

  std::printf("kind,name,where,units,value\n");
  const mali::block_sums sums = s->sums();
  for (const mali::hw_counter& c : mali::g72_counters) {
    const std::string_view block = to_string(c.id.block);
    std::printf("counter,%.*s,%.*s:%u,,%" PRIu64 "\n", static_cast<int>(c.name.size()),
                c.name.data(), static_cast<int>(block.size()), block.data(),
                static_cast<unsigned>(c.id.index), sums[c.id]);
  }
  if (parsed->has("counters-only")) return exit_ok;

  std::vector<expr::value> out(ev->size());
  if (auto r = ev->evaluate(sums, out); !r) {
    return fail("mali", r.error_value().describe(), exit_bad_input);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const mali::guide_expression& e = mali::g72_guide_expressions[i];
    std::printf("metric,%.*s,%.*s,%.*s,", static_cast<int>(e.symbol.size()), e.symbol.data(),
                static_cast<int>(e.section.size()), e.section.data(),
                static_cast<int>(e.units.size()), e.units.data());
    print_value(out[i]);
  }
  return exit_ok;
}

}  // namespace hwpc::cli
