// The Xe uapi as live::xe_stream and live::xe_device use it (FACTS-live section 2,
// FACTS-xe sections 1 and 6): DRM_IOCTL_XE_OBSERVATION with its parameter,
// the property chain links, the OA properties, the stream ioctls and the
// status bits, DRM_IOCTL_XE_DEVICE_QUERY with the replies a recording needs,
// and ADD_CONFIG's parameter. No Debian package ships xe_drm.h: the layouts are written
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

// DRM_IOCTL_XE_DEVICE_QUERY (FACTS-live section 2.5; the query numbers and
// reply layouts below from the public xe_drm.h, docs/record.md "Xe facts").
// A size of 0 asks the kernel for the reply's size; any other size must be
// exactly that, else EINVAL.
struct device_query {
  std::uint64_t extensions = 0;
  std::uint32_t query = 0;
  std::uint32_t size = 0;
  std::uint64_t data = 0;
  std::uint64_t reserved[2] = {};
};
static_assert(sizeof(device_query) == 40 && offsetof(device_query, data) == 16);
inline constexpr unsigned long ioctl_device_query =
    ioc::iowr(ioc::drm_type, ioc::drm_command_base + 0x00, sizeof(device_query));
static_assert(ioctl_device_query == 0xc0286440ul);

namespace query {
inline constexpr std::uint32_t engines = 0;
inline constexpr std::uint32_t config = 2;
inline constexpr std::uint32_t gt_list = 3;
inline constexpr std::uint32_t hwconfig = 4;
inline constexpr std::uint32_t gt_topology = 5;
inline constexpr std::uint32_t engine_cycles = 6;
inline constexpr std::uint32_t oa_units = 8;
}  // namespace query

// CONFIG: {u32 num_params; u32 pad; u64 info[num_params]}; info[0] holds the
// PCI device id in bits 15:0 and the revision in bits 23:16.
inline constexpr std::size_t config_header_bytes = 8;
inline constexpr std::size_t config_rev_and_device_id = 0;

// HWCONFIG: u32 key/length/value items; the keys a recording's topology needs.
namespace hwconfig_key {
inline constexpr std::uint32_t max_slices = 1;
inline constexpr std::uint32_t max_dual_subslices = 2;
inline constexpr std::uint32_t max_eus_per_dss = 3;
}  // namespace hwconfig_key

// GT_TOPOLOGY: back-to-back {u16 gt_id; u16 type; u32 num_bytes; u8 mask[num_bytes]}.
struct topology_mask_header {
  std::uint16_t gt_id = 0;
  std::uint16_t type = 0;
  std::uint32_t num_bytes = 0;
};
static_assert(sizeof(topology_mask_header) == 8);
namespace topo {
inline constexpr std::uint16_t dss_geometry = 1;
inline constexpr std::uint16_t dss_compute = 2;
inline constexpr std::uint16_t l3_bank = 3;
inline constexpr std::uint16_t eu_per_dss = 4;
inline constexpr std::uint16_t simd16_eu_per_dss = 5;
}  // namespace topo

struct engine_class_instance {
  std::uint16_t engine_class = 0;  // 0 render, 1 copy, 2 video decode, 3 video enhance, 4 compute
  std::uint16_t engine_instance = 0;
  std::uint16_t gt_id = 0;
  std::uint16_t pad = 0;
};
static_assert(sizeof(engine_class_instance) == 8);

// ENGINE_CYCLES: the caller fills eci and clockid; the kernel reads the
// engine's timestamp register between two CPU clock reads.
struct engine_cycles {
  engine_class_instance eci;
  std::int32_t clockid = 0;
  std::uint32_t width = 0;
  std::uint64_t engine_cycles = 0;
  std::uint64_t cpu_timestamp = 0;  // ns, before the register read
  std::uint64_t cpu_delta = 0;      // ns the read took
};
static_assert(sizeof(engine_cycles) == 40 && offsetof(engine_cycles, engine_cycles) == 16 &&
              offsetof(engine_cycles, cpu_delta) == 32);

// OA_UNITS (FACTS-live section 2.5): {u64 extensions; u32 num_oa_units; u32
// pad} then units back to back, each 72 bytes plus 8 per engine.
inline constexpr std::size_t oa_units_header_bytes = 16;
inline constexpr std::size_t oa_unit_bytes = 72;
namespace oa_unit_field {
inline constexpr std::size_t id = 8;
inline constexpr std::size_t type = 12;
inline constexpr std::size_t capabilities = 16;
inline constexpr std::size_t timestamp_freq = 24;
inline constexpr std::size_t num_engines = 64;
inline constexpr std::size_t engines = 72;
}  // namespace oa_unit_field
inline constexpr std::uint32_t oa_unit_type_oag = 0;
inline constexpr std::uint32_t oa_unit_type_oam = 1;

// ADD_CONFIG's parameter (FACTS-live section 2.4): one list of {u32 address,
// u32 value} pairs where i915 had three.
struct oa_config {
  std::uint64_t extensions = 0;
  char uuid[36] = {};
  std::uint32_t n_regs = 0;
  std::uint64_t regs_ptr = 0;
};
static_assert(sizeof(oa_config) == 56 && offsetof(oa_config, n_regs) == 44 &&
              offsetof(oa_config, regs_ptr) == 48);

}  // namespace hwpc::live::xe
