// The start states of the sequence segments of a one-kernel forward (fused_plan.h, FusedSegments), from
// the scan's runs.
#pragma once

#include <cuda_runtime.h>

#include "kernels/common/chunk/fused_plan.h"

namespace flabench::chunk {

// On `stream`, after the scan's runs: every segment's start state but the first's into the scratch's starts
// (segment_scratch), folding the runs' end states E and decays D in order from the initial state `h0`
// ([heads][K][V] fp32; null: zeros): S <- D S + E (D a factor per key), a segment's start once its runs are
// folded.
void launch_segment_starts(const float* h0, float* scratch, const FusedSegments& plan, int heads, int K,
                           int V, cudaStream_t stream);

}  // namespace flabench::chunk
