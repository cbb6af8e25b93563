// Qualcomm Adreno A5xx/A6xx/A7xx: generations and names, PM4 packets, command-stream walking, query
// slots and results, and a recogniser for the query packet sequences. docs/adreno.md.
#pragma once

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/emulate.hpp"
#include "hwpc/adreno/emulate6.hpp"
#include "hwpc/adreno/explain.hpp"
#include "hwpc/adreno/fields.hpp"
#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/generation_names.hpp"
#include "hwpc/adreno/gzip.hpp"
#include "hwpc/adreno/hex_text.hpp"
#include "hwpc/adreno/interp.hpp"
#include "hwpc/adreno/names.hpp"
#include "hwpc/adreno/perfcounters.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/rd.hpp"
#include "hwpc/adreno/rd_capture.hpp"
#include "hwpc/adreno/recognise.hpp"
#include "hwpc/adreno/recognise6.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/adreno/walk.hpp"
