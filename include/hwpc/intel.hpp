// Intel OA: report formats, RPT_ID, report views, decoding and accumulation,
// and the capture readers (OA ring, i915 perf stream, recordings).
#pragma once

#include "hwpc/intel/accumulate.hpp"
#include "hwpc/intel/capture.hpp"
#include "hwpc/intel/context.hpp"
#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/format_keys.hpp"
#include "hwpc/intel/format_limits.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/formats_xe.hpp"
#include "hwpc/intel/i915_stream.hpp"
#include "hwpc/intel/input_kind.hpp"
#include "hwpc/intel/oa_ring.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/recording.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/intel/rows.hpp"
#include "hwpc/intel/rpt_id.hpp"
#include "hwpc/intel/sampling.hpp"
#include "hwpc/intel/xe_recording.hpp"
#include "hwpc/intel/xe_stream.hpp"
