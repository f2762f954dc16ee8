// fused_recurrent's workspace: what its forward saves for its backward and the backward's scratch. Host-safe,
// so rwkv7's chunk variant, whose forward saves the same checkpoints and low-rank terms for this backward,
// lays its workspace out around it.
#pragma once

#include <cstddef>

#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/fused_recurrent/segments.h"
#include "kernels/common/problem.h"
#include "kernels/common/recurrence.h"

namespace flabench::fused {

// Workspace (fp32): the forward's checkpoints [B*H, chunks, K, V]; for the low-rank term a^T S_{t-1} and
// dS_t^T b_t per token [B, T, H, V]; but with the bonus (whose backward takes no segments) the state
// gradients a backward over segments hands on (segments.h: up to kMaxSequenceSegments - 1 of the column
// pass's, [B*H, K, V] each); for a per-head gate the per-row terms of dg [B, T, H, K]; for the bonus the
// per-(batch, head) partial sums of du [B*H, K].
template <class Form>
struct WorkspaceLayout {
  static constexpr int kHandoffs = kMaxSequenceSegments - 1;
  std::size_t checkpoints, sa, dsa, handoffs, dg_rows, du_partial, total;  // offsets in floats
  explicit WorkspaceLayout(const Problem& p) {
    const std::size_t heads = p.B * p.H, tokens = p.B * p.T * p.H;
    const std::size_t chunks = (p.T + kChunk - 1) / kChunk;
    checkpoints = 0;
    sa = checkpoints + heads * chunks * p.K * p.V;
    dsa = sa + (Form::value.low_rank ? tokens * p.V : 0);
    handoffs = dsa + (Form::value.low_rank ? tokens * p.V : 0);
    dg_rows = handoffs + (Form::value.bonus ? 0 : kHandoffs * heads * p.K * p.V);
    du_partial = dg_rows + (Form::value.gate == GateKind::per_head ? tokens * p.K : 0);
    total = du_partial + (Form::value.bonus ? heads * p.K : 0);
  }
};

}  // namespace flabench::fused
