// What the one-kernel chunk forwards on Hopper share (simple_gla's,
// kernels/simple_gla/chunk_fused_forward.cu, and gla's and rwkv6's,
// kernels/common/chunk/per_key_fused_forward.cu): the chunk, the ring of staged chunks, the three warpgroups
// and how a head's values are sliced over blocks. Host-safe, for the CPU tests.
#pragma once

namespace flabench::chunk {

constexpr int kFusedChunk = 64;     // tokens a chunk: one wgmma's M
constexpr int kFusedStages = 2;     // chunks staged at once: one computed while the next loads
constexpr int kFusedThreads = 384;  // three warpgroups: loads, the state, the outputs

// Value columns a block: 64, or 32 where blocks of 64 would fill at most half of the GPU's multiprocessors (a
// block an SM: it takes most of an SM's shared memory).
inline int fused_value_slice(int heads, int V, int multiprocessors) {
  if (V % 64 != 0) return 32;
  return 2 * heads * (V / 64) <= multiprocessors ? 32 : 64;
}

// Few heads (blocks of a head's value slices filling at most half the GPU): the sequence split into segments
// of whole chunks, a block each, so that the other multiprocessors work too. A first pass of the state alone
// (loads and state warpgroups) takes each segment but the last from a zero state to its end (its state and
// its decay factor per key into `states` [B H][count - 1][K][V] and `decays` [B H][count - 1][K], fp32:
// fused_segments.h places them); a scan over the segments turns them into each segment's start state, in
// place; the whole kernel then runs every segment from its start. Segment z takes `chunks` chunks from z
// chunks, the last the rest. The first pass costs about half a chunk's work again (no queries, no outputs),
// so segments pay from two on.
struct FusedSegments {
  int count = 1, chunks = 0;
  float *states = nullptr, *decays = nullptr;
};
constexpr int kMinSegmentChunks = 8;  // a segment's fewest chunks: its ring filled and drained once
inline FusedSegments plan_fused_segments(int blocks, int chunks, int multiprocessors) {
  FusedSegments plan;
  plan.count = 2 * blocks > multiprocessors ? 1 : multiprocessors / blocks;
  if (chunks / kMinSegmentChunks < plan.count) plan.count = chunks / kMinSegmentChunks;
  if (plan.count < 2) plan.count = 1;
  plan.chunks = (chunks + plan.count - 1) / plan.count;
  // whole segments only: no segment left empty by the rounding up
  plan.count = (chunks + plan.chunks - 1) / plan.chunks;
  return plan;
}

}  // namespace flabench::chunk
