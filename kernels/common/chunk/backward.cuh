// The chunk variant's state gradients, version 0 (CUDA cores; the algorithm of chunk_backward in
// tests/kernels/chunk_form.h): a reverse pass over the chunks for the gradient of the state after each;
// and rwkv6's du, its per-chunk partials summed in a fixed order.
#pragma once

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

constexpr int kBackwardThreads = 256;
constexpr int kValueTile = 32;

// Chunks in reverse: the gradient of the state after each chunk is saved, then carried back through the
// chunk's outputs and decay: dS <- e^{whole} dS + scale sum_i (q_i e^{seen_i}) do_i^T. Ends with dh0.
template <class Form, class T>
__global__ void __launch_bounds__(kBackwardThreads)
    chunk_dstate_kernel(Pointers<T> p, GradPointers<T> g, Dims d, float* dstates) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, C = d.C;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, j0 = blockIdx.y * kValueTile;
  const int VT = min(kValueTile, V - j0);
  Decays dec = Decays::carve(smem, C, K);
  float* qs = smem + Decays::floats(C, K);  // [C][K]: scale q_i e^{seen_i}
  float* dO = qs + C * K;                   // [C][VT]
  float* dS = dO + C * kValueTile;          // [K][VT]
  for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
    dS[idx] = g.d_ht[std::int64_t(bh) * K * V + (idx / VT) * V + j0 + idx % VT];
  for (int n = d.chunks() - 1; n >= 0; --n) {
    const int t0 = n * C, length = min(C, d.T - t0);
    __syncthreads();
    float* saved = dstates + (std::int64_t(bh) * d.chunks() + n) * K * V;
    for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
      saved[(idx / VT) * V + j0 + idx % VT] = dS[idx];
    dec.build(GlobalGate<Form, T>{p.g, d, b, h, t0}, length, Form::value.output_before_update);
    stage_tile(g.d_o, d, b, h, t0, length, length, V, j0, VT, dO, VT);
    __syncthreads();
    for (int idx = threadIdx.x; idx < length * K; idx += blockDim.x)
      qs[idx] = d.scale * to_float(p.q[d.row(b, h, t0 + idx / K) * K + idx % K]) *
                __expf(dec.seen_from_start(idx / K, idx % K));
    __syncthreads();
    for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x) {
      const int c = idx / VT, j = idx % VT;
      float acc = __expf(dec.whole(c)) * dS[idx];
      for (int i = 0; i < length; ++i) acc += qs[i * K + c] * dO[i * VT + j];
      dS[idx] = acc;
    }
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
    g.dh0[std::int64_t(bh) * K * V + (idx / VT) * V + j0 + idx % VT] = dS[idx];
}

// du[h, c] = the sum over the batch and the chunks of the partials, in a fixed order.
template <class T>
__global__ void chunk_sum_bonus_kernel(const float* partial, T* du, int B, int H, int chunks, int K) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * K) return;
  const int h = idx / K, c = idx % K;
  float sum = 0;
  for (int b = 0; b < B; ++b)
    for (int n = 0; n < chunks; ++n) sum += partial[((std::int64_t(b) * H + h) * chunks + n) * K + c];
  du[idx] = from_float<T>(sum);
}

inline std::size_t dstate_shared_bytes(const Problem& p) {
  const int C = p.chunk_size, K = int(p.K);
  return sizeof(float) * (Decays::floats(C, K) + C * K + C * kValueTile + K * kValueTile);
}

}  // namespace flabench::chunk
