// Little-endian loads and stores over caller-owned bytes.
//
// OA reports, i915 perf records and recordings are little-endian and may sit
// at any alignment inside a caller's buffer, so every access goes through
// std::memcpy (which the compiler turns into one unaligned load) instead of a
// pointer cast, which would be undefined behaviour on misaligned data.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace hwpc {

using byte_span = std::span<const std::byte>;

namespace detail {
template <class T>
constexpr T byteswap_if_big(T v) noexcept {
  if constexpr (std::endian::native == std::endian::big) {
    T r = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      r = static_cast<T>((r << 8) | ((v >> (8 * i)) & 0xff));
    }
    return r;
  } else {
    return v;
  }
}

template <class T>
constexpr T load_le(const std::byte* p) noexcept {
  if (std::is_constant_evaluated()) {
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      v = static_cast<T>(v | (static_cast<T>(std::to_integer<unsigned>(p[i])) << (8 * i)));
    }
    return v;
  }
  T v;
  std::memcpy(&v, p, sizeof(T));
  return byteswap_if_big(v);
}

template <class T>
constexpr void store_le(std::byte* p, T v) noexcept {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
  }
}
}  // namespace detail

constexpr std::uint8_t load_u8(const std::byte* p) noexcept {
  return std::to_integer<std::uint8_t>(*p);
}
constexpr std::uint16_t load_le16(const std::byte* p) noexcept {
  return detail::load_le<std::uint16_t>(p);
}
constexpr std::uint32_t load_le32(const std::byte* p) noexcept {
  return detail::load_le<std::uint32_t>(p);
}
constexpr std::uint64_t load_le64(const std::byte* p) noexcept {
  return detail::load_le<std::uint64_t>(p);
}

constexpr void store_le16(std::byte* p, std::uint16_t v) noexcept { detail::store_le(p, v); }
constexpr void store_le32(std::byte* p, std::uint32_t v) noexcept { detail::store_le(p, v); }
constexpr void store_le64(std::byte* p, std::uint64_t v) noexcept { detail::store_le(p, v); }

// Extracts bits hi..lo (inclusive, as the PRM writes them) of a register value.
constexpr std::uint32_t bits(std::uint32_t v, unsigned hi, unsigned lo) noexcept {
  const unsigned width = hi - lo + 1;
  const std::uint32_t mask = width >= 32 ? ~0u : ((1u << width) - 1u);
  return (v >> lo) & mask;
}

constexpr bool bit(std::uint32_t v, unsigned n) noexcept { return ((v >> n) & 1u) != 0; }

inline byte_span as_bytes_span(const void* data, std::size_t size) noexcept {
  return {static_cast<const std::byte*>(data), size};
}

}  // namespace hwpc
