// Linux ioctl request numbers, computed as the kernel's _IOC macro does:
// direction bits 31:30 (1 write, 2 read), argument size 29:16, type 15:8,
// number 7:0 (FACTS-live "[calc]"). constexpr, so the uapi headers of
// live/ can check their numbers at compile time without <linux/ioctl.h>.
#pragma once

#include <cstdint>

namespace hwpc::live::ioc {

inline constexpr std::uint32_t dir_none = 0;
inline constexpr std::uint32_t dir_write = 1;
inline constexpr std::uint32_t dir_read = 2;

constexpr unsigned long make(std::uint32_t dir, std::uint32_t type, std::uint32_t nr,
                             std::uint32_t size) noexcept {
  return (static_cast<unsigned long>(dir) << 30) | (static_cast<unsigned long>(size) << 16) |
         (static_cast<unsigned long>(type) << 8) | nr;
}
constexpr unsigned long io(std::uint32_t type, std::uint32_t nr) noexcept {
  return make(dir_none, type, nr, 0);
}
constexpr unsigned long iow(std::uint32_t type, std::uint32_t nr, std::uint32_t size) noexcept {
  return make(dir_write, type, nr, size);
}
constexpr unsigned long ior(std::uint32_t type, std::uint32_t nr, std::uint32_t size) noexcept {
  return make(dir_read, type, nr, size);
}
constexpr unsigned long iowr(std::uint32_t type, std::uint32_t nr, std::uint32_t size) noexcept {
  return make(dir_read | dir_write, type, nr, size);
}

// DRM: type 'd'; driver commands start at 0x40.
inline constexpr std::uint32_t drm_type = 'd';
inline constexpr std::uint32_t drm_command_base = 0x40;

}  // namespace hwpc::live::ioc
