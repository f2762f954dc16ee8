// simple_gla's fused chunk forward on Hopper (chunk_fused_forward.cu): where it runs, and its launch.
// Host-safe, so that the CPU tests ask where it runs.
#pragma once

#include "kernels/common/chunk/fused_plan.h"
#include "kernels/variant.h"

namespace flabench {

// Whether the fused forward takes problem `p` on a device of `limits`: bf16, chunks of 64, K = 64 or 128, V a
// multiple of 32, a compute capability 9.0 GPU, a build with sm_90a code and the shared memory it needs;
// where its blocks fill more than half the GPU (simple_gla_fused_kernel_fills) or the sequence splits into
// segments (fused_plan.h, fused_forward_segments).
bool simple_gla_fused_forward_runs(const Problem& p, const DeviceLimits& limits);

// Whether the fused kernel takes `p` with a block a head's value slice over every chunk, filling more than
// half the GPU: where its backward's passes and reverse scan may run.
bool simple_gla_fused_kernel_fills(const Problem& p, const DeviceLimits& limits);

// o and the final state from q, k, v, g and the initial state, on the call's stream, over the sequence
// segments of `segments` (count 1: one), the start states of all but the first at `starts` (segment_scratch's
// starts); where the call saves for a backward that is not simple_gla_fused_backward, the state before every
// chunk into the workspace's states (what the scalar backward reads).
void simple_gla_fused_forward(const ForwardCall& call, const DeviceLimits& limits,
                              const chunk::FusedSegments& segments, const float* starts);

// Whether the backward's fused passes take problem `p`: where the fused forward takes it and its transpose (K
// and V swapped: dq's and dk's passes run there), so K and V each 64 or 128.
bool simple_gla_fused_backward_runs(const Problem& p, const DeviceLimits& limits);

// dq, dk, dv, dg and dh0 of the call from its inputs, do and d_ht alone (no saved state), where
// simple_gla_fused_backward_runs: three passes of the fused kernel and the gate's scan, on the call's stream;
// the workspace's states and state gradients hold the passes' scratch.
void simple_gla_fused_backward(const BackwardCall& call, const DeviceLimits& limits);

// The backward's reverse scan by the same kernel, where simple_gla_fused_kernel_fills but not
// simple_gla_fused_backward_runs: the gradient of the
// state after every chunk into `dstates` ([B H][chunks][K][V] fp32) and dh0, from q, do, g and d_ht, on the
// call's stream.
void simple_gla_fused_state_grads(const BackwardCall& call, float* dstates, const DeviceLimits& limits);

}  // namespace flabench
