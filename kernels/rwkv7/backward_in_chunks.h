// rwkv7's fused_recurrent backward in chunk form. The scan's forward saves the state before every 16th token
// and a^T S_{t-1} per token, which are also what the chunk variant's forward saves for its backward (the
// states at the chunks' starts and V_new: chunk_workspace.h lays them out alike); so where the chunk
// variant's chunked backward is the faster (kernels/notes/fused_recurrent.md, version 58), fused_recurrent's
// fwd+bwd runs its scan forward inside the chunk variant's workspace, then intra's per-chunk matrices
// recomputed (those the chunked backward reads: not U and k~, version 60) and the chunked backward
// (chunk.cu), in chunks of kBackwardChunk tokens. (Intra beside the scan, on a stream of its own,
// was 1.05-1.07x slower at many heads: version 58b.)
#pragma once

#include <cstddef>
#include <functional>

#include "kernels/common/problem.h"
#include "kernels/variant.h"

namespace flabench::rwkv7 {

constexpr int kBackwardChunk = 32;

// Whether fused_recurrent's backward of `p` runs in chunk form on `device`.
bool backward_in_chunks(const Problem& p, const DeviceLimits& device);
// Its workspace, and where in it the scan's own (its checkpoints and a^T S_{t-1}) starts, in bytes.
std::size_t backward_in_chunks_workspace_bytes(const Problem& p, const DeviceLimits& device);
std::size_t scan_workspace_offset(const Problem& p, const DeviceLimits& device);
// The backward, after a scan forward that saved into the workspace from scan_workspace_offset: intra's
// per-chunk matrices recomputed into the chunk variant's regions, then the chunked backward.
void run_backward_in_chunks(const BackwardCall& call);

// The scan's own backward (kernels/common/fused_recurrent), which the chunk variant runs where its chunked
// one does not (fused_recurrent.cu).
std::function<void(const BackwardCall&)> scan_backward();

}  // namespace flabench::rwkv7
