// gsa's query gradient in its fused_recurrent backward: dq_t = scale Hk_t dz_t, Hk_t pass 1's state after
// token t. The forward saved Hk^T [M x K] before every kChunk-th token (the checkpoints gla's backward reads
// for pass 1), so each chunk's states follow from its own checkpoint: the chunks of every head run at once
// (a block a chunk, head and tile of 32 keys) instead of a scan over the sequence, which at few heads is a
// latency-bound scan that took the SMs the backward's other scans wanted (kernels/notes/gsa.md, version 28).
// The states step as pass 1's forward does, Hk^T_t = diag(e^{f_t}) Hk^T_{t-1} + s_t k_t^T in fp32 with e^f
// <= 1, so f down to -40 cannot overflow.
#pragma once

#include <cstdint>

#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/problem.h"

namespace flabench::gsa::gla_passes {

constexpr int kQueryGradKeys = 32;  // keys a block: a lane each, so rows of Hk^T load and dq stores coalesce
constexpr int kQueryGradWarps = 8;  // the M slots split between them; a chunk's sums meet in shared memory
constexpr int kQueryGradTokens = fused::kChunk;

// Where a segment's query gradients come from and go: the token rows of [B, T, H, ...] tensors, the
// checkpoints [B*H, checkpoint_stride, M, K].
struct QueryGradShape {
  int T, H, K, heads, checkpoint_stride;
  int t0, length;  // the segment: tokens [t0, t0 + length) of every sequence, t0 a whole chunk
  float scale;
};

template <class T, int M>
__global__ void __launch_bounds__(kQueryGradKeys* kQueryGradWarps)
    query_grads_kernel(const float* checkpoints, const T* s, const T* f, const T* k, const T* dz, T* dq,
                       QueryGradShape a) {
  constexpr int kRows = M / kQueryGradWarps;  // slots a lane
  __shared__ float decay[kQueryGradTokens][M], slots[kQueryGradTokens][M], grads[kQueryGradTokens][M];
  __shared__ float keys[kQueryGradTokens][kQueryGradKeys];
  __shared__ float sums[kQueryGradTokens][kQueryGradWarps][kQueryGradKeys];
  const int head = int(blockIdx.x % unsigned(a.heads)), chunk = int(blockIdx.x / unsigned(a.heads));
  const int b = head / a.H, h = head % a.H;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int key0 = blockIdx.y * kQueryGradKeys, key = key0 + lane;
  const int first = a.t0 + chunk * kQueryGradTokens;
  const int tokens = min(kQueryGradTokens, a.t0 + a.length - first);
  const auto row = [&](int token) { return (std::int64_t(b) * a.T + first + token) * a.H + h; };

  for (int i = threadIdx.x; i < tokens * M; i += blockDim.x) {
    const int token = i / M, m = i % M;
    const std::int64_t at = row(token) * M + m;
    decay[token][m] = exp_flushed(to_float(f[at]));
    slots[token][m] = to_float(s[at]);
    grads[token][m] = to_float(dz[at]);
  }
  for (int i = threadIdx.x; i < tokens * kQueryGradKeys; i += blockDim.x) {
    const int token = i / kQueryGradKeys, column = key0 + i % kQueryGradKeys;
    keys[token][i % kQueryGradKeys] = column < a.K ? to_float(k[row(token) * a.K + column]) : 0.0f;
  }
  float state[kRows];
  const float* checkpoint =
      checkpoints + (std::int64_t(head) * a.checkpoint_stride + first / kQueryGradTokens) * M * a.K;
#pragma unroll
  for (int r = 0; r < kRows; ++r)
    state[r] = key < a.K ? checkpoint[std::int64_t(warp * kRows + r) * a.K + key] : 0.0f;
  __syncthreads();

  for (int token = 0; token < tokens; ++token) {
    const float kt = keys[token][lane];
    float acc[2] = {0, 0};
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int m = warp * kRows + r;
      state[r] = fmaf(decay[token][m], state[r], slots[token][m] * kt);
      acc[r & 1] = fmaf(state[r], grads[token][m], acc[r & 1]);
    }
    sums[token][warp][lane] = acc[0] + acc[1];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < tokens * kQueryGradKeys; i += blockDim.x) {
    const int token = i / kQueryGradKeys, column = i % kQueryGradKeys;
    if (key0 + column >= a.K) continue;
    float sum = 0;
#pragma unroll
    for (int w = 0; w < kQueryGradWarps; ++w) sum += sums[token][w][column];
    dq[row(token) * a.K + key0 + column] = from_float<T>(a.scale * sum);
  }
}

// dq of tokens [t0, t0 + length) of every sequence (t0 a whole chunk) from dz of those tokens and pass 1's
// checkpoints (`checkpoints`, Hk^T, [B*H, ceil(T / kChunk), M, K]); M in {32, 64, 128}.
template <class T>
void launch_query_grads(const Problem& p, const float* checkpoints, const T* s, const T* f, const T* k,
                        const T* dz, T* dq, int t0, int length, cudaStream_t stream) {
  const int heads = int(p.B * p.H), chunks = (length + kQueryGradTokens - 1) / kQueryGradTokens;
  const QueryGradShape shape{
      int(p.T), int(p.H), int(p.K),      heads, int((p.T + kQueryGradTokens - 1) / kQueryGradTokens),
      t0,       length,   float(p.scale)};
  const dim3 grid(unsigned(std::int64_t(chunks) * heads),
                  unsigned((p.K + kQueryGradKeys - 1) / kQueryGradKeys));
  const dim3 block(kQueryGradKeys * kQueryGradWarps);
  switch (p.M) {
    case 32:
      query_grads_kernel<T, 32><<<grid, block, 0, stream>>>(checkpoints, s, f, k, dz, dq, shape);
      break;
    case 64:
      query_grads_kernel<T, 64><<<grid, block, 0, stream>>>(checkpoints, s, f, k, dz, dq, shape);
      break;
    default:  // 128, as fits() in gla_passes.cuh allows
      query_grads_kernel<T, 128><<<grid, block, 0, stream>>>(checkpoints, s, f, k, dz, dq, shape);
  }
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::gsa::gla_passes
