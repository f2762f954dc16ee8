// fused_recurrent's workspace: what its forward saves for its backward and the backward's scratch. Host-safe,
// so rwkv7's chunk variant, whose forward saves the same checkpoints and low-rank terms for this backward,
// lays its workspace out around it.
#pragma once

#include <cstddef>

#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/problem.h"
#include "kernels/common/recurrence.h"

namespace flabench::fused {

// Workspace (fp32): the forward's checkpoints [B*H, chunks, K, V]; for the low-rank term a^T S_{t-1} and
// dS_t^T b_t per token [B, T, H, V]; for a per-head gate the per-row terms of dg [B, T, H, K]; for the bonus
// the per-(batch, head) partial sums of du [B*H, K].
template <class Form>
struct WorkspaceLayout {
  std::size_t checkpoints, sa, dsa, dg_rows, du_partial, total;  // offsets in floats
  explicit WorkspaceLayout(const Problem& p) {
    const std::size_t heads = p.B * p.H, tokens = p.B * p.T * p.H;
    const std::size_t chunks = (p.T + kChunk - 1) / kChunk;
    checkpoints = 0;
    sa = checkpoints + heads * chunks * p.K * p.V;
    dsa = sa + (Form::value.low_rank ? tokens * p.V : 0);
    dg_rows = dsa + (Form::value.low_rank ? tokens * p.V : 0);
    du_partial = dg_rows + (Form::value.gate == GateKind::per_head ? tokens * p.K : 0);
    total = du_partial + (Form::value.bonus ? heads * p.K : 0);
  }
};

}  // namespace flabench::fused
