// The softmax over gsa's M slots of rows of logits in shared memory, in fp32 with each row's maximum
// subtracted; the fused_recurrent scans and the chunk variant's logit kernel share it.
#pragma once

#include <cmath>

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
    for (int i = lane; i < M; i += 32) total += (w[i] = __expf(w[i] - largest));
    for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(~0u, total, offset);
    const float inverse = 1.0f / total;
    for (int i = lane; i < M; i += 32) w[i] *= inverse;
  }
}

}  // namespace flabench::gsa
