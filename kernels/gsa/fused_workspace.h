// gsa fused_recurrent's workspace: what the forward leaves for the backward and the backward's own
// per-token buffers, as offsets in floats (fp32 throughout).
#pragma once

#include <cstddef>

#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/problem.h"
#include "kernels/gsa/gla_passes_plan.h"

namespace flabench::gsa {

struct FusedWorkspace {
  std::size_t logits;             // [B, T, HQ, M]: scale Hk_t^T q, written by the forward's split form and
                                  // its gla passes
  std::size_t key_checkpoints;    // [B*H, chunks, K, M]: Hk before every kChunk-th token, when saved (the
                                  // gla passes: Hk^T, [B*H, chunks, M, K])
  std::size_t value_checkpoints;  // [B*H, chunks, M, V]: Hv likewise, made by the backward
  std::size_t weights;            // [B, T, HQ, M]: p (the gla passes' forward: in the inputs' type)
  std::size_t logit_grads;        // [B, T, HQ, M]: dp, then dz = scale p (dp - p . dp)
  std::size_t slot_sums;          // [2][B, T, H, M]: pass 1's ds and df, for pass 2's to add
  std::size_t gla_backward;       // the gla passes' backward (gla_passes_backward.cuh): kGlaTokenBuffers
                                  // [B, T, H, M] then kGlaStates [B*H, M, K]; in their forward the states
                                  // its segments hand on (gla_passes_plan.h)
  std::size_t gla_handoffs;       // the backward's segments: kGlaHandoffs of Hv's gradient [B*H, M, V]
                                  // handed on by its column passes, as many of Hk^T's [B*H, M, K]
  std::size_t total;

  static constexpr int kGlaTokenBuffers = 2, kGlaStates = 2;
  static constexpr int kGlaHandoffs = gla_passes::kMaxSegments - 1, kGlaRowStreams = 5;

  explicit FusedWorkspace(const Problem& p) {
    const std::size_t rows = p.B * p.T * p.H * p.G * p.M, heads = p.B * p.H;
    const std::size_t chunks = (p.T + fused::kChunk - 1) / fused::kChunk;
    logits = 0;
    key_checkpoints = logits + rows;
    value_checkpoints = key_checkpoints + heads * chunks * p.K * p.M;
    weights = value_checkpoints + heads * chunks * p.M * p.V;
    logit_grads = weights + rows;
    slot_sums = logit_grads + rows;
    gla_backward = slot_sums + 2 * p.B * p.T * p.H * p.M;
    gla_handoffs = gla_backward + kGlaTokenBuffers * p.B * p.T * p.H * p.M + kGlaStates * heads * p.M * p.K;
    total = gla_handoffs + kGlaHandoffs * heads * p.M * (p.V + p.K);
  }
  std::size_t bytes() const { return total * sizeof(float); }
};

}  // namespace flabench::gsa
