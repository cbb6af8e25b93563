// hwpc formulas: Intel RPN and Arm infix front ends, one IR with folding and
// sharing, compile-time, scalar and batch evaluators. See docs/expressions.md.
#pragma once

#include "hwpc/expr/arithmetic.hpp"
#include "hwpc/expr/batch.hpp"
#include "hwpc/expr/builder.hpp"
#include "hwpc/expr/compile.hpp"
#include "hwpc/expr/consteval.hpp"
#include "hwpc/expr/diagnostic.hpp"
#include "hwpc/expr/eval.hpp"
#include "hwpc/expr/fold.hpp"
#include "hwpc/expr/infix.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/lexer.hpp"
#include "hwpc/expr/passes.hpp"
#include "hwpc/expr/rpn.hpp"
#include "hwpc/expr/semantics.hpp"
#include "hwpc/expr/symbols.hpp"
#include "hwpc/expr/value.hpp"
#include "hwpc/metrics/metric_set.hpp"
