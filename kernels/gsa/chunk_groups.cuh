// Grouped queries in gsa chunk's backward: GLA's chunk backward takes one query head per head, so where G
// query heads share a key/value head it runs over G copies of that head's tensors and states (the incoming
// gradient of the final state on the first copy alone) and the copies' gradients are added afterwards.
// Both work on arrays of `heads` blocks of `width` elements, a key/value head's block followed, in the
// copies, by its G query heads' blocks: token rows [B, T, H, W] (heads = B T H, width = W) or per-head
// arrays [B*H, X] (heads = B H, width = X).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"

namespace flabench::gsa {

// copies[(head G + g) width + e] = blocks[head width + e], or 0 for g > 0 where first_only.
template <class E>
__global__ void repeat_heads_kernel(const E* blocks, E* copies, std::int64_t heads, int G, std::int64_t width,
                                    bool first_only) {
  const std::int64_t total = heads * G * width;
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t copy = idx / width, e = idx % width, head = copy / G;
    copies[idx] = first_only && copy % G != 0 ? from_float<E>(0.f) : blocks[head * width + e];
  }
}

// sums[head width + e] = sum over g of copies[(head G + g) width + e], in fp32, in a fixed order.
template <class E>
__global__ void sum_heads_kernel(const E* copies, E* sums, std::int64_t heads, int G, std::int64_t width) {
  const std::int64_t total = heads * width;
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t head = idx / width, e = idx % width;
    float sum = 0;
    for (int g = 0; g < G; ++g) sum += to_float(copies[(head * G + g) * width + e]);
    sums[idx] = from_float<E>(sum);
  }
}

inline unsigned grid_for(std::int64_t total) {
  return unsigned(std::clamp<std::int64_t>((total + 255) / 256, 1, 8192));
}

template <class E>
void repeat_heads(const E* blocks, E* copies, std::int64_t heads, int G, std::int64_t width,
                  cudaStream_t stream, bool first_only = false) {
  repeat_heads_kernel<E>
      <<<grid_for(heads * G * width), 256, 0, stream>>>(blocks, copies, heads, G, width, first_only);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class E>
void sum_heads(const E* copies, E* sums, std::int64_t heads, int G, std::int64_t width, cudaStream_t stream) {
  sum_heads_kernel<E><<<grid_for(heads * width), 256, 0, stream>>>(copies, sums, heads, G, width);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::gsa
