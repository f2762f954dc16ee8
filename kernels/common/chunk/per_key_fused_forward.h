// gla's and rwkv6's fused chunk forward on Hopper (per_key_fused_forward.cu): where it runs, and its launch.
// Host-safe, so that the CPU tests ask where it runs.
#pragma once

#include "kernels/common/recurrence.h"
#include "kernels/variant.h"

namespace flabench {

// Whether the fused forward takes problem `p` of a recurrence of `form` on a device of `limits`: gla's form
// or rwkv6's, bf16, chunks of 64, K = 64 or 128, V a multiple of 32, a compute capability 9.0 GPU, a build
// with sm_90a code and the shared memory it needs. A forward that saves for a backward is the caller's to
// keep off it (the backward reads what the two-kernel forward saves).
bool per_key_fused_forward_runs(const RecurrenceForm& form, const Problem& p, const DeviceLimits& limits);

// o and the final state from the inputs `binding` names and the initial state, on the call's stream.
void per_key_fused_forward(const RecurrenceBinding& binding, const ForwardCall& call,
                           const DeviceLimits& limits);

}  // namespace flabench
