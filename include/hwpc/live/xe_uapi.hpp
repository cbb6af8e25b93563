// The Xe observation uapi as live::xe_stream uses it (FACTS-live section 2,
// FACTS-xe sections 1 and 6): DRM_IOCTL_XE_OBSERVATION with its parameter,
// the property chain links, the OA properties, the stream ioctls and the
// status bits. No Debian package ships xe_drm.h: the layouts are written
// from the facts with size/offset static_asserts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwpc/live/ioc.hpp"

namespace hwpc::live::xe {

struct observation_param {
  std::uint64_t extensions = 0;  // must be 0
  std::uint64_t observation_type = 0;
  std::uint64_t observation_op = 0;
  std::uint64_t param = 0;  // STREAM_OPEN: the first set-property link
};
static_assert(sizeof(observation_param) == 32 && offsetof(observation_param, param) == 24);
inline constexpr std::uint64_t observation_type_oa = 0;
inline constexpr std::uint64_t op_stream_open = 0;
inline constexpr std::uint64_t op_add_config = 1;
inline constexpr std::uint64_t op_remove_config = 2;

struct ext_set_property {
  std::uint64_t next_extension = 0;
  std::uint32_t name = 0;  // 0: DRM_XE_OA_EXTENSION_SET_PROPERTY
  std::uint32_t pad = 0;
  std::uint32_t property = 0;
  std::uint32_t pad2 = 0;
  std::uint64_t value = 0;
  std::uint64_t reserved[2] = {};
};
// 48 bytes: the field offsets FACTS-live section 2.1 lists (value at 24, two
// reserved u64 after it) end at 48, although its heading says 40 B.
static_assert(sizeof(ext_set_property) == 48);
static_assert(offsetof(ext_set_property, property) == 16 &&
              offsetof(ext_set_property, value) == 24);
inline constexpr unsigned max_chain_links = 16;

namespace prop {
inline constexpr std::uint32_t oa_unit_id = 1;
inline constexpr std::uint32_t sample_oa = 2;
inline constexpr std::uint32_t oa_metric_set = 3;
inline constexpr std::uint32_t oa_format = 4;
inline constexpr std::uint32_t oa_period_exponent = 5;
inline constexpr std::uint32_t oa_disabled = 6;
inline constexpr std::uint32_t exec_queue_id = 7;
inline constexpr std::uint32_t oa_engine_instance = 8;
inline constexpr std::uint32_t no_preempt = 9;
inline constexpr std::uint32_t num_syncs = 10;
inline constexpr std::uint32_t syncs = 11;
inline constexpr std::uint32_t oa_buffer_size = 12;
inline constexpr std::uint32_t wait_num_reports = 13;
inline constexpr std::uint32_t max = 14;
}  // namespace prop

struct oa_stream_status {
  std::uint64_t extensions = 0;
  std::uint64_t oa_status = 0;
  std::uint64_t reserved[3] = {};
};
static_assert(sizeof(oa_stream_status) == 40);
namespace status {
inline constexpr std::uint64_t report_lost = 1u << 0;
inline constexpr std::uint64_t buffer_overflow = 1u << 1;
inline constexpr std::uint64_t counter_overflow = 1u << 2;
inline constexpr std::uint64_t mmio_trigger_queue_full = 1u << 3;
}  // namespace status

inline constexpr unsigned long ioctl_observation =
    ioc::iow(ioc::drm_type, ioc::drm_command_base + 0x0b, sizeof(observation_param));
static_assert(ioctl_observation == 0x4020644bul);
inline constexpr unsigned long ioctl_stream_enable = ioc::io('i', 0);
inline constexpr unsigned long ioctl_stream_disable = ioc::io('i', 1);
inline constexpr unsigned long ioctl_stream_config = ioc::io('i', 2);
inline constexpr unsigned long ioctl_stream_status = ioc::io('i', 3);
inline constexpr unsigned long ioctl_stream_info = ioc::io('i', 4);

inline constexpr const char* paranoid_sysctl = "/proc/sys/dev/xe/observation_paranoid";

}  // namespace hwpc::live::xe
