// A 64-token chunk's scores times the decay between their tokens, from a wgmma accumulator into the A
// fragments of the next product in two bf16 parts: simple_gla's fused passes (chunk_fused_forward.cu) feed
// them to P v from registers, its gradients kernel (chunk_grads_wgmma.cu) stores them as the tiles another
// warpgroup's products read.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/warp_mma.cuh"
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
// 16-token sub-chunk kWarp, and depth step s covers the columns' sub-chunk s, so a step takes one of
// ScalarDecays::factor's forms for the whole warp, with its row terms loaded once: across sub-chunks
// e^{local_i} e^{between} e^{after j} (forward; reverse e^{after i} e^{between} e^{local j}), within kWarp
// the exponential of the difference of local sums, on the masked side zeros (no split). kDiagonalApart: the
// diagonal's terms are left out of the fragments and summed into `diagonal` (the thread's two rows; the
// quad's thread that holds it, zero elsewhere). One instance a warp (decayed_scores below): the step's form
// known at compile time, where a run-time warp index made each step three branches with their reconvergence
// (a quarter of this code's instructions, version 101).
template <int kWarp, int kSteps, bool kReverse, bool kDiagonalApart>
__device__ void decayed_scores_of_warp(const float (&P)[8 * kSteps], const ScalarDecays& dec, int thread,
                                       std::uint32_t (&high)[kSteps][4], std::uint32_t (&low)[kSteps][4],
                                       float (&diagonal)[2]) {
  const int top = wgmma::accumulator_element(thread, 0).row;
  const float local[2] = {dec.local[top], dec.local[top + 8]};
  const float* row_terms = kReverse ? dec.e_after : dec.e_local;
  const float* column_terms = kReverse ? dec.e_local : dec.e_after;
  const float row_term[2] = {row_terms[top], row_terms[top + 8]};
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    if (kReverse ? step < kWarp : step > kWarp) {  // (unrolled, every step's form is folded at compile time)
#pragma unroll
      for (int i = 0; i < 4; ++i) high[step][i] = 0u, low[step][i] = 0u;
      continue;
    }
    const int later = kReverse ? step : kWarp, earlier = kReverse ? kWarp : step;
    const float between = step != kWarp ? dec.e_between[later * ScalarDecays::kSubs + earlier] : 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = 8 * step + 2 * i, half = i & 1;  // registers r, r + 1: row top + 8 half
      const int j = wgmma::accumulator_element(thread, r).column, row = top + 8 * half;
      float x0, x1;
      if (step != kWarp) {
        const float row_factor = row_term[half] * between;
        x0 = P[r] * (row_factor * column_terms[j]);
        x1 = P[r + 1] * (row_factor * column_terms[j + 1]);
      } else {
        x0 = same_sub_chunk_score<kReverse>(P[r], local[half], dec.local[j], row, j);
        x1 = same_sub_chunk_score<kReverse>(P[r + 1], local[half], dec.local[j + 1], row, j + 1);
        if constexpr (kDiagonalApart) {
          if (j == row) diagonal[half] = P[r], x0 = 0.0f;
          if (j + 1 == row) diagonal[half] = P[r + 1], x1 = 0.0f;
        }
      }
      const Parts<__nv_bfloat16> parts = split<__nv_bfloat16>(x0, x1);
      high[step][i] = parts.high, low[step][i] = parts.low;
    }
  }
}

// The calling warp's instance (its index, thread / 32, is its rows' 16-token sub-chunk).
template <int kSteps, bool kReverse, bool kDiagonalApart>
__device__ void decayed_scores(const float (&P)[8 * kSteps], const ScalarDecays& dec, int thread,
                               std::uint32_t (&high)[kSteps][4], std::uint32_t (&low)[kSteps][4],
                               float (&diagonal)[2]) {
  static_assert(kSteps == 4, "a warp a 16-token sub-chunk of a 64-token chunk");
  switch (thread / 32) {
    case 0:
      decayed_scores_of_warp<0, kSteps, kReverse, kDiagonalApart>(P, dec, thread, high, low, diagonal);
      break;
    case 1:
      decayed_scores_of_warp<1, kSteps, kReverse, kDiagonalApart>(P, dec, thread, high, low, diagonal);
      break;
    case 2:
      decayed_scores_of_warp<2, kSteps, kReverse, kDiagonalApart>(P, dec, thread, high, low, diagonal);
      break;
    default:
      decayed_scores_of_warp<3, kSteps, kReverse, kDiagonalApart>(P, dec, thread, high, low, diagonal);
      break;
  }
}

}  // namespace flabench::chunk
