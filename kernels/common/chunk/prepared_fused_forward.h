// gla's and rwkv6's chunk forward on Hopper from prepared operands (prepared_fused_forward.cu): where it
// runs, and its launch. Host-safe, so that the CPU tests ask where it runs.
#pragma once

#include "kernels/common/chunk/fused_plan.h"
#include "kernels/common/recurrence.h"
#include "kernels/variant.h"

namespace flabench {

// Whether the state and output pass over prepared operands takes problem `p` of a recurrence of `form` on a
// device of `limits`: gla's form or rwkv6's, bf16, chunks of 64, K = 64 or 128, V a multiple of 32, a compute
// capability 9.0 GPU, a build with sm_90a code, blocks that fit its shared memory and fill more than half
// the GPU, or else split the sequence into segments (fused_plan.h, fused_forward_segments).
bool prepared_fused_forward_runs(const RecurrenceForm& form, const Problem& p, const DeviceLimits& limits);

// o, the final state and, where the call saves for a backward, the state before every chunk, on the call's
// stream, from what the operands pass (operands_pass.cuh) left in the call's workspace (chunk::Workspace):
// keys_to_end in two parts and whole, queries_from_start's first part, scores and (rwkv6) bonus; over the
// sequence segments of `segments` (count 1: one), the start states of all but the first at `starts`
// (segment_scratch's starts).
void prepared_fused_forward(const RecurrenceBinding& binding, const ForwardCall& call,
                            const DeviceLimits& limits, const chunk::FusedSegments& segments,
                            const float* starts);

}  // namespace flabench
