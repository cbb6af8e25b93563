// The batch evaluator: N samples laid out as columns (structure of arrays).
//
// Samples are processed in blocks of rows. Within a block each node is one
// tight loop over its columns (batch_loops.hpp) with the operator dispatched
// once per node, not per sample, so the compiler can vectorise it. Inputs are
// read in place from the caller's columns; node results live in a few
// scratch columns that are reused once a value is dead, and a node that is an
// output writes straight into the caller's column.
//
// Two shapes get their own loops, because metric sets are full of them and a
// generic column loop pays for what they do not need:
//   - a binary operator with one constant operand reads the constant from a
//     register, not from a column of copies;
//   - UDIV by a constant divides by multiplying with a precomputed reciprocal,
//     and UMUL by 2^k is a shift.
// Chains of single-use nodes are fused into one loop (batch_chains.hpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "hwpc/core/error.hpp"
#include "hwpc/expr/batch_chains.hpp"
#include "hwpc/expr/batch_loops.hpp"
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/semantics.hpp"
#include "hwpc/expr/udiv_constant.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

class batch_evaluator {
 public:
  // Rows per block. Each node sweeps one block of every column it reads and
  // writes, so a block's length is how far each of a metric set's dozens of
  // column streams runs before the next node switches to others. Measured
  // over 1M samples (docs/performance.md): TGL RenderBasic 57 ms at 2048 rows,
  // 50 ms at 8192, 45 ms at 16384; SKL and LNL likewise, HSW flat; beyond
  // 16384 three of the four got slower. The scratch columns of one block are
  // written and read back by later nodes, so they must stay in cache: the
  // block is the longest power of two from min_block to max_block whose
  // scratch columns fit scratch_budget bytes (HSW's 17 columns: 8192 rows).
  static constexpr std::size_t min_block = detail::tile;
  static constexpr std::size_t max_block = 16384;
  static constexpr std::size_t scratch_budget = std::size_t{2} << 20;

