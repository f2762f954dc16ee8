// gsa chunk's first pass and the softmax between its passes, one block per (batch, query head, chunk):
//   z_i = scale (e^{F_i} Hk0^T q_i + sum_{j <= i} (q_i . k_j) s_j e^{F_i - F_j}),   p_i = softmax(z_i)
// with F the slots' log decays summed from the chunk's start (inclusive) and Hk0 the key state before the
// chunk (the scan's, stored Hk^T [M][K]); p goes to the workspace in the inputs' dtype as pass 2's queries.
// GLA's scores carry the decay inside their product over key channels; here it sits on the product's output
// (the slots), so A = q k^T is a plain causal product and the decays multiply after it, per slot, each
// exponent composed from Decays' sub-chunk sums and never positive (i in sub-chunk I):
//   the state's part        e^{prefix_I} Hk0^T q_i                        then all three
//   earlier sub-chunks      sum_j A_ij s_j e^{decay after j to I's start}  times e^{local_i}
//   i's own sub-chunk       sum_{j <= i} A_ij s_j e^{-local_j}             times e^{local_i}
// the last for the slots whose decay over the sub-chunk stays within e^40 (chunk::kFactorLimit, as GLA's
// diagonal blocks); a steeper slot's sum_{j <= i} A_ij s_j e^{local_i - local_j} is summed element by
// element. So log decays down to -40 make terms vanish, never overflow (the NaN of FLA's chunk_gsa
// backward, kernels/notes/gsa.md). The products run on the tensor cores for bf16/fp16 (fp32 inputs on the
// CUDA cores): q k^T from the inputs as they are; the fp32 state, A and the scaled s in two bf16 parts each
// (Exact), since an error in the logits passes through the softmax's exp, and bf16 for fp16 inputs too
// (e^{-local} needs its range).
#pragma once

#include <cstdint>

#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/gla/gla.h"
#include "kernels/gsa/fused_rows.cuh"

