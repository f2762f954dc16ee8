// The backward's reverse scan (the state gradients) where a head's scan blocks are few: one run over every
// chunk is a chain of `chunks` dependent steps on a few SMs (1,24576,16,64: 384 steps, 191 us of simple_gla's
// fwd+bwd). In runs instead, as the one-kernel forwards split their scan (fused_plan.h, FusedSegments):
//   1. the scan (scan.cuh) over every run at once from zeros, in the scan's (reverse) order, saving before
//      each chunk its run-local state gradient dS_local and the product g of the decays per key of the
//      chunks its run took before it (Scan::saved_decays), and each run's end state and decays;
//   2. the fold (segment_starts.h, the forward's) of the runs' ends, from the final state's gradient, into
//      each run's true start, the last of them the initial state's gradient;
//   3. where a chunk's state gradient is read: dS = dS_local + diag(g) start_of_its_run (a multiply-add an
//      element; run 0 starts from the final state's gradient).
// Host-safe, for the CPU tests (tests/kernels/chunk_segments_test.cpp).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <algorithm>

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/common/chunk/fused_plan.h"

namespace flabench::chunk {

// `runs` runs of `run_chunks` chunks (the last the rest), in the reverse scan's order; runs 1: one run.
struct StateGradRuns {
  int runs = 1, run_chunks = 0;
};

// For a reverse scan of `scan_blocks` blocks a run over `chunks` chunks on `multiprocessors`: as many runs as
// the scan's places take in one wave, each at least kMinSegmentChunks chunks, where a single run's blocks
// fill at most half those places.
inline StateGradRuns plan_state_grad_runs(int scan_blocks, int chunks, int multiprocessors) {
  const int places = kScanBlocksPerSm * multiprocessors;
  if (2 * scan_blocks > places) return {};
  const int most = std::min(places / scan_blocks, chunks / kMinSegmentChunks);
  if (most < 2) return {};
  StateGradRuns plan;
  plan.run_chunks = (chunks + most - 1) / most;
  plan.runs = (chunks + plan.run_chunks - 1) / plan.run_chunks;
  return plan;
}

// The fold's view of the runs (segment_starts.h): runs + 1 segments of one run each, so that every run's end
// is folded and the start after the last run, the initial state's gradient, is written too.
__host__ __device__ inline FusedSegments state_grad_fold(const StateGradRuns& plan) {
  FusedSegments fold;
  fold.count = plan.runs + 1, fold.chunks = plan.run_chunks, fold.runs = 1, fold.run_chunks = plan.run_chunks;
  return fold;
}

// The run that takes chunk n (in the sequence's order) of `chunks`: the reverse scan starts at the last.
__host__ __device__ inline int reverse_run_of(int n, int chunks, int run_chunks) {
  return (chunks - 1 - n) / run_chunks;
}

// Where the runs' scratch lies, in floats from its start, for `heads` heads of K x V states over `chunks`
// chunks: the fold's (segment_scratch of state_grad_fold: the runs' ends and decays, then the start after
// each run, [heads][runs][K][V]), then each chunk's decay factor g, [heads][chunks][K].
struct StateGradRunsScratch {
  SegmentScratch fold;
  long long gammas, floats;
};
inline StateGradRunsScratch state_grad_runs_scratch(const StateGradRuns& plan, int heads, int chunks, int K,
                                                    int V) {
  StateGradRunsScratch at;
  at.fold = segment_scratch(state_grad_fold(plan), heads, K, V);
  at.gammas = at.fold.floats;
  at.floats = at.gammas + (long long)heads * chunks * K;
  return at;
}

// What a reader of the state gradients needs to make them whole (null starts: one run, nothing to add): run
// r > 0 starts from starts[(bh runs + r - 1) K V ..], run 0 from `initial` (the final state's gradient,
// [heads][K][V]; null: zeros); chunk n's factors are gammas[(bh chunks + n) K ..].
struct StateGradStarts {
  const float* starts = nullptr;
  const float* initial = nullptr;
  const float* gammas = nullptr;
  int runs = 1, run_chunks = 0;
  // the start of chunk n's run for head bh (null: nothing to add)
  __host__ __device__ const float* start_of(long long bh, int n, int chunks, long long KV) const {
    if (!starts) return nullptr;
    const int run = reverse_run_of(n, chunks, run_chunks);
    if (run == 0) return initial ? initial + bh * KV : nullptr;
    return starts + (bh * runs + run - 1) * KV;
  }
};

}  // namespace flabench::chunk
