#include "kernels/common/chunk/segment_starts.h"

#include <cstdint>

#include "kernels/common/cuda_check.h"

namespace flabench::chunk {
namespace {

// A thread an element of a head's state, the runs in order (each run's end state read once: the loads do not
// wait on the chain, which is a multiply-add a run).
__global__ void segment_starts_kernel(const float* h0, float* scratch, FusedSegments plan, SegmentScratch at,
                                      int heads, int K, int V) {
  const std::int64_t KV = std::int64_t(K) * V, idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= heads * KV) return;
  const std::int64_t element = idx % KV;
  fold_element(scratch, at, plan, idx / KV, element, int(element / V), K, KV, h0 ? h0[idx] : 0.0f);
}

}  // namespace

void launch_segment_starts(const float* h0, float* scratch, const FusedSegments& plan, int heads, int K,
                           int V, cudaStream_t stream) {
  const std::int64_t elements = std::int64_t(heads) * K * V;
  segment_starts_kernel<<<unsigned((elements + 255) / 256), 256, 0, stream>>>(
      h0, scratch, plan, segment_scratch(plan, heads, K, V), heads, K, V);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::chunk