namespace flabench::gsa {

constexpr int kLogitsThreads = 256;  // 8 warps: C / 16 row strips, the slots' tiles split among the rest
constexpr int kLogitsMaxTiles = 8;   // 8-slot tiles a warp holds: M = 128 over two warps at C = 64
constexpr int kLogitsMaxSlots = 128;

// Shared memory, in floats: the slots' decays; q and k as fp32 [C][K + pad], whose room the logits [C][M]
// take once A is built; s [C][M + pad]; Hk0 [M][K + pad]; A [C][C + pad].
__host__ __device__ inline int logits_floats(int C, int K, int M) {
  const int ldK = K + chunk::kPad, rows = 2 * C * ldK > C * M ? 2 * C * ldK : C * M;
  return chunk::Decays::floats(C, M) + rows + C * (M + chunk::kPad) + M * ldK + C * (C + chunk::kPad);
}

template <class T>
struct LogitsArgs {
  const T *q, *k, *s, *f;
  const float* key_states;  // [B*H, chunks, M, K]
  T* weights;               // [B, T, HQ, M]: p
  chunk::Dims d;            // over the slots (d.K = M), with the query groups d.G and the logits' scale
  int K;                    // the key dim
};

template <class T>
__global__ void __launch_bounds__(kLogitsThreads) chunk_logits_kernel(LogitsArgs<T> args) {
  using namespace chunk;
  extern __shared__ float smem[];
  const chunk::Dims& d = args.d;
  const chunk::Dims dq = d.queries();
  const int M = d.K, K = args.K, C = d.C, ldK = K + kPad, ldM = M + kPad, ldC = C + kPad;
  const int b = blockIdx.x / dq.H, hq = blockIdx.x % dq.H, h = hq / d.G, n = blockIdx.y, t0 = n * C,
            length = min(C, d.T - t0);
  Decays dec = Decays::carve(smem, C, M);
  float* q = smem + Decays::floats(C, M);
  float* k = q + C * ldK;
  float* z = q;  // [C][M], after the barrier that follows A
  float* s = q + max(2 * C * ldK, C * M);
  float* Hk0 = s + C * ldM;
  float* A = Hk0 + M * ldK;
  const float* saved =
      args.key_states + (std::int64_t(b) * d.H + h) * d.chunks() * M * K + std::int64_t(n) * M * K;
  // f is a per-slot gate seen after the update, as GLA's per-key gate: its decays are GLA's.
  stage_with_decays<GlaForm>(
      dec, args.f, d, b, h, t0, 0, token_rows(args.q, dq, b, hq, t0, C, K, 0, K, q, ldK),
      token_rows(args.k, d, b, h, t0, C, K, 0, K, k, ldK),
      token_rows(args.s, d, b, h, t0, C, M, 0, M, s, ldM), rows_of(saved, M, K, Hk0, ldK));

  // A = q k^T on and below the diagonal, a warp per 16 x 16 block.
  const int warp = threadIdx.x / 32, warps = kLogitsThreads / 32, subs = C / kSubChunk;
  for (int job = warp; job < subs * (subs + 1) / 2; job += warps) {
    int I = 0, J = job;
    while (J > I) J -= I + 1, ++I;
    float acc[2][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16)
      mma_k16<T>(
          acc, 2, I * kSubChunk, 0, k0, [&](int i, int c) { return q[i * ldK + c]; },
          [&](int c, int j) { return k[(J * kSubChunk + j) * ldK + c]; });
    for_each_accumulator(acc, 2, I * kSubChunk, 0, [&](int i, int j, float& a) {
      const int key = J * kSubChunk + j;
      A[i * ldC + key] = key <= i ? a : 0.f;
    });
  }

  // Each warp's share of the logits: sub-chunk I's 16 rows, `count` tiles of 8 slots from n0.
  const int groups = warps / subs, I = warp % subs, group = warp / subs, m0 = I * kSubChunk;
  const int per_group = (M / 8 + groups - 1) / groups, n0 = group * per_group * 8,
            count = min(per_group, M / 8 - group * per_group);
  using Op = std::conditional_t<std::is_same_v<T, float>, float, __nv_bfloat16>;
  constexpr Exact kQueries = std::is_same_v<T, __half> ? Exact::both : Exact::b;  // fp16's q in bf16 parts
  float acc[kLogitsMaxTiles][4] = {};
  if (count > 0) {
    for (int k0 = 0; k0 < K; k0 += 16)
      mma_k16<Op, kLogitsMaxTiles, kQueries>(
          acc, count, m0, n0, k0, [&](int i, int c) { return q[i * ldK + c]; },
          [&](int c, int m) { return Hk0[m * ldK + c]; });
    for_each_accumulator(acc, count, m0, n0,
                         [&](int, int m, float& a) { a *= __expf(dec.prefix[I * M + m]); });
  }
  __syncthreads();  // A is built; q and k are read for the last time
  const auto gentle = [&](int m) { return -dec.total[I * M + m] <= kFactorLimit; };
  if (count > 0) {
    for (int J = 0; J <= I; ++J)
      mma_k16<Op, kLogitsMaxTiles, Exact::both>(
          acc, count, m0, n0, J * kSubChunk, [&](int i, int j) { return A[i * ldC + j]; },
          [&](int j, int m) {
            if (J < I) return s[j * ldM + m] * __expf(dec.after(j, I, m));
            return gentle(m) ? s[j * ldM + m] * __expf(-dec.local[j * M + m]) : 0.f;
          });
    for_each_accumulator(acc, count, m0, n0, [&](int i, int m, float& a) {
      const float seen = dec.local[i * M + m];
      float steep = 0;
      if (!gentle(m))
        for (int j = m0; j <= i; ++j)
          steep += A[i * ldC + j] * s[j * ldM + m] * __expf(seen - dec.local[j * M + m]);
      z[i * M + m] = d.scale * (a * __expf(seen) + steep);
    });
  }
  __syncthreads();
  softmax_rows(z, length, M, warp, warps);
  __syncthreads();
  T* weights = args.weights + dq.row(b, hq, t0) * M;
  for (int idx = threadIdx.x; idx < length * M; idx += kLogitsThreads) {
    const int i = idx / M, m = idx % M;
    weights[std::int64_t(i) * dq.H * M + m] = from_float<T>(z[idx]);
  }
}

}  // namespace flabench::gsa
