// The chunk variant's forward: the state pass (kernels/common/chunk/scan.cuh: the states before every
// chunk), then the output pass, the products on the tensor cores (bf16 and fp16 inputs; fp32 inputs on the
// CUDA cores, kernels/common/chunk/warp_mma.cuh).
//   output pass  one block per (batch, query head, chunk, 64 or 128 values):
//                o = scale ((q e^{seen from the chunk's start}) S0 + A v + bonus), with A the intra-chunk
//                scores of intra_chunk.cuh; S0 and A are fp32 and go to the tensor cores in two 16-bit parts
//                (S0 staged as two bf16 planes whatever the 16-bit input, A split as its fragments are
//                built).
#pragma once

#include <type_traits>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

// A block's values (VT): 64, or 128 where it fits, so that A is built once for V = 128 rather than twice.
__host__ __device__ inline int output_pass_floats(int C, int K, int VT, int input_bytes) {
  return Decays::floats(C, K) + 2 * C * (K + kPad) + input_rows_floats(C, VT, input_bytes) + K * (VT + 8) +
         C * (C + kPad) + C + steep_list_ints(C, K);
}

template <class Form, class T>
__global__ void __launch_bounds__(kOutputMaxThreads)
    chunk_output_kernel(Pointers<T> p, Dims d, const float* states, int VT) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, C = d.C, ldK = K + kPad, ldC = C + kPad, ldV = VT + kPad;
  // blockIdx.x: (batch, query head); G query heads share a key/value head's k, v, g and states.
  const Dims dq = d.queries();
  const int b = blockIdx.x / dq.H, hq = blockIdx.x % dq.H, h = hq / d.G, bh = b * d.H + h, n = blockIdx.y,
            j0 = blockIdx.z * VT;
  const int t0 = n * C, length = min(C, d.T - t0);
  Decays dec = Decays::carve(smem, C, K);
  float* q = smem + Decays::floats(C, K);  // [C][K + pad]: q, then q e^{seen}, then q e^{seen from the start}
  float* k = q + C * ldK;  // [C][K + pad]: k, then k e^{decay after it to its sub-chunk's end}
  // v as the input is and S0 (the state before the chunk) as two bf16 planes (bf16/fp16: B fragments by
  // ldmatrix, rows of an odd number of 16-byte vectors so its 8 rows fall on distinct banks), or both fp32
  using Staged = std::conditional_t<sizeof(T) == 2, T, float>;
  using Planes = StatePart<T>;
  constexpr bool kFragments = sizeof(T) == 2;
  const int ldS = kFragments ? VT + 8 : ldV;
  Staged* v = reinterpret_cast<Staged*>(k + C * ldK);
  float* S0 = k + C * ldK + input_rows_floats(C, VT, sizeof(T));  // in [K][VT + 8] fp32's room
  float* A = S0 + K * (VT + 8);                                   // [C][C + pad]
  float* bonus = A + C * ldC;                                     // [C]: rwkv6's q_i . (u k_i)
  int* steep = reinterpret_cast<int*>(bonus + C);
  auto* S0_planes = reinterpret_cast<Planes*>(S0);
  const float* saved = states + (std::int64_t(bh) * d.chunks() + n) * K * V;
  stage_with_decays<Form>(dec, p.g, d, b, h, t0, 0, token_rows(p.q, dq, b, hq, t0, C, K, 0, K, q, ldK),
                          token_rows(p.k, d, b, h, t0, C, K, 0, K, k, ldK),
                          token_rows(p.v, d, b, h, t0, C, V, j0, VT, v, ldS),
                          staged_state<Planes>(saved, d, 0, K, j0, VT, S0, ldS));

  intra_chunk_scores<Form, T>(dec, q, k, ldK, K, C, A, ldC, Form::value.bonus ? p.u + h * K : nullptr, bonus,
                              steep);
  const Divisor channels(K);
  for (int idx = threadIdx.x; idx < C * K; idx += int(blockDim.x)) {
    const int t = channels.div(idx), c = channels.mod(idx);
    q[t * ldK + c] *= __expf(dec.prefix[(t / kSubChunk) * K + c]);
  }
  __syncthreads();

  // o: each warp a 16-row strip of C / 16 8-column tiles (output_threads).
  constexpr int kMaxTiles = kMaxStripTiles;
  const int warp = threadIdx.x / 32, strips = C / kSubChunk, tiles = strips, m0 = (warp % strips) * kSubChunk,
            n0 = (warp / strips) * 8 * tiles;
  float acc[kMaxTiles][4] = {};
  const auto queries = [&](int i, int c) { return q[i * ldK + c]; };
  for (int k0 = 0; k0 < K; k0 += 16) {
    if constexpr (kFragments) {  // S0's high plane, then its low plane
      // q e^{seen} in bf16 parts: the high part alone for bf16 inputs, both (16 bits) for fp16 inputs, whose
      // 11 bits the high part alone would round
      std::uint32_t af[2][4];
      a_fragment<Planes>(m0, k0, queries, af[0], af[1]);
      const std::uint32_t high[1][4] = {{af[0][0], af[0][1], af[0][2], af[0][3]}};
      if constexpr (std::is_same_v<T, __half>)
        mma_b_stored_kn<Planes>(acc, tiles, af, S0_planes, ldS, k0, n0);
      else
        mma_b_stored_kn<Planes>(acc, tiles, high, S0_planes, ldS, k0, n0);
      mma_b_stored_kn<Planes>(acc, tiles, high, S0_planes + K * ldS, ldS, k0, n0);
    } else {
      mma_k16<T, kMaxTiles>(acc, tiles, m0, n0, k0, queries, [&](int c, int j) { return S0[c * ldS + j]; });
    }
  }
  const auto scores = [&](int i, int s) { return A[i * ldC + s]; };
  for (int k0 = 0; k0 < C; k0 += 16) {
    if constexpr (kFragments) {  // A in two parts, v's fragments by ldmatrix
      std::uint32_t af[2][4];
      a_fragment<T>(m0, k0, scores, af[0], af[1]);
      mma_b_stored_kn<T>(acc, tiles, af, v, ldS, k0, n0);
    } else {
      mma_k16<T, kMaxTiles, Exact::a>(acc, tiles, m0, n0, k0, scores,
                                      [&](int s, int j) { return v[s * ldV + j]; });
    }
  }
  for_each_pair(acc, tiles, m0, n0, [&](int i, int j, float& first, float& second) {
    if (i >= length || j0 + j >= V) return;
    if constexpr (Form::value.bonus) {
      first += bonus[i] * to_float(v[i * ldS + j]);
      second += bonus[i] * to_float(v[i * ldS + j + 1]);
    }
    store_pair(p.o + dq.row(b, hq, t0 + i) * V + j0 + j, d.scale * first, d.scale * second);
  });
}

}  // namespace flabench::chunk
