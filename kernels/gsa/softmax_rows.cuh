// The softmax over gsa's M slots, in fp32 with each row's maximum subtracted: rows of logits in shared memory
// (the fused_recurrent scans and the chunk variant's logit kernel), and rows in global memory eight slots a
// lane (the fused forward's weights on gla's kernels, and both fused backwards' logit gradient).
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/lane_sum.cuh"

namespace flabench::gsa {

// Softmax over the M slots of each of `rows` rows, one warp per row.
__device__ inline void softmax_rows(float* weights, int rows, int M, int warp, int warps) {
  const int lane = threadIdx.x % 32;
  for (int row = warp; row < rows; row += warps) {
    float* w = weights + row * M;
    float largest = -INFINITY;
    for (int i = lane; i < M; i += 32) largest = fmaxf(largest, w[i]);
    for (int offset = 16; offset > 0; offset /= 2)
      largest = fmaxf(largest, __shfl_xor_sync(~0u, largest, offset));
    float total = 0;
    for (int i = lane; i < M; i += 32) total += (w[i] = exp_flushed(w[i] - largest));
    for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(~0u, total, offset);
    const float inverse = 1.0f / total;
    for (int i = lane; i < M; i += 32) w[i] *= inverse;
  }
}

// Eight neighbouring logits of a row of M (M / 8 neighbouring lanes a row) become their softmax weights in
// place. Every lane of the warp takes part (the shuffles).
__device__ __forceinline__ void softmax_of_eight(float (&x)[8], int lanes) {
  float largest = x[0];
#pragma unroll
  for (int i = 1; i < 8; ++i) largest = fmaxf(largest, x[i]);
  largest = largest_over_lanes(largest, lanes);
  float total = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) total += x[i] = exp_flushed(x[i] - largest);
  const float inverse = 1.0f / sum_over_lanes(total, lanes);
#pragma unroll
  for (int i = 0; i < 8; ++i) x[i] *= inverse;
}

// Eight consecutive floats from global memory (two 16-byte loads).
__device__ __forceinline__ void load_eight(const float* from, float (&x)[8]) {
  const float4 low = reinterpret_cast<const float4*>(from)[0],
               high = reinterpret_cast<const float4*>(from)[1];
  x[0] = low.x, x[1] = low.y, x[2] = low.z, x[3] = low.w, x[4] = high.x, x[5] = high.y, x[6] = high.z,
  x[7] = high.w;
}

// Eight floats into eight consecutive elements of type T (one 16-byte store for 2-byte types).
template <class T>
__device__ __forceinline__ void store_eight(T* to, const float (&x)[8]) {
  if constexpr (sizeof(T) == 2) {
    alignas(16) T packed[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) packed[i] = from_float<T>(x[i]);
    *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(packed);
  } else {
    reinterpret_cast<float4*>(to)[0] = make_float4(x[0], x[1], x[2], x[3]);
    reinterpret_cast<float4*>(to)[1] = make_float4(x[4], x[5], x[6], x[7]);
  }
}

// Rows taken in runs of `run` rows (a segment of one sequence) `stride` rows apart (the sequences): where
// the index-th of them is, in rows from the first.
struct RowRuns {
  std::int64_t run, stride;
  __device__ std::int64_t row(std::int64_t index) const { return index / run * stride + index % run; }
};

// The logit gradient of each of `rows` rows of M slots (in `runs`): p = softmax(logits) recomputed in fp32,
// then dz = scale p (dp - p . dp) into `dz` (which may be dp itself: each lane reads its eight before it
// writes them) and, where `p_out` is set, p in fp32 there. Eight slots a lane, M / 8 lanes a row (M in
// {32, 64, 128}).
template <class Z>
__global__ void __launch_bounds__(256)
    softmax_grad_kernel(const float* logits, const float* dp, Z* dz, float* p_out, std::int64_t rows,
                        RowRuns runs, int M, float scale) {
  const int lanes = M / 8;
  const std::int64_t thread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x, index = thread / lanes;
  const bool valid = index < rows;  // every lane takes part in the shuffles
  const std::int64_t at = runs.row(index) * M + int(thread % lanes) * 8;
  float p[8] = {}, d[8] = {};
  if (valid) load_eight(logits + at, p), load_eight(dp + at, d);
  softmax_of_eight(p, lanes);
  float p_dot_dp = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) p_dot_dp = fmaf(p[i], d[i], p_dot_dp);
  p_dot_dp = sum_over_lanes(p_dot_dp, lanes);
#pragma unroll
  for (int i = 0; i < 8; ++i) d[i] = scale * p[i] * (d[i] - p_dot_dp);
  if (!valid) return;
  store_eight(dz + at, d);
  if (p_out) store_eight(p_out + at, p);
}

// Its launch over `rows` rows, in `runs` (one run by default: rows one after another).
template <class Z>
void launch_softmax_grad(const float* logits, const float* dp, Z* dz, float* p_out, std::int64_t rows, int M,
                         float scale, cudaStream_t stream, RowRuns runs = {0, 0}) {
  if (runs.run == 0) runs = {rows, 0};
  const std::int64_t threads = rows * (M / 8);
  softmax_grad_kernel<Z>
      <<<unsigned((threads + 255) / 256), 256, 0, stream>>>(logits, dp, dz, p_out, rows, runs, M, scale);
}

}  // namespace flabench::gsa
