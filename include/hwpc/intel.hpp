// Intel OA: report formats, RPT_ID, report views, decoding and accumulation.
#pragma once

#include "hwpc/intel/accumulate.hpp"
#include "hwpc/intel/counters.hpp"
#include "hwpc/intel/decode.hpp"
#include "hwpc/intel/formats.hpp"
#include "hwpc/intel/platform.hpp"
#include "hwpc/intel/report.hpp"
#include "hwpc/intel/rpt_id.hpp"
