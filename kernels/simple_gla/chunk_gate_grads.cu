// simple_gla's gate gradient from the backward's per-token dots. With G_t the log decays summed up to token
// t, the loss sees G_t through e^{G_t} on q_t and e^{-G_t} on k_t, so dL/dG_t = q_t . dq_t - k_t . dk_t, and
// G_T through the final state (S_T . d_ht); dg_t sums dL/dG_s over s >= t. The final state's term and dk's
// terms through it are O(1) where dg is ~e^-40 (log decays of -40), so they are never summed against each
// other: S_T . d_ht = e^{G_T} h0 . d_ht + sum_s k_s . dk_s^final, and the part of that sum over s >= t
// cancels exactly, leaving the sum over s < t (forwards; kernels/notes/chunk.md, version 102). No sum here is
// a difference of two: the final terms before a token are summed forwards, the rest after it backwards.
// A block a head, a warp a segment of its tokens, a lane a token of each 32 (so every read is coalesced:
// spans of a thread's own, version 103's first form, made each read 32 lines and took 0.2 ms at T = 16384),
// scanned within the 32 by shuffles and across the segments over shared memory, in a fixed order (the same
// dg every run). A warp's reads of kBatch steps are one straight run, with no branch between them (past the
// sequence they read its last token again): reads under a branch each waited for the one before.
#include <stdexcept>
#include <string>

#include "kernels/common/constant_dispatch.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/lane_sum.cuh"
#include "kernels/simple_gla/chunk_gate_grads.h"

namespace flabench::chunk {
namespace {

constexpr int kThreads = 512, kWarps = kThreads / 32;
constexpr unsigned kAll = 0xffffffffu;

// The sum of x over the lanes before this one (0 at lane 0).
__device__ float sum_before_lane(float x, int lane) {
  float inclusive = x;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const float y = __shfl_up_sync(kAll, inclusive, offset);
    if (lane >= offset) inclusive += y;
  }
  const float before = __shfl_up_sync(kAll, inclusive, 1);
  return lane == 0 ? 0.0f : before;
}

// The sum of x over this lane and those after it.
__device__ float sum_from_lane(float x, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const float y = __shfl_down_sync(kAll, x, offset);
    if (lane + offset < 32) x += y;
  }
  return x;
}

// grid B H, kThreads threads; kSlices: dots.slices
template <int kSlices>
__global__ void __launch_bounds__(kThreads)
    scalar_gate_grads_kernel(GateGradDots dots, Dims d, __nv_bfloat16* dg) {
  constexpr int kBatch = 16 / kSlices;  // steps of 32 tokens whose reads a warp issues at once
  __shared__ float rest_sums[kWarps], final_sums[kWarps], decay_sums[kWarps], products[kWarps];
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t heads = std::int64_t(d.B) * d.H;
  const auto summed = [&](const float* rows, int t) {
    float sum = 0.0f;
#pragma unroll
    for (int s = 0; s < kSlices; ++s) sum += rows[(s * heads + bh) * d.T + t];
    return sum;
  };
  // this warp's segment: whole steps of 32 tokens
  const int segment = (d.T + 32 * kWarps - 1) / (32 * kWarps) * 32, first = min(d.T, warp * segment),
            end = min(d.T, first + segment), steps = (end - first + 31) / 32;
  // forwards over the segment: each token's rest (into dq's first row) and the final state's terms before it
  // within the segment (into dk's first row); the segment's sums
  float* const rest = dots.dq + bh * d.T;
  float* const before = dots.dk + bh * d.T;
  float rest_part = 0.0f, decay_part = 0.0f, final_sum = 0.0f;  // (final_sum: the same in every lane)
  for (int step0 = 0; step0 < steps; step0 += kBatch) {
    float x[kBatch], f[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int t = first + 32 * (step0 + u) + lane, at = min(t, end - 1);
      const float x_at = d.scale * (summed(dots.dq, at) - summed(dots.dk, at)),
                  f_at = d.scale * summed(dots.final, at), g_at = __bfloat162float(dots.g[d.row(b, h, at)]);
      x[u] = t < end ? x_at : 0.0f, f[u] = t < end ? f_at : 0.0f;
      decay_part += t < end ? g_at : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (step0 + u >= steps) break;
      const int t = first + 32 * (step0 + u) + lane;
      const float earlier = sum_before_lane(f[u], lane);
      if (t < end) rest[t] = x[u], before[t] = final_sum + earlier;
      final_sum += __shfl_sync(kAll, earlier + f[u], 31);
      rest_part += x[u];
    }
  }
  const float rest_sum = sum_over_lanes(rest_part, 32), decay_sum = sum_over_lanes(decay_part, 32);
  if (lane == 0) rest_sums[warp] = rest_sum, final_sums[warp] = final_sum, decay_sums[warp] = decay_sum;
  if (dots.h0 && dots.d_ht) {  // this warp's part of h0 . d_ht
    const std::int64_t size = std::int64_t(d.K) * d.V;
    const float *h0 = dots.h0 + bh * size, *d_ht = dots.d_ht + bh * size;
    float product = 0.0f;
#pragma unroll 4
    for (std::int64_t i = threadIdx.x; i < size; i += kThreads) product += h0[i] * d_ht[i];
    product = sum_over_lanes(product, 32);
    if (lane == 0) products[warp] = product;
  }
  __syncthreads();
  // the rest after this segment (from the last), the final terms before it and e^{G_T} h0 . d_ht
  float after = 0.0f, earlier = 0.0f;
  for (int w = kWarps - 1; w > warp; --w) after += rest_sums[w];
  for (int w = 0; w < warp; ++w) earlier += final_sums[w];
  if (dots.h0 && dots.d_ht) {
    float G = 0.0f, product = 0.0f;
    for (int w = 0; w < kWarps; ++w) G += decay_sums[w], product += products[w];
    earlier += exp_flushed(G) * product;
  }
  // backwards over the segment, kBatch steps' reads at once: dg_t = the final terms before t + the rest from
  // t on
  for (int step1 = steps - 1; step1 >= 0; step1 -= kBatch) {
    float x[kBatch], f_before[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int t = first + 32 * (step1 - u) + lane, at = min(max(t, first), end - 1);
      const float x_at = rest[at], f_at = before[at];
      x[u] = t < end ? x_at : 0.0f, f_before[u] = f_at;  // (zeros past the end: they join the lanes' sums)
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (step1 - u < 0) break;
      const int t = first + 32 * (step1 - u) + lane;
      const float from_here = sum_from_lane(x[u], lane);
      if (t < end) dg[d.row(b, h, t)] = __float2bfloat16(earlier + f_before[u] + (after + from_here));
      after += __shfl_sync(kAll, from_here, 0);
    }
  }
}

}  // namespace

void launch_scalar_gate_grads(const GateGradDots& dots, const Dims& d, __nv_bfloat16* dg,
                              cudaStream_t stream) {
  if (dots.slices != 1 && dots.slices != 2 && dots.slices != 4)
    throw std::invalid_argument("simple_gla gate gradients: " + std::to_string(dots.slices) +
                                " slices of partial dots (1, 2 or 4: K / Vs)");
  with_one_of<1, 2, 4>(dots.slices, [&](auto slices) {
    scalar_gate_grads_kernel<slices.value><<<unsigned(d.B * d.H), kThreads, 0, stream>>>(dots, d, dg);
  });
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::chunk
