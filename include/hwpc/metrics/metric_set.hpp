// Metric sets: many formulas compiled together, bound to one device, evaluated
// over raw counter deltas.
//
// The workflow, from a set definition to numbers:
//
//   // 1. A set: from the Intel XML (metrics/xml_loader.hpp) or built by hand.
//   const hwpc::metrics::metric_set& set = ...;
//
//   // 2. Compile once. Every equation, max_equation and availability formula
//   //    goes into one IR: references between metrics are resolved in
//   //    dependency order (cycles are errors naming the cycle), shared
//   //    subexpressions become one node, constants fold.
//   auto compiled = hwpc::metrics::compile(set);
//   if (!compiled) fail(compiled.error_value().describe());  // column + caret
//
//   // 3. Bind the device variables of the GPU the capture came from. Whatever
//   //    depended only on them folds to constants; availability is decided here.
//   hwpc::metrics::device_values dev{{"GpuTimestampFrequency", 12'000'000},
//                                    {"EuCoresTotalCount", 24}, {"SliceMask", 1}, ...};
//   auto bound = compiled->bind(dev);        // error names a variable with no value
//
//   // 4. Evaluate. The inputs are raw counter deltas of one interval, named as
//   //    the formulas read them:  A0..A35 ("A n READ", the A-counter delta n),
//   //    B0..B7, C0..C7, PERFCNT0.., GPU_TIME ("GPU_TIME 0 READ": the timestamp
//   //    delta, in timestamp ticks) and GPU_CLOCK ("GPU_CLOCK 0 READ": the
//   //    GPU_TICKS delta). bound->inputs() lists the ones this set reads, in the
//   //    order the evaluators take them; bound->input_index("A7") finds one.
//   //    Scalar, one interval:
//   std::vector<std::uint64_t> raw(bound->inputs().size());   // fill by input_index
//   std::vector<hwpc::expr::value> out(bound->size());
//   bound->evaluate(raw, out);              // out[i]: metric i's equation
//   //    Batch, N intervals as columns (SoA), bit-identical to scalar:
//   std::vector<const std::uint64_t*> in_cols(bound->inputs().size());  // each N long
//   std::vector<std::uint64_t*> out_cols(bound->size());                // each N long
//   auto ev = bound->batch();               // reusable; owns scratch columns
//   ev.evaluate(in_cols, N, out_cols);      // column i holds bound->type(i) slots
//
// Output columns hold 64-bit slots: u64 values as themselves, doubles as their
// bits (expr/value.hpp; expr::as_f64 converts). bound->type(i) says which.
//
// The parts live in their own headers; this one includes them all:
//   set_definition.hpp  metrics, register configs, sets, Intel device variables
//   bound_set.hpp       compiled_set, bound_set, bind(), available_with_dependencies()
//   compile.hpp         compile()
#pragma once

#include "hwpc/metrics/bound_set.hpp"
#include "hwpc/metrics/compile.hpp"
#include "hwpc/metrics/set_definition.hpp"
