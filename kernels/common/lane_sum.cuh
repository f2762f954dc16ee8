// A sum (or the largest value) over neighbouring lanes of a warp, for threads that share a row or a column
// of some tile.
#pragma once

namespace flabench {

// Sum of x over the `lanes` neighbouring lanes (a power of two, at most 32); every one of them gets it.
__device__ __forceinline__ float sum_over_lanes(float x, int lanes) {
#pragma unroll
  for (int m = 1; m < 32; m <<= 1)
    if (m < lanes) x += __shfl_xor_sync(0xffffffffu, x, m);
  return x;
}

// Sum of x over the lanes `stride` apart from this one (a power of two, at most 32, where the sum is x
// itself: the lanes whose indices differ only in the bits from stride up), summed in the order
// sum_over_lanes takes for neighbours; every one of them gets it.
__device__ __forceinline__ float sum_over_strided_lanes(float x, int stride) {
#pragma unroll
  for (int m = 1; m < 32; m <<= 1)
    if (m >= stride) x += __shfl_xor_sync(0xffffffffu, x, m);
  return x;
}

// The largest x over the `lanes` neighbouring lanes (a power of two, at most 32); every one of them gets it.
__device__ __forceinline__ float largest_over_lanes(float x, int lanes = 32) {
#pragma unroll
  for (int m = 1; m < 32; m <<= 1)
    if (m < lanes) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, m));
  return x;
}

}  // namespace flabench
