#include "kernels/common/op_helpers.h"
#include "kernels/gsa/gsa.h"
#include "kernels/gsa/reference.h"

namespace flabench {
namespace {

using Extents = std::vector<Extent>;
const Extents kTokenQuery{Extent::B, Extent::T, Extent::HQ, Extent::K};       // q
const Extents kTokenQueryValue{Extent::B, Extent::T, Extent::HQ, Extent::V};  // o
const Extents kTokenSlot{Extent::B, Extent::T, Extent::H, Extent::M};         // s, f
const Extents kKeyState{Extent::B, Extent::H, Extent::K, Extent::M};          // hk
const Extents kValueState{Extent::B, Extent::H, Extent::M, Extent::V};        // hv

// FLOPs of one forward call per token and key/value head: both state updates (decay, outer product: 3 per
// element) and, per query head, the slot logits and the output (2 per element each) and the softmax (about 5
// per slot: max, subtract, exp, sum, divide).
double forward_flops(const Problem& p) {
  const double per_token_head =
      3.0 * p.K * p.M + 3.0 * p.M * p.V + p.G * (2.0 * p.K * p.M + 2.0 * p.M * p.V + 5.0 * p.M);
  return per_token_head * static_cast<double>(p.B * p.T * p.H);
}

}  // namespace

OpSpec gsa_op() {
  using namespace op_helpers;
  OpSpec op;
  op.name = "gsa";
  op.math =
      "Hk_t = Hk_{t-1} diag(exp(f_t)) + k_t s_t^T; p_t = softmax(scale Hk_t^T q_t); "
      "Hv_t = diag(exp(f_t)) Hv_{t-1} + s_t v_t^T; o_t = Hv_t^T p_t";
  op.inputs = {{"q", kTokenQuery},
               {"k", kTokenKey},
               {"v", kTokenValue},
               {"s", kTokenSlot},
               {"f", kTokenSlot},
               {"hk0", kKeyState, /*in_case_dtype=*/false},
               {"hv0", kValueState, /*in_case_dtype=*/false}};
  op.outputs = {{"o", kTokenQueryValue},
                {"hkt", kKeyState, /*in_case_dtype=*/false},
                {"hvt", kValueState, /*in_case_dtype=*/false}};
  op.log_decay = "f";
  op.states = {{"hk0", "hkt"}, {"hv0", "hvt"}};
  op.state_reader = "q";               // pass 1's logits scale Hk^T q
  op.state_writers = {"k", "s", "v"};  // Hk += k s^T, Hv += s v^T
  op.slots = {64};
  op.grouped_queries = true;
  op.default_scale = inverse_sqrt_key_dim;
  // As FLA's gsa tests draw them: q, k, v, s, hk0, hv0 ~ N(0, 1), f = logsigmoid(N(0, 1)).
  op.make_inputs = normal_inputs_with_log_sigmoid_gate("f");
  op.forward_flops = forward_flops;
  op.reference_forward = gsa_reference_forward;
  op.reference_backward = gsa_reference_backward;
  op.reference_backward_bytes = gsa_reference_backward_bytes;
  return op;
}

void register_gsa(Registry& registry) {
  op_helpers::register_op(registry, gsa_op(),
                          {gsa_naive_variant(), gsa_fused_recurrent_variant(), gsa_chunk_variant()});
}

}  // namespace flabench
