// Gated Slot Attention (FLA's fla/ops/gsa), per batch b and key/value head h, M slots:
//
//   pass 1  Hk_t = Hk_{t-1} diag(exp(f_t)) + k_t s_t^T      in R^{K x M};   ok_t = scale * Hk_t^T q_t
//           p_t  = softmax over the M slots of ok_t (fp32)
//   pass 2  Hv_t = diag(exp(f_t)) Hv_{t-1} + s_t v_t^T      in R^{M x V};   o_t  = Hv_t^T p_t
//
// q [B,T,HQ,K] with HQ = G x H query heads (grouped queries share their key/value head's states), k
// [B,T,H,K], v [B,T,H,V], slot logits s and log forget gate f [B,T,H,M]; the state is the pair (hk [B,H,K,M],
// hv [B,H,M,V]) in fp32.
#pragma once

#include "kernels/common/chunked_backward.h"
#include "kernels/op.h"
#include "kernels/registry.h"

namespace flabench {

// The op: tensors, inputs, FLOPs and its fp64 reference.
OpSpec gsa_op();

void register_gsa(Registry& registry);

Variant gsa_naive_variant();
Variant gsa_fused_recurrent_variant();
// Whether gsa's fused_recurrent runs `p` on gla's fused kernels (kernels/gsa/gla_passes.cuh) on a device with
// these limits, else on its own forms (grouped queries, where gla's kernels do not fit, and a 16-bit fwd+bwd
// whose backward would run on them outside the chunk form).
bool gsa_fused_takes_gla_passes(const Problem& p, Mode mode, const DeviceLimits& device);
// Whether its fwd+bwd of `p` on such a device runs the backward in chunk form (gsa chunk's, from the states
// the gla passes save), rather than the gla passes' scans (fp32) or its own (split form).
bool gsa_fused_backward_in_chunks(const Problem& p, const DeviceLimits& device);
Variant gsa_chunk_variant();
// gsa chunk's backward as fused_recurrent's fwd+bwd runs it: from the states before every chunk, p in the
// dtype and in fp32 (kernels/gsa/chunk_workspace.h's value_states, key_states, weights, saved_weights).
ChunkedBackward gsa_chunked_backward();
// Whether that backward (the chunk variant's, and fused_recurrent's in chunk form) of `p` makes dq in pass
// 1's value gradients on a device with these limits, which build its scores whole there, else in an output
// pass of its own.
bool gsa_dq_in_value_grads(const Problem& p, const DeviceLimits& device);

}  // namespace flabench
