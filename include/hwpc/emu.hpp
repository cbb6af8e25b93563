// The reference OA unit emulator (namespace hwpc::emu): packs reports with
// its own layout tables, independent of hwpc/intel/formats.hpp.
#pragma once

#include "hwpc/emu/counter_model.hpp"
#include "hwpc/emu/default_capture.hpp"
#include "hwpc/emu/layouts.hpp"
#include "hwpc/emu/oa_unit.hpp"
#include "hwpc/emu/outputs.hpp"
#include "hwpc/emu/random.hpp"
#include "hwpc/emu/registers.hpp"
#include "hwpc/emu/roles.hpp"
#include "hwpc/emu/sku.hpp"
#include "hwpc/emu/truth.hpp"
#include "hwpc/emu/workload.hpp"
