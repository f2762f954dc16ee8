// The chunk's intra-chunk scores A_is = sum_c q_ic k_sc e^{G_i - G_s} (s read by i), built in shared memory
// by the whole block; the forward's output pass and the backward's value gradients both start from them.
#pragma once

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/recurrence.h"

namespace flabench::chunk {

// On entry q and k hold the chunk's rows (C x K, row stride ldK, zero past the sequence) and dec its decays;
// on return A[i * ldC + s] holds the scores, q holds q e^{seen within its sub-chunk}, k holds k e^{decay
// after it to its sub-chunk's end} (the factors of the callers' other products), and for rwkv6 bonus[i] holds
// q_i . (u k_i) with u the head's bonus (unused otherwise).
template <class Form, class T>
__device__ void intra_chunk_scores(const Decays& dec, float* q, float* k, int ldK, int K, int C, float* A,
                                   int ldC, const T* u, float* bonus) {
  // A's diagonal blocks, element by element in fp32 (factorising them the way the blocks below are, through
  // e^{-local_s}, rounds both factors to the operand type: measured 6.6e-3 on o at T = 1 in bf16, over the
  // 5e-3 threshold); above them zero. A warp's lanes hold 16 different keys s, so each lane starts at its own
  // channel (lane mod K) and wraps: their reads fall on different banks.
  const auto reads = [](int i, int s) { return Form::value.output_before_update ? s < i : s <= i; };
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, subs = C / kSubChunk;
  for (int item = threadIdx.x; item < subs * kSubChunk * kSubChunk; item += int(blockDim.x)) {
    const int I = item / (kSubChunk * kSubChunk), i = I * kSubChunk + (item / kSubChunk) % kSubChunk,
              s = I * kSubChunk + item % kSubChunk;
    float a = 0;
    if (reads(i, s))
      for (int step = 0, c = lane % K; step < K; ++step, c = c + 1 == K ? 0 : c + 1)
        a += q[i * ldK + c] * k[s * ldK + c] * __expf(dec.seen(i, c) - dec.local[s * K + c]);
    A[i * ldC + s] = a;
  }
  for (int idx = threadIdx.x; idx < C * C; idx += int(blockDim.x))
    if ((idx % C) / kSubChunk > (idx / C) / kSubChunk) A[(idx / C) * ldC + idx % C] = 0;
  if constexpr (Form::value.bonus)
    for (int i = threadIdx.x; i < C; i += int(blockDim.x)) {
      float w = 0;
      for (int c = 0; c < K; ++c) w += q[i * ldK + c] * to_float(u[c]) * k[i * ldK + c];
      bonus[i] = w;
    }
  __syncthreads();
  for (int idx = threadIdx.x; idx < C * K; idx += int(blockDim.x)) {
    const int t = idx / K, c = idx % K;
    q[t * ldK + c] *= __expf(dec.seen(t, c));
    k[t * ldK + c] *= __expf(dec.total[(t / kSubChunk) * K + c] - dec.local[idx]);
  }
  __syncthreads();

  // A's blocks below the diagonal, one warp each: (q to I's start, times the sub-chunks between) . (k to
  // J's end).
  for (int job = warp; job < subs * (subs - 1) / 2; job += blockDim.x / 32) {
    int I = 1, J = job;
    while (J >= I) J -= I, ++I;
    float acc[2][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16)
      mma_k16<T>(
          acc, 2, I * kSubChunk, 0, k0,
          [&](int i, int c) { return q[i * ldK + c] * (I - J > 1 ? __expf(dec.between(J, I, c)) : 1.f); },
          [&](int c, int s) { return k[(J * kSubChunk + s) * ldK + c]; });
    for_each_accumulator(acc, 2, I * kSubChunk, 0,
                         [&](int i, int s, float& a) { A[i * ldC + J * kSubChunk + s] = a; });
  }
  __syncthreads();
}

}  // namespace flabench::chunk
