// The i915 uapi numbers and layouts of live/i915_uapi.hpp, written from
// FACTS-live, checked at compile time against Debian's libdrm-dev header
// (<libdrm/i915_drm.h>); the core headers never include it. The Xe and kbase
// layouts have no Debian header: their static_asserts live beside them.
#include <gtest/gtest.h>

#include <cstddef>

#if __has_include(<libdrm/i915_drm.h>)
#include <libdrm/i915_drm.h>
#define HWPC_HAVE_LIBDRM_I915 1
#endif

#include "hwpc/live/i915_uapi.hpp"
#include "hwpc/live/kbase_uapi.hpp"
#include "hwpc/live/xe_uapi.hpp"

namespace {

namespace i915 = hwpc::live::i915;

#ifdef HWPC_HAVE_LIBDRM_I915
static_assert(i915::ioctl_perf_open == DRM_IOCTL_I915_PERF_OPEN);
static_assert(i915::ioctl_perf_add_config == DRM_IOCTL_I915_PERF_ADD_CONFIG);
static_assert(i915::ioctl_perf_remove_config == DRM_IOCTL_I915_PERF_REMOVE_CONFIG);
static_assert(i915::ioctl_query == DRM_IOCTL_I915_QUERY);
static_assert(i915::ioctl_getparam == DRM_IOCTL_I915_GETPARAM);
static_assert(i915::ioctl_reg_read == DRM_IOCTL_I915_REG_READ);
static_assert(i915::ioctl_stream_enable == I915_PERF_IOCTL_ENABLE);
static_assert(i915::ioctl_stream_disable == I915_PERF_IOCTL_DISABLE);
static_assert(i915::ioctl_stream_config == I915_PERF_IOCTL_CONFIG);

static_assert(sizeof(i915::perf_open_param) == sizeof(drm_i915_perf_open_param));
static_assert(offsetof(i915::perf_open_param, flags) == offsetof(drm_i915_perf_open_param, flags));
static_assert(offsetof(i915::perf_open_param, num_properties) ==
              offsetof(drm_i915_perf_open_param, num_properties));
static_assert(offsetof(i915::perf_open_param, properties_ptr) ==
              offsetof(drm_i915_perf_open_param, properties_ptr));
static_assert(i915::open_fd_cloexec == I915_PERF_FLAG_FD_CLOEXEC);
static_assert(i915::open_fd_nonblock == I915_PERF_FLAG_FD_NONBLOCK);
static_assert(i915::open_disabled == I915_PERF_FLAG_DISABLED);

static_assert(i915::prop::ctx_handle == DRM_I915_PERF_PROP_CTX_HANDLE);
static_assert(i915::prop::sample_oa == DRM_I915_PERF_PROP_SAMPLE_OA);
static_assert(i915::prop::oa_metrics_set == DRM_I915_PERF_PROP_OA_METRICS_SET);
static_assert(i915::prop::oa_format == DRM_I915_PERF_PROP_OA_FORMAT);
static_assert(i915::prop::oa_exponent == DRM_I915_PERF_PROP_OA_EXPONENT);
static_assert(i915::prop::hold_preemption == DRM_I915_PERF_PROP_HOLD_PREEMPTION);
static_assert(i915::prop::global_sseu == DRM_I915_PERF_PROP_GLOBAL_SSEU);
static_assert(i915::prop::poll_oa_period == DRM_I915_PERF_PROP_POLL_OA_PERIOD);
// Debian's libdrm 2.4.114 ends at POLL_OA_PERIOD (revision 5): ENGINE_CLASS and
// ENGINE_INSTANCE (revision 6) follow it, as the enum continues.
static_assert(DRM_I915_PERF_PROP_MAX == DRM_I915_PERF_PROP_POLL_OA_PERIOD + 1);
static_assert(i915::prop::oa_engine_class == DRM_I915_PERF_PROP_POLL_OA_PERIOD + 1);
static_assert(i915::prop::oa_engine_instance == DRM_I915_PERF_PROP_POLL_OA_PERIOD + 2);

static_assert(sizeof(i915::perf_oa_config) == sizeof(drm_i915_perf_oa_config));
static_assert(offsetof(i915::perf_oa_config, n_mux_regs) ==
              offsetof(drm_i915_perf_oa_config, n_mux_regs));
static_assert(offsetof(i915::perf_oa_config, n_flex_regs) ==
              offsetof(drm_i915_perf_oa_config, n_flex_regs));
static_assert(offsetof(i915::perf_oa_config, mux_regs_ptr) ==
              offsetof(drm_i915_perf_oa_config, mux_regs_ptr));
static_assert(offsetof(i915::perf_oa_config, flex_regs_ptr) ==
              offsetof(drm_i915_perf_oa_config, flex_regs_ptr));

static_assert(sizeof(i915::getparam) == sizeof(drm_i915_getparam_t));
static_assert(offsetof(i915::getparam, value_ptr) == offsetof(drm_i915_getparam_t, value));
static_assert(i915::param::chipset_id == I915_PARAM_CHIPSET_ID);
static_assert(i915::param::revision == I915_PARAM_REVISION);
static_assert(i915::param::cs_timestamp_frequency == I915_PARAM_CS_TIMESTAMP_FREQUENCY);
static_assert(i915::param::perf_revision == I915_PARAM_PERF_REVISION);
#ifdef I915_PARAM_OA_TIMESTAMP_FREQUENCY  // newer than Debian's libdrm 2.4.114
static_assert(i915::param::oa_timestamp_frequency == I915_PARAM_OA_TIMESTAMP_FREQUENCY);
#endif

static_assert(sizeof(i915::reg_read) == sizeof(drm_i915_reg_read));
static_assert(i915::reg_read_8b == I915_REG_READ_8B_WA);
static_assert(sizeof(i915::query_item) == sizeof(drm_i915_query_item));
static_assert(offsetof(i915::query_item, length) == offsetof(drm_i915_query_item, length));
static_assert(offsetof(i915::query_item, data_ptr) == offsetof(drm_i915_query_item, data_ptr));
static_assert(sizeof(i915::query) == sizeof(drm_i915_query));
static_assert(offsetof(i915::query, items_ptr) == offsetof(drm_i915_query, items_ptr));
static_assert(i915::query_topology_info == DRM_I915_QUERY_TOPOLOGY_INFO);
static_assert(i915::topology_header_bytes == sizeof(drm_i915_query_topology_info));
#endif

TEST(LiveUapi, I915CheckedAgainstLibdrm) {
#ifndef HWPC_HAVE_LIBDRM_I915
  GTEST_SKIP() << "<libdrm/i915_drm.h> not installed (Debian: libdrm-dev): the i915 layouts "
                  "are checked only by their own static_asserts";
#else
  // The checks are the static_asserts above; this records that they ran.
  SUCCEED();
#endif
}

}  // namespace
