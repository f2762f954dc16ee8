// simple_gla's gate gradient from the backward's per-token dots: with G_t the log decays summed up to token t,
// the loss sees G_t through e^{G_t} on q_t and e^{-G_t} on k_t, so dL/dG_t = q_t . dq_t - k_t . dk_t, and G_T
// through the final state (S_T . d_ht); dg_t sums dL/dG_s over s >= t. A block a head: each thread sums a
// span of tokens, then walks it back from the sum of the spans after it, so every token's sum is taken in
// one fixed order (no atomics: the same dg every run).
#include "kernels/common/cuda_check.h"
#include "kernels/simple_gla/chunk_gate_grads.h"

namespace flabench::chunk {
namespace {

constexpr int kThreads = 512;

__device__ float block_sum(float x, float* room) {
  room[threadIdx.x] = x;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) room[threadIdx.x] += room[threadIdx.x + half];
    __syncthreads();
  }
  const float sum = room[0];
  __syncthreads();
  return sum;
}

// grid B H, kThreads threads
__global__ void __launch_bounds__(kThreads) scalar_gate_grads_kernel(GateGradDots dots, Dims d,
                                                                       __nv_bfloat16* dg) {
  __shared__ float room[kThreads];
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  const std::int64_t state_size = std::int64_t(d.K) * d.V, heads = std::int64_t(d.B) * d.H;
  float state = 0.0f;
  if (dots.d_ht) {
    const float *d_ht = dots.d_ht + bh * state_size, *final_t = dots.final_state_transposed + bh * state_size;
    for (int i = threadIdx.x; i < state_size; i += kThreads) state += d_ht[i] * final_t[(i % d.V) * d.K + i / d.V];
    state = block_sum(state, room);
  }
  const auto term = [&](int t) {
    float q = 0.0f, k = 0.0f;
    for (int s = 0; s < dots.slices; ++s) {
      const std::int64_t at = (s * heads + bh) * d.T + t;
      q += dots.dq[at], k += dots.dk[at];
    }
    return d.scale * (q - k);
  };
  const int span = (d.T + kThreads - 1) / kThreads, first = min(d.T, int(threadIdx.x) * span),
            end = min(d.T, first + span);
  float sum = 0.0f;
  for (int t = first; t < end; ++t) sum += term(t);
  room[threadIdx.x] = sum;
  __syncthreads();
  float after = state;  // the spans after this thread's, from the last
  for (int i = kThreads - 1; i > int(threadIdx.x); --i) after += room[i];
  for (int t = end - 1; t >= first; --t) {
    after += term(t);
    dg[d.row(b, h, t)] = __float2bfloat16(after);
  }
}

}  // namespace

void launch_scalar_gate_grads(const GateGradDots& dots, const Dims& d, __nv_bfloat16* dg, cudaStream_t stream) {
  scalar_gate_grads_kernel<<<unsigned(d.B * d.H), kThreads, 0, stream>>>(dots, d, dg);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::chunk
