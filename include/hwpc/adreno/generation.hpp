// Which Adreno a capture comes from, and so which generation's names apply:
// the device table, matched the way Mesa's decoder matches it, never the id's
// bytes (docs/adreno.md, "Generations").
//
// Sources (FACTS-adreno6 section 1): chip-id fields bits 7:0 patch, 15:8 minor,
// 23:16 major, 31:24 core, 47:32 fuse; a table entry given as a GPU id n is
// core n/100, major (n/10)%10, minor n%10, patch 0xff (any). Matching, in
// order: exact, then patch wildcard; then both again with the capture's fuse
// forced to 0xffff when the entry's fuse is 0xffff. The generation is the
// entry's, not the core byte's: A702 (chip 0x07000200) is an A6XX part, and
// 0x43050a01 is an A7XX. A5xx rows: Mesa's freedreno_devices.py (GPU ids 505,
// 506, 508, 509, 510, 512, 530, 540, all CHIP.A5XX; 505 and 506 are in its
// current list, read for docs/adreno.md "Generations").
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace hwpc::adreno {

enum class generation : std::uint8_t { unknown, a5xx, a6xx, a7xx };

constexpr std::string_view to_string(generation g) noexcept {
  switch (g) {
    case generation::a5xx:
      return "A5XX";
    case generation::a6xx:
      return "A6XX";
    case generation::a7xx:
      return "A7XX";
    default:
      return "unknown";
  }
}

struct device {
  std::uint64_t chip_id;  // as in the table: patch 0xff and fuse 0xffff are wildcards
  std::string_view name;
  generation gen;
};

// The chip id a table entry given as a GPU id stands for.
constexpr std::uint64_t chip_id_of_gpu_id(std::uint32_t n) noexcept {
  return (std::uint64_t{n / 100 % 256} << 24) | (std::uint64_t{n / 10 % 10} << 16) |
         (std::uint64_t{n % 10} << 8) | 0xff;
}

namespace detail {
inline constexpr std::uint64_t any_fuse = std::uint64_t{0xffff} << 32;
constexpr device gpu(std::uint32_t n, std::string_view name, generation g) {
  return {chip_id_of_gpu_id(n), name, g};
}
constexpr generation A5 = generation::a5xx;
constexpr generation A6 = generation::a6xx;
constexpr generation A7 = generation::a7xx;

// FACTS-adreno6 section 1.4 (Mesa's table ids; names are hwpc's short forms).
inline constexpr device devices[] = {
    gpu(505, "A505", A5),           gpu(506, "A506", A5),
    gpu(508, "A508", A5),           gpu(509, "A509", A5),
    gpu(510, "A510", A5),           gpu(512, "A512", A5),
    gpu(530, "A530", A5),           gpu(540, "A540", A5),
    gpu(605, "A605", A6),           gpu(608, "A608", A6),
    gpu(610, "A610", A6),           gpu(612, "A612", A6),
    gpu(615, "A615", A6),           gpu(616, "A616", A6),
    gpu(618, "A618", A6),           gpu(619, "A619", A6),
    gpu(620, "A620", A6),           {0xffff06020100, "A621", A6},
    {0xffff06020300, "A623", A6},   gpu(630, "A630", A6),
    gpu(640, "A640", A6),           gpu(680, "A680", A6),
    gpu(650, "A650", A6),           {0x00be06030500, "A635", A6},  // Adreno 8c Gen 3
    {0x007506030500, "A635", A6},                                  // 7c+ Gen 3
    {0x006006030500, "A635", A6},                                  // 7c+ Gen 3 Lite
    {0x00ac06030500, "A635", A6},                                  // FD643
    {0xffff06030500, "A635", A6},   gpu(660, "A660", A6),
    {0x06060201, "A644", A6},       {0xffff06060300, "A663", A6},
    gpu(690, "A690", A6),           {0xffff06090000, "A690", A6},
    gpu(702, "A702", A6),           {0x00b207002000, "A702", A6},
    {0xffff07002000, "A702", A6},   {0x07030002, "A725", A7},
    {0xffff07030002, "A725", A7},   {0x07030001, "A730", A7},
    {0xffff07030001, "A730", A7},   {0x43030b00, "A735", A7},
    {0xffff43030c00, "X1-45", A7},  gpu(740, "A740", A7),
    {0x43050a01, "A740", A7},       {0xffff43050a01, "A740", A7},
    {0xffff43050c01, "X1-85", A7},  {0x43050a00, "A32", A7},
    {0xffff43050a00, "A32", A7},    {0x43050b00, "A740v3", A7},
    {0xffff43050b00, "A740v3", A7}, {0x43051401, "A750", A7},
    {0xffff43051401, "A750", A7},
};

// The lookups work on indices (std::size(devices): none) and form a pointer
// only to return it: GCC cannot compare a table entry's address with null in a
// constant expression when it keeps null checks (-fno-delete-null-pointer-checks,
// which -fsanitize=null and so -fsanitize=undefined imply), and the
// static_asserts below must compile under every flag users build with.
constexpr std::size_t match(std::uint64_t id, bool wildcard) noexcept {
  for (std::size_t i = 0; i < std::size(devices); ++i) {
    const std::uint64_t c = devices[i].chip_id;
    if (c == id) return i;
    if (wildcard && (c & 0xff) == 0xff && (c >> 8) == (id >> 8)) return i;
  }
  return std::size(devices);
}

constexpr std::size_t index_of_chip_id(std::uint64_t chip) noexcept {
  for (const std::uint64_t id : {chip, chip | any_fuse}) {
    for (const bool wildcard : {false, true}) {
      const std::size_t i = match(id, wildcard);
      if (i < std::size(devices) && (id == chip || (devices[i].chip_id & any_fuse) == any_fuse)) {
        return i;
      }
    }
  }
  return std::size(devices);
}

constexpr const device* entry(std::size_t i) noexcept {
  return i < std::size(devices) ? &devices[i] : nullptr;
}
}  // namespace detail

inline constexpr std::size_t device_count = std::size(detail::devices);

// The table entry a chip id resolves to, or null (an unknown Adreno).
constexpr const device* find_device_by_chip_id(std::uint64_t chip) noexcept {
  return detail::entry(detail::index_of_chip_id(chip));
}

// The entry of a GPU id (0 is no id: kernel A7xx captures carry 0).
constexpr const device* find_device_by_gpu_id(std::uint32_t gpu_id) noexcept {
  return gpu_id == 0 ? nullptr : find_device_by_chip_id(chip_id_of_gpu_id(gpu_id) & ~0xffull);
}

// What a capture's RD_CHIP_ID and RD_GPU_ID say: the chip id decides; the GPU
// id only when it is non-zero and the chip id did not resolve.
constexpr const device* resolve_device(std::optional<std::uint32_t> gpu_id,
                                       std::optional<std::uint64_t> chip_id) noexcept {
  if (chip_id) {
    const std::size_t i = detail::index_of_chip_id(*chip_id);
    if (i < device_count) return detail::entry(i);
  }
  return gpu_id ? find_device_by_gpu_id(*gpu_id) : nullptr;
}

// `--gpu`: a name from the table ("a630", "X1-85", case ignored), a GPU id in
// decimal ("630"), or a chip id in hex ("0x43050a01"). Null when nothing matches.
inline const device* parse_device(std::string_view text) noexcept {
  if (text.empty()) return nullptr;
  const auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  for (const device& d : detail::devices) {
    if (std::ranges::equal(d.name, text, {}, lower, lower)) return &d;
  }
  const bool hex = text.size() > 2 && text[0] == '0' && lower(text[1]) == 'x';
  std::string_view digits = hex ? text.substr(2) : text;
  if (digits.empty() || digits.size() > (hex ? 16u : 9u)) return nullptr;
  std::uint64_t v = 0;
  for (const char c : digits) {
    const char l = lower(c);
    const int x = l >= '0' && l <= '9' ? l - '0' : hex && l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
    if (x < 0) return nullptr;
    v = v * (hex ? 16 : 10) + static_cast<std::uint64_t>(x);
  }
  return hex ? find_device_by_chip_id(v) : find_device_by_gpu_id(static_cast<std::uint32_t>(v));
}

// "A630 (A6XX)".
inline std::string describe(const device& d) {
  return std::string(d.name) + " (" + std::string(to_string(d.gen)) + ")";
}

static_assert(find_device_by_chip_id(0x06030001)->name == "A630");
static_assert(find_device_by_chip_id(0x06030002)->name == "A630");
// The kernel's A702 id (core byte 7) matches GPU id 702 by the patch wildcard: an A6XX.
static_assert(find_device_by_chip_id(0x07000200)->gen == generation::a6xx);
static_assert(find_device_by_chip_id(0x00b207002000)->gen == generation::a6xx);
static_assert(find_device_by_chip_id(0x0005'43050a01)->gen == generation::a7xx);
static_assert(find_device_by_gpu_id(530)->gen == generation::a5xx);
static_assert(find_device_by_gpu_id(0) == nullptr && find_device_by_gpu_id(6760) == nullptr);
static_assert(resolve_device(0, 0x0003'43051401)->name == "A750");

}  // namespace hwpc::adreno
