// What the one-kernel chunk forwards on Hopper share (simple_gla's,
// kernels/simple_gla/chunk_fused_forward.cu, and gla's and rwkv6's over prepared operands,
// kernels/common/chunk/prepared_fused_forward.cu): the chunk, the ring of staged chunks, the three warpgroups
// and how a head's values are sliced over blocks. Host-safe, for the CPU tests.
#pragma once

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

// Whether `blocks` blocks of a one-kernel forward fill more than half the GPU's multiprocessors. Only then
// do they run: at fewer, the multi-kernel forwards measured faster, also where the sequence was split into
// segments over the idle multiprocessors (kernels/notes/chunk.md, version 72b, refuted on an H200).
inline bool fused_blocks_fill(int blocks, int multiprocessors) {
  return 2 * blocks > multiprocessors;
}

// Where a one-kernel forward whose shared memory is `layout(K, Vs)` may run `p` on a GPU of `limits`, as far
// as its blocks go: at the value slice it takes there, they fill more than half the GPU and fit a block's
// room.
template <class MakeLayout>
bool fused_blocks_fit(const Problem& p, const DeviceLimits& limits, const MakeLayout& layout) {
  const int Vs = fused_value_slice(int(p.B * p.H), int(p.V), limits.multiprocessors);
  return fused_blocks_fill(int(p.B * p.H * (p.V / Vs)), limits.multiprocessors) &&
         layout(int(p.K), Vs).bytes() <= limits.shared_memory_per_block;
}

}  // namespace flabench::chunk
