// simple_gla's gate gradient from the backward's per-token dots. With G_t the log decays summed up to token
// t, the loss sees G_t through e^{G_t} on q_t and e^{-G_t} on k_t, so dL/dG_t = q_t . dq_t - k_t . dk_t, and
// G_T through the final state (S_T . d_ht); dg_t sums dL/dG_s over s >= t. The final state's term and dk's
// terms through it are O(1) where dg is ~e^-40 (log decays of -40), so they are never summed against each
// other: S_T . d_ht = e^{G_T} h0 . d_ht + sum_s k_s . dk_s^final, and the part of that sum over s >= t
// cancels exactly, leaving the sum over s < t (forwards; kernels/notes/chunk.md, version 102). A block a
// head: each thread takes a span of tokens, the spans' sums are summed in a fixed order (the same dg every
// run).
#include "kernels/common/cuda_check.h"
#include "kernels/common/fast_exp.cuh"
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
__global__ void __launch_bounds__(kThreads)
    scalar_gate_grads_kernel(GateGradDots dots, Dims d, __nv_bfloat16* dg) {
  __shared__ float rest_sums[kThreads], final_sums[kThreads], room[kThreads];
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  const std::int64_t heads = std::int64_t(d.B) * d.H;
  const auto summed = [&](const float* rows, int t) {
    float sum = 0.0f;
    for (int s = 0; s < dots.slices; ++s) sum += rows[(s * heads + bh) * d.T + t];
    return sum;
  };
  // forwards over the thread's span: each token's rest (into dq's first row) and the final state's terms
  // before it within the span (into dk's first row), the span's sums
  float* const rest = dots.dq + bh * d.T;
  float* const before = dots.dk + bh * d.T;
  const int span = (d.T + kThreads - 1) / kThreads, first = min(d.T, int(threadIdx.x) * span),
            end = min(d.T, first + span);
  float rest_sum = 0.0f, final_sum = 0.0f, log_decay = 0.0f;
  for (int t = first; t < end; ++t) {
    const float x = d.scale * (summed(dots.dq, t) - summed(dots.dk, t)), f = d.scale * summed(dots.final, t);
    rest[t] = x, before[t] = final_sum;
    rest_sum += x, final_sum += f;
    log_decay += __bfloat162float(dots.g[d.row(b, h, t)]);
  }
  rest_sums[threadIdx.x] = rest_sum, final_sums[threadIdx.x] = final_sum;
  __syncthreads();
  float initial = 0.0f;  // e^{G_T} h0 . d_ht
  const float G = block_sum(log_decay, room);
  if (dots.h0 && dots.d_ht) {
    const std::int64_t size = std::int64_t(d.K) * d.V;
    for (std::int64_t i = threadIdx.x; i < size; i += kThreads)
      initial += dots.h0[bh * size + i] * dots.d_ht[bh * size + i];
    initial = exp_flushed(G) * block_sum(initial, room);
  }
  float after = 0.0f, earlier = initial;  // the rest of the spans after this one, the final terms before it
  for (int i = kThreads - 1; i > int(threadIdx.x); --i) after += rest_sums[i];
  for (int i = 0; i < int(threadIdx.x); ++i) earlier += final_sums[i];
  for (int t = end - 1; t >= first; --t) {
    after += rest[t];
    dg[d.row(b, h, t)] = __float2bfloat16(earlier + before[t] + after);
  }
}

}  // namespace

void launch_scalar_gate_grads(const GateGradDots& dots, const Dims& d, __nv_bfloat16* dg,
                              cudaStream_t stream) {
  scalar_gate_grads_kernel<<<unsigned(d.B * d.H), kThreads, 0, stream>>>(dots, d, dg);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::chunk
