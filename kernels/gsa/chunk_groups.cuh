// Grouped queries in gsa chunk's backward: GLA's chunk backward takes one query head per head, so where G
// query heads share a key/value head it runs over G copies of that head's tensors and states (the incoming
// gradient of the final state on the first copy alone) and the copies' gradients are added afterwards
// (sum_parts, kernels/common/recurrence_pointers.cuh). The copies are arrays of `heads` blocks of `width`
// elements, each key/value head's block repeated for its G query heads: token rows [B, T, H, W] (heads =
// B T H, width = W) or per-head arrays [B*H, X] (heads = B H, width = X).
#pragma once

#include <cstdint>

#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/grid_stride.h"

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

template <class E>
void repeat_heads(const E* blocks, E* copies, std::int64_t heads, int G, std::int64_t width,
                  cudaStream_t stream, bool first_only = false) {
  repeat_heads_kernel<E><<<grid_stride_blocks(heads * G * width), kGridStrideThreads, 0, stream>>>(
      blocks, copies, heads, G, width, first_only);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::gsa
