// A 64-token chunk's scores times the decay between their tokens, from a wgmma accumulator into the A
// fragments of the next product in two bf16 parts: simple_gla's fused passes (chunk_fused_forward.cu) feed
// them to P v from registers, its gradients kernel (chunk_grads_wgmma.cu) stores them as the tiles another
// warpgroup's products read.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/wgmma/layout.h"
#include "kernels/simple_gla/chunk_forward.cuh"

namespace flabench::chunk {

// The score p of row `row` and column `column` of one 16-token sub-chunk (their local decay sums given) times
// the decay between them, or zero on the masked side.
template <bool kReverse>
__device__ inline float same_sub_chunk_score(float p, float row_local, float column_local, int row,
                                             int column) {
  if constexpr (kReverse)
    return column >= row ? p * exp_flushed(fminf(column_local - row_local, 0.0f)) : 0.0f;
  return column <= row ? p * exp_flushed(fminf(row_local - column_local, 0.0f)) : 0.0f;
}

// P times the decay between its tokens, as the A fragments of P v in two parts (register r of P is element
// r % 8 of depth step r / 8's fragment: layout.h). The forward keeps P's lower triangle (j <= i), the reverse
// its upper one (j >= i: the rows' tokens see the columns' later ones). A thread's rows lie in its warp's
// 16-token sub-chunk `warp`, and depth step s covers the columns' sub-chunk s, so a step takes one of
// ScalarDecays::factor's forms for the whole warp, with its row terms loaded once: across sub-chunks
// e^{local_i} e^{between} e^{after j} (forward; reverse e^{after i} e^{between} e^{local j}), within the
// warp's the exponential of the difference of local sums, on the masked side zeros (no split). Where
// `diagonal_apart`, the diagonal's terms are left out of the fragments and summed into `diagonal` (the
// thread's two rows; the quad's thread that holds it, zero elsewhere).
// Warp and DiagonalApart: std::integral_constant (decayed_scores below: one instance a warp, each step's form
// folded at compile time, where a run-time warp index made each step three branches with their
// reconvergence, a quarter of this code's instructions: version 101) or int and bool (one instance for every
// warp, its steps' forms branches the whole warp takes: simple_gla's gradients kernel, version 127).
template <int kSteps, bool kReverse, class Warp, class DiagonalApart>
__device__ void decayed_scores_of_warp(Warp warp, DiagonalApart diagonal_apart, const float (&P)[8 * kSteps],
                                       const ScalarDecays& dec, int thread, std::uint32_t (&high)[kSteps][4],
                                       std::uint32_t (&low)[kSteps][4], float (&diagonal)[2]) {
  const int w = value_of(warp);
  const bool apart = value_of(diagonal_apart);
  const int top = wgmma::accumulator_element(thread, 0).row;
  const float local[2] = {dec.local[top], dec.local[top + 8]};
  const float* row_terms = kReverse ? dec.e_after : dec.e_local;
  const float* column_terms = kReverse ? dec.e_local : dec.e_after;
  const float row_term[2] = {row_terms[top], row_terms[top + 8]};
  // register pair i of a step: registers r, r + 1 at row top + 8 (i % 2), columns j, j + 1
  const auto pair_at = [&](int step, int i) {
    const int r = 8 * step + 2 * i;
    return wgmma::Element{top + 8 * (i & 1), wgmma::accumulator_element(thread, r).column};
  };
  const auto store = [&](int step, int i, float x0, float x1) {
    const Parts<__nv_bfloat16> parts = split<__nv_bfloat16>(x0, x1);
    high[step][i] = parts.high, low[step][i] = parts.low;
  };
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    if (kReverse ? step < w : step > w) {  // the masked side
#pragma unroll
      for (int i = 0; i < 4; ++i) high[step][i] = 0u, low[step][i] = 0u;
    } else if (step != w) {  // across sub-chunks
      const int later = kReverse ? step : w, earlier = kReverse ? w : step;
      const float between = dec.e_between[later * ScalarDecays::kSubs + earlier];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int r = 8 * step + 2 * i, j = pair_at(step, i).column;
        const float row_factor = row_term[i & 1] * between;
        store(step, i, P[r] * (row_factor * column_terms[j]), P[r + 1] * (row_factor * column_terms[j + 1]));
      }
    } else {  // within the warp's sub-chunk
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int r = 8 * step + 2 * i, half = i & 1;
        const wgmma::Element at = pair_at(step, i);
        const int j = at.column, row = at.row;
        float x0 = same_sub_chunk_score<kReverse>(P[r], local[half], dec.local[j], row, j);
        float x1 = same_sub_chunk_score<kReverse>(P[r + 1], local[half], dec.local[j + 1], row, j + 1);
        if (apart) {
          if (j == row) diagonal[half] = P[r], x0 = 0.0f;
          if (j + 1 == row) diagonal[half] = P[r + 1], x1 = 0.0f;
        }
        store(step, i, x0, x1);
      }
    }
  }
}

// The calling warp's instance (its index, thread / 32, is its rows' 16-token sub-chunk).
template <int kSteps, bool kReverse, bool kDiagonalApart>
__device__ void decayed_scores(const float (&P)[8 * kSteps], const ScalarDecays& dec, int thread,
                               std::uint32_t (&high)[kSteps][4], std::uint32_t (&low)[kSteps][4],
                               float (&diagonal)[2]) {
  static_assert(kSteps == 4, "a warp a 16-token sub-chunk of a 64-token chunk");
  const auto of_warp = [&](auto warp) {
    decayed_scores_of_warp<kSteps, kReverse>(warp, std::bool_constant<kDiagonalApart>{}, P, dec, thread, high,
                                             low, diagonal);
  };
  switch (thread / 32) {
    case 0:
      of_warp(std::integral_constant<int, 0>{});
      break;
    case 1:
      of_warp(std::integral_constant<int, 1>{});
      break;
    case 2:
      of_warp(std::integral_constant<int, 2>{});
      break;
    default:
      of_warp(std::integral_constant<int, 3>{});
      break;
  }
}

}  // namespace flabench::chunk
