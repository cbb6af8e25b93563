// The batch evaluator: N samples laid out as columns (structure of arrays).
//
// Samples are processed in blocks of `block` rows. Within a block each node is
// one tight loop `out[j] = apply<O>(a[j], b[j], c[j])` with the operator
// dispatched once per node, not per sample, so the compiler can vectorise it;
// apply<O> is the same function the scalar evaluator calls, so results agree
// bit for bit. Inputs are read in place from the caller's columns; node
// results live in a few scratch columns that are reused once a value is dead.
//
// Two shapes get their own loops, because metric sets are full of them and a
// generic column loop pays for what they do not need:
//   - a binary operator with one constant operand reads the constant from a
//     register, not from a column of copies;
//   - UDIV by a constant divides by multiplying with a precomputed reciprocal
//     (udiv_by_constant, exact for every dividend), since a 64-bit hardware
//     division costs tens of cycles and metric sets divide by $EuCoresTotalCount
//     and the timestamp frequency on every sample.
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
#include "hwpc/expr/ir.hpp"
#include "hwpc/expr/semantics.hpp"
#include "hwpc/expr/udiv_constant.hpp"
#include "hwpc/expr/value.hpp"

namespace hwpc::expr {

class batch_evaluator {
 public:
  // Long enough for the hardware prefetcher to follow each node's column
  // streams (measured: 256 rows 98 ms, 2048 rows 80 ms for SKL RenderBasic over
  // 1M samples), short enough that the scratch columns stay in L2.
  static constexpr std::size_t block = 2048;

  explicit batch_evaluator(const program&& p) = delete;  // keeps a pointer to the program
  explicit batch_evaluator(const program& p) : p_(&p) {
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
    scratch_.assign(static_cast<std::size_t>(columns) * block, 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (p.nodes[i].code == op::constant) {
        std::fill_n(scratch_.data() + column_of_[i] * block, block, p.nodes[i].imm);
      }
    }
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

  std::size_t scratch_columns() const noexcept { return scratch_.size() / block; }
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
    for (std::size_t start = 0; start < rows; start += block) {
      const std::size_t len = std::min(block, rows - start);
      // One node's loop over the block.
      auto run = [&](std::size_t i) {
        const node& x = p.nodes[i];
        if (folded_[i]) return;
        if (x.code == op::input) {
          ptr_[i] = inputs[x.imm] + start;
          return;
        }
        slot* out = direct_output_[i] != no_column ? outputs[direct_output_[i]] + start
                                                   : scratch_.data() + column_of_[i] * block;
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
        const slot* a = ptr_[x.a];
        const slot* b = ptr_[x.b];
        const slot* c = ptr_[x.c];
        switch (shape_[i]) {
          case shape::zero:
            std::fill_n(out, len, slot{0});
            return;
          case shape::divide_by_constant:
            divide_loop(out, a, divisor_[i], len);
            return;
          case shape::shift_left: {
            const slot* v = p.nodes[x.a].code == op::constant ? b : a;
            const unsigned sh = divisor_[i].shift();
            if (len == block) {
              shift_loop(out, v, sh, block);
            } else {
              shift_loop(out, v, sh, len);
            }
            return;
          }
          case shape::constant_right:
            visit_op(x.code, [&](auto k) {
              constexpr op O = decltype(k)::value;
              if constexpr (info(O).arity == 2) {
                const slot kb = p.nodes[x.b].imm;
                if (len == block) {
                  constant_loop<O, false>(out, a, kb, block);
                } else {
                  constant_loop<O, false>(out, a, kb, len);
                }
              }
              return 0;
            });
            return;
          case shape::constant_left:
            visit_op(x.code, [&](auto k) {
              constexpr op O = decltype(k)::value;
              if constexpr (info(O).arity == 2) {
                const slot ka = p.nodes[x.a].imm;
                if (len == block) {
                  constant_loop<O, true>(out, b, ka, block);
                } else {
                  constant_loop<O, true>(out, b, ka, len);
                }
              }
              return 0;
            });
            return;
          case shape::columns:
            break;
        }
        visit_op(x.code, [&](auto k) {
          if (len == block) {
            column_loop<decltype(k)::value>(out, a, b, c, block);  // a constant trip count
          } else {
            column_loop<decltype(k)::value>(out, a, b, c, len);
          }
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
  // The output column never overlaps an operand column (the allocator above
  // gives each live node its own), which __restrict tells the vectoriser so
  // that it needs no run-time overlap checks. Full blocks pass the constant
  // `block` as len so that, once inlined, the trip count is known: GCC's -O2
  // cost model vectorises only such loops.
  template <op O>
  static inline __attribute__((always_inline)) void column_loop(slot* __restrict out,
                                                                const slot* __restrict a,
                                                                const slot* __restrict b,
                                                                const slot* __restrict c,
                                                                std::size_t len) {
    for (std::size_t j = 0; j < len; ++j) out[j] = apply<O>(a[j], b[j], c[j]);
  }

  // A binary operator with one operand a constant held in a register; left
  // says which side the constant is on.
  template <op O, bool left>
  static inline __attribute__((always_inline)) void constant_loop(slot* __restrict out,
                                                                  const slot* __restrict a, slot k,
                                                                  std::size_t len) {
    if constexpr (left) {
      for (std::size_t j = 0; j < len; ++j) out[j] = apply<O>(k, a[j], 0);
    } else {
      for (std::size_t j = 0; j < len; ++j) out[j] = apply<O>(a[j], k, 0);
    }
  }

  // Without __restrict GCC kept this loop scalar (a 64-bit `shl` per row:
  // a fifth of TGL RenderBasic's batch time); with it, one SSE2 `psllq`
  // shifts two rows.
  static inline __attribute__((always_inline)) void shift_loop(slot* __restrict out,
                                                               const slot* __restrict a,
                                                               unsigned sh, std::size_t len) {
    for (std::size_t j = 0; j < len; ++j) out[j] = a[j] << sh;
  }

  static void divide_loop(slot* __restrict out, const slot* __restrict a, udiv_by_constant d,
                          std::size_t len) {
    switch (d.how()) {
      case udiv_by_constant::kind::copy:
        std::copy_n(a, len, out);
        return;
      case udiv_by_constant::kind::shift: {
        const unsigned s = d.shift();
        for (std::size_t j = 0; j < len; ++j) out[j] = a[j] >> s;
        return;
      }
      case udiv_by_constant::kind::multiply:
        break;
    }
    const std::uint64_t m = d.magic();
    const unsigned s = d.shift();
    for (std::size_t j = 0; j < len; ++j) out[j] = udiv_by_constant::divide(a[j], m, s);
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
