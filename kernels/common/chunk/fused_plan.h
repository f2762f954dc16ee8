// What the one-kernel chunk forwards on Hopper share (simple_gla's,
// kernels/simple_gla/chunk_fused_forward.cu, and gla's and rwkv6's over prepared operands,
// kernels/common/chunk/prepared_fused_forward.cu): the chunk, the ring of staged chunks, the three warpgroups
// and how a head's values are sliced over blocks. Host-safe, for the CPU tests.
#pragma once

#include <algorithm>

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/variant.h"

namespace flabench::chunk {

constexpr int kFusedChunk = 64;     // tokens a chunk: one wgmma's M
constexpr int kFusedStages = 3;     // chunks staged at once: one computed while the next two load
constexpr int kMaxFusedStages = 4;  // the most a forward stages (simple_gla's with two outputs warpgroups)
constexpr int kFusedThreads = 384;  // three warpgroups: loads, the state, the outputs

// Value columns a block: 64, or 32 where blocks of 64 would fill at most half of the GPU's multiprocessors (a
// block an SM: it takes most of an SM's shared memory).
inline int fused_value_slice(int heads, int V, int multiprocessors) {
  if (V % 64 != 0) return 32;
  return 2 * heads * (V / 64) <= multiprocessors ? 32 : 64;
}
// The blocks a one-kernel forward launches for `p` over the whole sequence: every head's value slices.
inline int fused_blocks(const Problem& p, int multiprocessors) {
  const int heads = int(p.B * p.H);
  return heads * int(p.V) / fused_value_slice(heads, int(p.V), multiprocessors);
}

// Whether `blocks` blocks of a one-kernel forward fill more than half the GPU's multiprocessors. At fewer, a
// block's chain of chunks is the forward's time: the multi-kernel forwards measured faster there, and the
// one-kernel forwards split the sequence instead (plan_fused_segments); their backward's passes
// (simple_gla's) run only where the blocks fill.
inline bool fused_blocks_fill(int blocks, int multiprocessors) {
  return 2 * blocks > multiprocessors;
}

// Few heads: a one-kernel forward (simple_gla's, or gla's and rwkv6's over prepared operands) over `count`
// segments of `chunks` chunks each (the last the rest), every segment at once from its own start state
// (kernels/notes/chunk.md, versions 122 and 123). The start states come first: the scan (scan.cuh) over
// `runs` runs of `run_chunks` chunks a segment but the last, from zeros, all at once (its light blocks, four
// an SM, take a run of a few chunks each where a segment's would be a long chain), each run's end state and
// decay per key; then segment_starts folds them in order from the initial state. count 1: no split.
struct FusedSegments {
  int count = 1, chunks = 0;
  int runs = 0, run_chunks = 0;
};
constexpr int kMinSegmentChunks = 8;  // a segment's (and a run's) fewest chunks: a ring filled and drained
// For a forward of `blocks` blocks over `chunks` chunks, whose scan takes `scan_blocks` blocks a run: as many
// segments as the idle multiprocessors take (one block each), as many runs a segment as fill the scan's
// places on every multiprocessor, every run whole chunks within its segment.
inline FusedSegments plan_fused_segments(int blocks, int scan_blocks, int chunks, int multiprocessors) {
  if (fused_blocks_fill(blocks, multiprocessors)) return {};
  const int most = std::min(multiprocessors / blocks, chunks / kMinSegmentChunks);
  if (most < 2) return {};
  const int length = (chunks + most - 1) / most;
  const int runs = std::clamp(kScanBlocksPerSm * multiprocessors / (scan_blocks * (most - 1)), 1,
                              length / kMinSegmentChunks);
  FusedSegments plan;
  plan.run_chunks = (length + runs - 1) / runs;
  plan.chunks = runs * plan.run_chunks;
  plan.count = (chunks + plan.chunks - 1) / plan.chunks;
  if (plan.count < 2) return {};
  plan.runs = runs;
  return plan;
}
// A one-kernel forward's segments for `p` (chunks of kFusedChunk) on a GPU of `multiprocessors`: its blocks
// (fused_value_slice's) and the scan's (a block per 32 x 32 tile of a head's state).
inline FusedSegments fused_forward_segments(const Problem& p, int multiprocessors) {
  return plan_fused_segments(fused_blocks(p, multiprocessors),
                             scan_blocks(int(p.B * p.H), int(p.K), int(p.V)),
                             int((p.T + kFusedChunk - 1) / kFusedChunk), multiprocessors);
}
// The runs of the scan before the segments (every segment's but the last's).
__host__ __device__ inline int segment_runs(const FusedSegments& plan) {
  return (plan.count - 1) * plan.runs;
}
// Where the segments' scratch lies, in floats from its start, for `heads` heads of K x V states: the runs'
// end states [heads][segment_runs][K][V], their decays [heads][segment_runs][K], then the segments' start
// states (each but the first's) [heads][count - 1][K][V].
struct SegmentScratch {
  long long ends, decays, starts, floats;
};
inline SegmentScratch segment_scratch(const FusedSegments& plan, int heads, int K, int V) {
  const long long runs = (long long)heads * segment_runs(plan);
  SegmentScratch at;
  at.ends = 0;
  at.decays = runs * K * V;
  at.starts = at.decays + runs * K;
  at.floats = at.starts + (long long)heads * (plan.count - 1) * K * V;
  return at;
}

// Where a one-kernel forward whose shared memory is `layout(K, Vs)` may run `p` on a GPU of `limits`, as far
// as its blocks go: at the value slice it takes there, they fit a block's room (fused_room_fits), fill more
// than half the GPU too (fused_blocks_fit: where simple_gla's backward passes run), or, as a forward, fill it
// or split the sequence (fused_forward_fits).
template <class MakeLayout>
bool fused_room_fits(const Problem& p, const DeviceLimits& limits, const MakeLayout& layout) {
  const int Vs = fused_value_slice(int(p.B * p.H), int(p.V), limits.multiprocessors);
  return layout(int(p.K), Vs).bytes() <= limits.shared_memory_per_block;
}
template <class MakeLayout>
bool fused_blocks_fit(const Problem& p, const DeviceLimits& limits, const MakeLayout& layout) {
  return fused_blocks_fill(fused_blocks(p, limits.multiprocessors), limits.multiprocessors) &&
         fused_room_fits(p, limits, layout);
}
template <class MakeLayout>
bool fused_forward_fits(const Problem& p, const DeviceLimits& limits, const MakeLayout& layout) {
  return fused_room_fits(p, limits, layout) &&
         (fused_blocks_fill(fused_blocks(p, limits.multiprocessors), limits.multiprocessors) ||
          fused_forward_segments(p, limits.multiprocessors).count > 1);
}

}  // namespace flabench::chunk
