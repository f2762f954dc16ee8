// The one-kernel chunk forwards' sequence segments (fused_plan.h, FusedSegments): where their scratch lies
// and the scan between their two passes.
#pragma once

#include <cuda_runtime.h>

#include "kernels/common/chunk/fused_plan.h"

namespace flabench::chunk {

// Floats the segments of `plan` need for `heads` heads of K x V states: their states, then their decays.
inline long long segment_scratch_floats(const FusedSegments& plan, int heads, int K, int V) {
  return (long long)heads * (plan.count - 1) * K * (V + 1);
}
// `plan` with its states and decays in `room` (segment_scratch_floats of it).
FusedSegments place_segments(FusedSegments plan, float* room, int heads, int K, int V);

// Between the two passes, on `stream`: each segment's start state from the ones before, in place of their end
// states from zeros: S_{z + 1} = decay_z S_z + E_z (decay_z a factor per key), S_0 the initial state `h0`
// ([heads][K][V] fp32; null: zeros).
void launch_segment_starts(const float* h0, const FusedSegments& plan, int heads, int K, int V,
                           cudaStream_t stream);

}  // namespace flabench::chunk
