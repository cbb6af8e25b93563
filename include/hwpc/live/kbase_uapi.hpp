// Arm's kbase uapi as live::kbase_session uses it (FACTS-live section 3,
// FACTS-mali section 5): the device ioctls on /dev/mali<N> (magic 0x80), the
// kinstr_prfcnt reader's (magic 0xbf), the flex-list items and the GPU
// property ids. No Debian package ships these headers: the layouts are
// written from the facts with size/offset static_asserts, and the ioctl
// numbers are checked against the values FACTS-live computed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwpc/live/ioc.hpp"

namespace hwpc::live::kbase {

inline constexpr std::uint32_t magic = 0x80;
inline constexpr std::uint32_t reader_magic = 0xbf;
inline constexpr const char* default_node = "/dev/mali0";

struct version_check {
  std::uint16_t major = 0;
  std::uint16_t minor = 0;
};
static_assert(sizeof(version_check) == 4);

struct set_flags {
  std::uint32_t create_flags = 0;
};
inline constexpr std::uint32_t flag_system_monitor = 1u << 1;  // submit disabled

struct get_gpuprops {
  std::uint64_t buffer = 0;
  std::uint32_t size = 0;
  std::uint32_t flags = 0;
};
static_assert(sizeof(get_gpuprops) == 16);

struct kinstr_enum_info {
  std::uint32_t info_item_size = 0;
  std::uint32_t info_item_count = 0;
  std::uint64_t info_list_ptr = 0;
};
static_assert(sizeof(kinstr_enum_info) == 16);

// In: the request list; out (same bytes): metadata item size and mmap size.
struct kinstr_setup {
  std::uint32_t request_item_count = 0;  // out: prfcnt_metadata_item_size
  std::uint32_t request_item_size = 0;   // out: prfcnt_mmap_size_bytes
  std::uint64_t requests_ptr = 0;
};
static_assert(sizeof(kinstr_setup) == 16);

struct hwcnt_reader_setup {
  std::uint32_t buffer_count = 0;
  std::uint32_t fe_bm = 0;
  std::uint32_t shader_bm = 0;
  std::uint32_t tiler_bm = 0;
  std::uint32_t mmu_l2_bm = 0;
};
static_assert(sizeof(hwcnt_reader_setup) == 20);

inline constexpr unsigned long ioctl_version_check_jm = ioc::iowr(magic, 0x00, 4);
inline constexpr unsigned long ioctl_version_check_csf = ioc::iowr(magic, 0x34, 4);
inline constexpr unsigned long ioctl_set_flags = ioc::iow(magic, 0x01, sizeof(set_flags));
inline constexpr unsigned long ioctl_get_gpuprops = ioc::iow(magic, 0x03, sizeof(get_gpuprops));
inline constexpr unsigned long ioctl_hwcnt_reader_setup =
    ioc::iow(magic, 0x08, sizeof(hwcnt_reader_setup));
inline constexpr unsigned long ioctl_kinstr_enum_info =
    ioc::iowr(magic, 0x38, sizeof(kinstr_enum_info));
inline constexpr unsigned long ioctl_kinstr_setup = ioc::iowr(magic, 0x39, sizeof(kinstr_setup));
static_assert(ioctl_version_check_jm == 0xc0048000ul && ioctl_version_check_csf == 0xc0048034ul);
static_assert(ioctl_set_flags == 0x40048001ul && ioctl_get_gpuprops == 0x40108003ul);
static_assert(ioctl_hwcnt_reader_setup == 0x40148008ul);
static_assert(ioctl_kinstr_enum_info == 0xc0108038ul && ioctl_kinstr_setup == 0xc0108039ul);

// The kinstr_prfcnt reader fd.
struct kinstr_control {
  std::uint16_t cmd = 0;
  std::uint16_t pad[3] = {};
  std::uint64_t user_data = 0;
};
static_assert(sizeof(kinstr_control) == 16 && offsetof(kinstr_control, user_data) == 8);
struct kinstr_sample_access {
  std::uint64_t sequence = 0;
  std::uint64_t sample_offset_bytes = 0;
};
static_assert(sizeof(kinstr_sample_access) == 16);
namespace cmd {
inline constexpr std::uint16_t start = 1;
inline constexpr std::uint16_t stop = 2;
inline constexpr std::uint16_t sample_sync = 3;
inline constexpr std::uint16_t sample_async = 4;
inline constexpr std::uint16_t discard = 5;
}  // namespace cmd
inline constexpr unsigned long ioctl_kinstr_cmd =
    ioc::iow(reader_magic, 0x00, sizeof(kinstr_control));
inline constexpr unsigned long ioctl_kinstr_get_sample =
    ioc::ior(reader_magic, 0x01, sizeof(kinstr_sample_access));
inline constexpr unsigned long ioctl_kinstr_put_sample =
    ioc::iow(reader_magic, 0x10, sizeof(kinstr_sample_access));
static_assert(ioctl_kinstr_cmd == 0x4010bf00ul && ioctl_kinstr_get_sample == 0x8010bf01ul &&
              ioctl_kinstr_put_sample == 0x4010bf10ul);

// Flex-list items: {u16 type; u16 version; u32 pad; union}.
namespace item {
inline constexpr std::uint16_t none = 0x0000;  // also ENUM_BLOCK: enum lists are bounded by count
inline constexpr std::uint16_t enum_block = 0x0000;
inline constexpr std::uint16_t enum_request = 0x0001;
inline constexpr std::uint16_t enum_sample_info = 0x0002;
inline constexpr std::uint16_t request_mode = 0x1000;
inline constexpr std::uint16_t request_enable = 0x1001;
inline constexpr std::uint16_t meta_sample = 0x2000;
inline constexpr std::uint16_t meta_clock = 0x2001;
inline constexpr std::uint16_t meta_block = 0x2002;
}  // namespace item
inline constexpr std::size_t enum_item_bytes = 32;
inline constexpr std::size_t request_item_bytes = 32;
inline constexpr std::size_t metadata_item_bytes = 48;
inline constexpr std::uint16_t request_type_mode = 0;
inline constexpr std::uint16_t request_type_enable = 1;
inline constexpr std::uint8_t mode_manual = 0;
inline constexpr std::uint8_t mode_periodic = 1;

struct enum_block_item {
  std::uint16_t type = item::enum_block;
  std::uint16_t version = 0;
  std::uint32_t pad = 0;
  std::uint8_t block_type = 0;
  std::uint8_t set = 0;
  std::uint8_t pad2[2] = {};
  std::uint16_t num_instances = 0;
  std::uint16_t num_values = 0;
  std::uint64_t counter_mask[2] = {};
};
static_assert(sizeof(enum_block_item) == enum_item_bytes);
static_assert(offsetof(enum_block_item, num_values) == 14 &&
              offsetof(enum_block_item, counter_mask) == 16);

struct enum_request_item {
  std::uint16_t type = item::enum_request;
  std::uint16_t version = 0;
  std::uint32_t pad = 0;
  std::uint16_t request_type = 0;
  std::uint16_t pad2 = 0;
  std::uint32_t versions_mask = 0;
  std::uint64_t unused[2] = {};
};
static_assert(sizeof(enum_request_item) == enum_item_bytes);

struct request_mode_item {
  std::uint16_t type = item::request_mode;
  std::uint16_t version = 0;
  std::uint32_t pad = 0;
  std::uint8_t mode = 0;
  std::uint8_t pad2[7] = {};
  std::uint64_t period_ns = 0;
  std::uint64_t unused = 0;
};
static_assert(sizeof(request_mode_item) == request_item_bytes &&
              offsetof(request_mode_item, period_ns) == 16);

struct request_enable_item {
  std::uint16_t type = item::request_enable;
  std::uint16_t version = 0;
  std::uint32_t pad = 0;
  std::uint8_t block_type = 0;
  std::uint8_t set = 0;
  std::uint8_t pad2[6] = {};
  std::uint64_t enable_mask[2] = {};
};
static_assert(sizeof(request_enable_item) == request_item_bytes &&
              offsetof(request_enable_item, enable_mask) == 16);

// GET_GPUPROPS: entries of u32 key (id << 2 | size code) then the value.
namespace gpuprop {
inline constexpr std::uint32_t l2_num_l2_slices = 15;
inline constexpr std::uint32_t raw_shader_present = 25;
inline constexpr std::uint32_t raw_gpu_id = 55;
inline constexpr std::uint32_t coherency_num_core_groups = 62;
inline constexpr std::uint32_t coherency_group_0 = 64;
}  // namespace gpuprop

// The oldest interface versions with a working kinstr_prfcnt (FACTS-live 3.4).
inline constexpr version_check kinstr_min_jm{11, 37};
inline constexpr version_check kinstr_min_csf{1, 17};

}  // namespace hwpc::live::kbase
