// The output pass's two products, o = (q e^{seen from the chunk's start}) S0 + A v, into a warp's
// accumulators (its 16-row strip from m0, `tiles` 8-column tiles from n0): the forward's output kernel
// (forward.cuh) and gsa's pass 1, whose value gradients build the same A and so make its forward output
// (gsa's dq) in the same block (chunk_grads.cuh, chunk_value_grads_kernel's kOutput).
#pragma once

#include <type_traits>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/divisor.cuh"
#include "kernels/common/fast_exp.cuh"

namespace flabench::chunk {

// acc += (q e^{seen from the start}) S0 over the KT channels staged: q (fp32 [C][ldK]) holds q e^{seen}
// (intra_chunk_scores) on entry and is multiplied by e^{prefix} in place; S0 is the state before the chunk,
// its KT rows of the value tile, as StatePart<T> (two bf16 planes `KT ldS` apart for 16-bit inputs, else
// fp32), rows ldS apart. The factor e^{prefix} is one per sub-chunk and channel: a thread takes
// kRowsPerFactor rows of one sub-chunk. `channels` divides by KT.
template <class T, int kMaxTiles>
__device__ void add_output_state_product(float (&acc)[kMaxTiles][4], int tiles, int m0, int n0,
                                         const Decays& dec, float* q, int ldK, int KT, int C,
                                         const Divisor& channels, const float* S0, int ldS) {
  constexpr int kRowsPerFactor = 4;
  for (int idx = threadIdx.x; idx < C / kRowsPerFactor * KT; idx += int(blockDim.x)) {
    const int t0 = channels.div(idx) * kRowsPerFactor, c = channels.mod(idx);
    const float factor = exp_flushed(dec.prefix[(t0 / kSubChunk) * KT + c]);
#pragma unroll
    for (int r = 0; r < kRowsPerFactor; ++r) q[(t0 + r) * ldK + c] *= factor;
  }
  __syncthreads();
  using Planes = StatePart<T>;
  const auto queries = [&](int i, int c) { return q[i * ldK + c]; };
  const auto* S0_planes = reinterpret_cast<const Planes*>(S0);
  for (int k0 = 0; k0 < KT; k0 += 16) {
    if constexpr (sizeof(T) == 2) {  // S0's high plane, then its low plane
      // q e^{seen} in bf16 parts: the high part alone for bf16 inputs, both (16 bits) for fp16 inputs, whose
      // 11 bits the high part alone would round
      std::uint32_t af[2][4];
      a_fragment<Planes>(m0, k0, queries, af[0], af[1]);
      const std::uint32_t high[1][4] = {{af[0][0], af[0][1], af[0][2], af[0][3]}};
      if constexpr (std::is_same_v<T, __half>)
        mma_b_stored_kn<Planes>(acc, tiles, af, S0_planes, ldS, k0, n0);
      else
        mma_b_stored_kn<Planes>(acc, tiles, high, S0_planes, ldS, k0, n0);
      mma_b_stored_kn<Planes>(acc, tiles, high, S0_planes + KT * ldS, ldS, k0, n0);
    } else {
      mma_k16<T, kMaxTiles>(acc, tiles, m0, n0, k0, queries, [&](int c, int j) { return S0[c * ldS + j]; });
    }
  }
}

// acc += A v: A the chunk's scores (fp32 [C][ldC], in two parts as its fragments are built), v as the inputs
// are for 16-bit inputs (B fragments by ldmatrix), else fp32, [C][ldS].
template <class T, int kMaxTiles, class Staged>
__device__ void add_output_scores_product(float (&acc)[kMaxTiles][4], int tiles, int m0, int n0,
                                          const float* A, int ldC, int C, const Staged* v, int ldS) {
  const auto scores = [&](int i, int s) { return A[i * ldC + s]; };
  for (int k0 = 0; k0 < C; k0 += 16) {
    if constexpr (sizeof(T) == 2) {
      std::uint32_t af[2][4];
      a_fragment<T>(m0, k0, scores, af[0], af[1]);
      mma_b_stored_kn<T>(acc, tiles, af, v, ldS, k0, n0);
    } else {
      mma_k16<T, kMaxTiles, Exact::a>(acc, tiles, m0, n0, k0, scores,
                                      [&](int s, int j) { return v[s * ldS + j]; });
    }
  }
}

}  // namespace flabench::chunk
