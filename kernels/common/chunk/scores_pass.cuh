// The intra-chunk scores alone, a block per (batch, head, chunk): A (intra_chunk.cuh) and rwkv6's bonus into
// the workspace (Workspace::scores, bonus), for the state and output pass over prepared operands
// (prepared_fused_forward.cu), which reads them in place of building them in each of a head's value slices,
// and for the backward's value gradients, which read them as they read the output pass's. The key channels a
// tile at a time where the output pass takes them so (output_key_tile): the same sums in the same order, so
// A is the output pass's bit for bit there.
#pragma once

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

constexpr int kScoresThreads = 256;

__host__ __device__ inline int scores_pass_floats(int C, int K) {
  const int KT = output_key_tile(C, K);
  return Decays::floats(C, KT) + 2 * C * (KT + kPad) + C * (C + kPad) + C + intra_chunk_scratch_ints(C, KT);
}

template <class Form, class T>
__global__ void __launch_bounds__(kScoresThreads)
    chunk_scores_kernel(Pointers<T> p, Dims d, float* scores, float* bonus_out) {
  extern __shared__ float smem[];
  const int K = d.K, C = d.C, KT = output_key_tile(C, K), ldK = KT + kPad, ldC = C + kPad;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, t0 = n * C;
  Decays dec = Decays::carve(smem, C, KT);  // of the KT channels staged
  float* q = smem + Decays::floats(C, KT);  // [C][KT + pad]
  float* k = q + C * ldK;                   // [C][KT + pad]
  float* A = k + C * ldK;                   // [C][C + pad]
  float* bonus = A + C * ldC;               // [C]: rwkv6's q_i . (u k_i)
  int* scratch = reinterpret_cast<int*>(bonus + C);
  const T* u = Form::value.bonus ? p.u + h * K : nullptr;
  zero_intra_chunk_scores(A, ldC, C, bonus);
  for (int c0 = 0; c0 < K; c0 += KT) {
    __syncthreads();  // the last tile's reads are done
    stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0, token_rows(p.q, d, b, h, t0, C, K, c0, KT, q, ldK),
                            token_rows(p.k, d, b, h, t0, C, K, c0, KT, k, ldK));
    intra_chunk_scores<Form, T, true>(dec, q, k, ldK, KT, C, A, ldC, u ? u + c0 : nullptr, bonus, scratch);
  }
  finish_intra_chunk_scores<Form>(A, ldC, C);
  __syncthreads();
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  auto* to = reinterpret_cast<float4*>(scores + chunk * C * C);
  const int row_shift = __ffs(C / 4) - 1;  // C: 16, 32 or 64; a row is C / 4 vectors
  for (int idx = threadIdx.x; idx < C * C / 4; idx += kScoresThreads) {
    const int i = idx >> row_shift, s = (idx & (C / 4 - 1)) * 4;
    to[idx] = *reinterpret_cast<const float4*>(A + i * ldC + s);
  }
  if constexpr (Form::value.bonus)
    for (int i = threadIdx.x; i < C; i += kScoresThreads) bonus_out[chunk * C + i] = bonus[i];
}

}  // namespace flabench::chunk
