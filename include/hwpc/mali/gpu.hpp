// Which Mali GPU: a product and its counter table, found by a name from
// Arm's ProductInfo (any alias, "Mali-G78", "mali-g78", "G78",
// "Immortalis-G925") or by the raw GPU_ID register (32- or 64-bit form).
// There is no default GPU: a caller that knows neither gets an error.
//
//   auto p = hwpc::mali::find_gpu("0x92000000");   // GPU_ID -> product 0x9002
//   p.value()->name;                               // "Mali-G78"
//   p.value()->table->values_per_block;            // 64
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "hwpc/core/error.hpp"
#include "hwpc/core/hex.hpp"
#include "hwpc/mali/gpus/index.hpp"
#include "hwpc/mali/table.hpp"

namespace hwpc::mali {

// The product of a product id (ProductInfo's <Id>), or nullptr.
constexpr const gpu_product* find_product(std::uint32_t product_id) noexcept {
  for (const gpu_product& p : gpus::products) {
    if (p.product_id == product_id) return &p;
  }
  return nullptr;
}

// GPU_ID register -> product id (arch_major << 12) | product_major, by
// libGPUCounters' rule (docs/mali.md): a 64-bit GPU_ID has bits 31:28 all set
// and keeps arch_major in bits 63:56, product_major in 39:32; a 32-bit one
// keeps them in bits 31:28 and 19:16. Midgard ids (GPU_ID >> 16 below 0x1000,
// or 0x6956) have no layout in the database and are refused.
inline result<std::uint32_t> product_id_of_gpu_id(std::uint64_t gpu_id) {
  std::uint32_t arch = 0, product = 0;
  if (((gpu_id >> 28) & 0xf) == 0xf) {
    arch = static_cast<std::uint32_t>((gpu_id >> 56) & 0xff);
    product = static_cast<std::uint32_t>((gpu_id >> 32) & 0xff);
  } else {
    if (gpu_id > 0xffffffffu) {
      return error{errc::out_of_range, 0,
                   "GPU_ID " + to_hex(gpu_id) +
                       " has bits above 31 but is not a 64-bit GPU_ID (bits 31:28 are not 0xf)",
                   error_anchor::none};
    }
    const std::uint64_t legacy = gpu_id >> 16;
    if (legacy < 0x1000 || legacy == 0x6956) {
      return error{errc::unknown_format, 0,
                   "GPU_ID " + to_hex(gpu_id) +
                       " is a Midgard (T-series) id; Arm's counter database has no layout for it",
                   error_anchor::none};
    }
    arch = static_cast<std::uint32_t>((gpu_id >> 28) & 0xf);
    product = static_cast<std::uint32_t>((gpu_id >> 16) & 0xf);
  }
  return (arch << 12) | product;
}

// A GPU_ID register value for a product id, in the 32-bit form (arch_major
// in bits 31:28, product_major in 19:16; revision fields 0), or the 64-bit
// form (bits 31:28 set, arch_major in 63:56, product_major in 39:32) where the
// 32-bit form cannot hold the numbers.
constexpr std::uint64_t gpu_id_of_product(std::uint32_t product_id) noexcept {
  const std::uint64_t arch = product_id >> 12, product = product_id & 0xfff;
  if (arch < 15 && product < 16) return arch << 28 | product << 16;
  return arch << 56 | product << 32 | 0xf000'0000u;
}

// Command Stream Frontend GPUs: arch_major 10 (G710) and later (FACTS-mali
// section 1); their front-end counts GPU_ACTIVE at value 4, not 6.
constexpr bool is_csf_product(std::uint32_t product_id) noexcept {
  return (product_id >> 12) >= 10;
}

// The product of a GPU_ID register value.
inline result<const gpu_product*> find_gpu_by_id(std::uint64_t gpu_id) {
  auto pid = product_id_of_gpu_id(gpu_id);
  if (!pid) return pid.error_value();
  if (const gpu_product* p = find_product(*pid)) return p;
  return error{errc::unknown_format, 0,
               "GPU_ID " + to_hex(gpu_id) + " is product id " + to_hex(*pid) +
                   ", which is not in Arm's counter database",
               error_anchor::none};
}

namespace detail {
constexpr char fold_name_char(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
  if (c == ' ' || c == '_') return '-';
  return c;
}
// Equal ignoring case, with ' ', '_' and '-' the same.
constexpr bool same_name(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold_name_char(a[i]) != fold_name_char(b[i])) return false;
  }
  return true;
}
// "Mali-G78" -> "G78", "Immortalis-G925" -> "G925"; otherwise empty.
constexpr std::string_view without_brand(std::string_view name) noexcept {
  for (std::string_view brand : {std::string_view("Mali"), std::string_view("Immortalis")}) {
    if (name.size() > brand.size() + 1 && same_name(name.substr(0, brand.size()), brand) &&
        fold_name_char(name[brand.size()]) == '-') {
      return name.substr(brand.size() + 1);
    }
  }
  return {};
}
}  // namespace detail

// The product a name means: any alias of gpus::aliases, ignoring case and
// treating ' ', '_', '-' alike, with or without its "Mali-"/"Immortalis-"
// prefix. nullptr when none.
constexpr const gpu_product* find_gpu_by_name(std::string_view name) noexcept {
  if (name.empty()) return nullptr;
  for (const gpu_alias& a : gpus::aliases) {
    if (detail::same_name(a.name, name) || detail::same_name(detail::without_brand(a.name), name)) {
      return find_product(a.product_id);
    }
  }
  return nullptr;
}

// A name, or a GPU_ID as a number (decimal or 0x hex).
inline result<const gpu_product*> find_gpu(std::string_view text) {
  std::string_view digits = text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (!digits.empty() && ec == std::errc{} && end == digits.data() + digits.size()) {
    return find_gpu_by_id(v);
  }
  if (const gpu_product* p = find_gpu_by_name(text)) return p;
  std::string known;
  for (const gpu_alias& a : gpus::aliases) {
    if (!known.empty()) known += ", ";
    known += a.name;
  }
  // Bounded: the message quotes at most 64 bytes of what it was given.
  std::string shown(text.substr(0, 64));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return error{errc::unknown_name, 0,
               "no Mali GPU is called '" + shown + "' (known: " + known + "; or give a GPU_ID)",
               error_anchor::none};
}

}  // namespace hwpc::mali
