#include "kernels/common/op_helpers.h"
#include "kernels/gla/gla.h"

namespace flabench {

void register_gla(Registry& registry) {
  using namespace op_helpers;
  op_helpers::register_op(
      registry,
      recurrence_op(
          {.name = "gla",
           .math = "S_t = diag(exp(g_t)) S_{t-1} + k_t v_t^T;  o_t = scale * S_t^T q_t",
           .inputs =
               {{"q", kTokenKey}, {"k", kTokenKey}, {"v", kTokenValue}, {"g", kTokenKey}, state_input()},
           .binding = kGlaBinding,
           .flops_per_state_element = 5,  // decay + outer product (3), output (2)
           .default_scale = inverse_sqrt_key_dim,
           .make_inputs = normal_inputs_with_log_sigmoid_gate("g")}),
      {gla_naive_variant(), gla_fused_recurrent_variant(), gla_chunk_variant()});
}

}  // namespace flabench
