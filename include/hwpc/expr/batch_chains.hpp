// Fused chains for the batch evaluator (batch.hpp): the shapes metric sets
// repeat on every sample, evaluated in one loop with the intermediate values
// in registers instead of one column per node. Three parts:
//   batch_chains_shape.hpp  what a chain is (struct chain, the shapes it covers)
//   batch_chains_find.hpp   finding the chains of a program (detail::find_chains)
//   batch_chains_run.hpp    evaluating a chain over rows (detail::run_chain,
//                           detail::run_sum_chain)
#pragma once

#include "hwpc/expr/batch_chains_find.hpp"
#include "hwpc/expr/batch_chains_run.hpp"
#include "hwpc/expr/batch_chains_shape.hpp"
