// The i915 perf uapi as live::i915_stream uses it: ioctl numbers, the open
// parameter and property ids, GETPARAM ids, QUERY and REG_READ
// (FACTS-live section 1, the i915 seed). Written from those facts with
// size/offset static_asserts; tests/test_live_uapi.cpp checks every number
// and layout against Debian's libdrm-dev <libdrm/i915_drm.h>, which this
// header does not include (the library stays dependency-free).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwpc/live/ioc.hpp"

namespace hwpc::live::i915 {

// drm_i915_perf_open_param: flags, number of (id, value) pairs, pointer to them.
struct perf_open_param {
  std::uint32_t flags = 0;
  std::uint32_t num_properties = 0;
  std::uint64_t properties_ptr = 0;
};
static_assert(sizeof(perf_open_param) == 16);
static_assert(offsetof(perf_open_param, properties_ptr) == 8);

inline constexpr std::uint32_t open_fd_cloexec = 1u << 0;
inline constexpr std::uint32_t open_fd_nonblock = 1u << 1;
inline constexpr std::uint32_t open_disabled = 1u << 2;

// enum drm_i915_perf_property_id (first = 1).
namespace prop {
inline constexpr std::uint64_t ctx_handle = 1;
inline constexpr std::uint64_t sample_oa = 2;
inline constexpr std::uint64_t oa_metrics_set = 3;
inline constexpr std::uint64_t oa_format = 4;
inline constexpr std::uint64_t oa_exponent = 5;
inline constexpr std::uint64_t hold_preemption = 6;
inline constexpr std::uint64_t global_sseu = 7;
inline constexpr std::uint64_t poll_oa_period = 8;
inline constexpr std::uint64_t oa_engine_class = 9;
inline constexpr std::uint64_t oa_engine_instance = 10;
inline constexpr std::uint64_t max = 11;  // first id past the known ones
}  // namespace prop

inline constexpr unsigned max_exponent = 31;
inline constexpr std::uint64_t min_poll_oa_period_ns = 100'000;

// drm_i915_perf_oa_config (ADD_CONFIG).
struct perf_oa_config {
  char uuid[36] = {};
  std::uint32_t n_mux_regs = 0;
  std::uint32_t n_boolean_regs = 0;
  std::uint32_t n_flex_regs = 0;
  std::uint64_t mux_regs_ptr = 0;
  std::uint64_t boolean_regs_ptr = 0;
  std::uint64_t flex_regs_ptr = 0;
};
static_assert(sizeof(perf_oa_config) == 72);
static_assert(offsetof(perf_oa_config, n_mux_regs) == 36);
static_assert(offsetof(perf_oa_config, mux_regs_ptr) == 48);
static_assert(offsetof(perf_oa_config, flex_regs_ptr) == 64);

// drm_i915_getparam: {s32 param; int *value} (16 bytes on LP64).
struct getparam {
  std::int32_t param = 0;
  std::uint32_t pad_ = 0;  // alignment of the pointer
  std::uint64_t value_ptr = 0;
};
static_assert(sizeof(getparam) == 16);
static_assert(offsetof(getparam, value_ptr) == 8);

namespace param {
inline constexpr std::int32_t chipset_id = 4;
inline constexpr std::int32_t revision = 32;
inline constexpr std::int32_t cs_timestamp_frequency = 51;
inline constexpr std::int32_t perf_revision = 54;
inline constexpr std::int32_t oa_timestamp_frequency = 57;
}  // namespace param

// drm_i915_reg_read: {u64 offset; u64 val}; bit 0 of offset asks for 8 bytes.
struct reg_read {
  std::uint64_t offset = 0;
  std::uint64_t val = 0;
};
static_assert(sizeof(reg_read) == 16);
inline constexpr std::uint64_t render_ring_timestamp = 0x2358;
inline constexpr std::uint64_t reg_read_8b = 1;

// drm_i915_query and its items.
struct query_item {
  std::uint64_t query_id = 0;
  std::int32_t length = 0;  // 0: the kernel writes the size; < 0: this item's errno
  std::uint32_t flags = 0;
  std::uint64_t data_ptr = 0;
};
static_assert(sizeof(query_item) == 24);
static_assert(offsetof(query_item, data_ptr) == 16);

struct query {
  std::uint32_t num_items = 0;
  std::uint32_t flags = 0;
  std::uint64_t items_ptr = 0;
};
static_assert(sizeof(query) == 16);

inline constexpr std::uint64_t query_topology_info = 1;
inline constexpr std::size_t topology_header_bytes = 16;  // 8 x u16, then the masks

// Ioctl numbers on the DRM node.
inline constexpr unsigned long ioctl_getparam =
    ioc::iowr(ioc::drm_type, ioc::drm_command_base + 0x06, sizeof(getparam));
inline constexpr unsigned long ioctl_reg_read =
    ioc::iowr(ioc::drm_type, ioc::drm_command_base + 0x31, sizeof(reg_read));
inline constexpr unsigned long ioctl_perf_open =
    ioc::iow(ioc::drm_type, ioc::drm_command_base + 0x36, sizeof(perf_open_param));
inline constexpr unsigned long ioctl_perf_add_config =
    ioc::iow(ioc::drm_type, ioc::drm_command_base + 0x37, sizeof(perf_oa_config));
inline constexpr unsigned long ioctl_perf_remove_config =
    ioc::iow(ioc::drm_type, ioc::drm_command_base + 0x38, sizeof(std::uint64_t));
inline constexpr unsigned long ioctl_query =
    ioc::iowr(ioc::drm_type, ioc::drm_command_base + 0x39, sizeof(query));
static_assert(ioctl_perf_open == 0x40106476ul);
static_assert(ioctl_perf_add_config == 0x40486477ul);
static_assert(ioctl_perf_remove_config == 0x40086478ul);
static_assert(ioctl_query == 0xc0106479ul);
static_assert(ioctl_getparam == 0xc0106446ul);
static_assert(ioctl_reg_read == 0xc0106471ul);

// On the stream fd: _IO('i', n).
inline constexpr unsigned long ioctl_stream_enable = ioc::io('i', 0);
inline constexpr unsigned long ioctl_stream_disable = ioc::io('i', 1);
inline constexpr unsigned long ioctl_stream_config = ioc::io('i', 2);
static_assert(ioctl_stream_enable == 0x6900ul && ioctl_stream_disable == 0x6901ul);

// Sysctls that decide who may open a system-wide stream.
inline constexpr const char* paranoid_sysctl = "/proc/sys/dev/i915/perf_stream_paranoid";
inline constexpr const char* max_sample_rate_sysctl = "/proc/sys/dev/i915/oa_max_sample_rate";

}  // namespace hwpc::live::i915
