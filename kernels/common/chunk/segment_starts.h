// The start states of the sequence segments of a one-kernel forward (fused_plan.h, FusedSegments), from
// the scan's runs.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

#include "kernels/common/chunk/fused_plan.h"

namespace flabench::chunk {

// One element of a head's state through the fold (the kernel's body, a thread an element): head bh's element
// `element` of its K x V (`key` its row), its runs' end states E and decays D read from `scratch` (laid out
// as `at`, segment_scratch's, says), S <- D S + E from `initial`, each segment's start state written there
// once its runs are folded.
__host__ __device__ inline void fold_element(float* scratch, const SegmentScratch& at,
                                             const FusedSegments& plan, long long bh, long long element,
                                             int key, int K, long long KV, float initial) {
  const int runs = segment_runs(plan);
  const float* ends = scratch + at.ends + bh * runs * KV + element;
  const float* decays = scratch + at.decays + bh * runs * K + key;
  float* starts = scratch + at.starts + bh * (plan.count - 1) * KV + element;
  float S = initial;
  for (int run = 0; run < runs; ++run) {
    S = fmaf(decays[run * K], S, ends[run * KV]);
    if ((run + 1) % plan.runs == 0) starts[(run / plan.runs) * KV] = S;
  }
}

// On `stream`, after the scan's runs: every segment's start state but the first's into the scratch's starts
// (segment_scratch), folding the runs' end states E and decays D in order from the initial state `h0`
// ([heads][K][V] fp32; null: zeros): S <- D S + E (D a factor per key), a segment's start once its runs are
// folded.
void launch_segment_starts(const float* h0, float* scratch, const FusedSegments& plan, int heads, int K,
                           int V, cudaStream_t stream);

}  // namespace flabench::chunk
