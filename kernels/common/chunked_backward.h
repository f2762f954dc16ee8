// A chunk variant's backward as another variant may run it: on the states before every chunk alone, which
// that variant's own forward saved. fused_recurrent's fwd+bwd takes it where it is the faster (its scan
// forward saves those states: kernels/common/fused_recurrent/backward_in_chunks.cuh); each op's chunk.cu
// makes its own.
#pragma once

#include <cstddef>
#include <functional>

#include "kernels/common/problem.h"
#include "kernels/variant.h"

namespace flabench {

struct ChunkedBackward {
  int chunk = 0;  // tokens a chunk: a power-of-two multiple of 16 (the scan's checkpoint interval)
  // Whether it runs `p` (of any chunk size: it takes its own) on `device`.
  std::function<bool(const Problem& p, const DeviceLimits& device)> runs;
  // Its workspace for `p` (of chunk size `chunk`); the first region holds the states, fp32
  // [B*H, chunks, K, V], the state before every chunk.
  std::function<std::size_t(const Problem& p)> workspace_bytes;
  // The backward of a call whose problem has chunk size `chunk`, the states in the workspace (and what
  // `prepare` made, where it is set).
  std::function<void(const BackwardCall& call)> backward;
  // Where set: the backward's first work, which reads the inputs alone (of a call whose problem has chunk
  // size `chunk`, into its workspace); the forward that saves the states runs it, where it has SMs to spare.
  std::function<void(const ForwardCall& call)> prepare;
};

}  // namespace flabench
