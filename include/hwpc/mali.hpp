// Arm Mali: every GPU of Arm's counter database (generated tables, found by
// name or GPU_ID), samples from both kernel readers (vinstr, kinstr_prfcnt),
// and the Mali-G72 counter guide's derived expressions. See docs/mali.md.
#pragma once

#include "hwpc/mali/block.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/capture_input.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/evaluator.hpp"
#include "hwpc/mali/g72_counters.hpp"
#include "hwpc/mali/g72_metrics.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"
#include "hwpc/mali/plausibility.hpp"
#include "hwpc/mali/sample.hpp"
#include "hwpc/mali/streamline_names.hpp"
#include "hwpc/mali/table.hpp"
#include "hwpc/mali/vinstr.hpp"
