// Qualcomm Adreno A5xx: PM4 packets, command-stream walking, query slots and
// results, and a recogniser for the query packet sequences. docs/adreno.md.
#pragma once

#include "hwpc/adreno/cmdstream.hpp"
#include "hwpc/adreno/interp.hpp"
#include "hwpc/adreno/pm4.hpp"
#include "hwpc/adreno/queries.hpp"
#include "hwpc/adreno/recognise.hpp"
