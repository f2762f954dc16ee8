// simple_gla's per-chunk gradients on Hopper (chunk_grads_wgmma.cu): where they run, and their launch.
// Host-safe, so that the CPU tests ask where they run.
#pragma once

#include "kernels/common/chunk/state_grad_runs.h"
#include "kernels/variant.h"

namespace flabench {

// Whether the wgmma gradients kernel takes the backward of problem `p` on a device of `limits`: bf16, chunks
// of 64, K and V each 64 or 128, a compute capability 9.0 GPU, a build with sm_90a code and the shared
// memory it needs. Elsewhere the scalar gate's backward takes chunk_backward.cuh's mma.sync kernel.
bool simple_gla_grads_wgmma_runs(const Problem& p, const DeviceLimits& limits);

// dq, dk, dv and dg of the call from its inputs, do, `states` (the state before every chunk, as the forward
// saves it) and `dstates` (the gradient of the state after every chunk, as the reverse scan makes it; where
// it ran in runs, run-local, made whole with `runs`), on the call's stream; a block an SM of `limits` at
// most.
void simple_gla_grads_wgmma(const BackwardCall& call, const float* states, const float* dstates,
                            const chunk::StateGradStarts& runs, const DeviceLimits& limits);

}  // namespace flabench
