// simple_gla's gate gradient from the backward's per-token dots. With G_t the log decays summed up to token
// t, the loss sees G_t through e^{G_t} on q_t and e^{-G_t} on k_t, so dL/dG_t = q_t . dq_t - k_t . dk_t, and
// G_T through the final state (S_T . d_ht); dg_t sums dL/dG_s over s >= t. The final state's term and dk's
// terms through it are O(1) where dg is ~e^-40 (log decays of -40), so they are never summed against each
// other: S_T . d_ht = e^{G_T} h0 . d_ht + sum_s k_s . dk_s^final, and the part of that sum over s >= t
// cancels exactly, leaving the sum over s < t (forwards; kernels/notes/chunk.md, version 102). A block a
// head: each thread takes a span of tokens, and the spans' sums are scanned across the block by shuffles, in
// a fixed order (the same dg every run). No sum is ever a difference of two: the final terms before a token
// are summed forwards and the rest after it backwards.
#include <stdexcept>
#include <string>

#include "kernels/common/cuda_check.h"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/lane_sum.cuh"
#include "kernels/simple_gla/chunk_gate_grads.h"

namespace flabench::chunk {
namespace {

constexpr int kThreads = 512, kWarps = kThreads / 32;
// Tokens a thread's loads take at once: their reads go out together (a token's results are stored into the
// rows it reads, so a loop that stored each token before reading the next waited one memory latency a token).
constexpr int kBatch = 4;
constexpr int kMostSlices = 4;  // a token's partial dots: K / Vs at K = 128 and 32 values a block

// Sum of x over the block (every thread gets it), in a fixed order.
__device__ float block_sum(float x, float* warp_sums) {
  x = sum_over_lanes(x, 32);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = x;
  __syncthreads();
  float sum = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) sum += warp_sums[w];
  __syncthreads();
  return sum;
}

// Sum of x over the threads before this one (kFromEnd: after it), in a fixed order: within each warp by
// shuffles, then the warps' sums before (after) this thread's warp.
template <bool kFromEnd>
__device__ float exclusive_block_sum(float x, float* warp_sums) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float inclusive = x;  // over this warp's lanes up to this one (from the end: from it to the last)
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const float y = kFromEnd ? __shfl_down_sync(0xffffffffu, inclusive, offset)
                             : __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (kFromEnd ? lane + offset < 32 : lane >= offset) inclusive += y;
  }
  // the lane before's (after's) inclusive sum, zero at the warp's edge
  float exclusive =
      kFromEnd ? __shfl_down_sync(0xffffffffu, inclusive, 1) : __shfl_up_sync(0xffffffffu, inclusive, 1);
  if (lane == (kFromEnd ? 31 : 0)) exclusive = 0.0f;
  if (lane == (kFromEnd ? 0 : 31)) warp_sums[warp] = inclusive;
  __syncthreads();
  float others = 0.0f;
  if constexpr (kFromEnd) {
    for (int w = kWarps - 1; w > warp; --w) others += warp_sums[w];
  } else {
    for (int w = 0; w < warp; ++w) others += warp_sums[w];
  }
  __syncthreads();
  return others + exclusive;
}

// grid B H, kThreads threads
__global__ void __launch_bounds__(kThreads)
    scalar_gate_grads_kernel(GateGradDots dots, Dims d, __nv_bfloat16* dg) {
  __shared__ float warp_sums[kWarps];
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  const std::int64_t heads = std::int64_t(d.B) * d.H;
  const auto summed = [&](const float* rows, int t) {  // (unrolled: the slices' reads go out together)
    float sum = 0.0f;
#pragma unroll
    for (int s = 0; s < kMostSlices; ++s)
      if (s < dots.slices) sum += rows[(s * heads + bh) * d.T + t];
    return sum;
  };
  // forwards over the thread's span: each token's rest (into dq's first row) and the final state's terms
  // before it within the span (into dk's first row), the span's sums
  float* const rest = dots.dq + bh * d.T;
  float* const before = dots.dk + bh * d.T;
  const int span = (d.T + kThreads - 1) / kThreads, first = min(d.T, int(threadIdx.x) * span),
            end = min(d.T, first + span);
  float rest_sum = 0.0f, final_sum = 0.0f, log_decay = 0.0f;
  for (int t0 = first; t0 < end; t0 += kBatch) {
    float x[kBatch], f[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int t = t0 + u;
      if (t >= end) break;
      x[u] = d.scale * (summed(dots.dq, t) - summed(dots.dk, t)), f[u] = d.scale * summed(dots.final, t);
      log_decay += __bfloat162float(dots.g[d.row(b, h, t)]);
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int t = t0 + u;
      if (t >= end) break;
      rest[t] = x[u], before[t] = final_sum;
      rest_sum += x[u], final_sum += f[u];
    }
  }
  float initial = 0.0f;  // e^{G_T} h0 . d_ht
  if (dots.h0 && dots.d_ht) {
    const std::int64_t size = std::int64_t(d.K) * d.V;
    const float *h0 = dots.h0 + bh * size, *d_ht = dots.d_ht + bh * size;
#pragma unroll 4
    for (std::int64_t i = threadIdx.x; i < size; i += kThreads) initial += h0[i] * d_ht[i];
    initial = block_sum(initial, warp_sums);
    initial *= exp_flushed(block_sum(log_decay, warp_sums));
  }
  // the rest of the spans after this one, the final terms of those before it
  float after = exclusive_block_sum<true>(rest_sum, warp_sums);
  const float earlier = initial + exclusive_block_sum<false>(final_sum, warp_sums);
  for (int t1 = end; t1 > first; t1 -= kBatch) {  // backwards over the span, kBatch tokens' reads at once
    float x[kBatch], f_before[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int t = t1 - 1 - u;
      if (t < first) break;
      x[u] = rest[t], f_before[u] = before[t];
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int t = t1 - 1 - u;
      if (t < first) break;
      after += x[u];
      dg[d.row(b, h, t)] = __float2bfloat16(earlier + f_before[u] + after);
    }
  }
}

}  // namespace

void launch_scalar_gate_grads(const GateGradDots& dots, const Dims& d, __nv_bfloat16* dg,
                              cudaStream_t stream) {
  if (dots.slices < 1 || dots.slices > kMostSlices)
    throw std::invalid_argument("simple_gla gate gradients: " + std::to_string(dots.slices) +
                                " slices of partial dots (1 to " + std::to_string(kMostSlices) + ")");
  scalar_gate_grads_kernel<<<unsigned(d.B * d.H), kThreads, 0, stream>>>(dots, d, dg);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::chunk