  // block_rows: rows per block, any positive number; 0 chooses it as above.
  explicit batch_evaluator(const program&& p, std::size_t block_rows = 0) = delete;
  explicit batch_evaluator(const program& p, std::size_t block_rows = 0) : p_(&p) {
    const std::size_t n = p.nodes.size();
    std::vector<std::uint32_t> uses(n, 0);
    std::vector<char> is_output(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const node& x = p.nodes[i];
      const std::uint8_t arity = info(x.code).arity;
      if (arity >= 1) ++uses[x.a];
      if (arity >= 2) ++uses[x.b];
      if (arity >= 3) ++uses[x.c];
    }
    for (std::uint32_t o : p.outputs) {
      ++uses[o];
      is_output[o] = 1;
    }
    chains_ = detail::find_chains(p, uses, is_output, folded_);
    // The operands each node reads from columns: a chain reads only the ends
    // of what it folded; folded nodes read nothing.
    auto operands_of = [&](std::size_t i, std::uint32_t(&ops)[max_operands]) -> std::uint8_t {
      const node& x = p.nodes[i];
      if (folded_[i]) return 0;
      if (const auto& c = chains_[i]) return static_cast<std::uint8_t>(c->operands(ops));
      ops[0] = x.a;
      ops[1] = x.b;
      ops[2] = x.c;
      return info(x.code).arity;
    };
    // Last node that reads each node; outputs stay live to the end.
    std::vector<std::size_t> last_use(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t ops[max_operands] = {};
      const std::uint8_t k = operands_of(i, ops);
      for (std::uint8_t m = 0; m < k; ++m) last_use[ops[m]] = i;
    }
    for (std::uint32_t o : p.outputs) last_use[o] = n;
    // A computed node that is an output is written straight into the caller's
    // column (the first output it serves), saving a copy per output per block.
    direct_output_.assign(n, no_column);
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      const std::uint32_t i = p.outputs[o];
      const op code = p.nodes[i].code;
      if (code != op::input && code != op::constant && direct_output_[i] == no_column) {
        direct_output_[i] = static_cast<std::uint32_t>(o);
      }
    }
    // When each output that is not written in place is copied: right after
    // the node computing it, for an input after its first reader (whose
    // loop has just brought the rows into cache), else at the end of the block.
    std::vector<std::size_t> first_use(n, n);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t ops[max_operands] = {};
      const std::uint8_t k = operands_of(i, ops);
      for (std::uint8_t m = 0; m < k; ++m) first_use[ops[m]] = std::min(first_use[ops[m]], i);
    }
    copy_after_.assign(n + 1, {});
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      const std::uint32_t i = p.outputs[o];
      if (direct_output_[i] == o) continue;
      copy_after_[p.nodes[i].code == op::input ? first_use[i] : i].push_back(
          static_cast<std::uint32_t>(o));
    }
    // Computed nodes share columns once their values are dead; outputs
    // written straight to the caller need none, folded nodes have no values.
    column_of_.assign(n, no_column);
    std::vector<std::uint32_t> free_columns;
    std::uint32_t columns = 0;
    auto take = [&] {
      if (!free_columns.empty()) {
        const std::uint32_t c = free_columns.back();
        free_columns.pop_back();
        return c;
      }
      return columns++;
    };
    // Constant columns first and never from the free list: they are filled
    // once here, so no computed node may have used them earlier in the order.
    for (std::size_t i = 0; i < n; ++i) {
      if (p.nodes[i].code == op::constant) column_of_[i] = columns++;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const node& x = p.nodes[i];
      if (x.code == op::input || x.code == op::constant || folded_[i]) continue;
      if (direct_output_[i] == no_column) column_of_[i] = take();
      std::uint32_t operands[max_operands] = {};
      const std::uint8_t arity = operands_of(i, operands);
      for (std::uint8_t k = 0; k < arity; ++k) {
        const std::uint32_t a = operands[k];
        bool seen = false;  // the same operand twice frees once
        for (std::uint8_t m = 0; m < k; ++m) seen = seen || operands[m] == a;
        if (!seen && last_use[a] == i && column_of_[a] != no_column &&
            p.nodes[a].code != op::input && p.nodes[a].code != op::constant) {
          free_columns.push_back(column_of_[a]);
        }
      }
    }
    columns_ = columns;
    block_ = block_rows != 0 ? block_rows : block_for(columns);
    ptr_.assign(n, nullptr);
    // The loop shape of each computed node (see the top of this file).
    shape_.assign(n, shape::columns);
    divisor_.assign(n, udiv_by_constant(1));
    for (std::size_t i = 0; i < n; ++i) {
      const node& x = p.nodes[i];
      if (x.code == op::input || x.code == op::constant || info(x.code).arity != 2) continue;
      const bool ka = p.nodes[x.a].code == op::constant, kb = p.nodes[x.b].code == op::constant;
      if (x.code == op::udiv && kb) {
        const slot d = p.nodes[x.b].imm;
        shape_[i] = d == 0 ? shape::zero : shape::divide_by_constant;
        if (d != 0) divisor_[i] = udiv_by_constant(d);
      } else if (x.code == op::umul && ka != kb &&
                 std::has_single_bit(p.nodes[ka ? x.a : x.b].imm)) {
        // Times 2^k is a shift, which SSE2 has for 64-bit lanes and a multiply
        // not: RenderBasic scales most counters by 4 or 64 (bytes per line).
        shape_[i] = shape::shift_left;
        divisor_[i] = udiv_by_constant(p.nodes[ka ? x.a : x.b].imm);  // its shift()
      } else if (kb && !ka) {
        shape_[i] = shape::constant_right;
      } else if (ka && !kb) {
        shape_[i] = shape::constant_left;
      }
    }
  }

  std::size_t block() const noexcept { return block_; }
  std::size_t scratch_columns() const noexcept { return columns_; }
  // Chains whose source is a sum of converted values (a whole FADD tree).
  std::size_t sum_chains() const noexcept {
    std::size_t k = 0;
    for (const auto& c : chains_) k += c && c->sum_terms != 0;
    return k;
  }
  // Nodes evaluated inside a fused chain instead of by a loop of their own.
  std::size_t fused_nodes() const noexcept {
    std::size_t k = 0;
    for (const char f : folded_) k += f != 0;
    return k;
  }

  // inputs[i]: column of input i (rows values); outputs[o]: column for output o
  // (rows values, typed as the program's output_type(o)). Output columns are
  // written while inputs are still being read, so they must not overlap any
  // input column.
  result<void> evaluate(std::span<const slot* const> inputs, std::size_t rows,
                        std::span<slot* const> outputs) {
    const program& p = *p_;
    if (inputs.size() < p.inputs.size() || outputs.size() < p.outputs.size()) {
      return error{errc::inconsistent, 0, "too few input or output columns for this program",
                   error_anchor::none};
    }
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      if (inputs[i] == nullptr && rows > 0) {
        return error{errc::inconsistent, 0, "input column '" + p.inputs[i].name + "' is missing",
                     error_anchor::none};
      }
    }
    // The scratch columns hold as many rows as the longest block evaluated
    // so far: a caller giving a few rows at a time pays for those only.
    if (const std::size_t need = std::min(block_, rows); need > stride_) grow_scratch(need);
    for (std::size_t start = 0; start < rows; start += block_) {
      const std::size_t len = std::min(block_, rows - start);
      // One node's loop over the block.
      auto run = [&](std::size_t i) {
        const node& x = p.nodes[i];
        if (folded_[i]) return;
        if (x.code == op::input) {
          ptr_[i] = inputs[x.imm] + start;
          return;
        }
        slot* out = direct_output_[i] != no_column ? outputs[direct_output_[i]] + start
                                                   : scratch_.data() + column_of_[i] * stride_;
        ptr_[i] = out;
        if (x.code == op::constant) return;
        if (const auto& c = chains_[i]) {
          if (c->sum_terms != 0) {
            const slot* terms[chain::max_terms] = {};
            for (std::uint8_t k = 0; k < c->sum_terms; ++k) terms[k] = ptr_[c->leaves[k]];
            detail::run_sum_chain(out, terms, ptr_[c->y], *c, len);
          } else {
            detail::run_chain(out, ptr_[c->x], ptr_[c->y], *c, len);
          }
          return;
        }
        // Operands past the arity stand in as `a`, never read, so that no
        // tile offsets a pointer that was never set.
        const std::uint8_t arity = info(x.code).arity;
        const slot* a = ptr_[x.a];
        const slot* b = arity >= 2 ? ptr_[x.b] : a;
        const slot* c = arity >= 3 ? ptr_[x.c] : a;
        switch (shape_[i]) {
          case shape::zero:
            std::fill_n(out, len, slot{0});
            return;
          case shape::divide_by_constant:
            detail::divide_loop(out, a, divisor_[i], len);
            return;
          case shape::shift_left: {
            const slot* v = p.nodes[x.a].code == op::constant ? b : a;
            const unsigned sh = divisor_[i].shift();
            detail::for_tiles(
                len, [&](std::size_t at, auto n) { detail::shift_loop(out + at, v + at, sh, n); });
            return;
          }
          case shape::constant_right:
          case shape::constant_left:
            visit_op(x.code, [&](auto k) {
              constexpr op O = decltype(k)::value;
              if constexpr (info(O).arity == 2) {
                if (shape_[i] == shape::constant_left) {
                  const slot ka = p.nodes[x.a].imm;
                  detail::for_tiles(len, [&](std::size_t at, auto n) {
                    detail::constant_loop<O, true>(out + at, b + at, ka, n);
                  });
                } else {
                  const slot kb = p.nodes[x.b].imm;
                  detail::for_tiles(len, [&](std::size_t at, auto n) {
                    detail::constant_loop<O, false>(out + at, a + at, kb, n);
                  });
                }
              }
              return 0;
            });
            return;
          case shape::columns:
            break;
        }
        visit_op(x.code, [&](auto k) {
          detail::for_tiles(len, [&](std::size_t at, auto n) {
            detail::column_loop<decltype(k)::value>(out + at, a + at, b + at, c + at, n);
          });
          return 0;
        });
      };
      // Outputs that are copies (of an input, a constant or another output)
      // are copied while the value is still in L1: after the node that
      // computes it, or for an input after the first node that reads it.
      for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        run(i);
        for (const std::uint32_t o : copy_after_[i]) {
          std::copy_n(ptr_[p.outputs[o]], len, outputs[o] + start);
        }
      }
      for (const std::uint32_t o : copy_after_[p.nodes.size()]) {
        std::copy_n(ptr_[p.outputs[o]], len, outputs[o] + start);
      }
    }
    return {};
  }

 private:
  // Scratch columns of `rows` rows each, the constants' columns filled.
  void grow_scratch(std::size_t rows) {
    const program& p = *p_;
    stride_ = rows;
    scratch_.assign(columns_ * stride_, 0);
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      if (p.nodes[i].code == op::constant) {
        std::fill_n(scratch_.data() + column_of_[i] * stride_, stride_, p.nodes[i].imm);
      }
    }
  }

  // The longest power-of-two block in [min_block, max_block] whose scratch
  // columns fit the budget (min_block when even that does not fit).
  static std::size_t block_for(std::size_t columns) noexcept {
    std::size_t rows = max_block;
    while (rows > min_block && columns * rows * sizeof(slot) > scratch_budget) rows /= 2;
    return rows;
  }

  enum class shape : std::uint8_t {
    columns,             // every operand from a column
    constant_right,      // binary, b a constant
    constant_left,       // binary, a a constant
    divide_by_constant,  // UDIV by a non-zero constant
    shift_left,          // UMUL by a constant power of two
    zero,                // UDIV by zero
  };

  static constexpr std::uint32_t no_column = ~std::uint32_t{0};
  // Columns one node reads at most: a chain over a sum reads every term.
  static constexpr std::size_t max_operands = chain::max_terms + 1;
  const program* p_;
  std::size_t block_ = min_block;  // rows per block
  std::size_t columns_ = 0;        // scratch columns
  std::size_t stride_ = 0;         // rows each scratch column holds now
  std::vector<std::uint32_t> column_of_;
  std::vector<slot> scratch_;
  std::vector<const slot*> ptr_;
  std::vector<std::uint32_t> direct_output_;  // per node: output column it writes, or no_column
  std::vector<shape> shape_;                  // per node: its loop
  std::vector<udiv_by_constant> divisor_;     // per node: for divide_by_constant
  std::vector<std::optional<chain>> chains_;  // per node: the chain it ends, if any
  std::vector<char> folded_;                  // per node: folded into a later chain
  std::vector<std::vector<std::uint32_t>> copy_after_;  // per node (and the end): outputs copied
};

}  // namespace hwpc::expr
