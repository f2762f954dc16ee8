// (I - A_ab)^{-1} of a chunk, the WY form's triangular inverse, in shared memory: both of intra's kernels
// (chunk_intra.cuh on the CUDA cores, chunk_intra_mma.cuh on the tensor cores) call it.
#pragma once

#include "kernels/rwkv7/chunk_tiles.cuh"

namespace flabench::rwkv7 {

// x = (I - ab)^{-1}, unit lower triangular, for ab strictly lower triangular ([C][C + 1] both): each 16 x 16
// diagonal block by forward substitution (one lane per column), then block row by block row
// X_IJ = X_II sum_{J <= M < I} A_IM X_MJ, with partial ((C / 16 - 1) * 256 floats) holding the sums of the
// block row in hand. Starts by writing x (the caller synchronises before) and ends with the block
// synchronised.
__device__ inline void invert_unit_lower(const float* ab, float* x, float* partial, int C) {
  const int stride = C + 1, blocks = C / 16;
  for (int e = threadIdx.x; e < C * stride; e += kThreads) x[e] = 0;
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp < blocks && lane < 16) {  // lane j's column of the block in registers, rows in order
    const int base = warp * 16;
    const float* block = ab + base * stride + base;
    float column[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      float sum = 0;  // the terms above lane's row are zero: the sum is the one from row j on
#pragma unroll
      for (int m = 0; m < i; ++m) sum += block[i * stride + m] * column[m];
      column[i] = i < lane ? 0.0f : i == lane ? 1.0f : sum;
    }
#pragma unroll
    for (int i = 0; i < 16; ++i) x[(base + i) * stride + base + lane] = column[i];
  }
  __syncthreads();
  for (int I = 1; I < blocks; ++I) {
    for (int e = threadIdx.x; e < I * 256; e += kThreads) {
      const int J = e / 256, r = e % 256 / 16, col = e % 16;
      const int i = I * 16 + r, j = J * 16 + col;
      float sum = 0;
      for (int m = J * 16; m < I * 16; ++m) sum += ab[i * stride + m] * x[m * stride + j];
      partial[e] = sum;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < I * 256; e += kThreads) {
      const int J = e / 256, r = e % 256 / 16, col = e % 16;
      const int i = I * 16 + r;
      float sum = 0;
      for (int m = 0; m <= r; ++m) sum += x[i * stride + I * 16 + m] * partial[J * 256 + m * 16 + col];
      x[i * stride + J * 16 + col] = sum;
    }
    __syncthreads();
  }
}

}  // namespace flabench::rwkv7
