#include "kernels/common/chunk/fused_segments.h"

#include <cstdint>

#include "kernels/common/cuda_check.h"

namespace flabench::chunk {
namespace {

// A thread an element of a head's state, its segments in order.
__global__ void segment_starts_kernel(const float* h0, FusedSegments plan, int heads, int K, int V) {
  const std::int64_t idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= std::int64_t(heads) * K * V) return;
  const std::int64_t bh = idx / (std::int64_t(K) * V), element = idx % (std::int64_t(K) * V);
  const int key = int(element / V);
  float S = h0 ? h0[idx] : 0.0f;
  for (int z = 0; z + 1 < plan.count; ++z) {
    const std::int64_t at = bh * (plan.count - 1) + z;
    S = plan.decays[at * K + key] * S + plan.states[at * K * V + element];
    plan.states[at * K * V + element] = S;
  }
}

}  // namespace

FusedSegments place_segments(FusedSegments plan, float* room, int heads, int K, int V) {
  plan.states = room;
  plan.decays = room + std::int64_t(heads) * (plan.count - 1) * K * V;
  return plan;
}

void launch_segment_starts(const float* h0, const FusedSegments& plan, int heads, int K, int V,
                           cudaStream_t stream) {
  const std::int64_t elements = std::int64_t(heads) * K * V;
  segment_starts_kernel<<<unsigned((elements + 255) / 256), 256, 0, stream>>>(h0, plan, heads, K, V);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::chunk
